#!/bin/sh
# check_spec_oshcc.sh BUILD SOURCE...: installs gasket into a scratch
# prefix, builds each specification-example test with the installed oshcc
# as a user would (no CMake) and runs it with the installed oshrun at 2
# and 4 PEs; each must exit 0. A source that includes omp.h is built with
# -fopenmp.
set -eu
build=$1; shift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
cmake --install "$build" --prefix "$work/prefix" >/dev/null
bin=$work/prefix/bin
for src in "$@"; do
    exe=$work/$(basename "$src" .c)
    omp=
    if grep -q '^#include <omp.h>' "$src"; then omp=-fopenmp; fi
    "$bin/oshcc" -std=c11 -O2 $omp -o "$exe" "$src"
    for n in 2 4; do
        timeout 60 "$bin/oshrun" -np "$n" --timeout 50 "$exe" ||
            { echo "FAIL: $(basename "$src") at $n PEs"; exit 1; }
        echo "ok: $(basename "$src") at $n PEs"
    done
done

#!/usr/bin/env bash
# Installs gasket into a scratch prefix and builds a hybrid MPI + gasket
# program (hybrid_rma.c) against it with the plain C compiler and nothing
# but pkg-config: gasket-mpi.pc (FindMPI's MPI) and, when there,
# gasket-mpi-mpich.pc. Runs each with its MPI's mpirun on 2 ranks.
set -euo pipefail
unset LD_LIBRARY_PATH
build=$1; prog=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig:${PKG_CONFIG_PATH:-}
test -f "$work/prefix/include/gasket_mpi.h"
ran=0
for pc in gasket-mpi gasket-mpi-mpich; do
    pkg-config --exists "$pc" || continue
    requires=$(pkg-config --print-requires "$pc" | tr "\n" " ")
    case $requires in
    *ompi*) run="mpirun.openmpi --oversubscribe -n 2" ;;
    *mpich*) run="mpirun.mpich -n 2" ;;
    *) echo "$pc requires no MPI module pkg-config knows; not run"; continue ;;
    esac
    command -v "${run%% *}" >/dev/null || { echo "${run%% *} not found"; continue; }
    # No rpath or LD_LIBRARY_PATH of ours: the .pc files' run path finds
    # the installed libraries.
    cc -std=c11 -Wall -Werror $(pkg-config --cflags "$pc") "$prog" -o "$work/hybrid_$pc" \
       $(pkg-config --libs "$pc")
    # The installed library, not the build tree's.
    ldd "$work/hybrid_$pc" | grep "$work/prefix/.*libgasket_mpi" >/dev/null
    $run "$work/hybrid_$pc" | grep "hybrid_rma: ok" >/dev/null
    echo "ok: $pc ($requires) builds with pkg-config and runs under ${run%% *}"
    ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || { echo "no gasket-mpi pkg-config file could be used"; exit 77; }

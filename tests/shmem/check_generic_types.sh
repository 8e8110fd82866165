#!/bin/sh
# check_generic_types.sh OSHCC SOURCE: compiles shmem_generic_types.c with
# oshcc in C11 with -Werror (every generic name with every type of its
# table must compile and select that type's routine), then each of its
# GK_NOT_IN_TABLE cases, which must not compile.
set -eu
oshcc=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-std=c11 -Wall -Wextra -pedantic -Werror -Wno-unused-parameter -c"
"$oshcc" $flags -o "$work/all.o" "$src" || { echo "FAIL: the table's types"; exit 1; }
echo "ok: every type of every table compiles"
n=1
while grep -q "GK_NOT_IN_TABLE == $n\$" "$src"; do
    if "$oshcc" $flags -DGK_NOT_IN_TABLE=$n -o "$work/no.o" "$src" 2> "$work/err"; then
        echo "FAIL: case $n of the types outside the tables compiled"
        exit 1
    fi
    echo "ok: case $n does not compile: $(grep -m1 -o 'error: .*' "$work/err")"
    n=$((n + 1))
done
[ "$n" -gt 1 ] || { echo "FAIL: no GK_NOT_IN_TABLE case found"; exit 1; }

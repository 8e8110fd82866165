#!/bin/sh
# check_spec_example.sh OSHCC OSHRUN SOURCE NPES [OSHRUN-OPTION...]
#
# Builds one of the specification's examples (examples/, verbatim) with
# oshcc and the flags of the specification's own example Makefile, and
# runs it with oshrun at each PE count of NPES ("2 4"), with the options
# given (--hosts 2). It fails when the build fails, when a diagnostic
# comes from gasket's headers, when the job's status is not the one the
# example ends with, or when the job's output, with its lines sorted,
# differs from what the example prints at that PE count (expect, below).
# An example without main (the profiling fragments) is only compiled.
set -eu
oshcc=$1 oshrun=$2 src=$3 npes=$4
shift 4
name=$(basename "$src" .c)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $name: $*"
    exit 1
}

# seq_lines FORMAT FIRST LAST: FORMAT (a printf format with one %d) for
# each PE number from FIRST to LAST.
seq_lines() {
    p=$2
    while [ "$p" -le "$3" ]; do
        printf "$1\n" "$p"
        p=$((p + 1))
    done
}

# expect N: the example's output at N PEs, the lines in any order, or
# "@lock" and the like where the lines depend on who came first (each
# such case is checked by check_racy below).
expect() {
    n=$1 last=$(($1 - 1))
    case $name in
    hello-openshmem) seq_lines "Hello from %d of $n" 0 $last ;;
    shmem_npes_example) seq_lines "I am #%d of $n PEs executing this program" 0 $last ;;
    shmem_atomic_add_example) echo "0: dst = 66"; seq_lines "%d: dst = 22" 1 $last ;;
    shmem_atomic_fetch_add_example)
        echo "0: old = -1, dst = 66"; echo "1: old = 22, dst = 22"
        seq_lines "%d: old = -1, dst = 22" 2 $last ;;
    shmem_atomic_fetch_inc_example)
        echo "0: old = 22, dst = 22"; echo "1: old = -1, dst = 23"
        seq_lines "%d: old = -1, dst = 22" 2 $last ;;
    shmem_atomic_inc_example) echo "0: dst = 74"; echo "1: dst = 75"; seq_lines "%d: dst = 74" 2 $last ;;
    shmem_atomic_swap_example)
        p=1
        while [ $p -lt "$n" ]; do
            echo "$p: dest = $p, swapped = $(((p + 1) % n))"
            p=$((p + 2))
        done ;;
    shmem_barrier_example)
        p=0
        while [ $p -lt "$n" ]; do
            if [ $((p % 2)) = 0 ]; then echo "$p: x = 4"; else echo "$p: x = 10101"; fi
            p=$((p + 1))
        done ;;
    shmem_barrierall_example) seq_lines "%d: x = 4" 0 $last ;;
    shmem_broadcast_example) seq_lines "%d: 0, 1, 2, 3" 0 $last ;;
    shmem_collect_example)
        total=$((n * (n + 1) / 2)) list=0 i=1
        while [ $i -lt $total ]; do list="$list, $i"; i=$((i + 1)); done
        seq_lines "%d: $list" 0 $last ;;
    shmem_fence_example) seq_lines "dest[0] on PE %d is 0" 0 $last | sed 's/PE \([12]\) is 0/PE \1 is 1/' ;;
    shmem_put_example) seq_lines "dest[0] on PE %d is 0" 0 $last | sed 's/PE 1 is 0/PE 1 is 1/' ;;
    shmem_finalize_example | shmem_g_example) echo "0: y = 10101"; seq_lines "%d: y = -1" 1 $last ;;
    shmem_init_example) echo "PE 1 targ=33 (expect 33)" ;;
    shmem_iput_example) echo "dest on PE 1 is 1 3 5 7 9" ;;
    shmem_p_example) echo "OK" ;;
    shmem_ptr_example) echo "PE 1 dest: 1, 2, 3, 4" ;;
    shmem_quiet_example) echo "x: { 1, 2, 3 }"; echo "y: 90" ;;
    shmem_team_split_2D)
        # The example's factors: 2 PEs are 2 x 1 x 1, 4 PEs 2 x 2 x 1.
        case $n in 2) x=2 y=1 ;; 4) x=2 y=2 ;; *) fail "no expected output at $n PEs" ;; esac
        echo "xdim = $x, ydim = $y, zdim = 1"
        p=0
        while [ $p -lt "$n" ]; do
            echo "($((p % x)), $((p / x % y)), $((p / (x * y)))) is mype = $p"
            p=$((p + 1))
        done ;;
    writing_shmem_example)
        vals=$(seq_lines "%d" 0 15 | tr '\n' ' ')
        seq_lines "dest on PE %d is $vals" 1 $last ;;
    shmem_lock_example | shmem_test_example1 | shmem_atomic_compare_swap_example | \
        shmem_reduce_example) echo "@racy" ;;
    *) ;; # the examples that print nothing
    esac
}

# check_racy N OUT: the examples whose lines depend on which PE came first.
check_racy() {
    n=$1 out=$2
    case $name in
    shmem_lock_example)
        # Each PE prints the count it found under the lock: 0 .. N-1, once each.
        [ "$(wc -l < "$out")" = "$n" ] || fail "$n PEs, not $n lines"
        got=$(sed -n 's/^[0-9]*: count is \([0-9]*\)$/\1/p' "$out" | sort -n | tr '\n' ' ')
        [ "$got" = "$(seq_lines %d 0 $((n - 1)) | tr '\n' ' ')" ] || fail "counts $got" ;;
    shmem_test_example1)
        grep -Eqx "PE 0 observed first update from PE [1-9][0-9]*" "$out" &&
            [ "$(wc -l < "$out")" = 1 ] || fail "$(cat "$out")"
        who=$(sed 's/.* PE //' "$out")
        [ "$who" -lt "$n" ] || fail "PE $who is not a PE of the job" ;;
    shmem_atomic_compare_swap_example)
        grep -Eqx "PE [0-9]+ was first" "$out" && [ "$(wc -l < "$out")" = 1 ] ||
            fail "$(cat "$out")"
        who=$(sed 's/PE \([0-9]*\) .*/\1/' "$out")
        [ "$who" -lt "$n" ] || fail "PE $who is not a PE of the job" ;;
    shmem_reduce_example)
        # The PEs draw with rand() after srand(PE number): the same draws
        # here give the count of npes - 1 and where one was drawn.
        cat > "$work/draws.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int npes = atoi(argv[1]), total = 0, any[32] = {0};
    for (int pe = 0; pe < npes; pe++) {
        srand((unsigned)pe);
        for (int i = 0; i < 32; i++)
            if (rand() % npes == npes - 1)
                total++, any[i] = 1;
    }
    printf("Found %d maximal random numbers across all PEs.\n", total);
    printf("A maximal number occured (at least once) at the following indices:\n");
    for (int i = 0; i < 32; i++)
        if (any[i])
            printf("%d ", i);
    printf("\n");
    return 0;
}
EOF
        "$oshcc" -o "$work/draws" "$work/draws.c"
        "$work/draws" "$n" > "$work/draws.out"
        cmp -s "$work/draws.out" "$out" || {
            diff "$work/draws.out" "$out" || true
            fail "reduction results differ at $n PEs"
        } ;;
    esac
}

flags="-std=c11 -Wall -Wextra -pedantic"
if grep -q 'omp' "$src"; then flags="$flags -fopenmp"; fi
if ! grep -q 'int main' "$src"; then
    "$oshcc" $flags -c -o "$work/$name.o" "$src" > "$work/cc.out" 2>&1 ||
        { cat "$work/cc.out"; fail "does not compile"; }
    if grep -E 'shmemx?\.h|pshmem\.h' "$work/cc.out"; then fail "a diagnostic from gasket's headers"; fi
    echo "ok: $name compiles (no main: a fragment)"
    exit 0
fi
"$oshcc" $flags -o "$work/$name" "$src" > "$work/cc.out" 2>&1 ||
    { cat "$work/cc.out"; fail "does not build"; }
cat "$work/cc.out"
if grep -E 'shmemx?\.h|pshmem\.h' "$work/cc.out"; then fail "a diagnostic from gasket's headers"; fi

# The status each example ends with: shmem_global_exit_example calls
# shmem_global_exit(1); every other one returns 0.
want=0
[ "$name" = shmem_global_exit_example ] && want=1
for n in $npes; do
    status=0
    timeout 110 "$oshrun" -np "$n" --timeout 100 "$@" "$work/$name" \
        > "$work/out" 2> "$work/err" || status=$?
    cat "$work/err" >&2
    [ "$status" = "$want" ] || { cat "$work/out"; fail "status $status at $n PEs, not $want"; }
    if [ "$(expect "$n")" = "@racy" ]; then
        check_racy "$n" "$work/out"
    else
        expect "$n" | LC_ALL=C sort > "$work/want"
        tr -s ' \t' ' ' < "$work/out" | sed 's/ $//' | LC_ALL=C sort > "$work/got"
        sed 's/ $//' "$work/want" > "$work/want2"
        if ! cmp -s "$work/want2" "$work/got"; then
            diff "$work/want2" "$work/got" || true
            fail "output differs at $n PEs"
        fi
    fi
    echo "ok: $name at $n PEs $*"
done

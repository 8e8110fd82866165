#!/bin/sh
# check_global_exit.sh LAUNCHER PROGRAM NPES [LAUNCHER-OPTION...]:
# shmem_global_exit(status) on one PE, while the others wait in a
# barrier, must end the whole job promptly with exactly that status as the
# launcher's exit status (0 included), and the PE's buffered output must
# come out.
launcher=$1; prog=$2; n=$3
shift 3
for status in 0 1 7 255; do
    start=$(date +%s)
    out=$(timeout 60 "$launcher" -n "$n" "$@" "$prog" "$status" 2>&1)
    got=$?
    took=$(($(date +%s) - start))
    echo "$out"
    [ "$got" -eq "$status" ] ||
        { echo "FAIL: shmem_global_exit($status): the launcher exited with $got"; exit 1; }
    echo "$out" | grep -q "no input, shmem_global_exit($status)" ||
        { echo "FAIL: shmem_global_exit($status): the PE's output was lost"; exit 1; }
    [ "$took" -le 10 ] ||
        { echo "FAIL: shmem_global_exit($status): the job took $took s to end"; exit 1; }
    echo "ok: shmem_global_exit($status) at $n PEs $*: status $got in $took s"
done

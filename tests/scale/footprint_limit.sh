#!/bin/sh
# footprint_limit.sh GASKET_RUN GK_FOOTPRINT N: starts a job of N PEs on
# this host (heaps of 1 MiB) and checks what one PE costs beyond its heap
# (bench/footprint.c: private pages + its share of /dev/shm, the largest
# over the PEs) against the target 2 MiB + 1 KiB x N, that a window's
# memory grows no faster than the PE count (at most 512 bytes per PE), and
# that the job's window lock and all-reduce gave the right results.
set -u
run="$1" prog="$2" n="$3"
# A PE's share of /dev/shm is its segment file's blocks, which
# /proc/self/map_files shows to root only (bench/footprint.c).
if [ "$(id -u)" != 0 ]; then
    echo "footprint_limit: needs root to read a PE's share of /dev/shm; skipped"
    exit 77
fi
# The target is for normal runs: check mode's race detector keeps a
# clock and a log in every segment (docs/CHECK.md).
if [ "${GK_CHECK:-0}" = 1 ]; then
    echo "footprint_limit: GK_CHECK=1 adds the race detector's log; skipped"
    exit 77
fi
out="$(GK_HEAP_SIZE=1M "$run" -n "$n" --timeout 240 "$prog")" || {
    echo "footprint_limit: the job of $n PEs failed"; exit 1; }
echo "$out"
value() { echo "$out" | sed -n "s/^$1 \([0-9][0-9]*\)\$/\1/p"; }
private="$(value private_kib)" segment="$(value segment_kib)" window="$(value window_kib)"
if [ -z "$private" ] || [ -z "$segment" ] || [ -z "$window" ]; then
    echo "footprint_limit: missing private_kib, segment_kib or window_kib"; exit 1
fi
limit=$((2048 + n))
total=$((private + segment))
status=0
if [ "$total" -gt "$limit" ]; then
    echo "FAIL: a PE costs $total KiB beyond its heap ($private private + $segment in" \
         "/dev/shm), over the target of $limit KiB at $n PEs"
    status=1
else
    echo "ok: a PE costs $total KiB beyond its heap, target $limit KiB at $n PEs"
fi
if [ $((window * 1024)) -gt $((512 * n)) ]; then
    echo "FAIL: a window adds $window KiB per PE, more than 512 bytes x $n PEs"
    status=1
else
    echo "ok: a window adds $window KiB per PE"
fi
if [ "$(value exercised)" != 1 ]; then
    echo "FAIL: the window lock and all-reduce at $n PEs did not run to the end"
    status=1
fi
exit $status

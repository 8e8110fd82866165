#!/usr/bin/env bash
# Two executables of one job that lay their segments out differently (two
# static links of gasket, one with the semaphores' region, one without)
# must not start: gk_init fails, the error names the PE whose layout
# differs, and the job ends with a failure instead of running with
# mismatched segments.
# usage: layout_mismatch.sh GASKET_RUN LAYOUT_PLAIN LAYOUT_SEM [RUN_OPTIONS...]
# (RUN_OPTIONS: --hosts 2 puts the two PEs on two simulated hosts.)
set -euo pipefail
run=$1; plain=$2; sem=$3; shift 3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# PE 1 runs the other executable (gasket-run starts one program).
cat >"$work/pick.sh" <<PICK
#!/bin/sh
if [ "\$GK_RANK" = 1 ]; then exec "$sem"; else exec "$plain"; fi
PICK
chmod +x "$work/pick.sh"
if "$run" -n 2 "$@" --timeout 30 "$work/pick.sh" >"$work/log" 2>&1; then
    cat "$work/log"; echo "FAIL: the job ran with two segment layouts"; exit 1
fi
cat "$work/log"
grep -q "PE 1 lays its segment out differently from PE 0" "$work/log" ||
    { echo "FAIL: no error naming PE 1's layout"; exit 1; }
# Neither PE got past gk_init (the first to exit may end the job before
# the other prints, so only a success would be telling).
if grep -q "success" "$work/log"; then
    echo "FAIL: a PE's gk_init succeeded"; exit 1
fi
echo "ok: two layouts refused at gk_init"
# The same executable twice starts.
"$run" -n 2 "$@" --timeout 30 "$sem" >"$work/log" 2>&1 || { cat "$work/log"; echo "FAIL: one layout refused"; exit 1; }
echo "ok: one executable starts"

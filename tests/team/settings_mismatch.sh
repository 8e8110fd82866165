#!/usr/bin/env bash
# PEs that see different team settings (here GK_TEAM_WINDOW: the slots'
# layout, and with GK_TEAM_ALGO_BCAST the algorithm each PE runs) must not
# start: gk_init fails on every PE with a line naming the variable, and
# the job ends with a failure instead of running calls whose PEs disagree
# on who sends what where. The same settings everywhere start.
# usage: settings_mismatch.sh GASKET_RUN PROGRAM [RUN_OPTIONS...]
set -euo pipefail
run=$1; prog=$2; shift 2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for var in GK_TEAM_WINDOW:16384:65536 GK_TEAM_ALGO_BCAST:tree:small GK_TEAM_RING_MAX:16:4; do
  IFS=: read -r name zero other <<<"$var"
  cat >"$work/pick.sh" <<PICK
#!/bin/sh
if [ "\$GK_RANK" = 0 ]; then export $name=$zero; else export $name=$other; fi
exec "$prog"
PICK
  chmod +x "$work/pick.sh"
  if "$run" -n 2 "$@" --timeout 30 "$work/pick.sh" >"$work/log" 2>&1; then
    cat "$work/log"; echo "FAIL: the job ran with two values of $name"; exit 1
  fi
  cat "$work/log"
  grep -q "the PEs see different $name" "$work/log" ||
    { echo "FAIL: no error naming $name"; exit 1; }
  echo "ok: two values of $name refused at gk_init"
done
GK_TEAM_WINDOW=65536 "$run" -n 2 "$@" --timeout 30 "$prog" >"$work/log" 2>&1 ||
  { cat "$work/log"; echo "FAIL: one value refused"; exit 1; }
echo "ok: one value starts"

#!/usr/bin/env bash
# run_launched_fault.sh LAUNCHER FAULT_PE CASE [--hosts K]: the fault tests
# (tests/fault/fault_pe.c) under srun --mpi=pmix or mpirun, 4 PEs, through
# run_launched.sh. PE 1 fails as CASE says while the others wait for it;
# the job must end within seconds with a line from gasket that names PE 1
# and what happened, a failing exit status (gk_abort's code where it has
# one), no fault_pe left running, and nothing left in /dev/shm.
#
# Under a resource manager nobody but gasket watches the PEs of a job as
# gasket-run does: a PE whose neighbour on its node is gone ends the job
# through PMIx (boot_pmix.c), and the launcher reports the death its way.
# The victim notes the time it fails ($FAULT_DIR/death, fault_common.h):
# from then to the launcher's exit is at most 3 s.
set -u
launcher=$1; prog=$2; case_name=$3; shift 3
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out
export FAULT_DIR=$work/pe
mkdir "$FAULT_DIR"

fail() {
    echo "FAIL [$launcher $case_name]: $*"
    echo "--- output (first 60 lines)"; head -n 60 "$out"
    exit 1
}

start=$(date +%s%N)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" "$here/run_launched.sh" "$launcher" 4 "$@" "$prog" "$case_name" \
    >"$out" 2>&1
status=$?
end=$(date +%s%N)
elapsed_ms=$(( (end - start) / 1000000 ))
cat "$out"
echo "exit status $status after $elapsed_ms ms"
[ "$status" = 77 ] && exit 77
grep -q '^FAIL: the job left segments' "$out" && fail "segments left in /dev/shm"

case $case_name in
ok)
    [ "$status" = 0 ] || fail "exit status $status, expected 0"
    ;;
gkabort)
    [ "$status" = 5 ] || fail "exit status $status, expected gk_abort's 5"
    grep -q 'gasket\[PE 1\] error: gk_abort(5): the fault test asked for it' "$out" ||
        fail "no line from PE 1 with gk_abort's message"
    ;;
*)
    [ "$status" != 0 ] || fail "exit status 0 after PE 1 failed ($case_name)"
    # gasket's line, from a PE that waited for the victim; or, where no PE
    # waits (midput: the others only put), the launcher's own report.
    grep -Eq 'gasket\[PE [0-9]+\] error: PE 1 \(process [0-9]+ on this node\) is gone; ending the job' \
        "$out" ||
        { [ "$case_name" = midput ] &&
          grep -Eq 'noticed that process rank 1 with PID [0-9]+ on node .* exited on signal|srun: error: .*: task 1: ' \
              "$out"; } || fail "no line naming PE 1"
    ;;
esac
# Seconds, not the launchers' own time limits: start-up included.
[ "$elapsed_ms" -lt 15000 ] || fail "the job took $elapsed_ms ms to end"
if [ -f "$FAULT_DIR/death" ]; then
    react_ms=$(( (end - $(cat "$FAULT_DIR/death")) / 1000000 ))
    echo "the job ended $react_ms ms after PE 1 failed"
    [ "$react_ms" -le 3000 ] || fail "the job ended $react_ms ms after PE 1 failed (limit 3000)"
elif [ "$case_name" != ok ]; then
    fail "PE 1 did not note when it failed (FAULT_DIR not passed on?)"
fi
if pgrep -f "^$prog " >/dev/null; then
    fail "fault_pe processes outlived the job: $(pgrep -af "^$prog ")"
fi
echo "ok [$launcher $case_name]"

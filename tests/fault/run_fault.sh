#!/usr/bin/env bash
# run_fault.sh LAUNCHER PROGRAM CASE: runs one failure scenario through
# gasket-run and checks what the issue promises: the exit status, the one
# line naming the PE and the cause, the time to end the job, no PE left
# running, and nothing new in /dev/shm.
set -u
launcher=$1; prog=$2; case_name=$3
out=$(mktemp); err=$(mktemp); trap 'rm -f "$out" "$err"' EXIT
shm_before=$(ls /dev/shm 2>/dev/null | grep '^gk-' | sort)
fail() { echo "FAIL [$case_name]: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }

expect_status=; expect_line=; limit_ms=5000
start=$(ms)
case $case_name in
  kill|kill-with-child|nofin|abort|exit3|gkabort|segv|ok|late3)
    "$launcher" -n 4 "$prog" "$case_name" >"$out" 2>"$err"; status=$? ;;
  timeout)
    "$launcher" -n 4 --timeout 1 "$prog" hang >"$out" 2>"$err"; status=$? ;;
  sigterm)
    "$launcher" -n 4 "$prog" hang >"$out" 2>"$err" & lpid=$!
    # Wait until every PE has started (each prints its pid), then signal.
    for _ in $(seq 200); do [ "$(grep -c pid "$out")" -ge 4 ] && break; sleep 0.05; done
    start=$(ms); kill -TERM $lpid; wait $lpid; status=$? ;;
  launcher-killed)
    "$launcher" -n 4 "$prog" hang >"$out" 2>"$err" & lpid=$!
    for _ in $(seq 200); do [ "$(grep -c pid "$out")" -ge 4 ] && break; sleep 0.05; done
    start=$(ms); kill -KILL $lpid; wait $lpid 2>/dev/null; status=$? ;;
  tag)
    "$launcher" -n 3 --tag "$prog" ok >"$out" 2>"$err"; status=$? ;;
  wrapped)
    # PEs that are the launcher's grandchildren (sh -c without exec) must
    # not mistake that for the launcher's death when a wait sleeps.
    "$launcher" -n 2 sh -c "\"$prog\" slow; exit \$?" >"$out" 2>"$err"; status=$? ;;
  bad-n)
    "$launcher" -n 0 "$prog" ok >"$out" 2>"$err"; status=$? ;;
  no-program)
    "$launcher" -n 2 /nonexistent/program >"$out" 2>"$err"; status=$? ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
elapsed=$(( $(ms) - start ))

case $case_name in
  kill|kill-with-child)
           expect_status=137; expect_line='^gasket-run: PE 1 \(pid [0-9]+\) was killed by signal 9 \(SIGKILL\); stopping the job$' ;;
  nofin)   expect_status=1;   expect_line='^gasket-run: PE 1 \(pid [0-9]+\) exited without calling gk_finalize; stopping the job$' ;;
  abort)   expect_status=134; expect_line='^gasket-run: PE 1 \(pid [0-9]+\) was killed by signal 6 \(SIGABRT\); stopping the job$' ;;
  exit3)   expect_status=3;   expect_line='^gasket-run: PE 1 \(pid [0-9]+\) exited with status 3 before gk_finalize; stopping the job$' ;;
  gkabort) expect_status=5;   expect_line='^gasket-run: PE 1 called gk_abort\(5\): the fault test asked for it; stopping the job$' ;;
  segv)    expect_status=139; expect_line='^gasket-run: PE 1 \(pid [0-9]+\) was killed by signal 11 \(SIGSEGV\); stopping the job$' ;;
  ok)      expect_status=0 ;;
  late3)   expect_status=3 ;;
  timeout) expect_status=124; expect_line='^gasket-run: job exceeded --timeout 1 s; stopping the job$'; limit_ms=4000 ;;
  sigterm) expect_status=143; expect_line='received SIGTERM' ;;
  launcher-killed) expect_status=137 ;;
  tag)     expect_status=0 ;;
  wrapped) expect_status=0 ;;
  bad-n)   expect_status=2; expect_line='-n 0 is not valid' ;;
  no-program) expect_status=127; expect_line='cannot run /nonexistent/program' ;;
esac

[ "$status" = "$expect_status" ] || fail "exit status $status, expected $expect_status"
if [ "$expect_status" = 0 ] && grep -q 'gasket\[PE [0-9?]*\] error' "$err"; then
  fail "a job that should succeed logged an error"
fi
if [ -n "$expect_line" ]; then
  grep -Eq -e "$expect_line" "$err" || fail "no line matching /$expect_line/ on stderr"
  [ "$(grep -c '^gasket-run: ' "$err")" -eq 1 ] || fail "expected exactly one gasket-run line"
fi
[ "$elapsed" -le "$limit_ms" ] || fail "took ${elapsed} ms, limit ${limit_ms} ms"
if [ "$case_name" = tag ]; then
  for r in 0 1 2; do grep -q "^\[PE $r\] fault_pe PE $r pid" "$out" || fail "no tagged line for PE $r"; done
fi
# No PE may outlive the job (the launcher-killed case relies on PDEATHSIG).
for _ in $(seq 40); do
  alive=0
  for pid in $(sed -n 's/.*fault_pe PE [0-9]* pid \([0-9]*\).*/\1/p' "$out"); do
    # A zombie waiting for its new parent to reap it is dead enough.
    if kill -0 "$pid" 2>/dev/null && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$pid/stat" 2>/dev/null; then
      alive=1
    fi
  done
  [ $alive -eq 0 ] && break; sleep 0.05
done
[ $alive -eq 0 ] || fail "a PE is still running after the job ended"
shm_after=$(ls /dev/shm 2>/dev/null | grep '^gk-' | sort)
new=$(comm -13 <(echo "$shm_before") <(echo "$shm_after") | grep . || true)
[ -z "$new" ] || fail "left in /dev/shm: $new"
echo "ok [$case_name]: status $status in ${elapsed} ms"

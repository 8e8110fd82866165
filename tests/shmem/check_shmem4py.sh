#!/bin/sh
# check_shmem4py.sh OSHRUN LIBDIR CHECK [PYTHON [SOURCE]]: OpenSHMEM from
# Python. Runs CHECK (shmem4py_check.py) with oshrun at 1, 2 and 4 PEs on
# the library in LIBDIR (LD_LIBRARY_PATH overrides the run path of the
# shmem4py that PYTHON has) and checks every PE's line and that the job
# left nothing in /dev/shm. With SOURCE, shmem4py's unpacked sdist, also
# runs some of its demos, unchanged, and its test suite at 1 and 2 PEs.
# PYTHON defaults to python3 (CMake passes GK_SHMEM4PY_PYTHON and
# GK_SHMEM4PY_SOURCE). Skips (77) where PYTHON cannot import shmem4py.
set -u
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
oshrun=$(abs "$1"); libdir=$(abs "$2"); check=$(abs "$3")
python=${4:-python3}
src=${5:-}
if ! "$python" -c 'import shmem4py' 2>/dev/null; then
  echo "skip: $python cannot import shmem4py (cmake -DGK_SHMEM4PY_PYTHON=...)"
  exit 77
fi
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fail() { echo "FAIL: $*"; exit 1; }

# run N ARGS...: one job of N PEs; its output in $out.
run() {
  n=$1; shift
  echo "== oshrun -n $n $*"
  out=$("$oshrun" -n "$n" --timeout 90 "$@" 2>&1)
  status=$?
  echo "$out"
  [ "$status" -eq 0 ] || fail "exit status $status"
}
# count PATTERN: how many different matches of PATTERN $out holds (PEs'
# lines may be interleaved).
count() { echo "$out" | grep -Eo "$1" | sort -u | wc -l; }

for n in 1 2 4; do
  run "$n" "$python" "$check" "$libdir"
  [ "$(count "PE [0-9]+ of $n: ok")" -eq "$n" ] || fail "$n PEs' ok lines expected"
  key=$(echo "$out" | sed -n 's/.*ok, job \([0-9a-f]*\).*/\1/p' | head -n 1)
  if ls /dev/shm/gk-"$key"-* >/dev/null 2>&1; then
    fail "left in /dev/shm: $(ls /dev/shm/gk-"$key"-*)"
  fi
done
[ -n "$src" ] || { echo "ok (no GK_SHMEM4PY_SOURCE: its demos and tests not run)"; exit 0; }

cd "$src/demo" || fail "no demo/ in $src"
run 2 "$python" hello.py
[ "$(count 'Hello from PE [01] of 2')" -eq 2 ] || fail "two greetings expected"
run 4 "$python" broadcast.py
[ "$(count '[0-3]: \[1 2 3 4\]')" -eq 4 ] || fail "four broadcast lines expected"
run 4 "$python" pi.py
[ "$(count 'Pi from \[40000\] points on 4 PEs: \[3\.1[0-9]*\]')" -eq 1 ] || fail "no pi"
run 4 "$python" alltoall.py
[ "$(count '[0-3]: dest = ')" -eq 4 ] || fail "four alltoall lines expected"
echo "$out" | grep -q ERROR && fail "alltoall's own check failed"
run 4 "$python" lock.py
[ "$(count 'count is [0-3]')" -eq 4 ] || fail "counts 0 to 3 expected"
run 2 "$python" rotput.py
cd "$src" || exit 1
for n in 1 2; do
  run "$n" "$python" -m unittest discover -s test
  [ "$(echo "$out" | grep -Eo 'Ran [0-9]+ tests' | wc -l)" -eq "$n" ] ||
    fail "$n PEs' summaries expected"
  echo "$out" | grep -q FAILED && fail "shmem4py's tests failed"
done
echo ok

#!/bin/sh
# run_error.sh LAUNCHER PROGRAM CASE NEEDLE: the job must fail (non-zero
# status) and its output must hold NEEDLE (the native message) and the
# OpenSHMEM routine's name.
launcher=$1; prog=$2; c=$3; needle=$4; routine=$5
out=$("$launcher" -n 2 --timeout 30 "$prog" "$c" 2>&1)
status=$?
echo "$out" | sed 's/gasket\[/(expected) gasket:[/g'
[ "$status" -ne 0 ] || { echo "FAIL: the job succeeded"; exit 1; }
echo "$out" | grep -q "$needle" || { echo "FAIL: no \"$needle\""; exit 1; }
echo "$out" | grep -q "$routine" || { echo "FAIL: no \"$routine\""; exit 1; }
echo "ok: status $status"

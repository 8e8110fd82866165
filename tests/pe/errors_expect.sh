#!/usr/bin/env bash
# errors_expect.sh LAUNCHER ERRORS_TEST CONFIG_PROBE: runs errors_test on 2
# PEs with a 1 MiB heap and checks each error printed its documented
# message (naming the PE, address, length and bounds where it applies); then
# checks a bad GK_HEAP_SIZE fails gk_init with a message naming it.
set -u
launcher=$1; prog=$2
err=$(mktemp); trap 'rm -f "$err"' EXIT
GK_HEAP_SIZE=1M "$launcher" -n 2 --timeout 60 "$prog" 2>"$err"
status=$?
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$err"; exit 1; }
[ $status -eq 0 ] || fail "errors_test exited $status"
hex='0x[0-9a-f]+'
expect() { grep -Eq -e "$1" "$err" || fail "no message matching /$1/"; }
expect "gasket\[PE 0\] error: gk_put called before gk_init\(\)"
expect "gasket\[PE 0\] error: gk_put on PE 1 out of bounds: address $hex \+ 16 bytes is outside the symmetric heap \[$hex, $hex\) \(GK_HEAP_SIZE=1048576\)"
expect "gk_get on PE 1 out of bounds: address $hex \+ 1 bytes is outside"
expect "gk_put_nbi on PE 1 out of bounds: address $hex \+ 18446744073709551615 bytes"
expect "gk_atomic_fetch_add_u64 on PE 1 out of bounds"
expect "gk_put: PE 2 does not exist \(the job has PEs 0 to 1\)"
expect "gk_get: PE -1 does not exist"
expect "gk_put: src is NULL with 8 bytes to transfer"
expect "gk_get: dst is NULL with 8 bytes to transfer"
expect "gk_atomic_fetch_add_u64 on PE 1: address $hex is not aligned to 8 bytes"
expect "gk_atomic_compare_swap_i32 on PE 1: address $hex is not aligned to 4 bytes"
expect "gk_wait_until_u64: comparison 9 is not one of GK_CMP_EQ .. GK_CMP_LE"
expect "gk_wait: handle 0x2a was not issued by gasket"
expect "gk_malloc: out of symmetric heap: asked for 2097152 bytes, [0-9]+ of 1048576 bytes free, largest free block [0-9]+; raise GK_HEAP_SIZE"
expect "gk_calloc: [0-9]+ x 4 bytes overflows size_t"
expect "gk_align: alignment 3 is not a power of two"
expect "gk_barrier called before gk_init\(\)"
expect "gk_init after gk_finalize: a PE is initialized once per process"
expect "errors_test: all error codes as documented"
[ "$(grep -c 'errors_test: all error codes' "$err")" -eq 2 ] || fail "not both PEs finished"

# A bad GK_HEAP_SIZE: gk_init fails on every PE with GK_ERR_CONFIG.
GK_HEAP_SIZE=bogus "$launcher" -n 2 --timeout 60 "$prog" 2>"$err"
status=$?
[ $status -ne 0 ] || fail "a bad GK_HEAP_SIZE was accepted"
expect "gasket\[PE [01]\] error: GK_HEAP_SIZE=bogus is not valid"
echo "ok: every error gave its documented code and message"

#!/usr/bin/env bash
# Only gk_, shmem_ and pshmem_ symbols (and OpenSHMEM's deprecated names,
# listed below) may leave libgasket.so; under
# AddressSanitizer each exported variable brings its ODR indicator
# (__odr_asan.<name>), which counts as the variable's. And the library
# defines the inline paths' state under the versioned name gasket_inline.h
# gives it (`#define gk__inline gk__inline_vN`): a program built against
# another version's header then fails to start, naming that symbol.
set -euo pipefail
lib=$1
inline_h=$2
state=$(sed -n 's/^#define gk__inline \(gk__inline_v[0-9][0-9]*\)$/\1/p' "$inline_h")
if [ -z "$state" ]; then
    echo "$inline_h: no '#define gk__inline gk__inline_vN'"; exit 1
fi
exports=$(nm -D --defined-only "$lib")
if ! grep -Eq " [BD] $state\$" <<<"$exports"; then
    echo "$lib does not define $state, the state $inline_h reads"; exit 1
fi
bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBRW]/ {print $3}' |
      grep -Ev '^(gk_|shmem_|pshmem_)' | grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' |
      grep -Ev '^(start_pes|_my_pe|_num_pes|shmalloc|shfree|shmemalign|shrealloc)$' |
      grep -Ev '^__odr_asan\.(gk_|shmem_|pshmem_)' || true)
if [ -n "$bad" ]; then
    echo "exported symbols outside gk_/shmem_/pshmem_:"; echo "$bad"; exit 1
fi
count=$(nm -D --defined-only "$lib" | grep -c ' T gk_')
echo "ok: $count gk_ functions exported, nothing else; the inline state is $state"
[ "$count" -gt 100 ]

#!/usr/bin/env bash
# Only gk_ (and later shmem_/pshmem_) symbols may leave libgasket.so; under
# AddressSanitizer each exported variable brings its ODR indicator
# (__odr_asan.<name>), which counts as the variable's.
set -euo pipefail
lib=$1
bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBRW]/ {print $3}' |
      grep -Ev '^(gk_|shmem_|pshmem_)' | grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' |
      grep -Ev '^__odr_asan\.(gk_|shmem_|pshmem_)' || true)
if [ -n "$bad" ]; then
    echo "exported symbols outside gk_/shmem_/pshmem_:"; echo "$bad"; exit 1
fi
count=$(nm -D --defined-only "$lib" | grep -c ' T gk_')
echo "ok: $count gk_ functions exported, nothing else"
[ "$count" -gt 100 ]

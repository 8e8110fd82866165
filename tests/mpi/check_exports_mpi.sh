#!/usr/bin/env bash
# libgasket_mpi exports its two functions and nothing else (the back end
# and everything from libgasket stay hidden or in libgasket).
set -euo pipefail
lib=$1
got=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBRW]/ {print $3}' |
      grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' | sort | tr '\n' ' ')
if [ "$got" != "gk_init_mpi gk_init_thread_mpi " ]; then
    echo "$lib exports: $got (expected gk_init_mpi gk_init_thread_mpi)"; exit 1
fi
echo "ok: $lib exports gk_init_mpi and gk_init_thread_mpi only"

/*
 * order.c: memory ordering (spec "Memory Ordering Routines"): shmem_fence
 * and shmem_quiet are gk_fence and gk_quiet, which order and complete the
 * puts, AMOs and signaling puts of the default context.
 */
#include "shmem/shmem_int.h"

SHMEM_DEFINE(void, fence, (void))
{
    SHMEM_CHECK("shmem_fence", gk_fence());
}

SHMEM_DEFINE(void, quiet, (void))
{
    SHMEM_CHECK("shmem_quiet", gk_quiet());
}

/*
 * order.c: memory ordering (spec "Memory Ordering Routines"): shmem_fence
 * and shmem_quiet, and their context forms, are gk_ctx_fence and
 * gk_ctx_quiet, which order and complete the puts, AMOs and signaling
 * puts of the context (docs/OPENSHMEM.md, "Contexts", says what else
 * they cover); the plain routines act on the default context.
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

SHMEM_DEFINE(void, ctx_fence, (shmem_ctx_t ctx))
{
    static const char r[] = "shmem_ctx_fence";
    SHMEM_CHECK(r, gk_ctx_fence(gk__shmem_ctx(r, ctx)));
}

SHMEM_DEFINE(void, ctx_quiet, (shmem_ctx_t ctx))
{
    static const char r[] = "shmem_ctx_quiet";
    SHMEM_CHECK(r, gk_ctx_quiet(gk__shmem_ctx(r, ctx)));
}

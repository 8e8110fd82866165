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

/* The specification makes fence and quiet on SHMEM_CTX_INVALID no
 * operation: a PE outside a team, whose shmem_team_create_ctx failed, may
 * still quiet the context it got (the spec's team-context example). */
SHMEM_DEFINE(void, ctx_fence, (shmem_ctx_t ctx))
{
    static const char r[] = "shmem_ctx_fence";
    if (ctx == SHMEM_CTX_INVALID)
        return;
    SHMEM_CHECK(r, gk_ctx_fence(gk__shmem_ctx(r, ctx)));
}

SHMEM_DEFINE(void, ctx_quiet, (shmem_ctx_t ctx))
{
    static const char r[] = "shmem_ctx_quiet";
    if (ctx == SHMEM_CTX_INVALID)
        return;
    SHMEM_CHECK(r, gk_ctx_quiet(gk__shmem_ctx(r, ctx)));
}

/*
 * Cache management, deprecated since OpenSHMEM 1.3: for machines whose
 * caches were not coherent with remote writes. Every machine gasket runs
 * on keeps them coherent, so these do nothing, as the specification
 * allows.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
SHMEM_DEFINE(void, set_cache_inv, (void))
{
}

SHMEM_DEFINE(void, set_cache_line_inv, (void *dest))
{
    (void)dest;
}

SHMEM_DEFINE(void, clear_cache_inv, (void))
{
}

SHMEM_DEFINE(void, clear_cache_line_inv, (void *dest))
{
    (void)dest;
}

SHMEM_DEFINE(void, udcflush, (void))
{
}

SHMEM_DEFINE(void, udcflush_line, (void *dest))
{
    (void)dest;
}
#pragma GCC diagnostic pop

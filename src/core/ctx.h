/*
 * ctx.h: communication contexts (gasket.h, "Threads and contexts"). On the
 * transports we have, every operation completes when it returns, so a
 * context carries no queue: it is a checked handle whose quiet and fence
 * act for the calling thread (whose wake-up debt is its own, core/path.h).
 * A network transport will hang its endpoint and completion counters here.
 */
#ifndef GK_CORE_CTX_H
#define GK_CORE_CTX_H

#include "gasket.h"

#define GK__CTX_MAGIC 0x63747874u /* "ctxt" */

struct gk_ctx {
    uint32_t magic;
    unsigned options;
};

/* GK_OK for GK_CTX_DEFAULT or a live context; else logs and fails. */
int gk__ctx_check_slow(const char *op, const gk_ctx_t *ctx) __attribute__((cold, noinline));
static inline int gk__ctx_check(const char *op, const gk_ctx_t *ctx)
{
    if (__builtin_expect(ctx == GK_CTX_DEFAULT || ctx->magic == GK__CTX_MAGIC, 1))
        return GK_OK;
    return gk__ctx_check_slow(op, ctx);
}

#endif /* GK_CORE_CTX_H */

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
    /* A context made on a team (gk_team_ctx_create): PE numbers are the
     * team's, team_pes[i] the world PE of its member i (a copy, so the
     * context outlives nothing). NULL: world numbers. */
    int *team_pes;
    int team_n;
};

/* GK_OK for GK_CTX_DEFAULT or a live context; else logs and fails. */
int gk__ctx_check_slow(const char *op, const gk_ctx_t *ctx) __attribute__((cold, noinline));
static inline int gk__ctx_check(const char *op, const gk_ctx_t *ctx)
{
    if (__builtin_expect(ctx == GK_CTX_DEFAULT || ctx->magic == GK__CTX_MAGIC, 1))
        return GK_OK;
    return gk__ctx_check_slow(op, ctx);
}

/* A team context's PE number `*pe_p` made a world PE number; GK_ERR_PE,
 * logged naming `op`, for one outside the team. */
int gk__ctx_team_pe(const char *op, const gk_ctx_t *ctx, int *pe_p)
    __attribute__((cold, noinline));

/* gk__ctx_check, and the PE made a world number for a team's context. */
static inline int gk__ctx_check_pe(const char *op, const gk_ctx_t *ctx, int *pe_p)
{
    if (__builtin_expect(ctx == GK_CTX_DEFAULT, 1))
        return GK_OK;
    int status = gk__ctx_check(op, ctx);
    if (__builtin_expect(status == GK_OK && ctx->team_pes != NULL, 0))
        status = gk__ctx_team_pe(op, ctx, pe_p);
    return status;
}

/* A context whose PE numbers are those of `pes` (n world PEs; copied). */
int gk__ctx_create_on(const char *op, unsigned options, const int *pes, int n,
                      gk_ctx_t **ctx_p);

#endif /* GK_CORE_CTX_H */

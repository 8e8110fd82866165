/*
 * ctx.c: context objects and the thread level (see ctx.h).
 */
#include "core/ctx.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "core/runtime.h"
#include "core/path.h"

int gk__ctx_check_slow(const char *op, const gk_ctx_t *ctx)
{
    gk__error("%s: ctx %p is not a live context (destroyed, or never created)", op,
              (const void *)ctx);
    return GK_ERR_INVALID_ARG;
}

int gk_ctx_create(unsigned options, gk_ctx_t **ctx_p)
{
    return gk__ctx_create_on("gk_ctx_create", options, NULL, 0, ctx_p);
}

int gk__ctx_team_pe(const char *op, const gk_ctx_t *ctx, int *pe_p)
{
    int pe = *pe_p;
    if (pe < 0 || pe >= ctx->team_n) {
        gk__error("%s: PE %d is not in the context's team (it has PEs 0 to %d)", op, pe,
                  ctx->team_n - 1);
        return GK_ERR_PE;
    }
    *pe_p = ctx->team_pes[pe];
    return GK_OK;
}

int gk__ctx_create_on(const char *op, unsigned options, const int *pes, int n,
                      gk_ctx_t **ctx_p)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe(op, 0);
    if (ctx_p == NULL) {
        gk__error("%s: ctx_p is NULL", op);
        return GK_ERR_INVALID_ARG;
    }
    if ((options & ~(GK_CTX_PRIVATE | GK_CTX_SERIALIZED)) != 0) {
        gk__error("%s: options 0x%x has unknown bits (GK_CTX_PRIVATE, GK_CTX_SERIALIZED)",
                  op, options);
        return GK_ERR_INVALID_ARG;
    }
    gk_ctx_t *ctx = malloc(sizeof(*ctx));
    int *copy = pes != NULL ? malloc((size_t)n * sizeof(int)) : NULL;
    if (ctx == NULL || (pes != NULL && copy == NULL)) {
        free(ctx);
        free(copy);
        gk__error("%s: out of memory", op);
        return GK_ERR_NOMEM;
    }
    if (copy != NULL)
        memcpy(copy, pes, (size_t)n * sizeof(int));
    ctx->magic = GK__CTX_MAGIC;
    ctx->options = options;
    ctx->team_pes = copy;
    ctx->team_n = n;
    *ctx_p = ctx;
    return GK_OK;
}

int gk_ctx_destroy(gk_ctx_t *ctx)
{
    static const char op[] = "gk_ctx_destroy";
    if (ctx == GK_CTX_DEFAULT) {
        gk__error("%s: the default context cannot be destroyed", op);
        return GK_ERR_INVALID_ARG;
    }
    int status = gk__ctx_check(op, ctx);
    if (status != GK_OK)
        return status;
    status = gk__path_quiet(); /* what was issued on it completes first */
    ctx->magic = 0;
    free(ctx->team_pes);
    free(ctx);
    return status;
}

int gk_init_thread(gk_thread_level_t requested, gk_thread_level_t *provided_p)
{
    if (requested < GK_THREAD_SINGLE || requested > GK_THREAD_MULTIPLE) {
        gk__error("gk_init_thread: requested level %d is not GK_THREAD_SINGLE .. "
                  "GK_THREAD_MULTIPLE (0 .. 3)",
                  requested);
        return GK_ERR_INVALID_ARG;
    }
    if (provided_p == NULL) {
        gk__error("gk_init_thread: provided_p is NULL");
        return GK_ERR_INVALID_ARG;
    }
    int status = gk__rt_init("gk_init_thread");
    if (status != GK_OK)
        return status;
    gk__rt.thread_level = requested;
    /* Several threads may sleep on our one wake word: each must be woken
     * by any write, as the watch word is per PE. */
    if (requested == GK_THREAD_MULTIPLE) {
        gk__wait_policy.watch_any = 1;
        gk__rt.threaded = 1;
    }
    *provided_p = requested;
    return GK_OK;
}

int gk_thread_query(gk_thread_level_t *provided_p)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe("gk_thread_query", 0);
    if (provided_p == NULL) {
        gk__error("gk_thread_query: provided_p is NULL");
        return GK_ERR_INVALID_ARG;
    }
    *provided_p = gk__rt.thread_level;
    return GK_OK;
}

/*
 * ctx.c: communication contexts (spec "Communication Management Routines"):
 * shmem_ctx_create, shmem_team_create_ctx, shmem_ctx_destroy,
 * and shmem_ctx_get_team (shmem_ctx_fence and shmem_ctx_quiet are in
 * order.c). Each context is one of gasket's (gk_ctx_create) in a slot of
 * a fixed table; the default context is gasket's default one. A context
 * made from a team other than the world keeps the team, whose PE numbers
 * its routines take (shmem_int.h translates them).
 *
 * Why a table and not the gasket context's address as the handle: a
 * handle must be checkable after its context is gone. A slot outlives
 * its context, so a destroyed handle still points at a slot, whose `live`
 * word says it is gone. Slots are handed out round the table from a
 * cursor, so a destroyed slot is the last to be reused and a stale handle
 * is caught until GK__SHMEM_CTX_MAX more contexts have been made. The
 * table's size is the number of contexts that may exist at once; creating
 * one more returns non-zero, which the specification lets a program retry.
 */
#include <pthread.h>

#include "base/log.h"
#include "shmem/shmem_int.h"

_Static_assert(sizeof(struct shmem_ctx) == 32, "a handle's table offset is a multiple of 32");

struct shmem_ctx shmem__ctx_default = {.live = 1, .gk = GK_CTX_DEFAULT,
                                       .team = SHMEM_TEAM_WORLD};

struct shmem_ctx gk__shmem_ctx_table[GK__SHMEM_CTX_MAX];

/* Guards the slots' creation and destruction and the cursor; the routines
 * that communicate only read a slot. */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned ctx_cursor; /* the slot to try first */

void gk__shmem_ctx_fail(const char *routine, shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        gk__error("%s: ctx is SHMEM_CTX_INVALID, which names no context", routine);
    else
        gk__error("%s: ctx %p is not a live context (destroyed, or never created)",
                  routine, (void *)ctx);
    gk__shmem_fail(routine, GK_ERR_INVALID_ARG);
}

void gk__shmem_ctx_pe_fail(const char *routine, int pe, int n)
{
    gk__error("%s: pe %d is not a PE of the context's team (0 .. %d)", routine, pe, n - 1);
    gk__shmem_fail(routine, GK_ERR_INVALID_ARG);
}

/* Non-zero for a handle of the table whose context is live. */
static int ctx_is_live(shmem_ctx_t ctx)
{
    uintptr_t off = (uintptr_t)ctx - (uintptr_t)gk__shmem_ctx_table;
    return off < sizeof(gk__shmem_ctx_table) && off % sizeof(struct shmem_ctx) == 0 &&
           atomic_load_explicit(&ctx->live, memory_order_relaxed);
}

/* What destroying a context does, to a live slot; ctx_lock held. Returns
 * its gasket context, to destroy outside the lock. */
static gk_ctx_t *slot_retire(struct shmem_ctx *slot)
{
    gk_ctx_t *gk = slot->gk;
    slot->gk = NULL;
    slot->numbering = NULL;
    atomic_store_explicit(&slot->live, 0, memory_order_relaxed);
    return gk;
}

static int ctx_create(const char *routine, shmem_team_t team, long options,
                      shmem_ctx_t *ctx_p)
{
    const long known = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
    if (ctx_p == NULL) {
        gk__error("%s: ctx is NULL", routine);
        return -1;
    }
    *ctx_p = SHMEM_CTX_INVALID;
    if ((options & ~known) != 0) {
        gk__error("%s: options 0x%lx has unknown bits (SHMEM_CTX_SERIALIZED, "
                  "SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE)",
                  routine, (unsigned long)options);
        return -1;
    }
    unsigned flags = ((options & SHMEM_CTX_PRIVATE) ? GK_CTX_PRIVATE : 0) |
                     ((options & SHMEM_CTX_SERIALIZED) ? GK_CTX_SERIALIZED : 0);
    gk_ctx_t *gk = NULL;
    if (gk_ctx_create(flags, &gk) != GK_OK)
        return -1; /* logged by gasket (not initialized, out of memory) */

    struct shmem_ctx *slot = NULL;
    pthread_mutex_lock(&ctx_lock);
    for (unsigned i = 0; i < GK__SHMEM_CTX_MAX; i++) {
        struct shmem_ctx *s = &gk__shmem_ctx_table[(ctx_cursor + i) % GK__SHMEM_CTX_MAX];
        if (!atomic_load_explicit(&s->live, memory_order_relaxed)) {
            slot = s;
            ctx_cursor = (unsigned)(s - gk__shmem_ctx_table + 1) % GK__SHMEM_CTX_MAX;
            slot->gk = gk;
            slot->team = team;
            slot->numbering = team == SHMEM_TEAM_WORLD ? NULL : team;
            slot->options = flags;
            atomic_store_explicit(&slot->live, 1, memory_order_release);
            break;
        }
    }
    pthread_mutex_unlock(&ctx_lock);
    if (slot == NULL) {
        /* Not an error (the program may destroy one and retry): no message
         * unless asked for. */
        gk__info("%s: all %d contexts exist already", routine, GK__SHMEM_CTX_MAX);
        (void)gk_ctx_destroy(gk);
        return -1;
    }
    *ctx_p = slot;
    return 0;
}

SHMEM_DEFINE(int, ctx_create, (long options, shmem_ctx_t *ctx))
{
    return ctx_create("shmem_ctx_create", SHMEM_TEAM_WORLD, options, ctx);
}

SHMEM_DEFINE(int, team_create_ctx, (shmem_team_t team, long options, shmem_ctx_t *ctx))
{
    static const char r[] = "shmem_team_create_ctx";
    if (team == SHMEM_TEAM_INVALID) {
        /* A defined outcome in the specification, not a misuse. */
        if (ctx != NULL)
            *ctx = SHMEM_CTX_INVALID;
        return -1;
    }
    if (gk__shmem_team_check(r, team) != 0) {
        if (ctx != NULL)
            *ctx = SHMEM_CTX_INVALID;
        return -1;
    }
    return ctx_create(r, team, options, ctx);
}

SHMEM_DEFINE(void, ctx_destroy, (shmem_ctx_t ctx))
{
    static const char r[] = "shmem_ctx_destroy";
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT) {
        gk__error("%s: SHMEM_CTX_DEFAULT cannot be destroyed", r);
        gk__shmem_fail(r, GK_ERR_INVALID_ARG);
    }
    gk_ctx_t *gk = NULL;
    pthread_mutex_lock(&ctx_lock);
    if (ctx_is_live(ctx))
        gk = slot_retire(ctx);
    pthread_mutex_unlock(&ctx_lock);
    if (gk == NULL)
        gk__shmem_ctx_fail(r, ctx);
    /* gk_ctx_destroy() completes the context's operations first. */
    SHMEM_CHECK(r, gk_ctx_destroy(gk));
}

SHMEM_DEFINE(int, ctx_get_team, (shmem_ctx_t ctx, shmem_team_t *team))
{
    static const char r[] = "shmem_ctx_get_team";
    if (team == NULL) {
        gk__error("%s: team is NULL", r);
        return -1;
    }
    if (ctx == SHMEM_CTX_DEFAULT) {
        *team = SHMEM_TEAM_WORLD;
        return 0;
    }
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID; /* the specification's answer, no misuse */
        return -1;
    }
    if (!ctx_is_live(ctx)) {
        gk__error("%s: ctx %p is not a live context (destroyed, or never created)", r,
                  (void *)ctx);
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}

/*
 * The specification destroys a team's shareable contexts with the team,
 * and leaves using its private ones undefined: both are destroyed here,
 * so that a later use is reported instead of following the freed team.
 */
void gk__shmem_ctx_destroy_team(shmem_team_t team)
{
    for (unsigned i = 0; i < GK__SHMEM_CTX_MAX; i++) {
        struct shmem_ctx *s = &gk__shmem_ctx_table[i];
        gk_ctx_t *gk = NULL;
        pthread_mutex_lock(&ctx_lock);
        if (atomic_load_explicit(&s->live, memory_order_relaxed) && s->team == team)
            gk = slot_retire(s);
        pthread_mutex_unlock(&ctx_lock);
        if (gk != NULL)
            SHMEM_CHECK("shmem_team_destroy", gk_ctx_destroy(gk));
    }
}

void gk__shmem_ctx_fini(void)
{
    pthread_mutex_lock(&ctx_lock);
    for (unsigned i = 0; i < GK__SHMEM_CTX_MAX; i++) {
        struct shmem_ctx *s = &gk__shmem_ctx_table[i];
        if (atomic_load_explicit(&s->live, memory_order_relaxed))
            (void)gk_ctx_destroy(slot_retire(s));
    }
    ctx_cursor = 0;
    pthread_mutex_unlock(&ctx_lock);
}

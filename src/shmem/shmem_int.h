/*
 * shmem_int.h: what the files of the OpenSHMEM layer share: how a routine
 * is defined (once, as pshmem_<name>, with shmem_<name> a weak alias of
 * it), and how an error of a routine without a return code ends the job.
 *
 * The layer calls gasket through the public API (gasket.h); from below it
 * uses only base/ (logging, the size parser), sync/'s wait on a predicate
 * (.ci/check-layers), and team/'s active sets (declared below).
 */
#ifndef GK_SHMEM_INT_H
#define GK_SHMEM_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gasket.h"
#include "pshmem.h"

/*
 * SHMEM_DEFINE(ret, name, params) opens the definition of pshmem_<name>
 * and makes shmem_<name> its weak alias: a program or tool that defines
 * shmem_<name> wins, and may call pshmem_<name>. The library never calls
 * a shmem_ name itself, so interposing one does not change the others.
 */
#define SHMEM_ALIAS(name)                                                      \
    extern __typeof__(pshmem_##name) shmem_##name                              \
        __attribute__((weak, alias("pshmem_" #name)));
#define SHMEM_DEFINE(ret, name, params)                                        \
    SHMEM_ALIAS(name)                                                          \
    ret pshmem_##name params

/*
 * Ends the job for a failed call of a routine that has no return code. The
 * native call has logged what went wrong (PE, address, bounds); this adds
 * which OpenSHMEM routine it was, through gk_abort().
 */
__attribute__((noreturn, cold)) void gk__shmem_fail(const char *routine, int status);

/* Checks a native call's status: nothing to do on the fast path. */
#define SHMEM_CHECK(routine, call)                                             \
    do {                                                                       \
        int shmem_status_ = (call);                                            \
        if (__builtin_expect(shmem_status_ != GK_OK, 0))                       \
            gk__shmem_fail((routine), shmem_status_);                          \
    } while (0)

/* nelems * size in bytes, or the end of the job if it overflows. */
size_t gk__shmem_bytes(const char *routine, size_t nelems, size_t size);

/*
 * A context of the OpenSHMEM layer: a slot of a fixed table (ctx.c) that
 * holds a gasket context, or the default context (gk = GK_CTX_DEFAULT).
 * A handle is checked to point at a slot and the slot to be live before
 * it is used, so a destroyed context or a stray value is reported by name
 * instead of being followed. `live` is written under ctx.c's mutex and
 * read without it: a thread may only use a handle that was handed to it
 * after its creation, which orders the slot's other fields.
 */
struct shmem_ctx {
    _Atomic uint32_t live;
    uint32_t options; /* the GK_CTX_* flags it was made with */
    gk_ctx_t *gk;
    shmem_team_t team;
    /* The team whose PE numbers the context's routines take, NULL where
     * they are world PE numbers (the world team's and the default). */
    struct shmem_team *numbering; /* 32 bytes: a handle's offset is a shift */
};

#define GK__SHMEM_CTX_MAX 1024
extern struct shmem_ctx gk__shmem_ctx_table[GK__SHMEM_CTX_MAX];

/* Reports a handle that is no live context and ends the job. */
__attribute__((noreturn, cold)) void gk__shmem_ctx_fail(const char *routine,
                                                         shmem_ctx_t ctx);

/* The gasket context of a handle: GK_CTX_DEFAULT for SHMEM_CTX_DEFAULT,
 * one compare, a subtraction and a load for a created one. */
static inline gk_ctx_t *gk__shmem_ctx(const char *routine, shmem_ctx_t ctx)
{
    if (__builtin_expect(ctx == SHMEM_CTX_DEFAULT, 1))
        return GK_CTX_DEFAULT;
    uintptr_t off = (uintptr_t)ctx - (uintptr_t)gk__shmem_ctx_table;
    if (__builtin_expect(off < sizeof(gk__shmem_ctx_table) &&
                             off % sizeof(struct shmem_ctx) == 0 &&
                             atomic_load_explicit(&ctx->live, memory_order_relaxed),
                         1))
        return ctx->gk;
    gk__shmem_ctx_fail(routine, ctx);
}

/* Frees the contexts a program left at shmem_finalize(). */
void gk__shmem_ctx_fini(void);
/* Check mode (GK_CHECK=1), at finalize: warns of each lock (lock.c) this
 * PE still holds, and forgets them. */
void gk__shmem_locks_check_finalize(void);

/*
 * A native call on gasket context C: the plain gk_NAME where C is the
 * default, so the routines without a context make the same calls they
 * always did, and gk_ctx_NAME otherwise.
 */
#define SHMEM_GK(C, NAME, ...)                                                 \
    ((C) == GK_CTX_DEFAULT ? gk_##NAME(__VA_ARGS__) : gk_ctx_##NAME((C), __VA_ARGS__))

/*
 * SHMEM_CTX_DEFINE(ret, name, params, args) defines a routine and its
 * context form from one body: pshmem_<name>(params) and
 * pshmem_ctx_<name>(shmem_ctx_t ctx, params), with their shmem_ aliases.
 * The braces that follow are the body of a static function that both
 * call, with `gk_ctx` (the gasket context) and `routine` (the name, for
 * errors) before params; args names params in order. Every such routine
 * has a target PE named `pe`, which the context form turns from the
 * context's team's numbering into the world's before the body runs.
 * SHMEM_CTX_DEFINE_VOID is the same for a routine that returns nothing.
 */
#define SHMEM__ARGS(...) __VA_ARGS__
#define SHMEM_CTX_DEFINE(ret, name, params, args)                              \
    static inline ret ctx_body_##name(gk_ctx_t *gk_ctx, const char *routine,   \
                                      SHMEM__ARGS params);                     \
    SHMEM_DEFINE(ret, name, params)                                            \
    {                                                                          \
        return ctx_body_##name(GK_CTX_DEFAULT, "shmem_" #name, SHMEM__ARGS args); \
    }                                                                          \
    SHMEM_DEFINE(ret, ctx_##name, (shmem_ctx_t ctx, SHMEM__ARGS params))       \
    {                                                                          \
        static const char r_[] = "shmem_ctx_" #name;                           \
        gk_ctx_t *gk_ = gk__shmem_ctx(r_, ctx);                                \
        pe = gk__shmem_ctx_world_pe(r_, ctx, pe);                              \
        return ctx_body_##name(gk_, r_, SHMEM__ARGS args);                     \
    }                                                                          \
    static inline ret ctx_body_##name(gk_ctx_t *gk_ctx, const char *routine,   \
                                      SHMEM__ARGS params)
#define SHMEM_CTX_DEFINE_VOID(name, params, args)                              \
    static inline void ctx_body_##name(gk_ctx_t *gk_ctx, const char *routine,  \
                                       SHMEM__ARGS params);                    \
    SHMEM_DEFINE(void, name, params)                                           \
    {                                                                          \
        ctx_body_##name(GK_CTX_DEFAULT, "shmem_" #name, SHMEM__ARGS args);     \
    }                                                                          \
    SHMEM_DEFINE(void, ctx_##name, (shmem_ctx_t ctx, SHMEM__ARGS params))      \
    {                                                                          \
        static const char r_[] = "shmem_ctx_" #name;                           \
        gk_ctx_t *gk_ = gk__shmem_ctx(r_, ctx);                                \
        pe = gk__shmem_ctx_world_pe(r_, ctx, pe);                              \
        ctx_body_##name(gk_, r_, SHMEM__ARGS args);                            \
    }                                                                          \
    static inline void ctx_body_##name(gk_ctx_t *gk_ctx, const char *routine,  \
                                       SHMEM__ARGS params)

/*
 * A team (team.c): gasket's team, and what the layer's routines read of it
 * without a call: its PEs, numbered 0 .. n-1, this PE's number, and the
 * world PE of each team PE (a context's routines translate their target
 * PEs with it). SHMEM_TEAM_WORLD is GK_TEAM_WORLD, SHMEM_TEAM_SHARED
 * GK_TEAM_NODE; shmem_init() fills in their fields.
 */
struct shmem_team {
    gk_team_t gk;     /* the native team */
    int n;            /* its size; 0 for a predefined team before shmem_init() */
    int me;           /* this PE's number in it */
    int *pes;         /* world PE of each team PE (malloc'd), NULL where it is i */
    int num_contexts; /* from the config; gasket reserves nothing for it */
};

/* World PE of team PE i (0 <= i < team->n). */
static inline int gk__shmem_team_world_pe(const struct shmem_team *team, int i)
{
    return team->pes != NULL ? team->pes[i] : i;
}

/* Reports a target PE outside a context's team of n PEs; ends the job. */
__attribute__((noreturn, cold)) void gk__shmem_ctx_pe_fail(const char *routine, int pe,
                                                            int n);

/* Target PE `pe` of a routine on checked context ctx, as a world PE: the
 * same number unless the context was made from a team other than the
 * world, whose PE numbers it then takes (and checks). */
static inline int gk__shmem_ctx_world_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    const struct shmem_team *team = ctx->numbering;
    if (__builtin_expect(team == NULL, 1))
        return pe;
    if ((unsigned)pe >= (unsigned)team->n)
        gk__shmem_ctx_pe_fail(routine, pe, team->n);
    return gk__shmem_team_world_pe(team, pe);
}

/* Destroys the contexts made from team (ctx.c), as destroying it does. */
void gk__shmem_ctx_destroy_team(shmem_team_t team);

/* 0 for a team a collective may run on, or -1 after a message naming the
 * routine (SHMEM_TEAM_INVALID, or a handle that is no live team). */
int gk__shmem_team_check(const char *routine, shmem_team_t team);

/* The predefined teams' fields: filled in by shmem_init() and cleared,
 * with the split teams left, by shmem_finalize(). */
void gk__shmem_teams_init(const char *routine);
void gk__shmem_teams_fini(void);

/* The deprecated active-set collectives (coll.c) run on team/'s active
 * sets: a team the set's members make alone, for one call, agreeing on it
 * on the caller's pSync (team/team.h, team/team.c "Active sets"). */
#include "team/team.h"

#endif /* GK_SHMEM_INT_H */

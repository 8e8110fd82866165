/*
 * coll_check.h: every PE checks that the PEs make the same collective calls
 * in the same order, so a program whose PEs call different collectives
 * (PE 0 in gk_malloc while PE 1 is in gk_barrier, or one PE with a barrier
 * more than the others) gets an error naming both calls on every PE
 * instead of a hang or, worse, two calls that happen to fit together.
 *
 * Each public collective call enters with gk__coll_enter(kind) once its
 * local checks let it communicate, and leaves with gk__coll_leave(). Only
 * the outermost entry counts (gk_malloc's all-reduce and barrier are part
 * of gk_malloc): it numbers the call (every PE counts alike) and publishes
 * the call word in its segment header (mem/segment.h: coll_now), one
 * release store:
 *
 *   bits 63..32   the call's sequence number (its low 32 bits: PEs are
 *                 never 2^31 calls apart, so differences are exact)
 *   bits 31..24   the kind of call number seq - 3
 *   bits 23..16   ... of seq - 2
 *   bits 15..8    ... of seq - 1
 *   bits 7..0     the kind of this call
 *
 * Two checks use it, one in band and one on the slow path of waits.
 *
 * In band: what collectives send each other carries the sender's call: the
 * barrier's flags hold its low 16 bits beside the epoch (core/barrier.c),
 * the collectives' signal lines the whole word (core/coll_signal.h). A
 * receiver compares it with its own. Two different calls whose internal steps fit
 * together (gk_finalize's barrier and a gk_barrier, the votes of gk_malloc
 * and gk_win_create) are caught there, before either returns.
 *
 * Slow path: a wait inside a collective that has slept (base/wait.h's
 * check_alive) reads its peers' words, once the call has waited a while,
 * a batch of peers at a time (coll_check.c says how often). A peer at the
 * same call number in another kind of call, or one that has gone past our number and made
 * another kind of call there (its segment keeps the kinds of its last 64
 * calls, mem/segment.h: coll_kinds; a broadcast root may run several calls
 * ahead of its children), is a mismatch: two calls that do not fit wait
 * for ever, and both sides find it. A peer with a lower number only lags;
 * one 64 or more calls ahead tells nothing. A PE that found a mismatch publishes it too (coll_clash), so a
 * PE stuck behind it, with no mismatching peer in sight, learns of it.
 *
 * The heap calls (gk_malloc, gk_calloc, gk_align, gk_realloc, gk_free)
 * fit each other: their vote finds PEs in different heap calls itself and
 * fails them all alike, leaving the PEs in step (core/symheap.c).
 *
 * After a mismatch the collectives are out of step for good: every later
 * collective fails at once with GK_ERR_COLL_MISMATCH (one line each), and
 * gk_finalize releases everything without its barrier.
 *
 * Several threads may call gasket, but collectives one at a time: the
 * numbering is the runtime's, the nesting depth each thread's own (only a
 * thread inside a collective checks its peers).
 */
#ifndef GK_CORE_COLL_CHECK_H
#define GK_CORE_COLL_CHECK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/progress.h"
#include "core/runtime.h"

/* The collective calls, and their names for messages. */
#define GK__COLL_KIND_TABLE(X)                                                           \
    X(BARRIER, "gk_barrier")                                                             \
    X(ALLREDUCE, "gk_allreduce")                                                         \
    X(BROADCAST, "gk_broadcast")                                                         \
    X(MALLOC, "gk_malloc")                                                               \
    X(CALLOC, "gk_calloc")                                                               \
    X(ALIGN, "gk_align")                                                                 \
    X(REALLOC, "gk_realloc")                                                             \
    X(FREE, "gk_free")                                                                   \
    X(WIN_ALLOCATE, "gk_win_allocate")                                                   \
    X(WIN_CREATE, "gk_win_create")                                                       \
    X(WIN_FREE, "gk_win_free")                                                           \
    X(WIN_FENCE, "gk_win_fence")                                                         \
    X(SEM_ALLOC_ALL, "gk_sem_alloc_all")                                                 \
    X(SEM_FREE_ALL, "gk_sem_free_all")                                                   \
    X(REDUCE, "gk_reduce")                                                               \
    X(COLLECT, "gk_collect")                                                             \
    X(ALLTOALL, "gk_alltoall")                                                           \
    X(FINALIZE, "gk_finalize")                                                           \
    X(REDUCE_SCATTER, "gk_team_reduce_scatter")                                          \
    X(SCAN, "gk_team_scan")                                                              \
    X(EXSCAN, "gk_team_exscan")                                                          \
    X(COLLECTV, "gk_team_collect")                                                       \
    X(ALLTOALLS, "gk_team_alltoalls")                                                    \
    X(TEAM_SPLIT, "gk_team_split")                                                       \
    X(TEAM_CALL, "a collective of another team")

enum gk__coll_kind {
    GK__COLL_NONE = 0,
#define GK__COLL_KIND_ENUM(name, text) GK__COLL_##name,
    GK__COLL_KIND_TABLE(GK__COLL_KIND_ENUM)
#undef GK__COLL_KIND_ENUM
        GK__COLL_KINDS
};
_Static_assert(GK__COLL_KINDS <= 256, "a kind is one byte of the call word");

/* Bits of the call word that name one call: its number and its kind. */
#define GK__COLL_CALL_MASK 0xffffffff000000ffULL

/* How deep this thread is in collective calls (0: in none). */
/*
 * The check's own state, one per process as the collectives are: the
 * outermost calls made (seq), the word published for the last one, and
 * the first mismatch found (PE clash_pe[i] in call clash_call[i]; [0] is
 * the finder); and its slow-path look at the peers: the call that first
 * looked and when (monotonic ns), and where the next batch of peers starts.
 */
struct gk__coll_check_state {
    uint64_t seq;
    uint64_t word;
    int broken;
    int clash_pe[2];
    uint64_t clash_call[2];
    uint64_t check_seq;
    uint64_t check_since;
    int check_next;
};
extern struct gk__coll_check_state gk__coll_state;
/* Starts the count afresh: at gk_init, before the first collective call. */
void gk__coll_check_reset(void);

extern _Thread_local unsigned gk__coll_depth __attribute__((tls_model("initial-exec")));

/* A collective entered after a mismatch: logs (outermost only), fails. */
int gk__coll_enter_broken(enum gk__coll_kind kind) __attribute__((cold, noinline));
/* The same for a call named call_name (a team call on the world team). */
int gk__coll_report_broken(const char *call_name, enum gk__coll_kind kind)
    __attribute__((cold, noinline));
/* A world-team call found, in band, other PEs in a call of other_kind:
 * the collectives are out of step for good (recorded, not logged). */
void gk__coll_note_mismatch(unsigned other_kind);

/* A call that is about to fail its first checks (not initialized, or in an
 * active-message handler) does not enter: it never communicates. */
static inline int gk__coll_may_enter(void)
{
    return gk__rt.initialized && !gk__in_handler;
}

/*
 * Enters a collective call of `kind`; GK_OK, or GK_ERR_COLL_MISMATCH when
 * the collectives are out of step since an earlier mismatch (then the call
 * must return that at once, without gk__coll_leave()).
 */
static inline int gk__coll_enter(enum gk__coll_kind kind)
{
    if (GK__UNLIKELY(gk__coll_state.broken))
        return gk__coll_enter_broken(kind);
    if (gk__coll_depth++ == 0) {
        uint64_t word = ++gk__coll_state.seq << 32 | (gk__coll_state.word << 8 & 0xffffff00u) |
                        (uint64_t)kind;
        gk__coll_state.word = word;
        struct gk__seg_header *mine = gk__rt.my_seg.header;
        atomic_store_explicit(&mine->coll_kinds[gk__coll_state.seq % GK__SEG_COLL_HISTORY],
                              (uint8_t)kind, memory_order_relaxed);
        atomic_store_explicit(&mine->coll_now, word, memory_order_release);
    }
    return GK_OK;
}

/*
 * Deadlocks across teams (coll_deadlock.c). Collectives on different
 * teams may interleave differently on different PEs, so no call word can
 * tell a wrong order from a right one; but a PE that waits in team T's
 * call for a member that waits in another team's call, one this PE has
 * not made, waits for ever: each needs the other to move first. A wait
 * that has slept a while publishes what it waits in (mem/segment.h:
 * coll_blocked) and looks at the members it waits for; a pair that waits
 * for each other is reported on both sides.
 *
 * A call is named by a key, the team's scratch slot (the same on every
 * member) or GK__COLL_KEY_WORLD for the job's collective calls (numbered
 * as above), and its number there. Every team call started is counted in
 * the header's team_calls[slot] (gk__coll_team_started).
 */
#define GK__COLL_KEY_WORLD 254

struct gk__coll_wait {
    const char *name; /* the public call */
    int key;          /* the team's slot, or GK__COLL_KEY_WORLD */
    uint64_t call;    /* its number on the team (world: the job's sequence) */
    const int *pes;   /* the members, world PEs (NULL: every PE) */
    int n;
};

/* The team layer's view of a slot on this PE, for the look: whether this
 * PE holds a team in `slot` that has world PE pe as a member (then pe holds
 * the same team there), that team's size, and a way to break it. Set by
 * the team layer. */
struct gk__coll_slots {
    int (*holds)(int slot, int pe);
    int (*size)(int slot);
    void (*set_broken)(int slot); /* its collectives are out of step for good */
};
extern struct gk__coll_slots gk__coll_slots;

/* The blocking wait of this thread, if it is a team's call (NULL: a wait
 * inside a job's collective call is one of GK__COLL_KEY_WORLD). */
extern _Thread_local const struct gk__coll_wait *gk__coll_waiting
    __attribute__((tls_model("initial-exec")));
/* Whether this thread has published a coll_blocked word. */
extern _Thread_local int gk__coll_blocked_published __attribute__((tls_model("initial-exec")));

/* A wait's slow path: GK_OK, or GK_ERR_COLL_MISMATCH once it found a
 * member that waits for this PE in a call this PE has not made. */
int gk__coll_check_deadlock(void) __attribute__((cold, noinline));
/* Whether PE pe found a deadlock with this PE's world wait: 1, reported
 * as pe's find; 0; or a transport's error (the world's mismatch look,
 * which learnt of it from pe's published mismatch, asks). */
int gk__coll_deadlock_learn(int pe) __attribute__((cold, noinline));
/* gk_finalize: this PE waits in the job's last collective (entered: 1,
 * or 0 where the job's collectives are out of step and it makes none) for
 * good, so a peer that waits for it in a team's call it has not made finds
 * that call cannot end, where the PE would otherwise leave it waiting. */
void gk__coll_publish_final(int entered) __attribute__((cold, noinline));
/* Withdraws the published word. */
void gk__coll_unblock(void) __attribute__((cold, noinline));

static inline void gk__coll_team_started(int slot, uint64_t call)
{
    atomic_store_explicit(&gk__rt.my_seg.header->team_calls[slot], call, memory_order_release);
}

/* A team call's blocking wait begins and ends (w lives until the end). */
static inline void gk__coll_wait_begin(const struct gk__coll_wait *w)
{
    gk__coll_waiting = w;
}

static inline void gk__coll_wait_end(void)
{
    gk__coll_waiting = NULL;
    if (GK__UNLIKELY(gk__coll_blocked_published))
        gk__coll_unblock();
}

static inline void gk__coll_leave(void)
{
    if (--gk__coll_depth == 0 && GK__UNLIKELY(gk__coll_blocked_published))
        gk__coll_unblock();
}

/*
 * The body of a public collective's entry point: `call` (an int
 * expression, the call's work) runs inside a collective call of `kind`,
 * or at once where it will fail its first checks without communicating.
 */
#define GK__COLL_RUN(kind, call)                                                         \
    do {                                                                                 \
        if (!gk__coll_may_enter())                                                       \
            return (call); /* it says why not */                                         \
        int entered_ = gk__coll_enter(kind);                                             \
        if (entered_ != GK_OK)                                                           \
            return entered_;                                                             \
        int status_ = (call);                                                            \
        gk__coll_leave();                                                                \
        return status_;                                                                  \
    } while (0)

/* The low 16 bits of this PE's call (number mod 256, kind): the barrier's. */
static inline uint64_t gk__coll_tag16(void)
{
    uint64_t word = gk__coll_state.word;
    return (word >> 24 & 0xff00) | (word & 0xff);
}

/*
 * In-band checks of what a peer sent in this PE's current collective:
 * GK_OK when it is the same call (or one that fits it), else the mismatch
 * is logged and recorded and GK_ERR_COLL_MISMATCH returned. tag16 is
 * gk__coll_tag16() of PE pe, `word` its whole call word.
 */
int gk__coll_check_tag16(int pe, uint64_t tag16) __attribute__((cold, noinline));
int gk__coll_check_word(int pe, uint64_t word) __attribute__((cold, noinline));
/* The slow path's look at the peers (coll_check.c says how often): it
 * starts once a call has waited this long, and reads this many peers at a
 * time. */
#define GK__COLL_LOOK_DELAY_MS 300
#define GK__COLL_LOOK_BATCH 64

/* A word of PE pe's segment header (mem/segment.h), read on the slow path
 * (coll_check.c says why a remote read is sound there). */
#define GK__COLL_HEADER_OFFSET(field) offsetof(struct gk__seg_header, field)
int gk__coll_peer_word(int pe, size_t offset, uint64_t *word_p) __attribute__((cold, noinline));
/* The call number of a call word (its low 32 bits kept): the full number
 * nearest this PE's. */
uint64_t gk__coll_word_seq(uint64_t word);

/* This PE's job-wide call cannot end: PE pe waits in `theirs` (a call
 * word's number and kind) for it (coll_deadlock.c). Recorded and published
 * as a mismatch; GK_ERR_COLL_MISMATCH. */
int gk__coll_record_found(int pe, uint64_t theirs) __attribute__((cold, noinline));

static inline int gk__coll_check_sent(int pe, uint64_t word)
{
    if (GK__LIKELY(((word ^ gk__coll_state.word) & GK__COLL_CALL_MASK) == 0))
        return GK_OK;
    return gk__coll_check_word(pe, word);
}

/*
 * The slow-path check of a wait inside a collective: every peer's
 * published call and found mismatch. GK_OK, or GK_ERR_COLL_MISMATCH
 * (logged, recorded), or the error of a transport that read a peer.
 */
int gk__coll_check_peers(void);

/* The name of a kind ("collective 42" for one not in the table). */
const char *gk__coll_name(unsigned kind);

#endif /* GK_CORE_COLL_CHECK_H */

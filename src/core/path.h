/*
 * path.h: the path layer. Every operation a feature makes on a peer (a
 * put, a get, a value store or load, an atomic, a flag and the wake-up it
 * owes, an active message, a remote operation) goes through the functions
 * here, and only here does it become either a copy or CPU atomic on the
 * peer's segment mapped into this process (net/shm.h's inline forms) or a
 * call of the peer's transport (net/net.h's table). Which of the two is
 * chosen by the peer's capability bits (GK__NET_CAP_LOAD_STORE), never by
 * the feature: rma, sync, coll, win, msg, am and dtype are written once on
 * this layer, and a transport added under src/net/ reaches them all.
 *
 * The mapped forms are inline because they are the fast path (a bounds
 * check, an address, a copy: DESIGN.md, "Fast path first"); the public
 * header's inline puts (gasket_inline.h) are the same copies with the same
 * wake-up rule, gk__inline_defer_wake, which this layer's puts use too.
 *
 * Wake-ups. A PE that waits for a word of its own segment sleeps on a
 * futex (base/wait.h); whoever writes a word that may end such a wait owes
 * the writer's target a wake-up check (net.h, "Wake-ups"). A plain put
 * leaves it owed (gk__path_defer_wake): the check needs a full fence, and
 * a put is usually followed by something that fences and checks anyway (a
 * flag, a signal, quiet, a barrier). Owed checks are made by gk_quiet, by
 * any later notifying write to the same PE, and before this PE blocks or
 * polls a peer (gets, atomic fetches); meanwhile a sleeping target still
 * wakes on its own within GK_SLEEP_MS. OpenSHMEM promises a put's delivery
 * only after quiet, so nothing is lost.
 */
#ifndef GK_CORE_PATH_H
#define GK_CORE_PATH_H

#include "base/check.h"
#include "base/wait.h"
#include "core/runtime.h"
#include "net/shm.h"

/* ---- The race detector (check mode, path_race.c) ---- */

/* Non-zero while check mode's race detector runs (from gk_init's
 * features to gk_finalize's): every hook below is one load when not. */
extern int gk__race_on;

/* The collectives' slots (path_race.c): the runtime's barrier and
 * all-reduce, then one per team scratch slot. */
#define GK__PATH_RACE_KEY_BARRIER 0
#define GK__PATH_RACE_KEY_ALLREDUCE 1
#define GK__PATH_RACE_KEY_TEAM(slot) (2 + (slot))
#define GK__PATH_RACE_KEYS (2 + GK_TEAM_MAX + 1)

/* A put (a write) or get (a read) of pe's bytes [offset, offset + n):
 * checked against the accesses logged at pe, and logged; a put is also a
 * release to pe. Only the program's symmetric memory is checked. */
void gk__path_race_put(const char *op, int pe, size_t offset, size_t n)
    __attribute__((noinline, cold));
void gk__path_race_get(const char *op, int pe, size_t offset, size_t n)
    __attribute__((noinline, cold));
/* A release to pe: this PE's clock joins pe's, before a write there that
 * may be seen; an acquire from pe: pe's joins this PE's, after a read
 * there. The PE-wide forms are for synchronisations that are not a word
 * of the program's (a lock granted, a semaphore waited, a message run);
 * the _at forms for a write or read of pe's bytes [offset, offset + n),
 * which carry clocks through those words (path_race.c). */
void gk__path_race_release(int pe) __attribute__((noinline, cold));
void gk__path_race_acquire(int pe) __attribute__((noinline, cold));
void gk__path_race_release_at(int pe, size_t offset, size_t n) __attribute__((noinline, cold));
void gk__path_race_acquire_at(int pe, size_t offset, size_t n) __attribute__((noinline, cold));
/* A get that completes at quiet: its acquire is made then. */
void gk__path_race_got_later(int pe, size_t offset, size_t n) __attribute__((noinline, cold));
void gk__path_race_quiet(void) __attribute__((noinline, cold));
int gk__path_race_pending(void);
/* A collective call of slot `key` starts on this PE, and is over: the
 * clocks of its members (pes[0 .. n - 1], world PEs; NULL: every PE) as
 * they started it join this PE's. `call` is its number among the slot's
 * calls, the same on every member (0: the detector counts them, for the
 * runtime's own collectives, which every PE makes). */
void gk__path_race_coll_enter(int key, uint64_t call) __attribute__((noinline, cold));
void gk__path_race_coll_leave(int key, uint64_t call, const int *pes, int n)
    __attribute__((noinline, cold));

static inline void gk__race_release(int pe)
{
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_release(pe);
}

static inline void gk__race_acquire(int pe)
{
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_acquire(pe);
}

static inline void gk__race_release_at(int pe, size_t offset, size_t n)
{
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_release_at(pe, offset, n);
}

static inline void gk__race_acquire_at(int pe, size_t offset, size_t n)
{
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_acquire_at(pe, offset, n);
}

/* After an atomic on pe's word [offset, offset + width) that returned
 * `status`: one that returned what it saw (old_p) acquires; every atomic
 * released before it. */
static inline int gk__race_after_atomic(int pe, size_t offset, size_t width,
                                        const uint64_t *old_p, int status)
{
    if (old_p != NULL)
        gk__race_acquire_at(pe, offset, width);
    return status;
}

/* After a wait of the program's (not the runtime's own: a collective's
 * join is its own) on this PE's own word returned having seen it. */
static inline void gk__race_acquire_own(void)
{
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_acquire(gk__rt.my_pe);
}

/* The same, for a wait that saw the program's word at `word`, `width`
 * bytes: the clocks of whoever wrote that word. */
void gk__path_race_acquire_own_word(const void *word, size_t width)
    __attribute__((noinline, cold));
static inline void gk__race_acquire_own_word(const void *word, size_t width)
{
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_acquire_own_word(word, width);
}

/* ---- Which way a peer is reached ---- */

/* Whether pe's segment is mapped here (GK__NET_CAP_LOAD_STORE): loads,
 * stores and CPU atomics reach it, and every operation on it is complete
 * when it returns. */
static inline int gk__path_mapped(int pe)
{
    return (gk__rt.peers[pe].caps & GK__NET_CAP_LOAD_STORE) != 0;
}

/* pe's byte at segment offset seg_offset as an address here, where its
 * segment is mapped (for algorithms that work on the words themselves:
 * CPU-atomic accumulates, typed copies, a lock's queue nodes, gk_ptr);
 * NULL where it is not. A write through it owes the wake-up check of
 * gk__path_notify (or gk__path_notify_rmw after an atomic). */
static inline char *gk__path_addr(int pe, size_t seg_offset)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE)) {
        gk__race_release(pe); /* the caller may write there next */
        return gk__shm_addr(peer, seg_offset);
    }
    return NULL;
}

/* Fills, and empties, the state gasket_inline.h's fast paths read (a copy
 * of what they need from the runtime and the peer table, so the public
 * header does not depend on internal structures): open while initialized;
 * n_pes 0 sends every inline call to the library. */
int gk__path_inline_open(void);
void gk__path_inline_close(void);

/* ---- Check mode (GK_CHECK=1, path_check.c) ---- */

/* Sets check mode from GK_CHECK (0 or 1), and ends it. */
void gk__path_check_open(unsigned setting);
void gk__path_check_close(void);

/* A completion point (`point` names it in reports): does what check mode
 * deferred, in issue order; one load when nothing is. */
void gk__path_check_complete_slow(const char *point) __attribute__((noinline, cold));
static inline void gk__path_check_complete(const char *point)
{
    if (GK__UNLIKELY(atomic_load_explicit(&gk__check_queued, memory_order_relaxed) != 0))
        gk__path_check_complete_slow(point);
}

/* ---- Wake-ups owed, completion and ordering ---- */

/* Remembers that PE pe is owed a wake-up check for its bytes [lo, hi)
 * (the rule is gasket_inline.h's, which the inline puts follow too). */
static inline void gk__path_defer_wake(int pe, uint64_t lo, uint64_t hi)
{
    gk__inline_defer_wake(pe, lo, hi);
}

/*
 * Notes that PE pe's wake-up check was just made (by a signal, flag or
 * atomic) for its bytes [lo, hi), right after a full fence or seq_cst RMW.
 * That check covered only [lo, hi): a sleeper watching a word of the owed
 * range is checked for now (the fence already orders the owed copies).
 */
void gk__path_wake_done_slow(int pe, uint64_t lo, uint64_t hi) __attribute__((noinline));
static inline void gk__path_wake_done(int pe, uint64_t lo, uint64_t hi)
{
    if (GK__UNLIKELY(gk__debt.pe == pe))
        gk__path_wake_done_slow(pe, lo, hi);
}

/*
 * After plain stores to PE pe's bytes [lo, hi) (a flag): its wake-up check,
 * which also pays what earlier puts to pe owe (the usual payload-then-flag
 * pattern), in one fence and one look at the sleepers; the range is
 * widened to cover the owed bytes, so a sleeper watching a word between
 * them may wake for nothing, and re-checks.
 */
static inline void gk__path_notify_with_debt(int pe, uint64_t lo, uint64_t hi)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    gk__inline_take_debt(pe, &lo, &hi);
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE))
        gk__shm_notify(peer, lo, hi);
    else
        (void)peer->transport->wake(peer, lo, hi);
}

/*
 * Makes the owed wake-up checks right after a full fence or seq_cst RMW of
 * the caller's own (a quiet, a lock release): each owed PE's sleepers.
 * The usual case inline, one PE owed and nobody asleep there; the slow
 * path wakes, or walks every PE for a debt to several.
 */
void gk__path_flush_wakes_fenced_slow(void) __attribute__((noinline));
static inline void gk__path_flush_wakes_fenced(void)
{
    int pe = gk__debt.pe;
    if (pe == -1)
        return;
    if (pe >= 0) {
        const struct gk__net_peer *peer = &gk__rt.peers[pe];
        if ((peer->caps & GK__NET_CAP_LOAD_STORE) && !gk__shm_sleepers(peer)) {
            gk__debt.pe = -1;
            return;
        }
    }
    gk__path_flush_wakes_fenced_slow();
}

/* The same checks where no fence came before: one fence first. */
static inline void gk__path_flush_wakes(void)
{
    if (gk__debt.pe != -1) {
        atomic_thread_fence(memory_order_seq_cst);
        gk__path_flush_wakes_fenced();
    }
}

/* gk_quiet(): completes this PE's operations, and pays the wake-ups its
 * puts owe (on mapped peers, one full fence does both). */
static inline int gk__path_quiet(void)
{
    int status = GK_OK;
    gk__path_check_complete("gk_quiet");
    if (GK__UNLIKELY(gk__race_on) && gk__path_race_pending()) {
        if (GK__UNLIKELY(gk__net_remote))
            status = gk__net_quiet_all(); /* the gets first, then their acquires */
        gk__path_race_quiet();
    }
    if (GK__UNLIKELY(gk__net_remote))
        status = gk__net_quiet_all(); /* shm's quiet among them: the fence */
    else
        gk__shm_quiet(); /* the full fence the owed wake-up checks need too */
    gk__path_flush_wakes_fenced();
    return status;
}

/* gk_fence(): orders this PE's earlier operations to each peer before its
 * later ones. */
static inline int gk__path_fence(void)
{
    gk__path_check_complete("gk_fence"); /* in issue order: ordered too */
    if (GK__UNLIKELY(gk__net_remote))
        return gk__net_fence_all();
    gk__shm_fence();
    return GK_OK;
}

/*
 * Completes this PE's operations before a release that is a seq_cst RMW
 * (a lock's): on mapped peers they are complete already and the RMW orders
 * them, so only a network transport has work here. After the RMW, call
 * gk__path_flush_wakes_fenced() for the wake-ups the puts owe.
 */
static inline int gk__path_complete_before_rmw(void)
{
    gk__path_check_complete("a lock's release");
    if (GK__LIKELY(!gk__net_remote))
        return GK_OK;
    return gk__net_quiet_all();
}

/* Orders this PE's earlier puts, atomics and messages to pe before its
 * later ones to pe (a long message's payload before the message). */
static inline int gk__path_fence_peer(int pe)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE)) {
        gk__shm_fence();
        return GK_OK;
    }
    return peer->transport->fence();
}

/* The wake-up check after writes to pe's bytes [lo, hi) made through
 * gk__path_addr (or a transport's puts): a full fence and a look at a
 * mapped peer's sleepers, or the transport's wake-up message. */
static inline int gk__path_notify(int pe, uint64_t lo, uint64_t hi)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE)) {
        gk__shm_notify(peer, lo, hi);
        return GK_OK;
    }
    return peer->transport->wake(peer, lo, hi);
}

/* The same right after the caller's own seq_cst CPU atomic on pe's word
 * [lo, hi), through gk__path_addr: the atomic was the fence. */
static inline void gk__path_notify_rmw(int pe, uint64_t lo, uint64_t hi)
{
    gk__shm_notify_after_rmw(&gk__rt.peers[pe], lo, hi);
    gk__path_wake_done(pe, lo, hi);
}

/* ---- Puts and gets ---- */

/* Whether a put leaves its wake-up check owed, or a signal follows. */
enum gk__path_wake { GK__PATH_DEFER_WAKE, GK__PATH_NO_WAKE };

/* How a put's source may be reused: on return, or after the next quiet.
 * GK__PATH_SRC_FREE_LATE: on return, but the target is promised the bytes
 * only at the next completion point (a window's put: at its flush), so
 * check mode delivers them there. */
enum gk__path_src { GK__PATH_SRC_FREE, GK__PATH_SRC_HELD, GK__PATH_SRC_FREE_LATE };

/* The non-blocking put and get to a mapped peer in check mode: recorded
 * now, done at the next completion point; `held` (a put's source is the
 * caller's until then) is compared there with what it was. */
int gk__path_check_put(const char *what, int pe, size_t offset, const void *src, size_t n,
                       enum gk__path_wake wake, int held) __attribute__((noinline, cold));
int gk__path_check_get(const char *what, int pe, void *dst, size_t offset, size_t n)
    __attribute__((noinline, cold));
/* A signaling put's payload and its signal's atomic (amo on the 64-bit
 * word at sig_offset) to a mapped peer in check mode: both at the next
 * completion point, in issue order with the rest. */
int gk__path_check_put_signal(const char *what, int pe, size_t offset, const void *src,
                              size_t n, enum gk__amo_op amo, size_t sig_offset,
                              uint64_t signal) __attribute__((noinline, cold));

/* A put to segment offset `offset` of pe, a range the caller checked
 * (windows: their part's bounds). */
static inline int gk__path_put_at(const char *op, int pe, size_t offset, const void *src,
                                  size_t nbytes, enum gk__path_wake wake,
                                  enum gk__path_src src_use)
{
    int status = gk__rt_check_local(op, "src", src, nbytes);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(nbytes == 0))
        return GK_OK; /* buffers may be NULL; memcpy must not see them */
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_put(op, pe, offset, nbytes);
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE)) {
        /* src_use is a constant wherever this is inlined: the blocking
         * puts carry no check of the mode. */
        if (src_use != GK__PATH_SRC_FREE && GK__UNLIKELY(gk__check_on))
            return gk__path_check_put(op, pe, offset, src, nbytes, wake,
                                      src_use == GK__PATH_SRC_HELD);
        gk__shm_copy_to(peer, offset, src, nbytes);
    } else {
        status = src_use == GK__PATH_SRC_HELD ? peer->transport->put_nbi(peer, offset, src, nbytes)
                                              : peer->transport->put(peer, offset, src, nbytes);
        if (GK__UNLIKELY(status != GK_OK))
            return status;
    }
    if (wake == GK__PATH_DEFER_WAKE && nbytes > peer->put_wakes_max)
        gk__path_defer_wake(pe, offset, offset + nbytes);
    return GK_OK;
}

static inline int gk__path_put_src(const char *op, int pe, void *dst, const void *src,
                                   size_t nbytes, enum gk__path_wake wake,
                                   enum gk__path_src src_use)
{
    size_t offset = 0;
    int status = gk__rt_check_remote(op, pe, dst, nbytes, &offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    return gk__path_put_at(op, pe, offset, src, nbytes, wake, src_use);
}

static inline int gk__path_put(const char *op, int pe, void *dst, const void *src,
                               size_t nbytes, enum gk__path_wake wake)
{
    return gk__path_put_src(op, pe, dst, src, nbytes, wake, GK__PATH_SRC_FREE);
}

/* A get complete on return (GK__PATH_DST_NOW) or at the next quiet. */
enum gk__path_dst { GK__PATH_DST_NOW, GK__PATH_DST_AT_QUIET };

/* A get from segment offset `offset` of pe, a range the caller checked. */
static inline int gk__path_get_at(const char *op, int pe, void *dst, size_t offset,
                                  size_t nbytes, enum gk__path_dst dst_use)
{
    int status = gk__rt_check_local(op, "dst", dst, nbytes);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(nbytes == 0))
        return GK_OK;
    /* A PE polling a peer with gets may be waiting for an answer to a put
     * whose wake-up it still owes: pay it now (one branch when none). */
    gk__path_flush_wakes();
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_get(op, pe, offset, nbytes);
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE)) {
        if (dst_use == GK__PATH_DST_AT_QUIET && GK__UNLIKELY(gk__check_on))
            return gk__path_check_get(op, pe, dst, offset, nbytes); /* its acquire then */
        gk__shm_get(peer, dst, offset, nbytes);
        gk__race_acquire_at(pe, offset, nbytes);
        return GK_OK;
    }
    if (dst_use == GK__PATH_DST_AT_QUIET) {
        if (GK__UNLIKELY(gk__race_on))
            gk__path_race_got_later(pe, offset, nbytes);
        return peer->transport->get_nbi(peer, dst, offset, nbytes);
    }
    status = peer->transport->get(peer, dst, offset, nbytes);
    gk__race_acquire_at(pe, offset, nbytes);
    return status;
}

static inline int gk__path_get_dst(const char *op, int pe, void *dst, const void *src,
                                   size_t nbytes, enum gk__path_dst dst_use)
{
    size_t offset = 0;
    int status = gk__rt_check_remote(op, pe, src, nbytes, &offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    return gk__path_get_at(op, pe, dst, offset, nbytes, dst_use);
}

static inline int gk__path_get(const char *op, int pe, void *dst, const void *src,
                               size_t nbytes)
{
    return gk__path_get_dst(op, pe, dst, src, nbytes, GK__PATH_DST_NOW);
}

/* ---- Single values ---- */

/*
 * A value put: the low `width` (1, 2, 4 or 8) bytes of value to pe's
 * naturally aligned word at seg_offset, one store that no reader sees half
 * done, then the wake-up check, which also pays what earlier puts to pe
 * owe (the payload-then-flag pattern).
 */
static inline int gk__path_store(int pe, size_t seg_offset, uint64_t value, size_t width)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    /* A word no reader sees half done: a flag, not data to check. */
    gk__race_release_at(pe, seg_offset, width);
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE)) {
        gk__shm_store(peer, seg_offset, value, width);
    } else {
        /* little-endian (net.h): the low bytes come first */
        int status = peer->transport->put(peer, seg_offset, &value, width);
        if (GK__UNLIKELY(status != GK_OK))
            return status;
    }
    gk__path_notify_with_debt(pe, seg_offset, seg_offset + width);
    return GK_OK;
}

/* A value get of `width` bytes from pe's aligned word at seg_offset into
 * *value_p (the low bytes of a uint64_t; the rest zero). */
static inline int gk__path_load(int pe, size_t seg_offset, size_t width, uint64_t *value_p)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE)) {
        *value_p = gk__shm_load(peer, seg_offset, width);
        gk__race_acquire_at(pe, seg_offset, width);
        return GK_OK;
    }
    *value_p = 0;
    int status = peer->transport->get(peer, value_p, seg_offset, width);
    gk__race_acquire_at(pe, seg_offset, width);
    return status;
}

/* ---- Atomics, flags and their wake-ups ---- */

/*
 * An atomic on pe's segment word and pe's wake-up check for it, as one
 * remote operation (net.h) of pe's transport, where the transport's
 * atomic and then its wake-up message would be a round trip and a message
 * (path_rop.c): with old_p, one round trip; without, one message posted,
 * owing this PE's quiet what `how` says. For a peer whose transport has
 * rop.
 */
int gk__path_atomic_rop(int pe, enum gk__amo_op op, size_t width, size_t seg_offset,
                        uint64_t operand, uint64_t compare, uint64_t *old_p,
                        enum gk__net_post how);
/* Registers the target's side of it (gk_init). */
void gk__path_rop_register(void);

/* The CPU atomic on a mapped peer's word and, for a write, its wake-up
 * check (the atomic is the fence the check needs). */
static inline int gk__path_amo_mapped(int pe, struct gk__net_peer *peer, enum gk__amo_op op,
                                      size_t width, size_t seg_offset, uint64_t operand,
                                      uint64_t compare, uint64_t *old_p)
{
    if (GK__UNLIKELY(width != 4 && width != 8))
        return GK_ERR_INVALID_ARG;
    /* An atomic is ordered after this PE's earlier puts to pe (gasket.h):
     * in check mode those may still wait for their completion point. */
    gk__path_check_complete("an atomic");
    /* Every atomic releases; one that returns what it saw acquires too. */
    gk__race_release_at(pe, seg_offset, width);
    uint64_t old = gk__shm_rmw(gk__shm_addr(peer, seg_offset), op, width, operand, compare);
    if (old_p != NULL)
        gk__race_acquire_at(pe, seg_offset, width);
    if (op != GK__AMO_FETCH) {
        gk__shm_notify_after_rmw(peer, seg_offset, seg_offset + width);
        gk__path_wake_done(pe, seg_offset, seg_offset + width);
    }
    if (old_p != NULL)
        *old_p = old;
    return GK_OK;
}

/* The transport's atomic on a peer not mapped here (no wake-up), with
 * the race detector's release before it and acquire after. */
static inline int gk__path_net_atomic(int pe, struct gk__net_peer *peer, enum gk__amo_op op,
                                      size_t width, size_t seg_offset, uint64_t operand,
                                      uint64_t compare, uint64_t *old_p)
{
    gk__race_release_at(pe, seg_offset, width);
    return gk__race_after_atomic(
        pe, seg_offset, width, old_p,
        peer->transport->atomic(peer, op, width, seg_offset, operand, compare, old_p));
}

/*
 * An atomic of `width` bytes on pe's segment word that may end a wait there
 * (a user's word, a barrier or collective flag, a semaphore count, a lock
 * word), then pe's wake-up check for it: on a mapped peer a CPU atomic and
 * the check; to another, the atomic goes as one remote operation where the
 * transport has them (without old_p, posted and complete at quiet, as a
 * put), else the transport's atomic gets its wake-up after it. A
 * GK__AMO_FETCH writes nothing: no check.
 */
static inline int gk__path_amo(int pe, enum gk__amo_op op, size_t width, size_t seg_offset,
                               uint64_t operand, uint64_t compare, uint64_t *old_p)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE))
        return gk__path_amo_mapped(pe, peer, op, width, seg_offset, operand, compare, old_p);
    if (op == GK__AMO_FETCH)
        return gk__path_net_atomic(pe, peer, op, width, seg_offset, operand, compare, old_p);
    if (peer->caps & GK__NET_CAP_REMOTE_OPS)
        return gk__path_atomic_rop(pe, op, width, seg_offset, operand, compare, old_p,
                                   GK__NET_POST_QUIET);
    int status = gk__path_net_atomic(pe, peer, op, width, seg_offset, operand, compare, old_p);
    if (status == GK_OK)
        status = peer->transport->wake(peer, seg_offset, seg_offset + width);
    gk__path_wake_done(pe, seg_offset, seg_offset + width);
    return status;
}

/* The same on a 64-bit internal word. */
static inline int gk__path_notify64(int pe, enum gk__amo_op op, size_t seg_offset,
                                    uint64_t operand, uint64_t compare, uint64_t *old_p)
{
    return gk__path_amo(pe, op, 8, seg_offset, operand, compare, old_p);
}

/*
 * A 64-bit flag of pe's that only pe reads, and waits for before it goes
 * on (a barrier's, a collective's): gk__path_notify64 without a result,
 * but to a peer reached through a transport's remote operations it owes
 * this PE's quiet nothing (net.h, GK__NET_POST_AWAITED): one message, and
 * no acknowledgement to wait for or to pay. On a mapped peer the atomic is
 * an exchange: one locked instruction that is both the quiet of earlier
 * operations and the fence of the wake-up check.
 */
static inline int gk__path_flag64(int pe, enum gk__amo_op op, size_t seg_offset,
                                  uint64_t value)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE))
        return gk__path_amo_mapped(pe, peer, op, 8, seg_offset, value, 0, NULL);
    if (peer->caps & GK__NET_CAP_REMOTE_OPS)
        return gk__path_atomic_rop(pe, op, 8, seg_offset, value, 0, NULL,
                                   GK__NET_POST_AWAITED);
    return gk__path_amo(pe, op, 8, seg_offset, value, 0, NULL);
}

/* An atomic of `width` bytes on a word given by its segment offset; to a
 * peer not mapped here, with no wake-up: for fetches, and for callers that
 * send their own (a write that may end a wait: gk__path_amo). */
static inline int gk__path_atomic(int pe, enum gk__amo_op op, size_t width, size_t seg_offset,
                                  uint64_t operand, uint64_t compare, uint64_t *old_p)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->caps & GK__NET_CAP_LOAD_STORE))
        return gk__path_amo_mapped(pe, peer, op, width, seg_offset, operand, compare, old_p);
    return gk__path_net_atomic(pe, peer, op, width, seg_offset, operand, compare, old_p);
}

/* The same on a 64-bit internal word (semaphores, collective flags). */
static inline int gk__path_atomic64(int pe, enum gk__amo_op op, size_t seg_offset,
                                    uint64_t operand, uint64_t compare,
                                    uint64_t *old_p)
{
    return gk__path_atomic(pe, op, 8, seg_offset, operand, compare, old_p);
}

/* ---- Waits on this PE's own words ---- */

/*
 * Waits until pred(arg) holds, for a word at segment offset `watch` of this
 * PE's own segment (GK__WAKE_WATCH_ANY: any word): spins, yields, then
 * sleeps on the segment's wake-up word, where the writers' wake-up checks
 * (gk__path_notify, gk__path_amo, a transport's wake) find it
 * (base/wait.h).
 */
static inline int gk__path_wait_own(uint64_t watch, gk__wait_pred_fn pred, const void *arg)
{
    return gk__wait_for(&gk__rt.my_seg.header->wake, watch, pred, arg);
}

/* The same for a caller that has spun already (`spun`), or that should
 * yield `extra_yields` more times before it sleeps (base/wait.h's
 * gk__wait_for_spun). */
static inline int gk__path_wait_own_spun(uint64_t watch, gk__wait_pred_fn pred, const void *arg,
                                         unsigned extra_yields, int spun)
{
    return gk__wait_for_spun(&gk__rt.my_seg.header->wake, watch, pred, arg, extra_yields, spun);
}

/*
 * A wait of the program's own (gk_wait_until_T and the OpenSHMEM waits on
 * it, a semaphore's wait), which check mode ends with a report when every
 * other PE has reached gk_finalize and it still does not hold: nobody is
 * left to end it (path_check.c). describe writes its condition for that
 * report; it may be NULL.
 */
struct gk__path_user_wait {
    const char *op;
    uint64_t watch; /* the word's segment offset, or GK__WAKE_WATCH_ANY */
    gk__wait_pred_fn pred;
    const void *arg;
    void (*describe)(const void *arg, char *buf, size_t size);
};
int gk__path_check_wait_user(const struct gk__path_user_wait *w, int spun)
    __attribute__((noinline, cold));

/* gk__path_wait_own_spun for such a wait. */
static inline int gk__path_wait_user(const struct gk__path_user_wait *w, int spun)
{
    if (GK__UNLIKELY(gk__check_on))
        return gk__path_check_wait_user(w, spun);
    return gk__path_wait_own_spun(w->watch, w->pred, w->arg, 0, spun);
}

/* Check mode at gk_finalize, before its first collective: completes this
 * PE's operations and tells every other PE it is here. */
void gk__path_check_finalizing(void);

/* ---- Active messages and remote operations ---- */

/* Whether pe's transport carries a long message's payload of nbytes with
 * the message itself (am_send_long), so that no put and fence go before. */
static inline int gk__path_am_carries(int pe, size_t nbytes)
{
    const struct gk__net_peer *peer = &gk__rt.peers[pe];
    return (peer->caps & (GK__NET_CAP_LOAD_STORE | GK__NET_CAP_AM_CARRIES_PAYLOAD)) ==
               GK__NET_CAP_AM_CARRIES_PAYLOAD &&
           nbytes <= peer->transport->am_long_max;
}

/* Whether pe's transport reads and writes its process's private memory
 * (net.h, read_private and write_private: a PE of this host, mapped). */
static inline int gk__path_reads_private(int pe)
{
    const struct gk__net_peer *peer = &gk__rt.peers[pe];
    return (peer->caps & GK__NET_CAP_LOAD_STORE) && peer->transport->read_private != NULL &&
           peer->transport->write_private != NULL;
}

/* Copies n bytes at addr of pe's process (pid) to dst, complete on return;
 * only where gk__path_reads_private(pe). */
static inline int gk__path_read_private(int pe, void *dst, uint64_t pid, uint64_t addr, size_t n)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    return peer->transport->read_private(peer, dst, pid, addr, n);
}

/* The same the other way, into pe's process; only where
 * gk__path_reads_private(pe). */
static inline int gk__path_write_private(int pe, uint64_t pid, uint64_t addr, const void *src,
                                         size_t n)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    return peer->transport->write_private(peer, pid, addr, src, n);
}

/* The most payload bytes a remote operation (net.h) to pe carries, or 0
 * where pe's transport runs none (a mapped peer's operations run in place,
 * through gk__path_addr). */
static inline size_t gk__path_rop_max(int pe)
{
    const struct gk__net_peer *peer = &gk__rt.peers[pe];
    return (peer->caps & GK__NET_CAP_REMOTE_OPS) ? peer->transport->rop_max : 0;
}

/* Runs remote operation op at pe and waits for its answer (net.h's rop);
 * only where gk__path_rop_max(pe) is non-zero. */
static inline int gk__path_rop(int pe, enum gk__net_rop op, const uint64_t *args,
                               const void *payload, size_t nbytes,
                               struct gk__net_rop_answer *answer)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    gk__race_release(pe); /* what it does there may end a wait */
    /* No acquire: the caller makes the one its operation is (a read of
     * the runtime's own words carries none, path_race.c). */
    return peer->transport->rop(peer, op, args, payload, nbytes, answer);
}

/* The same one-way (net.h's rop_post), owing this PE's quiet what `how`
 * says. */
static inline int gk__path_rop_post(int pe, enum gk__net_rop op, const uint64_t *args,
                                    const void *payload, size_t nbytes, enum gk__net_post how)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    gk__race_release(pe); /* what it does there may end a wait */
    return peer->transport->rop_post(peer, op, args, payload, nbytes, how);
}

/* Completes every operation this PE issued to pe. */
static inline int gk__path_flush(int pe)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    return peer->transport->flush(peer);
}

/* Whether pe's transport moves puts and gets as messages the target's
 * software copies (GK__NET_CAP_RMA_BY_MESSAGES): packing many pieces into
 * one of them costs no copy a put would not make. */
static inline int gk__path_rma_by_messages(int pe)
{
    return (gk__rt.peers[pe].caps & GK__NET_CAP_RMA_BY_MESSAGES) != 0;
}

#endif /* GK_CORE_PATH_H */

/*
 * runtime.h: the runtime object (all mutable state of this PE hangs off it)
 * and the checks every public operation shares: PE number, bounds of the
 * symmetric heap, buffers and alignment. The checks are inline and cheap;
 * their error reports are out of line, in runtime.c.
 */
#ifndef GK_CORE_RUNTIME_H
#define GK_CORE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "boot/boot.h"
#include "mem/heap_alloc.h"
#include "mem/segment.h"
#include "net/net.h"
#include "net/shm.h"
#include "gasket.h"

#define GK__LIKELY(x) __builtin_expect(!!(x), 1)
#define GK__UNLIKELY(x) __builtin_expect(!!(x), 0)

struct gk__runtime {
    int initialized;
    int finalized; /* once finalized, the launcher socket is gone for good */
    int my_pe;
    int n_pes; /* 0 until initialized: every PE check fails before init */
    struct gk__config config;
    struct gk__boot boot;
    struct gk__seg my_seg;
    char *heap;       /* my symmetric heap */
    size_t heap_size; /* bytes usable in every PE's heap, the local area included */
    /* The local area: the last local_size bytes of the heap's range, which
     * gk_mem_alloc hands out without collective calls (local_alloc, its
     * offsets from the area's start); the symmetric allocator never
     * reaches it. */
    size_t local_size;
    struct gk__heap_alloc local_alloc;
    /* GK_SYMMETRIC_DATA: the executable's data and bss [data, data +
     * data_size), at segment offset data_seg_offset on every PE (after the
     * heap, mem/segment.h); data_size 0: not symmetric. */
    char *data;
    size_t data_size;
    size_t data_seg_offset;
    struct gk__net_peer *peers; /* n_pes entries; peers[my_pe] maps my_seg */
    struct gk__heap_alloc heap_alloc;
    uint64_t barrier_epoch;
    /* Sequence numbers of the collectives (coll/, and core/allreduce.c for
     * reduce_seq): every PE counts the same. */
    uint64_t bcast_seq;
    uint64_t reduce_seq;
    uint64_t xchg_seq; /* chunks through the exchange slots (collect, all-to-all) */
    /* The last bcast_consumed value read from each PE (a lower bound, as it
     * only grows), so a parent reads a child's word only when it must. */
    uint64_t *bcast_consumed_seen;
    /* Which cells of my segment's pool (mem/segment.h) are handed out
     * (atomic: threads allocate semaphores concurrently). */
    _Atomic uint64_t pool_used[GK__SEG_POOL_CELLS / 64];
    int thread_level; /* GK_THREAD_*, from gk_init_thread() */
    /* Several threads may run gasket calls at once (GK_THREAD_MULTIPLE or
     * a progress thread): shared state must then be locked. */
    int threaded;
    /* The collective-call check (core/coll_check.h): the outermost calls
     * made, the word published for the last one, and the first mismatch
     * found (PE clash_pe[i] in call clash_call[i]; [0] is the finder). */
    uint64_t coll_seq;
    uint64_t coll_word;
    int coll_broken;
    int coll_clash_pe[2];
    uint64_t coll_clash_call[2];
    /* Its slow-path look at the peers: the call that first looked and when
     * (monotonic ns), and where the next batch of peers starts. */
    uint64_t coll_check_seq;
    uint64_t coll_check_since;
    int coll_check_next;
};

/* gk_init() as `op` (gk_init, gk_init_thread) names it in its messages. */
int gk__rt_init(const char *op);

/* The wake-up debt of plain puts (struct gk__wake_debt, gk__debt) is
 * declared in gasket_inline.h: the inline puts keep it too. */

/* Hands out a free pool cell of this PE: its segment offset, or NOMEM.
 * What the cell's last owner wrote before giving it back is visible. */
int gk__rt_pool_take(size_t *seg_offset_p);
/* Returns a cell; GK_ERR_INVALID_ARG if it was not handed out. */
int gk__rt_pool_give(size_t seg_offset);

extern struct gk__runtime gk__rt;

/*
 * For collective calls: every PE passes its own argument check's status;
 * all return GK_OK, or all fail (a PE whose own check passed logs that
 * another PE failed and returns that PE's code). Costs one all-reduce.
 */
int gk__rt_agree(const char *op, int local_status);

/*
 * Set by an upper layer with state gk_finalize must refuse to leave behind
 * (win/: a window with an epoch open, whose lock other PEs may be waiting
 * for); gk_finalize returns its error before its barrier, so the job ends
 * with a message instead of hanging there. NULL when there is none.
 */
extern int (*gk__rt_finalize_check)(void);

/*
 * Set by msg/: at gk_finalize, once every message has arrived, logs each
 * two-sided message that reached this PE and was never received, adds one
 * to lost_from[source] for each, frees them, and returns how many.
 */
extern uint64_t (*gk__rt_finalize_unreceived)(uint64_t *lost_from);

/* Error reports (cold): they log the details and return the code. */
int gk__rt_report_pe(const char *op, int pe) __attribute__((cold, noinline));
int gk__rt_report_range(const char *op, int pe, const void *addr, size_t n)
    __attribute__((cold, noinline));
int gk__rt_report_null(const char *op, const char *arg, size_t n)
    __attribute__((cold, noinline));
int gk__rt_report_align(const char *op, int pe, const void *addr, size_t align)
    __attribute__((cold, noinline));

/*
 * Checks an access of n bytes at symmetric address `addr` on `pe` and gives
 * the offset into the target's segment. A transfer of 0 bytes is valid at
 * any address (NULL included). Unsigned arithmetic makes addresses
 * below the heap wrap to huge offsets, so one comparison covers both ends.
 */
static inline int gk__rt_check_remote(const char *op, int pe, const void *addr,
                                      size_t n, size_t *seg_offset_p)
{
    if (GK__UNLIKELY((unsigned)pe >= (unsigned)gk__rt.n_pes))
        return gk__rt_report_pe(op, pe);
    size_t offset = (size_t)((uintptr_t)addr - (uintptr_t)gk__rt.heap);
    size_t sym = gk__rt.heap_size - gk__rt.local_size; /* the local area is no one's symmetric memory */
    if (GK__UNLIKELY(offset > sym || n > sym - offset)) {
        /* Moving nothing touches nothing: any address will do. */
        if (n == 0) {
            *seg_offset_p = GK__SEG_HEAP_OFFSET;
            return GK_OK;
        }
        /* The program's globals, where they are symmetric (data_size 0
         * otherwise: no offset passes). */
        size_t in_data = (size_t)((uintptr_t)addr - (uintptr_t)gk__rt.data);
        if (in_data < gk__rt.data_size && n <= gk__rt.data_size - in_data) {
            *seg_offset_p = gk__rt.data_seg_offset + in_data;
            return GK_OK;
        }
        return gk__rt_report_range(op, pe, addr, n);
    }
    *seg_offset_p = GK__SEG_HEAP_OFFSET + offset;
    return GK_OK;
}

/*
 * Whether n bytes at segment offset `offset` of this PE's own segment lie
 * at or above `from` and inside the segment (which ends with the heap):
 * the check a remote operation (net.h) makes of the offsets it was sent.
 */
static inline int gk__rt_own_bytes(size_t from, size_t offset, size_t n)
{
    size_t end = GK__SEG_HEAP_OFFSET + gk__rt.heap_size;
    if (offset >= from && offset <= end && n <= end - offset)
        return 1;
    /* The program's globals, where they are symmetric (after the heap). */
    size_t in_data = offset - gk__rt.data_seg_offset;
    return gk__rt.data_seg_offset >= from && offset >= gk__rt.data_seg_offset &&
           in_data < gk__rt.data_size && n <= gk__rt.data_size - in_data;
}

/* A local buffer may be NULL only when nothing is transferred. */
static inline int gk__rt_check_local(const char *op, const char *arg,
                                     const void *buf, size_t n)
{
    if (GK__UNLIKELY(buf == NULL && n != 0))
        return gk__rt_report_null(op, arg, n);
    return GK_OK;
}

/* Checks a naturally aligned word of `width` bytes on `pe`. */
static inline int gk__rt_check_word(const char *op, int pe, const void *addr,
                                    size_t width, size_t *seg_offset_p)
{
    int status = gk__rt_check_remote(op, pe, addr, width, seg_offset_p);
    if (GK__LIKELY(status == GK_OK) && GK__UNLIKELY(((uintptr_t)addr & (width - 1)) != 0))
        return gk__rt_report_align(op, pe, addr, width);
    return status;
}

/* Remembers that PE pe is owed a wake-up check for its bytes [lo, hi)
 * (the rule is gasket_inline.h's, which the inline puts follow too). */
static inline void gk__rt_defer_wake(int pe, uint64_t lo, uint64_t hi)
{
    gk__inline_defer_wake(pe, lo, hi);
}

/*
 * Notes that PE pe's wake-up check was just made (by a signal, flag or
 * atomic) for its bytes [lo, hi), right after a full fence or seq_cst RMW.
 * That check covered only [lo, hi): a sleeper watching a word of the owed
 * range is checked for now (the fence already orders the owed copies).
 */
void gk__rt_wake_done_slow(int pe, uint64_t lo, uint64_t hi) __attribute__((noinline));
static inline void gk__rt_wake_done(int pe, uint64_t lo, uint64_t hi)
{
    if (GK__UNLIKELY(gk__debt.pe == pe))
        gk__rt_wake_done_slow(pe, lo, hi);
}

/*
 * After plain stores to PE pe's bytes [lo, hi) (a flag): its wake-up check,
 * which also pays what earlier puts to pe owe (the usual payload-then-flag
 * pattern), in one fence and one look at the sleepers; the range is
 * widened to cover the owed bytes, so a sleeper watching a word between
 * them may wake for nothing, and re-checks.
 */
static inline void gk__rt_notify_with_debt(struct gk__net_peer *peer, int pe, uint64_t lo,
                                           uint64_t hi)
{
    struct gk__wake_debt *debt = &gk__debt;
    if (debt->pe == pe) {
        if (debt->lo < lo)
            lo = debt->lo;
        if (debt->hi > hi)
            hi = debt->hi;
        debt->pe = -1;
    }
    if (GK__LIKELY(peer->direct != NULL))
        gk__wake_notify(&gk__shm_header(peer)->wake, lo, hi);
    else
        (void)peer->transport->wake(peer, lo, hi);
}

/*
 * Makes the owed wake-up checks right after a full fence or seq_cst RMW of
 * the caller's own (a quiet, a lock release): each owed PE's sleepers.
 * The usual case inline, one PE owed and nobody asleep there; the slow
 * path wakes, or walks every PE for a debt to several.
 */
void gk__rt_flush_wakes_fenced_slow(void) __attribute__((noinline));
static inline void gk__rt_flush_wakes_fenced(void)
{
    int pe = gk__debt.pe;
    if (pe == -1)
        return;
    if (pe >= 0) {
        const struct gk__net_peer *peer = &gk__rt.peers[pe];
        if (peer->direct != NULL && !gk__shm_sleepers(peer)) {
            gk__debt.pe = -1;
            return;
        }
    }
    gk__rt_flush_wakes_fenced_slow();
}

/* The same checks where no fence came before: one fence first. */
static inline void gk__rt_flush_wakes(void)
{
    if (gk__debt.pe != -1) {
        atomic_thread_fence(memory_order_seq_cst);
        gk__rt_flush_wakes_fenced();
    }
}

/* gk_quiet(): completes this PE's operations, and pays the wake-ups its
 * puts owe (on mapped peers, one full fence does both). */
static inline int gk__rt_quiet(void)
{
    int status = GK_OK;
    if (GK__UNLIKELY(gk__net_remote))
        status = gk__net_quiet_all(); /* shm's quiet among them: the fence */
    else
        gk__shm_quiet(); /* the full fence the owed wake-up checks need too */
    gk__rt_flush_wakes_fenced();
    return status;
}

/* gk_fence(): orders this PE's earlier operations to each peer before its
 * later ones. */
static inline int gk__rt_fence(void)
{
    if (GK__UNLIKELY(gk__net_remote))
        return gk__net_fence_all();
    gk__shm_fence();
    return GK_OK;
}

/*
 * Completes this PE's operations before a release that is a seq_cst RMW
 * (a lock's): on mapped peers they are complete already and the RMW orders
 * them, so only a network transport has work here. After the RMW, call
 * gk__rt_flush_wakes_fenced() for the wake-ups the puts owe.
 */
static inline int gk__rt_complete_before_rmw(void)
{
    if (GK__LIKELY(!gk__net_remote))
        return GK_OK;
    return gk__net_quiet_all();
}

#endif /* GK_CORE_RUNTIME_H */

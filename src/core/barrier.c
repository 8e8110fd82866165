/*
 * barrier.c: the dissemination barrier (Hensgen, Finkel and Manber), the
 * one barrier engine: gk_barrier (sync/barrier.c) runs it, and so do the
 * runtime's own calls that need a barrier (gk_calloc, gk_realloc,
 * gk_finalize).
 *
 * In round r, PE i writes the barrier's epoch into flag r of PE
 * (i + 2^r) mod n and waits until its own flag r holds at least that epoch;
 * after ceil(log2 n) rounds every PE has heard, directly or through others,
 * from every PE. Each flag has a single writer and epochs only grow, so no
 * flag is ever reset: a fast PE may already have written epoch e+1 into a
 * flag its slow neighbour still waits on for e, and ">= e" accepts it.
 *
 * Ordering: a PE quiets its earlier operations before the first round, the
 * flag is written with release and read with acquire, so data put before the
 * barrier anywhere is visible after it everywhere.
 *
 * A flag holds epoch << 16 | the writer's collective call (its number mod
 * 256 and its kind, core/coll_check.h), so a barrier inside one collective
 * call never completes with a barrier inside another (gk_finalize's and a
 * gk_barrier one PE has too many): a reader that finds our epoch with
 * another call reports the mismatch and stops, and no PE can complete the
 * barrier (each learns of it from its own flags, or sleeps and finds it
 * among the published calls). A flag past our epoch needs no check: its
 * writer has completed our barrier, which no PE can while two of its
 * flags disagree (the reader of the disagreement stops, and every chain
 * of flags through it ends there).
 */
#include "core/barrier.h"

#include <assert.h>

#include "base/wait.h"
#include "core/coll_check.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "core/path.h"

#define BARRIER_EPOCH_SHIFT 16
#define BARRIER_CALL_BITS (((uint64_t)1 << BARRIER_EPOCH_SHIFT) - 1)

struct barrier_wait {
    const _Atomic uint64_t *flag;
    uint64_t least; /* our epoch with the lowest call bits */
};

static int barrier_flag_reached(const void *arg)
{
    const struct barrier_wait *w = arg;
    return atomic_load_explicit(w->flag, memory_order_acquire) >= w->least;
}

static int barrier_signal(int pe, int round, uint64_t mark)
{
    size_t offset = offsetof(struct gk__seg_header, barrier_flag) +
                    (size_t)round * sizeof(struct gk__seg_flag);
    /* On a mapped peer an exchange: one locked instruction that is both the
     * quiet of earlier operations and the fence of the wake-up check.
     * Through a transport, gk__barrier completed this PE's operations
     * before the first round, and the flag owes the next quiet nothing
     * (its target waits). */
    return gk__path_flag64(pe, GK__AMO_SET, offset, mark);
}

/* The barriers this PE has entered: every PE counts the same. */
static uint64_t barrier_epoch;

void gk__barrier_reset(void)
{
    barrier_epoch = 0;
}

static int barrier_run(void);

int gk__barrier(void)
{
    if (GK__LIKELY(!gk__race_on))
        return barrier_run();
    gk__path_race_coll_enter(GK__PATH_RACE_KEY_BARRIER, 0);
    int status = barrier_run();
    if (status == GK_OK)
        gk__path_race_coll_leave(GK__PATH_RACE_KEY_BARRIER, 0, NULL, 0);
    return status;
}

static int barrier_run(void)
{
    assert(gk__coll_depth > 0);
    /* After a mismatch no barrier can end; the call that found it has
     * said so (core/coll_check.h). */
    if (GK__UNLIKELY(gk__coll_state.broken))
        return GK_ERR_COLL_MISMATCH;
    int n = gk__rt.n_pes, me = gk__rt.my_pe;
    uint64_t epoch = ++barrier_epoch;
    uint64_t least = epoch << BARRIER_EPOCH_SHIFT, mark = least | gk__coll_tag16();
    /* Quiet: owed wake-ups are checked here; the ordering of earlier
     * stores comes from the first round's exchange, a full fence. */
    gk__path_check_complete("a barrier");
    gk__path_flush_wakes();
    struct gk__seg_header *mine = gk__rt.my_seg.header;
    if (n == 1)
        atomic_thread_fence(memory_order_seq_cst); /* no round, so no exchange: fence here */
    if (GK__UNLIKELY(gk__net_remote)) {
        /* A network transport's operations complete at its quiet, not by
         * the rounds' exchanges. */
        int status = gk__net_quiet_all();
        if (status != GK_OK)
            return status;
    }
    int round = 0;
    for (int distance = 1; distance < n; distance <<= 1, round++) {
        int status = barrier_signal((me + distance) % n, round, mark);
        if (status != GK_OK)
            return status;
        struct barrier_wait w = {&mine->barrier_flag[round].value, least};
        uint64_t flag = atomic_load_explicit(w.flag, memory_order_acquire);
        if (flag < least) {
            uint64_t watch = offsetof(struct gk__seg_header, barrier_flag) +
                             (uint64_t)round * sizeof(struct gk__seg_flag);
            status = gk__wait_for(&mine->wake, watch, barrier_flag_reached, &w);
            if (status != GK_OK)
                return status;
            flag = atomic_load_explicit(w.flag, memory_order_acquire);
        }
        /* Our epoch from another call? (A later epoch: see above.) */
        if (GK__UNLIKELY(flag != mark) && flag >> BARRIER_EPOCH_SHIFT == epoch) {
            int writer = (me - distance + n) % n;
            status = gk__coll_check_tag16(writer, flag & BARRIER_CALL_BITS);
            if (status != GK_OK)
                return status;
        }
    }
    return GK_OK;
}

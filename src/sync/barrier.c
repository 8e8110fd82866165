/*
 * barrier.c: the dissemination barrier (Hensgen, Finkel and Manber).
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
 */
#include "base/wait.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "net/shm.h"

struct barrier_wait {
    const _Atomic uint64_t *flag;
    uint64_t epoch;
};

static int barrier_flag_reached(const void *arg)
{
    const struct barrier_wait *w = arg;
    return atomic_load_explicit(w->flag, memory_order_acquire) >= w->epoch;
}

static int barrier_signal(int pe, int round, uint64_t epoch)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    size_t offset = offsetof(struct gk__seg_header, barrier_flag) +
                    (size_t)round * sizeof(struct gk__seg_flag);
    if (GK__LIKELY(peer->seg_base != NULL)) {
        /* An exchange, not a store: one locked instruction that is both the
         * quiet of earlier operations and the fence of the wake-up check. */
        atomic_exchange_explicit((_Atomic uint64_t *)(peer->seg_base + offset), epoch,
                                 memory_order_seq_cst);
        gk__wake_notify_after_rmw(&peer->header->wake, offset, offset + 8);
        gk__rt_wake_done(pe, offset, offset + 8);
        return GK_OK;
    }
    return peer->transport->atomic(peer, GK__AMO_SET, 8, offset, epoch, 0, NULL);
}

int gk_barrier(void)
{
    if (GK__UNLIKELY(!gk__rt.initialized))
        return gk__rt_report_pe("gk_barrier", 0);
    if (GK__UNLIKELY(gk__in_handler))
        return gk__progress_report_in_handler("gk_barrier");
    int n = gk__rt.n_pes, me = gk__rt.my_pe;
    uint64_t epoch = ++gk__rt.barrier_epoch;
    /* Quiet: owed wake-ups are checked here; the ordering of earlier
     * stores comes from the first round's exchange, a full fence. */
    gk__rt_flush_wakes();
    struct gk__seg_header *mine = gk__rt.my_seg.header;
    if (n == 1)
        gk__shm_quiet(); /* no round, so no exchange: fence here */
    int round = 0;
    for (int distance = 1; distance < n; distance <<= 1, round++) {
        int status = barrier_signal((me + distance) % n, round, epoch);
        if (status != GK_OK)
            return status;
        struct barrier_wait w = {&mine->barrier_flag[round].value, epoch};
        if (!barrier_flag_reached(&w)) {
            uint64_t watch = offsetof(struct gk__seg_header, barrier_flag) +
                             (uint64_t)round * sizeof(struct gk__seg_flag);
            status = gk__wait_for(&mine->wake, watch, barrier_flag_reached, &w);
            if (status != GK_OK)
                return status;
        }
    }
    return GK_OK;
}

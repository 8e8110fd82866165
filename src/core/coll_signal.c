/*
 * coll_signal.c: the collectives' signaling put and its wait (coll_signal.h).
 */
#include "core/coll_signal.h"

#include "base/wait.h"
#include "core/coll_check.h"
#include "core/runtime.h"
#include "core/xfer.h"
#include "net/shm.h"

int gk__coll_put_signal(int pe, size_t data_offset, const void *src, size_t n,
                        size_t signal_offset, uint64_t seq)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    uint64_t sender[2] = {gk__coll_state.word, (uint64_t)gk__rt.my_pe};
    size_t sender_offset = signal_offset + offsetof(struct gk__coll_line, coll);
    if (GK__LIKELY(peer->direct != NULL)) {
        gk__shm_copy_to(peer, data_offset, src, n);
        struct gk__coll_line *line =
            (struct gk__coll_line *)(peer->direct + signal_offset);
        atomic_store_explicit(&line->coll, sender[0], memory_order_relaxed);
        atomic_store_explicit(&line->from_pe, sender[1], memory_order_relaxed);
        /* The exchange orders the copy before the signal and lets us use the
         * cheap wake-up check. */
        atomic_exchange_explicit((_Atomic uint64_t *)(peer->direct + signal_offset), seq,
                                 memory_order_seq_cst);
        gk__wake_notify_after_rmw(&gk__shm_header(peer)->wake, signal_offset,
                                  signal_offset + 8);
        gk__rt_wake_done(pe, signal_offset, signal_offset + 8);
        return GK_OK;
    }
    int status = peer->transport->put(peer, data_offset, src, n);
    if (status == GK_OK)
        status = peer->transport->put(peer, sender_offset, sender, sizeof(sender));
    if (status == GK_OK)
        status = peer->transport->fence();
    if (status == GK_OK)
        status = gk__xfer_flag64(pe, GK__AMO_SET, signal_offset, seq); /* awaited there */
    return status;
}

struct coll_wait {
    _Atomic uint64_t *signal;
    uint64_t seq;
};

static int coll_signal_reached(const void *arg)
{
    const struct coll_wait *w = arg;
    return atomic_load_explicit(w->signal, memory_order_acquire) >= w->seq;
}

int gk__coll_wait_signal(_Atomic uint64_t *signal, uint64_t seq)
{
    struct coll_wait w = {signal, seq};
    if (!coll_signal_reached(&w)) {
        gk__rt_flush_wakes();
        uint64_t watch = (uint64_t)((char *)signal - gk__rt.my_seg.base);
        int status =
            gk__wait_for(&gk__rt.my_seg.header->wake, watch, coll_signal_reached, &w);
        if (status != GK_OK)
            return status;
    }
    struct gk__coll_line *line = (struct gk__coll_line *)signal;
    return gk__coll_check_sent(
        (int)atomic_load_explicit(&line->from_pe, memory_order_relaxed),
        atomic_load_explicit(&line->coll, memory_order_relaxed));
}

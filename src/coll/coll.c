/*
 * coll.c: the signaling put and the waits the collectives are built from.
 */
#include "coll/coll.h"

#include "base/log.h"
#include "base/wait.h"
#include "core/coll_check.h"
#include "core/xfer.h"
#include "net/shm.h"

int gk__coll_put_signal(int pe, size_t data_offset, const void *src, size_t n,
                        size_t signal_offset, uint64_t seq)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    uint64_t sender[2] = {gk__rt.coll_word, (uint64_t)gk__rt.my_pe};
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
        status = gk__xfer_notify64(pe, GK__AMO_SET, signal_offset, seq, 0, NULL);
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

/* A peer's word read through its transport: a load when it is mapped, a
 * get otherwise (the last value read is kept in `seen`). */
struct peer_word_wait {
    struct gk__net_peer *peer;
    size_t offset;
    uint64_t seq;
    uint64_t seen;
    int status;
};

static int peer_word_reached(const void *arg)
{
    struct peer_word_wait *w = (struct peer_word_wait *)arg;
    if (w->peer->direct != NULL) {
        w->seen = atomic_load_explicit((const _Atomic uint64_t *)(w->peer->direct + w->offset),
                                       memory_order_acquire);
    } else {
        w->status = w->peer->transport->get(w->peer, &w->seen, w->offset, sizeof(w->seen));
        if (w->status != GK_OK)
            return 1;
    }
    return w->seen >= w->seq;
}

int gk__coll_wait_peer_reached(int pe, size_t offset, uint64_t seq, uint64_t *seen_p)
{
    struct peer_word_wait w = {&gk__rt.peers[pe], offset, seq, 0, GK_OK};
    int status = GK_OK;
    if (!peer_word_reached(&w)) {
        gk__rt_flush_wakes();
        status = gk__wait_poll(peer_word_reached, &w);
    }
    if (status == GK_OK)
        status = w.status;
    if (status == GK_OK && seen_p != NULL)
        *seen_p = w.seen;
    return status;
}

int gk__coll_agree(const char *op, int local_status, const struct gk__coll_arg *args, int n)
{
    uint64_t mine[1 + 2 * GK__COLL_AGREE_MAX_ARGS], all[1 + 2 * GK__COLL_AGREE_MAX_ARGS];
    mine[0] = (uint64_t)-(int64_t)local_status;
    for (int a = 0; a < n; a++) {
        mine[1 + 2 * a] = args[a].value;
        mine[2 + 2 * a] = ~args[a].value;
    }
    int status = gk_allreduce(all, mine, 1 + 2 * (size_t)n, GK_DTYPE_UINT64, GK_OP_MAX);
    if (status != GK_OK)
        return status;
    if (local_status != GK_OK)
        return local_status; /* it said why */
    if (all[0] != 0) {
        gk__error("%s: failed on another PE (%s); nothing was sent", op,
                  gk_strerror(-(int)all[0]));
        return -(int)all[0];
    }
    for (int a = 0; a < n; a++) {
        uint64_t hi = all[1 + 2 * a], lo = ~all[2 + 2 * a];
        if (lo == hi)
            continue;
        gk__error("%s: the PEs passed different %s (from %llu to %llu; this PE %llu); "
                  "nothing was sent",
                  op, args[a].what, (unsigned long long)lo, (unsigned long long)hi,
                  (unsigned long long)args[a].value);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

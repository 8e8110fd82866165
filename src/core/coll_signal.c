/*
 * coll_signal.c: the collectives' signaling put and its wait (coll_signal.h).
 */
#include "core/coll_signal.h"

#include "base/wait.h"
#include "core/coll_check.h"
#include "core/runtime.h"
#include "core/path.h"

int gk__coll_put_signal(int pe, size_t data_offset, const void *src, size_t n,
                        size_t signal_offset, uint64_t seq)
{
    static const char op[] = "a collective's signaling put";
    uint64_t sender[2] = {gk__coll_state.word, (uint64_t)gk__rt.my_pe};
    size_t sender_offset = signal_offset + offsetof(struct gk__coll_line, coll);
    int status = gk__path_put_at(op, pe, data_offset, src, n, GK__PATH_NO_WAKE,
                                 GK__PATH_SRC_FREE);
    if (status == GK_OK)
        status = gk__path_put_at(op, pe, sender_offset, sender, sizeof(sender),
                                 GK__PATH_NO_WAKE, GK__PATH_SRC_FREE);
    /* On a mapped peer the signal's exchange orders the copies before it
     * (the fence is no instruction on x86) and makes the cheap wake-up
     * check; through a transport the fence orders them. */
    if (status == GK_OK)
        status = gk__path_fence_peer(pe);
    if (status == GK_OK)
        status = gk__path_flag64(pe, GK__AMO_SET, signal_offset, seq); /* awaited there */
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
        gk__path_flush_wakes();
        uint64_t watch = (uint64_t)((char *)signal - gk__rt.my_seg.base);
        int status = gk__path_wait_own(watch, coll_signal_reached, &w);
        if (status != GK_OK)
            return status;
    }
    struct gk__coll_line *line = (struct gk__coll_line *)signal;
    return gk__coll_check_sent(
        (int)atomic_load_explicit(&line->from_pe, memory_order_relaxed),
        atomic_load_explicit(&line->coll, memory_order_relaxed));
}

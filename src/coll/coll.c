/*
 * coll.c: what the collectives of coll/ share beyond core's signaling put
 * (core/coll_signal.h): the wait on a peer's word, and the agreement on
 * arguments.
 */
#include "coll/coll.h"

#include "base/log.h"
#include "base/wait.h"
#include "core/path.h"

/* The collectives' scratch in every segment (coll.h). Aligned to 64 KiB:
 * the layout's rule (mem/seg_region.h) then puts it at 64 KiB, where it
 * has always been. */
GK__SEG_REGION(gk__coll_region, .name = "collectives", .size = GK__COLL_SCRATCH_SIZE,
               .align = (size_t)64 * 1024);

/* A peer's word read through its transport: a load when it is mapped, a
 * get otherwise (the last value read is kept in `seen`). */
struct peer_word_wait {
    int pe;
    size_t offset;
    uint64_t seq;
    uint64_t seen;
    int status;
};

static int peer_word_reached(const void *arg)
{
    struct peer_word_wait *w = (struct peer_word_wait *)arg;
    w->status = gk__path_load(w->pe, w->offset, sizeof(w->seen), &w->seen);
    if (w->status != GK_OK)
        return 1;
    return w->seen >= w->seq;
}

int gk__coll_wait_peer_reached(int pe, size_t offset, uint64_t seq, uint64_t *seen_p)
{
    struct peer_word_wait w = {pe, offset, seq, 0, GK_OK};
    int status = GK_OK;
    if (!peer_word_reached(&w)) {
        gk__path_flush_wakes();
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

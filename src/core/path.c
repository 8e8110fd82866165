/*
 * path.c: the path layer's out-of-line part (path.h): the state the public
 * header's inline fast paths read, and the wake-ups owed by plain puts.
 */
#include "core/path.h"

#include <stdlib.h>

#include "base/log.h"
#include "base/wait.h"
#include "core/progress.h"
#include "net/shm_inbox.h"

/*
 * The state gasket_inline.h's fast paths read: a copy of what they need
 * from gk__rt and the peer table, so the public header does not depend on
 * internal structures. Open while initialized; n_pes 0 sends every inline
 * call to the library (which then reports "not initialized").
 */
struct gk__inline_state gk__inline;
/* A short inline spin (about a microsecond at 28 ns a pause): past it the
 * library's wait decides when to yield and sleep. */
#define GK__INLINE_WAIT_POLLS 32u
static struct gk__inline_peer *path_inline_peers;

int gk__path_inline_open(void)
{
    gk__debt.pe = -1; /* nothing is owed to a job that has not started */
    free(path_inline_peers);
    path_inline_peers = calloc((size_t)gk__rt.n_pes, sizeof(*path_inline_peers));
    if (path_inline_peers == NULL) {
        gk__error("out of memory for the inline paths' table of %d PEs", gk__rt.n_pes);
        return GK_ERR_NOMEM;
    }
    /* In check mode no peer is open to the inline paths and none is
     * direct: every call takes the library's way, where the mode's one
     * branch is, and the inline paths carry none. */
    for (int pe = 0; pe < gk__rt.n_pes && !gk__check_on; pe++) {
        struct gk__net_peer *peer = &gk__rt.peers[pe];
        if (peer->caps & GK__NET_CAP_LOAD_STORE) {
            path_inline_peers[pe].seg_base = gk__shm_addr(peer, 0);
            path_inline_peers[pe].sleepers =
                (const uint32_t *)&gk__shm_header(peer)->wake.sleepers;
        }
    }
    /* In check mode no word is in the inline paths' heap: the inline
     * waits go to the library at once, where the race detector sees them
     * return, as the puts do. */
    gk__inline.heap = gk__check_on ? UINTPTR_MAX : (uintptr_t)gk__rt.heap;
    gk__inline.sym_size = gk__rt.heap_span - gk__rt.local_size;
    gk__inline.heap_seg_offset = GK__SEG_HEAP_OFFSET;
    gk__inline.peers = path_inline_peers;
    gk__inline.direct = !gk__net_remote && !gk__check_on;
    gk__inbox_poll_words(gk__rt.my_seg.base, &gk__inline.inbox_head, &gk__inline.inbox_seq,
                         &gk__inline.inbox_mask, &gk__inline.inbox_stride);
    /* A short inline spin: the library's wait spins on. */
    gk__inline.spin_polls = gk__wait_policy.spin_count < GK__INLINE_WAIT_POLLS
                                ? gk__wait_policy.spin_count
                                : GK__INLINE_WAIT_POLLS;
    gk__inline.n_pes = (unsigned)gk__rt.n_pes;
    return GK_OK;
}

void gk__path_inline_close(void)
{
    gk__inline.n_pes = 0;
    gk__inline.direct = 0;
    gk__inline.peers = NULL;
    free(path_inline_peers);
    path_inline_peers = NULL;
}

void gk__wake_peer(int pe, uint64_t lo, uint64_t hi)
{
    gk__shm_pay_wake(&gk__rt.peers[pe], lo, hi);
}

__thread struct gk__wake_debt gk__debt = {.pe = -1};

/* Pays a wake-up owed to a peer, after a full fence: a look at a mapped
 * peer's sleepers, or the peer's transport's wake-up. */
static void path_pay_wake(struct gk__net_peer *peer, uint64_t lo, uint64_t hi)
{
    if (peer->caps & GK__NET_CAP_LOAD_STORE) {
        gk__shm_pay_wake(peer, lo, hi);
    } else if (peer->transport != NULL) {
        (void)peer->transport->wake(peer, lo, hi);
    }
}

void gk__path_flush_wakes_fenced_slow(void)
{
    struct gk__wake_debt *debt = &gk__debt;
    int pending = debt->pe;
    if (pending == -1)
        return;
    uint64_t lo = pending == -2 ? 0 : debt->lo;
    uint64_t hi = pending == -2 ? UINT64_MAX : debt->hi;
    debt->pe = -1;
    if (pending >= 0) { /* one target (the usual case): no walk over all PEs */
        path_pay_wake(&gk__rt.peers[pending], lo, hi);
        return;
    }
    for (int pe = 0; pe < gk__rt.n_pes; pe++) /* -2: owed to every PE */
        path_pay_wake(&gk__rt.peers[pe], lo, hi);
}

void gk__path_wake_done_slow(int pe, uint64_t lo, uint64_t hi)
{
    struct gk__wake_debt *debt = &gk__debt;
    uint64_t owed_lo = debt->lo, owed_hi = debt->hi;
    debt->pe = -1;
    if (owed_lo >= lo && owed_hi <= hi)
        return; /* the caller's check covered it */
    path_pay_wake(&gk__rt.peers[pe], owed_lo, owed_hi);
}

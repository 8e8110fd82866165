/*
 * exchange.c: collect (all-gather) and all-to-all, chunk by chunk through
 * the exchange slots of each PE's scratch (coll.h).
 *
 * Both run in steps. In each step every PE sends one chunk to one PE and
 * receives one chunk from one PE (never itself). Every PE numbers the
 * steps alike: xchg_seq counts them across calls, and as the PEs
 * have agreed on nbytes first, a call has the same number of steps on
 * every PE. Step s's chunk goes into slot s mod COLL_XCHG_SLOTS of its
 * receiver by a signaling put whose signal is s; the receiver copies it
 * out, then sets its xchg_consumed word to s (release: its reads of the
 * slot come before).
 *
 * Flow control is bcast.c's: before a sender fills a slot for step s, it
 * reads in the receiver's memory that xchg_consumed has reached
 * s - COLL_XCHG_SLOTS, the slot's previous use, whichever PE sent that
 * chunk. So a sender runs up to COLL_XCHG_SLOTS steps ahead of its
 * receiver.
 *
 * No deadlock: a PE's send of step s needs its receiver to have finished
 * step s - COLL_XCHG_SLOTS, and its receive of step s needs its sender to
 * have sent step s. Let m be the lowest step any PE is in: every PE has
 * finished m - 1, so every send of step m can go, and then every receive
 * of step m completes.
 *
 * Collect is a ring: in round r (1 .. n-1) PE p passes block p - r + 1 (its
 * own first, then the one it got last round) to p + 1 and gets block p - r
 * from p - 1. All-to-all is pairwise: in round r PE p sends its block for
 * p + r there and gets block p - r from p - r (all mod n).
 */
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "coll/coll.h"
#include "core/coll_check.h"
#include "core/progress.h"

/* Waits until PE pe has finished with step `seq` (no wait when seq is 0). */
/* The chunks through the exchange slots so far: every PE counts the same. */
static uint64_t xchg_seq;

static int xchg_init(void)
{
    xchg_seq = 0;
    return GK_OK;
}

GK__RT_FEATURE(xchg_feature, .name = "exchange", .init = xchg_init);

static int xchg_wait_consumed(int pe, uint64_t seq)
{
    if (seq == 0)
        return GK_OK;
    return gk__coll_wait_peer_reached(pe, GK__COLL_OFFSET(xchg_consumed.value), seq, NULL);
}

/* One step: `len` bytes from `data` to PE `to`, and `len` bytes into `out`
 * from whichever PE sends us this step. */
static int xchg_step(int to, const void *data, void *out, size_t len)
{
    uint64_t seq = ++xchg_seq;
    unsigned slot = (unsigned)(seq % COLL_XCHG_SLOTS);
    struct gk__coll_scratch *mine = gk__coll_mine();
    int status = xchg_wait_consumed(to, seq > COLL_XCHG_SLOTS ? seq - COLL_XCHG_SLOTS : 0);
    if (status == GK_OK)
        status = gk__coll_put_signal(to, GK__COLL_OFFSET(xchg_slot[slot]), data, len,
                                     GK__COLL_OFFSET(xchg_signal[slot].value), seq);
    if (status == GK_OK)
        status = gk__coll_wait_signal(&mine->xchg_signal[slot].value, seq);
    if (status != GK_OK)
        return status;
    memcpy(out, mine->xchg_slot[slot], len);
    atomic_store_explicit(&mine->xchg_consumed.value, seq, memory_order_release);
    return GK_OK;
}

/* One round: a block of nbytes from `data` to `to`, one into `out`. */
static int xchg_round(int to, const unsigned char *data, unsigned char *out, size_t nbytes)
{
    int status = GK_OK;
    for (size_t offset = 0; offset < nbytes && status == GK_OK; offset += COLL_XCHG_CHUNK) {
        size_t len = nbytes - offset < COLL_XCHG_CHUNK ? nbytes - offset : COLL_XCHG_CHUNK;
        status = xchg_step(to, data + offset, out + offset, len);
    }
    return status;
}

/*
 * A PE with another size would run another number of steps, and the others
 * would wait for ever: the PEs compare nbytes before anything moves.
 */
static int xchg_agree(const char *op, size_t nbytes, int local_status)
{
    const struct gk__coll_arg args[] = {{"nbytes", nbytes}};
    return gk__coll_agree(op, local_status, args, 1);
}

/* Do [a, a + alen) and [b, b + blen) share a byte? */
static int ranges_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen != 0 && blen != 0 && x < y + blen && y < x + alen;
}

/*
 * The checks both calls share, then the agreement. src holds one block
 * (collect) or one per PE (all-to-all: src_per_pe); in_place is the one
 * overlap allowed (collect's src as its own block of dst), or NULL.
 */
static int xchg_begin(const char *op, void *dst, const void *src, size_t nbytes,
                      int src_per_pe, const void *in_place)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe(op, 0);
    int in_handler = gk__progress_check_not_in_handler(op);
    if (in_handler != GK_OK)
        return in_handler;
    size_t n = (size_t)gk__rt.n_pes;
    int status = GK_OK;
    if (nbytes > SIZE_MAX / n) {
        gk__error("%s: nbytes %zu times %zu PEs overflows the address space", op, nbytes, n);
        status = GK_ERR_INVALID_ARG;
    }
    size_t dst_bytes = status == GK_OK ? n * nbytes : 0;
    size_t src_bytes = src_per_pe ? dst_bytes : nbytes;
    if (status == GK_OK)
        status = gk__rt_check_local(op, "dst", dst, dst_bytes);
    if (status == GK_OK)
        status = gk__rt_check_local(op, "src", src, src_bytes);
    if (status == GK_OK && src != in_place &&
        ranges_overlap(dst, dst_bytes, src, src_bytes)) {
        gk__error("%s: src %p (%zu bytes) and dst %p (%zu bytes) overlap%s", op, src,
                  src_bytes, dst, dst_bytes,
                  in_place != NULL ? "; in place, src must be this PE's block of dst"
                                   : "; they must be separate buffers");
        status = GK_ERR_INVALID_ARG;
    }
    return xchg_agree(op, nbytes, status);
}

static int collect_call(void *dst, const void *src, size_t nbytes)
{
    static const char op[] = "gk_collect";
    int n = gk__rt.n_pes, me = gk__rt.my_pe;
    unsigned char *out = dst;
    /* Integer arithmetic: before the checks, nbytes may be anything. */
    const void *own =
        dst != NULL && me >= 0 ? (const void *)((uintptr_t)dst + (uintptr_t)me * nbytes) : NULL;
    int status = xchg_begin(op, dst, src, nbytes, 0, own);
    if (status != GK_OK || nbytes == 0)
        return status;
    if (src != own)
        memcpy(out + (size_t)me * nbytes, src, nbytes);
    int right = (me + 1) % n;
    for (int r = 1; r < n && status == GK_OK; r++) {
        size_t give = (size_t)((me - r + 1 + n) % n), take = (size_t)((me - r + n) % n);
        status = xchg_round(right, out + give * nbytes, out + take * nbytes, nbytes);
    }
    return status;
}

static int alltoall_call(void *dst, const void *src, size_t nbytes)
{
    static const char op[] = "gk_alltoall";
    int status = xchg_begin(op, dst, src, nbytes, 1, NULL);
    if (status != GK_OK || nbytes == 0)
        return status;
    int n = gk__rt.n_pes, me = gk__rt.my_pe;
    unsigned char *out = dst;
    const unsigned char *in = src;
    memcpy(out + (size_t)me * nbytes, in + (size_t)me * nbytes, nbytes);
    for (int r = 1; r < n && status == GK_OK; r++) {
        int to = (me + r) % n, from = (me - r + n) % n;
        status = xchg_round(to, in + (size_t)to * nbytes, out + (size_t)from * nbytes, nbytes);
    }
    return status;
}

int gk_collect(void *dst, const void *src, size_t nbytes)
{
    GK__COLL_RUN(GK__COLL_COLLECT, collect_call(dst, src, nbytes));
}

int gk_alltoall(void *dst, const void *src, size_t nbytes)
{
    GK__COLL_RUN(GK__COLL_ALLTOALL, alltoall_call(dst, src, nbytes));
}

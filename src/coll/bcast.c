/*
 * bcast.c: the tree broadcast.
 *
 * PEs are renumbered so the root is 0 (v = (pe - root) mod n); PE v's
 * children are v*radix+1 .. v*radix+radix. The message travels in chunks of
 * COLL_BCAST_CHUNK bytes; every PE numbers chunks the same way (bcast_seq
 * counts them across calls), and chunk s travels through slot
 * s mod COLL_BCAST_SLOTS of each PE's scratch by a signaling put whose
 * signal is s. A PE forwards a chunk to its children as soon as it has it,
 * so chunks pipeline down the tree.
 *
 * Flow control: a parent refills a child's slot only after the child has
 * finished with the chunk that used it before (its bcast_consumed word has
 * reached s - COLL_BCAST_SLOTS). Every PE, the root included, advances its
 * consumed word after each chunk, since next time it may be anyone's child.
 * The parent reads that word in the child's memory (the one place a
 * collective polls remote memory), and only when the value it read last
 * time does not already prove the slot free: with COLL_BCAST_SLOTS slots a
 * parent reads a child's word about once every that many chunks, and waits
 * only when the child lags that far behind.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "coll/coll.h"
#include "core/coll_check.h"
#include "core/progress.h"

/* The broadcast's chunks so far: every PE counts the same. */
static uint64_t bcast_seq;
/* The last bcast_consumed value read from each PE (a lower bound, as it
 * only grows), so a parent reads a child's word only when it must. */
static uint64_t *bcast_consumed_seen;

static int bcast_init(void)
{
    bcast_seq = 0;
    bcast_consumed_seen = calloc((size_t)gk__rt.boot.size, sizeof(uint64_t));
    if (bcast_consumed_seen == NULL) {
        gk__error("out of memory for the broadcast's table of %d PEs", gk__rt.boot.size);
        return GK_ERR_NOMEM;
    }
    return GK_OK;
}

static void bcast_fini(void)
{
    free(bcast_consumed_seen);
    bcast_consumed_seen = NULL;
}

GK__RT_FEATURE(bcast_feature, .name = "bcast", .init = bcast_init, .fini = bcast_fini);

/* Waits until PE pe has finished with chunk `seq` (no wait when seq == 0).
 * What we read last time often proves it already: then no remote read. */
static int bcast_wait_consumed(int pe, uint64_t seq)
{
    if (seq == 0 || bcast_consumed_seen[pe] >= seq)
        return GK_OK;
    return gk__coll_wait_peer_reached(pe, GK__COLL_OFFSET(bcast_consumed.value), seq,
                                      &bcast_consumed_seen[pe]);
}

static int bcast_check(const char *op, const void *dst, const void *src, size_t nbytes,
                       int root, int radix)
{
    if (!gk__rt.initialized || (unsigned)root >= (unsigned)gk__rt.n_pes)
        return gk__rt_report_pe(op, root);
    if (radix < 2 || radix > 64) {
        gk__error("%s: radix %d is out of range (2 to 64)", op, radix);
        return GK_ERR_INVALID_ARG;
    }
    int status = gk__rt_check_local(op, "dst", dst, nbytes);
    if (status == GK_OK && gk__rt.my_pe == root)
        status = gk__rt_check_local(op, "src", src, nbytes);
    return status;
}

/*
 * GK_COLL_CHECK=1: before anything moves, the PEs compare root, size and
 * radix (gk__coll_agree), so disagreement is an error on every PE. Without
 * it a PE whose root differs waits for a parent that never sends: the cost
 * of the check is that all-reduce per call.
 */
static int bcast_agree(const char *op, size_t nbytes, int root, int radix, int local_status)
{
    const struct gk__coll_arg args[] = {{"roots", (uint64_t)(uint32_t)root},
                                        {"sizes", nbytes},
                                        {"radices", (uint64_t)(uint32_t)radix}};
    return gk__coll_agree(op, local_status, args, 3);
}

/* The collective part; status is this PE's own check. */
static int bcast_run(void *dst, const void *src, size_t nbytes, int root, int radix,
                     int status, int agree)
{
    if (agree)
        status = bcast_agree("gk_broadcast", nbytes, root, radix, status);
    if (status != GK_OK)
        return status;
    int n = gk__rt.n_pes;
    long v = (gk__rt.my_pe - root + n) % n;
    long first_child = v * radix + 1;
    long last_child = first_child + radix - 1 < n - 1 ? first_child + radix - 1 : n - 1;
    struct gk__coll_scratch *mine = gk__coll_mine();

    for (size_t offset = 0; offset < nbytes; offset += COLL_BCAST_CHUNK) {
        size_t len = nbytes - offset < COLL_BCAST_CHUNK ? nbytes - offset : COLL_BCAST_CHUNK;
        uint64_t seq = ++bcast_seq;
        unsigned slot = (unsigned)(seq % COLL_BCAST_SLOTS);
        const unsigned char *data;
        if (v == 0) {
            data = (const unsigned char *)src + offset;
        } else {
            status = gk__coll_wait_signal(&mine->bcast_signal[slot].value, seq);
            if (status != GK_OK)
                return status;
            data = mine->bcast_slot[slot];
        }
        for (long child = first_child; child <= last_child; child++) {
            int pe = (int)((child + root) % n);
            uint64_t previous = seq > COLL_BCAST_SLOTS ? seq - COLL_BCAST_SLOTS : 0;
            status = bcast_wait_consumed(pe, previous);
            if (status == GK_OK)
                status = gk__coll_put_signal(pe, GK__COLL_OFFSET(bcast_slot[slot]), data, len,
                                             GK__COLL_OFFSET(bcast_signal[slot].value), seq);
            if (status != GK_OK)
                return status;
        }
        if ((unsigned char *)dst + offset != data)
            memmove((unsigned char *)dst + offset, data, len);
        atomic_store_explicit(&mine->bcast_consumed.value, seq, memory_order_release);
    }
    return GK_OK;
}

int gk_broadcast_radix(void *dst, const void *src, size_t nbytes, int root, int radix)
{
    int status = bcast_check("gk_broadcast", dst, src, nbytes, root, radix);
    int agree = gk__rt.initialized && gk__rt.config.coll_check;
    /* A PE with a bad argument still agrees (GK_COLL_CHECK), unless it is
     * inside a handler, where no collective may run. */
    if (status != GK_OK && !agree)
        return status;
    int in_handler = gk__progress_check_not_in_handler("gk_broadcast");
    if (in_handler != GK_OK)
        return in_handler;
    int entered = gk__coll_enter(GK__COLL_BROADCAST);
    if (entered != GK_OK)
        return entered;
    status = bcast_run(dst, src, nbytes, root, radix, status, agree);
    gk__coll_leave();
    return status;
}

int gk_broadcast(void *dst, const void *src, size_t nbytes, int root)
{
    return gk_broadcast_radix(dst, src, nbytes, root, (int)gk__rt.config.bcast_radix);
}

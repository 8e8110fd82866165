/*
 * ofi_probe.c: finding what a peer's connection lost.
 *
 * Why. tcp;ofi_rxm connects to a peer on first use, and again after its
 * connection is reset; an operation that was in flight on the reset
 * connection neither completes nor fails (a write whose completion never
 * comes, a message the peer never reads). UCX reports such a reset as an
 * error on the endpoint, which ends the job (remote.c); libfabric says
 * nothing, and a PE that waits for the lost operation would wait until
 * the job's time limit.
 *
 * How. The provider keeps a sender's messages in order (FI_ORDER_SAS),
 * and where it says so a message after the writes (FI_ORDER_SAW:
 * tcp;ofi_rxm and sockets) and the reads (FI_ORDER_SAR: sockets) before
 * it; only those writes and reads are counted (gk__ofi_rma_probed), with
 * the remote operations, which are messages. So a probe asks a peer, in a
 * message, how many of gasket's messages it has received from this PE:
 * once its answer is back,
 *   - every message posted before the probe has arrived, so a count lower
 *     than what was sent means messages were lost;
 *   - every operation posted before the probe has had its completion,
 *     answer or acknowledgement sent back ahead of the answer, so one that
 *     is still not ended after a second answered probe was lost.
 * Either ends the job as a failed connection does over UCX
 * (gk__remote_peer_failed), naming the peer.
 *
 * When. The progress thread sends a probe round every GK_OFI_PROBE_MS,
 * to every peer with operations not ended or messages not yet confirmed,
 * and only to those: an idle job sends none. Its cost is one small
 * message each way per busy peer per round. A probe that gets no answer is
 * simply followed by the next round's (the probe itself may have been
 * lost); a peer that died is the launcher's to report.
 */
#include "net/ofi_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/time.h"
#include "gasket.h"

static int probe_is_probe(unsigned kind)
{
    return kind == GK__OFI_PING || kind == GK__OFI_PONG;
}

void gk__ofi_msg_posted(int pe, unsigned kind)
{
    if (!probe_is_probe(kind))
        atomic_fetch_add_explicit(&gk__ofi.ofi_peers[pe].msgs_sent, 1, memory_order_relaxed);
}

static void probe_lost(int pe, enum gk__ofi_probe_loss loss, uint64_t n)
{
    const char *what = loss == GK__OFI_LOST_MESSAGES ? "messages" : "operations";
    char why[160];
    snprintf(why, sizeof(why),
             "%" PRIu64 " %s to it never %s, though it answered a later probe: the "
             "connection lost %s",
             n, what, loss == GK__OFI_LOST_MESSAGES ? "arrived" : "ended",
             n == 1 ? "it" : "them");
    gk__remote_peer_failed(gk__ofi.boot, pe, why);
}

enum gk__ofi_probe_loss gk__ofi_probe_answered(struct gk__ofi_peer *p, uint64_t seq,
                                               uint64_t count, uint64_t *n_lost)
{
    *n_lost = 0;
    if (seq != p->ping_seq)
        return GK__OFI_LOST_NOTHING; /* an earlier round's: the next answer decides */
    if (count < p->ping_msgs) {
        *n_lost = p->ping_msgs - count;
        return GK__OFI_LOST_MESSAGES;
    }
    p->msgs_confirmed = p->ping_msgs;
    p->ops_confirmed_prev = p->ops_confirmed;
    p->ops_confirmed = p->ping_ops;
    /* The operations posted before the previous answered probe have had a
     * whole round since. They end in any order, and `ended` counts later
     * ones too, so a loss may show only once the later ones stop: late,
     * never too soon. */
    uint64_t ended = atomic_load_explicit(&p->ops_ended, memory_order_relaxed);
    if (ended < p->ops_confirmed_prev) {
        *n_lost = p->ops_confirmed_prev - ended;
        return GK__OFI_LOST_OPERATIONS;
    }
    return GK__OFI_LOST_NOTHING;
}

int gk__ofi_probe_arrived(const char *buf, size_t len, unsigned kind, uint32_t src)
{
    struct gk__ofi *o = &gk__ofi;
    if (src >= (uint32_t)o->n_pes || o->peers[src].priv != &o->ofi_peers[src]) {
        if (probe_is_probe(kind))
            gk__error("a probe from the network rejected: its sender, PE %u, is not reached "
                      "through libfabric",
                      src);
        return !probe_is_probe(kind);
    }
    struct gk__ofi_peer *p = &o->ofi_peers[src];
    if (!probe_is_probe(kind)) {
        p->msgs_received++;
        return 1;
    }
    struct gk__ofi_probe_msg m;
    if (len != sizeof(m)) {
        gk__error("a probe of %zu bytes from PE %u rejected", len, src);
        return 0;
    }
    memcpy(&m, buf, sizeof(m));
    if (kind == GK__OFI_PONG) {
        uint64_t n_lost;
        enum gk__ofi_probe_loss loss = gk__ofi_probe_answered(p, m.seq, m.count, &n_lost);
        if (loss != GK__OFI_LOST_NOTHING)
            probe_lost(p->pe, loss, n_lost);
        return 0;
    }
    struct gk__ofi_probe_msg pong = {{GK__OFI_PONG, 0, (uint32_t)o->my_pe}, m.seq,
                                     p->msgs_received};
    gk__ofi_send((int)src, &pong, sizeof(pong), NULL, 0, 1);
    return 0;
}

int gk__ofi_probe_due(struct gk__ofi_peer *p)
{
    uint64_t posted = atomic_load_explicit(&p->ops_posted, memory_order_relaxed);
    uint64_t ended = atomic_load_explicit(&p->ops_ended, memory_order_relaxed);
    uint64_t sent = atomic_load_explicit(&p->msgs_sent, memory_order_relaxed);
    if (ended >= posted && sent == p->msgs_confirmed)
        return 0;
    p->ping_seq++;
    p->ping_msgs = sent;
    p->ping_ops = posted;
    return 1;
}

/* A peer with something not yet confirmed gets a probe. */
static void probe_peer(struct gk__ofi_peer *p)
{
    if (!gk__ofi_probe_due(p))
        return;
    struct gk__ofi_probe_msg ping = {{GK__OFI_PING, 0, (uint32_t)gk__ofi.my_pe}, p->ping_seq,
                                     p->ping_msgs};
    gk__ofi_send(p->pe, &ping, sizeof(ping), NULL, 0, 1);
}

int gk__ofi_probe_round(void)
{
    struct gk__ofi *o = &gk__ofi;
    if (o->probe_ns == 0 || !o->joined || atomic_load_explicit(&o->closing, memory_order_acquire))
        return -1;
    uint64_t now = gk__now_ns();
    if (now >= o->probe_next_ns) {
        o->probe_next_ns = now + o->probe_ns;
        for (int pe = 0; pe < o->n_pes; pe++)
            if (o->peers[pe].priv == &o->ofi_peers[pe])
                probe_peer(&o->ofi_peers[pe]);
    }
    return (int)((o->probe_next_ns - now + 999999) / 1000000);
}

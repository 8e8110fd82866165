/*
 * shm_inbox.h: a PE's active-message inbox as the progress engine sees it:
 * messages in (to any peer, mapped here or reached through its transport)
 * and out (of this PE's own inbox), and the flow control between: what a
 * sender does when the target's inbox is full, the messages held for full
 * inboxes, and the wake-ups that tell their holders there is room. The
 * ring underneath is shm_ring.h's; nothing here names a slot or a ticket
 * to the caller. The protocol of held messages is in shm_inbox.c's top
 * comment.
 *
 * The caller owns the message kinds and the handlers: to this file a
 * message is a struct gk__net_am, its arguments and its payload.
 */
#ifndef GK_NET_SHM_INBOX_H
#define GK_NET_SHM_INBOX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/prefetch.h"
#include "net/net.h"
#include "net/shm_ring.h" /* the inline tests read the ring */

/* How many messages a PE may hold for full inboxes before those who send
 * to it wait, and how many messages a sender to a peer reached through a
 * transport may send, at most, between two looks at that count
 * (shm_inbox.c's top comment). Tests derive their bounds from these. */
#define GK__INBOX_HELD_HIGH 256u
#define GK__INBOX_HELD_CHECK_MAX 1024u

/*
 * The PEs an inbox call may reach: this PE's segment (its inbox), the
 * runtime's peer table, this PE's number and how many PEs there are. The
 * runtime owns them and they change at gk_init and gk_finalize, so the
 * caller passes them at each call.
 */
struct gk__inbox_pes {
    char *seg_base;
    struct gk__net_peer *peers;
    int me;
    int n_pes;
};

/* Per peer, our side of its inbox: the inbox's own (shm_inbox.c), here
 * only for the inline fast paths below. */
struct gk__inbox_peer {
    /* The last `released` we read of its ring, and the ticket after our
     * last message there (the slot our next one probably takes). */
    _Atomic uint64_t released;
    _Atomic uint64_t next_ticket;
    /* Messages held for it (the queue is shm_inbox.c's, under its lock;
     * the count is read without it, as the send path's cheap test). */
    _Atomic uint64_t n_deferred;
    struct gk__inbox_held *deferred_head, *deferred_tail;
    /* A peer not mapped here: messages sent to it outside handlers since
     * its held count was read, and how many may go before the next read
     * (shm_inbox.c's top comment; 0: HELD_CHECK_MIN). */
    _Atomic uint32_t sent_unchecked;
    _Atomic uint32_t held_check_every;
};
extern struct gk__inbox_peer *gk__inbox_peers;

/* Initializes this PE's own (not yet shared) inbox in its segment, and
 * our side of the inboxes of n_pes peers. */
int gk__inbox_init(char *seg_base, int n_pes);

/* ------------------------------------------------------------------------ */
/* Taking messages out of this PE's inbox                                   */
/* ------------------------------------------------------------------------ */

/* Non-zero when a message is ready in the inbox of the segment at
 * seg_base: the cheap test of every spin loop (two loads of lines that
 * stay in this PE's cache until a message comes). */
static inline int gk__inbox_arrived(const char *seg_base)
{
    return gk__ring_ready(seg_base);
}

/*
 * A message taken out of this PE's inbox: its header, arguments and, if
 * it carries one, its payload, all valid until gk__inbox_release. `valid`
 * is 0 when its header's check did not match (a stray write): the caller
 * must not run it, and payload is then NULL.
 */
struct gk__inbox_msg {
    const struct gk__net_am *am;
    const uint64_t *args;
    void *payload;
    int valid;
    uint64_t ticket; /* the inbox's, for gk__inbox_release */
};

/* Takes the next arrived message into *m: 1, or 0 when none is there. */
static inline int gk__inbox_take(char *seg_base, struct gk__inbox_msg *m)
{
    struct gk__ring_slot *slot = gk__ring_take(seg_base, &m->ticket, &m->valid, &m->payload);
    if (slot == NULL)
        return 0;
    m->am = &slot->msg;
    m->args = slot->args;
    return 1;
}

/* Gives a taken message's room back to its senders; in the order taken. */
static inline void gk__inbox_release(char *seg_base, const struct gk__inbox_msg *m)
{
    gk__ring_release(seg_base, m->ticket);
}

/* Where gasket_inline.h's inline poll looks at this PE's inbox: the next
 * ticket to run, the first slot's sequence word, and the mask and stride
 * that find ticket t's (its word reads t + 1 once that message is ready). */
void gk__inbox_poll_words(const char *seg_base, const uint64_t **head_p, const char **seq_p,
                          uint64_t *mask_p, size_t *stride_p);

/*
 * A request's reply, if its handler sends one, goes to the slot of the
 * requester's inbox after our last message there (unless another PE took
 * it meanwhile). The requester is polling that line, so writing it costs a
 * transfer; asking for it now, before the handler runs, overlaps the
 * transfer with the handler and the reply's checks.
 */
static inline void gk__inbox_prefetch_reply(const struct gk__net_peer *peer, int pe)
{
    const char *base = peer->direct;
    if (base == NULL)
        return;
    uint64_t ticket =
        atomic_load_explicit(&gk__inbox_peers[pe].next_ticket, memory_order_relaxed);
    gk__prefetch_for_write(gk__ring_slot(base, ticket));
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * A message to peer pe (msg->src set): payload is a medium message's, or
 * with to_heap a long message's payload that travels with it to the
 * target's heap at dst_offset (net.h, am_send_long); NULL for none.
 */

/* Non-zero while this PE holds messages for pe: they go before any other. */
static inline int gk__inbox_holds_for(int pe)
{
    return atomic_load_explicit(&gk__inbox_peers[pe].n_deferred, memory_order_relaxed) != 0;
}

/* Outside a handler, nothing held for pe: sends, waiting (as gk__wait_poll
 * does, running this PE's inbox) while pe holds too many messages for
 * others or has no room. */
int gk__inbox_send(struct gk__net_peer *peer, int pe, const struct gk__net_am *msg,
                   const uint64_t *args, const void *payload, int to_heap);

/* Sends without waiting: GK_OK, GK__NET_AM_FULL, or a transport's error. */
static inline int gk__inbox_try_send(struct gk__net_peer *peer, int pe,
                                     const struct gk__net_am *msg, const uint64_t *args,
                                     const void *payload, int to_heap)
{
    /* To a peer reached through its transport: a long message that still
     * carries its payload goes with it (am.c put it first otherwise). */
    if (peer->direct == NULL)
        return to_heap ? peer->transport->am_send_long(peer, msg, args, payload)
                       : peer->transport->am_send(peer, msg, args, payload);
    return gk__ring_try_push(peer->direct, msg, args, payload, &gk__inbox_peers[pe].released,
                             &gk__inbox_peers[pe].next_ticket);
}

/* Keeps a message for pe until its inbox has room (a copy, payload too). */
int gk__inbox_defer(const struct gk__inbox_pes *pes, int pe, const struct gk__net_am *msg,
                    const uint64_t *args, const void *payload, int to_heap);

/* From a handler: a free slot now, or held; never a wait. Behind messages
 * already held for pe, so that order holds. */
static inline int gk__inbox_send_nowait(const struct gk__inbox_pes *pes, int pe,
                                        const struct gk__net_am *msg, const uint64_t *args,
                                        const void *payload, int to_heap)
{
    if (atomic_load_explicit(&gk__inbox_peers[pe].n_deferred, memory_order_acquire) == 0) {
        int status = gk__inbox_try_send(&pes->peers[pe], pe, msg, args, payload, to_heap);
        if (status != GK__NET_AM_FULL)
            return status;
    }
    return gk__inbox_defer(pes, pe, msg, args, payload, to_heap);
}

/* ------------------------------------------------------------------------ */
/* Messages held for full inboxes                                           */
/* ------------------------------------------------------------------------ */

/* Non-zero while this PE holds messages for any full inbox. */
static inline int gk__inbox_holding(const char *seg_base)
{
    return atomic_load_explicit(&gk__ring_ctl(seg_base)->held, memory_order_relaxed) != 0;
}

/* Non-zero while other PEs hold messages for this PE's inbox. */
static inline int gk__inbox_backlog(const char *seg_base)
{
    return atomic_load_explicit(&gk__ring_ctl(seg_base)->backlog, memory_order_relaxed) != 0;
}

/* Sends what fits of what this PE holds, for every peer; never waits. */
void gk__inbox_flush_held(const struct gk__inbox_pes *pes);

/* Outside a handler: waits until everything held for pe is sent (the room
 * comes from pe's progress: the wait polls), or for every peer. */
int gk__inbox_drain(const struct gk__inbox_pes *pes, int pe);
int gk__inbox_drain_all(const struct gk__inbox_pes *pes);

/* Whether a target this PE holds messages for has room now: for a holder
 * about to sleep, which the consumer that makes room wakes only if it
 * sleeps. */
int gk__inbox_room(const struct gk__inbox_pes *pes);

/* After a batch that made room, when gk__inbox_backlog says others hold
 * messages for us: wakes them. */
void gk__inbox_wake_holders(const struct gk__inbox_pes *pes);

/*
 * This PE's part of gk_finalize's count of messages in flight: the
 * messages sent to its inbox, those it consumed, and those it holds or
 * that wait to land in it (shm_inbox.c).
 */
void gk__inbox_tally(const char *seg_base, uint64_t mine[3]);

#endif /* GK_NET_SHM_INBOX_H */

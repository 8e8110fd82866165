/*
 * shm_ring.h: a PE's active-message inbox on the shm transport: a bounded
 * many-producer, one-consumer ring in the PE's segment (mem/segment.h,
 * from 1 MiB), which every PE of the node has mapped.
 *
 * Protocol. A producer takes a ticket t with a fetch-add on `tail`. Slot
 * t % N is free for it once the consumer has released ticket t - N, that
 * is when `released` > t - N; producers keep the last `released` they read
 * and read it again only when their ticket is past what it allows, so in
 * the steady state a message moves one cache line each way, as a flag
 * does. The producer fills the slot and publishes it by storing t + 1 into
 * the slot's sequence word (release); the consumer, at ticket h (`head`,
 * its own), finds the slot ready when that word reads h + 1 (acquire), and
 * when done with it stores released = h + 1. Tickets are taken in order,
 * so the messages of one sender are consumed in the order sent (MPI's
 * non-overtaking rule needs this). Two ways to send: gk__ring_push takes
 * a ticket at once and, if the ring is full, waits for its slot (a wait
 * that polls and runs the waiting PE's own inbox, base/wait.h);
 * gk__ring_try_push takes a ticket only if its slot is free (a
 * compare-and-swap on `tail`), else returns GK__RING_FULL: the form for
 * senders that must not wait (handlers, core/progress.c).
 *
 * The header of a slot carries a check word over its fields: the consumer
 * rejects (and reports) a slot whose check does not match instead of
 * running whatever a stray write left there.
 */
#ifndef GK_NET_SHM_RING_H
#define GK_NET_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/copy.h" /* gk__copy_args, gk__copy_small: the message path's */
#include "mem/segment.h"
#include "net/net.h"

/*
 * Layout of the inbox: the control block, then the slots' headers (320
 * bytes each), then one 4 KiB payload block per slot. A small message fits
 * its header: its payload follows the arguments it uses, so an 8-byte
 * eager message is one cache line on one page; only a payload that does
 * not fit goes to the slot's block.
 *
 * Why 64 slots of 320 bytes (measured, docs/DESIGN-NOTES.md): a message
 * touches its slot's first line, and a ring touches its slots in turn, so
 * the lines of both inboxes of a ping-pong must stay in the L1 cache or
 * every message misses. 224 slots (28 KiB of first lines for two inboxes)
 * made a short AM round trip 0.18 us against 0.13 with 64; and with a
 * 256-byte stride the first lines of 64 slots fall into a quarter of the
 * L1's sets, where a 320-byte stride (5 lines) spreads them over all
 * sets. 64 messages in flight per inbox is the flow-control window;
 * senders beyond it wait, serving their own inbox (handlers never wait:
 * core/progress.c defers what they send to a full inbox).
 */
#define GK__RING_CTL_SIZE ((size_t)4096)
#define GK__RING_SLOTS ((size_t)64)
#define GK__RING_HEADER_SIZE ((size_t)320)
#define GK__RING_BLOCK_SIZE ((size_t)4096)
#define GK__RING_HEADERS_AT GK__RING_CTL_SIZE
#define GK__RING_BLOCKS_AT                                                     \
    (GK__RING_HEADERS_AT + (GK__RING_SLOTS * GK__RING_HEADER_SIZE + 4095) / 4096 * 4096)
#define GK__RING_MAX_ARGS GK__NET_AM_MAX_ARGS
#define GK__RING_MAX_PAYLOAD GK__NET_AM_MAX_PAYLOAD
#define GK__RING_MAGIC 0x676b524eu /* "gkRN" */

struct gk__ring_ctl {
    _Alignas(64) _Atomic uint64_t tail; /* next ticket, taken by producers */
    _Alignas(64) _Atomic uint64_t head; /* next ticket to consume (consumer only) */
    _Alignas(64) _Atomic uint64_t released; /* tickets below it are free again */
    /* Messages handlers sent to a full inbox, kept until it has room
     * (core/progress.c): how many the owner holds for other inboxes
     * (written by the owner, read by senders before a request), and how
     * many others hold for this one (written by them, read by the owner
     * after it consumed, to wake them). */
    _Alignas(64) _Atomic uint64_t held;
    _Atomic uint64_t backlog;
    uint32_t magic;
    uint32_t n_slots;
};

struct gk__ring_slot {
    _Atomic uint64_t seq;
    uint64_t check;
    struct gk__net_am msg;
    uint64_t args[GK__RING_MAX_ARGS];
    /* Room for a small payload, which starts right after the nargs used. */
    unsigned char inline_room[GK__RING_HEADER_SIZE - 16 - sizeof(struct gk__net_am) -
                              GK__RING_MAX_ARGS * sizeof(uint64_t)];
};
_Static_assert(sizeof(struct gk__ring_slot) == GK__RING_HEADER_SIZE, "slot header");
_Static_assert((GK__RING_SLOTS & (GK__RING_SLOTS - 1)) == 0, "ticket % slots is a mask");
_Static_assert(sizeof(struct gk__ring_ctl) <= GK__RING_CTL_SIZE, "ring control");
_Static_assert(GK__NET_AM_MAX_PAYLOAD == GK__RING_BLOCK_SIZE, "a medium payload fits a block");
_Static_assert(GK__RING_BLOCKS_AT + GK__RING_SLOTS * GK__RING_BLOCK_SIZE <= GK__SEG_INBOX_SIZE,
               "the inbox fits its part of the segment");

/*
 * After the blocks, to the end of the inbox's part of the segment: one bit
 * per PE that holds messages for this inbox and reaches it only through a
 * transport (core/progress.c). The owner cannot look at such a PE's
 * sleepers after it made room, so it wakes the PEs whose bit is set; each
 * sets and clears its own bit with the transport's atomics. The segment
 * reserves the words of the job's PEs only (gk__seg_inbox_used), and
 * nothing touches the others.
 */
#define GK__RING_HOLDERS_AT (GK__RING_BLOCKS_AT + GK__RING_SLOTS * GK__RING_BLOCK_SIZE)
#define GK__RING_HOLDERS_MAX_PES ((GK__SEG_INBOX_SIZE - GK__RING_HOLDERS_AT) * 8)
_Static_assert(GK__RING_HOLDERS_AT == GK__SEG_INBOX_FIXED,
               "the holders' bitmap is where the segment reserves it");

/* Initializes this PE's own (not yet shared) inbox in its segment. */
void gk__ring_init(char *seg_base);

/*
 * Sends `msg` with its msg->nargs `args` and msg->nbytes (<=
 * GK__RING_MAX_PAYLOAD) of payload to the inbox of the segment mapped at
 * `seg_base`; while the slot is taken, waits as gk__wait_poll does
 * (base/wait.h: running this PE's inbox, then napping). Wakes the
 * segment's owner if it sleeps. *released_seen is the
 * sender's cache of the inbox's `released` (0 at start; any thread of the
 * sender may share it); *next_ticket is set to the ticket after this
 * message's, a guess at the next one's slot.
 */
int gk__ring_push(char *seg_base, const struct gk__net_am *msg, const uint64_t *args,
                  const void *payload, _Atomic uint64_t *released_seen,
                  _Atomic uint64_t *next_ticket);

/* gk__ring_try_push's answer when no slot is free: nothing was sent. */
#define GK__RING_FULL GK__NET_AM_FULL

/*
 * As gk__ring_push, but never waits: GK_OK once sent, GK__RING_FULL when
 * the slot the next ticket needs is still taken.
 */
int gk__ring_try_push(char *seg_base, const struct gk__net_am *msg, const uint64_t *args,
                      const void *payload, _Atomic uint64_t *released_seen,
                      _Atomic uint64_t *next_ticket);

/*
 * The consumer side, on this PE's own inbox: the next message if one is
 * ready (NULL otherwise), taken off the ring but not yet freed, so its
 * payload (*payload_p) stays valid until gk__ring_release(). *valid_p says
 * whether its check word matched.
 */
struct gk__ring_slot *gk__ring_take(char *seg_base, uint64_t *ticket_p, int *valid_p,
                                    void **payload_p);
void gk__ring_release(char *seg_base, uint64_t ticket);
static inline struct gk__ring_ctl *gk__ring_ctl(const char *seg_base)
{
    return (struct gk__ring_ctl *)(seg_base + GK__SEG_INBOX_OFFSET);
}

/* The word of the holders' bitmap that holds PE pe's bit, as an offset
 * into the segment (for the transport's atomics) and here. */
static inline size_t gk__ring_holders_word(int pe)
{
    return GK__SEG_INBOX_OFFSET + GK__RING_HOLDERS_AT + (size_t)(pe / 64) * 8;
}

static inline _Atomic uint64_t *gk__ring_holders(char *seg_base)
{
    return (_Atomic uint64_t *)(void *)(seg_base + gk__ring_holders_word(0));
}

static inline struct gk__ring_slot *gk__ring_slot(const char *seg_base, uint64_t ticket)
{
    return (struct gk__ring_slot *)(seg_base + GK__SEG_INBOX_OFFSET + GK__RING_HEADERS_AT +
                                    (ticket % GK__RING_SLOTS) * GK__RING_HEADER_SIZE);
}

/* Non-zero when a message is ready: the cheap test of every spin loop
 * (two loads of lines that stay in this PE's cache until a message comes). */
static inline int gk__ring_ready(const char *seg_base)
{
    uint64_t head = atomic_load_explicit(&gk__ring_ctl(seg_base)->head, memory_order_relaxed);
    return atomic_load_explicit(&gk__ring_slot(seg_base, head)->seq, memory_order_acquire) ==
           head + 1;
}


#endif /* GK_NET_SHM_RING_H */

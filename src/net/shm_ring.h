/*
 * shm_ring.h: a PE's active-message inbox on the shm transport: a bounded
 * many-producer, one-consumer ring in the PE's segment (mem/segment.h,
 * [1 MiB, 2 MiB)), which every PE of the node has mapped.
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
 * non-overtaking rule needs this); a full ring makes producers wait for
 * their slot, not fail, and the caller's `while_full` callback runs the
 * waiting PE's own inbox meanwhile (two PEs flooding each other cannot
 * deadlock).
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
 * Layout of the inbox: the control block, then the slots' headers packed
 * densely (256 bytes each), then one 4 KiB payload block per slot. A small
 * message fits its header: its payload follows the arguments it uses, so
 * an 8-byte eager message is one cache line on one page; only a payload
 * that does not fit goes to the slot's block.
 */
#define GK__RING_CTL_SIZE ((size_t)4096)
#define GK__RING_SLOTS ((size_t)224)
#define GK__RING_HEADER_SIZE ((size_t)256)
#define GK__RING_BLOCK_SIZE ((size_t)4096)
#define GK__RING_HEADERS_AT GK__RING_CTL_SIZE
#define GK__RING_BLOCKS_AT                                                     \
    (GK__RING_HEADERS_AT + (GK__RING_SLOTS * GK__RING_HEADER_SIZE + 4095) / 4096 * 4096)
#define GK__RING_MAX_ARGS 16
#define GK__RING_MAX_PAYLOAD GK__RING_BLOCK_SIZE
#define GK__RING_MAGIC 0x676b524eu /* "gkRN" */

struct gk__ring_ctl {
    _Alignas(64) _Atomic uint64_t tail; /* next ticket, taken by producers */
    _Alignas(64) _Atomic uint64_t head; /* next ticket to consume (consumer only) */
    _Alignas(64) _Atomic uint64_t released; /* tickets below it are free again */
    uint32_t magic;
    uint32_t n_slots;
};

/* What a message says, apart from its payload. */
struct gk__ring_msg {
    uint32_t src;     /* sending PE */
    uint16_t handler; /* handler index */
    uint8_t nargs;
    uint8_t flags;       /* the sender's kind bits (core/progress.h) */
    uint64_t nbytes;     /* payload bytes (in the slot, or at dst_offset) */
    uint64_t dst_offset; /* long messages: where the payload went (heap offset) */
    uint64_t args[GK__RING_MAX_ARGS];
};

struct gk__ring_slot {
    _Atomic uint64_t seq;
    uint64_t check;
    struct gk__ring_msg msg;
    /* Room for a small payload, which starts right after the nargs used. */
    unsigned char inline_room[GK__RING_HEADER_SIZE - 16 - sizeof(struct gk__ring_msg)];
};
_Static_assert(sizeof(struct gk__ring_slot) == GK__RING_HEADER_SIZE, "slot header");
_Static_assert(sizeof(struct gk__ring_ctl) <= GK__RING_CTL_SIZE, "ring control");
_Static_assert(GK__RING_BLOCKS_AT + GK__RING_SLOTS * GK__RING_BLOCK_SIZE <= GK__SEG_INBOX_SIZE,
               "the inbox fits its part of the segment");

/* Initializes this PE's own (not yet shared) inbox in its segment. */
void gk__ring_init(char *seg_base);

/*
 * Sends `msg` with `nbytes` (<= GK__RING_MAX_PAYLOAD, already in msg) of
 * payload to the inbox of `peer`; while the slot is taken, calls
 * while_full() between backoffs. Wakes the peer if it sleeps.
 * *released_seen is the sender's cache of the peer's `released` (0 at
 * start; any thread of the sender may share it).
 */
int gk__ring_push(struct gk__net_peer *peer, const struct gk__ring_msg *msg,
                  const void *payload, int (*while_full)(void),
                  _Atomic uint64_t *released_seen);

/*
 * The consumer side, on this PE's own inbox: the next message if one is
 * ready (NULL otherwise), taken off the ring but not yet freed, so its
 * payload (*payload_p) stays valid until gk__ring_release(). *valid_p says
 * whether its check word matched.
 */
struct gk__ring_slot *gk__ring_take(char *seg_base, uint64_t *ticket_p, int *valid_p,
                                    void **payload_p);
void gk__ring_release(char *seg_base, uint64_t ticket);
/* Non-zero when a message is ready (a cheap test for waits). */
int gk__ring_ready(const char *seg_base);


#endif /* GK_NET_SHM_RING_H */

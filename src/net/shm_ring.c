/*
 * shm_ring.c: the active-message inbox ring (protocol in shm_ring.h).
 */
#include "net/shm_ring.h"

#include <string.h>

#include "base/wait.h"
#include "net/shm.h"
#include "gasket.h"

/* Where a slot's payload lives: after its arguments if it fits, else in
 * the slot's own block. Producer and consumer compute the same. */
static char *ring_payload(char *seg_base, uint64_t ticket, struct gk__ring_slot *slot,
                          unsigned nargs, uint64_t nbytes)
{
    size_t inline_at = offsetof(struct gk__ring_slot, args) + nargs * sizeof(uint64_t);
    if (inline_at + nbytes <= GK__RING_HEADER_SIZE)
        return (char *)slot + inline_at;
    return seg_base + GK__SEG_INBOX_OFFSET + GK__RING_BLOCKS_AT +
           (ticket % GK__RING_SLOTS) * GK__RING_BLOCK_SIZE;
}

/*
 * A check over the header's fields and the ticket: a stray write (or a
 * slot from another lap) is caught, not executed. The arguments and the
 * payload are the sender's data, like a put's, and are not covered.
 */
static uint64_t ring_check(uint64_t ticket, const struct gk__net_am *msg)
{
    uint64_t h = msg->word ^ (msg->nbytes * 0x9e3779b97f4a7c15ULL) ^ (msg->dst_offset << 1) ^
                 (ticket * 0xff51afd7ed558ccdULL) ^ GK__RING_MAGIC;
    return h ^ (h >> 29);
}

void gk__ring_init(char *seg_base)
{
    struct gk__ring_ctl *ctl = gk__ring_ctl(seg_base);
    atomic_store_explicit(&ctl->tail, 0, memory_order_relaxed);
    atomic_store_explicit(&ctl->head, 0, memory_order_relaxed);
    atomic_store_explicit(&ctl->released, 0, memory_order_relaxed);
    atomic_store_explicit(&ctl->held, 0, memory_order_relaxed);
    atomic_store_explicit(&ctl->backlog, 0, memory_order_relaxed);
    ctl->magic = GK__RING_MAGIC;
    ctl->n_slots = (uint32_t)GK__RING_SLOTS;
    for (uint64_t i = 0; i < GK__RING_SLOTS; i++)
        atomic_store_explicit(&gk__ring_slot(seg_base, i)->seq, 0, memory_order_relaxed);
}

/*
 * Fills ticket's slot (free: its previous lap is released) and publishes
 * it, then wakes the segment's owner if it sleeps.
 */
static void ring_fill(char *seg_base, uint64_t ticket, const struct gk__net_am *msg,
                      const uint64_t *args, const void *payload)
{
    struct gk__ring_slot *slot = gk__ring_slot(seg_base, ticket);
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer cannot see the consumer (another process) order the
     * producer of ticket - N before us; the slot's sequence word, which
     * that producer stored with release and nobody else writes, shows it.
     * Only in that build: it would cost the line a second transfer. */
    (void)atomic_load_explicit(&slot->seq, memory_order_acquire);
#endif
    /* A word at a time (the empty asm keeps the compiler from pairing the
     * loads into one 16-byte load, which the sender's separate 8-byte
     * stores could not forward to). */
    uint64_t word = msg->word, nbytes = msg->nbytes, dst_offset = msg->dst_offset;
    __asm__("" : "+r"(word), "+r"(nbytes), "+r"(dst_offset));
    slot->msg.word = word;
    slot->msg.nbytes = nbytes;
    slot->msg.dst_offset = dst_offset;
    gk__copy_args(slot->args, args, msg->nargs);
    if (payload != NULL && msg->nbytes > 0)
        gk__copy_small(ring_payload(seg_base, ticket, slot, msg->nargs, msg->nbytes),
                       payload, msg->nbytes);
    slot->check = ring_check(ticket, msg);
    /* Publish with a seq_cst exchange: it is the full fence the wake-up
     * check below needs (base/wait.h), in the same instruction. A sleeping
     * target waits in some wait of its own, watching some word: every
     * message wakes every sleeper, which then runs its inbox. */
    atomic_exchange_explicit(&slot->seq, ticket + 1, memory_order_seq_cst);
    struct gk__wake *wake = &gk__shm_header_at(seg_base)->wake;
    if (atomic_load_explicit(&wake->sleepers, memory_order_seq_cst) != 0)
        gk__wake_all(wake);
}

/* Only ever raise the sender's cache of `released` (other threads of ours
 * may share it); its release/acquire pass on what the consumer's release
 * told us. */
static void ring_remember_released(_Atomic uint64_t *released_seen, uint64_t released)
{
    uint64_t seen = atomic_load_explicit(released_seen, memory_order_relaxed);
    while (seen < released &&
           !atomic_compare_exchange_weak_explicit(released_seen, &seen, released,
                                                  memory_order_release,
                                                  memory_order_relaxed)) {
    }
}

/* The slot of a sender's ticket is free; released: what it last read. */
struct ring_room {
    struct gk__ring_ctl *ctl;
    uint64_t ticket;
    uint64_t released;
};

static int ring_room(const void *arg)
{
    struct ring_room *room = (struct ring_room *)arg; /* gk__ring_push's own */
    room->released = atomic_load_explicit(&room->ctl->released, memory_order_acquire);
    return room->ticket < room->released + GK__RING_SLOTS;
}

int gk__ring_push(char *seg_base, const struct gk__net_am *msg, const uint64_t *args,
                  const void *payload, _Atomic uint64_t *released_seen,
                  _Atomic uint64_t *next_ticket)
{
    struct gk__ring_ctl *ctl = gk__ring_ctl(seg_base);
    uint64_t ticket = atomic_fetch_add_explicit(&ctl->tail, 1, memory_order_relaxed);
    atomic_store_explicit(next_ticket, ticket + 1, memory_order_relaxed);
    /* Our slot is free once ticket - N is released: ask the consumer's
     * counter only when our cached copy does not already say so. Nobody
     * wakes a sender when the consumer frees slots: the wait polls. */
    uint64_t released = atomic_load_explicit(released_seen, memory_order_acquire);
    if (ticket >= released + GK__RING_SLOTS) {
        struct ring_room room = {ctl, ticket, released};
        if (!ring_room(&room)) {
            int status = gk__wait_poll(ring_room, &room);
            if (status != GK_OK)
                return status;
        }
        released = room.released;
    }
    ring_remember_released(released_seen, released);
    ring_fill(seg_base, ticket, msg, args, payload);
    return GK_OK;
}

int gk__ring_try_push(char *seg_base, const struct gk__net_am *msg, const uint64_t *args,
                      const void *payload, _Atomic uint64_t *released_seen,
                      _Atomic uint64_t *next_ticket)
{
    struct gk__ring_ctl *ctl = gk__ring_ctl(seg_base);
    uint64_t ticket = atomic_load_explicit(&ctl->tail, memory_order_relaxed);
    uint64_t released = atomic_load_explicit(released_seen, memory_order_acquire);
    /* Take ticket only while its slot is free; a producer that took a
     * ticket past the free ones (gk__ring_push) is ahead of us and waits. */
    do {
        if (ticket >= released + GK__RING_SLOTS) {
            released = atomic_load_explicit(&ctl->released, memory_order_acquire);
            if (ticket >= released + GK__RING_SLOTS)
                return GK__RING_FULL;
        }
    } while (!atomic_compare_exchange_weak_explicit(&ctl->tail, &ticket, ticket + 1,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
    atomic_store_explicit(next_ticket, ticket + 1, memory_order_relaxed);
    ring_remember_released(released_seen, released);
    ring_fill(seg_base, ticket, msg, args, payload);
    return GK_OK;
}

struct gk__ring_slot *gk__ring_take(char *seg_base, uint64_t *ticket_p, int *valid_p,
                                    void **payload_p)
{
    struct gk__ring_ctl *ctl = gk__ring_ctl(seg_base);
    uint64_t ticket = atomic_load_explicit(&ctl->head, memory_order_relaxed);
    struct gk__ring_slot *slot = gk__ring_slot(seg_base, ticket);
    if (atomic_load_explicit(&slot->seq, memory_order_acquire) != ticket + 1)
        return NULL;
    atomic_store_explicit(&ctl->head, ticket + 1, memory_order_relaxed);
    *ticket_p = ticket;
    *valid_p = slot->msg.nargs <= GK__RING_MAX_ARGS &&
               slot->check == ring_check(ticket, &slot->msg);
    *payload_p = *valid_p && slot->msg.nbytes <= GK__RING_MAX_PAYLOAD
                     ? ring_payload(seg_base, ticket, slot, slot->msg.nargs, slot->msg.nbytes)
                     : NULL;
    return slot;
}

void gk__ring_release(char *seg_base, uint64_t ticket)
{
    /* The consumer releases in ticket order: one counter says it all. */
    atomic_store_explicit(&gk__ring_ctl(seg_base)->released, ticket + 1, memory_order_release);
}

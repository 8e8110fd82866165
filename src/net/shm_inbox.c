/*
 * shm_inbox.c: sending to a PE's inbox (shm_inbox.h) and the flow control
 * around it: the messages a PE holds for full inboxes, the bounds on them,
 * and the wake-ups that tell their holders there is room. Why handlers
 * never wait, and so why messages are held at all: core/progress.c.
 *
 * A message sent from inside a handler takes a free slot if there is one
 * and is otherwise held: copied to a per-target queue here, and sent in
 * order, before anything else this PE sends to that target, by the next
 * progress call that finds room. Waits run progress, so the queue drains
 * as soon as the target consumes.
 *
 * What bounds the queues, and who waits. Each inbox's control block
 * (shm_ring.h) counts the messages its owner holds for other inboxes
 * (`held`) and those others hold for it (`backlog`). A sender outside a
 * handler that finds its target holding more than HELD_HIGH waits, running
 * its own inbox, until the target holds HELD_LOW or fewer. So a PE that
 * floods another faster than what its handlers send can leave (replies
 * to a PE that does not run, or requests passed on to one that computes)
 * is held back where it floods, and a queue holds what was in flight, not
 * the length of the flood. A sender outside a handler also runs its own
 * inbox before each message it sends (two loads when empty), so a PE that
 * floods others takes in their replies as it goes (core/progress.c).
 *
 * A PE that holds messages still sleeps in its waits, and is woken when
 * they can go: the owner of an inbox others hold messages for wakes the
 * sleepers of the node's PEs after each batch it consumes, and a holder
 * about to sleep first looks whether a target it holds for has room
 * (gk__inbox_room: the wake-up protocol of base/wait.h, with the consumer
 * as the poster).
 *
 * Peers reached only through a transport (not mapped here: on another
 * host). Everything above holds for them, through the contract (net.h):
 *  - a message goes by the transport's am_send (a long one whose
 *    payload travels with it, am_send_long); one that answers
 *    GK__NET_AM_FULL is retried after progress outside a handler and
 *    held inside one, in the same per-target queue, its payload
 *    copied;
 *  - the target's counts are words of its segment: a holder adds itself
 *    to the target's `backlog` and sets its bit in the target's holders'
 *    bitmap (shm_ring.h) with the transport's atomics when it starts
 *    holding for it, and undoes both when its queue there is empty; the
 *    owner, after a batch, wakes the PEs whose bit is set with the
 *    transport's wake (it cannot look at their sleepers);
 *  - a holder about to sleep cannot look at such a target's ring, so it
 *    tries to send instead, after it announced itself as a sleeper: either
 *    that finds the room, or the owner's release came after, and then the
 *    owner sees our bit (set, complete, before we announced) and our
 *    announcement, and wakes us;
 *  - a sender outside a handler reads the target's `held` with a get, not
 *    at each message (a get there is a round trip, served by the target's
 *    progress thread where the network has no remote memory access):
 *    every HELD_CHECK_MIN messages while the target holds any, and half
 *    as often after each look that finds it holding none, down to every
 *    HELD_CHECK_MAX. So such a target holds at most about HELD_HIGH +
 *    HELD_CHECK_MAX messages more per sender, and one that holds none,
 *    the usual case, costs a get per HELD_CHECK_MAX messages.
 */
#include "net/shm_inbox.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "base/wait.h"
#include "net/shm.h"
#include "gasket.h"

struct gk__inbox_peer *gk__inbox_peers;

/* A message a handler sent to a full inbox, kept until it fits. */
struct gk__inbox_held {
    struct gk__inbox_held *next;
    int has_payload; /* a medium message's, or a long one's that travels with it */
    int to_heap;     /* the long one's */
    struct gk__net_am msg;
    uint64_t args[GK__RING_MAX_ARGS];
    unsigned char payload[]; /* msg.nbytes of it */
};
static pthread_mutex_t deferred_lock = PTHREAD_MUTEX_INITIALIZER;
#define HELD_HIGH GK__INBOX_HELD_HIGH
#define HELD_LOW 64
#define HELD_CHECK_MIN 32u
#define HELD_CHECK_MAX GK__INBOX_HELD_CHECK_MAX

/* A word of an inbox's control block, as an offset into its segment (for
 * peers reached through their transport). */
#define RING_CTL_WORD(field) (GK__SEG_INBOX_OFFSET + offsetof(struct gk__ring_ctl, field))

/* How many messages this PE holds for others: in its inbox's control
 * block, where senders read it. */
static _Atomic uint64_t *my_held(const struct gk__inbox_pes *pes)
{
    return &gk__ring_ctl(pes->seg_base)->held;
}

static size_t inbox_peers_bytes;

static void inbox_peers_free(void)
{
    if (gk__inbox_peers != NULL)
        munmap(gk__inbox_peers, inbox_peers_bytes);
    gk__inbox_peers = NULL;
    inbox_peers_bytes = 0;
}

int gk__inbox_init(char *seg_base, int n_pes)
{
    gk__ring_init(seg_base);
    size_t holders =
        (size_t)n_pes < GK__RING_HOLDERS_MAX_PES ? (size_t)n_pes : GK__RING_HOLDERS_MAX_PES;
    for (size_t w = 0; w < (holders + 63) / 64; w++)
        atomic_store_explicit(&gk__ring_holders(seg_base)[w], 0, memory_order_relaxed);
    inbox_peers_free();
    /* Mapped, not malloc'd: a page of it becomes resident only once this
     * PE has sent to a PE it covers, so a large job's PE that talks to a
     * few neighbours does not carry a record for every PE. */
    size_t bytes = (size_t)n_pes * sizeof(*gk__inbox_peers);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return GK_ERR_NOMEM;
    gk__inbox_peers = p;
    inbox_peers_bytes = bytes;
    return GK_OK;
}

void gk__inbox_poll_words(const char *seg_base, const uint64_t **head_p, const char **seq_p,
                          uint64_t *mask_p, size_t *stride_p)
{
    *head_p = (const uint64_t *)&gk__ring_ctl(seg_base)->head;
    *seq_p = (const char *)&gk__ring_slot(seg_base, 0)->seq;
    *mask_p = GK__RING_SLOTS - 1;
    *stride_p = GK__RING_HEADER_SIZE;
}

/*
 * This PE starts (holding 1) or stops holding messages for pe, which is
 * reached through its transport: pe's backlog and our bit in its holders'
 * bitmap (top comment). Fetching atomics: complete on return, so the send
 * this PE tries before it sleeps comes after them. deferred_lock held.
 */
static void holder_mark(const struct gk__inbox_pes *pes, int pe, int holding)
{
    struct gk__net_peer *peer = &pes->peers[pe];
    int me = pes->me;
    uint64_t old = 0, bit = UINT64_C(1) << (me % 64);
    int status = GK_OK;
    if ((size_t)me < GK__RING_HOLDERS_MAX_PES) /* else our bounded sleeps must do */
        status = peer->transport->atomic(peer, holding ? GK__AMO_FETCH_OR : GK__AMO_FETCH_AND,
                                         8, gk__ring_holders_word(me), holding ? bit : ~bit, 0,
                                         &old);
    if (status == GK_OK)
        status = peer->transport->atomic(peer, GK__AMO_FETCH_ADD, 8, RING_CTL_WORD(backlog),
                                         holding ? 1 : UINT64_MAX, 0, &old);
    if (status != GK_OK)
        gk__error("active messages held for PE %d: telling it so failed (%s); it may not "
                  "wake this PE when it has room",
                  pe, gk_strerror(status));
}

/* Sends what is queued for pe while it fits; deferred_lock held. */
static void deferred_flush_locked(const struct gk__inbox_pes *pes, int pe)
{
    struct gk__inbox_peer *seen = &gk__inbox_peers[pe];
    struct gk__net_peer *peer = &pes->peers[pe];
    struct gk__inbox_held *d;
    int status;
    while ((d = seen->deferred_head) != NULL &&
           (status = gk__inbox_try_send(peer, pe, &d->msg, d->args,
                                        d->has_payload ? d->payload : NULL, d->to_heap)) !=
               GK__NET_AM_FULL) {
        if (status != GK_OK) /* it can never go: drop it rather than retry forever */
            gk__error("active message to PE %d (handler %u), held until it had room: its "
                      "transport (%s) failed to send it (%s); it is lost",
                      pe, d->msg.handler, peer->transport->name, gk_strerror(status));
        seen->deferred_head = d->next;
        if (seen->deferred_head == NULL)
            seen->deferred_tail = NULL;
        free(d);
        if (peer->direct != NULL)
            atomic_fetch_sub_explicit(&gk__ring_ctl(peer->direct)->backlog, 1,
                                      memory_order_relaxed);
        atomic_fetch_sub_explicit(my_held(pes), 1, memory_order_relaxed);
        /* Release: a handler that reads 0 (acquire) takes its ticket after
         * the one this message took. */
        if (atomic_fetch_sub_explicit(&seen->n_deferred, 1, memory_order_release) == 1 &&
            peer->direct == NULL)
            holder_mark(pes, pe, 0);
    }
}

void gk__inbox_flush_held(const struct gk__inbox_pes *pes)
{
    pthread_mutex_lock(&deferred_lock);
    for (int pe = 0; pe < pes->n_pes; pe++)
        if (atomic_load_explicit(&gk__inbox_peers[pe].n_deferred, memory_order_relaxed) != 0)
            deferred_flush_locked(pes, pe);
    pthread_mutex_unlock(&deferred_lock);
}

/* What gk__inbox_drain's wait polls: our table and the peer. */
struct drain {
    const struct gk__inbox_pes *pes;
    int pe;
};

static int deferred_flushed(const void *arg)
{
    const struct drain *drain = arg;
    int pe = drain->pe;
    pthread_mutex_lock(&deferred_lock);
    deferred_flush_locked(drain->pes, pe);
    pthread_mutex_unlock(&deferred_lock);
    return atomic_load_explicit(&gk__inbox_peers[pe].n_deferred, memory_order_acquire) == 0;
}

int gk__inbox_drain(const struct gk__inbox_pes *pes, int pe)
{
    struct drain drain = {pes, pe};
    return deferred_flushed(&drain) ? GK_OK : gk__wait_poll(deferred_flushed, &drain);
}

int gk__inbox_drain_all(const struct gk__inbox_pes *pes)
{
    int status = GK_OK;
    for (int pe = 0; pe < pes->n_pes && status == GK_OK; pe++)
        if (atomic_load_explicit(&gk__inbox_peers[pe].n_deferred, memory_order_relaxed) != 0)
            status = gk__inbox_drain(pes, pe);
    return status;
}

int gk__inbox_defer(const struct gk__inbox_pes *pes, int pe, const struct gk__net_am *msg,
                    const uint64_t *args, const void *payload, int to_heap)
{
    size_t payload_bytes = payload != NULL ? (size_t)msg->nbytes : 0;
    struct gk__inbox_held *d = malloc(sizeof(*d) + payload_bytes);
    if (d == NULL) {
        gk__error("active message to PE %d (handler %u): out of memory keeping it until "
                  "PE %d's inbox has room",
                  pe, msg->handler, pe);
        return GK_ERR_NOMEM;
    }
    d->next = NULL;
    d->has_payload = payload != NULL;
    d->to_heap = to_heap;
    d->msg = *msg;
    if (msg->nargs > 0) /* args may be NULL without them */
        memcpy(d->args, args, (size_t)msg->nargs * sizeof(uint64_t));
    if (payload_bytes > 0)
        memcpy(d->payload, payload, payload_bytes);
    struct gk__inbox_peer *seen = &gk__inbox_peers[pe];
    struct gk__net_peer *peer = &pes->peers[pe];
    pthread_mutex_lock(&deferred_lock);
    if (seen->deferred_tail == NULL)
        seen->deferred_head = d;
    else
        seen->deferred_tail->next = d;
    seen->deferred_tail = d;
    uint64_t before = atomic_fetch_add_explicit(&seen->n_deferred, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(my_held(pes), 1, memory_order_relaxed);
    if (peer->direct != NULL)
        atomic_fetch_add_explicit(&gk__ring_ctl(peer->direct)->backlog, 1,
                                  memory_order_relaxed);
    else if (before == 0)
        holder_mark(pes, pe, 1);
    pthread_mutex_unlock(&deferred_lock);
    return GK_OK;
}

static int held_low(const void *arg)
{
    return atomic_load_explicit((const _Atomic uint64_t *)arg, memory_order_relaxed) <=
           HELD_LOW;
}

/* Sends what fits of what is queued for pe; whether anything went. */
static int deferred_flush_some(const struct gk__inbox_pes *pes, int pe)
{
    _Atomic uint64_t *n = &gk__inbox_peers[pe].n_deferred;
    pthread_mutex_lock(&deferred_lock);
    uint64_t before = atomic_load_explicit(n, memory_order_relaxed);
    deferred_flush_locked(pes, pe);
    int sent = atomic_load_explicit(n, memory_order_relaxed) < before;
    pthread_mutex_unlock(&deferred_lock);
    return sent;
}

int gk__inbox_room(const struct gk__inbox_pes *pes)
{
    if (atomic_load_explicit(my_held(pes), memory_order_relaxed) == 0)
        return 0;
    for (int pe = 0; pe < pes->n_pes; pe++) {
        if (atomic_load_explicit(&gk__inbox_peers[pe].n_deferred, memory_order_relaxed) == 0)
            continue;
        if (pes->peers[pe].direct == NULL) {
            /* Its ring is not ours to look at: the send is the look (top
             * comment). */
            if (deferred_flush_some(pes, pe))
                return 1;
            continue;
        }
        const struct gk__ring_ctl *ctl = gk__ring_ctl(pes->peers[pe].direct);
        uint64_t tail = atomic_load_explicit(&ctl->tail, memory_order_acquire);
        if (tail < atomic_load_explicit(&ctl->released, memory_order_acquire) + GK__RING_SLOTS)
            return 1;
    }
    return 0;
}

/*
 * We made room: wake the node's sleepers (we do not know which mapped PEs
 * hold messages for us), and the PEs reached through a transport whose
 * bit says they hold some.
 */
void gk__inbox_wake_holders(const struct gk__inbox_pes *pes)
{
    atomic_thread_fence(memory_order_seq_cst); /* our releases, then their sleepers */
    for (int pe = 0; pe < pes->n_pes; pe++) {
        struct gk__net_peer *peer = &pes->peers[pe];
        if (peer->direct != NULL && gk__shm_sleepers(peer))
            gk__wake_all(&gk__shm_header(peer)->wake);
    }
    _Atomic uint64_t *holders = gk__ring_holders(pes->seg_base);
    size_t n = (size_t)pes->n_pes;
    for (size_t w = 0; w < (n + 63) / 64 && w * 64 < GK__RING_HOLDERS_MAX_PES; w++) {
        uint64_t bits = atomic_load_explicit(&holders[w], memory_order_relaxed);
        for (; bits != 0; bits &= bits - 1) {
            struct gk__net_peer *peer = &pes->peers[w * 64 + (size_t)__builtin_ctzll(bits)];
            /* Whatever word it sleeps on. */
            if (peer->direct == NULL)
                (void)peer->transport->wake(peer, 0, UINT64_MAX);
        }
    }
}

/* A message to a peer reached through its transport, and the transport's
 * answer once it is not GK__NET_AM_FULL. */
struct remote_send {
    struct gk__net_peer *peer;
    int pe;
    const struct gk__net_am *msg;
    const uint64_t *args;
    const void *payload;
    int to_heap;
    int status;
};

static int remote_sent(const void *arg)
{
    struct remote_send *send = (struct remote_send *)arg; /* am_send_remote's own */
    send->status = gk__inbox_try_send(send->peer, send->pe, send->msg, send->args,
                                      send->payload, send->to_heap);
    return send->status != GK__NET_AM_FULL;
}

/*
 * To a peer that is not mapped here, outside a handler: its transport's
 * send. One that queues (ucx) never says full; one that does is retried
 * as a wait polls, running this PE's inbox, until the target has made room
 * (handlers hold instead: gk__inbox_send_nowait).
 */
static int am_send_remote(struct gk__net_peer *peer, int pe, const struct gk__net_am *msg,
                          const uint64_t *args, const void *payload, int to_heap)
{
    struct remote_send send = {peer, pe, msg, args, payload, to_heap, GK__NET_AM_FULL};
    if (remote_sent(&send))
        return send.status;
    int status = gk__wait_poll(remote_sent, &send);
    return status != GK_OK ? status : send.status;
}

/* The held count of a peer reached through its transport (0 if the get
 * fails: it is only a bound, and the failure is the transport's to tell). */
static uint64_t remote_held(struct gk__net_peer *peer)
{
    uint64_t held = 0;
    if (peer->transport->get(peer, &held, RING_CTL_WORD(held), sizeof(held)) != GK_OK)
        return 0;
    return held;
}

static int remote_held_low(const void *arg)
{
    return remote_held((struct gk__net_peer *)arg) <= HELD_LOW;
}

/* The HELD_HIGH rule for such a peer, looked at now and then (top
 * comment). Threads of this PE may share the counts: they are estimates. */
static int remote_held_wait(struct gk__net_peer *peer, int pe)
{
    struct gk__inbox_peer *seen = &gk__inbox_peers[pe];
    uint32_t every = atomic_load_explicit(&seen->held_check_every, memory_order_relaxed);
    if (every == 0)
        every = HELD_CHECK_MIN;
    if (atomic_fetch_add_explicit(&seen->sent_unchecked, 1, memory_order_relaxed) + 1 < every)
        return GK_OK;
    atomic_store_explicit(&seen->sent_unchecked, 0, memory_order_relaxed);
    uint64_t held = remote_held(peer);
    every = held != 0 ? HELD_CHECK_MIN : every < HELD_CHECK_MAX / 2 ? 2 * every : HELD_CHECK_MAX;
    atomic_store_explicit(&seen->held_check_every, every, memory_order_relaxed);
    if (held <= HELD_HIGH)
        return GK_OK;
    return gk__wait_poll(remote_held_low, peer);
}

int gk__inbox_send(struct gk__net_peer *peer, int pe, const struct gk__net_am *msg,
                   const uint64_t *args, const void *payload, int to_heap)
{
    if (peer->direct == NULL) {
        int status = remote_held_wait(peer, pe);
        return status != GK_OK ? status : am_send_remote(peer, pe, msg, args, payload, to_heap);
    }
    _Atomic uint64_t *held = &gk__ring_ctl(peer->direct)->held;
    if (__builtin_expect(atomic_load_explicit(held, memory_order_relaxed) > HELD_HIGH, 0)) {
        int status = gk__wait_poll(held_low, held); /* top comment */
        if (status != GK_OK)
            return status; /* the job is ending */
    }
    struct gk__inbox_peer *seen = &gk__inbox_peers[pe];
    return gk__ring_push(peer->direct, msg, args, payload, &seen->released, &seen->next_ticket);
}

void gk__inbox_tally(const char *seg_base, uint64_t mine[3])
{
    const struct gk__ring_ctl *ctl = gk__ring_ctl(seg_base);
    /* A message sent through a transport that queues (ucx) counts as sent
     * when it leaves, and its ticket on our inbox as the same message
     * arriving, not as another one sent. */
    mine[0] = atomic_load_explicit(&ctl->tail, memory_order_acquire) -
              atomic_load_explicit(&gk__net_am_landed, memory_order_acquire) +
              atomic_load_explicit(&gk__net_am_sent, memory_order_acquire);
    mine[1] = atomic_load_explicit(&ctl->released, memory_order_acquire);
    mine[2] = atomic_load_explicit(&ctl->held, memory_order_acquire) +
              atomic_load_explicit(&gk__net_am_waiting, memory_order_acquire);
}

/*
 * progress.c: the progress engine (see progress.h): the handler table, the
 * inbox loop with its checks of every message before it runs, sending, and
 * the optional progress thread.
 *
 * Threads. Only one thread at a time runs the inbox (consumer_busy); the
 * other simply returns, so the application thread and the progress thread
 * never both consume. A thread that is running handlers does not enter the
 * inbox again (gk__in_handler): handlers are not re-entered.
 *
 * Why nothing waits inside a handler. A sender outside a handler that
 * finds the target's inbox full waits for its slot and runs its own inbox
 * meanwhile, so two PEs flooding each other both keep consuming. A handler
 * cannot run its inbox (it is inside it), so if it waited for room in a
 * full inbox whose owner is itself in a handler sending to us (a reply to
 * each other's requests, or to ourselves), neither would ever move again.
 * So a message sent from inside a handler (a reply, or any request) takes
 * a free slot if there is one and is otherwise deferred: copied to a
 * per-target queue here, and sent in order, before anything else this PE
 * sends to that target, by the next progress call that finds room. Waits
 * run progress, so the queue drains as soon as the target consumes.
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
 * floods others takes in their replies as it goes.
 *
 * A PE that holds messages still sleeps in its waits, and is woken when
 * they can go: the owner of an inbox others hold messages for wakes the
 * sleepers of the node's PEs after each batch it consumes, and a holder
 * about to sleep first looks whether a target it holds for has room
 * (deferred_room: the wake-up protocol of base/wait.h, with the consumer
 * as the poster).
 *
 * Peers reached only through a transport (not mapped here: on another
 * host). Everything above holds for them, through the contract (net.h):
 *  - a message goes by the transport's am_send (a long one whose
 *    payload travels with it, am_send_long); one that answers
 *    GK__NET_AM_FULL is retried after progress outside a handler and
 *    deferred inside one, in the same per-target queue, its payload
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
#include "core/progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/prefetch.h"
#include "base/wait.h"
#include "core/allreduce.h"
#include "core/runtime.h"

/* Atomic: a program may register a handler while the progress thread
 * already runs the inbox. */
static _Atomic(gk_am_handler_t) am_table[GK__AM_TABLE_SIZE];
static atomic_flag consumer_busy = ATOMIC_FLAG_INIT;
_Thread_local int gk__in_handler __attribute__((tls_model("initial-exec")));
/* Per peer, our side of its inbox (shm_ring.h): the last `released` we
 * read, and the ticket after our last message (the slot our next one
 * probably takes). */
struct inbox_seen {
    _Atomic uint64_t released;
    _Atomic uint64_t next_ticket;
    /* Messages deferred to this peer (deferred_lock guards the queue; the
     * count is read without it, as the send path's cheap test). */
    _Atomic uint64_t n_deferred;
    struct deferred *deferred_head, *deferred_tail;
    /* A peer not mapped here: messages sent to it outside handlers since
     * its held count was read, and how many may go before the next read
     * (top comment; 0: HELD_CHECK_MIN). */
    _Atomic uint32_t sent_unchecked;
    _Atomic uint32_t held_check_every;
};
static struct inbox_seen *inbox_seen;

/* A message a handler sent to a full inbox, kept until it fits. */
struct deferred {
    struct deferred *next;
    int has_payload; /* a medium message's, or a long one's that travels with it */
    struct gk__net_am msg;
    uint64_t args[GK__RING_MAX_ARGS];
    unsigned char payload[]; /* msg.nbytes of it */
};
static pthread_mutex_t deferred_lock = PTHREAD_MUTEX_INITIALIZER;
#define HELD_HIGH GK__AM_HELD_HIGH
#define HELD_LOW 64
#define HELD_CHECK_MIN 32u
#define HELD_CHECK_MAX GK__AM_HELD_CHECK_MAX

/* A word of an inbox's control block, as an offset into its segment (for
 * peers reached through their transport). */
#define RING_CTL_WORD(field) (GK__SEG_INBOX_OFFSET + offsetof(struct gk__ring_ctl, field))

/* How many messages this PE holds for others: in its inbox's control
 * block, where senders read it. */
static _Atomic uint64_t *my_held(void)
{
    return &gk__ring_ctl(gk__rt.my_seg.base)->held;
}

static pthread_t progress_thread;
static int progress_running;
static _Atomic int progress_stopping;

int gk__am_set_handler(int index, gk_am_handler_t handler)
{
    if (index < 0 || index >= GK__AM_TABLE_SIZE)
        return GK_ERR_INVALID_ARG;
    atomic_store_explicit(&am_table[index], handler, memory_order_release);
    return GK_OK;
}

gk_am_handler_t gk__am_handler(int index)
{
    return index >= 0 && index < GK__AM_TABLE_SIZE
               ? atomic_load_explicit(&am_table[index], memory_order_acquire)
               : NULL;
}

int gk__progress_init_inbox(char *seg_base, int n_pes)
{
    gk__ring_init(seg_base);
    size_t holders =
        (size_t)n_pes < GK__RING_HOLDERS_MAX_PES ? (size_t)n_pes : GK__RING_HOLDERS_MAX_PES;
    for (size_t w = 0; w < (holders + 63) / 64; w++)
        atomic_store_explicit(&gk__ring_holders(seg_base)[w], 0, memory_order_relaxed);
    free(inbox_seen);
    inbox_seen = calloc((size_t)n_pes, sizeof(*inbox_seen));
    return inbox_seen != NULL ? GK_OK : GK_ERR_NOMEM;
}

/* Rejects what a stray write or a bug could have left: never run it. */
static void *am_check(const struct gk__net_am *msg, int valid)
{
    unsigned kind = msg->flags & GK__AM_KIND_MASK;
    const char *why = NULL;
    if (!valid)
        why = "its header check does not match";
    else if (msg->src >= (uint32_t)gk__rt.n_pes)
        why = "its source PE is out of range";
    else if (msg->handler >= GK__AM_TABLE_SIZE || gk__am_handler((int)msg->handler) == NULL)
        why = "no handler is registered at its index on this PE";
    else if (kind == GK__AM_SHORT && msg->nbytes != 0)
        why = "a short message has a payload";
    else if (kind == GK__AM_MEDIUM && msg->nbytes > GK__RING_MAX_PAYLOAD)
        why = "its payload is larger than the largest medium payload";
    else if (kind == GK__AM_LONG &&
             (msg->dst_offset > gk__rt.heap_span ||
              msg->nbytes > gk__rt.heap_span - msg->dst_offset))
        why = "its long payload lies outside the symmetric heap";
    else if (kind > GK__AM_LONG || (msg->flags & ~(GK__AM_KIND_MASK | GK__AM_REPLY)) != 0)
        why = "its kind is unknown";
    if (why != NULL) {
        gk__error("active message from PE %u (handler %u, %u args, %llu bytes, flags 0x%x) "
                  "rejected: %s",
                  msg->src, msg->handler, msg->nargs, (unsigned long long)msg->nbytes,
                  msg->flags, why);
        return (void *)-1;
    }
    return NULL;
}

/*
 * A request's reply, if its handler sends one, goes to the slot of the
 * requester's inbox after our last message there (unless another PE took
 * it meanwhile). The requester is polling that line, so writing it costs a
 * transfer; asking for it now, before the handler runs, overlaps the
 * transfer with the handler and the reply's checks.
 */
static void prefetch_reply_slot(int src)
{
    const char *base = gk__rt.peers[src].direct;
    if (base == NULL)
        return;
    uint64_t ticket = atomic_load_explicit(&inbox_seen[src].next_ticket, memory_order_relaxed);
    gk__prefetch_for_write(gk__ring_slot(base, ticket));
}

static void am_run(struct gk__ring_slot *slot, int valid, void *slot_payload)
{
    const struct gk__net_am *msg = &slot->msg;
    if (am_check(msg, valid) != NULL)
        return;
    unsigned kind = msg->flags & GK__AM_KIND_MASK;
    void *payload = NULL;
    if (kind == GK__AM_MEDIUM)
        payload = slot_payload;
    else if (kind == GK__AM_LONG)
        payload = gk__rt.heap + msg->dst_offset;
    struct gk_am_token token = {GK__AM_TOKEN_MAGIC, (int)msg->src,
                                !(msg->flags & GK__AM_REPLY)};
    if (token.may_reply)
        prefetch_reply_slot(token.src);
    gk__am_handler((int)msg->handler)(&token, payload, (size_t)msg->nbytes, slot->args,
                                      msg->nargs);
    token.magic = 0;
}

/* ------------------------------------------------------------------------ */
/* Messages deferred by handlers (top comment)                              */
/* ------------------------------------------------------------------------ */

/* To a peer reached through its transport: a long message that still
 * carries its payload goes with it (am.c put it first otherwise). */
static int transport_send(struct gk__net_peer *peer, const struct gk__net_am *msg,
                          const uint64_t *args, const void *payload)
{
    if ((msg->flags & GK__AM_KIND_MASK) == GK__AM_LONG && payload != NULL)
        return peer->transport->am_send_long(peer, msg, args, payload);
    return peer->transport->am_send(peer, msg, args, payload);
}

/* Sends without waiting: GK_OK, GK__NET_AM_FULL, or a transport's error. */
static int try_push(int pe, const struct gk__net_am *msg, const uint64_t *args,
                    const void *payload)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (peer->direct == NULL)
        return transport_send(peer, msg, args, payload);
    return gk__ring_try_push(peer->direct, msg, args, payload, &inbox_seen[pe].released,
                             &inbox_seen[pe].next_ticket);
}

/*
 * This PE starts (holding 1) or stops holding messages for pe, which is
 * reached through its transport: pe's backlog and our bit in its holders'
 * bitmap (top comment). Fetching atomics: complete on return, so the send
 * this PE tries before it sleeps comes after them. deferred_lock held.
 */
static void holder_mark(int pe, int holding)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    int me = gk__rt.my_pe;
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
static void deferred_flush_locked(int pe)
{
    struct inbox_seen *seen = &inbox_seen[pe];
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    struct deferred *d;
    int status;
    while ((d = seen->deferred_head) != NULL &&
           (status = try_push(pe, &d->msg, d->args, d->has_payload ? d->payload : NULL)) !=
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
        atomic_fetch_sub_explicit(my_held(), 1, memory_order_relaxed);
        /* Release: a handler that reads 0 (acquire) takes its ticket after
         * the one this message took. */
        if (atomic_fetch_sub_explicit(&seen->n_deferred, 1, memory_order_release) == 1 &&
            peer->direct == NULL)
            holder_mark(pe, 0);
    }
}

static void deferred_flush_all(void)
{
    pthread_mutex_lock(&deferred_lock);
    for (int pe = 0; pe < gk__rt.n_pes; pe++)
        if (atomic_load_explicit(&inbox_seen[pe].n_deferred, memory_order_relaxed) != 0)
            deferred_flush_locked(pe);
    pthread_mutex_unlock(&deferred_lock);
}

static int deferred_flushed(const void *arg)
{
    int pe = *(const int *)arg;
    pthread_mutex_lock(&deferred_lock);
    deferred_flush_locked(pe);
    pthread_mutex_unlock(&deferred_lock);
    return atomic_load_explicit(&inbox_seen[pe].n_deferred, memory_order_acquire) == 0;
}

/* Outside a handler: waits until everything deferred to pe is sent. The
 * room comes from pe's progress: the wait polls. */
static int deferred_drain(int pe)
{
    return deferred_flushed(&pe) ? GK_OK : gk__wait_poll(deferred_flushed, &pe);
}

static int deferred_add(int pe, const struct gk__net_am *msg, const uint64_t *args,
                        const void *payload)
{
    size_t payload_bytes = payload != NULL ? (size_t)msg->nbytes : 0;
    struct deferred *d = malloc(sizeof(*d) + payload_bytes);
    if (d == NULL) {
        gk__error("active message to PE %d (handler %u): out of memory keeping it until "
                  "PE %d's inbox has room",
                  pe, msg->handler, pe);
        return GK_ERR_NOMEM;
    }
    d->next = NULL;
    d->has_payload = payload != NULL;
    d->msg = *msg;
    if (msg->nargs > 0) /* args may be NULL without them */
        memcpy(d->args, args, (size_t)msg->nargs * sizeof(uint64_t));
    if (payload_bytes > 0)
        memcpy(d->payload, payload, payload_bytes);
    struct inbox_seen *seen = &inbox_seen[pe];
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    pthread_mutex_lock(&deferred_lock);
    if (seen->deferred_tail == NULL)
        seen->deferred_head = d;
    else
        seen->deferred_tail->next = d;
    seen->deferred_tail = d;
    uint64_t before = atomic_fetch_add_explicit(&seen->n_deferred, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(my_held(), 1, memory_order_relaxed);
    if (peer->direct != NULL)
        atomic_fetch_add_explicit(&gk__ring_ctl(peer->direct)->backlog, 1,
                                  memory_order_relaxed);
    else if (before == 0)
        holder_mark(pe, 1);
    pthread_mutex_unlock(&deferred_lock);
    return GK_OK;
}

static int held_low(const void *arg)
{
    return atomic_load_explicit((const _Atomic uint64_t *)arg, memory_order_relaxed) <=
           HELD_LOW;
}

/* Sends what fits of what is queued for pe; whether anything went. */
static int deferred_flush_some(int pe)
{
    _Atomic uint64_t *n = &inbox_seen[pe].n_deferred;
    pthread_mutex_lock(&deferred_lock);
    uint64_t before = atomic_load_explicit(n, memory_order_relaxed);
    deferred_flush_locked(pe);
    int sent = atomic_load_explicit(n, memory_order_relaxed) < before;
    pthread_mutex_unlock(&deferred_lock);
    return sent;
}

/* Whether a target we hold messages for has room now (a holder about to
 * sleep: the consumer that makes room wakes it only if it sleeps). */
static int deferred_room(void)
{
    if (atomic_load_explicit(my_held(), memory_order_relaxed) == 0)
        return 0;
    for (int pe = 0; pe < gk__rt.n_pes; pe++) {
        if (atomic_load_explicit(&inbox_seen[pe].n_deferred, memory_order_relaxed) == 0)
            continue;
        if (gk__rt.peers[pe].direct == NULL) {
            /* Its ring is not ours to look at: the send is the look (top
             * comment). */
            if (deferred_flush_some(pe))
                return 1;
            continue;
        }
        const struct gk__ring_ctl *ctl = gk__ring_ctl(gk__rt.peers[pe].direct);
        uint64_t tail = atomic_load_explicit(&ctl->tail, memory_order_acquire);
        if (tail < atomic_load_explicit(&ctl->released, memory_order_acquire) + GK__RING_SLOTS)
            return 1;
    }
    return 0;
}

/*
 * After a batch, if others hold messages for us: we made room; wake the
 * node's sleepers (we do not know which mapped PEs hold them), and the
 * PEs reached through a transport whose bit says they hold some.
 */
static void wake_holders(void)
{
    atomic_thread_fence(memory_order_seq_cst); /* our releases, then their sleepers */
    for (int pe = 0; pe < gk__rt.n_pes; pe++) {
        struct gk__net_peer *peer = &gk__rt.peers[pe];
        if (peer->direct != NULL && gk__shm_sleepers(peer))
            gk__wake_all(&gk__shm_header(peer)->wake);
    }
    _Atomic uint64_t *holders = gk__ring_holders(gk__rt.my_seg.base);
    size_t n = (size_t)gk__rt.n_pes;
    for (size_t w = 0; w < (n + 63) / 64 && w * 64 < GK__RING_HOLDERS_MAX_PES; w++) {
        uint64_t bits = atomic_load_explicit(&holders[w], memory_order_relaxed);
        for (; bits != 0; bits &= bits - 1) {
            struct gk__net_peer *peer = &gk__rt.peers[w * 64 + (size_t)__builtin_ctzll(bits)];
            /* Whatever word it sleeps on. */
            if (peer->direct == NULL)
                (void)peer->transport->wake(peer, 0, UINT64_MAX);
        }
    }
}

/* A message to a peer reached through its transport, and the transport's
 * answer once it is not GK__NET_AM_FULL. */
struct remote_send {
    int pe;
    const struct gk__net_am *msg;
    const uint64_t *args;
    const void *payload;
    int status;
};

static int remote_sent(const void *arg)
{
    struct remote_send *send = (struct remote_send *)arg; /* am_send_remote's own */
    struct gk__net_peer *peer = &gk__rt.peers[send->pe];
    send->status = transport_send(peer, send->msg, send->args, send->payload);
    return send->status != GK__NET_AM_FULL;
}

/*
 * To a peer that is not mapped here, outside a handler: its transport's
 * send. One that queues (ucx) never says full; one that does is retried
 * as a wait polls, running this PE's inbox, until the target has made room
 * (handlers defer instead: am_send_or_defer).
 */
static int am_send_remote(int pe, const struct gk__net_am *msg, const uint64_t *args,
                          const void *payload)
{
    struct remote_send send = {pe, msg, args, payload, GK__NET_AM_FULL};
    if (remote_sent(&send))
        return send.status;
    int status = gk__wait_poll(remote_sent, &send);
    return status != GK_OK ? status : send.status;
}

/* The held count of a peer reached through its transport (0 if the get
 * fails: it is only a bound, and the failure is the transport's to tell). */
static uint64_t remote_held(int pe)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    uint64_t held = 0;
    if (peer->transport->get(peer, &held, RING_CTL_WORD(held), sizeof(held)) != GK_OK)
        return 0;
    return held;
}

static int remote_held_low(const void *arg)
{
    return remote_held(*(const int *)arg) <= HELD_LOW;
}

/* The HELD_HIGH rule for such a peer, looked at now and then (top
 * comment). Threads of this PE may share the counts: they are estimates. */
static int remote_held_wait(int pe)
{
    struct inbox_seen *seen = &inbox_seen[pe];
    uint32_t every = atomic_load_explicit(&seen->held_check_every, memory_order_relaxed);
    if (every == 0)
        every = HELD_CHECK_MIN;
    if (atomic_fetch_add_explicit(&seen->sent_unchecked, 1, memory_order_relaxed) + 1 < every)
        return GK_OK;
    atomic_store_explicit(&seen->sent_unchecked, 0, memory_order_relaxed);
    uint64_t held = remote_held(pe);
    every = held != 0 ? HELD_CHECK_MIN : every < HELD_CHECK_MAX / 2 ? 2 * every : HELD_CHECK_MAX;
    atomic_store_explicit(&seen->held_check_every, every, memory_order_relaxed);
    if (held <= HELD_HIGH)
        return GK_OK;
    return gk__wait_poll(remote_held_low, &pe);
}

/* From a handler: a free slot now, or the queue; never a wait. Behind
 * messages already queued for pe, so that order holds. */
static int am_send_or_defer(int pe, const struct gk__net_am *msg, const uint64_t *args,
                            const void *payload)
{
    if (atomic_load_explicit(&inbox_seen[pe].n_deferred, memory_order_acquire) == 0) {
        int status = try_push(pe, msg, args, payload);
        if (status != GK__NET_AM_FULL)
            return status;
    }
    return deferred_add(pe, msg, args, payload);
}

int gk__progress_deferred_drain_all(void)
{
    int status = GK_OK;
    for (int pe = 0; pe < gk__rt.n_pes && status == GK_OK; pe++)
        if (atomic_load_explicit(&inbox_seen[pe].n_deferred, memory_order_relaxed) != 0)
            status = deferred_drain(pe);
    return status;
}

/*
 * Every message sent anywhere has been run (gk_finalize). Counting waves
 * (Mattern's four counters): each PE drains what it can, then the PEs sum
 * the tickets taken on their inboxes (every message sent, waiting or not),
 * the tickets consumed, and the messages still deferred. Two waves in a
 * row with the same sums, all sent consumed and nothing deferred, mean no
 * message moved between them: none is in flight, and no handler is left
 * to send one. The all-reduce between waves moves no active message.
 */
int gk__progress_quiesce(void)
{
    struct gk__ring_ctl *ctl = gk__ring_ctl(gk__rt.my_seg.base);
    uint64_t last[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    for (;;) {
        int status = gk__progress_deferred_drain_all();
        if (status != GK_OK)
            return status;
        while (gk__progress() > 0 || gk__inbox_ready()) {
        }
        /* A message sent through a transport that queues (ucx) counts as
         * sent when it leaves, and its ticket on our inbox as the same
         * message arriving, not as another one sent. */
        uint64_t mine[3] = {atomic_load_explicit(&ctl->tail, memory_order_acquire) -
                                atomic_load_explicit(&gk__net_am_landed, memory_order_acquire) +
                                atomic_load_explicit(&gk__net_am_sent, memory_order_acquire),
                            atomic_load_explicit(&ctl->released, memory_order_acquire),
                            atomic_load_explicit(my_held(), memory_order_acquire) +
                                atomic_load_explicit(&gk__net_am_waiting,
                                                     memory_order_acquire)};
        uint64_t sums[3];
        status = gk__allreduce_u64("gk_finalize", sums, mine, 3, GK_OP_SUM);
        if (status != GK_OK)
            return status;
        if (sums[0] == sums[1] && sums[2] == 0 && memcmp(sums, last, sizeof(sums)) == 0)
            return GK_OK;
        memcpy(last, sums, sizeof(sums));
    }
}

int gk__progress_report_in_handler(const char *op)
{
    gk__error("%s: called from an active-message handler, which must not block "
              "(no waits, blocking receives, locks, collectives or gk_finalize; "
              "gasket.h, docs/PROGRESS.md)",
              op);
    return GK_ERR_UNSUPPORTED;
}

int gk__progress(void)
{
    if (gk__in_handler || !gk__rt.initialized)
        return 0;
    if (GK__UNLIKELY(gk__net_remote)) {
        int status = gk__net_progress_remote(); /* lands its messages in our inbox */
        if (status < 0)
            return status;
    }
    int threaded = gk__rt.threaded;
    if (threaded && atomic_flag_test_and_set_explicit(&consumer_busy, memory_order_acquire))
        return 0;
    /* What handlers could not send goes first: it was sent before
     * anything the coming batch sends. */
    if (GK__UNLIKELY(atomic_load_explicit(my_held(), memory_order_relaxed) != 0))
        deferred_flush_all();
    gk__in_handler = 1;
    char *seg_base = gk__rt.my_seg.base;
    int ran = 0;
    struct gk__ring_slot *slot;
    uint64_t ticket = 0;
    int valid = 0;
    /* A bounded batch, so a flood cannot keep a waiter from its own word. */
    void *payload = NULL;
    while (ran < 64 &&
           (slot = gk__ring_take(seg_base, &ticket, &valid, &payload)) != NULL) {
        am_run(slot, valid, payload);
        gk__ring_release(seg_base, ticket);
        ran++;
    }
    gk__in_handler = 0;
    if (GK__UNLIKELY(atomic_load_explicit(my_held(), memory_order_relaxed) != 0))
        deferred_flush_all();
    if (ran > 0 && GK__UNLIKELY(atomic_load_explicit(&gk__ring_ctl(seg_base)->backlog,
                                                     memory_order_relaxed) != 0))
        wake_holders();
    if (threaded)
        atomic_flag_clear_explicit(&consumer_busy, memory_order_release);
    return ran;
}

/* For a waiter about to sleep: a target with room for what we hold is
 * mail too (top comment). */
int gk__progress_inbox_ready(void)
{
    return gk__inbox_ready() || deferred_room();
}

int gk__am_send(int pe, struct gk__net_am *msg, const uint64_t *args, const void *payload)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    msg->word |= (uint32_t)gk__rt.my_pe; /* src, a word's low half (msg's first word) */
    struct inbox_seen *seen = &inbox_seen[pe];
    if (gk__in_handler)
        return am_send_or_defer(pe, msg, args, payload);
    int status = GK_OK;
    if (GK__UNLIKELY(atomic_load_explicit(&seen->n_deferred, memory_order_relaxed) != 0))
        status = deferred_drain(pe); /* they were sent first */
    else
        gk__progress_if_ready(); /* take in the replies we are owed (top comment) */
    if (peer->direct == NULL) {
        if (status == GK_OK)
            status = remote_held_wait(pe);
        return status != GK_OK ? status : am_send_remote(pe, msg, args, payload);
    }
    _Atomic uint64_t *held = &gk__ring_ctl(peer->direct)->held;
    if (GK__UNLIKELY(atomic_load_explicit(held, memory_order_relaxed) > HELD_HIGH) &&
        status == GK_OK)
        status = gk__wait_poll(held_low, held); /* top comment */
    if (status != GK_OK)
        return status; /* the job is ending */
    return gk__ring_push(peer->direct, msg, args, payload, &seen->released,
                         &seen->next_ticket);
}

/* ------------------------------------------------------------------------ */
/* The progress thread                                                      */
/* ------------------------------------------------------------------------ */

static int inbox_ready_or_stopping(const void *arg)
{
    (void)arg;
    return atomic_load_explicit(&progress_stopping, memory_order_acquire) ||
           gk__ring_ready(gk__rt.my_seg.base);
}

static void *progress_main(void *arg)
{
    (void)arg;
    gk__log_set_pe(gk__rt.my_pe);
    struct gk__wake *mine = &gk__rt.my_seg.header->wake;
    while (!atomic_load_explicit(&progress_stopping, memory_order_acquire)) {
        if (gk__progress() > 0) {
            /* A thread of ours asleep may wait for a word these handlers
             * wrote (an AM's reply): a handler's store wakes nobody. */
            atomic_thread_fence(memory_order_seq_cst); /* as gk__wake_notify */
            if (atomic_load_explicit(&mine->sleepers, memory_order_relaxed) != 0)
                gk__wake_all(mine);
            continue;
        }
        /* Every message wakes every sleeper of this PE (shm_ring.c), so the
         * word we watch does not matter. */
        if (gk__wait_for(mine, GK__WAKE_WATCH_ANY, inbox_ready_or_stopping, NULL) != GK_OK)
            break; /* the job is ending */
    }
    return NULL;
}

int gk__progress_start(void)
{
    if (!gk__rt.config.progress_thread)
        return GK_OK;
    atomic_store_explicit(&progress_stopping, 0, memory_order_relaxed);
    /* Before the thread exists (pthread_create orders these writes before
     * its first step): from its first poll on, the inbox has two would-be
     * consumers, which must take turns (consumer_busy), and two threads
     * may sleep. */
    int watch_any = gk__wait_policy.watch_any, threaded = gk__rt.threaded;
    gk__wait_policy.watch_any = 1;
    gk__rt.threaded = 1;
    int err = pthread_create(&progress_thread, NULL, progress_main, NULL);
    if (err != 0) {
        gk__wait_policy.watch_any = watch_any;
        gk__rt.threaded = threaded;
        gk__error("GK_PROGRESS_THREAD=1: pthread_create failed (error %d)", err);
        return GK_ERR_SYSTEM;
    }
    progress_running = 1;
    gk__debug("progress thread started");
    return GK_OK;
}

void gk__progress_stop(void)
{
    if (!progress_running)
        return;
    atomic_store_explicit(&progress_stopping, 1, memory_order_release);
    gk__wake_all(&gk__rt.my_seg.header->wake);
    pthread_join(progress_thread, NULL);
    progress_running = 0;
}

/*
 * ofi_msg.c: the libfabric transport's completion queue and what arrives
 * through it, its waits and its progress thread.
 *
 * Arrivals. Gasket's messages come into receive buffers posted at
 * start-up: active messages go into this PE's own inbox (shm_ring.h) as a
 * sender on this node would put them there, or, when it is full, into a
 * held queue that keeps them in order (every later message goes behind
 * them, remote.h); wake-ups look at this PE's sleepers; remote operations run here
 * and are answered or acknowledged. One thread at a time reads the queue
 * and handles what it gives (progress_lock), so the messages of one sender
 * are handled in the order they were sent (the provider keeps it,
 * FI_ORDER_SAS). A handler does not wait: a reply the provider cannot take
 * at once (FI_EAGAIN) waits in the deferred queue for a later progress.
 *
 * Progress. With tcp;ofi_rxm the provider's progress is manual: another
 * PE's put or get to this one moves only while some thread here reads the
 * completion queue. A progress thread does it while the application
 * computes or sleeps; it sleeps in poll() on the queue's wait descriptor
 * (after fi_trywait says nothing is pending) while nothing happens, but
 * for a look every GK_OFI_PROBE_MS (ofi_probe.c), and never spins. An
 * application thread that waits for an operation of its
 * own reads the queue too while it spins, then sleeps on the operation's
 * word, which the reader of its completion wakes. While the application
 * sleeps in a wait, the thread keeps reading the queue for
 * GK_OFI_LINGER_US after the last thing that arrived before it sleeps
 * itself: other PEs' requests come in streams (a latency loop, a lock's
 * queue), and one that arrives within the lingering costs no wake-up (a
 * get across 2 simulated hosts: 45 us with a wake-up each, 24 without).
 * There is no hand-over as UCX's: a thread of the application that waits
 * for an operation of its own reads the queue beside it.
 */
#include "net/ofi_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/time.h"
#include "base/wait.h"
#include "gasket.h"
#include "net/shm_ring.h"

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */
/* ------------------------------------------------------------------------ */

struct gk__ofi_send *gk__ofi_send_new(int pe, int rma, size_t len)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__ofi_send *s = malloc(sizeof(*s) + len);
    if (s == NULL)
        return NULL;
    s->ctx = (struct gk__ofi_ctx){GK__OFI_CTX_SEND, pe};
    s->rma = rma;
    s->len = len;
    atomic_fetch_add_explicit(&o->sends_live, 1, memory_order_relaxed);
    return s;
}

void gk__ofi_send_free(struct gk__ofi_send *s)
{
    atomic_fetch_sub_explicit(&gk__ofi.sends_live, 1, memory_order_release);
    free(s);
}

/* Sends a copy that lives until its completion (s->ctx.kind SEND); frees it
 * when the provider refuses it for good. */
static ssize_t ofi_send_copy(int pe, struct gk__ofi_send *s)
{
    struct gk__ofi *o = &gk__ofi;
    unsigned kind = gk__ofi_kind(s->data); /* before: the completion frees s */
    ssize_t rc = fi_send(o->ep, s->data, s->len, NULL, o->ofi_peers[pe].addr, s);
    if (rc == 0)
        gk__ofi_msg_posted(pe, kind);
    else if (rc != -FI_EAGAIN)
        gk__ofi_send_free(s);
    return rc;
}

/* The deferred messages that the provider now takes, in order; progress
 * lock held. */
static int ofi_deferred_send(void)
{
    struct gk__ofi *o = &gk__ofi;
    int sent = 0;
    struct gk__ofi_deferred *d;
    while ((d = o->deferred_head) != NULL) {
        struct gk__ofi_send *s = d->send;
        int pe = s->ctx.pe;
        ssize_t rc = ofi_send_copy(pe, s);
        if (rc == -FI_EAGAIN)
            break;
        if (rc != 0)
            gk__ofi_status(rc, "a reply", pe);
        o->deferred_head = d->next;
        if (o->deferred_head == NULL)
            o->deferred_tail = NULL;
        free(d);
        sent++;
    }
    return sent;
}

void gk__ofi_deferred_free(void)
{
    struct gk__ofi *o = &gk__ofi;
    while (o->deferred_head != NULL) {
        struct gk__ofi_deferred *d = o->deferred_head;
        o->deferred_head = d->next;
        gk__ofi_send_free(d->send);
        free(d);
    }
    o->deferred_tail = NULL;
}

int gk__ofi_send(int pe, const void *header, size_t len, const void *payload,
                 size_t payload_len, int in_progress)
{
    struct gk__ofi *o = &gk__ofi;
    fi_addr_t addr = o->ofi_peers[pe].addr;
    size_t total = len + payload_len;
    unsigned tries = 0;
    /* Inline where it fits: nothing to copy or to complete. A deferred
     * message goes first, so progress sends nothing inline before it. */
    if (total <= o->inject_max && payload_len == 0 && !(in_progress && o->deferred_head)) {
        for (;;) {
            ssize_t rc = fi_inject(o->ep, header, len, addr);
            if (rc == 0)
                gk__ofi_msg_posted(pe, gk__ofi_kind(header));
            if (rc != -FI_EAGAIN)
                return gk__ofi_status(rc, "a message", pe);
            if (in_progress)
                break; /* to the deferred queue below */
            int status = gk__ofi_eagain(&tries);
            if (status != GK_OK)
                return status;
        }
    }
    struct gk__ofi_send *s = gk__ofi_send_new(pe, 0, total);
    if (s == NULL) {
        gk__error("a message of %zu bytes to PE %d: out of memory", total, pe);
        return GK_ERR_NOMEM;
    }
    memcpy(s->data, header, len);
    if (payload_len > 0)
        memcpy(s->data + len, payload, payload_len);
    if (in_progress) {
        ssize_t rc = o->deferred_head != NULL ? -FI_EAGAIN : ofi_send_copy(pe, s);
        if (rc != -FI_EAGAIN)
            return gk__ofi_status(rc, "a reply", pe);
        struct gk__ofi_deferred *d = malloc(sizeof(*d));
        if (d == NULL) {
            gk__ofi_send_free(s);
            gk__error("a reply to PE %d: out of memory; it is lost", pe);
            return GK_ERR_NOMEM;
        }
        *d = (struct gk__ofi_deferred){NULL, s};
        if (o->deferred_tail != NULL)
            o->deferred_tail->next = d;
        else
            o->deferred_head = d;
        o->deferred_tail = d;
        return GK_OK;
    }
    for (;;) {
        ssize_t rc = ofi_send_copy(pe, s);
        if (rc != -FI_EAGAIN)
            return gk__ofi_status(rc, "a message", pe);
        int status = gk__ofi_eagain(&tries);
        if (status != GK_OK) {
            gk__ofi_send_free(s);
            return status;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Arrivals                                                                 */
/* ------------------------------------------------------------------------ */

static void ofi_am_land(const struct gk__net_am *msg, const uint64_t *args, const void *data,
                        size_t data_len)
{
    gk__remote_inbox_land(&gk__ofi.inbox, msg, args, data, data_len);
}

/* A rejected message is never run, but its sender counted it as sent
 * (net.h, gk__net_am_landed). */
static void ofi_am_reject(const struct gk__net_am *msg, const char *why)
{
    atomic_fetch_add_explicit(&gk__net_am_landed, 1, memory_order_release);
    gk__error("active message from PE %u (handler %u, %u args, %llu bytes) from the network "
              "rejected: %s",
              msg->src, msg->handler, msg->nargs, (unsigned long long)msg->nbytes, why);
}

static void ofi_am_arrived(const char *buf, size_t len, int is_long)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__ofi_am_msg m;
    size_t fixed = offsetof(struct gk__ofi_am_msg, args);
    if (len < fixed) {
        gk__error("active message of %zu bytes from the network rejected: too short", len);
        return;
    }
    memcpy(&m, buf, fixed);
    size_t head = fixed + (size_t)m.msg.nargs * sizeof(uint64_t);
    const char *why = NULL;
    if (m.msg.nargs > GK__NET_AM_MAX_ARGS || head > len)
        why = "its argument count does not match its length";
    else if (len - head != (is_long || len > head ? m.msg.nbytes : 0))
        why = "its payload length does not match its header";
    else if (!is_long && len - head > GK__NET_AM_MAX_PAYLOAD)
        why = "its payload is larger than a medium message's";
    else if (is_long && (m.msg.dst_offset > o->heap_size ||
                         m.msg.nbytes > o->heap_size - m.msg.dst_offset))
        why = "its long payload lies outside the symmetric heap";
    if (why != NULL) {
        ofi_am_reject(&m.msg, why);
        return;
    }
    memcpy(m.args, buf + fixed, head - fixed);
    size_t data_len = len - head;
    if (is_long) {
        /* Before the message can run, as the put before it would have. */
        if (data_len > 0)
            memcpy(o->heap + m.msg.dst_offset, buf + head, data_len);
        ofi_am_land(&m.msg, m.args, NULL, 0);
    } else {
        ofi_am_land(&m.msg, m.args, data_len > 0 ? buf + head : NULL, data_len);
    }
}

static void ofi_rop_arrived(const char *buf, size_t len)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__ofi_rop_msg m;
    if (len < sizeof(m)) {
        gk__error("remote operation of %zu bytes from the network rejected: too short", len);
        return;
    }
    memcpy(&m, buf, sizeof(m));
    if (m.w.src >= (uint32_t)o->n_pes || o->peers[m.w.src].priv != &o->ofi_peers[m.w.src]) {
        gk__error("remote operation from the network rejected: its sender, PE %u, is not "
                  "reached through libfabric",
                  m.w.src);
        return;
    }
    const void *data = buf + sizeof(m);
    size_t data_len = len - sizeof(m);
    if (m.w.kind == GK__OFI_ROP_POST) {
        struct gk__net_rop_answer answer = {0}; /* nobody takes it */
        struct gk__ofi_ack_msg ack = {{GK__OFI_ROP_ACK, 0, (uint32_t)o->my_pe}, GK_OK,
                                      (uint32_t)o->my_pe};
        ack.status = gk__remote_rop_run(m.op, m.w.src, m.args, data, data_len, NULL, &answer);
        if (m.w.flags & GK__OFI_ACKED)
            gk__ofi_send((int)m.w.src, &ack, sizeof(ack), NULL, 0, 1);
        return;
    }
    struct gk__ofi_reply_msg reply = {.w = {GK__OFI_ROP_REPLY, 0, (uint32_t)o->my_pe},
                                      .token = m.token};
    struct gk__net_rop_answer answer;
    reply.status = gk__remote_rop_serve(m.op, m.w.src, m.args, data, data_len, NULL, m.answer_max,
                                        GK__OFI_PAYLOAD_MAX, &answer);
    reply.result = answer.result;
    gk__ofi_send((int)m.w.src, &reply, sizeof(reply), answer.data, answer.len, 1);
    free(answer.data);
}

static void ofi_reply_arrived(const char *buf, size_t len)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__ofi_reply_msg r;
    if (len < sizeof(r)) {
        gk__error("remote operation reply of %zu bytes from the network rejected", len);
        return;
    }
    memcpy(&r, buf, sizeof(r));
    if (r.w.src < (uint32_t)o->n_pes)
        gk__ofi_op_ended((int)r.w.src);
    int slot = gk__remote_rop_find(&o->rops, r.token);
    if (slot < 0)
        return;
    gk__remote_rop_fill(&o->rops, slot, r.status, r.result, buf + sizeof(r), len - sizeof(r),
                        (int)r.w.src, NULL);
    gk__ofi_req_done(&o->rop_reqs[slot], GK_OK);
}

/* A refusal is kept for the next quiet (ofi.c) before the count drops, so
 * that the quiet that sees the count at 0 sees it too. */
static void ofi_ack_arrived(const char *buf, size_t len)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__ofi_ack_msg ack;
    if (len != sizeof(ack)) {
        gk__error("acknowledgement of %zu bytes from the network rejected", len);
        return;
    }
    memcpy(&ack, buf, sizeof(ack));
    if (ack.w.src < (uint32_t)o->n_pes)
        gk__ofi_op_ended((int)ack.w.src);
    if (atomic_load_explicit(&o->unacked, memory_order_relaxed) == 0) {
        gk__error("acknowledgement from PE %u rejected: nothing is unacknowledged", ack.pe);
        return;
    }
    if (ack.status != GK_OK)
        gk__remote_refusal_note(&o->refusals, ack.pe, ack.status);
    gk__ofi_count_down(&o->unacked, &o->unacked_sleepers);
}


static void ofi_message_arrived(const char *buf, size_t len)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__ofi_wire w;
    if (len < sizeof(w)) {
        gk__error("a message of %zu bytes from the network rejected: too short", len);
        return;
    }
    memcpy(&w, buf, sizeof(w));
    if (!gk__ofi_probe_arrived(buf, len, w.kind, w.src))
        return;
    switch (w.kind) {
    case GK__OFI_AM:
    case GK__OFI_AM_LONG:
        ofi_am_arrived(buf, len, w.kind == GK__OFI_AM_LONG);
        break;
    case GK__OFI_WAKE: {
        struct gk__ofi_wake_msg m;
        if (len != sizeof(m)) {
            gk__error("wake-up of %zu bytes from the network rejected", len);
            break;
        }
        memcpy(&m, buf, sizeof(m));
        gk__wake_notify(o->my_wake, m.lo, m.hi);
        break;
    }
    case GK__OFI_ROP:
    case GK__OFI_ROP_POST:
        ofi_rop_arrived(buf, len);
        break;
    case GK__OFI_ROP_REPLY:
        ofi_reply_arrived(buf, len);
        break;
    case GK__OFI_ROP_ACK:
        ofi_ack_arrived(buf, len);
        break;
    default:
        gk__error("a message of kind %u from PE %u rejected: no such kind", w.kind, w.src);
    }
}

/* ------------------------------------------------------------------------ */
/* The completion queue                                                     */
/* ------------------------------------------------------------------------ */

int gk__ofi_post_recvs(void)
{
    struct gk__ofi *o = &gk__ofi;
    for (int i = 0; i < GK__OFI_RECV_BUFS; i++) {
        struct gk__ofi_recv *r = &o->recvs[i];
        r->ctx = (struct gk__ofi_ctx){GK__OFI_CTX_RECV, -1};
        ssize_t rc = fi_recv(o->ep, r->data, sizeof(r->data), NULL, FI_ADDR_UNSPEC, r);
        if (rc != 0)
            return gk__ofi_status(rc, "posting a receive buffer (fi_recv)", -1);
    }
    return GK_OK;
}

static void ofi_repost(struct gk__ofi_recv *r)
{
    struct gk__ofi *o = &gk__ofi;
    ssize_t rc;
    /* A posted buffer goes at once; FI_EAGAIN only while the provider's
     * own queue is full, which its progress empties. */
    while ((rc = fi_recv(o->ep, r->data, sizeof(r->data), NULL, FI_ADDR_UNSPEC, r)) ==
           -FI_EAGAIN)
        (void)fi_cq_read(o->cq, NULL, 0);
    if (rc != 0 && !atomic_load_explicit(&o->closing, memory_order_acquire))
        gk__ofi_status(rc, "posting a receive buffer again (fi_recv)", -1);
}

/* `flags`: the completion's (FI_READ for a get). */
static void ofi_completed(struct gk__ofi_ctx *ctx, size_t len, uint64_t flags, int status)
{
    struct gk__ofi *o = &gk__ofi;
    switch (ctx->kind) {
    case GK__OFI_CTX_RECV:
        if (status == GK_OK)
            ofi_message_arrived(((struct gk__ofi_recv *)ctx)->data, len);
        if (!atomic_load_explicit(&o->closing, memory_order_acquire) || status == GK_OK)
            ofi_repost((struct gk__ofi_recv *)ctx);
        break;
    case GK__OFI_CTX_SEND: {
        struct gk__ofi_send *s = (struct gk__ofi_send *)ctx;
        if (s->rma) {
            if (gk__ofi_rma_probed(1))
                gk__ofi_op_ended(ctx->pe);
            gk__ofi_count_down(&o->rma_out, &o->rma_sleepers);
        }
        gk__ofi_send_free(s);
        break;
    }
    case GK__OFI_CTX_REQ: /* a blocking put or get */
        if (gk__ofi_rma_probed(!(flags & FI_READ)))
            gk__ofi_op_ended(ctx->pe);
        gk__ofi_req_done((struct gk__ofi_req *)ctx, status);
        break;
    case GK__OFI_CTX_NBI:
        if (gk__ofi_rma_probed(!(flags & FI_READ)))
            gk__ofi_op_ended(ctx->pe);
        gk__ofi_count_down(&o->rma_out, &o->rma_sleepers);
        break;
    }
}

/* An operation that failed: a peer that went away ends the job. */
static void ofi_cq_error(void)
{
    struct gk__ofi *o = &gk__ofi;
    struct fi_cq_err_entry err = {0};
    ssize_t rc = fi_cq_readerr(o->cq, &err, 0);
    if (rc < 0)
        return;
    struct gk__ofi_ctx *ctx = err.op_context;
    int pe = ctx != NULL ? ctx->pe : -1;
    int closing = atomic_load_explicit(&o->closing, memory_order_acquire);
    if (err.err == FI_ECANCELED && closing) {
        if (ctx != NULL && ctx->kind != GK__OFI_CTX_RECV)
            ofi_completed(ctx, 0, err.flags, GK_ERR_SYSTEM);
        return;
    }
    if (!closing && o->joined && pe >= 0)
        gk__remote_peer_failed(o->boot, pe, gk__ofi_strerror(err.err));
    if (!closing)
        gk__error("a network operation%s failed: %s (%s)", pe >= 0 ? " to a peer" : "",
                  gk__ofi_strerror(err.err),
                  fi_cq_strerror(o->cq, err.prov_errno, err.err_data, NULL, 0));
    if (ctx != NULL && (ctx->kind != GK__OFI_CTX_RECV || !closing))
        ofi_completed(ctx, 0, err.flags, GK_ERR_SYSTEM);
}

/* Reads and handles the queue until it is empty; progress_lock held. */
static int ofi_cq_drain(void)
{
    struct gk__ofi *o = &gk__ofi;
    int events = 0;
    for (;;) {
        struct fi_cq_msg_entry entries[16];
        ssize_t n = fi_cq_read(o->cq, entries, 16);
        if (n == -FI_EAVAIL) {
            ofi_cq_error();
            events++;
            continue;
        }
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            ofi_completed(entries[i].op_context, entries[i].len, entries[i].flags, GK_OK);
        events += (int)n;
    }
    if (o->deferred_head != NULL)
        events += ofi_deferred_send();
    return events;
}

int gk__ofi_progress(void)
{
    struct gk__ofi *o = &gk__ofi;
    int events = 0;
    if (pthread_mutex_trylock(&o->progress_lock) == 0) {
        events = ofi_cq_drain();
        pthread_mutex_unlock(&o->progress_lock);
    }
    return events + gk__remote_inbox_drain(&o->inbox);
}

/* ------------------------------------------------------------------------ */
/* Waits                                                                    */
/* ------------------------------------------------------------------------ */

void gk__ofi_req_init(struct gk__ofi_req *r, int pe)
{
    r->ctx = (struct gk__ofi_ctx){GK__OFI_CTX_REQ, pe};
    atomic_init(&r->done, 0);
    atomic_init(&r->sleeping, 0);
    r->status = GK_OK;
}

void gk__ofi_req_done(struct gk__ofi_req *r, int status)
{
    r->status = status;
    atomic_store_explicit(&r->done, 1, memory_order_seq_cst);
    /* Pairs with the waiter's sleeping = 1, then its look at done. */
    if (atomic_load_explicit(&r->sleeping, memory_order_seq_cst))
        syscall(SYS_futex, &r->done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void gk__ofi_count_down(_Atomic uint32_t *count, _Atomic uint32_t *sleepers)
{
    if (atomic_fetch_sub_explicit(count, 1, memory_order_seq_cst) == 1 &&
        atomic_load_explicit(sleepers, memory_order_seq_cst) != 0)
        syscall(SYS_futex, count, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

/* Set while a wait asks whether the job is alive: the check may itself
 * wait for an operation of ours. */
static _Thread_local int ofi_checking_alive;

static int ofi_check_alive(void)
{
    const struct gk__wait_policy *policy = &gk__wait_policy;
    if (policy->check_alive == NULL || ofi_checking_alive)
        return GK_OK;
    ofi_checking_alive = 1;
    int alive = policy->check_alive();
    ofi_checking_alive = 0;
    return alive;
}

/* Waits until *word is `want`: reading the queue while it spins and
 * yields, then asleep on the word, which the progress thread's reading
 * wakes (top comment). GK_OK, or the job's end. */
static int ofi_wait_word(_Atomic uint32_t *word, uint32_t want, _Atomic uint32_t *sleepers)
{
    struct gk__ofi *o = &gk__ofi;
    const struct gk__wait_policy *policy = &gk__wait_policy;
    unsigned sleep_ms = policy->sleep_ms ? policy->sleep_ms : 1;
    unsigned busy = policy->spin_count + policy->yield_count;
    for (unsigned polls = 0; atomic_load_explicit(word, memory_order_acquire) != want;) {
        if (gk__ofi_progress() > 0)
            continue;
        polls++;
        if (polls <= policy->spin_count) {
            gk__cpu_relax();
        } else if (polls <= busy || !atomic_load_explicit(&o->thread_running,
                                                          memory_order_relaxed)) {
            sched_yield();
            if (polls % 4096 == 0 && ofi_check_alive() != GK_OK)
                return GK_ERR_SYSTEM;
        } else {
            atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
            uint32_t seen = atomic_load_explicit(word, memory_order_seq_cst);
            if (seen != want) {
                struct timespec ts = {(time_t)(sleep_ms / 1000),
                                      (long)(sleep_ms % 1000) * 1000000L};
                syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
            }
            atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
            if (atomic_load_explicit(word, memory_order_acquire) != want) {
                int alive = ofi_check_alive();
                if (alive != GK_OK)
                    return alive;
            }
        }
    }
    return GK_OK;
}

int gk__ofi_wait_done(struct gk__ofi_req *r)
{
    return ofi_wait_word(&r->done, 1, &r->sleeping);
}

int gk__ofi_wait_zero(_Atomic uint32_t *count, _Atomic uint32_t *sleepers)
{
    return ofi_wait_word(count, 0, sleepers);
}

int gk__ofi_eagain(unsigned *tries)
{
    if (gk__ofi_progress() == 0)
        sched_yield();
    if (++*tries % 65536 == 0)
        return ofi_check_alive();
    return GK_OK;
}

/* ------------------------------------------------------------------------ */
/* The progress thread                                                      */
/* ------------------------------------------------------------------------ */

/* Lingering (top comment): while the application sleeps in a wait, reads
 * the queue until linger_ns have passed since the last thing arrived,
 * yielding between reads where the node has more PEs than CPUs. */
static void ofi_thread_linger(struct gk__ofi *o)
{
    if (o->linger_ns == 0)
        return;
    uint64_t until = gk__now_ns() + o->linger_ns;
    while (!atomic_load_explicit(&o->thread_stop, memory_order_relaxed) &&
           atomic_load_explicit(&o->my_wake->sleepers, memory_order_relaxed) != 0) {
        int events = 0;
        if (pthread_mutex_trylock(&o->progress_lock) == 0) {
            events = ofi_cq_drain();
            pthread_mutex_unlock(&o->progress_lock);
        }
        uint64_t now = gk__now_ns();
        if (events > 0 || gk__remote_inbox_drain(&o->inbox) > 0)
            until = now + o->linger_ns;
        else if (now >= until)
            return;
        if (gk__wait_oversubscribed())
            sched_yield();
        else
            gk__cpu_relax();
    }
}

static void *ofi_thread_main(void *arg)
{
    struct gk__ofi *o = &gk__ofi;
    (void)arg;
    while (!atomic_load_explicit(&o->thread_stop, memory_order_acquire)) {
        ofi_thread_linger(o);
        pthread_mutex_lock(&o->progress_lock);
        ofi_cq_drain();
        int deferred = o->deferred_head != NULL;
        /* Under the lock: no other thread reads the queue between the
         * look and the arming. */
        struct fid *fids[1] = {&o->cq->fid};
        int armed = fi_trywait(o->fabric, fids, 1) == FI_SUCCESS;
        int probe_ms = gk__ofi_probe_round();
        pthread_mutex_unlock(&o->progress_lock);
        if (gk__remote_inbox_drain(&o->inbox) > 0 || !armed)
            continue; /* completions wait already */
        /* A message that waits for room in the inbox or in the provider
         * is looked at again soon; else sleep until something happens or
         * the next probe round (ofi_probe.c). */
        int timeout = deferred || atomic_load_explicit(&o->inbox.n_held, memory_order_relaxed) != 0
                          ? 1
                          : probe_ms;
        struct pollfd pfd[2] = {{.fd = o->cq_fd, .events = POLLIN},
                                {.fd = o->stop_fd[0], .events = POLLIN}};
        if (poll(pfd, 2, timeout) < 0 && errno != EINTR) {
            gk__error("the libfabric progress thread's poll failed: %s; it stops",
                      strerror(errno));
            break;
        }
    }
    return NULL;
}

int gk__ofi_thread_start(void)
{
    struct gk__ofi *o = &gk__ofi;
    if (pipe2(o->stop_fd, O_CLOEXEC) != 0) {
        gk__error("starting the libfabric progress thread failed: pipe: %s", strerror(errno));
        o->stop_fd[0] = o->stop_fd[1] = -1;
        return GK_ERR_SYSTEM;
    }
    atomic_store_explicit(&o->thread_stop, 0, memory_order_relaxed);
    atomic_store_explicit(&o->thread_running, 1, memory_order_relaxed);
    int err = pthread_create(&o->thread, NULL, ofi_thread_main, NULL);
    if (err != 0) {
        atomic_store_explicit(&o->thread_running, 0, memory_order_relaxed);
        gk__error("starting the libfabric progress thread failed: %s", strerror(err));
        return GK_ERR_SYSTEM;
    }
    return GK_OK;
}

void gk__ofi_thread_stop(void)
{
    struct gk__ofi *o = &gk__ofi;
    if (atomic_load_explicit(&o->thread_running, memory_order_relaxed)) {
        atomic_store_explicit(&o->thread_stop, 1, memory_order_release);
        char c = 1;
        if (write(o->stop_fd[1], &c, 1) != 1)
            gk__warn("stopping the libfabric progress thread: write: %s", strerror(errno));
        pthread_join(o->thread, NULL);
        atomic_store_explicit(&o->thread_running, 0, memory_order_relaxed);
    }
    for (int i = 0; i < 2; i++) {
        if (o->stop_fd[i] >= 0)
            close(o->stop_fd[i]);
        o->stop_fd[i] = -1;
    }
}

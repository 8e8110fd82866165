/*
 * remote.c: what the network transports share (remote.h).
 *
 * A remote operation (net.h, rop) waits for its reply in a slot: the
 * caller takes a free one, arms it with its answer, sends the slot's
 * token with the request, and the target sends the token back with the
 * reply, whose handler finds the slot by it, fills the answer and
 * completes the transport's request for the slot. A slot has rounds, one
 * per use, and the token names the round as well as the slot, because a
 * caller whose send or wait failed returns before the reply comes: its
 * answer is gone, so the reply that comes late must find a later round
 * and be dropped. That slot stays taken (the job is ending anyway), so
 * no new use of it can take such a reply for its own. Sending and waiting
 * are each transport's; the slots, rounds and tokens are here.
 */
#include "net/remote.h"

#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "boot/boot.h"
#include "gasket.h"
#include "net/shm_ring.h"

void gk__remote_inbox_init(struct gk__remote_inbox *in, char *seg_base)
{
    in->seg_base = seg_base;
    atomic_init(&in->released, 0);
    atomic_init(&in->next, 0);
    pthread_mutex_init(&in->lock, NULL);
    in->head = in->tail = NULL;
    atomic_init(&in->n_held, 0);
}

void gk__remote_inbox_fini(struct gk__remote_inbox *in)
{
    while (in->head != NULL) {
        struct gk__remote_held *next = in->head->next;
        free(in->head);
        in->head = next;
    }
    in->tail = NULL;
    atomic_store_explicit(&in->n_held, 0, memory_order_relaxed);
    pthread_mutex_destroy(&in->lock);
}

/* The progress engine's quiescence counts these (net.h: gk__net_am_landed). */
static int remote_push(struct gk__remote_inbox *in, const struct gk__net_am *msg,
                       const uint64_t *args, const void *data)
{
    int status = gk__ring_try_push(in->seg_base, msg, args, data, &in->released, &in->next);
    if (status == GK_OK)
        atomic_fetch_add_explicit(&gk__net_am_landed, 1, memory_order_release);
    return status;
}

/* Queues a message behind those held; lock taken. A message lost for want
 * of memory counts as landed, so that gk_finalize does not wait for it. */
static void remote_hold_locked(struct gk__remote_inbox *in, const struct gk__net_am *msg,
                               const uint64_t *args, const void *data, size_t data_len)
{
    struct gk__remote_held *h = malloc(sizeof(*h) + data_len);
    if (h == NULL) {
        gk__error("active message from PE %u: out of memory holding it for the full inbox "
                  "(%zu bytes); it is lost",
                  msg->src, sizeof(*h) + data_len);
        atomic_fetch_add_explicit(&gk__net_am_landed, 1, memory_order_release);
        return;
    }
    h->next = NULL;
    h->msg = *msg;
    memcpy(h->args, args, msg->nargs * sizeof(uint64_t));
    h->data_len = data_len;
    if (data_len > 0)
        memcpy(h->data, data, data_len);
    if (in->tail != NULL)
        in->tail->next = h;
    else
        in->head = h;
    in->tail = h;
    atomic_fetch_add_explicit(&in->n_held, 1, memory_order_release);
    atomic_fetch_add_explicit(&gk__net_am_waiting, 1, memory_order_release);
}

void gk__remote_inbox_land(struct gk__remote_inbox *in, const struct gk__net_am *msg,
                           const uint64_t *args, const void *data, size_t data_len)
{
    if (atomic_load_explicit(&in->n_held, memory_order_acquire) == 0 &&
        remote_push(in, msg, args, data) == GK_OK)
        return;
    pthread_mutex_lock(&in->lock);
    if (in->head != NULL || remote_push(in, msg, args, data) != GK_OK)
        remote_hold_locked(in, msg, args, data, data_len);
    pthread_mutex_unlock(&in->lock);
}

int gk__remote_inbox_drain(struct gk__remote_inbox *in)
{
    if (atomic_load_explicit(&in->n_held, memory_order_acquire) == 0)
        return 0;
    int moved = 0;
    pthread_mutex_lock(&in->lock);
    struct gk__remote_held *h;
    while ((h = in->head) != NULL &&
           remote_push(in, &h->msg, h->args, h->data_len > 0 ? h->data : NULL) == GK_OK) {
        in->head = h->next;
        if (in->head == NULL)
            in->tail = NULL;
        atomic_fetch_sub_explicit(&in->n_held, 1, memory_order_release);
        atomic_fetch_sub_explicit(&gk__net_am_waiting, 1, memory_order_release);
        free(h);
        moved++;
    }
    pthread_mutex_unlock(&in->lock);
    return moved;
}

unsigned gk__remote_slot_take(_Atomic uint64_t *taken, unsigned n_words)
{
    for (;;) {
        for (unsigned i = 0; i < n_words; i++) {
            uint64_t t = atomic_load_explicit(&taken[i], memory_order_relaxed);
            while (t != UINT64_MAX) {
                uint64_t bit = ~t & (t + 1); /* the lowest free */
                if (atomic_compare_exchange_weak_explicit(&taken[i], &t, t | bit,
                                                          memory_order_acquire,
                                                          memory_order_relaxed))
                    return i * 64 + (unsigned)__builtin_ctzll(bit);
            }
        }
        sched_yield(); /* as many operations in flight as slots: one ends soon */
    }
}

void gk__remote_slot_give(_Atomic uint64_t *taken, unsigned slot)
{
    atomic_fetch_and_explicit(&taken[slot / 64], ~((uint64_t)1 << (slot % 64)),
                              memory_order_release);
}

/* A token: the slot's round, then the slot. */
#define REMOTE_ROP_TOKEN(round, slot) ((round) << 16 | (slot))
#define REMOTE_ROP_TOKEN_SLOT(token) ((token) & 0xffff)
#define REMOTE_ROP_TOKEN_ROUND(token) ((token) >> 16)
_Static_assert(GK__REMOTE_ROP_SLOTS <= 0x10000, "a slot fits in a token's 16 bits");

uint64_t gk__remote_rop_arm(struct gk__remote_rop_table *t, unsigned slot,
                            struct gk__net_rop_answer *answer)
{
    struct gk__remote_rop_slot *s = &t->slots[slot];
    s->answer = answer; /* released with the round, which the reply checks */
    uint64_t round = atomic_load_explicit(&s->round, memory_order_relaxed) + 1;
    atomic_store_explicit(&s->round, round, memory_order_release);
    return REMOTE_ROP_TOKEN(round, (uint64_t)slot);
}

int gk__remote_rop_end(struct gk__remote_rop_table *t, uint64_t token, int status, int op, int pe)
{
    unsigned slot = (unsigned)REMOTE_ROP_TOKEN_SLOT(token);
    struct gk__remote_rop_slot *s = &t->slots[slot];
    if (status != GK_OK) {
        /* The job ends. The slot stays taken, and a late reply finds
         * another round: it is dropped, not written into *answer. */
        atomic_store_explicit(&s->round, REMOTE_ROP_TOKEN_ROUND(token) + 1,
                              memory_order_release);
        return status;
    }
    status = s->status;
    size_t max = s->answer->max;
    gk__remote_slot_give(t->taken, slot);
    if (status == GK_ERR_NOMEM) /* the target logs nothing for it */
        gk__error("remote operation %d to PE %d: it had no memory for a %zu-byte answer", op, pe,
                  max);
    return status;
}

int gk__remote_rop_find(struct gk__remote_rop_table *t, uint64_t token)
{
    uint64_t slot = REMOTE_ROP_TOKEN_SLOT(token);
    if (slot >= GK__REMOTE_ROP_SLOTS)
        return -1;
    if (atomic_load_explicit(&t->slots[slot].round, memory_order_acquire) !=
        REMOTE_ROP_TOKEN_ROUND(token))
        return -1; /* for a caller that gave up */
    return (int)slot;
}

void gk__remote_rop_fill(struct gk__remote_rop_table *t, int slot, int status, uint64_t result,
                         const void *data, size_t n, int from_pe, const char *refused_how)
{
    struct gk__remote_rop_slot *s = &t->slots[slot];
    struct gk__net_rop_answer *answer = s->answer;
    s->status = status;
    answer->result = result;
    answer->len = 0;
    if (n > answer->max || refused_how != NULL) {
        char from[32] = "the network";
        if (from_pe >= 0)
            snprintf(from, sizeof(from), "PE %d", from_pe);
        gk__error("remote operation reply from %s rejected: %zu bytes of answer%s, where the "
                  "caller takes %zu",
                  from, n, refused_how != NULL ? refused_how : "", answer->max);
        s->status = GK_ERR_UNSUPPORTED;
    } else if (n > 0) {
        memcpy(answer->data, data, n);
        answer->len = n;
    }
}

int gk__remote_rop_run(unsigned op, unsigned src, const uint64_t *args, const void *data,
                       size_t n, const char *refused, struct gk__net_rop_answer *answer)
{
    gk__net_rop_fn fn = gk__net_rop(op);
    if (fn == NULL) {
        gk__error("remote operation %u from PE %u refused: no such operation", op, src);
        return GK_ERR_UNSUPPORTED;
    }
    if (refused != NULL) {
        gk__error("remote operation %u from PE %u refused: %s", op, src, refused);
        return GK_ERR_UNSUPPORTED;
    }
    if (n == 0 || ((uintptr_t)data & (sizeof(uint64_t) - 1)) == 0 ||
        !gk__net_rop_wants_aligned(op))
        return fn(args, data, n, answer);
    /* A transport's message data need not be aligned (UCX's active
     * messages' is not), and this function reads words out of it. */
    uint64_t small[64];
    uint64_t *copy = n <= sizeof(small) ? small : malloc(n);
    if (copy == NULL) {
        gk__error("remote operation %u from PE %u refused: no memory to align its %zu bytes "
                  "of payload",
                  op, src, n);
        return GK_ERR_NOMEM;
    }
    memcpy(copy, data, n);
    int status = fn(args, copy, n, answer);
    if (copy != small)
        free(copy);
    return status;
}

int gk__remote_rop_serve(unsigned op, unsigned src, const uint64_t *args, const void *data,
                         size_t n, const char *refused, uint64_t answer_max, size_t max,
                         struct gk__net_rop_answer *answer)
{
    int status;
    *answer = (struct gk__net_rop_answer){.max = (size_t)answer_max};
    if (answer_max > max) {
        gk__error("remote operation %u from PE %u refused: it takes %llu bytes of answer, more "
                  "than the %zu a reply carries",
                  op, src, (unsigned long long)answer_max, max);
        status = GK_ERR_UNSUPPORTED;
    } else if (answer->max > 0 && (answer->data = malloc(answer->max)) == NULL) {
        status = GK_ERR_NOMEM; /* the caller says so (gk__remote_rop_end) */
    } else {
        status = gk__remote_rop_run(op, src, args, data, n, refused, answer);
    }
    if (status != GK_OK || answer->len > answer->max)
        answer->len = 0;
    return status;
}

void gk__remote_refusal_note(struct gk__remote_refusals *r, uint32_t pe, int status)
{
    uint64_t none = 0;
    atomic_compare_exchange_strong_explicit(&r->first, &none,
                                            ((uint64_t)pe + 1) << 32 | (uint32_t)status,
                                            memory_order_release, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->n, 1, memory_order_release);
}

int gk__remote_refusals_take(struct gk__remote_refusals *r)
{
    uint32_t n = atomic_exchange_explicit(&r->n, 0, memory_order_acquire);
    uint64_t first = atomic_exchange_explicit(&r->first, 0, memory_order_acquire);
    if (n == 0 || first == 0)
        return GK_OK; /* another thread's quiet took them */
    int pe = (int)(first >> 32) - 1, status = (int32_t)(uint32_t)first;
    gk__error("quiet: %u operation%s sent without waiting for a reply %s refused, the first "
              "by PE %d: %s (its log says why)",
              n, n == 1 ? "" : "s", n == 1 ? "was" : "were", pe, gk_strerror(status));
    return status;
}

/* How long a PE that lost a peer leaves the launcher to end the job. */
#define REMOTE_FAILURE_GRACE_MS 1000

void gk__remote_peer_failed(struct gk__boot *boot, int pe, const char *why)
{
    static atomic_flag reporting = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&reporting)) {
        for (;;)
            pause();
    }
    poll(NULL, 0, REMOTE_FAILURE_GRACE_MS);
    gk__error("PE %d: the network connection failed (%s)", pe, why);
    boot->ops->abort(boot, 1, "a network connection failed");
    /* The launcher now stops every PE; let its report name the failure. */
    if (boot->fd >= 0) {
        struct pollfd pfd = {.fd = boot->fd, .events = POLLIN};
        poll(&pfd, 1, 2000);
    }
    _exit(gk__boot_abort_status(1));
}

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
 * a free slot if there is one and is otherwise held: copied to a
 * per-target queue (net/shm_inbox.c), and sent in order, before anything
 * else this PE sends to that target, by the next progress call that finds
 * room. Waits run progress, so the queue drains as soon as the target
 * consumes. A sender outside a handler also runs its own inbox before each
 * message it sends (two loads when empty), so a PE that floods others
 * takes in their replies as it goes.
 *
 * How a message to a full inbox is held, what bounds the held messages,
 * and who wakes whom when there is room: net/shm_inbox.c.
 */
#include "core/progress.h"
#include "net/shm_inbox.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "core/allreduce.h"
#include "core/path.h"
#include "core/runtime.h"

/* Atomic: a program may register a handler while the progress thread
 * already runs the inbox. */
static _Atomic(gk_am_handler_t) am_table[GK__AM_TABLE_SIZE];
static atomic_flag consumer_busy = ATOMIC_FLAG_INIT;
_Thread_local int gk__in_handler __attribute__((tls_model("initial-exec")));
/* The PE table as the inbox's calls take it (net/shm_inbox.h): read at
 * each call, as gk_init and gk_finalize change it. */
#define INBOX_PES                                                              \
    (&(const struct gk__inbox_pes){gk__rt.my_seg.base, gk__rt.peers, gk__rt.my_pe, \
                                   gk__rt.n_pes})

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
    return gk__inbox_init(seg_base, n_pes);
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
    else if (kind == GK__AM_MEDIUM && msg->nbytes > GK__NET_AM_MAX_PAYLOAD)
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

static void am_run(const struct gk__inbox_msg *m)
{
    const struct gk__net_am *msg = m->am;
    if (am_check(msg, m->valid) != NULL)
        return;
    unsigned kind = msg->flags & GK__AM_KIND_MASK;
    void *payload = NULL;
    if (kind == GK__AM_MEDIUM)
        payload = m->payload;
    else if (kind == GK__AM_LONG)
        payload = gk__rt.heap + msg->dst_offset;
    struct gk_am_token token = {GK__AM_TOKEN_MAGIC, (int)msg->src,
                                !(msg->flags & GK__AM_REPLY)};
    if (token.src != gk__rt.my_pe)
        gk__race_acquire_own(); /* the sender's release came before the message */
    if (token.may_reply) /* why: gk__inbox_prefetch_reply */
        gk__inbox_prefetch_reply(&gk__rt.peers[token.src], token.src);
    gk__am_handler((int)msg->handler)(&token, payload, (size_t)msg->nbytes, m->args,
                                      msg->nargs);
    token.magic = 0;
}

int gk__progress_deferred_drain_all(void)
{
    return gk__inbox_drain_all(INBOX_PES);
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
    uint64_t last[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    for (;;) {
        int status = gk__progress_deferred_drain_all();
        if (status != GK_OK)
            return status;
        while (gk__progress() > 0 || gk__inbox_ready()) {
        }
        uint64_t mine[3];
        gk__inbox_tally(gk__rt.my_seg.base, mine);
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

static _Atomic(gk__progress_extra_fn *) progress_extra, progress_extra_ready;
/* Set on the progress thread (GK_PROGRESS_THREAD=1), whose loop runs the
 * extra work itself, to learn whether it moved. */
static _Thread_local int progress_on_own_thread;
int (*gk__handle_coll_complete)(const char *call, gk_handle_t *handle, int wait, int *done_p);

void gk__progress_set_extra(gk__progress_extra_fn *extra, gk__progress_extra_fn *ready)
{
    atomic_store_explicit(&progress_extra_ready, ready, memory_order_relaxed);
    atomic_store_explicit(&progress_extra, extra, memory_order_release);
}

int gk__progress_on_thread(void)
{
    return progress_on_own_thread;
}

void gk__progress_wake_sleepers(void)
{
    if (progress_running)
        gk__wake_all(&gk__rt.my_seg.header->wake);
}

/* The extra work, if any; whether it moved anything. */
static int progress_run_extra(void)
{
    gk__progress_extra_fn *extra = atomic_load_explicit(&progress_extra, memory_order_acquire);
    return extra != NULL ? extra() : 0;
}

int gk__progress(void)
{
    if (gk__in_handler || !gk__rt.initialized)
        return 0;
    if (!progress_on_own_thread)
        progress_run_extra();
    if (GK__UNLIKELY(gk__net_remote)) {
        int status = gk__net_progress_remote(); /* lands its messages in our inbox */
        if (status < 0)
            return status;
    }
    int threaded = gk__rt.threaded;
    if (threaded && atomic_flag_test_and_set_explicit(&consumer_busy, memory_order_acquire))
        return 0;
    char *seg_base = gk__rt.my_seg.base;
    /* What handlers could not send goes first: it was sent before
     * anything the coming batch sends. */
    if (GK__UNLIKELY(gk__inbox_holding(seg_base)))
        gk__inbox_flush_held(INBOX_PES);
    gk__in_handler = 1;
    int ran = 0;
    struct gk__inbox_msg m;
    /* A bounded batch, so a flood cannot keep a waiter from its own word. */
    while (ran < 64 && gk__inbox_take(seg_base, &m)) {
        am_run(&m);
        gk__inbox_release(seg_base, &m);
        ran++;
    }
    gk__in_handler = 0;
    if (GK__UNLIKELY(gk__inbox_holding(seg_base)))
        gk__inbox_flush_held(INBOX_PES);
    /* Others hold messages for us and we made room: wake them. */
    if (ran > 0 && GK__UNLIKELY(gk__inbox_backlog(seg_base)))
        gk__inbox_wake_holders(INBOX_PES);
    if (threaded)
        atomic_flag_clear_explicit(&consumer_busy, memory_order_release);
    return ran;
}

/* For a waiter about to sleep: a target with room for what we hold is
 * mail too (top comment). */
int gk__progress_inbox_ready(void)
{
    return gk__inbox_ready() || gk__inbox_room(INBOX_PES);
}

int gk__am_send(int pe, struct gk__net_am *msg, const uint64_t *args, const void *payload)
{
    if (pe != gk__rt.my_pe)
        gk__race_release(pe); /* a message synchronises its sender and its handler */
    msg->word |= (uint32_t)gk__rt.my_pe; /* src, a word's low half (msg's first word) */
    /* A long message that still carries its payload: it travels with the
     * message (am.c put it first otherwise). */
    int to_heap = (msg->flags & GK__AM_KIND_MASK) == GK__AM_LONG && payload != NULL;
    if (gk__in_handler)
        return gk__inbox_send_nowait(INBOX_PES, pe, msg, args, payload, to_heap);
    if (GK__UNLIKELY(gk__inbox_holds_for(pe))) {
        int status = gk__inbox_drain(INBOX_PES, pe); /* they were sent first */
        if (status != GK_OK)
            return status; /* the job is ending */
    } else {
        gk__progress_if_ready(); /* take in the replies we are owed (top comment) */
    }
    return gk__inbox_send(&gk__rt.peers[pe], pe, msg, args, payload, to_heap);
}

/* ------------------------------------------------------------------------ */
/* The progress thread                                                      */
/* ------------------------------------------------------------------------ */

static int inbox_ready_or_stopping(const void *arg)
{
    (void)arg;
    if (atomic_load_explicit(&progress_stopping, memory_order_acquire) ||
        gk__inbox_arrived(gk__rt.my_seg.base))
        return 1;
    gk__progress_extra_fn *ready =
        atomic_load_explicit(&progress_extra_ready, memory_order_acquire);
    return ready != NULL && ready();
}

static void *progress_main(void *arg)
{
    (void)arg;
    progress_on_own_thread = 1;
    gk__log_set_pe(gk__rt.my_pe);
    struct gk__wake *mine = &gk__rt.my_seg.header->wake;
    while (!atomic_load_explicit(&progress_stopping, memory_order_acquire)) {
        int ran = gk__progress();
        if (ran > 0 || progress_run_extra() > 0) {
            /* A thread of ours asleep may wait for a word these handlers
             * wrote (an AM's reply), or for a collective this thread
             * moved on: a local store wakes nobody. */
            atomic_thread_fence(memory_order_seq_cst); /* as gk__wake_notify */
            if (atomic_load_explicit(&mine->sleepers, memory_order_relaxed) != 0)
                gk__wake_all(mine);
            continue;
        }
        /* Every message wakes every sleeper of this PE (net/shm_ring.c), so the
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

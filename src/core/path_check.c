/*
 * path_check.c: the path layer in check mode (GK_CHECK=1, base/check.h):
 * non-blocking puts and gets to mapped peers recorded at their call and
 * done at their completion point, as a network would do them.
 *
 * A put takes its data from the source at the call (what the operation
 * moves is fixed then) and keeps the source's address, so the completion
 * point can tell a source changed before it (a reuse the network would
 * have sent half of). A get's destination holds GK__CHECK_POISON until
 * its completion point reads the target.
 */
#include <stddef.h>
#include <string.h>

#include "base/check.h"
#include "base/log.h"
#include "core/path.h"

/* op->flags of a put: whether it owes its wake-up check (gk__path_wake). */
#define CHECK_PUT_DEFER_WAKE 1

static void check_apply_put(const struct gk__check_op *op)
{
    struct gk__net_peer *peer = &gk__rt.peers[op->pe];
    gk__shm_copy_to(peer, op->offset, op->data, op->n);
    if ((op->flags & CHECK_PUT_DEFER_WAKE) && op->n > peer->put_wakes_max)
        gk__path_defer_wake(op->pe, op->offset, op->offset + op->n);
}

static void check_apply_get(const struct gk__check_op *op)
{
    gk__shm_get(&gk__rt.peers[op->pe], op->local, op->offset, op->n);
    gk__race_acquire_at(op->pe, op->offset, op->n);
}

int gk__path_check_put(const char *what, int pe, size_t offset, const void *src, size_t n,
                       enum gk__path_wake wake, int held)
{
    struct gk__check_op *op = gk__check_op_new(what, n);
    if (op == NULL) { /* done now: correct, only unchecked */
        gk__shm_copy_to(&gk__rt.peers[pe], offset, src, n);
        if (wake == GK__PATH_DEFER_WAKE && n > gk__rt.peers[pe].put_wakes_max)
            gk__path_defer_wake(pe, offset, offset + n);
        return GK_OK;
    }
    op->apply = check_apply_put;
    op->pe = pe;
    op->flags = wake == GK__PATH_DEFER_WAKE ? CHECK_PUT_DEFER_WAKE : 0;
    op->offset = offset;
    op->src = held ? src : NULL;
    memcpy(op->data, src, n);
    gk__check_push(op);
    return GK_OK;
}

/* What a deferred signaling put keeps after its payload. */
struct check_signal {
    uint64_t sig_offset;
    uint64_t signal;
    uint64_t amo;
};

/* The payload, then the signal's atomic and wake-up check as
 * gk__path_amo_mapped makes them, less its completion point: this runs
 * inside one. */
static void check_apply_put_signal(const struct gk__check_op *op)
{
    struct gk__net_peer *peer = &gk__rt.peers[op->pe];
    struct check_signal sig;
    memcpy(&sig, op->data + op->n, sizeof(sig));
    if (op->n > 0)
        gk__shm_copy_to(peer, op->offset, op->data, op->n);
    (void)gk__shm_rmw(gk__shm_addr(peer, sig.sig_offset), (enum gk__amo_op)sig.amo, 8,
                      sig.signal, 0);
    gk__shm_notify_after_rmw(peer, sig.sig_offset, sig.sig_offset + 8);
    gk__path_wake_done(op->pe, sig.sig_offset, sig.sig_offset + 8);
}

int gk__path_check_put_signal(const char *what, int pe, size_t offset, const void *src,
                              size_t n, enum gk__amo_op amo, size_t sig_offset, uint64_t signal)
{
    struct check_signal sig = {sig_offset, signal, (uint64_t)amo};
    struct gk__check_op *op = gk__check_op_new(what, n + sizeof(sig));
    if (op == NULL) { /* done now: correct, only unchecked */
        if (n > 0)
            gk__shm_copy_to(&gk__rt.peers[pe], offset, src, n);
        return gk__path_amo(pe, amo, 8, sig_offset, signal, 0, NULL);
    }
    op->apply = check_apply_put_signal;
    op->pe = pe;
    op->offset = offset;
    op->src = n > 0 ? src : NULL;
    op->n = n; /* what the source is compared over */
    if (n > 0)
        memcpy(op->data, src, n);
    memcpy(op->data + n, &sig, sizeof(sig));
    gk__check_push(op);
    return GK_OK;
}

int gk__path_check_get(const char *what, int pe, void *dst, size_t offset, size_t n)
{
    struct gk__check_op *op = gk__check_op_new(what, 0);
    if (op == NULL) {
        gk__shm_get(&gk__rt.peers[pe], dst, offset, n);
        gk__race_acquire_at(pe, offset, n);
        return GK_OK;
    }
    op->apply = check_apply_get;
    op->pe = pe;
    op->offset = offset;
    op->local = dst;
    op->n = n;
    memset(dst, GK__CHECK_POISON, n);
    gk__check_push(op);
    return GK_OK;
}

void gk__path_check_complete_slow(const char *point)
{
    gk__check_drain(point);
    /* The puts just done owe their wake-up checks like any others; a
     * completion point that sleeps next must pay them first. */
    gk__path_flush_wakes();
}

/* The program's own wait this thread is in, if any, and whether its last
 * look before sleeping found every other PE in gk_finalize already. */
static _Thread_local const struct gk__path_user_wait *check_user_wait;
static _Thread_local int check_user_wait_alone;

int gk__path_check_wait_user(const struct gk__path_user_wait *w, int spun)
{
    const struct gk__path_user_wait *outer = check_user_wait;
    int outer_alone = check_user_wait_alone;
    check_user_wait = w;
    check_user_wait_alone = 0;
    int status = gk__path_wait_own_spun(w->watch, w->pred, w->arg, 0, spun);
    check_user_wait = outer;
    check_user_wait_alone = outer_alone;
    return status;
}

/*
 * Every other PE has entered gk_finalize, each after completing its own
 * operations (gk__path_check_finalizing), and the program's wait still
 * does not hold: no PE is left to write the word, and the job would hang
 * in the others' finalize barrier until the launcher's time limit. End it
 * now, naming the wait. A thread of this PE could still write the word:
 * threaded programs are not judged. An active message a PE sent before
 * its finalize may still be on its way through a network (quiet does not
 * wait for it), and its handler may be the writer: the verdict waits for
 * a second look, after one more sleep and the progress that follows it.
 */
static void check_user_wait_stuck(void)
{
    const struct gk__path_user_wait *w = check_user_wait;
    if (w == NULL || gk__rt.threaded || !gk__rt.initialized)
        return;
    uint64_t there = atomic_load_explicit(&gk__rt.my_seg.header->check_finalized,
                                          memory_order_acquire);
    if (there < (uint64_t)gk__rt.n_pes - 1 || w->pred(w->arg))
        return;
    if (!check_user_wait_alone) {
        check_user_wait_alone = 1;
        return;
    }
    char cond[160] = "its condition";
    if (w->describe != NULL)
        w->describe(w->arg, cond, sizeof(cond));
    /* A word of the heap by its offset there (the same on every PE); a
     * symmetric global's address is in the condition already. */
    if (w->watch != GK__WAKE_WATCH_ANY && w->watch >= GK__SEG_HEAP_OFFSET &&
        w->watch - GK__SEG_HEAP_OFFSET < gk__rt.heap_span)
        gk__error("check: wait that cannot end: PE %d waits in %s until %s, on the word at "
                  "heap offset %llu, and every other PE has reached gk_finalize: none is "
                  "left to write it",
                  gk__rt.my_pe, w->op, cond,
                  (unsigned long long)(w->watch - GK__SEG_HEAP_OFFSET));
    else
        gk__error("check: wait that cannot end: PE %d waits in %s until %s, and every "
                  "other PE has reached gk_finalize: none is left to write it",
                  gk__rt.my_pe, w->op, cond);
    gk_abort(1, "check mode: a wait that cannot end");
}

/* A wait about to sleep completes what this PE issued: a program that
 * waits for its own put_nbi's answer without quiet would otherwise never
 * see it (a network delivers in the end), and check mode must not hang
 * what runs elsewhere. Then the transports' own step before sleeping. */
static void check_before_sleep(void)
{
    gk__path_check_complete("a wait");
    check_user_wait_stuck();
    gk__net_before_sleep();
}

void gk__path_check_finalizing(void)
{
    if (!gk__check_on)
        return;
    /* What this PE wrote lands before the others learn it is here: a wait
     * it ends holds by their last look. */
    (void)gk__path_quiet();
    size_t at = offsetof(struct gk__seg_header, check_finalized);
    for (int pe = 0; pe < gk__rt.n_pes; pe++)
        if (pe != gk__rt.my_pe)
            (void)gk__path_amo(pe, GK__AMO_FETCH_ADD, 8, at, 1, 0, NULL);
    (void)gk__path_quiet();
}

void gk__path_check_open(unsigned setting)
{
    gk__check_on = setting != 0; /* 0 or 1: base/config.c checked */
    if (gk__check_on)
        gk__wait_policy.before_sleep = check_before_sleep;
}

void gk__path_check_close(void)
{
    if (gk__check_on)
        gk__check_fini();
    gk__check_on = 0;
}

/*
 * ucx_progress.c: how the UCX transport moves on: the progress thread,
 * the transport's progress call, and waits for the requests UCX returns.
 *
 * The progress thread makes this PE a passive target: UCX's TCP transport
 * emulates remote memory access and atomics with messages that the
 * target's worker must handle, and gasket's active messages and wake-ups
 * arrive the same way. The thread drives the worker until it has nothing
 * to do, then arms it and sleeps in poll() on its event descriptor: no
 * spinning and no timer, so an idle PE costs nothing. ucx_close (ucx.c) wakes
 * it with ucp_worker_signal.
 *
 * One thread drives the worker at a time (progress_lock): two drivers
 * would take turns at the worker's lock and the network's sockets, each
 * turn a context switch where a PE's threads share a core (more PEs than
 * cores, or gasket-run --bind). A thread that waits for a request of its
 * own (a get, a fetching atomic, a flush) drives the worker itself while
 * it spins and yields, holding the drive for that whole time: the answer
 * it waits for then costs no thread wake-up, and the progress thread
 * stands aside (below, "Hand-over").
 * Past that it lets go and sleeps on its request's completion word, a
 * futex that the request's callback sets on whichever thread drives (or,
 * without the progress thread, in poll() on the worker's descriptor), as
 * every wait in gasket sleeps (base/wait.h). The application's other
 * calls into progress (the spin and yield phases of its waits, gk_poll)
 * drive the worker too when no other thread does: a message then lands in
 * the thread that waits for it, without the progress thread's wake-up in
 * between (half the round trip of an active message or a send on these
 * machines).
 *
 * Hand-over. A thread asleep in poll() on the worker's descriptor costs
 * its CPU a wake-up at every arrival, even one that another thread takes
 * from the socket first: with a PE and its progress thread on one CPU,
 * a fifth of a get's round trip across hosts and two thirds of an active
 * message's (these machines, TCP on loopback). So while the application
 * drives the worker itself (its waits and gk_poll do), the progress
 * thread parks on a futex of its own instead, and looks again after
 * GK_UCX_HANDOVER_US. It takes the worker back when a look finds that
 * the application did not drive since the last one (it computes), or at
 * once when an application thread goes to sleep (gk__ucx_before_sleep).
 * Each look that finds the application still driving doubles the next
 * park, up to GK_UCX_HANDOVER_MAX_US; taking the worker back starts
 * again from GK_UCX_HANDOVER_US. Each look is a wake-up on the PE's CPU
 * in the middle of its gasket calls (at 500 us, a fetch-add across hosts
 * took 20 us where at 10 ms it took 14), so a PE that keeps calling
 * gasket is looked at rarely, and one that called it briefly is served
 * within GK_UCX_HANDOVER_US once it computes. The price: after a long run
 * of calls, an arrival may wait up to GK_UCX_HANDOVER_MAX_US before the
 * thread notices that the PE computes. Only time tells the two apart: a
 * PE between two calls and a PE that computes look alike, and a thread
 * woken at every arrival (or every call's end) costs more than the looks.
 * An application thread that drives while the progress thread sleeps on
 * the descriptor sends it to park (ucp_worker_signal).
 */
#include "net/ucx_int.h"

#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/wait.h"
#include "gasket.h"

/* An application thread drives the worker (top comment, "Hand-over"):
 * a progress thread asleep on the worker's descriptor goes to park. */
static inline void ucx_app_drives(struct gk__ucx *u)
{
    atomic_store_explicit(&u->app_drives,
                          atomic_load_explicit(&u->app_drives, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    int polls = GK__UCX_THREAD_POLLS;
    if (atomic_load_explicit(&u->thread_mode, memory_order_relaxed) == polls &&
        atomic_compare_exchange_strong_explicit(&u->thread_mode, &polls, GK__UCX_THREAD_BUSY,
                                                memory_order_relaxed, memory_order_relaxed))
        ucp_worker_signal(u->worker);
}

/* Drives the worker until it is idle; one thread at a time. */
static int ucx_drive(void)
{
    if (pthread_mutex_trylock(&gk__ucx.progress_lock) != 0)
        return 0; /* another thread drives it: nothing to add */
    ucx_app_drives(&gk__ucx);
    int events = (int)ucp_worker_progress(gk__ucx.worker);
    pthread_mutex_unlock(&gk__ucx.progress_lock);
    return events;
}

int gk__ucx_progress(void)
{
    return ucx_drive() + gk__remote_inbox_drain(&gk__ucx.inbox);
}

/* ------------------------------------------------------------------------ */
/* Requests                                                                 */
/* ------------------------------------------------------------------------ */

void gk__ucx_req_init(void *request)
{
    struct gk__ucx_req *r = request;
    atomic_init(&r->done, 0);
    atomic_init(&r->sleeping, 0);
    r->status = UCS_OK;
}

/* The callback of every request that is waited for: on the driving
 * thread, once, before UCX marks the request complete. */
void gk__ucx_req_done(void *request, ucs_status_t status, void *user_data)
{
    struct gk__ucx_req *r = request;
    r->status = status;
    atomic_store_explicit(&r->done, 1, memory_order_seq_cst);
    /* Pairs with the waiter's sleeping = 1 then done check (seq_cst both):
     * either we see the sleeper, or it sees done. */
    if (atomic_load_explicit(&r->sleeping, memory_order_seq_cst))
        syscall(SYS_futex, &r->done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Sleeps (at most sleep_ms) on `word` while it differs from `want`: the
 * completion word of a request, or a count waited to reach 0. */
static void ucx_word_sleep(_Atomic uint32_t *word, uint32_t want, _Atomic uint32_t *sleepers,
                           unsigned sleep_ms)
{
    struct gk__ucx *u = &gk__ucx;
    atomic_fetch_add_explicit(&u->app_req_sleepers, 1, memory_order_seq_cst);
    gk__ucx_before_sleep();
    atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
    uint32_t seen = atomic_load_explicit(word, memory_order_seq_cst);
    if (seen != want) {
        struct timespec ts = {(time_t)(sleep_ms / 1000), (long)(sleep_ms % 1000) * 1000000L};
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
    }
    atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&u->app_req_sleepers, 1, memory_order_relaxed);
}

/* Sleeps until the worker has an event (or `timeout_ms` passes): the wait
 * of a thread that drives the worker itself. */
static void ucx_worker_sleep(int timeout_ms)
{
    if (pthread_mutex_trylock(&gk__ucx.progress_lock) != 0) {
        sched_yield(); /* another thread drives: it will complete ours */
        return;
    }
    ucs_status_t st = ucp_worker_arm(gk__ucx.worker);
    pthread_mutex_unlock(&gk__ucx.progress_lock);
    if (st == UCS_ERR_BUSY)
        return; /* events wait already */
    if (st != UCS_OK) {
        sched_yield();
        return;
    }
    struct pollfd pfd = {.fd = gk__ucx.efd, .events = POLLIN};
    poll(&pfd, 1, timeout_ms);
}

/* Set while a wait asks whether the job is alive: the check may itself
 * wait for a request of ours (a peer's collective word, read through
 * UCX), and that wait must not ask again. */
static _Thread_local int ucx_checking_alive;

/* Waits until *word is `want`, driving the worker or sleeping on the word
 * (top comment); GK_OK, or the job's end. */
static int ucx_wait_word(_Atomic uint32_t *word, uint32_t want, _Atomic uint32_t *sleepers)
{
    const struct gk__wait_policy *policy = &gk__wait_policy;
    unsigned sleep_ms = policy->sleep_ms ? policy->sleep_ms : 1;
    unsigned busy = policy->spin_count + policy->yield_count;
    /* While it spins and yields, the waiter drives the worker itself,
     * holding the drive for the whole time (top comment). */
    int driving = busy > 0 && pthread_mutex_trylock(&gk__ucx.progress_lock) == 0;
    if (driving)
        ucx_app_drives(&gk__ucx);
    for (unsigned polls = 0; atomic_load_explicit(word, memory_order_acquire) != want;) {
        int threaded = atomic_load_explicit(&gk__ucx.thread_running, memory_order_relaxed);
        if (driving ? ucp_worker_progress(gk__ucx.worker) != 0 : !threaded && ucx_drive() > 0)
            continue;
        polls++;
        if (polls <= policy->spin_count) {
            gk__cpu_relax();
        } else if (polls <= busy) {
            sched_yield();
        } else {
            if (driving) {
                pthread_mutex_unlock(&gk__ucx.progress_lock);
                driving = 0;
            }
            if (threaded)
                ucx_word_sleep(word, want, sleepers, sleep_ms);
            else
                ucx_worker_sleep((int)sleep_ms);
            if (atomic_load_explicit(word, memory_order_acquire) != want &&
                policy->check_alive != NULL && !ucx_checking_alive) {
                ucx_checking_alive = 1;
                int alive = policy->check_alive();
                ucx_checking_alive = 0;
                if (alive != GK_OK)
                    return alive;
            }
        }
    }
    if (driving)
        pthread_mutex_unlock(&gk__ucx.progress_lock);
    return GK_OK;
}

int gk__ucx_wait_done(struct gk__ucx_req *r)
{
    return ucx_wait_word(&r->done, 1, &r->sleeping);
}

int gk__ucx_wait_zero(_Atomic uint32_t *count, _Atomic uint32_t *sleepers)
{
    return ucx_wait_word(count, 0, sleepers);
}

void gk__ucx_zero_reached(_Atomic uint32_t *count, _Atomic uint32_t *sleepers)
{
    /* The caller's seq_cst decrement, then this load, pair with
     * ucx_word_sleep's sleepers++ then load of the count. */
    if (atomic_load_explicit(sleepers, memory_order_seq_cst) != 0)
        syscall(SYS_futex, count, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

int gk__ucx_wait(ucs_status_ptr_t request, const char *what, int pe)
{
    if (request == NULL)
        return GK_OK; /* done at once: no callback comes */
    if (UCS_PTR_IS_ERR(request))
        return gk__ucx_status(UCS_PTR_STATUS(request), what, pe);
    struct gk__ucx_req *r = request;
    int alive = gk__ucx_wait_done(r);
    /* The job ends. The request is left to UCX, never freed: its callback
     * may still come. */
    if (alive != GK_OK)
        return alive;
    ucs_status_t st = r->status;
    /* Ready for its next use: UCX does not initialize a recycled request. */
    gk__ucx_req_init(r);
    ucp_request_free(r);
    return gk__ucx_status(st, what, pe);
}

/* ------------------------------------------------------------------------ */
/* The progress thread                                                      */
/* ------------------------------------------------------------------------ */

static uint64_t ucx_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Threads of this PE asleep in a gasket wait or on a request of theirs. */
static int ucx_app_asleep(struct gk__ucx *u)
{
    return atomic_load_explicit(&u->my_wake->sleepers, memory_order_seq_cst) != 0 ||
           atomic_load_explicit(&u->app_req_sleepers, memory_order_seq_cst) != 0;
}

/*
 * After the worker went idle, while this PE's application sleeps in a
 * gasket wait, the thread polls the worker for linger_us more before it
 * arms it and sleeps itself, yielding between polls: requests from other
 * PEs come in streams (a latency loop, a lock's queue), and one that
 * arrives within the lingering costs no wake-up of this thread, the larger
 * part of a round trip on these machines. Only then: an application that
 * computes, or spins in a wait of its own, may share this thread's CPU,
 * and a thread that polls beside it takes that CPU in turns, for a whole
 * time slice at a time, where a thread woken from poll() gets it at once.
 */
static void ucx_thread_linger(struct gk__ucx *u)
{
    if (u->linger_us == 0 || !ucx_app_asleep(u))
        return;
    uint64_t until = ucx_now_us() + u->linger_us;
    while (!atomic_load_explicit(&u->thread_stop, memory_order_relaxed) && ucx_app_asleep(u)) {
        int events = 0;
        if (pthread_mutex_trylock(&u->progress_lock) == 0) {
            while (ucp_worker_progress(u->worker) != 0)
                events++;
            pthread_mutex_unlock(&u->progress_lock);
        }
        if (events > 0 || gk__remote_inbox_drain(&u->inbox) > 0)
            until = ucx_now_us() + u->linger_us;
        else if (ucx_now_us() >= until)
            return;
        if (gk__wait_oversubscribed())
            sched_yield();
        else
            gk__cpu_relax();
    }
}

/* The hand-over (top comment): parks for up to park_us, unless an
 * application thread sleeps (or goes to: it rings thread_bell). */
static void ucx_thread_park(struct gk__ucx *u)
{
    uint32_t bell = atomic_load_explicit(&u->thread_bell, memory_order_seq_cst);
    /* Pairs with gk__ucx_before_sleep (seq_cst both): either it sees us
     * parked and rings, or we see its sleeper. */
    atomic_store_explicit(&u->thread_mode, GK__UCX_THREAD_PARKED, memory_order_seq_cst);
    if (!ucx_app_asleep(u) && !atomic_load_explicit(&u->thread_stop, memory_order_acquire)) {
        struct timespec ts = {(time_t)(u->park_us / 1000000),
                              (long)(u->park_us % 1000000) * 1000L};
        syscall(SYS_futex, &u->thread_bell, FUTEX_WAIT_PRIVATE, bell, &ts, NULL, 0);
    }
    atomic_store_explicit(&u->thread_mode, GK__UCX_THREAD_BUSY, memory_order_relaxed);
}

void gk__ucx_before_sleep(void)
{
    struct gk__ucx *u = &gk__ucx;
    if (atomic_load_explicit(&u->thread_mode, memory_order_seq_cst) == GK__UCX_THREAD_PARKED) {
        atomic_fetch_add_explicit(&u->thread_bell, 1, memory_order_seq_cst);
        syscall(SYS_futex, &u->thread_bell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

/* Whether the application drove the worker since the last look (`seen`),
 * or drives it now, while none of its threads sleeps: then the thread
 * parks (top comment, "Hand-over"). */
static int ucx_app_drives_itself(struct gk__ucx *u, uint64_t *seen)
{
    int drove = 0;
    if (u->handover_us != 0 && !ucx_app_asleep(u)) {
        uint64_t drives = atomic_load_explicit(&u->app_drives, memory_order_relaxed);
        drove = drives != *seen;
        *seen = drives;
    }
    /* The next park: longer while the application keeps driving. */
    if (!drove)
        u->park_us = u->handover_us;
    else if (u->park_us < u->handover_max_us)
        u->park_us = u->park_us * 2 < u->handover_max_us ? u->park_us * 2 : u->handover_max_us;
    return drove;
}

static void *ucx_thread_main(void *arg)
{
    struct gk__ucx *u = &gk__ucx;
    uint64_t seen = atomic_load_explicit(&u->app_drives, memory_order_relaxed);
    while (!atomic_load_explicit(&u->thread_stop, memory_order_acquire)) {
        if (ucx_app_drives_itself(u, &seen) ||
            pthread_mutex_trylock(&u->progress_lock) != 0) {
            ucx_thread_park(u);
            continue;
        }
        while (ucp_worker_progress(u->worker) != 0) {
        }
        pthread_mutex_unlock(&u->progress_lock);
        gk__remote_inbox_drain(&u->inbox);
        ucx_thread_linger(u);
        if (pthread_mutex_trylock(&u->progress_lock) != 0) {
            ucx_thread_park(u);
            continue;
        }
        while (ucp_worker_progress(u->worker) != 0) {
        }
        ucs_status_t st = ucp_worker_arm(u->worker);
        pthread_mutex_unlock(&u->progress_lock);
        gk__remote_inbox_drain(&u->inbox);
        if (st == UCS_ERR_BUSY)
            continue;
        if (st != UCS_OK) {
            gk__error("the UCX progress thread cannot sleep on the worker (ucp_worker_arm: "
                      "%s); it stops",
                      ucs_status_string(st));
            break;
        }
        /* An application thread that drives from now on sees POLLS and
         * signals the worker; one that drove since the look above is
         * caught here. */
        atomic_store_explicit(&u->thread_mode, GK__UCX_THREAD_POLLS, memory_order_seq_cst);
        if (atomic_load_explicit(&u->thread_stop, memory_order_acquire))
            break;
        if (ucx_app_drives_itself(u, &seen)) {
            atomic_store_explicit(&u->thread_mode, GK__UCX_THREAD_BUSY, memory_order_relaxed);
            continue;
        }
        struct pollfd pfd = {.fd = u->efd, .events = POLLIN};
        int ready = poll(&pfd, 1, -1);
        atomic_store_explicit(&u->thread_mode, GK__UCX_THREAD_BUSY, memory_order_relaxed);
        if (ready < 0 && errno != EINTR) {
            gk__error("the UCX progress thread's poll failed: %s; it stops", strerror(errno));
            break;
        }
    }
    atomic_store_explicit(&u->thread_mode, GK__UCX_THREAD_BUSY, memory_order_relaxed);
    return NULL;
}

int gk__ucx_thread_start(void)
{
    atomic_store_explicit(&gk__ucx.thread_stop, 0, memory_order_relaxed);
    /* Before the thread drives: from now on application threads do not. */
    atomic_store_explicit(&gk__ucx.thread_running, 1, memory_order_relaxed);
    int err = pthread_create(&gk__ucx.thread, NULL, ucx_thread_main, NULL);
    if (err != 0) {
        atomic_store_explicit(&gk__ucx.thread_running, 0, memory_order_relaxed);
        gk__error("starting the UCX progress thread failed: %s", strerror(err));
        return GK_ERR_SYSTEM;
    }
    return GK_OK;
}

void gk__ucx_thread_stop(void)
{
    if (!atomic_load_explicit(&gk__ucx.thread_running, memory_order_relaxed))
        return;
    atomic_store_explicit(&gk__ucx.thread_stop, 1, memory_order_release);
    /* ucp_worker_signal wakes a poll() that is under way or about to be;
     * the bell, a park. */
    ucp_worker_signal(gk__ucx.worker);
    atomic_fetch_add_explicit(&gk__ucx.thread_bell, 1, memory_order_seq_cst);
    syscall(SYS_futex, &gk__ucx.thread_bell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    pthread_join(gk__ucx.thread, NULL);
    atomic_store_explicit(&gk__ucx.thread_running, 0, memory_order_relaxed);
}

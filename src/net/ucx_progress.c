/*
 * ucx_progress.c: how the UCX transport moves on: waits for the requests
 * UCX returns, the transport's progress call, and the progress thread.
 *
 * The progress thread makes this PE a passive target: UCX's TCP transport
 * emulates remote memory access and atomics with messages that the
 * target's worker must handle, and gasket's active messages and wake-ups
 * arrive the same way. The thread drives the worker until it has nothing
 * to do, then arms it and sleeps in poll() on its event descriptor: no
 * spinning and no timer, so an idle PE costs nothing. gk__ucx_close wakes
 * it with ucp_worker_signal.
 *
 * A thread that waits for a request of its own (a get, a fetching atomic,
 * a flush) drives the worker itself, spinning, then yielding, then
 * sleeping in poll() too, as every wait in gasket does (base/wait.h); the
 * sleep is bounded by GK_SLEEP_MS, so a wait checks now and then that the
 * job is alive.
 */
#include "net/ucx_int.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "gasket.h"

int gk__ucx_progress(void)
{
    /* One thread drives the worker at a time; the others have nothing
     * to add (whatever they wait for, the driver completes). */
    if (pthread_mutex_trylock(&gk__ucx.progress_lock) != 0)
        return 0;
    int events = 0;
    while (ucp_worker_progress(gk__ucx.worker) != 0)
        events++;
    pthread_mutex_unlock(&gk__ucx.progress_lock);
    return events + gk__ucx_held_drain();
}

/* Sleeps until the worker has an event (or `timeout_ms` passes). */
static void ucx_sleep(int timeout_ms)
{
    ucs_status_t st = ucp_worker_arm(gk__ucx.worker);
    if (st == UCS_ERR_BUSY)
        return; /* events already wait */
    if (st != UCS_OK) {
        /* Cannot sleep on it: give the CPU away instead. */
        sched_yield();
        return;
    }
    struct pollfd pfd = {.fd = gk__ucx.efd, .events = POLLIN};
    poll(&pfd, 1, timeout_ms);
}

int gk__ucx_wait(ucs_status_ptr_t request, const char *what, int pe)
{
    if (request == NULL)
        return GK_OK;
    if (UCS_PTR_IS_ERR(request))
        return gk__ucx_status(UCS_PTR_STATUS(request), what, pe);
    const struct gk__wait_policy *policy = &gk__wait_policy;
    ucs_status_t st;
    for (unsigned polls = 0; (st = ucp_request_check_status(request)) == UCS_INPROGRESS;) {
        if (gk__ucx_progress() > 0)
            continue;
        polls++;
        if (polls <= policy->spin_count) {
            gk__cpu_relax();
        } else if (polls <= policy->spin_count + policy->yield_count) {
            sched_yield();
        } else {
            ucx_sleep((int)(policy->sleep_ms ? policy->sleep_ms : 1));
            if (policy->check_alive != NULL && policy->check_alive() != GK_OK) {
                /* The job ends; UCX may still write into the request. */
                ucp_request_cancel(gk__ucx.worker, request);
                ucp_request_free(request);
                return GK_ERR_UNREACHABLE;
            }
        }
    }
    ucp_request_free(request);
    return gk__ucx_status(st, what, pe);
}

static void *ucx_thread_main(void *arg)
{
    struct gk__ucx *u = &gk__ucx;
    while (!atomic_load_explicit(&u->thread_stop, memory_order_acquire)) {
        pthread_mutex_lock(&u->progress_lock);
        while (ucp_worker_progress(u->worker) != 0) {
        }
        pthread_mutex_unlock(&u->progress_lock);
        gk__ucx_held_drain();
        ucs_status_t st = ucp_worker_arm(u->worker);
        if (st == UCS_ERR_BUSY)
            continue;
        if (st != UCS_OK) {
            gk__error("the UCX progress thread cannot sleep on the worker (ucp_worker_arm: "
                      "%s); it stops",
                      ucs_status_string(st));
            break;
        }
        if (atomic_load_explicit(&u->thread_stop, memory_order_acquire))
            break;
        struct pollfd pfd = {.fd = u->efd, .events = POLLIN};
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
            gk__error("the UCX progress thread's poll failed: %s; it stops", strerror(errno));
            break;
        }
    }
    return NULL;
}

int gk__ucx_thread_start(void)
{
    atomic_store_explicit(&gk__ucx.thread_stop, 0, memory_order_relaxed);
    int err = pthread_create(&gk__ucx.thread, NULL, ucx_thread_main, NULL);
    if (err != 0) {
        gk__error("starting the UCX progress thread failed: %s", strerror(err));
        return GK_ERR_SYSTEM;
    }
    gk__ucx.thread_running = 1;
    return GK_OK;
}

void gk__ucx_thread_stop(void)
{
    if (!gk__ucx.thread_running)
        return;
    atomic_store_explicit(&gk__ucx.thread_stop, 1, memory_order_release);
    /* ucp_worker_signal wakes a poll() that is under way or about to be. */
    ucp_worker_signal(gk__ucx.worker);
    pthread_join(gk__ucx.thread, NULL);
    gk__ucx.thread_running = 0;
}

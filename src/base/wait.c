/*
 * wait.c: the slow half of waiting (yield and futex sleep). The protocol and
 * its memory ordering are described in wait.h.
 */
#include "base/wait.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gasket.h"

static int wait_always_alive(void)
{
    return GK_OK;
}

struct gk__wait_policy gk__wait_policy = {
    .spin_count = 2000,
    .yield_count = 100,
    .sleep_ms = 100,
    .check_alive = wait_always_alive,
};

/* Not FUTEX_PRIVATE: the word is in memory shared between processes. */
static void futex_wait(_Atomic uint32_t *word, uint32_t expected, unsigned ms)
{
    struct timespec timeout = {.tv_sec = ms / 1000,
                               .tv_nsec = (long)(ms % 1000) * 1000000L};
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, &timeout, NULL, 0);
}

void gk__wake_all(struct gk__wake *wake)
{
    atomic_fetch_add_explicit(&wake->seq, 1, memory_order_release);
    syscall(SYS_futex, (uint32_t *)&wake->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}


int gk__wait_for(struct gk__wake *wake, uint64_t watch, gk__wait_pred_fn pred,
                 const void *arg)
{
    return gk__wait_for_spun(wake, watch, pred, arg, 0, 0);
}

int gk__wait_for_spun(struct gk__wake *wake, uint64_t watch, gk__wait_pred_fn pred,
                      const void *arg, unsigned extra_yields, int spun)
{
    const struct gk__wait_policy *policy = &gk__wait_policy;
    unsigned yields = policy->yield_count + extra_yields;
    /* The caller's own spin counts as the first spin phase (not a later
     * one: messages that arrive while we yield bring the spin back). */
    unsigned spins = spun ? 0 : policy->spin_count;
    /*
     * Waits here are for other PEs (barriers, locks, receives), which may
     * need our handlers to get there: run the inbox on every poll, and
     * while messages keep coming stay in the spin phase, where a reply
     * costs no wake-up.
     */
    goto spin;
restart:
    spins = policy->spin_count;
spin:
    for (unsigned i = 0; i < spins; i++) {
        if (pred(arg))
            return GK_OK;
        if (gk__wait_progress() > 0)
            i = 0;
        gk__cpu_relax();
    }
    for (unsigned i = 0; i < yields; i++) {
        if (pred(arg))
            return GK_OK;
        if (gk__wait_progress() > 0)
            goto restart;
        sched_yield();
    }
    for (;;) {
        if (gk__wait_progress() > 0)
            goto restart;
        /* One watch word per PE: with several waiting threads, policy says
         * to watch everything. Set it before we show up as a sleeper (the
         * increment releases it). */
        atomic_store_explicit(&wake->watch, policy->watch_any ? GK__WAKE_WATCH_ANY : watch,
                              memory_order_relaxed);
        atomic_fetch_add_explicit(&wake->sleepers, 1, memory_order_seq_cst);
        /* Order the increment before our loads in C11 terms too (x86 and
         * ARMv8 do already; POWER would not). Sleep path only. */
        atomic_thread_fence(memory_order_seq_cst);
        uint32_t seq = atomic_load_explicit(&wake->seq, memory_order_acquire);
        int done = pred(arg);
        /* A message that came before we announced ourselves woke nobody. */
        int mail = policy->inbox_ready != NULL && policy->inbox_ready();
        if (!done && !mail) {
            if (policy->before_sleep != NULL)
                policy->before_sleep();
            futex_wait(&wake->seq, seq, policy->sleep_ms);
        }
        atomic_fetch_sub_explicit(&wake->sleepers, 1, memory_order_relaxed);
        if (done || pred(arg))
            return GK_OK;
        int status = policy->check_alive();
        if (status != GK_OK)
            return status;
        if (gk__wait_progress() > 0 || mail)
            goto restart;
        /* Woken, but not for us: another word of this PE changed. Yield a
         * little before sleeping again, in case our write is on its way. */
        for (unsigned i = 0; i < 4; i++) {
            if (pred(arg))
                return GK_OK;
            if (gk__wait_progress() > 0)
                goto restart;
            sched_yield();
        }
    }
}

int gk__wait_poll(gk__wait_pred_fn pred, const void *arg)
{
    const struct gk__wait_policy *policy = &gk__wait_policy;
    for (unsigned i = 0; i < policy->spin_count; i++) {
        if (pred(arg))
            return GK_OK;
        if (gk__wait_progress() > 0)
            i = 0;
        gk__cpu_relax();
    }
    for (unsigned i = 0;; i++) {
        if (pred(arg))
            return GK_OK;
        if (gk__wait_progress() > 0)
            i = 0; /* messages flow: yield, do not nap, for a while */
        if (i < policy->yield_count) {
            sched_yield();
            continue;
        }
        /* 50 us naps: short enough for latency, long enough to free the core. */
        struct timespec nap = {0, 50000};
        nanosleep(&nap, NULL);
        if (i % 1024 == 0) {
            int status = policy->check_alive();
            if (status != GK_OK)
                return status;
        }
    }
}

/*
 * wait.h: how every wait in gasket waits: spin briefly, then yield, then
 * sleep on a futex in shared memory until a poster wakes it. Where the
 * node's PEs outnumber the CPUs the job may use, waits skip the spin (the
 * PE waited for may need this CPU; core/runtime.c sets the policy).
 *
 * Protocol. Each PE's segment holds one struct gk__wake. A waiter that has
 * spun and yielded long enough announces itself (sleepers++), reads the
 * sequence word, re-checks its condition and sleeps on the sequence word.
 * Every operation that writes to a PE's memory from another PE calls
 * gk__wake_notify() on that PE's gk__wake afterwards: a full fence, then a
 * load of `sleepers`; only when someone sleeps does it bump `seq` and issue
 * FUTEX_WAKE. The fence pairs with the waiter's sleepers++ (a seq_cst
 * read-modify-write): either the poster sees the sleeper, or the sleeper's
 * re-check sees the posted data. So the fast path of a put costs one fence
 * and one load of a line that is written only when a waiter goes to sleep.
 *
 * A sleeper also says which word it waits for (`watch`, an offset in its
 * segment), and a poster wakes it only if it wrote that word: a PE asleep
 * in a barrier is not woken by every put that streams into its heap. The
 * watch is stored before sleepers++ (a release), and read by the poster
 * after it sees sleepers != 0.
 *
 * Sleeps are bounded (GK_SLEEP_MS) so a waiter checks now and then that the
 * job is still alive (the launcher ends the job when a PE dies; this is the
 * belt to its braces).
 */
#ifndef GK_BASE_WAIT_H
#define GK_BASE_WAIT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gasket.h"

struct gk__wake {
    _Atomic uint32_t seq;      /* futex word: bumped by every wake-up */
    _Atomic uint32_t sleepers; /* waiters about to sleep or asleep */
    _Atomic uint64_t watch;    /* the offset a sleeper waits on, or BELOW(end) */
};

/* A sleeper that a write to any offset below `end` should wake (the
 * runtime's own words, which lie below the heap, for a wait on several of
 * them at once: a collective's). */
#define GK__WAKE_BELOW_BIT ((uint64_t)1 << 63)
#define GK__WAKE_WATCH_BELOW(end) (GK__WAKE_BELOW_BIT | (uint64_t)(end))
/* A sleeper that any write should wake; a write that may touch anything. */
#define GK__WAKE_WATCH_ANY UINT64_MAX

struct gk__wait_policy {
    unsigned spin_count;  /* polls before yielding */
    unsigned yield_count; /* sched_yield() calls before sleeping */
    unsigned sleep_ms;    /* longest single sleep */
    /* Returns 0 while the job is alive; called on the sleep path. */
    int (*check_alive)(void);
    /* Runs this PE's inbox (core/progress.h) and returns how many messages
     * it ran; NULL before gk_init. Waits call it as they poll: a PE that
     * waits still serves active messages. */
    int (*progress)(void);
    /* Non-zero when a message waits in the inbox: checked by a waiter after
     * it announced itself as a sleeper, as senders wake every sleeper. */
    int (*inbox_ready)(void);
    /* Called by a waiter after it announced itself as a sleeper, before it
     * sleeps (NULL: nothing to do): a transport's progress thread that
     * stands aside while the PE drives takes over (net.h). */
    void (*before_sleep)(void);
    /* Several threads of this PE may sleep at once (a progress thread,
     * GK_THREAD_MULTIPLE): sleepers watch every word, as `watch` is one. */
    int watch_any;
    /* The node's PEs per CPU, rounded up: above 1 the node is
     * oversubscribed (gk__wait_oversubscribed). */
    unsigned pes_per_cpu;
};


extern struct gk__wait_policy gk__wait_policy;

/* More PEs than CPUs on this node: a PE waited for may need our CPU (waits
 * do not spin; win/rwlock.c gives the CPU up at hand-overs). */
static inline int gk__wait_oversubscribed(void)
{
    return gk__wait_policy.pes_per_cpu > 1;
}

static inline int gk__wait_progress(void)
{
    return gk__wait_policy.progress != NULL ? gk__wait_policy.progress() : 0;
}

/* Returns non-zero when the wait is over. */
typedef int (*gk__wait_pred_fn)(const void *arg);

/* The pause of every spin loop (gasket_inline.h's, which the inline waits
 * use too). */
static inline void gk__cpu_relax(void)
{
    gk__inline_relax();
}

/*
 * The end of an empty poll whose caller loops without pausing (gk_poll). On
 * x86 an lfence, which keeps the next poll's loads from issuing ahead: when
 * the awaited write lands, the loop has no speculative loads of the line to
 * discard (a memory-ordering machine clear), and a hyperthread sibling,
 * perhaps the PE that is answering, gets the issue slots. Not a pause,
 * which costs five times as long (25 ns against 5; docs/DESIGN-NOTES.md).
 */
static inline void gk__poll_settle(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("lfence" ::: "memory");
#endif
}

void gk__wake_all(struct gk__wake *wake) __attribute__((cold, noinline));

/*
 * Someone sleeps: wake them if they watch a word in [lo, hi), or an offset
 * below the end they watch (GK__WAKE_WATCH_BELOW; ANY is below the
 * largest). Inline, as a PE asleep in a barrier makes every write to it
 * ask, and the answer is nearly always no (the watched word is up to 8
 * bytes: any overlap wakes).
 */
static inline void gk__wake_if_watching(struct gk__wake *wake, uint64_t lo, uint64_t hi)
{
    uint64_t watch = atomic_load_explicit(&wake->watch, memory_order_relaxed);
    int hit = watch & GK__WAKE_BELOW_BIT ? lo < (watch & ~GK__WAKE_BELOW_BIT)
                                         : watch < hi && watch + 8 > lo;
    if (__builtin_expect(hit, 0))
        gk__wake_all(wake);
}

/* After plain stores to [lo, hi) (segment offsets) of the PE owning `wake`. */
static inline void gk__wake_notify(struct gk__wake *wake, uint64_t lo, uint64_t hi)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&wake->sleepers, memory_order_acquire) != 0)
        gk__wake_if_watching(wake, lo, hi);
}

/*
 * After a seq_cst read-modify-write of [lo, hi) in the PE that owns `wake`:
 * the RMW is already in the single total order, so a seq_cst load suffices
 * (on x86 a plain load, no extra fence).
 */
static inline void gk__wake_notify_after_rmw(struct gk__wake *wake, uint64_t lo,
                                             uint64_t hi)
{
    if (atomic_load_explicit(&wake->sleepers, memory_order_seq_cst) != 0)
        gk__wake_if_watching(wake, lo, hi);
}

/*
 * Waits until pred(arg) is true, by the policy above, sleeping on `wake`
 * (this PE's own) and watching the word at segment offset `watch` (or
 * GK__WAKE_WATCH_ANY). Returns GK_OK, or the error from check_alive().
 */
int gk__wait_for(struct gk__wake *wake, uint64_t watch, gk__wait_pred_fn pred,
                 const void *arg);
/*
 * The same, for callers with two needs: `extra_yields` more yields before
 * it sleeps (waits whose end is near but needs other PEs to run first: a
 * lock's queue), and `spun` non-zero for a caller that has already spun on
 * its condition (a typed inline spin, as gk_wait_until's): it starts
 * yielding at once instead of spinning a second time.
 */
int gk__wait_for_spun(struct gk__wake *wake, uint64_t watch, gk__wait_pred_fn pred,
                      const void *arg, unsigned extra_yields, int spun);

/*
 * Waits until pred(arg) is true for a condition nobody will wake us for (a
 * word in another PE's memory): spin, then yield, then short sleeps.
 */
int gk__wait_poll(gk__wait_pred_fn pred, const void *arg);

#endif /* GK_BASE_WAIT_H */

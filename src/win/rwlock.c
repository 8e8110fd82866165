/*
 * rwlock.c: a FIFO reader/writer lock granted with remote atomics alone
 * (the seed passive-rma-locks-ib-atomics). The owner of the lock word never
 * takes part, and every waiter waits on a word in its own memory.
 *
 * The lock word. One 64-bit word on the lock's owner, four 16-bit fields:
 *
 *   bits 48-63  A  active readers: readers that hold the lock, or have been
 *                  admitted and will hold it as soon as they are told
 *   bits 32-47  G  the last reader queued behind the tail writer + 1 (the
 *                  tail of its "group"); 0 if none
 *   bits 16-31  H  head writer + 1: the writer that waits for the A readers
 *                  to leave (whom the last of them grants); 0 if no writer
 *   bits  0-15  T  tail writer + 1: the last writer in the queue; 0 if none
 *
 * Invariants: T == 0 exactly when H == 0 (no writer at all), and then
 * G == 0. While a writer holds the lock A == 0; so A > 0 with H != 0 means
 * H is the head writer, waiting for readers. While writers hand the lock
 * straight on (no readers between them) H is not updated: nobody reads it
 * then, and it saves the hand-over a remote atomic. So H may name an
 * earlier writer; the holder knows the value H has (each grant carries it,
 * in its node, `h_seen`) and uses it to update the word.
 *
 * Each requester has one node (struct gk__rwlock_node) per lock in its own
 * memory, and nothing else: the memory of a lock on each PE does not grow
 * with the PEs that may queue. Writers queue MCS-style: each writer learns
 * its predecessor from the lock word and tells it, with a put, who it is
 * (`next`); the predecessor hands the lock over at unlock. Readers that
 * arrive behind a writer form that writer's group, a queue of their own
 * linked the same way: a reader learns the group's last reader from G,
 * sets G to itself, and puts its PE into that reader's `next_reader`, or,
 * first of the group, into the writer's `first_reader`. The group of
 * writer X closes when the next writer Y enqueues: Y reads the group's
 * last reader from G (and resets G to 0 for its own group) and tells X
 * with the same put as `next`. Y then waits for X and for X's group:
 * whoever takes A to 0 while H names Y grants Y.
 *
 * A group is admitted down its chain. Its writer counts the first reader
 * into A and grants it, telling it the group's last reader; each reader
 * so granted, unless it is the last, counts the reader after it into A and
 * grants it in turn before its own lock call returns. So A never falls to
 * 0 while a group is being admitted (the reader passing the grant on still
 * counts), and no PE keeps a slot for each reader that may queue behind it.
 *
 * The steps (remote word ops are 64-bit compare-and-swap and fetch-add,
 * "put" is a notification, a 64-bit write into a word that holds 0
 * (notify_word); every other wait is on local memory):
 *
 *   read lock    CAS: if T == 0, A += 1 (granted); else G = me, and then
 *                put me into G(old)'s `next_reader` (T's `first_reader`
 *                if G(old) == 0); wait for granted (v: the group's last
 *                reader L); then pass it on, unless I am L.
 *   pass on      wait for `next_reader` = R; fetch-add A += 1; grant R
 *                with L.
 *   write lock   CAS: if T == 0, T = H = me: granted if A == 0, else wait
 *                for the last reader to grant me. Else T = me, G = 0, and
 *                put (me, G(old)) into the old tail's `next`; wait.
 *   read unlock  fetch-add A -= 1; if A was 1 and H != 0, grant H.
 *   write unlock no successor (T == me): CAS to G = H = T = 0 and A = 1
 *                if G != 0 (the first reader of my group), then admit my
 *                group. Else wait for `next` = (Y, g); if g > 0, fetch-add
 *                A += 1 and H = Y, and admit my group (the last reader to
 *                leave grants Y); if g == 0, grant Y (the word does not
 *                change).
 *   admit group  wait for `first_reader` = F; grant F with L = the
 *                group's last reader (G at the close).
 *
 * A grant carries a value v (grant = v << 1 | 1): H for a writer, which
 * keeps it to update the word later; the group's last reader L for a
 * reader, which passes the grant on until L has it.
 *
 * So writers are granted in the order their CASes hit the word (FIFO); a
 * reader behind a writer waits for it (writers do not starve); readers of
 * one group share; and no grant is lost because each waiting request gets
 * exactly one grant, from exactly one party. try-lock succeeds only where
 * the lock would be granted at once (shared: T == 0; exclusive: word == 0)
 * and otherwise changes nothing. verify/rwlock.pml models exactly this.
 *
 * Memory ordering. The word ops are sequentially consistent RMWs. The
 * caller completes its RMA to the target before releasing (on a mapped
 * peer RMA is complete on return, and the release's first RMW orders it),
 * and each notification is ordered after everything before it (a
 * transport fence; to a mapped peer the put is a seq_cst exchange, which
 * is that fence), so everything done under the lock is visible before the
 * next holder can learn it holds the lock: either from the word (its RMW
 * reads the releasing RMW's value) or from its `granted` word (loaded with
 * acquire). The waiter clears its own `granted` before it can ask again; no
 * grant can be in flight then, as each request gets one.
 *
 * Not part of the protocol: under contention, a release and a queued
 * request each prefetch for writing the line they will probably write
 * (gk__rwlock_prefetch_node, rwlock.h). A prefetch moves no data and
 * orders nothing, so the model does not need it.
 */
#include "win/rwlock.h"

#include <sched.h>
#include <stdatomic.h>

#include "base/log.h"
#include "base/wait.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "core/path.h"

#define FIELD_T GK__RWLOCK_FIELD_T
#define FIELD_H GK__RWLOCK_FIELD_H
#define FIELD_G GK__RWLOCK_FIELD_G
#define FIELD_A GK__RWLOCK_FIELD_A
#define FIELD_MASK GK__RWLOCK_FIELD_MASK

#define GET(word, field) GK__RWLOCK_GET(word, field)
#define ONE(field) ((uint64_t)1 << (field))

/* A remote 64-bit compare-and-swap: the old value. On a mapped peer's word
 * a plain atomic, with no wake-up check: nobody ever waits on a lock word
 * (every waiter waits on its own node). Others take the transport's table. */
__attribute__((always_inline)) static inline int
word_cas(const struct gk__rwlock_site *site, uint64_t expected, uint64_t desired,
         uint64_t *old_p)
{
    _Atomic uint64_t *word = gk__rwlock_word(site);
    if (GK__LIKELY(word != NULL)) {
        atomic_compare_exchange_strong_explicit(word, &expected, desired, memory_order_seq_cst,
                                                memory_order_seq_cst);
        *old_p = expected;
        gk__race_acquire(site->owner_pe); /* check mode: as the path layer's atomics */
        return GK_OK;
    }
    int status = gk__path_atomic(site->owner_pe, GK__AMO_CSWAP, 8, site->word_offset, desired,
                                 expected, old_p);
    gk__race_acquire(site->owner_pe); /* check mode: as on a mapped word, above */
    return status;
}

__attribute__((always_inline)) static inline int
word_fadd(const struct gk__rwlock_site *site, uint64_t delta, uint64_t *old_p)
{
    _Atomic uint64_t *word = gk__rwlock_word(site);
    if (GK__LIKELY(word != NULL)) {
        *old_p = atomic_fetch_add_explicit(word, delta, memory_order_seq_cst);
        gk__race_acquire(site->owner_pe); /* check mode: as the path layer's atomics */
        return GK_OK;
    }
    int status = gk__path_atomic(site->owner_pe, GK__AMO_FETCH_ADD, 8, site->word_offset, delta, 0,
                                 old_p);
    gk__race_acquire(site->owner_pe); /* check mode: as on a mapped word, above */
    return status;
}

/*
 * A notification: `value` written into the 64-bit word at segment offset
 * `offset` of `pe` (a word of its node: `granted`, `next`, `first_reader`,
 * `next_reader`), ordered
 * after everything before it, and a wake-up if the PE sleeps on it. The
 * word holds 0 (its owner clears it before it can be written again). To a
 * mapped peer it is one exchange: a store that is also the full fence both
 * the ordering and the wake-up check need (base/wait.h).
 *
 * Through a transport it is an atomic add onto that 0, not a put: a put is
 * not one store at its target. UCX's software RMA (TCP, shared memory)
 * copies a put's bytes with memcpy on the target's progress thread, and
 * glibc copies 8 bytes with two overlapping 8-byte stores; preempted
 * between them, the thread stores the value again after the owner has
 * seen it and cleared the word, and the owner takes the stale value for
 * its next grant. An atomic is a single CPU atomic at the target
 * (net.h, "Atomicity domain"), and it posts without a round trip.
 */
static int notify_word(int pe, size_t offset, uint64_t value)
{
    if (GK__LIKELY(gk__path_mapped(pe))) /* an exchange and its wake-up check */
        return gk__path_amo(pe, GK__AMO_SWAP, sizeof(value), offset, value, 0, NULL);
    int status = gk__path_fence_peer(pe);
    if (status == GK_OK)
        status = gk__path_notify64(pe, GK__AMO_FETCH_ADD, offset, value, 0, NULL);
    return status;
}

static int u64_nonzero(const void *word)
{
    return atomic_load_explicit((_Atomic uint64_t *)word, memory_order_acquire) != 0;
}

/*
 * Lock hand-overs go down a queue of PEs, which on an oversubscribed node
 * are often not running: a waiter that sleeps costs its granter a futex
 * wake and itself a wake-up delay at every hand-over, while one that
 * yields is run again as soon as a core frees up. A queue of n waiters is
 * served within n hand-overs, so waiters yield this much longer before
 * they sleep.
 */
#define LOCK_EXTRA_YIELDS 2000

/* wait_local past its spin phase: yields (extra_yields more than other
 * waits), then sleeps. */
static int wait_local_unspun(const void *word, unsigned extra_yields)
{
    size_t offset = (size_t)((const char *)word - gk__rt_own(0));
    return gk__path_wait_own_spun(offset, u64_nonzero, word, extra_yields, 1);
}

/* Waits for a local 64-bit word to become non-zero (only others write it). */
static int wait_local(const void *word)
{
    /* The spin phase inline, the inbox served when a message is ready (as
     * gk_wait_until's): a hand-over is usually over within it, and then
     * each instruction of a poll is latency. Past it, the general wait
     * from its yield phase on. */
    const _Atomic uint64_t *w = word;
    for (unsigned i = 0; i < gk__wait_policy.spin_count; i++) {
        if (atomic_load_explicit(w, memory_order_acquire) != 0) {
            gk__race_acquire_own(); /* check mode: the writer's clock */
            return GK_OK;
        }
        gk__progress_if_ready();
        gk__cpu_relax();
    }
    int status = wait_local_unspun(word, LOCK_EXTRA_YIELDS);
    gk__race_acquire_own();
    return status;
}

/*
 * Oversubscribed nodes (more PEs than CPUs). There every hand-over waits
 * for the scheduler more than for memory: the PE granted is often not
 * running, and a CPU that two waiters share passes between them by
 * sched_yield(), a context switch a turn. Two hints, neither part of the
 * protocol (they decide who runs, not who holds: the model needs neither):
 *
 *  - A writer granted the lock tells the writer queued behind it, if one
 *    has, that it is next in line (`next_in_line`, a plain store: the
 *    grant that follows is ordered after it). A waiter that is next in
 *    line polls its grant for a while before it yields instead of
 *    yielding at once, so its CPU is not handed to a waiter further back.
 *  - A PE that has granted the lock to another steps back: it yields its
 *    CPU twice for each PE that shares it (yield_after_grant), before it
 *    can ask again. The PE granted may be waiting for that CPU, and the
 *    others queued get their turns; and when the releaser next asks, it
 *    often finds the lock free and takes it at once, and again, while the
 *    other PEs wait for a CPU rather than for the lock. So the lock runs
 *    in bursts at its uncontended speed instead of paying a CPU switch per
 *    acquisition (FIFO is untouched: nobody is queued during a burst).
 *    Twice: a round of the CPU's other PEs passes in microseconds when
 *    they only yield back (waiting for the lock themselves), and with one
 *    round the bursts often failed to form.
 *
 * With both, a lock contended by 4 PEs on 2 CPUs takes 0.14 us per
 * acquisition, against 1.39 with neither (docs/DESIGN-NOTES.md).
 */
#define NEXT_IN_LINE_POLLS 200

static void yield_after_grant(void)
{
    if (gk__wait_oversubscribed())
        for (unsigned i = 0; i < 2 * gk__wait_policy.pes_per_cpu; i++)
            sched_yield();
}

/* wait_local for an oversubscribed node's writer, told when it is next. */
static int wait_granted_oversubscribed(struct gk__rwlock_node *node)
{
    for (unsigned round = 0; round < LOCK_EXTRA_YIELDS; round++) {
        if (atomic_load_explicit(&node->granted, memory_order_acquire) != 0)
            return GK_OK;
        if (atomic_load_explicit(&node->next_in_line, memory_order_relaxed) != 0) {
            for (unsigned i = 0; i < NEXT_IN_LINE_POLLS; i++) {
                if (atomic_load_explicit(&node->granted, memory_order_acquire) != 0)
                    return GK_OK;
                gk__progress_if_ready();
                gk__cpu_relax();
            }
        } else {
            gk__wait_progress();
        }
        sched_yield();
    }
    return wait_local_unspun(&node->granted, 0); /* the policy's yields, then sleep */
}

/* Tells the writer queued behind me, if any yet, that it is next. */
static void tell_next_in_line(const struct gk__rwlock_site *site,
                              const struct gk__rwlock_node *node)
{
    uint64_t next = atomic_load_explicit(&node->next, memory_order_relaxed);
    if (next == 0)
        return;
    char *base = gk__path_addr((int)(next & FIELD_MASK) - 1, 0);
    if (base != NULL) /* (a node's PEs are all mapped) */
        atomic_store_explicit((_Atomic uint64_t *)(base + site->node_offset +
                                                   offsetof(struct gk__rwlock_node,
                                                            next_in_line)),
                              1, memory_order_relaxed);
}

/* Waits for my grant and consumes it, ready for my next request; keeps
 * the value it carries in h_seen (H for a writer's release, the group's
 * last reader for a reader). */
static int wait_granted(const struct gk__rwlock_site *site)
{
    struct gk__rwlock_node *node = gk__rwlock_my_node(site);
    int oversubscribed = gk__wait_oversubscribed();
    int status = oversubscribed ? wait_granted_oversubscribed(node)
                                : wait_local(&node->granted);
    if (status != GK_OK)
        return status;
    gk__race_acquire_own(); /* check mode: the granter's clock */
    uint64_t grant = atomic_load_explicit(&node->granted, memory_order_acquire);
    node->h_seen = grant >> 1;
    atomic_store_explicit(&node->granted, 0, memory_order_relaxed);
    if (oversubscribed) {
        atomic_store_explicit(&node->next_in_line, 0, memory_order_relaxed);
        tell_next_in_line(site, node);
    }
    return GK_OK;
}

static int corrupt(const struct gk__rwlock_site *site, uint64_t word, const char *why)
{
    gk__error("%s: lock word 0x%016llx on PE %d is inconsistent (%s): memory was "
              "overwritten or the lock was released by a PE that does not hold it",
              site->op, (unsigned long long)word, site->owner_pe, why);
    return GK_ERR_INVALID_ARG;
}

/* Grants `pe` the lock, telling it `v`: the value of H in the word for a
 * writer, its group's last reader + 1 for a reader. */
static int grant(const struct gk__rwlock_site *site, int pe, uint64_t v)
{
    return notify_word(pe, site->node_offset + offsetof(struct gk__rwlock_node, granted),
                       v << 1 | 1);
}

/* Notifies `pe` into the word of its node at `field`. */
static int notify_node(const struct gk__rwlock_site *site, int pe, size_t field,
                       uint64_t value)
{
    return notify_word(pe, site->node_offset + field, value);
}

/* Takes a word of my node that a PE behind me writes once: waits for it,
 * then clears it for my next request. */
static int take_node_word(_Atomic uint64_t *word, uint64_t *value_p)
{
    int status = wait_local(word);
    if (status != GK_OK)
        return status;
    *value_p = atomic_load_explicit(word, memory_order_acquire);
    atomic_store_explicit(word, 0, memory_order_relaxed);
    return GK_OK;
}

/*
 * A reader of a group, granted: unless it is the group's last reader
 * `last`, it counts the reader queued after it into A and grants it. It
 * still counts itself, so A cannot reach 0 in between.
 */
static int pass_to_next_reader(const struct gk__rwlock_site *site, uint64_t last)
{
    if (last == (uint64_t)gk__rt.my_pe + 1)
        return GK_OK;
    uint64_t reader = 0, old = 0;
    int status = take_node_word(&gk__rwlock_my_node(site)->next_reader, &reader);
    if (status == GK_OK)
        status = word_fadd(site, ONE(FIELD_A), &old);
    if (status != GK_OK)
        return status;
    if (GET(old, FIELD_A) == 0)
        return corrupt(site, old, "a reader passing the lock on is not counted");
    return grant(site, (int)reader - 1, last);
}

int gk__rwlock_acquire_from(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                            uint64_t seen)
{
    /* Taken, the lock may be held by this very PE, waiting in the call
     * this handler runs in: refuse before queueing, not after. */
    if (GK__UNLIKELY(gk__in_handler))
        return gk__progress_report_in_handler(site->op);
    uint64_t me = (uint64_t)gk__rt.my_pe + 1;
    uint64_t expected = seen, old = 0; /* the word as last seen (0: a guess) */
    for (;;) {
        uint64_t want = gk__rwlock_request_word(expected, mode, me);
        int status = word_cas(site, expected, want, &old);
        if (status != GK_OK)
            return status;
        if (old == expected)
            break;
        expected = old;
    }
    return gk__rwlock_acquire_queued(site, mode, old);
}

int gk__rwlock_acquire_queued(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                              uint64_t old)
{
    uint64_t me = (uint64_t)gk__rt.my_pe + 1;
    uint64_t tail = GET(old, FIELD_T);
    if (mode == GK__RWLOCK_EXCLUSIVE)
        gk__rwlock_my_node(site)->last_predecessor = tail;
    if (gk__rwlock_granted_at_once(old, mode)) {
        gk__rwlock_my_node(site)->h_seen = me; /* an exclusive request set H = me */
        return GK_OK;                /* granted at once */
    }
    if (tail != 0) {
        uint64_t g = GET(old, FIELD_G); /* the last reader of the tail's group */
        int status;
        if (mode == GK__RWLOCK_EXCLUSIVE)
            status = notify_node(site, (int)tail - 1, offsetof(struct gk__rwlock_node, next),
                                 me | g << 32);
        else if (g == 0) /* the first of the group: the writer learns of me */
            status = notify_node(site, (int)tail - 1,
                                 offsetof(struct gk__rwlock_node, first_reader), me);
        else
            status = notify_node(site, (int)g - 1,
                                 offsetof(struct gk__rwlock_node, next_reader), me);
        if (status != GK_OK)
            return status;
    }
    int status = wait_granted(site);
    if (status != GK_OK || mode == GK__RWLOCK_EXCLUSIVE)
        return status;
    return pass_to_next_reader(site, gk__rwlock_my_node(site)->h_seen);
}

int gk__rwlock_try(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                   int *acquired_p)
{
    uint64_t me = (uint64_t)gk__rt.my_pe + 1;
    uint64_t expected = 0, old = 0;
    for (;;) {
        /* Only a request that would be granted at once is made. */
        int can = mode == GK__RWLOCK_SHARED ? GET(expected, FIELD_T) == 0 : expected == 0;
        if (!can) {
            *acquired_p = 0;
            return GK_OK;
        }
        uint64_t want = gk__rwlock_request_word(expected, mode, me);
        int status = word_cas(site, expected, want, &old);
        if (status != GK_OK)
            return status;
        if (old == expected) {
            gk__rwlock_my_node(site)->h_seen = me;
            *acquired_p = 1;
            return GK_OK;
        }
        expected = old;
    }
}

/* Admits my group, whose last reader is `last` (PE + 1): its first reader,
 * already counted in A, is granted and passes the lock down the group. */
static int admit_group(const struct gk__rwlock_site *site, uint64_t last)
{
    uint64_t first = 0;
    int status = take_node_word(&gk__rwlock_my_node(site)->first_reader, &first);
    if (status == GK_OK)
        status = grant(site, (int)first - 1, last);
    yield_after_grant();
    return status;
}

static int release_shared(const struct gk__rwlock_site *site)
{
    uint64_t old = 0;
    int status = word_fadd(site, (uint64_t)0 - ONE(FIELD_A), &old);
    if (status != GK_OK)
        return status;
    return gk__rwlock_release_shared_after(site, old);
}

/* A reader's release after its fetch-add read `old`. */
int gk__rwlock_release_shared_after(const struct gk__rwlock_site *site, uint64_t old)
{
    if (GET(old, FIELD_A) == 0)
        return corrupt(site, old, "a reader left with no active readers");
    if (GET(old, FIELD_A) == 1 && GET(old, FIELD_H) != 0) {
        int status = grant(site, (int)GET(old, FIELD_H) - 1, GET(old, FIELD_H));
        yield_after_grant();
        return status;
    }
    return GK_OK;
}

int gk__rwlock_release_exclusive_from(const struct gk__rwlock_site *site, uint64_t seen)
{
    uint64_t me = (uint64_t)gk__rt.my_pe + 1;
    struct gk__rwlock_node *node = gk__rwlock_my_node(site);
    uint64_t h = node->h_seen; /* the value of H in the word */
    if (atomic_load_explicit(&node->next, memory_order_acquire) == 0) {
        /* `seen` answers the first round's compare-and-swap (the inline
         * path's, of the same word); 0: none made yet. */
        uint64_t expected = gk__rwlock_sole_writer_word(h, me), old = seen;
        for (;;) {
            /* No successor yet: hand the lock to my group, or free it. */
            uint64_t g = GET(expected, FIELD_G);
            if (old == 0) {
                int status = word_cas(site, expected, g != 0 ? ONE(FIELD_A) : 0, &old);
                if (status != GK_OK)
                    return status;
                if (old == expected)
                    return g != 0 ? admit_group(site, g) : GK_OK;
            }
            if (GET(old, FIELD_H) != h || GET(old, FIELD_A) != 0)
                return corrupt(site, old, "the writer releasing it is not the holder");
            if (GET(old, FIELD_T) != me)
                break; /* a writer queued behind me: it will tell me */
            expected = old; /* my group grew */
            old = 0;
        }
    }
    int status = wait_local(&node->next);
    if (status != GK_OK)
        return status;
    uint64_t next = atomic_load_explicit(&node->next, memory_order_acquire);
    atomic_store_explicit(&node->next, 0, memory_order_relaxed);
    uint64_t successor = next & FIELD_MASK, g = next >> 32;
    node->last_successor = successor;
    if (g == 0) { /* straight on: the word stays as it is */
        status = grant(site, (int)successor - 1, h);
        yield_after_grant();
        return status;
    }
    /* H: h -> successor, A += 1 (my group's first reader), in one
     * fetch-add (H holds h, so the field cannot borrow from its
     * neighbour); the last of my group to leave grants the successor. */
    uint64_t delta = ONE(FIELD_A) + (successor << FIELD_H) - (h << FIELD_H);
    uint64_t old = 0;
    status = word_fadd(site, delta, &old);
    if (status != GK_OK)
        return status;
    if (GET(old, FIELD_H) != h)
        return corrupt(site, old, "the writer handing it on is not the holder");
    return admit_group(site, g);
}

int gk__rwlock_release_slow(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode)
{
    return mode == GK__RWLOCK_SHARED ? release_shared(site)
                                     : gk__rwlock_release_exclusive_from(site, 0);
}

/*
 * lock.c: the distributed locks of the specification (shmem_set_lock,
 * shmem_test_lock, shmem_clear_lock) on its symmetric `long` lock word.
 *
 * gasket's gk_lock_t needs 192 bytes, and the specification gives us 8 on
 * each PE: zero at the start, at the same address everywhere. That is
 * enough for an MCS queue lock, where every PE's own copy of the long is its
 * queue node. The long is two 32-bit words, each updated only with
 * gasket's 32-bit atomics (one atomicity domain per word):
 *
 *   word 0, on PE 0 only   the tail: PE + 1 of the last PE in line, 0 free
 *   word 1, on every PE    this PE's queue node: bits 0-30 the next PE in
 *                          line, + 1 (0: none yet); bit 31 GRANTED, set by
 *                          the predecessor when it hands the lock over
 *
 * Acquire: reset our node (no successor, not granted), swap ourselves into
 * the tail. A previous tail of 0 means the lock was free and is ours.
 * Otherwise we OR our number into the predecessor's node and wait, on our
 * own node, for GRANTED: the wait is gk_wait_until_u32, so it spins, then
 * yields, then sleeps until another PE writes here, and nobody polls a
 * remote word. Release: complete our operations (the specification's
 * quiet), then if no successor has linked itself, compare-and-swap the
 * tail from us back to 0; if that fails, a successor has swapped itself in
 * and is about to link: wait for the link on our node, then set GRANTED in
 * the successor's node. The node is reset before the tail swap publishes
 * it, and nobody writes to it between our release and our next acquire, so
 * no stale write lands in a later round.
 *
 * The queue is FIFO: PEs get the lock in the order their swaps reached
 * PE 0, so no PE starves. Up to 2^31 - 1 PEs.
 */
#include "shmem/shmem_int.h"

#include <stdlib.h>

#include "base/check.h"
#include "base/log.h"

#define LOCK_GRANTED 0x80000000u
#define LOCK_NEXT_MASK 0x7fffffffu

static uint32_t *lock_tail(long *lock)
{
    return (uint32_t *)(void *)lock;
}

static uint32_t *lock_node(long *lock)
{
    return (uint32_t *)(void *)lock + 1;
}

_Static_assert(sizeof(long) == 2 * sizeof(uint32_t), "a long holds the tail and the node");

/* Resets this PE's node with a fetching atomic: complete on return, on
 * every transport, before the tail swap makes the node reachable. */
static void lock_reset_node(const char *routine, long *lock, int me)
{
    uint32_t old;
    SHMEM_CHECK(routine, gk_atomic_swap_u32(me, lock_node(lock), 0, &old));
}

/*
 * Check mode: the locks this PE holds, for the report at shmem_finalize
 * of a lock still held there (any PE that queues behind it never gets
 * it). A short list: programs hold few locks at once.
 */
static long **lock_held;
static size_t lock_n_held, lock_cap_held;

static void lock_note_held(long *lock)
{
    if (!gk__check_on)
        return;
    if (lock_n_held == lock_cap_held) {
        size_t cap = lock_cap_held ? 2 * lock_cap_held : 8;
        long **grown = realloc(lock_held, cap * sizeof(*grown));
        if (grown == NULL)
            return; /* this one goes unchecked */
        lock_held = grown;
        lock_cap_held = cap;
    }
    lock_held[lock_n_held++] = lock;
}

static void lock_note_cleared(long *lock)
{
    for (size_t i = 0; i < lock_n_held; i++) {
        if (lock_held[i] == lock) {
            lock_held[i] = lock_held[--lock_n_held];
            return;
        }
    }
}

void gk__shmem_locks_check_finalize(void)
{
    for (size_t i = 0; i < lock_n_held; i++)
        gk__warn("check: lock held at finalize: PE %d still holds the OpenSHMEM lock at %p "
                 "(shmem_set_lock or shmem_test_lock, with no shmem_clear_lock after it)",
                 gk_my_pe(), (void *)lock_held[i]);
    free(lock_held);
    lock_held = NULL;
    lock_n_held = lock_cap_held = 0;
}

SHMEM_DEFINE(void, set_lock, (long *lock))
{
    const char *r = "shmem_set_lock";
    int me = gk_my_pe();
    uint32_t pred;
    lock_reset_node(r, lock, me);
    SHMEM_CHECK(r, gk_atomic_swap_u32(0, lock_tail(lock), (uint32_t)me + 1, &pred));
    if (pred != 0) {
        uint32_t old;
        SHMEM_CHECK(r, gk_atomic_fetch_or_u32((int)pred - 1, lock_node(lock),
                                              (uint32_t)me + 1, &old));
        SHMEM_CHECK(r, gk_wait_until_u32(lock_node(lock), GK_CMP_GE, LOCK_GRANTED));
    }
    lock_note_held(lock);
}

SHMEM_DEFINE(int, test_lock, (long *lock))
{
    const char *r = "shmem_test_lock";
    int me = gk_my_pe();
    uint32_t old;
    lock_reset_node(r, lock, me);
    SHMEM_CHECK(r, gk_atomic_compare_swap_u32(0, lock_tail(lock), 0, (uint32_t)me + 1,
                                              &old));
    if (old == 0)
        lock_note_held(lock);
    return old == 0 ? 0 : 1;
}

SHMEM_DEFINE(void, clear_lock, (long *lock))
{
    const char *r = "shmem_clear_lock";
    int me = gk_my_pe();
    uint32_t node, old;
    lock_note_cleared(lock);
    SHMEM_CHECK(r, gk_quiet());
    SHMEM_CHECK(r, gk_atomic_fetch_u32(me, lock_node(lock), &node));
    if ((node & LOCK_NEXT_MASK) == 0) {
        SHMEM_CHECK(r, gk_atomic_compare_swap_u32(0, lock_tail(lock), (uint32_t)me + 1, 0,
                                                  &old));
        if (old == (uint32_t)me + 1)
            return; /* nobody in line */
        /* A successor swapped itself in and has yet to link: only its link
         * can change our node now. */
        SHMEM_CHECK(r, gk_wait_until_u32(lock_node(lock), GK_CMP_NE, node));
        SHMEM_CHECK(r, gk_atomic_fetch_u32(me, lock_node(lock), &node));
    }
    uint32_t next = node & LOCK_NEXT_MASK;
    SHMEM_CHECK(r, gk_atomic_fetch_or_u32((int)next - 1, lock_node(lock), LOCK_GRANTED,
                                          &old));
}

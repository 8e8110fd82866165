/*
 * pe_turns.h: for tests whose waits must really block (wait_test,
 * wait_array_test). A PE is woken only after it has said it is about to
 * wait: it bumps `ready` on its left neighbour, then waits at once; the
 * neighbour waits for the bump before it writes. Neighbours must not both
 * wait at the same time, so PEs take turns by phase: even PEs, then odd
 * ones, then (when the PE count is odd) the last PE, whose neighbours on
 * both sides are even.
 *
 * Every wait is timed: with GK_SPIN_COUNT=0 GK_YIELD_COUNT=0
 * GK_SLEEP_MS=4000 every wait sleeps at once and a lost wake-up would cost
 * 4 s, so a wait over MAX_WAIT_S fails the test (note_wait).
 *
 * The test sets me, npes, right and left, and allocates `ready` (one
 * zeroed symmetric word) after gk_init.
 */
#ifndef GK_TESTS_PE_TURNS_H
#define GK_TESTS_PE_TURNS_H

#include "pe_check.h"

static int me, npes, right, left;
static uint64_t *ready;   /* on my PE: bumped by my right neighbour */
static uint64_t awaited;  /* announcements I have waited for */
static double longest_wait;

static inline int phase_of(int pe)
{
    if (npes % 2 == 1 && pe == npes - 1)
        return 2;
    return pe % 2;
}

static inline void announce_wait(void)
{
    CHECK_OK(gk_atomic_add_u64(left, ready, 1));
}

static inline void await_announcement(void)
{
    awaited++;
    CHECK_OK(gk_wait_until_u64(ready, GK_CMP_GE, awaited));
}

#define MAX_WAIT_S 2.0

static inline void note_wait(double t0, const char *what)
{
    double took = gk_wtime() - t0;
    if (took > longest_wait)
        longest_wait = took;
    if (took > MAX_WAIT_S)
        PE_FAIL("%s: a wait took %.3f s (a lost wake-up?)", what, took);
}

#endif /* GK_TESTS_PE_TURNS_H */

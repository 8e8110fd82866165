/*
 * win_lock_group_test: readers queued behind a writer are admitted as one
 * group and hold the lock together (win/rwlock.c: the group is admitted
 * down a chain of its readers), and a writer that asks while they hold it
 * enters only after the last of them left.
 *
 * Each round: PE 0 holds PE 0's lock exclusive; PEs 1 .. n-1 announce
 * themselves and ask for it shared, so they queue behind PE 0 as one group
 * (a reader late for the queue takes the free lock: the checks hold
 * either way). PE 0 releases once all have announced and a settle time
 * passed. Each reader counts itself in and then waits, holding the lock,
 * until every reader is in: a reader the group left behind would hang the
 * test (its time limit fails it). With all of them in, PE 0 asks
 * exclusive again; each reader counts itself out and leaves; PE 0, granted
 * by the last of them, must find every reader out.
 */
#include <sched.h>
#include <time.h>

#include "pe_check.h"

#define ROUNDS 20
enum { DISP_ASKED = 0, DISP_IN = 8, DISP_OUT = 16 };

static uint64_t fetch(gk_win_t *win, size_t disp)
{
    uint64_t zero = 0, value = 0;
    CHECK_OK(gk_win_fetch_and_op(win, 0, disp, &zero, &value, GK_DTYPE_UINT64,
                                 GK_OP_NO_OP));
    return value;
}

static void add_one(gk_win_t *win, size_t disp)
{
    uint64_t one = 1, old = 0;
    CHECK_OK(gk_win_fetch_and_op(win, 0, disp, &one, &old, GK_DTYPE_UINT64, GK_OP_SUM));
}

/* Polls a counter on PE 0 until it reaches `want` (8 PEs share 2 cores). */
static void wait_count(gk_win_t *win, size_t disp, uint64_t want)
{
    while (fetch(win, disp) < want)
        sched_yield();
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    uint64_t readers = (uint64_t)npes - 1;
    uint64_t *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(64, 0, (void **)&base, &win));
    for (int round = 0; round < ROUNDS; round++) {
        if (me == 0) {
            CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
            base[DISP_ASKED / 8] = base[DISP_IN / 8] = base[DISP_OUT / 8] = 0;
        }
        CHECK_OK(gk_barrier()); /* PE 0 holds it, the counters are 0 */
        if (me > 0) {
            add_one(win, DISP_ASKED);
            CHECK_OK(gk_win_lock(win, 0, GK_LOCK_SHARED, 0));
            add_one(win, DISP_IN);
            wait_count(win, DISP_IN, readers); /* the whole group holds it */
            add_one(win, DISP_OUT);
            CHECK_OK(gk_win_unlock(win, 0));
        } else {
            wait_count(win, DISP_ASKED, readers);
            struct timespec settle = {0, 1000 * 1000}; /* their requests land */
            nanosleep(&settle, NULL);
            CHECK_OK(gk_win_unlock(win, 0));
            wait_count(win, DISP_IN, readers);
            CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
            CHECK_EQ_U64(base[DISP_OUT / 8], readers); /* granted after the last left */
            CHECK_OK(gk_win_unlock(win, 0));
        }
        CHECK_OK(gk_barrier());
    }
    CHECK_OK(gk_win_free(win));
    return gk_finalize() == GK_OK ? 0 : 1;
}

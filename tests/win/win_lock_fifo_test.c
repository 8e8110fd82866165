/*
 * win_lock_fifo_test: writers are granted the lock in the order they asked
 * (the FIFO promise of win/rwlock.c). PE 0 takes PE 0's exclusive lock;
 * then PEs 1 .. n-1 ask for it one at a time: PE k announces itself in PE 0's
 * window and calls gk_win_lock, and PE k+1 asks only after seeing that
 * announcement and a settle time (so PE k's request has reached the lock
 * word). When all have asked, PE 0 releases, and each writer records its
 * turn under the lock: turn k must be PE k+1's. A PE descheduled between
 * its announcement and its request for longer than the settle time could
 * invert the order without the lock being at fault, so an inversion is
 * retried with a longer settle time (up to 64 ms) before the test fails.
 */
#include <sched.h>
#include <time.h>

#include "pe_check.h"

enum { DISP_ANNOUNCED = 0, DISP_TURN = 8, DISP_ORDER = 64 };

static void settle(long us)
{
    struct timespec t = {0, us * 1000};
    nanosleep(&t, NULL);
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    uint64_t *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(64 + 8 * (size_t)npes, 0, (void **)&base, &win));
    int ok = 0;
    for (long settle_us = 2000; settle_us <= 64000 && !ok; settle_us *= 2) {
        CHECK_OK(gk_barrier());
        if (me == 0) {
            base[DISP_ANNOUNCED / 8] = 0;
            base[DISP_TURN / 8] = 0;
        }
        CHECK_OK(gk_barrier());
        if (me == 0)
            CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
        CHECK_OK(gk_barrier()); /* PE 0 holds it */
        if (me > 0) {
            /* Wait for PE me-1 to have asked, then ask. */
            uint64_t announced = 0, zero = 0;
            do {
                CHECK_OK(gk_win_fetch_and_op(win, 0, DISP_ANNOUNCED, &zero, &announced,
                                             GK_DTYPE_UINT64, GK_OP_NO_OP));
                if (announced < (uint64_t)me - 1)
                    sched_yield(); /* 8 PEs share 2 cores */
            } while (announced < (uint64_t)me - 1);
            if (me > 1)
                settle(settle_us); /* PE me-1 is in gk_win_lock by now */
            uint64_t mine = (uint64_t)me;
            uint64_t old = 0;
            CHECK_OK(gk_win_fetch_and_op(win, 0, DISP_ANNOUNCED, &mine, &old, GK_DTYPE_UINT64,
                                         GK_OP_REPLACE));
            CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
            uint64_t one = 1, turn = 0;
            CHECK_OK(gk_win_fetch_and_op(win, 0, DISP_TURN, &one, &turn, GK_DTYPE_UINT64,
                                         GK_OP_SUM));
            uint64_t who = (uint64_t)me;
            CHECK_OK(gk_win_put(win, 0, DISP_ORDER + 8 * (size_t)turn, &who, sizeof(who)));
            CHECK_OK(gk_win_unlock(win, 0));
        } else {
            /* Everyone else queued behind me (the last one announced, plus
             * the settle time), then release. */
            while (npes > 1 &&
                   __atomic_load_n(&base[DISP_ANNOUNCED / 8], __ATOMIC_ACQUIRE) !=
                       (uint64_t)npes - 1)
                sched_yield();
            settle(settle_us);
            CHECK_OK(gk_win_unlock(win, 0));
        }
        CHECK_OK(gk_barrier());
        int in_order = 1;
        if (me == 0)
            for (int k = 0; k < npes - 1; k++)
                in_order &= base[DISP_ORDER / 8 + k] == (uint64_t)k + 1;
        int all = 0;
        CHECK_OK(gk_broadcast(&all, &in_order, sizeof(int), 0));
        ok = all;
        if (!ok && me == 0)
            printf("win_lock_fifo_test: out of order with %ld us to settle; retrying\n",
                   settle_us);
    }
    CHECK_TRUE(ok);
    CHECK_OK(gk_win_free(win));
    return gk_finalize() == GK_OK ? 0 : 1;
}

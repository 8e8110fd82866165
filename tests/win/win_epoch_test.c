/*
 * win_epoch_test: the synchronisation modes with data checked: fence
 * epochs, post/start/complete/wait (a ring, and all-to-one) with
 * gk_win_test, lock/unlock, lock_all/unlock_all, NOCHECK, the flushes.
 * The window is GK_WIN_STRICT, so every access below must be inside some
 * epoch or it fails.
 */
#include "pe_check.h"

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint64_t *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(64 * sizeof(uint64_t), GK_WIN_STRICT, (void **)&base, &win));

    /* Fence: puts between two fences are visible after the second. */
    CHECK_OK(gk_win_fence(win, GK_WIN_NOPRECEDE));
    for (int round = 1; round <= 3; round++) {
        uint64_t v = (uint64_t)(100 * round + me);
        CHECK_OK(gk_win_put(win, right, 0, &v, sizeof(v)));
        CHECK_OK(gk_win_fence(win, 0));
        CHECK_EQ_U64(base[0], (uint64_t)(100 * round + left));
        CHECK_OK(gk_win_fence(win, 0));
    }
    CHECK_OK(gk_win_fence(win, GK_WIN_NOSUCCEED));

    /* PSCW around a ring: expose to my left, access my right. */
    for (int round = 1; round <= 5; round++) {
        int from[1] = {left}, to[1] = {right};
        CHECK_OK(gk_win_post(win, from, 1, 0));
        CHECK_OK(gk_win_start(win, to, 1, 0));
        uint64_t v = (uint64_t)(1000 * round + me);
        CHECK_OK(gk_win_put(win, right, 8, &v, sizeof(v)));
        CHECK_OK(gk_win_complete(win));
        if (round % 2) {
            CHECK_OK(gk_win_wait(win));
        } else {
            int done = 0;
            while (!done)
                CHECK_OK(gk_win_test(win, &done));
        }
        CHECK_EQ_U64(base[1], (uint64_t)(1000 * round + left));
        CHECK_OK(gk_barrier()); /* the next round's put must not overwrite early */
    }

    /* PSCW all-to-one: everyone adds into PE 0, which waits for all. */
    int *all = malloc(sizeof(int) * (size_t)npes);
    CHECK_NOT_NULL(all);
    for (int p = 0; p < npes; p++)
        all[p] = p;
    if (me == 0)
        CHECK_OK(gk_win_post(win, all, npes, 0));
    int zero[1] = {0};
    CHECK_OK(gk_win_start(win, zero, 1, 0));
    uint64_t one = 1;
    CHECK_OK(gk_win_accumulate(win, 0, 16, &one, 1, GK_DTYPE_UINT64, GK_OP_SUM));
    CHECK_OK(gk_win_complete(win));
    if (me == 0) {
        CHECK_OK(gk_win_wait(win));
        CHECK_EQ_U64(base[2], (uint64_t)npes);
    }
    free(all);
    CHECK_OK(gk_barrier());

    /* Passive target: lock/unlock, flush, lock_all, NOCHECK. */
    CHECK_OK(gk_win_lock(win, right, GK_LOCK_EXCLUSIVE, 0));
    uint64_t v = 7000 + (uint64_t)me;
    CHECK_OK(gk_win_put(win, right, 24, &v, sizeof(v)));
    CHECK_OK(gk_win_flush(win, right));
    uint64_t back = 0;
    CHECK_OK(gk_win_get(win, right, 24, &back, sizeof(back)));
    CHECK_EQ_U64(back, v);
    CHECK_OK(gk_win_flush_local(win, right));
    CHECK_OK(gk_win_unlock(win, right));
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_lock_all(win, 0));
    for (int p = 0; p < npes; p++) {
        uint64_t got = 0;
        CHECK_OK(gk_win_get(win, p, 24, &got, sizeof(got)));
        CHECK_EQ_U64(got, 7000 + (uint64_t)((p + npes - 1) % npes));
    }
    CHECK_OK(gk_win_flush_all(win));
    CHECK_OK(gk_win_flush_local_all(win));
    CHECK_OK(gk_win_unlock_all(win));
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_lock_all(win, GK_WIN_NOCHECK));
    uint64_t mine = 9000 + (uint64_t)me;
    CHECK_OK(gk_win_put(win, right, 32, &mine, sizeof(mine)));
    CHECK_OK(gk_win_unlock_all(win));
    CHECK_OK(gk_win_lock(win, me, GK_LOCK_SHARED, GK_WIN_NOCHECK));
    CHECK_OK(gk_win_unlock(win, me));
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(base[4], 9000 + (uint64_t)left);
    CHECK_OK(gk_win_free(win));
    return gk_finalize() == GK_OK ? 0 : 1;
}

/*
 * win_epoch_test: the synchronisation modes with data checked: fence
 * epochs, post/start/complete/wait (a ring, and all-to-one) with
 * gk_win_test, lock/unlock, lock_all/unlock_all, NOCHECK, the flushes.
 * The window is GK_WIN_STRICT, so every access below must be inside some
 * epoch or it fails.
 *
 * The waits of PSCW, and those on a word that accumulates change, are
 * timed: in the "sleeping" variant (CMakeLists.txt) every wait sleeps at
 * once and a write that does not wake its waiter costs GK_SLEEP_MS (4 s),
 * so such a wait over MAX_WAIT_S fails.
 */
#include <time.h>

#include "pe_check.h"
#include "win_emulated.h"

#define MAX_WAIT_S 2.0
#define CHECK_OK_TIMED(call)                                                             \
    do {                                                                                 \
        double t0_ = pe_now();                                                           \
        CHECK_OK(call);                                                                  \
        double took_ = pe_now() - t0_;                                                   \
        if (took_ > MAX_WAIT_S)                                                          \
            PE_FAIL("%s took %.3f s (a lost wake-up?)", #call, took_);                   \
    } while (0)

/*
 * More of each mode, on a second strict window of n words per PE:
 *   fence       rounds with no barrier in between: every PE adds into
 *               every PE, gets what the previous epoch left, and the sums
 *               are exact after each fence;
 *   PSCW        rounds with no barrier in between: all-to-one (the target
 *               polls gk_win_test), one-to-all, pairs, and origins that
 *               start before the target has posted (it posts late);
 *   lock        several targets locked at once in one epoch (shared and
 *               exclusive), flushed one at a time;
 *   lock_all    accumulates from every PE to every PE, flush_all,
 *               flush_local_all; NOCHECK on lock, lock_all, post and start.
 */
static void more_epochs(int me, int npes)
{
    uint64_t *base = NULL;
    gk_win_t *win = NULL;
    size_t words = 16 + (size_t)npes;
    CHECK_OK(gk_win_allocate(words * 8, GK_WIN_STRICT, (void **)&base, &win));
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* Fence rounds: word 0 counts adds, word 1 is a put from the left;
     * each round is a writing epoch and a reading one (no barrier). */
    CHECK_OK(gk_win_fence(win, GK_WIN_NOPRECEDE));
    for (uint64_t round = 1; round <= 10; round++) {
        uint64_t one = 1, tag = 1000 * round + (uint64_t)me;
        for (int p = 0; p < npes; p++)
            CHECK_OK(gk_win_accumulate(win, p, 0, &one, 1, GK_DTYPE_UINT64, GK_OP_SUM));
        CHECK_OK(gk_win_put(win, right, 8, &tag, 8));
        CHECK_OK(gk_win_fence(win, 0));
        CHECK_EQ_U64(base[0], round * (uint64_t)npes);
        CHECK_EQ_U64(base[1], 1000 * round + (uint64_t)left);
        uint64_t seen = 0; /* and a get in this read-only epoch sees the same */
        CHECK_OK(gk_win_get(win, right, &seen, 0, 8));
        CHECK_EQ_U64(seen, round * (uint64_t)npes);
        CHECK_OK(gk_win_fence(win, 0)); /* before the next round writes */
    }
    CHECK_OK(gk_win_fence(win, GK_WIN_NOSUCCEED));
    CHECK_OK(gk_barrier());

    /* PSCW all-to-one, to each PE in turn, no barrier between rounds. */
    int *all = malloc(sizeof(int) * (size_t)npes);
    CHECK_NOT_NULL(all);
    for (int p = 0; p < npes; p++)
        all[p] = p;
    for (int target = 0; target < npes; target++) {
        if (me == target)
            CHECK_OK(gk_win_post(win, all, npes, 0));
        int t[1] = {target};
        CHECK_OK_TIMED(gk_win_start(win, t, 1, 0));
        uint64_t v = 1;
        CHECK_OK(gk_win_accumulate(win, target, 16, &v, 1, GK_DTYPE_UINT64, GK_OP_SUM));
        uint64_t mine = 100 * (uint64_t)target + (uint64_t)me;
        CHECK_OK(gk_win_put(win, target, (16 + (size_t)me) * 8, &mine, 8));
        CHECK_OK(gk_win_complete(win));
        if (me == target) {
            int done = 0;
            long polls = 0;
            while (!done) {
                CHECK_OK(gk_win_test(win, &done));
                polls++;
            }
            CHECK_GE(polls, 1);
            CHECK_EQ_U64(base[2], (uint64_t)npes);
            for (int p = 0; p < npes; p++)
                CHECK_EQ_U64(base[16 + p], 100 * (uint64_t)target + (uint64_t)p);
        }
    }
    CHECK_OK(gk_barrier());

    /* One-to-all: PE 0 writes everyone; each exposes to PE 0 only. */
    for (int round = 1; round <= 5; round++) {
        int zero[1] = {0};
        CHECK_OK(gk_win_post(win, zero, 1, 0));
        if (me == 0) {
            CHECK_OK_TIMED(gk_win_start(win, all, npes, 0));
            for (int p = 0; p < npes; p++) {
                uint64_t v = (uint64_t)(round * 10 + p);
                CHECK_OK(gk_win_put(win, p, 24, &v, 8));
            }
            CHECK_OK(gk_win_complete(win));
        }
        CHECK_OK_TIMED(gk_win_wait(win));
        CHECK_EQ_U64(base[3], (uint64_t)(round * 10 + me));
    }
    CHECK_OK(gk_barrier());

    /* Pairs (0,1), (2,3), ...: exchange both ways; an odd PE out idles. */
    int partner = me ^ 1;
    if (partner < npes) {
        for (int round = 1; round <= 5; round++) {
            int g[1] = {partner};
            CHECK_OK(gk_win_post(win, g, 1, GK_WIN_NOCHECK));
            CHECK_OK_TIMED(gk_win_start(win, g, 1, GK_WIN_NOCHECK));
            uint64_t v = (uint64_t)(round * 100 + me);
            CHECK_OK(gk_win_put(win, partner, 32, &v, 8));
            CHECK_OK(gk_win_complete(win));
            CHECK_OK_TIMED(gk_win_wait(win));
            CHECK_EQ_U64(base[4], (uint64_t)(round * 100 + partner));
        }
    }
    CHECK_OK(gk_barrier());

    /* Start before post: the origins start at once, the target (PE 0)
     * posts only after they have said so, and 2 ms more (so they are most
     * likely inside gk_win_start by then; correct either way). */
    if (npes > 1) {
        uint64_t *waiting = gk_calloc(1, sizeof(uint64_t));
        CHECK_NOT_NULL(waiting);
        if (me == 0) {
            uint64_t v = 0;
            do {
                CHECK_OK(gk_atomic_fetch_u64(0, waiting, &v));
            } while (v < (uint64_t)npes - 1);
            struct timespec t = {0, 2000000};
            nanosleep(&t, NULL);
            CHECK_OK(gk_win_post(win, all + 1, npes - 1, 0));
            CHECK_OK_TIMED(gk_win_wait(win));
            CHECK_EQ_U64(base[5], (uint64_t)(npes - 1));
        } else {
            CHECK_OK(gk_atomic_add_u64(0, waiting, 1));
            int z[1] = {0};
            CHECK_OK_TIMED(gk_win_start(win, z, 1, 0));
            uint64_t one = 1;
            CHECK_OK(gk_win_accumulate(win, 0, 40, &one, 1, GK_DTYPE_UINT64, GK_OP_SUM));
            CHECK_OK(gk_win_complete(win));
        }
        CHECK_OK(gk_barrier());
        gk_free(waiting);
    }

    /* Several targets locked in one epoch: shared on all but the right
     * neighbour, exclusive on it; flushed one by one, unlocked in another
     * order. */
    for (int p = 0; p < npes; p++)
        CHECK_OK(gk_win_lock(
            win, p, p == right && npes > 1 ? GK_LOCK_EXCLUSIVE : GK_LOCK_SHARED, 0));
    uint64_t tag = 5000 + (uint64_t)me;
    CHECK_OK(gk_win_put(win, right, 48, &tag, 8));
    for (int p = 0; p < npes; p++) {
        uint64_t one = 1;
        CHECK_OK(gk_win_accumulate(win, p, 56, &one, 1, GK_DTYPE_UINT64, GK_OP_SUM));
        CHECK_OK(gk_win_flush(win, p));
    }
    uint64_t back = 0;
    CHECK_OK(gk_win_get(win, right, &back, 48, 8));
    CHECK_EQ_U64(back, tag);
    for (int i = 0; i < npes; i++)
        CHECK_OK(gk_win_unlock(win, (me + npes - i) % npes));
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(base[6], 5000 + (uint64_t)left);
    CHECK_EQ_U64(base[7], (uint64_t)npes);

    /* lock_all: everyone adds into everyone (fetch_and_op), flushes. */
    for (int round = 0; round < 2; round++) {
        CHECK_OK(gk_win_lock_all(win, round == 0 ? 0 : GK_WIN_NOCHECK));
        for (int p = 0; p < npes; p++) {
            uint64_t add = (uint64_t)me + 1, old = 0;
            CHECK_OK(
                gk_win_fetch_and_op(win, p, 64, &add, &old, GK_DTYPE_UINT64, GK_OP_SUM));
        }
        CHECK_OK(gk_win_flush_all(win));
        CHECK_OK(gk_win_flush_local_all(win));
        CHECK_OK(gk_win_unlock_all(win));
        CHECK_OK(gk_barrier());
        CHECK_EQ_U64(base[8], (uint64_t)(round + 1) * (uint64_t)npes * (npes + 1) / 2);
        CHECK_OK(gk_barrier());
    }
    free(all);
    CHECK_OK(gk_win_free(win));
}

/*
 * An accumulate, a fetch-and-op and a compare-and-swap each wake a PE that
 * waits on the word they change (gk_wait_until on its window memory) by
 * the unlock that completes them, as a put does. Pairs (0,1), (2,3), ...:
 * the odd PE says it is about to wait, then waits; the even one, 20 ms
 * after it heard so (so the odd one most likely sleeps by then; correct
 * either way), updates its word and goes on to wait itself.
 */
static __attribute__((unused)) void accumulates_wake(int me, int npes)
{
    uint64_t *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(2 * sizeof(uint64_t), 0, (void **)&base, &win));
    int partner = me ^ 1;
    for (uint64_t round = 1; round <= 3 && partner < npes; round++) {
        if (me % 2 == 1) {
            CHECK_OK(gk_atomic_add_u64(partner, &base[1], 1));
            CHECK_OK_TIMED(gk_wait_until_u64(&base[0], GK_CMP_EQ, round));
            continue;
        }
        CHECK_OK(gk_wait_until_u64(&base[1], GK_CMP_GE, round));
        struct timespec t = {0, 20000000};
        nanosleep(&t, NULL);
        uint64_t one = 1, old = 0, expected = round - 1;
        CHECK_OK(gk_win_lock(win, partner, GK_LOCK_SHARED, 0));
        if (round == 1)
            CHECK_OK(
                gk_win_accumulate(win, partner, 0, &one, 1, GK_DTYPE_UINT64, GK_OP_SUM));
        else if (round == 2)
            CHECK_OK(gk_win_fetch_and_op(win, partner, 0, &one, &old, GK_DTYPE_UINT64,
                                         GK_OP_SUM));
        else
            CHECK_OK(gk_win_compare_and_swap(win, partner, 0, &expected, &round, &old,
                                             GK_DTYPE_UINT64));
        CHECK_OK(gk_win_unlock(win, partner));
        if (round > 1)
            CHECK_EQ_U64(old, expected);
    }
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_free(win));
}

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
        CHECK_OK_TIMED(gk_win_start(win, to, 1, 0));
        uint64_t v = (uint64_t)(1000 * round + me);
        CHECK_OK(gk_win_put(win, right, 8, &v, sizeof(v)));
        CHECK_OK(gk_win_complete(win));
        if (round % 2) {
            CHECK_OK_TIMED(gk_win_wait(win));
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
    CHECK_OK_TIMED(gk_win_start(win, zero, 1, 0));
    uint64_t one = 1;
    CHECK_OK(gk_win_accumulate(win, 0, 16, &one, 1, GK_DTYPE_UINT64, GK_OP_SUM));
    CHECK_OK(gk_win_complete(win));
    if (me == 0) {
        CHECK_OK_TIMED(gk_win_wait(win));
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
    CHECK_OK(gk_win_get(win, right, &back, 24, sizeof(back)));
    CHECK_EQ_U64(back, v);
    CHECK_OK(gk_win_flush_local(win, right));
    CHECK_OK(gk_win_unlock(win, right));
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_lock_all(win, 0));
    for (int p = 0; p < npes; p++) {
        uint64_t got = 0;
        CHECK_OK(gk_win_get(win, p, &got, 24, sizeof(got)));
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
    more_epochs(me, npes);
#ifndef GK_TEST_WIN_EMULATED /* it waits on window memory with gk_wait_until */
    accumulates_wake(me, npes);
#endif
    return gk_finalize() == GK_OK ? 0 : 1;
}

/*
 * mutex_test: gk_lock_t (OpenSHMEM set/test/clear) protecting a counter
 * that is incremented non-atomically on PE 0; gk_lock_try_set when held and
 * free; misuse (set twice, clear without holding); more() below.
 */
#include <sched.h>

#include "pe_check.h"

#define ROUNDS 2000

/*
 * More: a free lock is taken by gk_lock_try_set (and then refuses a second
 * test by its holder); two locks are independent; a block written under
 * the lock in two puts is whole for the next holder (clear completes the
 * holder's puts); bad arguments.
 */
static void more(gk_lock_t *lock, int me, int npes)
{
    gk_lock_t *second = gk_calloc(1, sizeof(gk_lock_t));
    uint64_t *block = gk_calloc(16, sizeof(uint64_t));
    CHECK_NOT_NULL(second);
    CHECK_NOT_NULL(block);
    int got = -1;
    if (me == npes - 1) {
        CHECK_OK(gk_lock_try_set(lock, &got));
        CHECK_EQ(got, 1);
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_lock_try_set(lock, &got), "gk_lock_try_set",
                     "already holds");
    }
    CHECK_OK(gk_barrier());
    /* The second lock is free while the first is held, and vice versa. */
    if (me == 0) {
        got = -1;
        CHECK_OK(gk_lock_try_set(second, &got));
        CHECK_EQ(got, 1);
        CHECK_OK(gk_lock_clear(second));
    }
    CHECK_OK(gk_barrier());
    if (me == npes - 1)
        CHECK_OK(gk_lock_clear(lock));
    CHECK_OK(gk_barrier());

    /* Blocks under the lock: the next holder finds the last one whole. */
    for (int i = 0; i < 300; i++) {
        CHECK_OK(gk_lock_set(second));
        uint64_t seen[16], mine[16];
        CHECK_OK(gk_get(0, seen, block, sizeof(seen)));
        for (int w = 1; w < 16; w++)
            if (seen[w] != seen[0])
                PE_FAIL("the block under the lock is half-written: word 0 is 0x%llx, "
                        "word %d 0x%llx",
                        (unsigned long long)seen[0], w, (unsigned long long)seen[w]);
        for (int w = 0; w < 16; w++)
            mine[w] = (uint64_t)me << 32 | (uint64_t)i;
        CHECK_OK(gk_put_nbi(0, block, mine, sizeof(mine) / 2));
        if (i % 5 == 0)
            sched_yield();
        CHECK_OK(gk_put_nbi(0, block + 8, mine + 8, sizeof(mine) / 2));
        CHECK_OK(gk_lock_clear(second)); /* completes the puts first */
    }
    CHECK_OK(gk_barrier());

    /* Bad arguments. */
    gk_lock_t on_stack;
    memset(&on_stack, 0, sizeof(on_stack));
    CHECK_LOGGED(GK_ERR_RANGE, gk_lock_set(&on_stack), "gk_lock_set", "out of bounds");
    CHECK_LOGGED(GK_ERR_RANGE, gk_lock_try_set(&on_stack, &got), "gk_lock_try_set");
    CHECK_LOGGED(GK_ERR_RANGE, gk_lock_clear(&on_stack), "gk_lock_clear");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_lock_try_set(lock, NULL), "gk_lock_try_set",
                 "acquired_p is NULL");
    CHECK_LOGGED(GK_ERR_ALIGN, gk_lock_set((gk_lock_t *)((char *)block + 4)),
                 "gk_lock_set", "not aligned");
    CHECK_OK(gk_barrier());
    gk_free(block);
    gk_free(second);
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    gk_lock_t *lock = gk_calloc(1, sizeof(gk_lock_t));
    uint64_t *counter = gk_calloc(1, sizeof(uint64_t));
    CHECK_NOT_NULL(lock);
    CHECK_NOT_NULL(counter);
    for (int i = 0; i < ROUNDS; i++) {
        if (i % 3 == 0) {
            int got = 0;
            CHECK_OK(gk_lock_try_set(lock, &got));
            if (!got)
                CHECK_OK(gk_lock_set(lock));
        } else {
            CHECK_OK(gk_lock_set(lock));
        }
        uint64_t v = 0;
        CHECK_OK(gk_get(0, &v, counter, sizeof(v)));
        if (i % 11 == 0)
            sched_yield();
        v++;
        CHECK_OK(gk_put(0, counter, &v, sizeof(v)));
        CHECK_OK(gk_lock_clear(lock));
    }
    CHECK_OK(gk_barrier());
    if (me == 0)
        CHECK_EQ_U64(*counter, (uint64_t)npes * ROUNDS);
    CHECK_OK(gk_barrier());

    /* Held by PE 0: a test elsewhere fails, misuse is reported. */
    if (me == 0) {
        CHECK_OK(gk_lock_set(lock));
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_lock_set(lock), "already holds");
    }
    CHECK_OK(gk_barrier());
    if (me != 0) {
        int got = 1;
        CHECK_OK(gk_lock_try_set(lock, &got));
        CHECK_EQ(got, 0);
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_lock_clear(lock), "does not hold");
    }
    CHECK_OK(gk_barrier());
    if (me == 0)
        CHECK_OK(gk_lock_clear(lock));
    CHECK_OK(gk_barrier());
    more(lock, me, npes);

    /* gk_finalize while holding the mutex refuses (PEs queued behind it
     * would wait for ever), and works once it is cleared. */
    CHECK_OK(gk_barrier());
    if (me == 0) {
        CHECK_OK(gk_lock_set(lock));
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_finalize(), "gk_finalize", "holds 1 gk_lock_t");
        CHECK_OK(gk_lock_clear(lock));
    }
    CHECK_OK(gk_barrier());
    gk_free(counter);
    gk_free(lock);
    return gk_finalize() == GK_OK ? 0 : 1;
}

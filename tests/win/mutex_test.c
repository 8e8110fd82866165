/*
 * mutex_test: gk_lock_t (OpenSHMEM set/test/clear) protecting a counter
 * that is incremented non-atomically on PE 0; gk_lock_test when held and
 * free; misuse (set twice, clear without holding).
 */
#include <sched.h>

#include "pe_check.h"

#define ROUNDS 2000

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
            CHECK_OK(gk_lock_test(lock, &got));
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
        CHECK_OK(gk_lock_test(lock, &got));
        CHECK_EQ(got, 0);
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_lock_clear(lock), "does not hold");
    }
    CHECK_OK(gk_barrier());
    if (me == 0)
        CHECK_OK(gk_lock_clear(lock));
    CHECK_OK(gk_barrier());
    gk_free(counter);
    gk_free(lock);
    return gk_finalize() == GK_OK ? 0 : 1;
}

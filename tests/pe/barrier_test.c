/*
 * barrier_test: 1000 barriers; before each, every PE adds 1 to a counter on
 * PE 0; after it, every PE reads the counter and must see all the adds of
 * this round (no PE passes early), and a put made before the barrier is
 * visible after it.
 */
#include "pe_check.h"

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    uint64_t *counter = gk_calloc(1, sizeof(uint64_t));
    uint64_t *mail = gk_calloc(1, sizeof(uint64_t));
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (uint64_t round = 1; round <= 1000; round++) {
        CHECK_OK(gk_atomic_add_u64(0, counter, 1));
        CHECK_OK(gk_put(right, mail, &(uint64_t){round * 1000 + (uint64_t)me}, sizeof(uint64_t)));
        CHECK_OK(gk_barrier());
        uint64_t seen;
        CHECK_OK(gk_atomic_fetch_u64(0, counter, &seen));
        if (seen < round * (uint64_t)npes)
            PE_FAIL("round %llu: counter %llu, expected at least %llu after the barrier",
                    (unsigned long long)round, (unsigned long long)seen,
                    (unsigned long long)(round * (uint64_t)npes));
        CHECK_EQ_U64(*mail, round * 1000 + (uint64_t)left);
        /* Nobody may add for the next round before everyone has read. */
        CHECK_OK(gk_barrier());
    }
    gk_free(mail);
    gk_free(counter);
    CHECK_OK(gk_finalize());
    return 0;
}

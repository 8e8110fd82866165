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
    CHECK_OK(gk_barrier());
    gk_free(token);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * shmem_atomic_inc.c: the specification's AMO scenarios 1, 3 and 4 show
 * undefined uses of atomic_inc (two atomicity domains on one word, a
 * reduction reading words that increments still target, a local x++
 * beside remote increments); here each is written the defined way and
 * checked. Every PE increments PE 0's word through a context of
 * SHMEM_TEAM_WORLD (PE 0 also makes one of SHMEM_TEAM_SHARED and finds
 * itself there); every PE increments the next PE's word, and after a
 * barrier sum_to_all adds them; PE 0 increments its own word with an AMO
 * as the others do, and only after a barrier with a local x++.
 */
#include <stdint.h>

#include "spec_check.h"

int main(void)
{
    static uint64_t x = 0;
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static int pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    static int x3 = 0, y3 = 0, x4 = 0;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    /* Scenario 1: one atomicity domain, the world's. */
    shmem_ctx_t ctx, shared_ctx;
    SPEC_CHECK(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &ctx), 0);
    if (me == 0) {
        SPEC_CHECK(shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &shared_ctx), 0);
        int target = shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_SHARED);
        SPEC_CHECK(target, shmem_team_my_pe(SHMEM_TEAM_SHARED));
        SPEC_CHECK(target >= 0, 1);
        shmem_ctx_destroy(shared_ctx);
    }
    shmem_ctx_uint64_atomic_inc(ctx, &x, 0);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        SPEC_CHECK(x, npes);

    /* Scenario 3: the barrier completes the increments before the
     * reduction reads the words. */
    shmem_int_atomic_inc(&x3, (me + 1) % npes);
    shmem_barrier_all();
    SPEC_CHECK(x3, 1);
    shmem_int_sum_to_all(&y3, &x3, 1, 0, 0, npes, pwrk, psync);
    SPEC_CHECK(y3, npes);

    /* Scenario 4: PE 0's own update is an AMO while others are in flight,
     * and a plain store only once the barrier has completed them. */
    shmem_int_atomic_inc(&x4, 0);
    shmem_barrier_all();
    if (me == 0) {
        SPEC_CHECK(x4, npes);
        x4++;
        SPEC_CHECK(shmem_int_atomic_fetch(&x4, 0), npes + 1);
    }
    shmem_finalize();
    return 0;
}

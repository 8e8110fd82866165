/*
 * shmem_init.c: the specification's start-up examples: hello (each PE
 * knows its number and the count: every number from 0 to npes - 1 once,
 * the same count everywhere), shmem_n_pes, shmem_init (PE 0 puts 33 to PE
 * 1 % npes, which finds it after a barrier) and shmem_finalize (PE 0 gets
 * the last PE's 10101 before finalizing).
 */
#include "spec_check.h"

int main(void)
{
    static int targ = 0;
    static long x = 10101;
    static int mine, sum, most, least;
    long y = -1;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    SPEC_CHECK(me >= 0 && me < npes, 1);
    SPEC_CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    SPEC_CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    mine = me;
    SPEC_CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &sum, &mine, 1), 0);
    SPEC_CHECK(sum, npes * (npes - 1) / 2);
    mine = npes;
    SPEC_CHECK(shmem_int_max_reduce(SHMEM_TEAM_WORLD, &most, &mine, 1), 0);
    SPEC_CHECK(shmem_int_min_reduce(SHMEM_TEAM_WORLD, &least, &mine, 1), 0);
    SPEC_CHECK(most, npes);
    SPEC_CHECK(least, npes);

    int receiver = 1 % npes;
    if (me == 0) {
        int src = 33;
        shmem_put(&targ, &src, 1, receiver);
    }
    shmem_barrier_all();
    SPEC_CHECK(targ, me == receiver ? 33 : 0);

    if (me == 0)
        y = shmem_g(&x, npes - 1);
    SPEC_CHECK(y, me == 0 ? 10101 : -1);
    shmem_finalize();
    return 0;
}

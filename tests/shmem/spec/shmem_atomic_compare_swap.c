/*
 * shmem_atomic_compare_swap.c: the specification's AMO examples on one
 * word each: compare_swap (a race to PE 0's word: exactly one winner),
 * fetch_add, add, fetch_inc and inc to PE 0 (the totals), and swap (each
 * PE swaps its number into PE 0's word: the values fetched and the last
 * one left are the PEs' numbers and -1, each once).
 */
#include <stdlib.h>

#include "spec_check.h"

int main(void)
{
    static int race_winner = -1;
    static int winners = 0;
    static long sum = 0, incs = 0;
    static long swapped = -1;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    int oldval = shmem_atomic_compare_swap(&race_winner, -1, me, 0);
    if (oldval == -1)
        shmem_atomic_inc(&winners, 0);
    else
        SPEC_CHECK(oldval >= 0 && oldval < npes, 1);

    long before = shmem_atomic_fetch_add(&sum, (long)me + 1, 0);
    SPEC_CHECK(before >= 0, 1);
    shmem_atomic_add(&sum, 10L, 0);
    shmem_atomic_fetch_inc(&incs, 0);
    shmem_atomic_inc(&incs, 0);

    long old = shmem_atomic_swap(&swapped, (long)me, 0);
    shmem_barrier_all();
    if (me == 0) {
        SPEC_CHECK(winners, 1);
        SPEC_CHECK(race_winner >= 0 && race_winner < npes, 1);
        SPEC_CHECK(sum, (long)npes * (npes + 1) / 2 + 10L * npes);
        SPEC_CHECK(incs, 2L * npes);
    }
    /* Every value but one came back from a swap; the one left is in PE 0's word. */
    long *all = shmem_malloc(npes * sizeof(long));
    long *mine = shmem_malloc(sizeof(long));
    *mine = old;
    shmem_barrier_all();
    SPEC_CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, all, mine, 1), 0);
    long left = shmem_long_atomic_fetch(&swapped, 0);
    int *count = calloc(npes + 1, sizeof(int));
    for (int p = 0; p < npes; p++)
        count[all[p] + 1]++;
    count[left + 1]++;
    for (int v = 0; v <= npes; v++)
        SPEC_CHECK(count[v], 1);
    free(count);
    shmem_barrier_all();
    shmem_free(mine);
    shmem_free(all);
    shmem_finalize();
    return 0;
}

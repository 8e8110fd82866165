/*
 * shmem_sum_reduce.c: the specification's reduction example: each PE
 * draws 32 values below npes and flags the maximal ones (npes - 1);
 * or_reduce of the flags marks the indices where some PE drew one, and
 * sum_reduce counts them all. The draws are a fixed function of the PE
 * and the index instead of rand(), so that every PE can work out the
 * expected results.
 */
#include "spec_check.h"

#define NELEMS 32

static int draw(int pe, int i, int npes)
{
    return (i * (pe + 3) + pe * 7 + i / 5) % npes;
}

int main(void)
{
    static int maximal_values_count = 0;
    static int maximal_values_total;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *values = shmem_malloc(NELEMS * sizeof(int));
    unsigned char *value_is_maximal = shmem_malloc(NELEMS);
    unsigned char *value_is_maximal_all = shmem_malloc(NELEMS);
    for (int i = 0; i < NELEMS; i++) {
        values[i] = draw(me, i, npes);
        value_is_maximal[i] = values[i] == npes - 1;
        maximal_values_count += value_is_maximal[i];
    }
    shmem_sync(SHMEM_TEAM_WORLD);
    SPEC_CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, value_is_maximal_all, value_is_maximal,
                               NELEMS),
               0);
    SPEC_CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, &maximal_values_total,
                                &maximal_values_count, 1),
               0);

    int total = 0;
    for (int i = 0; i < NELEMS; i++) {
        int any = 0;
        for (int pe = 0; pe < npes; pe++) {
            int maximal = draw(pe, i, npes) == npes - 1;
            total += maximal;
            any |= maximal;
        }
        SPEC_CHECK(value_is_maximal_all[i], any);
    }
    SPEC_CHECK(maximal_values_total, total);
    SPEC_CHECK(total > 0, 1);
    shmem_free(values);
    shmem_free(value_is_maximal);
    shmem_free(value_is_maximal_all);
    shmem_finalize();
    return 0;
}

/*
 * shmem_wait_until_some.c: the specification's all-to-all sum with
 * shmem_wait_until_some: every PE puts its block of N ints to every PE,
 * fences, and sets its flag there; each PE calls shmem_wait_until_some
 * until it returns 0 (every flag excluded through the status array),
 * summing the blocks of the PEs it returns. Every PE is returned once,
 * and the sum is 0 + 1 + ... + (N * npes - 1).
 */
#include <stdlib.h>

#include "spec_check.h"

#define N 100

int main(void)
{
    int total_sum = 0, returned = 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *my_data = malloc(N * sizeof(int));
    int *all_data = shmem_malloc(N * npes * sizeof(int));
    int *flags = shmem_calloc(npes, sizeof(int));
    size_t *indices = malloc(npes * sizeof(size_t));
    int *status = calloc(npes, sizeof(int));
    for (int i = 0; i < N; i++)
        my_data[i] = me * N + i;
    for (int i = 0; i < npes; i++)
        shmem_put_nbi(&all_data[me * N], my_data, N, i);
    shmem_fence();
    for (int i = 0; i < npes; i++)
        shmem_atomic_set(&flags[me], 1, i);

    size_t ncompleted;
    while ((ncompleted = shmem_wait_until_some(flags, npes, indices, status, SHMEM_CMP_NE,
                                               0))) {
        for (size_t i = 0; i < ncompleted; i++) {
            SPEC_CHECK(indices[i] < (size_t)npes, 1);
            SPEC_CHECK(status[indices[i]], 0);
            for (size_t j = 0; j < N; j++)
                total_sum += all_data[indices[i] * N + j];
            status[indices[i]] = 1;
        }
        returned += (int)ncompleted;
    }
    SPEC_CHECK(returned, npes);
    int M = N * npes - 1;
    SPEC_CHECK(total_sum, M * (M + 1) / 2);
    shmem_free(all_data);
    shmem_free(flags);
    free(my_data);
    free(indices);
    free(status);
    shmem_finalize();
    return 0;
}

/*
 * shmem_test_some.c: the specification's shmem_test_some example: every
 * PE puts its block of N ints to every PE, fences, and sets its flag
 * there; each PE loops on shmem_test_some until it has seen every flag,
 * summing the block of each PE it returns and excluding that flag
 * through the status array. The sum of all blocks is 0 + 1 + ... +
 * (N * npes - 1), and every PE is returned exactly once.
 */
#include <stdlib.h>

#include "spec_check.h"

#define N 100

int main(void)
{
    int total_sum = 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *my_data = malloc(N * sizeof(int));
    int *all_data = shmem_malloc(N * npes * sizeof(int));
    int *flags = shmem_calloc(npes, sizeof(int));
    size_t *indices = calloc(npes, sizeof(size_t));
    int *status = calloc(npes, sizeof(int));
    for (int i = 0; i < N; i++)
        my_data[i] = me * N + i;
    for (int i = 0; i < npes; i++)
        shmem_put_nbi(&all_data[me * N], my_data, N, i);
    shmem_fence();
    for (int i = 0; i < npes; i++)
        shmem_atomic_set(&flags[me], 1, i);

    int ncompleted = 0;
    while (ncompleted < npes) {
        size_t ntested = shmem_test_some(flags, npes, indices, status, SHMEM_CMP_NE, 0);
        for (size_t i = 0; i < ntested; i++) {
            SPEC_CHECK(indices[i] < (size_t)npes, 1);
            SPEC_CHECK(status[indices[i]], 0);
            for (int j = 0; j < N; j++)
                total_sum += all_data[indices[i] * N + j];
            status[indices[i]] = 1;
        }
        ncompleted += (int)ntested;
    }
    SPEC_CHECK(ncompleted, npes);
    SPEC_CHECK(shmem_test_some(flags, npes, indices, status, SHMEM_CMP_NE, 0), 0);
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

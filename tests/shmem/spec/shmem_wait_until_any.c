/*
 * shmem_wait_until_any.c: the specification's all-to-all sum with
 * shmem_wait_until_any: every PE puts its block of N ints to every PE,
 * fences, and sets its flag there; each PE calls shmem_wait_until_any
 * npes times, summing the block of the PE it returns and excluding that
 * flag through the status array. Every PE is returned once, and the sum
 * is 0 + 1 + ... + (N * npes - 1); with every flag excluded the call
 * returns SIZE_MAX.
 */
#include <stdint.h>
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
    int *status = calloc(npes, sizeof(int));
    for (int i = 0; i < N; i++)
        my_data[i] = me * N + i;
    for (int i = 0; i < npes; i++)
        shmem_put_nbi(&all_data[me * N], my_data, N, i);
    shmem_fence();
    for (int i = 0; i < npes; i++)
        shmem_atomic_set(&flags[me], 1, i);

    for (int i = 0; i < npes; i++) {
        size_t completed_idx = shmem_wait_until_any(flags, npes, status, SHMEM_CMP_NE, 0);
        SPEC_CHECK(completed_idx < (size_t)npes, 1);
        SPEC_CHECK(status[completed_idx], 0);
        for (int j = 0; j < N; j++)
            total_sum += all_data[completed_idx * N + j];
        status[completed_idx] = 1;
    }
    SPEC_CHECK(shmem_wait_until_any(flags, npes, status, SHMEM_CMP_NE, 0) == SIZE_MAX, 1);
    int M = N * npes - 1;
    SPEC_CHECK(total_sum, M * (M + 1) / 2);
    shmem_free(all_data);
    shmem_free(flags);
    free(my_data);
    free(status);
    shmem_finalize();
    return 0;
}

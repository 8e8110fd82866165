/*
 * shmem_wait_until_any_vector.c: the specification's example: odd PEs
 * put 2 and even PEs 1 into their word on every PE; each PE waits for
 * any word equal to the value its sender puts, npes times, excluding
 * what it has seen, and checks the sum.
 */
#include <stdlib.h>

#include "spec_check.h"

int main(void)
{
    int total_sum = 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *ivars = shmem_calloc(npes, sizeof(int));
    int *status = calloc(npes, sizeof(int));
    int *cmp_values = malloc(npes * sizeof(int));
    for (int i = 0; i < npes; i++) {
        shmem_atomic_set(&ivars[me], me % 2 + 1, i);
        cmp_values[i] = i % 2 + 1;
    }
    for (int i = 0; i < npes; i++) {
        size_t idx = shmem_wait_until_any_vector(ivars, npes, status, SHMEM_CMP_EQ, cmp_values);
        SPEC_CHECK(idx < (size_t)npes, 1);
        SPEC_CHECK(status[idx], 0);
        status[idx] = 1;
        total_sum += ivars[idx];
    }
    SPEC_CHECK(total_sum, npes + npes / 2);
    free(cmp_values);
    free(status);
    shmem_barrier_all();
    shmem_free(ivars);
    shmem_finalize();
    return 0;
}

/*
 * shmem_test_any.c: the specification's shmem_test_any example: every PE
 * sets its flag on every PE, and each loops on test_any, excluding the
 * indices it has seen through the status array, until it has seen all.
 * Then the same loop without a status array: test_any and
 * wait_until_any, and their vector forms, must answer every index within
 * npes calls (none starves), also when two arrays are polled in turn,
 * and shmem_test_some the whole set.
 */
#include <stdlib.h>

#include "spec_check.h"

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *flags = shmem_calloc(npes, sizeof(int));
    int *status = calloc(npes, sizeof(int));
    int *seen = calloc(npes, sizeof(int));
    size_t *indices = malloc(npes * sizeof(size_t));

    for (int i = 0; i < npes; i++)
        shmem_atomic_set(&flags[me], 1, i);

    int ncompleted = 0;
    while (ncompleted < npes) {
        size_t idx = shmem_test_any(flags, npes, status, SHMEM_CMP_EQ, 1);
        if (idx != SIZE_MAX) {
            SPEC_CHECK(idx < (size_t)npes, 1);
            SPEC_CHECK(status[idx], 0);
            ncompleted++;
            status[idx] = 1;
        }
    }
    SPEC_CHECK(shmem_test_any(flags, npes, status, SHMEM_CMP_EQ, 1), SIZE_MAX);

    for (int i = 0; i < npes; i++) {
        size_t idx = shmem_test_any(flags, npes, NULL, SHMEM_CMP_EQ, 1);
        SPEC_CHECK(idx < (size_t)npes, 1);
        seen[idx]++;
    }
    for (int i = 0; i < npes; i++) {
        SPEC_CHECK(seen[i], 1);
        seen[i] = 0;
    }
    for (int i = 0; i < npes; i++)
        seen[shmem_wait_until_any(flags, npes, NULL, SHMEM_CMP_EQ, 1)]++;
    for (int i = 0; i < npes; i++) {
        SPEC_CHECK(seen[i], 1);
        seen[i] = 0;
    }
    /* The vector forms too, each index compared with its own value. */
    int *ones = malloc(npes * sizeof(int));
    for (int i = 0; i < npes; i++)
        ones[i] = 1;
    for (int i = 0; i < npes; i++) {
        size_t idx = shmem_test_any_vector(flags, npes, NULL, SHMEM_CMP_EQ, ones);
        SPEC_CHECK(idx < (size_t)npes, 1);
        seen[idx]++;
    }
    for (int i = 0; i < npes; i++) {
        SPEC_CHECK(seen[i], 1);
        seen[i] = 0;
    }
    for (int i = 0; i < npes; i++)
        seen[shmem_wait_until_any_vector(flags, npes, NULL, SHMEM_CMP_EQ, ones)]++;
    for (int i = 0; i < npes; i++)
        SPEC_CHECK(seen[i], 1);
    free(ones);

    /* Two arrays polled in turn: each gets every index once. */
    int *flags2 = shmem_calloc(npes, sizeof(int));
    int *seen2 = calloc(npes, sizeof(int));
    shmem_barrier_all();
    for (int i = 0; i < npes; i++)
        shmem_atomic_set(&flags2[me], 1, i);
    shmem_wait_until_all(flags2, npes, NULL, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < npes; i++)
        seen[i] = 0;
    for (int i = 0; i < npes; i++) {
        seen[shmem_test_any(flags, npes, NULL, SHMEM_CMP_EQ, 1)]++;
        seen2[shmem_wait_until_any(flags2, npes, NULL, SHMEM_CMP_EQ, 1)]++;
    }
    for (int i = 0; i < npes; i++) {
        SPEC_CHECK(seen[i], 1);
        SPEC_CHECK(seen2[i], 1);
    }
    free(seen2);
    shmem_barrier_all();
    shmem_free(flags2);
    SPEC_CHECK(shmem_test_some(flags, npes, indices, NULL, SHMEM_CMP_EQ, 1), npes);

    free(indices);
    free(seen);
    free(status);
    shmem_barrier_all();
    shmem_free(flags);
    shmem_finalize();
    return 0;
}

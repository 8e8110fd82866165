/*
 * spec_all2all.h: what the specification's all-to-all sum examples
 * (test_some, wait_until_any, wait_until_some) share. Every PE puts its
 * block of SPEC_N ints (me * SPEC_N + i) to every PE, fences, and sets
 * its flag there; each PE then sums the blocks of the PEs that a
 * point-to-point routine returns, once each, and the sum of all is
 * 0 + 1 + ... + (SPEC_N * npes - 1).
 */
#ifndef GK_TESTS_SPEC_ALL2ALL_H
#define GK_TESTS_SPEC_ALL2ALL_H

#include <stdlib.h>

#include "spec_check.h"

#define SPEC_N 100

struct spec_all2all {
    int npes;
    int *all_data; /* npes blocks, symmetric */
    int *flags;    /* one per PE, symmetric */
    int *status;   /* the flags seen */
    int total_sum;
    int taken;
};

static inline void spec_all2all_start(struct spec_all2all *a)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *my_data = malloc(SPEC_N * sizeof(int));
    a->npes = npes;
    a->all_data = shmem_malloc(SPEC_N * npes * sizeof(int));
    a->flags = shmem_calloc(npes, sizeof(int));
    a->status = calloc(npes, sizeof(int));
    a->total_sum = 0;
    a->taken = 0;
    for (int i = 0; i < SPEC_N; i++)
        my_data[i] = me * SPEC_N + i;
    for (int i = 0; i < npes; i++)
        shmem_put_nbi(&a->all_data[me * SPEC_N], my_data, SPEC_N, i);
    shmem_fence();
    for (int i = 0; i < npes; i++)
        shmem_atomic_set(&a->flags[me], 1, i);
    free(my_data);
}

/* The routine returned PE idx's flag: it must be one not seen yet. */
static inline void spec_all2all_take(struct spec_all2all *a, size_t idx)
{
    SPEC_CHECK(idx < (size_t)a->npes, 1);
    SPEC_CHECK(a->status[idx], 0);
    for (int j = 0; j < SPEC_N; j++)
        a->total_sum += a->all_data[idx * SPEC_N + j];
    a->status[idx] = 1;
    a->taken++;
}

static inline void spec_all2all_finish(struct spec_all2all *a)
{
    int M = SPEC_N * a->npes - 1;
    SPEC_CHECK(a->taken, a->npes);
    SPEC_CHECK(a->total_sum, M * (M + 1) / 2);
    shmem_free(a->all_data);
    shmem_free(a->flags);
    free(a->status);
}

#endif

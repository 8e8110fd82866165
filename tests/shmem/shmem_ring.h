/*
 * shmem_ring.h: the ring neighbours most OpenSHMEM tests put to and read
 * from; call shmem_ring_init() once the runtime is up.
 */
#ifndef GK_TESTS_SHMEM_RING_H
#define GK_TESTS_SHMEM_RING_H

#include <shmem.h>

static int me, npes, right, left;

static inline void shmem_ring_init(void)
{
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
}

#endif

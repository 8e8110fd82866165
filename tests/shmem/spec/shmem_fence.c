/*
 * shmem_fence.c: the specification's shmem_fence example: PE 0 puts an
 * array to PE 1 and to the last PE, fences, and puts a flag to both. The
 * fence orders the puts to each PE, so a PE that sees the flag finds the
 * whole array already there, before any barrier.
 */
#include "spec_check.h"

int main(void)
{
    int src = 99;
    long source[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    static long dest[10];
    static int targ;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int last = npes - 1;
    if (me == 0) {
        shmem_put(dest, source, 10, 1);
        shmem_put(dest, source, 10, last);
        shmem_fence();
        shmem_put(&targ, &src, 1, 1);
        shmem_put(&targ, &src, 1, last);
    }
    if (me == 1 || me == last) {
        shmem_wait_until(&targ, SHMEM_CMP_EQ, 99);
        for (int i = 0; i < 10; i++)
            SPEC_CHECK(dest[i], i + 1);
    }
    shmem_barrier_all();
    SPEC_CHECK(dest[0], me == 1 || me == last ? 1 : 0);
    shmem_finalize();
    return 0;
}

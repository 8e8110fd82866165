/*
 * shmem_barrier.c: the specification's shmem_barrier example: the even
 * PEs (an active set from 0 with stride 2) each put 4 to the next even
 * PE round their ring and meet in shmem_barrier, after which each even
 * PE has its 4; no one puts to the odd PEs, which keep 10101.
 */
#include "spec_check.h"

int main(void)
{
    static int x = 10101;
    static long pSync[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (me % 2 == 0) {
        shmem_p(&x, 4, (me + 2) % npes);
        shmem_barrier(0, 1, npes / 2 + npes % 2, pSync);
        SPEC_CHECK(x, 4);
    } else {
        SPEC_CHECK(x, 10101);
    }
    shmem_finalize();
    return 0;
}

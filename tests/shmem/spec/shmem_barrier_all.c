/*
 * shmem_barrier_all.c: the specification's shmem_barrier_all example
 * (each PE puts 4 to the next; after the barrier each has it) and its
 * "writing OpenSHMEM programs" example (PE 0 puts an array of shorts to
 * every other PE; after the barrier each checks it, and, holding the
 * lock, adds one to a count on PE 0 with a get and a put, which finds
 * npes - 1 after a second barrier).
 */
#include "spec_check.h"

#define N 16

int main(void)
{
    static int x = 1010;
    static short dest[N];
    static long lock = 0;
    static int count = 0;
    short source[N];

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_p(&x, 4, (me + 1) % npes);
    shmem_barrier_all();
    SPEC_CHECK(x, 4);

    if (me == 0) {
        for (int i = 0; i < N; i++)
            source[i] = (short)i;
        for (int i = 1; i < npes; i++)
            shmem_put(dest, source, N, i);
    }
    shmem_barrier_all();
    if (me != 0) {
        shmem_set_lock(&lock);
        for (int i = 0; i < N; i++)
            SPEC_CHECK(dest[i], i);
        shmem_p(&count, shmem_g(&count, 0) + 1, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0)
        SPEC_CHECK(count, npes - 1);
    shmem_finalize();
    return 0;
}

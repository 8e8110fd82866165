/*
 * shmem_iput.c: the specification's RMA examples: put (PE 0's array to
 * PE 1), p and g (a value to the next PE and back), and iput (every
 * other element of PE 0's source into consecutive words of PE 1's
 * target), with the results checked.
 */
#include "spec_check.h"

int main(void)
{
    static long dest[10];
    static short target[10];
    static int pval = 0;
    long source[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    short isrc[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (me == 0) {
        shmem_long_put(dest, source, 10, 1);
        shmem_short_iput(target, isrc, 1, 2, 5, 1);
    }
    shmem_p(&pval, me + 100, (me + 1) % npes);
    shmem_barrier_all();
    if (me == 1) {
        for (int i = 0; i < 10; i++)
            SPEC_CHECK(dest[i], i + 1);
        for (int i = 0; i < 5; i++)
            SPEC_CHECK(target[i], 2 * i + 1);
        for (int i = 5; i < 10; i++)
            SPEC_CHECK(target[i], 0);
    }
    SPEC_CHECK(pval, (me + npes - 1) % npes + 100);
    SPEC_CHECK(shmem_g(&pval, (me + 1) % npes), me + 100);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

/*
 * shmem_quiet.c: the specification's shmem_quiet example: PE 0 puts an
 * array to PE 1 and a value to the last PE, quiets, and gets both back:
 * the quiet has completed the puts, so the gets see {1, 2, 3} and 90.
 * Its later puts are checked on the targets after a barrier.
 */
#include "spec_check.h"

int main(void)
{
    static long dest[3];
    static long source[3] = {1, 2, 3};
    static int targ;
    static int src = 90;
    long x[3] = {0};
    int y = 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int last = npes - 1;
    if (me == 0) {
        shmem_put(dest, source, 3, 1);
        shmem_put(&targ, &src, 1, last);
        shmem_quiet();
        shmem_get(x, dest, 3, 1);
        shmem_get(&y, &targ, 1, last);
        for (int i = 0; i < 3; i++)
            SPEC_CHECK(x[i], i + 1);
        SPEC_CHECK(y, 90);
        shmem_put(&targ, &src, 1, 1);
        shmem_put(&targ, &src, 1, last);
    }
    shmem_barrier_all();
    if (me == 1 || me == last)
        SPEC_CHECK(targ, 90);
    if (me == 1)
        for (int i = 0; i < 3; i++)
            SPEC_CHECK(dest[i], i + 1);
    shmem_finalize();
    return 0;
}

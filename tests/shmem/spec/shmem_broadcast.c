/*
 * shmem_broadcast.c: the specification's shmem_broadcast example: PE 0's
 * four longs reach dest on every PE of SHMEM_TEAM_WORLD, the root's own
 * dest included; then the same from the last PE.
 */
#include "spec_check.h"

int main(void)
{
    static long source[4], dest[4];
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int root = 0; root < npes; root += npes - 1) {
        if (me == root)
            for (int i = 0; i < 4; i++)
                source[i] = i + 10 * root;
        SPEC_CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, root), 0);
        for (int i = 0; i < 4; i++)
            SPEC_CHECK(dest[i], i + 10 * root);
        shmem_barrier_all();
    }
    shmem_finalize();
    return 0;
}

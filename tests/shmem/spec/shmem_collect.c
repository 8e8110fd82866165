/*
 * shmem_collect.c: the specification's collect example (PE i gives i + 1
 * elements, numbered on from where PE i - 1's end; dest holds 0, 1, 2 ...
 * on every PE), then its alltoall and alltoalls examples (strided blocks
 * of int64_t, each PE's block from PE pe holding pe + me).
 */
#include <stddef.h>
#include <stdint.h>

#include "spec_check.h"

static void test_collect(int me, int npes)
{
    int my_nelem = me + 1;
    int total_nelem = npes * (npes + 1) / 2;
    int *source = shmem_malloc(npes * sizeof(int));
    int *dest = shmem_malloc(total_nelem * sizeof(int));
    for (int i = 0; i < my_nelem; i++)
        source[i] = me * (me + 1) / 2 + i;
    for (int i = 0; i < total_nelem; i++)
        dest[i] = -9999;
    shmem_team_sync(SHMEM_TEAM_WORLD);
    SPEC_CHECK(shmem_int_collect(SHMEM_TEAM_WORLD, dest, source, my_nelem), 0);
    for (int i = 0; i < total_nelem; i++)
        SPEC_CHECK(dest[i], i);
    shmem_team_sync(SHMEM_TEAM_WORLD);
    shmem_free(dest);
    shmem_free(source);
}

static void test_alltoall(int me, int npes)
{
    const int count = 2;
    int64_t *dest = shmem_malloc(count * npes * sizeof(int64_t));
    int64_t *source = shmem_malloc(count * npes * sizeof(int64_t));
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < count; i++) {
            source[pe * count + i] = me + pe;
            dest[pe * count + i] = 9999;
        }
    shmem_team_sync(SHMEM_TEAM_WORLD);
    SPEC_CHECK(shmem_int64_alltoall(SHMEM_TEAM_WORLD, dest, source, count), 0);
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < count; i++)
            SPEC_CHECK(dest[pe * count + i], pe + me);
    shmem_team_sync(SHMEM_TEAM_WORLD);
    shmem_free(dest);
    shmem_free(source);
}

static void test_alltoalls(int me, int npes)
{
    const int count = 2;
    const ptrdiff_t dst = 2, sst = 3;
    int64_t *dest = shmem_malloc(count * dst * npes * sizeof(int64_t));
    int64_t *source = shmem_malloc(count * sst * npes * sizeof(int64_t));
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < count; i++) {
            source[sst * (pe * count + i)] = me + pe;
            dest[dst * (pe * count + i)] = 9999;
            dest[dst * (pe * count + i) + 1] = -1; /* between the strides */
        }
    shmem_team_sync(SHMEM_TEAM_WORLD);
    SPEC_CHECK(shmem_int64_alltoalls(SHMEM_TEAM_WORLD, dest, source, dst, sst, count), 0);
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < count; i++) {
            SPEC_CHECK(dest[dst * (pe * count + i)], pe + me);
            SPEC_CHECK(dest[dst * (pe * count + i) + 1], -1);
        }
    shmem_team_sync(SHMEM_TEAM_WORLD);
    shmem_free(dest);
    shmem_free(source);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    test_collect(me, npes);
    test_alltoall(me, npes);
    test_alltoalls(me, npes);
    shmem_finalize();
    return 0;
}

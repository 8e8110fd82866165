/*
 * shmem_coll_layout_test.c: the buffer layouts collect and fcollect take.
 * OpenSHMEM 1.5 leaves overlapping dest and source undefined (in place is
 * for reductions only), and gasket's fcollect refuses an overlap with a
 * message; what the specification allows must still work: source right
 * after or right before dest in one block, and a call with nelems 0 (dest
 * untouched). Reductions in place (dest == source) too; alltoall with
 * source right after dest, alltoalls with dest and source interleaved in
 * one block (strided, they share no element, which is all the
 * specification asks), and the active-set fcollect64 and collect64 with
 * source right after dest. An fcollect in place (source this PE's block
 * of dest) is undefined there and works here.
 */
#include <shmem.h>

#include "pe_check.h"
#include "shmem_ring.h"

#define K 3 /* elements per PE */

/* dest: npes * K longs at `dest`, source: K longs at `src`, each PE's
 * element j is me * 100 + j. */
static void fill(long *src)
{
    for (int j = 0; j < K; j++)
        src[j] = me * 100 + j;
}

static void check_gathered(const long *dest)
{
    for (int p = 0; p < npes; p++)
        for (int j = 0; j < K; j++)
            CHECK_EQ(dest[p * K + j], p * 100 + j);
}

static void test_adjacent(int collect)
{
    size_t n = (size_t)npes * K + K;
    long *block = shmem_calloc(n, sizeof(long));
    CHECK_NOT_NULL(block);
    /* source right after dest's last element */
    long *dest = block, *src = block + npes * K;
    fill(src);
    shmem_barrier_all();
    CHECK_EQ(collect ? shmem_long_collect(SHMEM_TEAM_WORLD, dest, src, K)
                     : shmem_long_fcollect(SHMEM_TEAM_WORLD, dest, src, K),
             0);
    check_gathered(dest);
    for (int j = 0; j < K; j++)
        CHECK_EQ(src[j], me * 100 + j);
    shmem_barrier_all();
    /* source right before dest's first element */
    src = block;
    dest = block + K;
    fill(src);
    shmem_barrier_all();
    CHECK_EQ(collect ? shmem_collectmem(SHMEM_TEAM_WORLD, dest, src, K * sizeof(long))
                     : shmem_fcollectmem(SHMEM_TEAM_WORLD, dest, src, K * sizeof(long)),
             0);
    check_gathered(dest);
    shmem_barrier_all();
    shmem_free(block);
}

static void test_zero(void)
{
    long *dest = shmem_malloc(4 * sizeof(long)), *src = shmem_malloc(4 * sizeof(long));
    for (int j = 0; j < 4; j++)
        dest[j] = -1;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, dest, src, 0), 0);
    CHECK_EQ(shmem_long_collect(SHMEM_TEAM_WORLD, dest, src, 0), 0);
    CHECK_EQ(shmem_fcollectmem(SHMEM_TEAM_WORLD, dest, src, 0), 0);
    /* zero from every PE but the last, which gives one element */
    src[0] = 7;
    CHECK_EQ(shmem_long_collect(SHMEM_TEAM_WORLD, dest, src, me == npes - 1 ? 1 : 0), 0);
    CHECK_EQ(dest[0], 7);
    CHECK_EQ(dest[1], -1);
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dest);
}

/* A real overlap: source is dest shifted by one element. Every PE gets
 * non-zero and a message naming the overlap. */
static void test_overlap_refused(void)
{
    long *block = shmem_calloc((size_t)npes * K + 1, sizeof(long));
    shmem_barrier_all();
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 shmem_long_fcollect(SHMEM_TEAM_WORLD, block, block + 1, K), "overlap");
    shmem_barrier_all();
    shmem_free(block);
}

/* Undefined by the specification, done by gasket (docs/OPENSHMEM.md):
 * fcollect with source exactly this PE's block of dest, in place. */
static void test_fcollect_in_place(void)
{
    long *dest = shmem_calloc((size_t)npes * K, sizeof(long));
    fill(dest + me * K);
    shmem_barrier_all();
    CHECK_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, dest, dest + me * K, K), 0);
    check_gathered(dest);
    shmem_barrier_all();
    shmem_free(dest);
}

static void test_reduce_in_place(void)
{
    long *x = shmem_malloc(K * sizeof(long));
    fill(x);
    shmem_barrier_all();
    CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, x, x, K), 0);
    for (int j = 0; j < K; j++)
        CHECK_EQ(x[j], 100L * npes * (npes - 1) / 2 + (long)j * npes);
    shmem_barrier_all();
    shmem_free(x);
}

static void test_alltoall_layouts(void)
{
    size_t n = 2 * (size_t)npes * K;
    long *block = shmem_calloc(n, sizeof(long));
    CHECK_NOT_NULL(block);
    /* alltoall: source right after dest; PE me's block for PE p is
     * me * 100 + p * 10 + j, and dest's block from PE p is p * 100 + me * 10 + j. */
    long *dest = block, *src = block + npes * K;
    for (int p = 0; p < npes; p++)
        for (int j = 0; j < K; j++)
            src[p * K + j] = me * 100 + p * 10 + j;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_alltoall(SHMEM_TEAM_WORLD, dest, src, K), 0);
    for (int p = 0; p < npes; p++)
        for (int j = 0; j < K; j++)
            CHECK_EQ(dest[p * K + j], p * 100 + me * 10 + j);
    shmem_barrier_all();
    /* alltoalls: dest the even elements of the block, source the odd ones. */
    dest = block;
    src = block + 1;
    for (int p = 0; p < npes; p++)
        for (int j = 0; j < K; j++) {
            dest[2 * (p * K + j)] = -1;
            src[2 * (p * K + j)] = me * 100 + p * 10 + j;
        }
    shmem_barrier_all();
    CHECK_EQ(shmem_long_alltoalls(SHMEM_TEAM_WORLD, dest, src, 2, 2, K), 0);
    for (int p = 0; p < npes; p++)
        for (int j = 0; j < K; j++) {
            CHECK_EQ(dest[2 * (p * K + j)], p * 100 + me * 10 + j);
            CHECK_EQ(src[2 * (p * K + j)], me * 100 + p * 10 + j);
        }
    shmem_barrier_all();
    shmem_free(block);
}

static void test_active_set_adjacent(void)
{
    static long psync[SHMEM_COLLECT_SYNC_SIZE];
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    long *block = shmem_calloc((size_t)npes * K + K, sizeof(long));
    CHECK_NOT_NULL(block);
    long *dest = block, *src = block + npes * K;
    fill(src);
    shmem_barrier_all();
    shmem_fcollect64(dest, src, K, 0, 0, npes, psync);
    check_gathered(dest);
    shmem_barrier_all();
    for (size_t i = 0; i < (size_t)npes * K; i++)
        dest[i] = 0;
    shmem_barrier_all();
    shmem_collect64(dest, src, K, 0, 0, npes, psync);
    check_gathered(dest);
    shmem_barrier_all();
    shmem_free(block);
}

int main(void)
{
    shmem_init();
    shmem_ring_init();
    test_adjacent(0);
    test_adjacent(1);
    test_zero();
    test_overlap_refused();
    test_fcollect_in_place();
    test_reduce_in_place();
    test_alltoall_layouts();
    test_active_set_adjacent();
    shmem_finalize();
    return 0;
}

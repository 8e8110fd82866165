/*
 * shmem_aset_test.c: the deprecated routines older programs and the OSU
 * benchmarks call: the active-set collectives with pSync (barrier, sync,
 * broadcast32/64, collect, fcollect, alltoall, alltoalls, the _to_all
 * reductions) on the even PEs and on PEs 1 .. npes-1, each pSync left at
 * SHMEM_SYNC_VALUE; overlapping sets called in turn with payloads of many
 * chunks, so that a PE's calls alternate between sets whose other members
 * have made different numbers of calls; the 1.3 AMO names (finc, fadd,
 * cswap, ...) and shmem_wait / shmem_TYPENAME_wait / shmem_wait_until.
 */
#include <complex.h>
#include <shmem.h>
#include <stdint.h>

#include "pe_check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static long *psync;
static long *src, *dst;

static void check_psync(void)
{
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK_EQ(psync[i], SHMEM_SYNC_VALUE);
}

/* The active set (start, 2^log_stride, size), which this PE is in. */
static void check_active_set(int start, int log_stride, int size)
{
    int me = shmem_my_pe(), stride = 1 << log_stride, idx = (me - start) / stride;
    for (int i = 0; i < 5; i++)
        shmem_barrier(start, log_stride, size, psync);
    shmem_sync(start, log_stride, size, psync);

    /* broadcast: the root's dest is left alone */
    for (int round = 0; round < 2 * size; round++) {
        int root = round % size;
        src[0] = me * 100 + round;
        dst[0] = -1;
        shmem_broadcast64(dst, src, 1, root, start, log_stride, size, psync);
        CHECK_EQ(dst[0], idx == root ? -1 : (start + root * stride) * 100 + round);
    }
    int32_t *s32 = (int32_t *)src, *d32 = (int32_t *)dst;
    s32[0] = me;
    shmem_broadcast32(d32, s32, 1, 0, start, log_stride, size, psync);
    if (idx != 0)
        CHECK_EQ(d32[0], start);

    /* fcollect and collect (PE i of the set gives i + 1 elements) */
    src[0] = me;
    src[1] = -me;
    shmem_fcollect64(dst, src, 2, start, log_stride, size, psync);
    for (int j = 0; j < size; j++) {
        CHECK_EQ(dst[2 * j], start + j * stride);
        CHECK_EQ(dst[2 * j + 1], -(start + j * stride));
    }
    for (int i = 0; i <= idx; i++)
        s32[i] = me * 10 + i;
    shmem_collect32(d32, s32, (size_t)idx + 1, start, log_stride, size, psync);
    int at = 0;
    for (int j = 0; j < size; j++)
        for (int i = 0; i <= j; i++)
            CHECK_EQ(d32[at++], (start + j * stride) * 10 + i);
    shmem_fcollect32(d32, s32, 1, start, log_stride, size, psync);
    for (int j = 0; j < size; j++)
        CHECK_EQ(d32[j], (start + j * stride) * 10);
    src[0] = me;
    shmem_collect64(dst, src, idx == 0 ? 1 : 0, start, log_stride, size, psync);
    CHECK_EQ(dst[0], start);

    /* alltoall and alltoalls */
    for (int j = 0; j < size; j++)
        src[j] = me * 100 + j;
    shmem_alltoall64(dst, src, 1, start, log_stride, size, psync);
    for (int j = 0; j < size; j++)
        CHECK_EQ(dst[j], (start + j * stride) * 100 + idx);
    for (int j = 0; j < size; j++)
        s32[j] = me * 100 + j;
    shmem_alltoall32(d32, s32, 1, start, log_stride, size, psync);
    for (int j = 0; j < size; j++)
        CHECK_EQ(d32[j], (start + j * stride) * 100 + idx);
    for (int j = 0; j < size; j++)
        src[2 * j] = me * 100 + j;
    shmem_alltoalls64(dst, src, 3, 2, 1, start, log_stride, size, psync);
    for (int j = 0; j < size; j++)
        CHECK_EQ(dst[3 * j], (start + j * stride) * 100 + idx);
    for (int j = 0; j < size; j++)
        s32[j] = me * 10 + j;
    shmem_alltoalls32(d32, s32, 1, 1, 1, start, log_stride, size, psync);
    for (int j = 0; j < size; j++)
        CHECK_EQ(d32[j], (start + j * stride) * 10 + idx);

    /* the _to_all reductions */
    long sum = 0, max = 0;
    double _Complex csum = 0;
    for (int j = 0; j < size; j++) {
        sum += start + j * stride + 1;
        max = start + j * stride;
        csum += (start + j * stride) * I;
    }
    int *iv = (int *)src, *id = (int *)dst;
    iv[0] = me + 1;
    iv[1] = 2 * (me + 1);
    shmem_int_sum_to_all(id, iv, 2, start, log_stride, size, NULL, psync);
    CHECK_EQ(id[0], sum);
    CHECK_EQ(id[1], 2 * sum);
    src[0] = me;
    shmem_long_max_to_all(dst, src, 1, start, log_stride, size, NULL, psync);
    CHECK_EQ(dst[0], max);
    shmem_long_min_to_all(src, src, 1, start, log_stride, size, NULL, psync); /* in place */
    CHECK_EQ(src[0], start);
    short *sv = (short *)src, *sd = (short *)dst;
    sv[0] = (short)(0x7 | 1 << (me % 8 + 4));
    shmem_short_and_to_all(sd, sv, 1, start, log_stride, size, NULL, psync);
    CHECK_EQ(sd[0] & 0x7, 0x7);
    shmem_longlong_or_to_all((long long *)dst, (long long *)src, 0, start, log_stride, size,
                             NULL, psync);
    double *dv = (double *)src, *dd = (double *)dst;
    dv[0] = 0.25 * me;
    shmem_double_sum_to_all(dd, dv, 1, start, log_stride, size, NULL, psync);
    CHECK_TRUE(dd[0] == 0.25 * (double)(sum - size));
    double _Complex *cv = (double _Complex *)src, *cd = (double _Complex *)dst;
    cv[0] = me * I;
    shmem_complexd_sum_to_all(cd, cv, 1, start, log_stride, size, NULL, psync);
    CHECK_TRUE(cd[0] == csum);
    float _Complex *fv = (float _Complex *)src, *fd = (float _Complex *)dst;
    fv[0] = 2;
    shmem_complexf_prod_to_all(fd, fv, 1, start, log_stride, size, NULL, psync);
    CHECK_TRUE(fd[0] == (float)(1 << size));
    check_psync();
}

/*
 * The world, the even PEs and PEs 1 .. npes-1 in turn, each with a pSync
 * of its own, every PE calling the sets it is in, in that order: so PE 2
 * alternates between three sets, PE 1 between two others. BIG longs a
 * call, many chunks: broadcast (the root's dest left alone), sum, fcollect
 * and alltoall, each checked.
 */
#define BIG 24000
static void check_interleaved(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *ps = shmem_malloc(3 * SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
    long *a = shmem_malloc(BIG * sizeof(long)), *b = shmem_malloc(BIG * sizeof(long));
    long *w = shmem_malloc(BIG * sizeof(long));
    CHECK_NOT_NULL(w);
    for (int i = 0; i < 3 * SHMEM_REDUCE_SYNC_SIZE; i++)
        ps[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    struct {
        int start, log_stride, size, in;
    } sets[3] = {{0, 0, npes, 1},
                 {0, 1, (npes + 1) / 2, me % 2 == 0},
                 {1, 0, npes - 1, me > 0}};
    for (int round = 0; round < 4; round++) {
        for (int s = 0; s < 3; s++) {
            int start = sets[s].start, stride = 1 << sets[s].log_stride, size = sets[s].size;
            long *set_sync = ps + s * SHMEM_REDUCE_SYNC_SIZE;
            if (!sets[s].in || size < 1)
                continue;
            int idx = (me - start) / stride, root = (round + s) % size;
            int rpe = start + root * stride;
            for (int i = 0; i < BIG; i++) {
                a[i] = me * 1000000L + round * 1000 + s * 100 + i % 97;
                b[i] = -7;
            }
            shmem_broadcast64(b, a, BIG, root, start, sets[s].log_stride, size, set_sync);
            for (int i = 0; i < BIG; i += 101)
                CHECK_EQ(b[i], idx == root ? -7 : rpe * 1000000L + round * 1000 + s * 100 + i % 97);
            shmem_long_sum_to_all(b, a, BIG, start, sets[s].log_stride, size, w, set_sync);
            long ids = 0;
            for (int j = 0; j < size; j++)
                ids += start + j * stride;
            for (int i = 0; i < BIG; i += 103)
                CHECK_EQ(b[i], ids * 1000000L + size * (round * 1000 + s * 100 + i % 97));
            int per = BIG / size;
            shmem_fcollect64(b, a, (size_t)per, start, sets[s].log_stride, size, set_sync);
            for (int j = 0; j < size; j++)
                CHECK_EQ(b[j * per + per - 1], (start + j * stride) * 1000000L + round * 1000 +
                                                    s * 100 + (per - 1) % 97);
            for (int i = 0; i < BIG; i++)
                a[i] = me * 1000000L + i;
            shmem_alltoall64(b, a, (size_t)per, start, sets[s].log_stride, size, set_sync);
            for (int j = 0; j < size; j++)
                CHECK_EQ(b[j * per], (start + j * stride) * 1000000L + idx * per);
        }
    }
    for (int i = 0; i < 3 * SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK_EQ(ps[i], SHMEM_SYNC_VALUE);
    shmem_barrier_all();
    shmem_free(w);
    shmem_free(b);
    shmem_free(a);
    shmem_free(ps);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    psync = shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
    src = shmem_calloc((size_t)(4 * npes), sizeof(long));
    dst = shmem_calloc((size_t)(4 * npes), sizeof(long));
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    if (me % 2 == 0)
        check_active_set(0, 1, (npes + 1) / 2);
    shmem_barrier_all();
    if (npes > 1 && me > 0)
        check_active_set(1, 0, npes - 1);
    shmem_barrier_all();
    check_active_set(0, 0, npes);
    shmem_barrier_all();
    check_interleaved();

    /* The 1.3 AMO names, on PE 0's words. */
    int *ic = shmem_calloc(1, sizeof(int));
    long *lc = shmem_calloc(1, sizeof(long));
    long long *llc = shmem_calloc(1, sizeof(long long));
    float *fc = shmem_calloc(1, sizeof(float));
    double *dc = shmem_calloc(1, sizeof(double));
    int old = shmem_int_finc(ic, 0);
    CHECK_TRUE(old >= 0 && old <= 10 * (npes - 1)); /* others add 10 each */
    shmem_int_inc(ic, 0);
    shmem_int_add(ic, 3, 0);
    (void)shmem_int_fadd(ic, 5, 0);
    shmem_long_inc(lc, 0);
    (void)shmem_long_finc(lc, 0);
    shmem_longlong_add(llc, 2, 0);
    (void)shmem_longlong_fadd(llc, 1, 0);
    shmem_barrier_all();
    CHECK_EQ(shmem_int_fetch(ic, 0), 10 * npes);
    CHECK_EQ(shmem_long_fetch(lc, 0), 2 * npes);
    CHECK_EQ(shmem_longlong_fetch(llc, 0), 3 * npes);
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(shmem_int_cswap(ic, 10 * npes, -1, 0), 10 * npes);
        CHECK_EQ(shmem_int_swap(ic, 7, 0), -1);
        CHECK_EQ(shmem_long_cswap(lc, 0, 5, 0), 2 * npes); /* no swap */
        CHECK_EQ(shmem_longlong_swap(llc, 4, 0), 3 * npes);
        shmem_float_set(fc, 1.5f, 0);
        CHECK_TRUE(shmem_float_swap(fc, 2.5f, 0) == 1.5f);
        CHECK_TRUE(shmem_float_fetch(fc, 0) == 2.5f);
        shmem_double_set(dc, 0.5, 0);
        CHECK_TRUE(shmem_double_swap(dc, 1.0, 0) == 0.5);
        CHECK_TRUE(shmem_double_fetch(dc, 0) == 1.0);
        shmem_long_set(lc, 11, 0);
        shmem_int_set(ic, 12, 0);
        shmem_longlong_set(llc, 13, 0);
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_int_fetch(ic, 0), 12);
    CHECK_EQ(shmem_longlong_fetch(llc, 0), 13);

    /* The 1.3 generic names pick the same routines, by dest's type. */
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(shmem_finc(ic, 0), 12);
        shmem_inc(lc, 0);
        shmem_add(llc, 2LL, 0);
        CHECK_EQ(shmem_fadd(lc, 3L, 0), 12);
        CHECK_EQ(shmem_cswap(ic, 13, 20, 0), 13);
        CHECK_TRUE(shmem_swap(dc, 2.0, 0) == 1.0);
        shmem_set(fc, 4.0f, 0);
        CHECK_TRUE(shmem_fetch(fc, 0) == 4.0f);
        CHECK_TRUE(shmem_fetch(dc, 0) == 2.0);
        CHECK_EQ(shmem_fetch(ic, 0), 20);
        CHECK_EQ(shmem_fetch(lc, 0), 15);
        CHECK_EQ(shmem_fetch(llc, 0), 15);
    }

    /* The deprecated waits: PE 0 posts to each PE's own words. */
    shmem_barrier_all();
    *lc = 0;
    *ic = 0;
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 0; pe < npes; pe++) {
            shmem_long_atomic_set(lc, 1, pe);
            shmem_int_atomic_set(ic, 2, pe);
        }
    }
    shmem_wait(lc, 0);
    CHECK_EQ(*lc, 1);
    shmem_int_wait(ic, 0);
    CHECK_EQ(*ic, 2);
    (shmem_wait_until)(lc, SHMEM_CMP_EQ, 1);
    shmem_long_wait(lc, 0);
    shmem_barrier_all();

    shmem_free(dc);
    shmem_free(fc);
    shmem_free(llc);
    shmem_free(lc);
    shmem_free(ic);
    shmem_free(dst);
    shmem_free(src);
    shmem_free(psync);
    shmem_finalize();
    return 0;
}

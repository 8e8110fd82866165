/*
 * shmem_team_test.c: teams and their collectives. split_strided (even PEs,
 * the world reversed) and split_2d (rows and columns): sizes, my_pe,
 * translate_pe, SHMEM_TEAM_INVALID for the PEs left out, get_config,
 * destroy and slot reuse; SHMEM_TEAM_SHARED and team_ptr; every team
 * collective on the world, the even PEs, a row, a column and the reversed
 * world, each result checked, several back to back, and some with
 * payloads of many chunks; a collective on SHMEM_TEAM_INVALID returns
 * non-zero with a message, a split of it non-zero and no message.
 */
#include <complex.h>
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

#define MAXN 8 /* elements per PE in the buffers below */

static long *src, *dst;     /* MAXN * npes longs each */
static int *isrc, *idst;    /* MAXN ints */
static double *dsrc;        /* MAXN doubles */
static double _Complex *csrc, *cdst;
static uint64_t *usrc, *udst;
static short *ssrc, *sdst;
#define BIG 20000  /* longs: many chunks */
#define CBIG 3000  /* complex doubles */
static long *big, *bigdst;
static double _Complex *cbig, *cbigdst;

/* |z|^2, without libm */
static double norm2(double _Complex z)
{
    return creal(z) * creal(z) + cimag(z) * cimag(z);
}

static int world_of(shmem_team_t team, int pe)
{
    return shmem_team_translate_pe(team, pe, SHMEM_TEAM_WORLD);
}

static void check_collectives(shmem_team_t team, const char *name)
{
    int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team), wme = shmem_my_pe();
    CHECK_GE(n, 1);
    CHECK_TRUE(me >= 0 && me < n);
    CHECK_EQ(world_of(team, me), wme);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(shmem_team_sync(team), 0);
    CHECK_EQ(shmem_sync(team), 0);

    /* broadcast, back to back, from each root in turn */
    for (int round = 0; round < 3 * n; round++) {
        int root = round % n;
        for (int i = 0; i < 4; i++)
            src[i] = wme * 1000 + round * 10 + i;
        memset(dst, 0, 4 * sizeof(long));
        CHECK_EQ(shmem_long_broadcast(team, dst, src, 4, root), 0);
        for (int i = 0; i < 4; i++)
            CHECK_EQ(dst[i], world_of(team, root) * 1000 + round * 10 + i);
    }
    src[0] = wme * 7 + 1;
    CHECK_EQ(shmem_broadcastmem(team, dst, src, sizeof(long), 0), 0);
    CHECK_EQ(dst[0], world_of(team, 0) * 7 + 1);

    /* fcollect */
    for (int i = 0; i < 3; i++)
        src[i] = wme * 100 + i;
    CHECK_EQ(shmem_long_fcollect(team, dst, src, 3), 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 3; i++)
            CHECK_EQ(dst[3 * j + i], world_of(team, j) * 100 + i);
    CHECK_EQ(shmem_fcollectmem(team, dst, src, sizeof(long)), 0);
    for (int j = 0; j < n; j++)
        CHECK_EQ(dst[j], world_of(team, j) * 100);

    /* collect: team PE j gives j % 3 + 1 elements */
    for (int round = 0; round < 2; round++) {
        int mine = (me + round) % 3 + 1;
        for (int i = 0; i < mine; i++)
            src[i] = wme * 100 + i + round;
        CHECK_EQ(shmem_long_collect(team, dst, src, (size_t)mine), 0);
        int at = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < (j + round) % 3 + 1; i++)
                CHECK_EQ(dst[at++], world_of(team, j) * 100 + i + round);
    }
    CHECK_EQ(shmem_collectmem(team, dst, src, me == 0 ? sizeof(long) : 0), 0);
    CHECK_EQ(dst[0], world_of(team, 0) * 100 + 1);

    /* alltoall: block j of my source is for team PE j */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++)
            src[2 * j + i] = wme * 1000 + j * 10 + i;
    CHECK_EQ(shmem_long_alltoall(team, dst, src, 2), 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++)
            CHECK_EQ(dst[2 * j + i], world_of(team, j) * 1000 + me * 10 + i);
    for (int j = 0; j < n; j++)
        src[j] = wme * 1000 + j * 10;
    CHECK_EQ(shmem_alltoallmem(team, dst, src, sizeof(long)), 0);
    for (int j = 0; j < n; j++)
        CHECK_EQ(dst[j], world_of(team, j) * 1000 + me * 10);

    /* alltoalls: dst stride 2, sst stride 3, 2 elements per PE */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++)
            src[3 * (2 * j + i)] = wme * 1000 + j * 10 + i;
    for (int k = 0; k < 4 * n; k++)
        dst[k] = -1;
    CHECK_EQ(shmem_long_alltoalls(team, dst, src, 2, 3, 2), 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++) {
            CHECK_EQ(dst[2 * (2 * j + i)], world_of(team, j) * 1000 + me * 10 + i);
            CHECK_EQ(dst[2 * (2 * j + i) + 1], -1);
        }

    /* reductions; the expected values from the team's world PEs */
    long sum = 0, max = -1, min = 1L << 30;
    uint64_t or = 0, and = ~(uint64_t)0, xor = 0;
    double dsum = 0;
    double _Complex cprod = 1, csum = 0;
    for (int j = 0; j < n; j++) {
        int w = world_of(team, j);
        sum += w + 1;
        max = w > max ? w : max;
        min = w < min ? w : min;
        or |= (uint64_t)1 << w;
        and &= (uint64_t)1 << w | 1;
        xor ^= (uint64_t)1 << w | 1;
        dsum += 0.5 * w;
        csum += w + 1.0 * I;
        cprod *= 1 + 0.5 * w * I;
    }
    for (int round = 0; round < 3; round++) {
        isrc[0] = wme + 1;
        isrc[1] = wme;
        CHECK_EQ(shmem_int_sum_reduce(team, idst, isrc, 1), 0);
        CHECK_EQ(idst[0], sum);
        CHECK_EQ(shmem_int_max_reduce(team, idst, isrc + 1, 1), 0);
        CHECK_EQ(idst[0], max);
        CHECK_EQ(shmem_int_min_reduce(team, idst, isrc + 1, 1), 0);
        CHECK_EQ(idst[0], min);
    }
    usrc[0] = (uint64_t)1 << wme;
    usrc[1] = (uint64_t)1 << wme | 1;
    CHECK_EQ(shmem_uint64_or_reduce(team, udst, usrc, 1), 0);
    CHECK_EQ_U64(udst[0], or);
    CHECK_EQ(shmem_uint64_and_reduce(team, udst, usrc + 1, 1), 0);
    CHECK_EQ_U64(udst[0], and);
    CHECK_EQ(shmem_uint64_xor_reduce(team, udst, usrc + 1, 1), 0);
    CHECK_EQ_U64(udst[0], xor);
    for (int i = 0; i < MAXN; i++)
        dsrc[i] = 0.5 * wme;
    CHECK_EQ(shmem_double_sum_reduce(team, dsrc, dsrc, MAXN), 0); /* in place */
    for (int i = 0; i < MAXN; i++)
        CHECK_TRUE(dsrc[i] == dsum);
    csrc[0] = wme + 1.0 * I;
    csrc[1] = 1 + 0.5 * wme * I;
    CHECK_EQ(shmem_complexd_sum_reduce(team, cdst, csrc, 1), 0);
    CHECK_TRUE(cdst[0] == csum);
    CHECK_EQ(shmem_complexd_prod_reduce(team, cdst, csrc + 1, 1), 0);
    CHECK_TRUE(norm2(cdst[0] - cprod) < 1e-18 * norm2(cprod));
    /* the C11 generic names */
    CHECK_EQ(shmem_sum_reduce(team, cdst, csrc, 1), 0);
    CHECK_TRUE(cdst[0] == csum);
    CHECK_EQ(shmem_max_reduce(team, idst, isrc + 1, 1), 0);
    CHECK_EQ(idst[0], max);
    CHECK_EQ(shmem_or_reduce(team, udst, usrc, 1), 0);
    CHECK_EQ_U64(udst[0], or);
    src[0] = wme;
    CHECK_EQ(shmem_fcollect(team, dst, src, 1), 0);
    CHECK_EQ(dst[n - 1], world_of(team, n - 1));
    CHECK_EQ(shmem_broadcast(team, dst, src, 1, n - 1), 0);
    CHECK_EQ(dst[0], world_of(team, n - 1));
    /* short products wrap as gasket's do, without overflowing int */
    ssrc[0] = 300;
    CHECK_EQ(shmem_short_prod_reduce(team, sdst, ssrc, 1), 0);
    short sprod = 1;
    for (int j = 0; j < n; j++)
        sprod = (short)(unsigned short)((unsigned)sprod * 300u);
    CHECK_EQ(sdst[0], sprod);

    /* Payloads of many chunks: broadcast, sum, and a complex product (the
     * sources gathered, then multiplied). */
    for (int i = 0; i < BIG; i++)
        big[i] = wme + i;
    CHECK_EQ(shmem_long_broadcast(team, bigdst, big, BIG, n - 1), 0);
    for (int i = 0; i < BIG; i += 97)
        CHECK_EQ(bigdst[i], world_of(team, n - 1) + i);
    CHECK_EQ(shmem_long_sum_reduce(team, bigdst, big, BIG), 0);
    for (int i = 0; i < BIG; i += 89)
        CHECK_EQ(bigdst[i], sum - n + (long)n * i);
    for (int i = 0; i < CBIG; i++)
        cbig[i] = 1 + 0.5 * wme * I;
    CHECK_EQ(shmem_complexd_prod_reduce(team, cbigdst, cbig, CBIG), 0);
    for (int i = 0; i < CBIG; i += 83)
        CHECK_TRUE(norm2(cbigdst[i] - cprod) < 1e-18 * norm2(cprod));
    (void)name;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    src = shmem_calloc((size_t)(4 * MAXN * npes), sizeof(long));
    dst = shmem_calloc((size_t)(4 * MAXN * npes), sizeof(long));
    isrc = shmem_calloc(MAXN, sizeof(int));
    idst = shmem_calloc(MAXN, sizeof(int));
    dsrc = shmem_calloc(MAXN, sizeof(double));
    csrc = shmem_calloc(MAXN, sizeof(double _Complex));
    cdst = shmem_calloc(MAXN, sizeof(double _Complex));
    usrc = shmem_calloc(MAXN, sizeof(uint64_t));
    udst = shmem_calloc(MAXN, sizeof(uint64_t));
    ssrc = shmem_calloc(MAXN, sizeof(short));
    sdst = shmem_calloc(MAXN, sizeof(short));
    big = shmem_calloc(BIG, sizeof(long));
    bigdst = shmem_calloc(BIG, sizeof(long));
    cbig = shmem_calloc(CBIG, sizeof(double _Complex));
    cbigdst = shmem_calloc(CBIG, sizeof(double _Complex));
    CHECK_NOT_NULL(cbigdst);

    /* The predefined teams. */
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    int nshared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK_TRUE(nshared >= 1 && nshared <= npes);
    for (int i = 0; i < nshared; i++) {
        int w = world_of(SHMEM_TEAM_SHARED, i);
        CHECK_NOT_NULL(shmem_team_ptr(SHMEM_TEAM_SHARED, src, i));
        CHECK_TRUE(shmem_team_ptr(SHMEM_TEAM_SHARED, src, i) == shmem_ptr(src, w));
    }
    CHECK_EQ(world_of(SHMEM_TEAM_SHARED, shmem_team_my_pe(SHMEM_TEAM_SHARED)), me);
    CHECK_TRUE(shmem_team_ptr(SHMEM_TEAM_WORLD, src, me) == (void *)src);
    shmem_team_config_t config = {.num_contexts = -1};
    CHECK_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &config), 0);
    CHECK_EQ(config.num_contexts, 0);

    /* The even PEs, with a configuration. */
    shmem_team_t even, reversed, row, col;
    config.num_contexts = 2;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &config,
                                      SHMEM_TEAM_NUM_CONTEXTS, &even),
             0);
    if (me % 2 == 0) {
        CHECK_TRUE(even != SHMEM_TEAM_INVALID);
        CHECK_EQ(shmem_team_n_pes(even), (npes + 1) / 2);
        CHECK_EQ(shmem_team_my_pe(even), me / 2);
        CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, even), me / 2);
        CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, (me + 1) % npes, even),
                 npes == 1 ? 0 : ((me + 1) % npes) % 2 == 0 ? ((me + 1) % npes) / 2 : -1);
        config.num_contexts = 0;
        CHECK_EQ(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &config), 0);
        CHECK_EQ(config.num_contexts, 2);
    } else {
        CHECK_TRUE(even == SHMEM_TEAM_INVALID);
        CHECK_EQ(shmem_team_my_pe(even), -1);
        CHECK_EQ(shmem_team_n_pes(even), -1);
    }

    /* The world reversed: a negative stride. */
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed),
             0);
    CHECK_EQ(shmem_team_my_pe(reversed), npes - 1 - me);
    CHECK_EQ(shmem_team_translate_pe(reversed, 0, SHMEM_TEAM_WORLD), npes - 1);

    /* 2-D: xrange 2 (3 at 8 PEs, so that the last row is short). */
    int xrange = npes == 8 ? 3 : 2;
    CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &row, NULL, 0, &col), 0);
    int xr = xrange < npes ? xrange : npes;
    CHECK_EQ(shmem_team_my_pe(row), me % xr);
    CHECK_EQ(shmem_team_my_pe(col), me / xr);
    int row_start = me / xr * xr;
    CHECK_EQ(shmem_team_n_pes(row), npes - row_start < xr ? npes - row_start : xr);
    CHECK_EQ(shmem_team_n_pes(col), (npes - 1 - me % xr) / xr + 1);
    CHECK_EQ(shmem_team_translate_pe(col, 0, SHMEM_TEAM_WORLD), me % xr);
    CHECK_EQ(shmem_team_translate_pe(row, 0, col), me % xr == 0 ? me / xr : -1);

    /* A split of a split: every other PE of the even team. */
    shmem_team_t quarter = SHMEM_TEAM_INVALID;
    if (even != SHMEM_TEAM_INVALID) {
        int ne = shmem_team_n_pes(even);
        CHECK_EQ(shmem_team_split_strided(even, 0, 2, (ne + 1) / 2, NULL, 0, &quarter), 0);
        if (me % 4 == 0) {
            CHECK_EQ(shmem_team_my_pe(quarter), me / 4);
            CHECK_EQ(shmem_team_translate_pe(quarter, shmem_team_n_pes(quarter) - 1,
                                             SHMEM_TEAM_WORLD),
                     ((ne + 1) / 2 - 1) * 4);
        } else {
            CHECK_TRUE(quarter == SHMEM_TEAM_INVALID);
        }
    }

    check_collectives(SHMEM_TEAM_WORLD, "world");
    check_collectives(SHMEM_TEAM_SHARED, "shared");
    if (even != SHMEM_TEAM_INVALID)
        check_collectives(even, "even");
    check_collectives(reversed, "reversed");
    check_collectives(row, "row");
    check_collectives(col, "column");
    if (quarter != SHMEM_TEAM_INVALID)
        check_collectives(quarter, "quarter");

    /* Misuse: SHMEM_TEAM_INVALID and a bad triplet. */
    shmem_team_t bad = SHMEM_TEAM_WORLD;
    CHECK_LOGGED(-1, shmem_int_sum_reduce(SHMEM_TEAM_INVALID, idst, isrc, 1),
                 "shmem_int_sum_reduce", "SHMEM_TEAM_INVALID");
    CHECK_LOGGED(-1, shmem_long_broadcast(SHMEM_TEAM_INVALID, dst, src, 1, 0),
                 "shmem_long_broadcast", "SHMEM_TEAM_INVALID");
    CHECK_LOGGED(-1, shmem_team_sync(SHMEM_TEAM_INVALID), "shmem_team_sync");
    /* A split of SHMEM_TEAM_INVALID makes no team, as the specification
     * says: non-zero, the handles SHMEM_TEAM_INVALID, and no message. */
    int split_status = 0;
    CHECK_SILENT(split_status =
                     shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &bad));
    CHECK_NE(split_status, 0);
    CHECK_TRUE(bad == SHMEM_TEAM_INVALID);
    shmem_team_t bad_y = SHMEM_TEAM_WORLD;
    bad = SHMEM_TEAM_WORLD;
    split_status = 0;
    CHECK_SILENT(split_status = shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &bad, NULL,
                                                    0, &bad_y));
    CHECK_NE(split_status, 0);
    CHECK_TRUE(bad == SHMEM_TEAM_INVALID && bad_y == SHMEM_TEAM_INVALID);
    bad = SHMEM_TEAM_WORLD;
    CHECK_LOGGED(-1, shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &bad),
                 "shmem_team_split_strided", "is not a set of PEs");
    CHECK_TRUE(bad == SHMEM_TEAM_INVALID);
    CHECK_LOGGED(-1, shmem_long_broadcast(reversed, dst, src, 1, npes), "PE_root");
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD), -1);
    CHECK_NE(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &config), 0);
    CHECK_NULL(shmem_team_ptr(SHMEM_TEAM_INVALID, src, 0));
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no operation */

    shmem_team_destroy(quarter);
    shmem_team_destroy(even);
    shmem_team_destroy(reversed);
    shmem_team_destroy(row);
    shmem_team_destroy(col);

    /* Slots come back: more teams made and destroyed than the pool holds,
     * each used at once (a slot left dirty would hang or miscount). */
    for (int i = 0; i < 100; i++) {
        shmem_team_t t;
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, i % npes, 0, 1, NULL, 0, &t), 0);
        shmem_team_t u;
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &u), 0);
        CHECK_EQ(shmem_team_sync(u), 0);
        isrc[0] = 1;
        CHECK_EQ(shmem_int_sum_reduce(u, idst, isrc, 1), 0);
        CHECK_EQ(idst[0], npes);
        if (t != SHMEM_TEAM_INVALID) {
            CHECK_EQ(me, i % npes);
            CHECK_EQ(shmem_team_sync(t), 0);
        }
        shmem_team_destroy(u);
        shmem_team_destroy(t);
    }

    shmem_barrier_all();
    shmem_free(cbigdst);
    shmem_free(cbig);
    shmem_free(bigdst);
    shmem_free(big);
    shmem_free(sdst);
    shmem_free(ssrc);
    shmem_free(udst);
    shmem_free(usrc);
    shmem_free(cdst);
    shmem_free(csrc);
    shmem_free(dsrc);
    shmem_free(idst);
    shmem_free(isrc);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}

/*
 * coll_xchg_test: gk_collect and gk_alltoall, every byte checked.
 *
 *   sizes      0 B, 1 B, odd sizes, one exchange chunk (16 KiB) and one
 *              byte either side, several chunks, and blocks of 200 KB that
 *              need more chunks than a PE has slots (flow control);
 *   buffers    separate, and collect in place (src is this PE's block of
 *              dst); the bytes after dst stay as they were;
 *   back to back  collects and all-to-alls alternating with no barrier in
 *              between (they share the slots);
 *   errors     PEs that pass different sizes, one PE's NULL buffer,
 *              overlapping buffers: every PE returns an error with a
 *              message and the next call, in step again, is right.
 *
 * Run at 8 PEs on 2 cores, and with every wait asleep at once (the
 * sleeping variant): a lost wake-up or a deadlock would show as a hang.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

static int me, npes;

/* The byte i of the block PE `from` meant for PE `to` (collect: to = -1). */
static unsigned char pattern(int from, int to, size_t nbytes, size_t i)
{
    return (unsigned char)(from * 29 + (to + 1) * 7 + nbytes * 3 + i * 13 + (i >> 8) + 1);
}

static void check_collect(size_t nbytes, int in_place)
{
    size_t total = (size_t)npes * nbytes;
    unsigned char *dst = malloc(total + 64), *src = malloc(nbytes + 1);
    CHECK_NOT_NULL(dst);
    CHECK_NOT_NULL(src);
    memset(dst, 0xee, total + 64);
    unsigned char *mine = in_place ? dst + (size_t)me * nbytes : src;
    for (size_t i = 0; i < nbytes; i++)
        mine[i] = pattern(me, -1, nbytes, i);
    CHECK_OK(gk_collect(dst, mine, nbytes));
    for (int pe = 0; pe < npes; pe++)
        for (size_t i = 0; i < nbytes; i++)
            if (dst[(size_t)pe * nbytes + i] != pattern(pe, -1, nbytes, i))
                PE_FAIL("collect %zu B%s: byte %zu of PE %d's block is %u, expected %u",
                        nbytes, in_place ? " in place" : "", i, pe,
                        dst[(size_t)pe * nbytes + i], pattern(pe, -1, nbytes, i));
    for (size_t i = 0; i < 64; i++)
        CHECK_EQ(dst[total + i], 0xee);
    free(dst);
    free(src);
}

static void check_alltoall(size_t nbytes)
{
    size_t total = (size_t)npes * nbytes;
    unsigned char *dst = malloc(total + 64), *src = malloc(total + 1);
    CHECK_NOT_NULL(dst);
    CHECK_NOT_NULL(src);
    memset(dst, 0xee, total + 64);
    for (int to = 0; to < npes; to++)
        for (size_t i = 0; i < nbytes; i++)
            src[(size_t)to * nbytes + i] = pattern(me, to, nbytes, i);
    CHECK_OK(gk_alltoall(dst, src, nbytes));
    for (int from = 0; from < npes; from++)
        for (size_t i = 0; i < nbytes; i++)
            if (dst[(size_t)from * nbytes + i] != pattern(from, me, nbytes, i))
                PE_FAIL("alltoall %zu B: byte %zu of the block from PE %d is %u, expected %u",
                        nbytes, i, from, dst[(size_t)from * nbytes + i],
                        pattern(from, me, nbytes, i));
    for (size_t i = 0; i < 64; i++)
        CHECK_EQ(dst[total + i], 0xee);
    /* src is left as it was. */
    for (int to = 0; to < npes; to++)
        for (size_t i = 0; i < nbytes; i++)
            if (src[(size_t)to * nbytes + i] != pattern(me, to, nbytes, i))
                PE_FAIL("alltoall %zu B: src byte %zu of block %d changed", nbytes, i, to);
    free(dst);
    free(src);
}

/* Values from a small all-to-all of ints: PE j sends j * 100 + i to PE i. */
static void check_alltoall_ints(void)
{
    int *src = malloc((size_t)npes * sizeof(int)), *dst = malloc((size_t)npes * sizeof(int));
    CHECK_NOT_NULL(src);
    CHECK_NOT_NULL(dst);
    for (int i = 0; i < npes; i++)
        src[i] = me * 100 + i;
    CHECK_OK(gk_alltoall(dst, src, sizeof(int)));
    for (int j = 0; j < npes; j++)
        CHECK_EQ(dst[j], j * 100 + me);
    free(src);
    free(dst);
}

static void check_errors(void)
{
    unsigned char *buf = malloc((size_t)npes * 64 + 64);
    CHECK_NOT_NULL(buf);
    /* Overlap: the same on every PE. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_alltoall(buf + 8, buf, 16), "gk_alltoall", "overlap",
                 "separate buffers");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_alltoall(buf, buf, 16), "gk_alltoall", "overlap");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_collect(buf, buf + 1, 16), "gk_collect", "overlap",
                 "this PE's block of dst");
    if (npes < 2) {
        free(buf);
        return;
    }
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_collect(buf, buf, (size_t)-1 / 2 + 1), "gk_collect",
                 "overflows");
    /* Sizes that differ. */
    size_t mine = me == npes - 1 ? 24 : 16;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_collect(buf, buf + (size_t)npes * 32, mine),
                 "gk_collect", "different nbytes", "from 16 to 24",
                 pe_fmt("this PE %zu", mine));
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_alltoall(buf, buf + (size_t)npes * 32, me == 0 ? 0 : 8),
                 "gk_alltoall", "different nbytes", "from 0 to 8");
    /* One PE's NULL buffer: it says why, the others that it failed. */
    if (me == 1)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_alltoall(NULL, buf, 8), "gk_alltoall",
                     "dst is NULL");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_alltoall(buf, buf + (size_t)npes * 8, 8),
                     "gk_alltoall", "failed on another PE");
    if (me == 0)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_collect(buf, NULL, 8), "gk_collect",
                     "src is NULL");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_collect(buf, buf + (size_t)npes * 8, 8),
                     "gk_collect", "failed on another PE");
    free(buf);
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    const size_t sizes[] = {0,     1,     3,     8,     1000,  4096,
                            16383, 16384, 16385, 50001, 200000};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        check_collect(sizes[s], 0);
        check_collect(sizes[s], 1);
        check_alltoall(sizes[s]);
    }
    /* Back to back, alternating, no barrier: the slots are reused across
     * calls and between the two collectives. */
    for (int i = 0; i < 300; i++) {
        size_t n = (size_t)(i % 5) * 4000 + 1;
        check_collect(n, i % 2);
        check_alltoall(n);
        check_alltoall_ints();
    }
    check_errors();
    /* In step again after the errors. */
    check_collect(40000, 0);
    check_alltoall(40000);
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * coll_test: broadcast (every root, radix 2, 3 and the default, sizes from
 * 0 B to several pipeline chunks, in place and not) and all-reduce (every
 * type and operation, counts from 1 to several pieces) checked against a
 * serial computation; floating-point results must be bitwise equal on
 * every PE. Many back-to-back calls exercise the slot reuse.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

static unsigned char bcast_byte(int root, size_t size, size_t i)
{
    return (unsigned char)(root * 17 + size * 3 + i * 5 + 11);
}

static void check_bcast(int root, size_t size, int radix, int in_place)
{
    int me = gk_my_pe();
    unsigned char *buf = malloc(size + 1), *src = malloc(size + 1);
    memset(buf, 0xee, size + 1);
    for (size_t i = 0; i < size; i++)
        src[i] = bcast_byte(root, size, i);
    if (in_place && me == root)
        memcpy(buf, src, size);
    const void *from = in_place ? buf : src;
    if (radix == 0)
        CHECK_OK(gk_broadcast(buf, from, size, root));
    else
        CHECK_OK(gk_broadcast_radix(buf, from, size, root, radix));
    for (size_t i = 0; i < size; i++)
        if (buf[i] != bcast_byte(root, size, i))
            PE_FAIL("bcast root %d size %zu radix %d: byte %zu is %u, expected %u", root, size,
                    radix, i, buf[i], bcast_byte(root, size, i));
    CHECK_EQ_U64(buf[size], 0xee);
    free(buf);
    free(src);
}

/* Element i of PE pe's contribution, as a small integer every type holds
 * exactly (so sums and products of doubles are exact too). */
static long contribution(int pe, size_t i)
{
    return (long)((pe * 7 + (int)i * 3) % 11) - 4;
}

#define CHECK_REDUCE(T, dtype)                                                 \
    do {                                                                       \
        T *in = malloc(count * sizeof(T)), *out = malloc(count * sizeof(T));   \
        for (size_t i = 0; i < count; i++)                                     \
            in[i] = (T)contribution(me, i);                                    \
        for (int op = 0; op < 4; op++) {                                       \
            CHECK_OK(gk_allreduce(out, in, count, dtype, (gk_op_t)op));        \
            for (size_t i = 0; i < count; i++) {                               \
                T want = (T)contribution(0, i);                                \
                for (int pe = 1; pe < npes; pe++) {                            \
                    T next = (T)contribution(pe, i);                           \
                    if (op == GK_OP_SUM) want = (T)(want + next);              \
                    if (op == GK_OP_PROD) want = (T)(want * next);             \
                    if (op == GK_OP_MIN) want = next < want ? next : want;     \
                    if (op == GK_OP_MAX) want = next > want ? next : want;     \
                }                                                              \
                if (memcmp(&out[i], &want, sizeof(T)) != 0)                    \
                    PE_FAIL("allreduce %s op %d count %zu: element %zu is %g, " \
                            "expected %g", #T, op, count, i, (double)out[i],   \
                            (double)want);                                     \
            }                                                                  \
        }                                                                      \
        /* In place. */                                                        \
        memcpy(out, in, count * sizeof(T));                                    \
        CHECK_OK(gk_allreduce(out, out, count, dtype, GK_OP_MAX));             \
        free(in);                                                              \
        free(out);                                                             \
    } while (0)

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    const size_t sizes[] = {0, 1, 8, 1000, 65536, 65537, 300001};
    for (int root = 0; root < npes; root++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            check_bcast(root, sizes[s], s % 3 == 0 ? 2 : s % 3 == 1 ? 3 : 0, (int)(s & 1));
    for (int i = 0; i < 2000; i++) /* back to back: slot reuse */
        check_bcast(i % npes, 8, 0, 0);

    const size_t counts[] = {1, 3, 1024, 1025, 5000};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        size_t count = counts[c];
        CHECK_REDUCE(int32_t, GK_DTYPE_INT32);
        CHECK_REDUCE(int64_t, GK_DTYPE_INT64);
        CHECK_REDUCE(float, GK_DTYPE_FLOAT);
        CHECK_REDUCE(double, GK_DTYPE_DOUBLE);
    }
    /* Bitwise-identical floating-point results on every PE, with sums whose
     * rounding depends on the order. */
    double x = 1.0 / (3.0 + me), sum;
    uint64_t *bits = gk_calloc((size_t)npes, sizeof(uint64_t));
    for (int i = 0; i < 1000; i++) {
        CHECK_OK(gk_allreduce(&sum, &x, 1, GK_DTYPE_DOUBLE, GK_OP_SUM));
        x += 1e-3 * sum;
    }
    uint64_t mine;
    memcpy(&mine, &sum, sizeof(mine));
    CHECK_OK(gk_put(0, &bits[me], &mine, sizeof(mine)));
    CHECK_OK(gk_barrier());
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            CHECK_EQ_U64(bits[pe], bits[0]);

    /* Errors. */
    CHECK_STATUS(gk_broadcast(&x, &x, 8, npes), GK_ERR_PE);
    CHECK_STATUS(gk_broadcast_radix(&x, &x, 8, 0, 1), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_allreduce(&x, &x, 1, (gk_dtype_t)99, GK_OP_SUM), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_allreduce(&x, &x, 1, GK_DTYPE_DOUBLE, (gk_op_t)99), GK_ERR_INVALID_ARG);
    CHECK_OK(gk_barrier());
    gk_free(bits);
    CHECK_OK(gk_finalize());
    return 0;
}

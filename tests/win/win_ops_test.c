/*
 * win_ops_test: window creation (allocate with a different size per PE,
 * create over a gk_malloc range), put and get at various displacements and
 * sizes, every accumulate operation on every type against a serial
 * computation, get-accumulate (NO_OP included), fetch-and-op and
 * compare-and-swap (success and failure).
 */
#include <math.h>

#include "pe_check.h"

#define ELEMS 8

/* The value PE p contributes to element i. */
static double contribution(int p, int i) { return (double)(p + 2) + (double)i; }

static void check_accumulates(gk_win_t *win, char *base, int me, int npes)
{
    static const gk_op_t ops[] = {GK_OP_SUM,     GK_OP_MIN,  GK_OP_MAX, GK_OP_PROD,
                                  GK_OP_REPLACE, GK_OP_BAND, GK_OP_BOR, GK_OP_BXOR};
    static const gk_dtype_t types[] = {GK_DTYPE_INT32, GK_DTYPE_INT64, GK_DTYPE_UINT64,
                                       GK_DTYPE_FLOAT, GK_DTYPE_DOUBLE};
    int target = npes - 1;
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        gk_dtype_t type = types[t];
        int integer = type != GK_DTYPE_FLOAT && type != GK_DTYPE_DOUBLE;
        size_t width = (type == GK_DTYPE_INT32 || type == GK_DTYPE_FLOAT) ? 4 : 8;
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            gk_op_t op = ops[o];
            int bitwise = op == GK_OP_BAND || op == GK_OP_BOR || op == GK_OP_BXOR;
            if (bitwise && !integer)
                continue;
            /* Start from 1 (or all ones for AND), then everyone applies. */
            CHECK_OK(gk_barrier());
            double expect[ELEMS];
            for (int i = 0; i < ELEMS; i++) {
                unsigned char *slot = (unsigned char *)base + (size_t)i * width;
                double start = op == GK_OP_BAND ? -1 : 1;
                if (me == target) {
                    if (type == GK_DTYPE_INT32) *(int32_t *)slot = (int32_t)start;
                    else if (type == GK_DTYPE_INT64) *(int64_t *)slot = (int64_t)start;
                    else if (type == GK_DTYPE_UINT64) *(uint64_t *)slot = (uint64_t)(int64_t)start;
                    else if (type == GK_DTYPE_FLOAT) *(float *)slot = (float)start;
                    else *(double *)slot = start;
                }
                expect[i] = start;
                for (int p = 0; p < npes; p++) {
                    double v = contribution(p, i);
                    long long a = (long long)expect[i], b = (long long)v;
                    switch (op) {
                    case GK_OP_SUM: expect[i] += v; break;
                    case GK_OP_MIN: expect[i] = v < expect[i] ? v : expect[i]; break;
                    case GK_OP_MAX: expect[i] = v > expect[i] ? v : expect[i]; break;
                    case GK_OP_PROD: expect[i] *= v; break;
                    case GK_OP_BAND: expect[i] = (double)(a & b); break;
                    case GK_OP_BOR: expect[i] = (double)(a | b); break;
                    case GK_OP_BXOR: expect[i] = (double)(a ^ b); break;
                    default: break; /* REPLACE: any one PE's value */
                    }
                }
            }
            CHECK_OK(gk_barrier());
            unsigned char src[ELEMS * 8];
            for (int i = 0; i < ELEMS; i++) {
                double v = contribution(me, i);
                unsigned char *s = src + (size_t)i * width;
                if (type == GK_DTYPE_INT32) *(int32_t *)s = (int32_t)v;
                else if (type == GK_DTYPE_INT64) *(int64_t *)s = (int64_t)v;
                else if (type == GK_DTYPE_UINT64) *(uint64_t *)s = (uint64_t)v;
                else if (type == GK_DTYPE_FLOAT) *(float *)s = (float)v;
                else *(double *)s = v;
            }
            CHECK_OK(gk_win_accumulate(win, target, 0, src, ELEMS, type, op));
            CHECK_OK(gk_win_flush(win, target));
            CHECK_OK(gk_barrier());
            if (me != target)
                continue;
            for (int i = 0; i < ELEMS; i++) {
                unsigned char *slot = (unsigned char *)base + (size_t)i * width;
                double got = type == GK_DTYPE_INT32 ? *(int32_t *)slot
                             : type == GK_DTYPE_INT64 ? (double)*(int64_t *)slot
                             : type == GK_DTYPE_UINT64 ? (double)*(uint64_t *)slot
                             : type == GK_DTYPE_FLOAT ? *(float *)slot
                                                      : *(double *)slot;
                if (op == GK_OP_REPLACE) {
                    int matches = 0;
                    for (int p = 0; p < npes; p++)
                        matches |= got == contribution(p, i);
                    CHECK_TRUE(matches);
                } else {
                    if (fabs(got - expect[i]) > 1e-6 * fabs(expect[i])) {
                        printf("type %d op %d element %d: got %g, expected %g\n", (int)type,
                               (int)op, i, got, expect[i]);
                        CHECK_TRUE(0);
                    }
                }
            }
        }
    }
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    /* Allocate: part sizes differ per PE. */
    size_t my_size = 4096 + 64 * (size_t)me;
    char *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(my_size, 0, (void **)&base, &win));
    CHECK_TRUE(gk_win_base(win) == base);
    for (int p = 0; p < npes; p++)
        CHECK_EQ(gk_win_size(win, p), 4096 + 64 * (size_t)p);
    for (size_t i = 0; i < my_size; i++)
        CHECK_EQ(base[i], 0);

    /* Put to the right neighbour at the end of its part, get it back. */
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t sizes[] = {0, 1, 7, 64, 1000, 4096};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s], disp = gk_win_size(win, right) - n;
        char out[4096], back[4096];
        for (size_t i = 0; i < n; i++)
            out[i] = (char)(i * 3 + me + s);
        CHECK_OK(gk_win_put(win, right, disp, out, n));
        CHECK_OK(gk_win_flush(win, right));
        CHECK_OK(gk_win_get(win, right, disp, back, n));
        CHECK_EQ(memcmp(out, back, n), 0);
        CHECK_OK(gk_barrier());
        size_t my_disp = my_size - n;
        for (size_t i = 0; i < n; i++)
            CHECK_EQ(base[my_disp + i], (char)(i * 3 + left + s));
        CHECK_OK(gk_barrier());
    }

    check_accumulates(win, base, me, npes);

    /* get_accumulate, NO_OP, fetch_and_op, compare_and_swap on PE 0. */
    CHECK_OK(gk_barrier());
    if (me == 0)
        memset(base, 0, 64);
    CHECK_OK(gk_barrier());
    int64_t add = me + 1, old = -1;
    CHECK_OK(gk_win_get_accumulate(win, 0, 0, &add, &old, 1, GK_DTYPE_INT64, GK_OP_SUM));
    CHECK_GE(old, 0);
    CHECK_OK(gk_win_fetch_and_op(win, 0, 8, &add, &old, GK_DTYPE_INT64, GK_OP_MAX));
    CHECK_OK(gk_barrier());
    int64_t sum = 0, max = 0;
    CHECK_OK(gk_win_get_accumulate(win, 0, 0, NULL, &sum, 1, GK_DTYPE_INT64, GK_OP_NO_OP));
    CHECK_OK(gk_win_fetch_and_op(win, 0, 8, NULL, &max, GK_DTYPE_INT64, GK_OP_NO_OP));
    CHECK_EQ(sum, (int64_t)npes * (npes + 1) / 2);
    CHECK_EQ(max, (int64_t)npes);
    CHECK_OK(gk_barrier());
    /* Compare-and-swap: exactly one PE wins 0 -> its number + 1. */
    uint64_t zero = 0, desired = (uint64_t)me + 1, seen = 99;
    if (me == 0)
        ((uint64_t *)base)[2] = 0;
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_compare_and_swap(win, 0, 16, &zero, &desired, &seen, GK_DTYPE_UINT64));
    int won = seen == 0, winners = 0;
    CHECK_OK(gk_allreduce(&winners, &won, 1, GK_DTYPE_INT32, GK_OP_SUM));
    CHECK_EQ(winners, 1);
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_free(win));

    /* Create over an existing symmetric range. */
    char *range = gk_calloc(2, 4096);
    CHECK_NOT_NULL(range);
    CHECK_OK(gk_win_create(range + 4096, 4096, 0, &win));
    uint32_t v = 0xabc0u + (uint32_t)me;
    CHECK_OK(gk_win_put(win, right, 100, &v, sizeof(v)));
    CHECK_OK(gk_barrier());
    uint32_t got = 0;
    memcpy(&got, range + 4096 + 100, sizeof(got));
    CHECK_EQ(got, 0xabc0u + (uint32_t)left);
    CHECK_OK(gk_win_free(win));
    gk_free(range);
    return gk_finalize() == GK_OK ? 0 : 1;
}

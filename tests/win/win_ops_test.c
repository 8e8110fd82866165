/*
 * win_ops_test: window creation and every data operation, with the data
 * checked at both ends.
 *
 *   creation   gk_win_allocate with a different size per PE (a zero-sized
 *              part too), checked with gk_win_size on every PE; parts
 *              zero-filled; gk_win_create over part of a gk_malloc range;
 *              puts to every PE straight after creation.
 *   put/get    0 B, 1 B, odd sizes, sizes around 64, 4 KiB +- 1 and 1 MiB,
 *              at the start, at odd displacements and at the very end of
 *              the target's part, to the neighbour and to oneself; the
 *              target checks what arrived and that the bytes around it
 *              are untouched.
 *   accumulate every op (SUM MIN MAX PROD REPLACE BAND BOR BXOR) x every
 *              window type (INT32 UINT32 INT64 UINT64 FLOAT DOUBLE; bitwise
 *              on integers only), every PE into one target at an odd
 *              element offset, against a serial computation in the type
 *              itself: signed values of both signs (MIN and MAX are not
 *              trivial), UINT32 and UINT64 values on both sides of 2^31
 *              and 2^63 (an unsigned comparison),
 *              integer sums that wrap; guard elements on both sides must
 *              stay as they were (the element width is right).
 *   fetching   get_accumulate (several elements; GK_OP_NO_OP reads),
 *              fetch_and_op (REPLACE hands out a permutation of the values;
 *              SUM of distinct bits: every PE saw a distinct subset without
 *              its own bit), compare_and_swap on the four integer types
 *              (success and failure, a chain 0 -> 1 -> ... -> n in which
 *              every PE waits for its turn, neighbours untouched).
 */
#include <math.h>
#include <sched.h>

#include "pe_check.h"
#include "win_emulated.h"

#define MIB ((size_t)1 << 20)
#define ELEMS 8                   /* elements accumulated */
#define FIRST 3                   /* the first of them, in elements: an odd offset */
#define SLOTS (FIRST + ELEMS + 3) /* guards before and after */

static int me, npes;

/* ------------------------------------------------------------------------ */
/* Creation, put and get                                                    */
/* ------------------------------------------------------------------------ */

static size_t part_size(int pe)
{
    return MIB + 4096 + 24 * (size_t)pe + 1;
}

static unsigned char pattern(int from, size_t round, size_t i)
{
    return (unsigned char)(i * 131 + (size_t)from * 17 + round * 7 + 1);
}

static void check_put_get(void)
{
    char *base = NULL;
    gk_win_t *win = NULL;
    size_t mine = part_size(me);
    CHECK_OK(gk_win_allocate(mine, 0, (void **)&base, &win));
    CHECK_TRUE(gk_win_base(win) == base);
    for (int p = 0; p < npes; p++)
        CHECK_EQ(gk_win_size(win, p), part_size(p));
    for (size_t i = 0; i < mine; i++)
        if (base[i] != 0)
            PE_FAIL("a new window's part is not zero at byte %zu: %d", i, base[i]);

    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char *out = malloc(MIB), *back = malloc(MIB);
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(back);
    static const size_t sizes[] = {0, 1, 3, 7, 8, 63, 64, 65, 4095, 4097, MIB};
    size_t round = 0;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        size_t right_size = part_size(right), my_size = mine;
        /* Displacements: the start, odd ones, the very end. */
        size_t disps[4] = {0, 1, ((right_size - n) / 2) | 1, right_size - n};
        size_t my_disps[4] = {0, 1, ((my_size - n) / 2) | 1, my_size - n};
        for (int d = 0; d < 4; d++, round++) {
            size_t disp = disps[d];
            for (size_t i = 0; i < n; i++)
                out[i] = pattern(me, round, i);
            CHECK_OK(gk_win_put(win, right, disp, out, n));
            CHECK_OK(gk_win_flush(win, right));
            memset(back, 0xee, n);
            CHECK_OK(gk_win_get(win, right, back, disp, n));
            if (n > 0 && memcmp(out, back, n) != 0)
                PE_FAIL(
                    "get of %zu bytes at displacement %zu of PE %d differs from the put",
                    n, disp, right);
            CHECK_OK(gk_barrier());
            /* What arrived here from the left, and nothing around it. */
            size_t at = my_disps[d];
            for (size_t i = 0; i < n; i++)
                if ((unsigned char)base[at + i] != pattern(left, round, i))
                    PE_FAIL("%zu-byte put at displacement %zu: byte %zu is 0x%02x, "
                            "expected 0x%02x",
                            n, at, i, (unsigned char)base[at + i],
                            pattern(left, round, i));
            if (at > 0 && base[at - 1] != 0)
                PE_FAIL("%zu-byte put at displacement %zu wrote the byte before it", n,
                        at);
            if (at + n < my_size && base[at + n] != 0)
                PE_FAIL("%zu-byte put at displacement %zu wrote the byte after it", n,
                        at);
            CHECK_OK(gk_barrier());
            memset(base + at, 0, n);
            CHECK_OK(gk_barrier());
        }
    }
    /* To oneself, 1 MiB, and back. */
    for (size_t i = 0; i < MIB; i++)
        out[i] = pattern(me, 999, i);
    CHECK_OK(gk_win_put(win, me, mine - MIB, out, MIB));
    CHECK_EQ(memcmp(base + mine - MIB, out, MIB), 0);
    memset(back, 0, MIB);
    CHECK_OK(gk_win_get(win, me, back, mine - MIB, MIB));
    CHECK_EQ(memcmp(back, out, MIB), 0);
    CHECK_OK(gk_barrier());
    free(out);
    free(back);
    CHECK_OK(gk_win_free(win));

    /* A zero-sized part (PE 0's) next to others. */
    CHECK_OK(gk_win_allocate(me == 0 ? 0 : 64, 0, (void **)&base, &win));
    CHECK_EQ(gk_win_size(win, 0), 0);
    for (int p = 1; p < npes; p++)
        CHECK_EQ(gk_win_size(win, p), 64);
    char byte = 1;
    CHECK_OK(gk_win_put(win, 0, 0, &byte, 0));
    /* Each PE its own byte: puts of one byte from several PEs would race
     * (check mode's race detector reports them). */
    CHECK_OK(gk_win_put(win, npes - 1, npes > 1 ? 63 - (size_t)me % 64 : 0, &byte,
                        npes > 1 ? 1 : 0));
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_free(win));
}

/* ------------------------------------------------------------------------ */
/* Accumulate against a serial computation                                  */
/* ------------------------------------------------------------------------ */

static const gk_op_t all_ops[] = {GK_OP_SUM,     GK_OP_MIN,  GK_OP_MAX, GK_OP_PROD,
                                  GK_OP_REPLACE, GK_OP_BAND, GK_OP_BOR, GK_OP_BXOR};
static const char *const op_names[] = {"SUM",     "MIN",  "MAX", "PROD",
                                       "REPLACE", "BAND", "BOR", "BXOR"};
static const gk_dtype_t all_types[] = {GK_DTYPE_INT32, GK_DTYPE_UINT32, GK_DTYPE_INT64,
                                       GK_DTYPE_UINT64, GK_DTYPE_FLOAT, GK_DTYPE_DOUBLE};
/* By enum value. */
static const char *const type_names[] = {"INT32", "INT64", "FLOAT", "DOUBLE", "UINT64",
                                         "INT8",  "INT16", "UINT8", "UINT16", "UINT32"};

static size_t width_of(gk_dtype_t t)
{
    return (t == GK_DTYPE_INT32 || t == GK_DTYPE_UINT32 || t == GK_DTYPE_FLOAT) ? 4 : 8;
}

static int is_integer(gk_dtype_t t)
{
    return t == GK_DTYPE_INT32 || t == GK_DTYPE_UINT32 || t == GK_DTYPE_INT64 ||
           t == GK_DTYPE_UINT64;
}

/*
 * The value (as a 64-bit pattern of the type) PE p contributes to element
 * i for op, and the value the target starts from. Small integers keep the
 * floating-point results exact in any order; products stay small.
 */
static int64_t small_value(int p, int i, gk_op_t op)
{
    if (op == GK_OP_PROD) {
        static const int64_t f[] = {-2, 3, -1, 2, 1, -3, 2, -1, 3};
        return f[(p * 5 + i) % 9];
    }
    return (int64_t)((p * 7 + i * 3) % 23) - 11; /* -11 .. 11 */
}

static uint64_t contribution(gk_dtype_t t, gk_op_t op, int p, int i)
{
    uint64_t bits = 0;
    int bitwise = op == GK_OP_BAND || op == GK_OP_BOR || op == GK_OP_BXOR;
    if (bitwise) {
        uint64_t v = 0x9e3779b97f4a7c15ULL * (uint64_t)(p * 16 + i + 1);
        v ^= v >> 29;
        if (op == GK_OP_BAND)
            v |= ~((uint64_t)1 << ((p + i) % 32)) & ~((uint64_t)1 << (40 + p % 20));
        return width_of(t) == 4 ? (uint32_t)v : v;
    }
    int64_t s = small_value(p, i, op);
    switch (t) {
    case GK_DTYPE_INT32: {
        int32_t v = (int32_t)s;
        if (op == GK_OP_SUM)
            v = (int32_t)(s * 0x10000000); /* sums wrap */
        uint32_t u;
        memcpy(&u, &v, 4);
        return u;
    }
    case GK_DTYPE_INT64: {
        int64_t v = op == GK_OP_SUM ? (int64_t)((uint64_t)s * 0x1000000000000000ULL) : s;
        memcpy(&bits, &v, 8);
        return bits;
    }
    case GK_DTYPE_UINT32:
        if (op == GK_OP_MIN || op == GK_OP_MAX) /* both sides of 2^31 */
            return (p + i) % 2 ? (uint32_t)1 << 31 | (uint32_t)(s + 11)
                               : (uint32_t)(s + 11) * 1000;
        return (uint32_t)s; /* negatives wrap to large values */
    case GK_DTYPE_UINT64:
        if (op == GK_OP_MIN || op == GK_OP_MAX) /* both sides of 2^63 */
            return (p + i) % 2 ? (uint64_t)1 << 63 | (uint64_t)(s + 11)
                               : (uint64_t)(s + 11) * 1000;
        return (uint64_t)s; /* negatives wrap to large values */
    case GK_DTYPE_FLOAT: {
        float v = (float)s;
        uint32_t u;
        memcpy(&u, &v, 4);
        return u;
    }
    case GK_DTYPE_DOUBLE: {
        double v = (double)s;
        memcpy(&bits, &v, 8);
        return bits;
    }
    default: /* not a window type */
        break;
    }
    return 0;
}

static uint64_t start_value(gk_dtype_t t, gk_op_t op, int i)
{
    switch (op) {
    case GK_OP_BAND:
        return width_of(t) == 4 ? 0xffffffffu : ~(uint64_t)0;
    case GK_OP_BOR:
    case GK_OP_BXOR:
        return (uint64_t)0x5a5a0000u + (uint64_t)i;
    default: /* the value 1 of the type */
        return t == GK_DTYPE_FLOAT    ? 0x3f800000u
               : t == GK_DTYPE_DOUBLE ? 0x3ff0000000000000ULL
                                      : 1;
    }
}

#define APPLY(T, U)                                                                      \
    do {                                                                                 \
        T a, b, r;                                                                       \
        memcpy(&a, &acc, sizeof(T));                                                     \
        memcpy(&b, &v, sizeof(T));                                                       \
        switch (op) {                                                                    \
        case GK_OP_SUM:                                                                  \
            r = (T)((U)a + (U)b);                                                        \
            break;                                                                       \
        case GK_OP_PROD:                                                                 \
            r = (T)((U)a * (U)b);                                                        \
            break;                                                                       \
        case GK_OP_MIN:                                                                  \
            r = b < a ? b : a;                                                           \
            break;                                                                       \
        case GK_OP_MAX:                                                                  \
            r = b > a ? b : a;                                                           \
            break;                                                                       \
        default:                                                                         \
            r = b;                                                                       \
            break;                                                                       \
        }                                                                                \
        uint64_t out = 0;                                                                \
        memcpy(&out, &r, sizeof(T));                                                     \
        return out;                                                                      \
    } while (0)

/* acc op v in type t (bit patterns). */
static uint64_t apply(gk_dtype_t t, gk_op_t op, uint64_t acc, uint64_t v)
{
    uint64_t mask = width_of(t) == 4 ? 0xffffffffu : ~(uint64_t)0;
    switch (op) {
    case GK_OP_BAND:
        return (acc & v) & mask;
    case GK_OP_BOR:
        return (acc | v) & mask;
    case GK_OP_BXOR:
        return (acc ^ v) & mask;
    default:
        break;
    }
    switch (t) {
    case GK_DTYPE_INT32:
        APPLY(int32_t, uint32_t);
    case GK_DTYPE_UINT32:
        APPLY(uint32_t, uint32_t);
    case GK_DTYPE_INT64:
        APPLY(int64_t, uint64_t);
    case GK_DTYPE_UINT64:
        APPLY(uint64_t, uint64_t);
    case GK_DTYPE_FLOAT:
        APPLY(float, float);
    case GK_DTYPE_DOUBLE:
        APPLY(double, double);
    default: /* not a window type */
        break;
    }
    return 0;
}

static uint64_t load(const unsigned char *slots, gk_dtype_t t, int k)
{
    uint64_t v = 0;
    memcpy(&v, slots + (size_t)k * width_of(t), width_of(t));
    return v;
}

static void store(unsigned char *slots, gk_dtype_t t, int k, uint64_t v)
{
    memcpy(slots + (size_t)k * width_of(t), &v, width_of(t));
}

static void check_accumulates(gk_win_t *win, unsigned char *base, int target,
                              int fetching)
{
    const uint64_t guard = 0x6b6b6b6b6b6b6b6bULL;
    for (size_t ti = 0; ti < sizeof(all_types) / sizeof(all_types[0]); ti++) {
        gk_dtype_t t = all_types[ti];
        for (size_t oi = 0; oi < sizeof(all_ops) / sizeof(all_ops[0]); oi++) {
            gk_op_t op = all_ops[oi];
            int bitwise = op == GK_OP_BAND || op == GK_OP_BOR || op == GK_OP_BXOR;
            if (bitwise && !is_integer(t))
                continue;
            if (me == target) {
                memset(base, 0x6b, SLOTS * 8);
                for (int i = 0; i < ELEMS; i++)
                    store(base, t, FIRST + i, start_value(t, op, i));
            }
            CHECK_OK(gk_barrier());
            unsigned char src[ELEMS * 8] = {0}, old[ELEMS * 8] = {0};
            for (int i = 0; i < ELEMS; i++)
                store(src, t, i, contribution(t, op, me, i));
            size_t disp = FIRST * width_of(t);
            if (fetching) {
                CHECK_OK(
                    gk_win_get_accumulate(win, target, disp, src, old, ELEMS, t, op));
            } else {
                CHECK_OK(gk_win_accumulate(win, target, disp, src, ELEMS, t, op));
            }
            CHECK_OK(gk_win_flush(win, target));
            CHECK_OK(gk_barrier());
            if (me == target) {
                for (int k = 0; k < SLOTS; k++) {
                    uint64_t got = load(base, t, k);
                    int i = k - FIRST;
                    if (i < 0 || i >= ELEMS) {
                        uint64_t g = width_of(t) == 4 ? (uint32_t)guard : guard;
                        if (got != g)
                            PE_FAIL("%s %s on %d PEs: guard element %d changed to 0x%llx",
                                    op_names[oi], type_names[t], npes, k,
                                    (unsigned long long)got);
                        continue;
                    }
                    uint64_t expect = start_value(t, op, i);
                    for (int p = 0; p < npes; p++)
                        expect = apply(t, op, expect, contribution(t, op, p, i));
                    int ok = got == expect;
                    if (op == GK_OP_REPLACE) { /* some PE's value */
                        ok = 0;
                        for (int p = 0; p < npes; p++)
                            ok |= got == contribution(t, op, p, i);
                    }
                    if (!ok)
                        PE_FAIL(
                            "%s %s on %d PEs, element %d: got 0x%llx, expected 0x%llx",
                            op_names[oi], type_names[t], npes, i, (unsigned long long)got,
                            (unsigned long long)expect);
                }
            }
            if (fetching && (op == GK_OP_SUM || op == GK_OP_BOR) && is_integer(t) &&
                npes == 1) {
                /* Alone, the old values are the start values. */
                for (int i = 0; i < ELEMS; i++)
                    CHECK_EQ_U64(load(old, t, i), start_value(t, op, i));
            }
            CHECK_OK(gk_barrier());
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Fetching operations                                                      */
/* ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void check_fetching(gk_win_t *win, uint64_t *base)
{
    int target = npes / 2;
    uint64_t *all = calloc((size_t)npes + 1, sizeof(uint64_t));
    CHECK_NOT_NULL(all);
    if (me == target)
        memset(base, 0, 64 * 8);
    CHECK_OK(gk_barrier());

    /* fetch_and_op REPLACE: the olds and the final value are the start
     * value and every PE's, each exactly once. */
    if (me == target)
        base[1] = 1000;
    CHECK_OK(gk_barrier());
    uint64_t mine = 2000 + (uint64_t)me, old = 0;
    CHECK_OK(
        gk_win_fetch_and_op(win, target, 8, &mine, &old, GK_DTYPE_UINT64, GK_OP_REPLACE));
    CHECK_OK(gk_allreduce(all, &old, 1, GK_DTYPE_UINT64, GK_OP_SUM)); /* sync */
    uint64_t *olds = calloc((size_t)npes + 1, sizeof(uint64_t));
    CHECK_NOT_NULL(olds);
    CHECK_OK(gk_win_put(win, target, 128 + 8 * (size_t)me, &old, 8));
    CHECK_OK(gk_barrier());
    if (me == target) {
        memcpy(olds, base + 16, (size_t)npes * 8);
        olds[npes] = base[1];
        qsort(olds, (size_t)npes + 1, 8, cmp_u64);
        CHECK_EQ_U64(olds[0], 1000);
        for (int p = 0; p < npes; p++)
            CHECK_EQ_U64(olds[p + 1], 2000 + (uint64_t)p);
    }
    CHECK_OK(gk_barrier());

    /* fetch_and_op SUM of my own bit: I never see my bit, everyone sees a
     * different subset, the end value has every bit. */
    uint64_t bit = (uint64_t)1 << me;
    CHECK_OK(
        gk_win_fetch_and_op(win, target, 16, &bit, &old, GK_DTYPE_UINT64, GK_OP_SUM));
    CHECK_EQ_U64(old & bit, 0);
    CHECK_OK(gk_win_put(win, target, 128 + 8 * (size_t)me, &old, 8));
    CHECK_OK(gk_barrier());
    if (me == target) {
        CHECK_EQ_U64(base[2], ((uint64_t)1 << npes) - 1);
        memcpy(olds, base + 16, (size_t)npes * 8);
        qsort(olds, (size_t)npes, 8, cmp_u64);
        for (int p = 1; p < npes; p++)
            if (olds[p] == olds[p - 1])
                PE_FAIL("two PEs fetched the same old value 0x%llx",
                        (unsigned long long)olds[p]);
    }
    CHECK_OK(gk_barrier());

    /* get_accumulate NO_OP of several elements (src ignored, may be NULL),
     * and a fetch_and_op NO_OP on each type. */
    if (me == target)
        for (int i = 0; i < 8; i++)
            base[24 + i] = 0x1111111111111111ULL * (uint64_t)i;
    CHECK_OK(gk_barrier());
    uint64_t got[8] = {0};
    CHECK_OK(gk_win_get_accumulate(win, target, 24 * 8, NULL, got, 8, GK_DTYPE_UINT64,
                                   GK_OP_NO_OP));
    for (int i = 0; i < 8; i++)
        CHECK_EQ_U64(got[i], 0x1111111111111111ULL * (uint64_t)i);
    int32_t g32 = 0;
    CHECK_OK(gk_win_fetch_and_op(win, target, 24 * 8 + 12, NULL, &g32, GK_DTYPE_INT32,
                                 GK_OP_NO_OP));
    CHECK_EQ(g32, 0x11111111);
    double gd = 0;
    CHECK_OK(gk_win_fetch_and_op(win, target, 24 * 8, NULL, &gd, GK_DTYPE_DOUBLE,
                                 GK_OP_NO_OP));
    CHECK_TRUE(gd == 0.0);
    CHECK_OK(gk_barrier());
    if (me == target)
        for (int i = 0; i < 8; i++)
            CHECK_EQ_U64(base[24 + i], 0x1111111111111111ULL * (uint64_t)i);

    /* get_accumulate SUM on doubles: the old values are partial sums. */
    double addend[2] = {1.0, (double)(me + 1)}, before[2] = {-1, -1};
    CHECK_OK(gk_win_get_accumulate(win, target, 40 * 8, addend, before, 2,
                                   GK_DTYPE_DOUBLE, GK_OP_SUM));
    CHECK_TRUE(before[0] >= 0 && before[0] <= npes - 1 && before[0] == floor(before[0]));
    CHECK_OK(gk_barrier());
    if (me == target) {
        double d0, d1;
        memcpy(&d0, &base[40], 8);
        memcpy(&d1, &base[41], 8);
        CHECK_TRUE(d0 == (double)npes);
        CHECK_TRUE(d1 == (double)npes * (npes + 1) / 2);
    }
    CHECK_OK(gk_barrier());
    free(olds);
    free(all);
}

/* A CAS chain on one element of each integer type, between guards. */
static void check_cas(gk_win_t *win, unsigned char *base)
{
    static const gk_dtype_t types[] = {GK_DTYPE_INT32, GK_DTYPE_UINT32, GK_DTYPE_INT64,
                                       GK_DTYPE_UINT64};
    int target = npes - 1;
    for (int ti = 0; ti < 4; ti++) {
        gk_dtype_t t = types[ti];
        size_t w = width_of(t);
        if (me == target) {
            memset(base, 0x6b, 8 * 8);
            /* The chain starts at -3 (signed) or 2^63 + 5 (unsigned). */
            uint64_t start = t == GK_DTYPE_UINT64  ? ((uint64_t)1 << 63) + 5
                             : t == GK_DTYPE_INT32 ? (uint32_t)-3
                                                   : (uint64_t)-3;
            memcpy(base + 3 * w, &start, w);
        }
        CHECK_OK(gk_barrier());
        uint64_t first = t == GK_DTYPE_UINT64 ? ((uint64_t)1 << 63) + 5 : (uint64_t)-3;
        /* Failure: a wrong compare value changes nothing, returns the value. */
        uint64_t wrong = first + 100, desired = 42, result = 0;
        CHECK_OK(
            gk_win_compare_and_swap(win, target, 3 * w, &wrong, &desired, &result, t));
        uint64_t mask = w == 4 ? 0xffffffffu : ~(uint64_t)0;
        CHECK_EQ_U64(result & mask, first & mask);
        CHECK_OK(gk_barrier());
        /* The chain: PE p turns first + p into first + p + 1. */
        uint64_t expect = first + (uint64_t)me, next = expect + 1;
        long failures = 0;
        for (;;) {
            result = 0;
            CHECK_OK(
                gk_win_compare_and_swap(win, target, 3 * w, &expect, &next, &result, t));
            if ((result & mask) == (expect & mask))
                break;
            /* Failed: the value is before my turn, never past it. */
            uint64_t seen = result & mask, lo = first & mask;
            if (((seen - lo) & mask) > (uint64_t)me)
                PE_FAIL("CAS chain (%s): saw %llu steps done before my turn (%d)",
                        type_names[t], (unsigned long long)((seen - lo) & mask), me);
            failures++;
            sched_yield(); /* the PE whose turn it is may need this core */
        }
        CHECK_OK(gk_barrier());
        if (me == target) {
            uint64_t end = 0;
            memcpy(&end, base + 3 * w, w);
            CHECK_EQ_U64(end, (first + (uint64_t)npes) & mask);
            for (int k = 0; k < 8; k++) {
                if (k == 3)
                    continue;
                uint64_t g = 0;
                memcpy(&g, base + (size_t)k * w, w);
                CHECK_EQ_U64(g, 0x6b6b6b6b6b6b6b6bULL & mask);
            }
        }
        CHECK_OK(gk_barrier());
    }
}

/* Operations right after creation: every PE puts to every other before
 * anyone synchronises again, so a part's owner must already know the
 * window when the first request reaches it (an emulated part's owner
 * looks it up from a handler). */
static void check_first_touch(void)
{
    for (int round = 0; round < 20; round++) {
        unsigned char *base = NULL;
        gk_win_t *win = NULL;
        CHECK_OK(gk_win_allocate((size_t)npes, 0, (void **)&base, &win));
        unsigned char byte = (unsigned char)(me + 1);
        for (int p = 0; p < npes; p++)
            CHECK_OK(gk_win_put(win, (me + p) % npes, (size_t)me, &byte, 1));
        CHECK_OK(gk_barrier());
        for (int p = 0; p < npes; p++)
            CHECK_EQ(base[p], (unsigned char)(p + 1));
        CHECK_OK(gk_barrier());
        CHECK_OK(gk_win_free(win));
    }
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();

    check_put_get();
    check_first_touch();

    /* Accumulates into the last PE of an allocated window, then into PE 0
     * of a window created over a gk_malloc range (at an offset, with a
     * different size per PE), plain and fetching. */
    unsigned char *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(4096, 0, (void **)&base, &win));
    check_accumulates(win, base, npes - 1, 0);
    check_fetching(win, (uint64_t *)base);
    check_cas(win, base);
    CHECK_OK(gk_win_free(win));

    unsigned char *range = gk_calloc(3, 4096);
    CHECK_NOT_NULL(range);
    size_t size = 1024 + 8 * (size_t)me;
    CHECK_OK(gk_win_create(range + 4096 + 64, size, 0, &win));
    CHECK_TRUE(gk_win_base(win) == range + 4096 + 64);
    for (int p = 0; p < npes; p++)
        CHECK_EQ(gk_win_size(win, p), 1024 + 8 * (size_t)p);
    check_accumulates(win, range + 4096 + 64, 0, 1);
    /* A put lands in the range, where the target reads it directly. */
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint32_t v = 0xabc0u + (uint32_t)me;
    size_t at = gk_win_size(win, right) - 4;
    CHECK_OK(gk_win_put(win, right, at, &v, sizeof(v)));
    CHECK_OK(gk_barrier());
    uint32_t got = 0;
    memcpy(&got, range + 4096 + 64 + size - 4, sizeof(got));
    CHECK_EQ(got, 0xabc0u + (uint32_t)left);
    CHECK_OK(gk_win_free(win));
    gk_free(range);
    return gk_finalize() == GK_OK ? 0 : 1;
}

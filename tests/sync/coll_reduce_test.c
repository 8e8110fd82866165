/*
 * coll_reduce_test: gk_allreduce and gk_reduce over every element type and
 * every operation valid on it, checked element by element against a serial
 * computation:
 *
 *   integers   INT8 .. UINT64 with SUM, PROD, MIN, MAX (values of both
 *              signs; sums and products that wrap) and BAND, BOR, BXOR
 *              (full-width bit patterns);
 *   floating   FLOAT, DOUBLE, LONG DOUBLE with SUM, PROD, MIN, MAX on small
 *              integers (exact in any order), and a long double sum that
 *              needs all 64 bits of its significand;
 *   pairs      the five value-index pair types with MINLOC and MAXLOC, with
 *              ties in value everywhere (the smallest index must win);
 *
 * at counts around one piece of the all-reduce (4096 bytes: an element
 * never straddles two), bitwise-identical floating-point results on every
 * PE (gathered with gk_collect), gk_reduce to every root (dst NULL or
 * untouched elsewhere), and the errors: operations on the wrong types,
 * roots that are not PEs, PEs that disagree. Expected errors are captured
 * and checked (CHECK_LOGGED); any other error line fails the test.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#define PIECE_BYTES 4096 /* the all-reduce's piece (src/core/allreduce.h) */

static int me, npes;

/* Small integers of both signs, exact in every type's arithmetic. */
static long small_value(int pe, size_t i)
{
    return (long)((pe * 7 + (int)i * 3) % 11) - 4;
}

/* Full-width bit patterns for the bitwise operations. */
static uint64_t bit_pattern(int pe, size_t i)
{
    uint64_t v = 0x9e3779b97f4a7c15ULL * ((uint64_t)pe * 1000003u + i + 1);
    v ^= v >> 29;
    v *= 0xbf58476d1ce4e5b9ULL;
    return v ^ (v >> 32);
}

/* Counts around one piece, and several pieces. */
static size_t counts_around_piece(size_t size, size_t counts[6])
{
    size_t per = PIECE_BYTES / size;
    counts[0] = 1;
    counts[1] = 3;
    counts[2] = per - 1;
    counts[3] = per;
    counts[4] = per + 1;
    counts[5] = 3 * per + 7;
    return 6;
}

static const gk_op_t int_ops[] = {GK_OP_SUM, GK_OP_PROD, GK_OP_MIN, GK_OP_MAX,
                                  GK_OP_BAND, GK_OP_BOR, GK_OP_BXOR};

/* Integers: arithmetic wraps, done here in 64 bits and narrowed. */
#define CHECK_INTEGER_TYPE(T, dtype)                                           \
    static T int_value_##T(int pe, size_t i, gk_op_t op)                       \
    {                                                                          \
        return op >= GK_OP_BAND ? (T)bit_pattern(pe, i) : (T)small_value(pe, i); \
    }                                                                          \
    static T int_combine_##T(T a, T b, gk_op_t op)                             \
    {                                                                          \
        switch (op) {                                                          \
        case GK_OP_SUM:                                                        \
            return (T)((uint64_t)a + (uint64_t)b);                             \
        case GK_OP_PROD:                                                       \
            return (T)((uint64_t)a * (uint64_t)b);                             \
        case GK_OP_MIN:                                                        \
            return a < b ? a : b;                                              \
        case GK_OP_MAX:                                                        \
            return a > b ? a : b;                                              \
        case GK_OP_BAND:                                                       \
            return (T)(a & b);                                                 \
        case GK_OP_BOR:                                                        \
            return (T)(a | b);                                                 \
        default:                                                               \
            return (T)(a ^ b);                                                 \
        }                                                                      \
    }                                                                          \
    static void check_##T(void)                                                \
    {                                                                          \
        size_t counts[6], nc = counts_around_piece(sizeof(T), counts);         \
        for (size_t c = 0; c < nc; c++) {                                      \
            size_t count = counts[c];                                          \
            T *in = malloc(count * sizeof(T)), *out = malloc(count * sizeof(T)); \
            CHECK_NOT_NULL(in);                                                \
            CHECK_NOT_NULL(out);                                               \
            for (size_t o = 0; o < sizeof(int_ops) / sizeof(int_ops[0]); o++) { \
                gk_op_t op = int_ops[o];                                       \
                for (size_t i = 0; i < count; i++)                             \
                    in[i] = int_value_##T(me, i, op);                          \
                CHECK_OK(gk_allreduce(out, in, count, dtype, op));             \
                for (size_t i = 0; i < count; i++) {                           \
                    T want = int_value_##T(0, i, op);                          \
                    for (int pe = 1; pe < npes; pe++)                          \
                        want = int_combine_##T(want, int_value_##T(pe, i, op), op); \
                    if (out[i] != want)                                        \
                        PE_FAIL(#T " op %d count %zu: element %zu is %lld, expected %lld", \
                                (int)op, count, i, (long long)out[i], (long long)want); \
                }                                                              \
            }                                                                  \
            /* In place. */                                                    \
            for (size_t i = 0; i < count; i++)                                 \
                out[i] = int_value_##T(me, i, GK_OP_BXOR);                     \
            CHECK_OK(gk_allreduce(out, out, count, dtype, GK_OP_BXOR));        \
            for (size_t i = 0; i < count; i++) {                               \
                T want = 0;                                                    \
                for (int pe = 0; pe < npes; pe++)                              \
                    want = (T)(want ^ int_value_##T(pe, i, GK_OP_BXOR));       \
                CHECK_EQ(out[i], want);                                        \
            }                                                                  \
            free(in);                                                          \
            free(out);                                                         \
        }                                                                      \
    }

CHECK_INTEGER_TYPE(int8_t, GK_DTYPE_INT8)
CHECK_INTEGER_TYPE(int16_t, GK_DTYPE_INT16)
CHECK_INTEGER_TYPE(int32_t, GK_DTYPE_INT32)
CHECK_INTEGER_TYPE(int64_t, GK_DTYPE_INT64)
CHECK_INTEGER_TYPE(uint8_t, GK_DTYPE_UINT8)
CHECK_INTEGER_TYPE(uint16_t, GK_DTYPE_UINT16)
CHECK_INTEGER_TYPE(uint32_t, GK_DTYPE_UINT32)
CHECK_INTEGER_TYPE(uint64_t, GK_DTYPE_UINT64)

static const gk_op_t float_ops[] = {GK_OP_SUM, GK_OP_PROD, GK_OP_MIN, GK_OP_MAX};

/* Floating point on small integers: every result is exact. */
#define CHECK_FLOAT_TYPE(T, name, dtype)                                       \
    static void check_##name(void)                                             \
    {                                                                          \
        size_t counts[6], nc = counts_around_piece(sizeof(T), counts);         \
        for (size_t c = 0; c < nc; c++) {                                      \
            size_t count = counts[c];                                          \
            T *in = malloc(count * sizeof(T)), *out = malloc(count * sizeof(T)); \
            CHECK_NOT_NULL(in);                                                \
            CHECK_NOT_NULL(out);                                               \
            for (size_t i = 0; i < count; i++)                                 \
                in[i] = (T)small_value(me, i);                                 \
            for (size_t o = 0; o < sizeof(float_ops) / sizeof(float_ops[0]); o++) { \
                gk_op_t op = float_ops[o];                                     \
                CHECK_OK(gk_allreduce(out, in, count, dtype, op));             \
                for (size_t i = 0; i < count; i++) {                           \
                    T want = (T)small_value(0, i);                             \
                    for (int pe = 1; pe < npes; pe++) {                        \
                        T next = (T)small_value(pe, i);                        \
                        want = op == GK_OP_SUM    ? want + next                \
                               : op == GK_OP_PROD ? want * next                \
                               : op == GK_OP_MIN  ? (next < want ? next : want) \
                                                  : (next > want ? next : want); \
                    }                                                          \
                    if (out[i] != want)                                        \
                        PE_FAIL(#name " op %d count %zu: element %zu is %Lg, expected %Lg", \
                                (int)op, count, i, (long double)out[i],        \
                                (long double)want);                            \
                }                                                              \
            }                                                                  \
            free(in);                                                          \
            free(out);                                                         \
        }                                                                      \
    }

CHECK_FLOAT_TYPE(float, float, GK_DTYPE_FLOAT)
CHECK_FLOAT_TYPE(double, double, GK_DTYPE_DOUBLE)
CHECK_FLOAT_TYPE(long double, long_double, GK_DTYPE_LONG_DOUBLE)

/* A long double sum that a double (or a truncated copy) would round. */
static void check_long_double_precision(void)
{
    if (LDBL_MANT_DIG < 64)
        return;
    long double tiny = ldexpl(1.0L, -58);
    long double in = 1.0L + tiny * (me + 1), out = 0;
    CHECK_OK(gk_allreduce(&out, &in, 1, GK_DTYPE_LONG_DOUBLE, GK_OP_SUM));
    long double want = (long double)npes + tiny * ((long double)npes * (npes + 1) / 2);
    if (out != want)
        PE_FAIL("long double sum is %.21Lg, expected %.21Lg (low bits lost)", out, want);
}

/*
 * Pairs: the value ties between PEs (three distinct values), the index is
 * not monotonic in the PE number, so the smallest index among the best
 * values is a real choice.
 */
static int pair_index(int pe, size_t i)
{
    return (int)(((npes - pe) * 5 + (int)i * 3) % 17) + (int)(i % 4) * 100 - 150;
}

static int pair_tier(int pe, size_t i)
{
    return (pe + (int)i) % 3;
}

#define CHECK_PAIR_TYPE(T, dtype, to_value)                                    \
    static void check_##T(void)                                                \
    {                                                                          \
        size_t counts[6], nc = counts_around_piece(sizeof(T), counts);         \
        for (size_t c = 0; c < nc; c++) {                                      \
            size_t count = counts[c];                                          \
            T *in = calloc(count, sizeof(T)), *out = calloc(count, sizeof(T)); \
            CHECK_NOT_NULL(in);                                                \
            CHECK_NOT_NULL(out);                                               \
            for (size_t i = 0; i < count; i++) {                               \
                in[i].value = to_value(pair_tier(me, i));                      \
                in[i].index = pair_index(me, i);                               \
            }                                                                  \
            for (int maxloc = 0; maxloc < 2; maxloc++) {                       \
                gk_op_t op = maxloc ? GK_OP_MAXLOC : GK_OP_MINLOC;             \
                CHECK_OK(gk_allreduce(out, in, count, dtype, op));             \
                for (size_t i = 0; i < count; i++) {                           \
                    int best = pair_tier(0, i), index = pair_index(0, i);      \
                    for (int pe = 1; pe < npes; pe++) {                        \
                        int t = pair_tier(pe, i), x = pair_index(pe, i);       \
                        if ((maxloc ? t > best : t < best) || (t == best && x < index)) { \
                            best = t;                                          \
                            index = x;                                         \
                        }                                                      \
                    }                                                          \
                    if (out[i].value != to_value(best) || out[i].index != index) \
                        PE_FAIL(#T " %s count %zu: element %zu is (%Lg, %d), expected " \
                                "(%Lg, %d)",                                   \
                                maxloc ? "MAXLOC" : "MINLOC", count, i,        \
                                (long double)out[i].value, out[i].index,       \
                                (long double)to_value(best), index);           \
                }                                                              \
            }                                                                  \
            free(in);                                                          \
            free(out);                                                         \
        }                                                                      \
    }

/* Tier to value: negative, spread over the type's range. */
#define FLOAT_TIER(t) (-1.5f + (float)(t) * 0.25f)
#define DOUBLE_TIER(t) (-1e300 + (double)(t) * 1e299)
#define LONG_TIER(t) ((long)(t) * (1L << 40) - 7)
#define INT_TIER(t) ((t) * 1000 - 1)
#define LONG_DOUBLE_TIER(t) (1.0L + (long double)(t) * ldexpl(1.0L, -60))

CHECK_PAIR_TYPE(gk_float_int_t, GK_DTYPE_FLOAT_INT, FLOAT_TIER)
CHECK_PAIR_TYPE(gk_double_int_t, GK_DTYPE_DOUBLE_INT, DOUBLE_TIER)
CHECK_PAIR_TYPE(gk_long_int_t, GK_DTYPE_LONG_INT, LONG_TIER)
CHECK_PAIR_TYPE(gk_2int_t, GK_DTYPE_2INT, INT_TIER)
CHECK_PAIR_TYPE(gk_long_double_int_t, GK_DTYPE_LONG_DOUBLE_INT, LONG_DOUBLE_TIER)

/*
 * Sums whose rounding depends on the order come out the same on every PE,
 * bit for bit: each PE's result, gathered with gk_collect, equals PE 0's.
 * value_bytes: the bytes of the representation that hold the value (long
 * double has padding).
 */
#define CHECK_IDENTICAL(T, dtype, value_bytes)                                 \
    do {                                                                       \
        T x = (T)1 / (T)(3 + me), sum = 0;                                     \
        for (int k = 0; k < 200; k++) {                                        \
            CHECK_OK(gk_allreduce(&sum, &x, 1, dtype, GK_OP_SUM));             \
            x += (T)1e-3 * sum;                                                \
        }                                                                      \
        T *all = calloc((size_t)npes, sizeof(T));                              \
        CHECK_NOT_NULL(all);                                                   \
        CHECK_OK(gk_collect(all, &sum, sizeof(T)));                            \
        for (int pe = 0; pe < npes; pe++)                                      \
            if (memcmp(&all[pe], &all[0], value_bytes) != 0 || all[pe] != all[0]) \
                PE_FAIL(#T " sum on PE %d is %.21Lg, on PE 0 %.21Lg", pe,      \
                        (long double)all[pe], (long double)all[0]);            \
        free(all);                                                             \
    } while (0)

static void check_identical(void)
{
    CHECK_IDENTICAL(float, GK_DTYPE_FLOAT, sizeof(float));
    CHECK_IDENTICAL(double, GK_DTYPE_DOUBLE, sizeof(double));
    CHECK_IDENTICAL(long double, GK_DTYPE_LONG_DOUBLE,
                    LDBL_MANT_DIG == 64 ? 10 : sizeof(long double));
}

/* gk_reduce to every root: the root gets what gk_allreduce gives, the
 * others' dst is NULL or left as it was. */
static void check_reduce(void)
{
    enum { COUNT = 1025 }; /* three pieces of int64 */
    int64_t in[COUNT], out[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        in[i] = small_value(me, i) * ((int64_t)1 << 40);
    for (int root = 0; root < npes; root++) {
        int null_elsewhere = root % 2 == 0;
        memset(out, 0xee, sizeof(out));
        CHECK_OK(gk_reduce(me != root && null_elsewhere ? NULL : out, in, COUNT,
                           GK_DTYPE_INT64, GK_OP_SUM, root));
        for (size_t i = 0; i < COUNT; i++) {
            int64_t want = 0;
            for (int pe = 0; pe < npes; pe++)
                want += small_value(pe, i) * ((int64_t)1 << 40);
            if (me == root)
                CHECK_EQ(out[i], want);
            else
                CHECK_EQ_U64(out[i], 0xeeeeeeeeeeeeeeeeULL);
        }
        /* In place on the root, MAXLOC of pairs. */
        gk_double_int_t pair = {DOUBLE_TIER(pair_tier(me, 0)), pair_index(me, 0)};
        CHECK_OK(gk_reduce(me == root ? &pair : NULL, &pair, 1, GK_DTYPE_DOUBLE_INT,
                           GK_OP_MAXLOC, root));
        if (me == root) {
            gk_double_int_t all;
            gk_double_int_t mine = {DOUBLE_TIER(pair_tier(me, 0)), pair_index(me, 0)};
            CHECK_OK(gk_allreduce(&all, &mine, 1, GK_DTYPE_DOUBLE_INT, GK_OP_MAXLOC));
            CHECK_TRUE(pair.value == all.value);
            CHECK_EQ(pair.index, all.index);
        } else {
            gk_double_int_t all, mine = pair;
            CHECK_OK(gk_allreduce(&all, &mine, 1, GK_DTYPE_DOUBLE_INT, GK_OP_MAXLOC));
        }
    }
    /* The same bits as the all-reduce, where the order matters. */
    double x = 1.0 / (3.0 + me), all = 0, rooted = -1;
    CHECK_OK(gk_allreduce(&all, &x, 1, GK_DTYPE_DOUBLE, GK_OP_SUM));
    CHECK_OK(gk_reduce(&rooted, &x, 1, GK_DTYPE_DOUBLE, GK_OP_SUM, npes - 1));
    if (me == npes - 1)
        CHECK_TRUE(memcmp(&rooted, &all, sizeof(double)) == 0);
    else
        CHECK_TRUE(rooted == -1);
    /* No elements: nothing to check but the call. */
    CHECK_OK(gk_reduce(NULL, NULL, 0, GK_DTYPE_INT8, GK_OP_SUM, 0));
}

/* Operations on the wrong types, and bad roots: every PE passes the same
 * arguments, so every PE reports the same error. */
static void check_errors(void)
{
    int32_t i32 = 1, o32 = 0;
    double d = 1, od = 0;
    gk_2int_t p = {1, 2}, op2 = {0, 0};
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(&op2, &p, 1, GK_DTYPE_2INT, GK_OP_SUM),
                 "gk_allreduce", "GK_OP_SUM is not valid for GK_DTYPE_2INT",
                 "pair takes only GK_OP_MINLOC or GK_OP_MAXLOC");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(&op2, &p, 1, GK_DTYPE_2INT, GK_OP_BAND), "gk_allreduce",
                 "GK_OP_BAND is not valid for GK_DTYPE_2INT");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(&o32, &i32, 1, GK_DTYPE_INT32, GK_OP_MINLOC), "gk_allreduce",
                 "GK_OP_MINLOC is not valid for GK_DTYPE_INT32", "value-index pair");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(&od, &d, 1, GK_DTYPE_DOUBLE, GK_OP_MAXLOC), "gk_allreduce",
                 "GK_OP_MAXLOC is not valid for GK_DTYPE_DOUBLE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(&od, &d, 1, GK_DTYPE_DOUBLE, GK_OP_BAND),
                 "gk_allreduce", "GK_OP_BAND is not valid for GK_DTYPE_DOUBLE",
                 "integer dtype");
    long double ld = 1, old = 0;
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(&old, &ld, 1, GK_DTYPE_LONG_DOUBLE, GK_OP_BXOR), "gk_allreduce",
                 "GK_OP_BXOR is not valid for GK_DTYPE_LONG_DOUBLE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(&o32, &i32, 1, GK_DTYPE_INT32, GK_OP_REPLACE), "gk_allreduce",
                 "GK_OP_REPLACE is not valid", "not a reduction");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(&o32, &i32, 1, GK_DTYPE_INT32, GK_OP_NO_OP), "gk_allreduce",
                 "GK_OP_NO_OP is not valid", "not a reduction");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(&o32, &i32, 1, (gk_dtype_t)16, GK_OP_SUM), "gk_allreduce",
                 "dtype 16 (not a gk_dtype_t) is not valid");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_reduce(&o32, &i32, 1, GK_DTYPE_UINT8, GK_OP_MAXLOC, 0),
                 "gk_reduce", "GK_OP_MAXLOC is not valid for GK_DTYPE_UINT8");
    CHECK_LOGGED(GK_ERR_PE, gk_reduce(&o32, &i32, 1, GK_DTYPE_INT32, GK_OP_SUM, npes),
                 "gk_reduce", pe_fmt("PE %d does not exist", npes));
    CHECK_LOGGED(GK_ERR_PE, gk_reduce(&o32, &i32, 1, GK_DTYPE_INT32, GK_OP_SUM, -1),
                 "gk_reduce", "PE -1 does not exist");
    /* The root's dst must be there; elsewhere it may be NULL. */
    if (me == 0)
        CHECK_LOGGED(GK_ERR_INVALID_ARG,
                     gk_reduce(NULL, &i32, 1, GK_DTYPE_INT32, GK_OP_SUM, 0), "gk_reduce",
                     "dst is NULL");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG,
                     gk_reduce(NULL, &i32, 1, GK_DTYPE_INT32, GK_OP_SUM, 0), "gk_reduce",
                     "another PE");
}

/* PEs that disagree: every PE gets an error, none waits for ever, and the
 * next call, in step again, is right. */
static void check_disagreements(void)
{
    if (npes < 2)
        return;
    int32_t in = me + 1, out = 0;
    int root = me == npes - 1 ? 1 : 0;
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_reduce(&out, &in, 1, GK_DTYPE_INT32, GK_OP_SUM, root), "gk_reduce",
                 "different arguments", pe_fmt("root %d", root));
    /* (One PE in gk_reduce and the others in gk_allreduce is a collective
     * mismatch: coll_mismatch_test's reduce_allreduce.) */
    /* A pair type on one PE only. */
    gk_2int_t p = {me, me}, q = {0, 0};
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(&q, &p, 1, me == 1 ? GK_DTYPE_2INT : GK_DTYPE_INT64,
                              GK_OP_MAXLOC),
                 "gk_allreduce", me == 1 ? "different arguments" : "value-index pair");
    CHECK_OK(gk_reduce(&out, &in, 1, GK_DTYPE_INT32, GK_OP_SUM, npes - 1));
    if (me == npes - 1)
        CHECK_EQ(out, npes * (npes + 1) / 2);
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    check_int8_t();
    check_int16_t();
    check_int32_t();
    check_int64_t();
    check_uint8_t();
    check_uint16_t();
    check_uint32_t();
    check_uint64_t();
    check_float();
    check_double();
    check_long_double();
    check_long_double_precision();
    check_gk_float_int_t();
    check_gk_double_int_t();
    check_gk_long_int_t();
    check_gk_2int_t();
    check_gk_long_double_int_t();
    check_identical();
    check_reduce();
    check_errors();
    check_disagreements();
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_finalize());
    return 0;
}

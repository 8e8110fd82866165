/*
 * team_red.h: reductions computed here, to check the team reductions
 * against. A case is an element type and an operation; element k of what
 * world PE `pe` contributes under `seed` is red_value(), and red_combine()
 * folds one element into another as the library must. Every value is
 * chosen so that any order of combination gives the same bits: integers
 * wrap (unsigned arithmetic), floating-point values are small integers,
 * MINLOC/MAXLOC tie often in value (the smaller index wins).
 */
#ifndef GK_TESTS_TEAM_RED_H
#define GK_TESTS_TEAM_RED_H

#include <string.h>

#include "pe_check.h"

struct red_case {
    const char *name;
    gk_dtype_t dtype;
    gk_op_t op;
    size_t elem;
};

#define RED_CASE(dtype, op, ctype) {#dtype " " #op, GK_DTYPE_##dtype, GK_OP_##op, sizeof(ctype)}

static const struct red_case RED_INT32_SUM = RED_CASE(INT32, SUM, int32_t);
static const struct red_case RED_INT32_MAX = RED_CASE(INT32, MAX, int32_t);
static const struct red_case RED_INT64_SUM = RED_CASE(INT64, SUM, int64_t);
static const struct red_case RED_INT64_MIN = RED_CASE(INT64, MIN, int64_t);
static const struct red_case RED_INT64_MAX = RED_CASE(INT64, MAX, int64_t);
static const struct red_case RED_UINT64_BXOR = RED_CASE(UINT64, BXOR, uint64_t);
static const struct red_case RED_UINT64_BOR = RED_CASE(UINT64, BOR, uint64_t);
static const struct red_case RED_UINT8_SUM = RED_CASE(UINT8, SUM, uint8_t);
static const struct red_case RED_UINT32_PROD = RED_CASE(UINT32, PROD, uint32_t);
static const struct red_case RED_INT16_BAND = RED_CASE(INT16, BAND, int16_t);
static const struct red_case RED_DOUBLE_SUM = RED_CASE(DOUBLE, SUM, double);
static const struct red_case RED_DOUBLE_MAX = RED_CASE(DOUBLE, MAX, double);
static const struct red_case RED_FLOAT_MIN = RED_CASE(FLOAT, MIN, float);
static const struct red_case RED_DOUBLE_INT_MAXLOC = RED_CASE(DOUBLE_INT, MAXLOC, gk_double_int_t);
static const struct red_case RED_2INT_MINLOC = RED_CASE(2INT, MINLOC, gk_2int_t);

static inline uint64_t red_mix(uint64_t x)
{
    x = 0x9e3779b97f4a7c15ULL * (x + 1);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    return x ^ (x >> 32);
}

/* Element k of world PE pe's contribution, written to out. */
static inline void red_value(const struct red_case *c, int pe, unsigned seed, size_t k,
                             void *out)
{
    uint64_t p = (uint64_t)pe, s = seed, kk = k;
    switch (c->dtype) {
    case GK_DTYPE_INT32: {
        int32_t v = (int32_t)((p * 7 + kk * 3 + s * 5) % 11) - 4;
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_INT64: {
        int64_t v = (int64_t)((p * 1000003 + kk * 7919 + s) % 2001) - 1000;
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_UINT64: {
        uint64_t v = red_mix(p * 1000003 + kk * 31 + s * 7);
        if (c->op == GK_OP_BOR)
            v = 1ULL << (v % 64);
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_UINT8: {
        uint8_t v = (uint8_t)(p * 13 + kk * 7 + s);
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_UINT32: {
        uint32_t v = (uint32_t)(1 + (p + kk + s) % 3);
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_INT16: {
        int16_t v = (int16_t)(uint16_t) ~(1u << ((p * 5 + kk + s) % 16));
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_DOUBLE: {
        double v = (double)((int64_t)((p * 131 + kk * 17 + s) % 4001) - 2000);
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_FLOAT: {
        float v = (float)((int64_t)((p * 37 + kk * 11 + s) % 201) - 100);
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_DOUBLE_INT: {
        gk_double_int_t v;
        memset(&v, 0, sizeof(v));
        v.value = (double)((p + kk + s) % 3);
        v.index = (int)((p * 5 + kk) % 7);
        memcpy(out, &v, sizeof(v));
        break;
    }
    case GK_DTYPE_2INT: {
        gk_2int_t v = {(int)((kk + s + p * 2) % 4), (int)(p + kk % 2)};
        memcpy(out, &v, sizeof(v));
        break;
    }
    default:
        PE_FAIL("red_value: no values for %s", c->name);
    }
}

/* count elements from element `first` of world PE pe's contribution. */
static inline void red_fill(const struct red_case *c, void *buf, int pe, unsigned seed,
                            size_t first, size_t count)
{
    unsigned char *b = buf;
    for (size_t k = 0; k < count; k++)
        red_value(c, pe, seed, first + k, b + k * c->elem);
}

#define RED_ARITH(T, U)                                                                  \
    do {                                                                                 \
        T a_, b_;                                                                        \
        memcpy(&a_, acc, sizeof(T));                                                     \
        memcpy(&b_, in, sizeof(T));                                                      \
        switch (c->op) {                                                                 \
        case GK_OP_SUM:                                                                  \
            a_ = (T)((U)a_ + (U)b_);                                                     \
            break;                                                                       \
        case GK_OP_PROD:                                                                 \
            a_ = (T)((U)a_ * (U)b_);                                                     \
            break;                                                                       \
        case GK_OP_MIN:                                                                  \
            a_ = b_ < a_ ? b_ : a_;                                                      \
            break;                                                                       \
        case GK_OP_MAX:                                                                  \
            a_ = b_ > a_ ? b_ : a_;                                                      \
            break;                                                                       \
        default:                                                                         \
            PE_FAIL("red_combine: no %s", c->name);                                      \
        }                                                                                \
        memcpy(acc, &a_, sizeof(T));                                                     \
    } while (0)

#define RED_BITS(T)                                                                      \
    do {                                                                                 \
        T a_, b_;                                                                        \
        memcpy(&a_, acc, sizeof(T));                                                     \
        memcpy(&b_, in, sizeof(T));                                                      \
        if (c->op == GK_OP_BAND)                                                         \
            a_ = (T)(a_ & b_);                                                           \
        else if (c->op == GK_OP_BOR)                                                     \
            a_ = (T)(a_ | b_);                                                           \
        else                                                                             \
            a_ = (T)(a_ ^ b_);                                                           \
        memcpy(acc, &a_, sizeof(T));                                                     \
    } while (0)

#define RED_LOC(T)                                                                       \
    do {                                                                                 \
        T a_, b_;                                                                        \
        memcpy(&a_, acc, sizeof(T));                                                     \
        memcpy(&b_, in, sizeof(T));                                                      \
        int better_ = c->op == GK_OP_MAXLOC ? b_.value > a_.value : b_.value < a_.value; \
        if (better_ || (b_.value == a_.value && b_.index < a_.index))                    \
            a_ = b_;                                                                     \
        memcpy(acc, &a_, sizeof(T));                                                     \
    } while (0)

/* acc = acc op in, one element. */
static inline void red_combine1(const struct red_case *c, void *acc, const void *in)
{
    int bits = c->op == GK_OP_BAND || c->op == GK_OP_BOR || c->op == GK_OP_BXOR;
    switch (c->dtype) {
    case GK_DTYPE_INT32:
        if (bits)
            RED_BITS(uint32_t);
        else
            RED_ARITH(int32_t, uint32_t);
        break;
    case GK_DTYPE_INT64:
        if (bits)
            RED_BITS(uint64_t);
        else
            RED_ARITH(int64_t, uint64_t);
        break;
    case GK_DTYPE_UINT64:
        if (bits)
            RED_BITS(uint64_t);
        else
            RED_ARITH(uint64_t, uint64_t);
        break;
    case GK_DTYPE_UINT8:
        if (bits)
            RED_BITS(uint8_t);
        else
            RED_ARITH(uint8_t, unsigned);
        break;
    case GK_DTYPE_UINT32:
        if (bits)
            RED_BITS(uint32_t);
        else
            RED_ARITH(uint32_t, uint32_t);
        break;
    case GK_DTYPE_INT16:
        if (bits)
            RED_BITS(uint16_t);
        else
            RED_ARITH(int16_t, unsigned);
        break;
    case GK_DTYPE_DOUBLE:
        RED_ARITH(double, double);
        break;
    case GK_DTYPE_FLOAT:
        RED_ARITH(float, float);
        break;
    case GK_DTYPE_DOUBLE_INT:
        RED_LOC(gk_double_int_t);
        break;
    case GK_DTYPE_2INT:
        RED_LOC(gk_2int_t);
        break;
    default:
        PE_FAIL("red_combine: no %s", c->name);
    }
}

/*
 * The reference: elements first .. first + count - 1 of the contributions of
 * world PEs pes[0 .. npes - 1] combined, into out (tmp: count elements of
 * scratch).
 */
static inline void red_reference(const struct red_case *c, void *out, void *tmp,
                                 const int *pes, int npes, unsigned seed, size_t first,
                                 size_t count)
{
    unsigned char *o = out, *t = tmp;
    red_fill(c, out, pes[0], seed, first, count);
    for (int j = 1; j < npes; j++) {
        red_fill(c, tmp, pes[j], seed, first, count);
        for (size_t k = 0; k < count; k++)
            red_combine1(c, o + k * c->elem, t + k * c->elem);
    }
}

/* Element k as text, for failure messages. */
static inline const char *red_format(const struct red_case *c, const void *elem)
{
    union {
        int32_t i32;
        int64_t i64;
        uint64_t u64;
        uint8_t u8;
        uint32_t u32;
        int16_t i16;
        double d;
        float f;
        gk_double_int_t di;
        gk_2int_t ii;
    } v;
    memcpy(&v, elem, c->elem);
    switch (c->dtype) {
    case GK_DTYPE_INT32:
        return pe_fmt("%d", (int)v.i32);
    case GK_DTYPE_INT64:
        return pe_fmt("%lld", (long long)v.i64);
    case GK_DTYPE_UINT64:
        return pe_fmt("0x%llx", (unsigned long long)v.u64);
    case GK_DTYPE_UINT8:
        return pe_fmt("%u", (unsigned)v.u8);
    case GK_DTYPE_UINT32:
        return pe_fmt("%u", (unsigned)v.u32);
    case GK_DTYPE_INT16:
        return pe_fmt("%d", (int)v.i16);
    case GK_DTYPE_DOUBLE:
        return pe_fmt("%.17g", v.d);
    case GK_DTYPE_FLOAT:
        return pe_fmt("%.9g", (double)v.f);
    case GK_DTYPE_DOUBLE_INT:
        return pe_fmt("{%.17g, %d}", v.di.value, v.di.index);
    case GK_DTYPE_2INT:
        return pe_fmt("{%d, %d}", v.ii.value, v.ii.index);
    default:
        return "?";
    }
}

/* Element-wise equality (the pair types' padding is not compared). */
static inline int red_equal(const struct red_case *c, const void *a, const void *b)
{
    if (c->dtype == GK_DTYPE_DOUBLE_INT) {
        gk_double_int_t x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        return memcmp(&x.value, &y.value, sizeof(x.value)) == 0 && x.index == y.index;
    }
    return memcmp(a, b, c->elem) == 0;
}

/* got == expected, count elements; on a failure, says which element and
 * what was being checked (a printf format and its arguments). */
#define CHECK_RED(c, got, expected, count, ...)                                          \
    do {                                                                                 \
        const unsigned char *g_ = (const void *)(got);                                   \
        const unsigned char *e_ = (const void *)(expected);                              \
        for (size_t k_ = 0; k_ < (count); k_++)                                          \
            if (!red_equal((c), g_ + k_ * (c)->elem, e_ + k_ * (c)->elem)) {             \
                char what_[256];                                                         \
                snprintf(what_, sizeof(what_), __VA_ARGS__);                             \
                PE_FAIL("%s, %s: element %zu of %zu is %s, expected %s", what_,          \
                        (c)->name, k_, (size_t)(count),                                  \
                        red_format((c), g_ + k_ * (c)->elem),                            \
                        red_format((c), e_ + k_ * (c)->elem));                           \
            }                                                                            \
    } while (0)

#endif /* GK_TESTS_TEAM_RED_H */

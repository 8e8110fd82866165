/*
 * reduce_op.c: the element-wise kernels of the reductions, one loop per
 * (type, operation) so the compiler can vectorise each, and the check of
 * which operations go with which types.
 */
#include "coll/reduce_op.h"

#include <stdint.h>

#include "base/log.h"
#include "base/names.h"

size_t gk__reduce_dtype_size(gk_dtype_t dtype)
{
    switch (dtype) {
    case GK_DTYPE_INT8:
    case GK_DTYPE_UINT8:
        return 1;
    case GK_DTYPE_INT16:
    case GK_DTYPE_UINT16:
        return 2;
    case GK_DTYPE_INT32:
    case GK_DTYPE_UINT32:
        return 4;
    case GK_DTYPE_INT64:
    case GK_DTYPE_UINT64:
        return 8;
    case GK_DTYPE_FLOAT:
        return sizeof(float);
    case GK_DTYPE_DOUBLE:
        return sizeof(double);
    case GK_DTYPE_LONG_DOUBLE:
        return sizeof(long double);
    case GK_DTYPE_FLOAT_INT:
        return sizeof(gk_float_int_t);
    case GK_DTYPE_DOUBLE_INT:
        return sizeof(gk_double_int_t);
    case GK_DTYPE_LONG_INT:
        return sizeof(gk_long_int_t);
    case GK_DTYPE_2INT:
        return sizeof(gk_2int_t);
    case GK_DTYPE_LONG_DOUBLE_INT:
        return sizeof(gk_long_double_int_t);
    }
    return 0;
}

static int dtype_is_integer(gk_dtype_t dtype)
{
    switch (dtype) {
    case GK_DTYPE_INT8:
    case GK_DTYPE_INT16:
    case GK_DTYPE_INT32:
    case GK_DTYPE_INT64:
    case GK_DTYPE_UINT8:
    case GK_DTYPE_UINT16:
    case GK_DTYPE_UINT32:
    case GK_DTYPE_UINT64:
        return 1;
    default:
        return 0;
    }
}

static int dtype_is_pair(gk_dtype_t dtype)
{
    return dtype >= GK_DTYPE_FLOAT_INT && dtype <= GK_DTYPE_LONG_DOUBLE_INT;
}

int gk__reduce_check(const char *call, gk_dtype_t dtype, gk_op_t op)
{
    const char *why = NULL;
    int loc = op == GK_OP_MINLOC || op == GK_OP_MAXLOC;
    int bitwise = op == GK_OP_BAND || op == GK_OP_BOR || op == GK_OP_BXOR;
    int arith = op == GK_OP_SUM || op == GK_OP_MIN || op == GK_OP_MAX || op == GK_OP_PROD;
    if (gk__reduce_dtype_size(dtype) == 0) {
        gk__error("%s: %s is not valid", call, GK__DTYPE_STR(dtype));
        return GK_ERR_INVALID_ARG;
    }
    if (!loc && !bitwise && !arith)
        why = "it is not a reduction (GK_OP_SUM, MIN, MAX, PROD, BAND, BOR, BXOR, MINLOC, "
              "MAXLOC)";
    else if (dtype_is_pair(dtype) && !loc)
        why = "a value-index pair takes only GK_OP_MINLOC or GK_OP_MAXLOC";
    else if (loc && !dtype_is_pair(dtype))
        why = "MINLOC/MAXLOC need a value-index pair (GK_DTYPE_FLOAT_INT .. "
              "GK_DTYPE_LONG_DOUBLE_INT)";
    else if (bitwise && !dtype_is_integer(dtype))
        why = "bitwise operations need an integer dtype";
    if (why != NULL) {
        gk__error("%s: %s is not valid for %s: %s", call, GK__OP_STR(op), GK__DTYPE_STR(dtype),
                  why);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

/*
 * Sum and product wrap in the unsigned twin type (signed overflow is UB);
 * types narrower than int use unsigned int, as they would be promoted to
 * int, where a product of two 16-bit values can overflow.
 */
#define ARITH_LOOPS(T, U)                                                      \
    case GK_OP_SUM:                                                            \
        for (size_t i = 0; i < count; i++)                                     \
            o_[i] = (T)((U)a_[i] + (U)b_[i]);                                  \
        break;                                                                 \
    case GK_OP_PROD:                                                           \
        for (size_t i = 0; i < count; i++)                                     \
            o_[i] = (T)((U)a_[i] * (U)b_[i]);                                  \
        break;                                                                 \
    case GK_OP_MIN:                                                            \
        for (size_t i = 0; i < count; i++)                                     \
            o_[i] = b_[i] < a_[i] ? b_[i] : a_[i];                             \
        break;                                                                 \
    case GK_OP_MAX:                                                            \
        for (size_t i = 0; i < count; i++)                                     \
            o_[i] = b_[i] > a_[i] ? b_[i] : a_[i];                             \
        break;

#define BITWISE_LOOPS(T)                                                       \
    case GK_OP_BAND:                                                           \
        for (size_t i = 0; i < count; i++)                                     \
            o_[i] = (T)(a_[i] & b_[i]);                                        \
        break;                                                                 \
    case GK_OP_BOR:                                                            \
        for (size_t i = 0; i < count; i++)                                     \
            o_[i] = (T)(a_[i] | b_[i]);                                        \
        break;                                                                 \
    case GK_OP_BXOR:                                                           \
        for (size_t i = 0; i < count; i++)                                     \
            o_[i] = (T)(a_[i] ^ b_[i]);                                        \
        break;

#define INTEGER_KERNEL(T, U)                                                   \
    do {                                                                       \
        T *o_ = out;                                                           \
        const T *a_ = lower, *b_ = upper;                                      \
        switch (op) {                                                          \
            ARITH_LOOPS(T, U)                                                  \
            BITWISE_LOOPS(T)                                                   \
        default: /* gk__reduce_check rejected it */                            \
            break;                                                             \
        }                                                                      \
    } while (0)

#define FLOAT_KERNEL(T)                                                        \
    do {                                                                       \
        T *o_ = out;                                                           \
        const T *a_ = lower, *b_ = upper;                                      \
        switch (op) {                                                          \
            ARITH_LOOPS(T, T)                                                  \
        default:                                                               \
            break;                                                             \
        }                                                                      \
    } while (0)

/*
 * MINLOC/MAXLOC, MPI's definition: the better value wins with its index;
 * equal values keep the smaller index. Each element is read whole before
 * it is written, as out may alias an input.
 */
#define LOC_KERNEL(T)                                                          \
    do {                                                                       \
        T *o_ = out;                                                           \
        const T *a_ = lower, *b_ = upper;                                      \
        int max_ = op == GK_OP_MAXLOC;                                         \
        for (size_t i = 0; i < count; i++) {                                   \
            T a = a_[i], b = b_[i];                                            \
            if (a.value == b.value) {                                          \
                if (b.index < a.index)                                         \
                    a.index = b.index;                                         \
            } else if (max_ ? b.value > a.value : b.value < a.value) {         \
                a = b;                                                         \
            }                                                                  \
            o_[i] = a;                                                         \
        }                                                                      \
    } while (0)

void gk__reduce_apply(void *out, const void *lower, const void *upper, size_t count,
                      gk_dtype_t dtype, gk_op_t op)
{
    switch (dtype) {
    case GK_DTYPE_INT8:
        INTEGER_KERNEL(int8_t, unsigned);
        break;
    case GK_DTYPE_INT16:
        INTEGER_KERNEL(int16_t, unsigned);
        break;
    case GK_DTYPE_INT32:
        INTEGER_KERNEL(int32_t, uint32_t);
        break;
    case GK_DTYPE_INT64:
        INTEGER_KERNEL(int64_t, uint64_t);
        break;
    case GK_DTYPE_UINT8:
        INTEGER_KERNEL(uint8_t, unsigned);
        break;
    case GK_DTYPE_UINT16:
        INTEGER_KERNEL(uint16_t, unsigned);
        break;
    case GK_DTYPE_UINT32:
        INTEGER_KERNEL(uint32_t, uint32_t);
        break;
    case GK_DTYPE_UINT64:
        INTEGER_KERNEL(uint64_t, uint64_t);
        break;
    case GK_DTYPE_FLOAT:
        FLOAT_KERNEL(float);
        break;
    case GK_DTYPE_DOUBLE:
        FLOAT_KERNEL(double);
        break;
    case GK_DTYPE_LONG_DOUBLE:
        FLOAT_KERNEL(long double);
        break;
    case GK_DTYPE_FLOAT_INT:
        LOC_KERNEL(gk_float_int_t);
        break;
    case GK_DTYPE_DOUBLE_INT:
        LOC_KERNEL(gk_double_int_t);
        break;
    case GK_DTYPE_LONG_INT:
        LOC_KERNEL(gk_long_int_t);
        break;
    case GK_DTYPE_2INT:
        LOC_KERNEL(gk_2int_t);
        break;
    case GK_DTYPE_LONG_DOUBLE_INT:
        LOC_KERNEL(gk_long_double_int_t);
        break;
    }
}

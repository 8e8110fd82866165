/*
 * reduce_op.c: the element-wise kernels of the reductions, one loop per
 * (type, operation) so the compiler can vectorise each.
 */
#include "coll/reduce_op.h"

#include <stdint.h>

size_t gk__reduce_dtype_size(gk_dtype_t dtype)
{
    switch (dtype) {
    case GK_DTYPE_INT32:
        return sizeof(int32_t);
    case GK_DTYPE_INT64:
        return sizeof(int64_t);
    case GK_DTYPE_FLOAT:
        return sizeof(float);
    case GK_DTYPE_DOUBLE:
        return sizeof(double);
    case GK_DTYPE_UINT64:
        return sizeof(uint64_t);
    }
    return 0;
}

/* Sum and product wrap in the unsigned twin type (signed overflow is UB). */
#define REDUCE_LOOPS(T, U)                                                     \
    do {                                                                       \
        T *o_ = out;                                                           \
        const T *a_ = lower, *b_ = upper;                                      \
        switch (op) {                                                          \
        case GK_OP_SUM:                                                        \
            for (size_t i = 0; i < count; i++)                                 \
                o_[i] = (T)((U)a_[i] + (U)b_[i]);                              \
            break;                                                             \
        case GK_OP_PROD:                                                       \
            for (size_t i = 0; i < count; i++)                                 \
                o_[i] = (T)((U)a_[i] * (U)b_[i]);                              \
            break;                                                             \
        case GK_OP_MIN:                                                        \
            for (size_t i = 0; i < count; i++)                                 \
                o_[i] = b_[i] < a_[i] ? b_[i] : a_[i];                         \
            break;                                                             \
        case GK_OP_MAX:                                                        \
            for (size_t i = 0; i < count; i++)                                 \
                o_[i] = b_[i] > a_[i] ? b_[i] : a_[i];                         \
            break;                                                             \
        default: /* the window-only operations: callers reject them */        \
            break;                                                             \
        }                                                                      \
    } while (0)

void gk__reduce_apply(void *out, const void *lower, const void *upper, size_t count,
                      gk_dtype_t dtype, gk_op_t op)
{
    switch (dtype) {
    case GK_DTYPE_INT32:
        REDUCE_LOOPS(int32_t, uint32_t);
        break;
    case GK_DTYPE_INT64:
        REDUCE_LOOPS(int64_t, uint64_t);
        break;
    case GK_DTYPE_FLOAT:
        REDUCE_LOOPS(float, float);
        break;
    case GK_DTYPE_DOUBLE:
        REDUCE_LOOPS(double, double);
        break;
    case GK_DTYPE_UINT64:
        REDUCE_LOOPS(uint64_t, uint64_t);
        break;
    }
}

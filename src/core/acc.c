/*
 * acc.c: accumulates element by element, for windows (win/win_acc.c,
 * win/win_typed.c) and typed accumulates on the heap (dtype/typed_acc.c).
 * Each element is one atomic operation through the target's transport:
 * the operations the transport has natively (integer add, and, or, xor,
 * swap, fetch) go straight through, the others (min, max, product, and
 * everything on floating point) are a compare-and-swap loop on the
 * element's bits. So accumulates are atomic per element against each
 * other and against the gk_atomic_* calls, and the one atomicity domain
 * per word of docs/ARCHITECTURE.md holds: nothing touches a word with a
 * CPU atomic behind the transport's back.
 */
#include <stdatomic.h>
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "core/acc.h"
#include "core/path.h"

/*
 * The element width of the types the transports' 4- and 8-byte atomics
 * cover, or 0: the narrower integers, long double and the value-index
 * pairs of the reductions are not accumulate types.
 */
size_t gk__acc_dtype_width(gk_dtype_t dtype)
{
    switch (dtype) {
    case GK_DTYPE_INT32:
    case GK_DTYPE_UINT32:
    case GK_DTYPE_FLOAT:
        return 4;
    case GK_DTYPE_INT64:
    case GK_DTYPE_UINT64:
    case GK_DTYPE_DOUBLE:
        return 8;
    default:
        return 0;
    }
}

int gk__acc_dtype_is_integer(gk_dtype_t dtype)
{
    return dtype == GK_DTYPE_INT32 || dtype == GK_DTYPE_UINT32 || dtype == GK_DTYPE_INT64 ||
           dtype == GK_DTYPE_UINT64;
}

/* Unknown or not an accumulate type, said so (the reductions take more types). */
int gk__acc_report_dtype(const char *call, gk_dtype_t dtype, int integer_only)
{
    if (gk__dtype_name((int)dtype) == NULL)
        gk__error("%s: %s is not valid", call, GK__DTYPE_STR(dtype));
    else if (integer_only)
        gk__error("%s: %s is not an integer accumulate type (GK_DTYPE_INT32, GK_DTYPE_UINT32, "
                  "GK_DTYPE_INT64, GK_DTYPE_UINT64)",
                  call, GK__DTYPE_STR(dtype));
    else
        gk__error("%s: %s is not an accumulate type (GK_DTYPE_INT32, GK_DTYPE_UINT32, "
                  "GK_DTYPE_INT64, GK_DTYPE_UINT64, GK_DTYPE_FLOAT, GK_DTYPE_DOUBLE)",
                  call, GK__DTYPE_STR(dtype));
    return GK_ERR_INVALID_ARG;
}

/* Checks dtype and op for an accumulate (no_op_ok: the fetching forms). */
int gk__acc_check_dtype_op(const char *call, gk_dtype_t dtype, gk_op_t op,
                          int no_op_ok)
{
    if (gk__acc_dtype_width(dtype) == 0)
        return gk__acc_report_dtype(call, dtype, 0);
    if ((unsigned)op > GK_OP_NO_OP || (op == GK_OP_NO_OP && !no_op_ok)) {
        gk__error("%s: %s is not valid here%s", call, GK__OP_STR(op),
                  op == GK_OP_NO_OP ? " (only where the call fetches)" : "");
        return GK_ERR_INVALID_ARG;
    }
    if ((op == GK_OP_BAND || op == GK_OP_BOR || op == GK_OP_BXOR) &&
        !gk__acc_dtype_is_integer(dtype)) {
        gk__error("%s: %s is not valid for %s (bitwise operations need an integer dtype)",
                  call, GK__OP_STR(op), GK__DTYPE_STR(dtype));
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

#define COMBINE(T, U)                                                          \
    do {                                                                       \
        T a_, b_, r_;                                                          \
        memcpy(&a_, &old, sizeof(T));                                          \
        memcpy(&b_, &operand, sizeof(T));                                      \
        switch (op) {                                                          \
        case GK_OP_SUM:                                                        \
            r_ = (T)((U)a_ + (U)b_);                                           \
            break;                                                             \
        case GK_OP_PROD:                                                       \
            r_ = (T)((U)a_ * (U)b_);                                           \
            break;                                                             \
        case GK_OP_MIN:                                                        \
            r_ = b_ < a_ ? b_ : a_;                                            \
            break;                                                             \
        case GK_OP_MAX:                                                        \
            r_ = b_ > a_ ? b_ : a_;                                            \
            break;                                                             \
        default: /* REPLACE; the bitwise ops never get here */                 \
            r_ = b_;                                                           \
            break;                                                             \
        }                                                                      \
        uint64_t bits_ = 0;                                                    \
        memcpy(&bits_, &r_, sizeof(T));                                        \
        return bits_;                                                          \
    } while (0)

/* Inline into the loops of gk__acc_blocks_mapped: a call per element
 * costs as much as its compare-and-swap. */
static inline __attribute__((always_inline)) uint64_t combine(gk_dtype_t dtype, gk_op_t op,
                                                              uint64_t old, uint64_t operand)
{
    switch (dtype) {
    case GK_DTYPE_INT32:
        COMBINE(int32_t, uint32_t);
    case GK_DTYPE_UINT32:
        COMBINE(uint32_t, uint32_t);
    case GK_DTYPE_INT64:
        COMBINE(int64_t, uint64_t);
    case GK_DTYPE_UINT64:
        COMBINE(uint64_t, uint64_t);
    case GK_DTYPE_FLOAT:
        COMBINE(float, float);
    case GK_DTYPE_DOUBLE:
        COMBINE(double, double);
    default: /* not an accumulate type: rejected before */
        break;
    }
    return operand;
}

uint64_t gk__acc_combine(gk_dtype_t dtype, gk_op_t op, uint64_t old, uint64_t operand)
{
    return combine(dtype, op, old, operand);
}

/* The transport operation that does `op` natively on dtype, or -1. */
static int native_amo(gk_dtype_t dtype, gk_op_t op)
{
    if (op == GK_OP_NO_OP)
        return GK__AMO_FETCH;
    if (op == GK_OP_REPLACE)
        return GK__AMO_SWAP;
    if (!gk__acc_dtype_is_integer(dtype))
        return -1;
    switch (op) {
    case GK_OP_SUM:
        return GK__AMO_FETCH_ADD;
    case GK_OP_BAND:
        return GK__AMO_FETCH_AND;
    case GK_OP_BOR:
        return GK__AMO_FETCH_OR;
    case GK_OP_BXOR:
        return GK__AMO_FETCH_XOR;
    default:
        return -1;
    }
}

/* One element: *old_p = the old bits, the element = old op operand. */
int gk__acc_element_op(int pe, size_t offset, gk_dtype_t dtype, gk_op_t op,
                      uint64_t operand, uint64_t *old_p)
{
    size_t width = gk__acc_dtype_width(dtype);
    int amo = native_amo(dtype, op);
    if (amo >= 0)
        return gk__path_atomic(pe, (enum gk__amo_op)amo, width, offset, operand, 0, old_p);
    uint64_t old = 0, seen = 0;
    int status = gk__path_atomic(pe, GK__AMO_FETCH, width, offset, 0, 0, &old);
    while (status == GK_OK) {
        uint64_t desired = gk__acc_combine(dtype, op, old, operand);
        status = gk__path_atomic(pe, GK__AMO_CSWAP, width, offset, desired, old, &seen);
        if (status == GK_OK && seen == old)
            break;
        old = seen;
    }
    *old_p = old;
    return status;
}

/*
 * One element of a run, straight on the mapped word with the CPU's
 * atomics (the instructions the shm transport's atomics use, so the
 * atomicity domain is the same): the native operation where there is
 * one, else a compare-and-swap loop.
 */
#define MAPPED_ELEMENT(T)                                                      \
    do {                                                                       \
        _Atomic T *w_ = (_Atomic T *)word;                                     \
        T v_ = (T)operand;                                                     \
        switch (amo) {                                                         \
        case GK__AMO_FETCH_ADD:                                                \
            atomic_fetch_add(w_, v_);                                          \
            break;                                                             \
        case GK__AMO_FETCH_AND:                                                \
            atomic_fetch_and(w_, v_);                                          \
            break;                                                             \
        case GK__AMO_FETCH_OR:                                                 \
            atomic_fetch_or(w_, v_);                                           \
            break;                                                             \
        case GK__AMO_FETCH_XOR:                                                \
            atomic_fetch_xor(w_, v_);                                          \
            break;                                                             \
        case GK__AMO_SWAP: /* a store is atomic; ordered by the wake-up check */ \
            atomic_store_explicit(w_, v_, memory_order_relaxed);               \
            break;                                                             \
        default: {                                                             \
            T old_ = atomic_load_explicit(w_, memory_order_relaxed);          \
            while (!atomic_compare_exchange_weak(                              \
                w_, &old_, (T)combine(dtype, op, old_, operand)))              \
                ;                                                              \
        }                                                                      \
        }                                                                      \
    } while (0)

void gk__acc_blocks_mapped(char *target, int64_t target_stride, const char *operands,
                           int64_t operand_stride, uint64_t k, size_t len, gk_dtype_t dtype,
                           gk_op_t op)
{
    size_t width = gk__acc_dtype_width(dtype);
    int amo = native_amo(dtype, op);
    for (uint64_t b = 0; b < k; b++) {
        char *block = target + (int64_t)b * target_stride;
        const char *from = operands + (int64_t)b * operand_stride;
        for (size_t i = 0; i < len; i += width) {
            char *word = block + i;
            uint64_t operand = 0;
            memcpy(&operand, from + i, width);
            if (width == 4)
                MAPPED_ELEMENT(uint32_t);
            else
                MAPPED_ELEMENT(uint64_t);
        }
    }
}

/*
 * A mapped peer's atomics made its wake-up check; a peer reached through
 * its transport is owed one, made with the flush that completes the
 * operation, as for a put (core/path.h).
 */
void gk__acc_wake_owed(int pe, size_t offset, size_t nbytes)
{
    if (!gk__path_mapped(pe))
        gk__path_defer_wake(pe, offset, offset + nbytes);
}


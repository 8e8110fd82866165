/*
 * win_acc.c: accumulate, get-accumulate, fetch-and-op and compare-and-swap
 * on windows. Each element is one atomic operation through the target's
 * transport: the operations the transport has natively (integer add, and,
 * or, xor, swap, fetch) go straight through, the others (min, max, product,
 * and everything on floating point) are a compare-and-swap loop on the
 * element's bits. So accumulates are atomic per element against each other
 * and against the gk_atomic_* calls, and the one atomicity domain per word
 * of docs/ARCHITECTURE.md holds: nothing touches a window word with a CPU
 * atomic behind the transport's back.
 */
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "core/xfer.h"
#include "dtype/flat.h"
#include "win/win.h"

/*
 * The element width of the types the transports' 4- and 8-byte atomics
 * cover, or 0: the narrower integers, long double and the value-index
 * pairs of the reductions are not window types.
 */
size_t gk__win_dtype_width(gk_dtype_t dtype)
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

static int dtype_is_integer(gk_dtype_t dtype)
{
    return dtype == GK_DTYPE_INT32 || dtype == GK_DTYPE_UINT32 || dtype == GK_DTYPE_INT64 ||
           dtype == GK_DTYPE_UINT64;
}

/* Unknown or not a window type, said so (the reductions take more types). */
static int report_dtype(const char *call, gk_dtype_t dtype, int integer_only)
{
    if (gk__dtype_name((int)dtype) == NULL)
        gk__error("%s: %s is not valid", call, GK__DTYPE_STR(dtype));
    else if (integer_only)
        gk__error("%s: %s is not an integer window type (GK_DTYPE_INT32, GK_DTYPE_UINT32, "
                  "GK_DTYPE_INT64, GK_DTYPE_UINT64)",
                  call, GK__DTYPE_STR(dtype));
    else
        gk__error("%s: %s is not supported on windows (GK_DTYPE_INT32, GK_DTYPE_UINT32, "
                  "GK_DTYPE_INT64, GK_DTYPE_UINT64, GK_DTYPE_FLOAT, GK_DTYPE_DOUBLE)",
                  call, GK__DTYPE_STR(dtype));
    return GK_ERR_INVALID_ARG;
}

/* Checks dtype and op for an accumulate (no_op_ok: the fetching forms). */
int gk__win_check_dtype_op(const char *op_name_call, gk_dtype_t dtype, gk_op_t op,
                          int no_op_ok)
{
    if (gk__win_dtype_width(dtype) == 0)
        return report_dtype(op_name_call, dtype, 0);
    if ((unsigned)op > GK_OP_NO_OP || (op == GK_OP_NO_OP && !no_op_ok)) {
        gk__error("%s: %s is not valid here%s", op_name_call, GK__OP_STR(op),
                  op == GK_OP_NO_OP ? " (only where the call fetches)" : "");
        return GK_ERR_INVALID_ARG;
    }
    if ((op == GK_OP_BAND || op == GK_OP_BOR || op == GK_OP_BXOR) &&
        !dtype_is_integer(dtype)) {
        gk__error("%s: %s is not valid for %s (bitwise operations need an integer dtype)",
                  op_name_call, GK__OP_STR(op), GK__DTYPE_STR(dtype));
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

/* The new bits of an element: old op operand (both in the low bits). */
uint64_t gk__win_combine(gk_dtype_t dtype, gk_op_t op, uint64_t old, uint64_t operand)
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
    default: /* not a window type: rejected before */
        break;
    }
    return operand;
}

/* The transport operation that does `op` natively on dtype, or -1. */
static int native_amo(gk_dtype_t dtype, gk_op_t op)
{
    if (op == GK_OP_NO_OP)
        return GK__AMO_FETCH;
    if (op == GK_OP_REPLACE)
        return GK__AMO_SWAP;
    if (!dtype_is_integer(dtype))
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
int gk__win_element_op(int pe, size_t offset, gk_dtype_t dtype, gk_op_t op,
                      uint64_t operand, uint64_t *old_p)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    size_t width = gk__win_dtype_width(dtype);
    int amo = native_amo(dtype, op);
    if (amo >= 0)
        return peer->transport->atomic(peer, (enum gk__amo_op)amo, width, offset, operand,
                                       0, old_p);
    uint64_t old = 0, seen = 0;
    int status = peer->transport->atomic(peer, GK__AMO_FETCH, width, offset, 0, 0, &old);
    while (status == GK_OK) {
        uint64_t desired = gk__win_combine(dtype, op, old, operand);
        status = peer->transport->atomic(peer, GK__AMO_CSWAP, width, offset, desired, old,
                                         &seen);
        if (status == GK_OK && seen == old)
            break;
        old = seen;
    }
    *old_p = old;
    return status;
}

static uint64_t load_bits(const void *src, size_t i, size_t width)
{
    uint64_t bits = 0;
    memcpy(&bits, (const char *)src + i * width, width);
    return bits;
}

/*
 * A mapped peer's atomics made its wake-up check; a peer reached through
 * its transport is owed one, made with the flush that completes the
 * operation, as for a put (core/xfer.h).
 */
void gk__win_acc_wake_owed(int pe, size_t offset, size_t nbytes)
{
    if (gk__rt.peers[pe].direct == NULL)
        gk__rt_defer_wake(pe, offset, offset + nbytes);
}

/* The shared body of accumulate and get_accumulate (result may be NULL). */
static int accumulate(const char *op_call, gk_win_t *win, int pe, size_t disp,
                      const void *src, void *result, size_t count, gk_dtype_t dtype,
                      gk_op_t op, int no_op_ok)
{
    int status = gk__win_check_dtype_op(op_call, dtype, op, no_op_ok);
    if (status != GK_OK)
        return status;
    size_t width = gk__win_dtype_width(dtype);
    if (count > SIZE_MAX / width) {
        gk__error("%s: count %zu elements of %zu bytes overflows", op_call, count, width);
        return GK_ERR_INVALID_ARG;
    }
    size_t nbytes = count * width;
    char *addr = NULL;
    status = gk__win_check_access(op_call, win, pe, disp, nbytes, &addr);
    if (status != GK_OK)
        return status;
    if (op != GK_OP_NO_OP && (status = gk__rt_check_local(op_call, "src", src, nbytes)))
        return status;
    if (result != NULL || no_op_ok) {
        status = gk__rt_check_local(op_call, "result", result, nbytes);
        if (status != GK_OK)
            return status;
    }
    if (count == 0)
        return GK_OK;
    if (gk__win_part_emulated(win, pe)) {
        const struct gk__dt_flat *flat = gk__dt_base_flat((int)dtype);
        if (op == GK_OP_NO_OP) /* a fetch only: a get into result */
            return gk__win_emul_op(op_call, win, pe, GK__WIN_EMUL_GET, flat, count, result,
                                   disp, flat, count, dtype, op, NULL, 0);
        return gk__win_emul_op(op_call, win, pe,
                               result != NULL ? GK__WIN_EMUL_GETACC : GK__WIN_EMUL_ACC, flat,
                               count, src, disp, flat, count, dtype, op, result, 0);
    }
    /* The window check covered the range; the first element's address
     * gives every element's alignment. */
    if (((uintptr_t)addr & (width - 1)) != 0)
        return gk__rt_report_align(op_call, pe, addr, width);
    size_t offset = gk__win_seg_at(win, pe, disp);
    gk__rt_flush_wakes(); /* we may wait on the answers: pay owed wake-ups */
    for (size_t i = 0; i < count && status == GK_OK; i++) {
        uint64_t operand = op == GK_OP_NO_OP ? 0 : load_bits(src, i, width), old = 0;
        status = gk__win_element_op(pe, offset + i * width, dtype, op, operand, &old);
        if (status == GK_OK && result != NULL)
            memcpy((char *)result + i * width, &old, width);
    }
    if (op != GK_OP_NO_OP)
        gk__win_acc_wake_owed(pe, offset, nbytes);
    return status;
}

int gk_win_accumulate(gk_win_t *win, int pe, size_t disp, const void *src, size_t count,
                      gk_dtype_t dtype, gk_op_t op)
{
    return accumulate("gk_win_accumulate", win, pe, disp, src, NULL, count, dtype, op, 0);
}

int gk_win_get_accumulate(gk_win_t *win, int pe, size_t disp, const void *src,
                          void *result, size_t count, gk_dtype_t dtype, gk_op_t op)
{
    return accumulate("gk_win_get_accumulate", win, pe, disp, src, result, count, dtype,
                      op, 1);
}

int gk_win_fetch_and_op(gk_win_t *win, int pe, size_t disp, const void *operand,
                        void *result, gk_dtype_t dtype, gk_op_t op)
{
    return accumulate("gk_win_fetch_and_op", win, pe, disp, operand, result, 1, dtype, op,
                      1);
}

int gk_win_compare_and_swap(gk_win_t *win, int pe, size_t disp, const void *compare,
                            const void *desired, void *result, gk_dtype_t dtype)
{
    static const char op[] = "gk_win_compare_and_swap";
    if (!dtype_is_integer(dtype))
        return report_dtype(op, dtype, 1);
    size_t width = gk__win_dtype_width(dtype);
    char *addr = NULL;
    int status = gk__win_check_access(op, win, pe, disp, width, &addr);
    if (status == GK_OK)
        status = gk__rt_check_local(op, "compare", compare, width);
    if (status == GK_OK)
        status = gk__rt_check_local(op, "desired", desired, width);
    if (status == GK_OK)
        status = gk__rt_check_local(op, "result", result, width);
    if (status == GK_OK && gk__win_part_emulated(win, pe)) {
        uint64_t old = 0;
        status = gk__win_emul_cas(op, win, pe, disp, dtype, load_bits(compare, 0, width),
                                  load_bits(desired, 0, width), &old);
        if (status == GK_OK)
            memcpy(result, &old, width);
        return status;
    }
    if (status == GK_OK && ((uintptr_t)addr & (width - 1)) != 0)
        status = gk__rt_report_align(op, pe, addr, width);
    if (status != GK_OK)
        return status;
    size_t offset = gk__win_seg_at(win, pe, disp);
    gk__rt_flush_wakes();
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    uint64_t old = 0;
    status = peer->transport->atomic(peer, GK__AMO_CSWAP, width, offset,
                                     load_bits(desired, 0, width),
                                     load_bits(compare, 0, width), &old);
    gk__win_acc_wake_owed(pe, offset, width);
    if (status == GK_OK)
        memcpy(result, &old, width);
    return status;
}

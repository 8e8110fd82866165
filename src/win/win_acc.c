/*
 * win_acc.c: accumulate, get-accumulate, fetch-and-op and compare-and-swap
 * on windows, each element one atomic operation through the target's
 * transport (core/acc.h), or at the owner for an emulated part.
 */
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "core/acc.h"
#include "core/path.h"
#include "dtype/flat.h"
#include "win/win.h"

static uint64_t load_bits(const void *src, size_t i, size_t width)
{
    uint64_t bits = 0;
    memcpy(&bits, (const char *)src + i * width, width);
    return bits;
}

/* The shared body of accumulate and get_accumulate (result may be NULL). */
static int accumulate(const char *op_call, gk_win_t *win, int pe, size_t disp,
                      const void *src, void *result, size_t count, gk_dtype_t dtype,
                      gk_op_t op, int no_op_ok)
{
    int status = gk__acc_check_dtype_op(op_call, dtype, op, no_op_ok);
    if (status != GK_OK)
        return status;
    size_t width = gk__acc_dtype_width(dtype);
    if (count > SIZE_MAX / width) {
        gk__error("%s: count %zu elements of %zu bytes overflows", op_call, count, width);
        return GK_ERR_INVALID_ARG;
    }
    size_t nbytes = count * width;
    char *addr = NULL;
    status = gk__win_check_access(op_call, win, pe, disp, nbytes, &addr);
    if (status == GK_OK)
        status = gk__win_settle(op_call, win, pe);
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
    char *mapped = gk__path_addr(pe, offset);
    if (mapped != NULL && result == NULL) { /* CPU atomics, one wake-up check */
        gk__acc_blocks_mapped(mapped, 0, src, 0, 1, nbytes, dtype, op);
        return gk__path_notify(pe, offset, offset + nbytes);
    }
    gk__path_flush_wakes(); /* we may wait on the answers: pay owed wake-ups */
    for (size_t i = 0; i < count && status == GK_OK; i++) {
        uint64_t operand = op == GK_OP_NO_OP ? 0 : load_bits(src, i, width), old = 0;
        status = gk__acc_element_op(pe, offset + i * width, dtype, op, operand, &old);
        if (status == GK_OK && result != NULL)
            memcpy((char *)result + i * width, &old, width);
    }
    if (op != GK_OP_NO_OP)
        gk__acc_wake_owed(pe, offset, nbytes);
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
    if (!gk__acc_dtype_is_integer(dtype))
        return gk__acc_report_dtype(op, dtype, 1);
    size_t width = gk__acc_dtype_width(dtype);
    char *addr = NULL;
    int status = gk__win_check_access(op, win, pe, disp, width, &addr);
    if (status == GK_OK)
        status = gk__win_settle(op, win, pe);
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
    gk__path_flush_wakes();
    uint64_t old = 0;
    status = gk__path_atomic(pe, GK__AMO_CSWAP, width, offset, load_bits(desired, 0, width),
                             load_bits(compare, 0, width), &old);
    gk__acc_wake_owed(pe, offset, width);
    if (status == GK_OK)
        memcpy(result, &old, width);
    return status;
}

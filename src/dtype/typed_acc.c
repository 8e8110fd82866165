/*
 * typed_acc.c: accumulates with a datatype on each side, on the symmetric
 * heap (gk_accumulate_typed) and on windows (win/win_typed.c).
 *
 * Both sides' types must be made of one base type, the same, so every
 * data byte belongs to an element of it and a run contiguous on both
 * sides never starts or ends inside an element. The two layouts are
 * walked side by side by their cursors (flat.h), run by run, and each
 * element is one atomic update (core/acc.h): a CPU atomic on a mapped
 * PE, the transport's atomic otherwise. Where the transport runs remote
 * operations (net.h) the elements go instead in chunks, as a typed put's
 * (typed_rma.c): each chunk carries the target type's descriptor, its
 * first byte in the transfer, the base type and the op, and the packed
 * source elements; the target checks it as a put's chunk, checks that
 * every target element is aligned, and applies the elements with its own
 * atomics, the same ones its mapped peers use. The chunks are posted, so
 * they stream and complete at quiet, as puts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "core/acc.h"
#include "core/runtime.h"
#include "core/path.h"
#include "dtype/flat.h"
#include "dtype/type.h"
#include "dtype/typed.h"

/* Where a chunk's arguments keep the base type and the op (typed.h). */
#define ACC_DTYPE_SHIFT 32
#define ACC_OP_SHIFT 40
/* How the target's messages about a chunk it refuses begin. */
#define REFUSED "a typed accumulate's chunk from the network refused"

int gk__typed_acc_dtype(const char *op, const char *local_arg, gk_type_t local_type,
                        const char *remote_arg, gk_type_t remote_type, gk_op_t acc_op,
                        gk_dtype_t *dtype_p)
{
    int lb = -1, rb = -1;
    int status = gk__type_base(op, local_arg, local_type, &lb);
    if (status == GK_OK)
        status = gk__type_base(op, remote_arg, remote_type, &rb);
    if (status != GK_OK)
        return status;
    if (lb < 0 || rb < 0) {
        gk__error("%s: %s %s holds elements of several base types (or none); an accumulate "
                  "needs one base type on each side",
                  op, lb < 0 ? local_arg : remote_arg,
                  GK__TYPE_STR(lb < 0 ? local_type : remote_type));
        return GK_ERR_INVALID_ARG;
    }
    if (lb != rb) {
        gk__error("%s: the type signatures do not match: %s %s is made of %s, %s %s of %s", op,
                  local_arg, GK__TYPE_STR(local_type), GK__DTYPE_STR(lb), remote_arg,
                  GK__TYPE_STR(remote_type), GK__DTYPE_STR(rb));
        return GK_ERR_INVALID_ARG;
    }
    status = gk__acc_check_dtype_op(op, (gk_dtype_t)lb, acc_op, 0);
    if (status == GK_OK)
        *dtype_p = (gk_dtype_t)lb;
    return status;
}

/* The k blocks of a stretch (flat.h) through pe's transport atomics, an
 * element at a time: a peer that is not mapped here. */
static int acc_blocks_by_transport(int pe, uint64_t offset, const char *operands,
                                   const struct gk__dt_stretch *st, gk_dtype_t dtype,
                                   gk_op_t op)
{
    size_t width = gk__acc_dtype_width(dtype);
    int status = GK_OK;
    for (uint64_t b = 0; b < st->k && status == GK_OK; b++) {
        uint64_t at = offset + b * (uint64_t)st->dstride;
        const char *from = operands + (int64_t)b * st->sstride;
        for (uint64_t i = 0; i < st->len && status == GK_OK; i += width) {
            uint64_t operand = 0, old = 0;
            memcpy(&operand, from + i, width);
            status = gk__acc_element_op(pe, (size_t)(at + i), dtype, op, operand, &old);
        }
    }
    return status;
}

/*
 * Updates n bytes of elements, from rc's position at segment offset
 * seg_base of pe, with the operands at lc's position in `from`; both
 * cursors advance. The layouts are walked stretch by stretch (flat.h),
 * each holding whole, aligned elements (acc_aligned). On a mapped PE a
 * stretch is a loop of CPU atomics, and one wake-up check covers the
 * whole range updated.
 */
static int acc_elements(int pe, uint64_t seg_base, struct gk__dt_cursor *rc, const char *from,
                        struct gk__dt_cursor *lc, uint64_t n, gk_dtype_t dtype, gk_op_t op)
{
    char *mapped = gk__path_addr(pe, 0); /* NULL: reached through its transport */
    uint64_t lo = UINT64_MAX, hi = 0;
    int status = GK_OK;
    while (n > 0 && status == GK_OK) {
        struct gk__dt_stretch st;
        gk__dt_stretch_next(rc, lc, n, &st);
        uint64_t offset = seg_base + (uint64_t)rc->pos;
        const char *operands = from + lc->pos;
        if (mapped != NULL)
            gk__acc_blocks_mapped(mapped + offset, st.dstride, operands, st.sstride, st.k,
                                  (size_t)st.len, dtype, op);
        else
            status = acc_blocks_by_transport(pe, offset, operands, &st, dtype, op);
        /* The range the stretch touched, whichever way its stride runs. */
        uint64_t last = offset + (st.k - 1) * (uint64_t)st.dstride;
        lo = offset < lo ? offset : lo;
        lo = last < lo ? last : lo;
        hi = offset + st.len > hi ? offset + st.len : hi;
        hi = last + st.len > hi ? last + st.len : hi;
        gk__dt_stretch_pass(rc, lc, &st);
        n -= st.k * st.len;
    }
    if (mapped != NULL && lo < hi)
        status = gk__path_notify(pe, lo, hi);
    return status;
}

/*
 * Checks that the n bytes of target elements from c's position (a copy)
 * are aligned: each piece of the target's layout starts on an element,
 * which is enough, as the pieces hold whole elements. Before anything
 * moves; `why` gets the reason of a refusal, for the caller to log.
 */
static int acc_aligned(struct gk__dt_cursor c, uint64_t seg_base, uint64_t n, size_t width,
                       char *why, size_t why_len)
{
    while (n > 0) {
        uint64_t run = c.len < n ? c.len : n;
        if ((seg_base + (uint64_t)c.pos) % width != 0 || run % width != 0) {
            snprintf(why, why_len, "the element at byte %lld of the target type's layout is "
                     "not aligned to its %zu bytes", (long long)c.pos, width);
            return GK_ERR_INVALID_ARG;
        }
        gk__dt_cursor_advance(&c, run);
        n -= run;
    }
    return GK_OK;
}

/* At the target: a typed accumulate's chunk, the descriptor then the
 * packed operands (typed.h). A refusal is logged here: the sender of a
 * posted chunk never hears why. */
static int dt_acc_rop(const uint64_t *args, const void *payload, size_t nbytes,
                      struct gk__net_rop_answer *answer)
{
    uint64_t desc_len = args[3] & GK__TYPED_DESC_LEN_MASK;
    uint64_t dtype = args[3] >> ACC_DTYPE_SHIFT & 0xff, op = args[3] >> ACC_OP_SHIFT;
    uint64_t n = desc_len <= nbytes ? nbytes - desc_len : 0;
    size_t width = gk__acc_dtype_width((gk_dtype_t)dtype);
    (void)answer;
    if (gk__acc_check_dtype_op(REFUSED, (gk_dtype_t)dtype, (gk_op_t)op, 0) != GK_OK)
        return GK_ERR_UNSUPPORTED;
    if (n % width != 0) {
        gk__error("%s: %llu bytes are not whole elements of %s", REFUSED,
                  (unsigned long long)n, GK__DTYPE_STR((int)dtype));
        return GK_ERR_UNSUPPORTED;
    }
    /* The chunk as a put's: the descriptor's length without the type and op. */
    const uint64_t chunk[GK__NET_ROP_ARGS] = {args[0], args[1], args[2], desc_len};
    struct gk__dt_flat *flat;
    struct gk__dt_cursor rc, lc;
    if (gk__typed_rop_check("accumulate", chunk, payload, nbytes, n, &flat, &rc) != GK_OK)
        return GK_ERR_UNSUPPORTED;
    char why[160] = "";
    int status = GK_OK;
    if (n > 0 && acc_aligned(rc, args[0], n, width, why, sizeof(why)) != GK_OK) {
        gk__error("%s: %s", REFUSED, why);
        status = GK_ERR_UNSUPPORTED;
    } else if (n > 0) {
        gk__dt_cursor_init(&lc, gk__dt_base_flat(GK_DTYPE_UINT8), n, 0);
        status = acc_elements(gk__rt.my_pe, args[0], &rc, (const char *)payload + desc_len,
                              &lc, n, (gk_dtype_t)dtype, (gk_op_t)op);
    }
    free(flat);
    return status;
}

__attribute__((constructor)) static void typed_acc_register_rop(void)
{
    gk__net_rop_set(GK__NET_ROP_DT_ACC, dt_acc_rop);
}

/* Through pe's transport in chunks of remote operations, posted. */
static int acc_chunks(int pe, struct gk__typed_rop_path *rp,
                      struct gk__dt_cursor *rc, const char *src, struct gk__dt_cursor *lc,
                      gk_dtype_t dtype, gk_op_t op)
{
    size_t width = gk__acc_dtype_width(dtype);
    /* A chunk holds whole elements: the room after the descriptor, rounded. */
    rp->room = rp->desc_len + (rp->room - rp->desc_len) / width * width;
    int status = GK_OK;
    while (rc->left > 0 && status == GK_OK) {
        uint64_t args[GK__NET_ROP_ARGS];
        uint64_t n = gk__typed_rop_chunk(rp, rc, args);
        args[3] |= (uint64_t)dtype << ACC_DTYPE_SHIFT | (uint64_t)op << ACC_OP_SHIFT;
        gk__typed_gather(rp->buf + rp->desc_len, src, lc, n);
        gk__typed_skip(rc, n);
        status = gk__path_rop_post(pe, GK__NET_ROP_DT_ACC, args, rp->buf, rp->desc_len + n,
                                   GK__NET_POST_QUIET);
    }
    return status;
}

int gk__typed_acc(const char *op, int pe, struct gk__typed_side *remote,
                  struct gk__typed_side *local, gk_dtype_t dtype, gk_op_t acc_op,
                  const uint64_t *seg_base_checked)
{
    uint64_t seg_base = 0;
    int status =
        gk__typed_check(op, GK__TYPED_PUT, pe, remote, local, seg_base_checked, &seg_base);
    if (status != GK_OK || local->size == 0)
        return status;
    char why[160] = "";
    struct gk__dt_cursor rc, lc;
    gk__dt_cursor_init(&rc, remote->flat, remote->count, 0);
    gk__dt_cursor_init(&lc, local->flat, local->count, 0);
    status = acc_aligned(rc, seg_base, local->size, gk__acc_dtype_width(dtype), why,
                         sizeof(why));
    if (status != GK_OK) {
        gk__error("%s: %s", op, why);
        return status;
    }
    struct gk__typed_rop_path rp = {.remote = remote, .origin = seg_base};
    if (!gk__path_mapped(pe))
        status = gk__typed_rop_begin(op, pe, &rp, remote);
    if (status == GK_OK && rp.desc_len > 0) {
        status = acc_chunks(pe, &rp, &rc, local->addr, &lc, dtype, acc_op);
    } else if (status == GK_OK) {
        gk__path_flush_wakes(); /* we may wait on the atomics' answers: pay owed wake-ups */
        status = acc_elements(pe, seg_base, &rc, local->addr, &lc, local->size, dtype, acc_op);
        gk__acc_wake_owed(pe, (size_t)(seg_base + (uint64_t)remote->lo),
                          (size_t)(remote->hi - remote->lo));
    }
    free(rp.buf);
    return status;
}

static int heap_acc(const char *op, int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                    const void *src, size_t src_count, gk_type_t src_type, gk_op_t acc_op)
{
    struct gk__typed_side d = {.count = dst_count, .addr = dst, .count_arg = "dst_count",
                               .type_arg = "dst_type", .type_str = GK__TYPE_STR(dst_type)};
    struct gk__typed_side s = {.count = src_count, .addr = src, .count_arg = "src_count",
                               .type_arg = "src_type", .type_str = GK__TYPE_STR(src_type)};
    gk_dtype_t dtype = GK_DTYPE_INT32;
    int status = gk__type_flat(op, "dst_type", dst_type, &d.flat);
    if (status == GK_OK)
        status = gk__type_flat(op, "src_type", src_type, &s.flat);
    if (status == GK_OK)
        status = gk__typed_acc_dtype(op, "src_type", src_type, "dst_type", dst_type, acc_op,
                                     &dtype);
    if (status != GK_OK)
        return status;
    return gk__typed_acc(op, pe, &d, &s, dtype, acc_op, NULL);
}

int gk_accumulate_typed(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                        const void *src, size_t src_count, gk_type_t src_type, gk_op_t op)
{
    return heap_acc("gk_accumulate_typed", pe, dst, dst_count, dst_type, src, src_count,
                    src_type, op);
}

int gk_accumulate_typed_nbi(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                            const void *src, size_t src_count, gk_type_t src_type, gk_op_t op)
{
    return heap_acc("gk_accumulate_typed_nbi", pe, dst, dst_count, dst_type, src, src_count,
                    src_type, op);
}

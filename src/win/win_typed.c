/*
 * win_typed.c: puts, gets and accumulates with a datatype on each side, on
 * windows (gasket_dtype.h): the origin's buffer described by (origin,
 * origin_count, origin_type), the target's by (disp, target_count,
 * target_type) in PE pe's part.
 *
 * Checks first, nothing moved on failure: both types committed, the two
 * sides the same number of bytes, the span the target's pieces touch
 * inside the target's part (the window's bound, not just the heap's).
 * Then pack on the fly: the two layouts are walked side by side by their
 * cursors (dtype/flat.h). Put and get hand the walk to dtype's typed
 * transfer (straight between mappings on this node, bounded chunks
 * through a transport), by segment offset, as the part was checked, and
 * accumulates to dtype's typed accumulate (typed_acc.c), element by
 * element with the transports' atomics or in chunks applied at the target.
 */
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "dtype/type.h"
#include "dtype/typed.h"
#include "win/win.h"

/* The two sides of a typed window operation, checked. */
struct win_typed {
    struct gk__typed_side origin, target;
    char *target_addr; /* the target buffer's address: part + disp */
    uint64_t seg_base; /* its segment offset (a direct part) */
};

static int side_span(const char *op, struct gk__typed_side *s)
{
    if (gk__dt_span(s->flat, s->count, &s->size, &s->lo, &s->hi) == GK_OK)
        return GK_OK;
    gk__error("%s: %s %llu of %s overflows (the elements span more than PTRDIFF_MAX bytes)",
              op, s->count_arg, (unsigned long long)s->count, s->type_str);
    return GK_ERR_INVALID_ARG;
}

/*
 * Checks a typed operation's arguments and fills t. The target's span is
 * [disp + lo, disp + hi) of pe's part, checked against the part's size
 * (and the epoch, on a strict window) by gk__win_check_access.
 */
static int typed_prepare(const char *op, gk_win_t *win, int pe, const void *origin,
                         size_t origin_count, gk_type_t origin_type, size_t disp,
                         size_t target_count, gk_type_t target_type, struct win_typed *t)
{
    int status = gk__win_check(op, win);
    if (status != GK_OK)
        return status;
    t->origin = (struct gk__typed_side){.count = origin_count, .addr = origin,
                                        .count_arg = "origin_count", .type_arg = "origin_type",
                                        .type_str = GK__TYPE_STR(origin_type)};
    t->target = (struct gk__typed_side){.count = target_count, .count_arg = "target_count",
                                        .type_arg = "target_type",
                                        .type_str = GK__TYPE_STR(target_type)};
    status = gk__type_flat(op, "origin_type", origin_type, &t->origin.flat);
    if (status == GK_OK)
        status = gk__type_flat(op, "target_type", target_type, &t->target.flat);
    if (status == GK_OK)
        status = side_span(op, &t->origin);
    if (status == GK_OK)
        status = side_span(op, &t->target);
    if (status != GK_OK)
        return status;
    if (t->origin.size != t->target.size) {
        gk__error("%s: origin holds %llu bytes (origin_count %llu of %s) but target %llu "
                  "(target_count %llu of %s); both sides must hold the same",
                  op, (unsigned long long)t->origin.size, (unsigned long long)origin_count,
                  t->origin.type_str, (unsigned long long)t->target.size,
                  (unsigned long long)target_count, t->target.type_str);
        return GK_ERR_INVALID_ARG;
    }
    /* The span relative to the part: disp + lo may not go below 0. */
    int64_t lo = t->target.lo, hi = t->target.hi;
    if (disp > (size_t)INT64_MAX || (lo < 0 && (uint64_t)-lo > disp)) {
        gk__error("%s: target_count %llu of %s at displacement %zu starts %llu bytes before "
                  "the start of window %d's part on PE %d",
                  op, (unsigned long long)target_count, t->target.type_str, disp,
                  (unsigned long long)((uint64_t)-lo - disp), win->id, pe);
        return GK_ERR_RANGE;
    }
    size_t span_at = (size_t)((int64_t)disp + lo), span = (size_t)(hi - lo);
    char *span_addr = NULL;
    status = gk__win_check_access(op, win, pe, span_at, span, &span_addr);
    if (status == GK_OK)
        status = gk__win_settle(op, win, pe);
    if (status != GK_OK)
        return status;
    t->target_addr = span_addr - lo;
    t->target.addr = t->target_addr;
    t->seg_base = (uint64_t)gk__win_seg_at(win, pe, disp);
    return gk__rt_check_local(op, "origin", origin, (size_t)t->origin.size);
}

static int win_put_typed(const char *op, gk_win_t *win, int pe, const void *origin,
                         size_t origin_count, gk_type_t origin_type, size_t disp,
                         size_t target_count, gk_type_t target_type, int nbi)
{
    struct win_typed t;
    int status = typed_prepare(op, win, pe, origin, origin_count, origin_type, disp,
                               target_count, target_type, &t);
    if (status != GK_OK || t.origin.size == 0)
        return status;
    if (gk__win_part_emulated(win, pe))
        return gk__win_emul_op(op, win, pe, GK__WIN_EMUL_PUT, t.origin.flat, t.origin.count,
                               origin, disp, t.target.flat, t.target.count, GK_DTYPE_UINT8,
                               GK_OP_REPLACE, NULL, nbi);
    return gk__typed_xfer(op, GK__TYPED_PUT, pe, &t.target, &t.origin, nbi, &t.seg_base);
}

static int win_get_typed(const char *op, gk_win_t *win, int pe, void *origin,
                         size_t origin_count, gk_type_t origin_type, size_t disp,
                         size_t target_count, gk_type_t target_type, int nbi)
{
    struct win_typed t;
    int status = typed_prepare(op, win, pe, origin, origin_count, origin_type, disp,
                               target_count, target_type, &t);
    if (status != GK_OK || t.origin.size == 0)
        return status;
    if (gk__win_part_emulated(win, pe))
        return gk__win_emul_op(op, win, pe, GK__WIN_EMUL_GET, t.origin.flat, t.origin.count,
                               origin, disp, t.target.flat, t.target.count, GK_DTYPE_UINT8,
                               GK_OP_REPLACE, NULL, nbi);
    return gk__typed_xfer(op, GK__TYPED_GET, pe, &t.target, &t.origin, nbi, &t.seg_base);
}

static int win_acc_typed(const char *op, gk_win_t *win, int pe, const void *origin,
                         size_t origin_count, gk_type_t origin_type, size_t disp,
                         size_t target_count, gk_type_t target_type, gk_op_t acc_op,
                         int nbi)
{
    struct win_typed t;
    gk_dtype_t dtype = GK_DTYPE_INT32;
    int status = typed_prepare(op, win, pe, origin, origin_count, origin_type, disp,
                               target_count, target_type, &t);
    if (status == GK_OK)
        status = gk__typed_acc_dtype(op, "origin_type", origin_type, "target_type",
                                     target_type, acc_op, &dtype);
    if (status != GK_OK || t.origin.size == 0)
        return status;
    if (gk__win_part_emulated(win, pe))
        return gk__win_emul_op(op, win, pe, GK__WIN_EMUL_ACC, t.origin.flat, t.origin.count,
                               origin, disp, t.target.flat, t.target.count, dtype, acc_op,
                               NULL, nbi);
    return gk__typed_acc(op, pe, &t.target, &t.origin, dtype, acc_op, &t.seg_base);
}

int gk_win_put_typed(gk_win_t *win, int pe, size_t disp, size_t target_count,
                     gk_type_t target_type, const void *origin,
                     size_t origin_count, gk_type_t origin_type)
{
    return win_put_typed("gk_win_put_typed", win, pe, origin, origin_count, origin_type, disp,
                         target_count, target_type, 0);
}

int gk_win_put_typed_nbi(gk_win_t *win, int pe, size_t disp, size_t target_count,
                         gk_type_t target_type, const void *origin, size_t origin_count,
                         gk_type_t origin_type)
{
    return win_put_typed("gk_win_put_typed_nbi", win, pe, origin, origin_count, origin_type,
                         disp, target_count, target_type, 1);
}

int gk_win_get_typed(gk_win_t *win, int pe, void *origin, size_t origin_count,
                     gk_type_t origin_type, size_t disp, size_t target_count,
                     gk_type_t target_type)
{
    return win_get_typed("gk_win_get_typed", win, pe, origin, origin_count, origin_type, disp,
                         target_count, target_type, 0);
}

int gk_win_get_typed_nbi(gk_win_t *win, int pe, void *origin, size_t origin_count,
                         gk_type_t origin_type, size_t disp, size_t target_count,
                         gk_type_t target_type)
{
    return win_get_typed("gk_win_get_typed_nbi", win, pe, origin, origin_count, origin_type,
                         disp, target_count, target_type, 1);
}

int gk_win_accumulate_typed(gk_win_t *win, int pe, size_t disp, size_t target_count,
                            gk_type_t target_type, const void *origin,
                            size_t origin_count, gk_type_t origin_type, gk_op_t op)
{
    return win_acc_typed("gk_win_accumulate_typed", win, pe, origin, origin_count,
                         origin_type, disp, target_count, target_type, op, 0);
}

int gk_win_accumulate_typed_nbi(gk_win_t *win, int pe, size_t disp,
                                size_t target_count, gk_type_t target_type,
                                const void *origin, size_t origin_count,
                                gk_type_t origin_type, gk_op_t op)
{
    return win_acc_typed("gk_win_accumulate_typed_nbi", win, pe, origin, origin_count,
                         origin_type, disp, target_count, target_type, op, 1);
}

/*
 * typed_rma.c: puts and gets with a datatype on each side, and the strided
 * forms (gasket_dtype.h).
 *
 * Every transfer walks two cursors (flat.h), one over the source's pieces
 * and one over the destination's, and moves the longest run that is
 * contiguous on both at each step: pack on the fly, with nothing staged.
 * To a PE of this node the runs are copies between the mappings. To a PE
 * reached only through its transport, each run contiguous at the target
 * is a transport put (get) of its own, straight from (into) the local
 * buffer when the local side is contiguous over it, or over at least
 * DIRECT_MIN bytes; otherwise the local side's small pieces are gathered
 * into a buffer of CHUNK bytes on the stack and sent as one put, or
 * fetched as one get and scattered. So memory stays bounded whatever the
 * transfer's size, and small local pieces still travel in chunks.
 *
 * The symmetric side is checked once, as one span (the lowest to the
 * highest byte its pieces touch), before anything moves; the cursors then
 * stay inside it by construction.
 */
#include <string.h>

#include "base/log.h"
#include "core/runtime.h"
#include "dtype/flat.h"
#include "dtype/type.h"
#include "dtype/typed.h"

#define CHUNK 8192
#define DIRECT_MIN 512

#define DIR_PUT GK__TYPED_PUT
#define DIR_GET GK__TYPED_GET
#define side gk__typed_side

static int side_span(const char *op, struct side *s)
{
    if (gk__dt_span(s->flat, s->count, &s->size, &s->lo, &s->hi) == GK_OK)
        return GK_OK;
    gk__error("%s: %s %llu of %s overflows (the elements span more than PTRDIFF_MAX bytes)",
              op, s->count_arg, (unsigned long long)s->count, s->type_str);
    return GK_ERR_INVALID_ARG;
}

static int64_t min64(uint64_t a, uint64_t b)
{
    return (int64_t)(a < b ? a : b);
}

/* Gathers n bytes of the local side's data into buf. */
static void gather(char *buf, const char *base, struct gk__dt_cursor *c, uint64_t n)
{
    while (n > 0) {
        uint64_t m = c->len < n ? c->len : n;
        memcpy(buf, base + c->pos, m);
        buf += m;
        n -= m;
        gk__dt_cursor_advance(c, m);
    }
}

static void scatter(char *base, struct gk__dt_cursor *c, const char *buf, uint64_t n)
{
    while (n > 0) {
        uint64_t m = c->len < n ? c->len : n;
        memcpy(base + c->pos, buf, m);
        buf += m;
        n -= m;
        gk__dt_cursor_advance(c, m);
    }
}

/* Puts through the transport: rc walks the target's pieces, lc the local
 * source's. `held`: the source stays untouched until quiet (_nbi). */
static int put_net(struct gk__net_peer *peer, uint64_t seg_base, struct gk__dt_cursor *rc,
                   const char *src, struct gk__dt_cursor *lc, int held)
{
    char bounce[CHUNK];
    int status = GK_OK;
    while (rc->left > 0 && status == GK_OK) {
        size_t offset = (size_t)(seg_base + (uint64_t)rc->pos);
        if (lc->len >= rc->len || lc->len >= DIRECT_MIN) {
            uint64_t n = (uint64_t)min64(rc->len, lc->len);
            const char *from = src + lc->pos;
            status = held ? peer->transport->put_nbi(peer, offset, from, n)
                          : peer->transport->put(peer, offset, from, n);
            gk__dt_cursor_advance(rc, n);
            gk__dt_cursor_advance(lc, n);
        } else {
            uint64_t n = (uint64_t)min64(rc->len, CHUNK);
            gather(bounce, src, lc, n);
            status = peer->transport->put(peer, offset, bounce, n);
            gk__dt_cursor_advance(rc, n);
        }
    }
    return status;
}

/* Gets through the transport: rc walks the source's pieces at the target,
 * lc the local destination's. `later`: complete at quiet (_nbi). */
static int get_net(struct gk__net_peer *peer, uint64_t seg_base, struct gk__dt_cursor *rc,
                   char *dst, struct gk__dt_cursor *lc, int later)
{
    char bounce[CHUNK];
    int status = GK_OK;
    while (rc->left > 0 && status == GK_OK) {
        size_t offset = (size_t)(seg_base + (uint64_t)rc->pos);
        if (lc->len >= rc->len || lc->len >= DIRECT_MIN) {
            uint64_t n = (uint64_t)min64(rc->len, lc->len);
            char *to = dst + lc->pos;
            status = later ? peer->transport->get_nbi(peer, to, offset, n)
                           : peer->transport->get(peer, to, offset, n);
            gk__dt_cursor_advance(rc, n);
            gk__dt_cursor_advance(lc, n);
        } else {
            uint64_t n = (uint64_t)min64(rc->len, CHUNK);
            status = peer->transport->get(peer, bounce, offset, n);
            if (status == GK_OK)
                scatter(dst, lc, bounce, n);
            gk__dt_cursor_advance(rc, n);
        }
    }
    return status;
}

/*
 * The transfer: `remote` is the symmetric side on pe, `local` this PE's
 * buffer; data flows local -> remote for a put.
 */
int gk__typed_xfer(const char *op, enum gk__typed_dir dir, int pe, struct side *remote,
                   struct side *local, int nbi, const uint64_t *seg_base_checked)
{
    int status = side_span(op, remote);
    if (status == GK_OK)
        status = side_span(op, local);
    if (status != GK_OK)
        return status;
    if (remote->size != local->size) {
        const struct side *d = dir == DIR_PUT ? remote : local;
        const struct side *s = dir == DIR_PUT ? local : remote;
        gk__error("%s: dst holds %llu bytes (dst_count %llu of %s) but src %llu "
                  "(src_count %llu of %s); both sides must hold the same",
                  op, (unsigned long long)d->size, (unsigned long long)d->count, d->type_str,
                  (unsigned long long)s->size, (unsigned long long)s->count, s->type_str);
        return GK_ERR_INVALID_ARG;
    }
    /* The span the remote pieces touch, as one checked range. */
    size_t seg_lo = 0;
    uint64_t span = (uint64_t)remote->hi - (uint64_t)remote->lo;
    const void *lo_addr = (const void *)((uintptr_t)remote->addr + (uintptr_t)remote->lo);
    if (seg_base_checked != NULL)
        seg_lo = (size_t)(*seg_base_checked + (uint64_t)remote->lo);
    else
        status = gk__rt_check_remote(op, pe, lo_addr, (size_t)span, &seg_lo);
    if (status != GK_OK)
        return status;
    status = gk__rt_check_local(op, dir == DIR_PUT ? "src" : "dst", local->addr,
                                (size_t)local->size);
    if (status != GK_OK || local->size == 0)
        return status;
    uint64_t seg_base = (uint64_t)seg_lo - (uint64_t)remote->lo;
    struct gk__dt_cursor rc, lc;
    gk__dt_cursor_init(&rc, remote->flat, remote->count, 0);
    gk__dt_cursor_init(&lc, local->flat, local->count, 0);
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (dir == DIR_GET)
        gk__rt_flush_wakes(); /* as gk_get: a get may be a poll */
    if (peer->direct != NULL) {
        char *mapped = (char *)((uintptr_t)peer->direct + (uintptr_t)seg_base);
        if (dir == DIR_PUT)
            gk__dt_copy(mapped, &rc, local->addr, &lc, local->size);
        else
            gk__dt_copy((char *)local->addr, &lc, mapped, &rc, local->size);
    } else if (dir == DIR_PUT) {
        status = put_net(peer, seg_base, &rc, local->addr, &lc, nbi);
    } else {
        status = get_net(peer, seg_base, &rc, (char *)local->addr, &lc, nbi);
    }
    if (status == GK_OK && dir == DIR_PUT)
        gk__rt_defer_wake(pe, seg_lo, seg_lo + span);
    return status;
}

static int typed(const char *op, enum gk__typed_dir dir, int pe, void *dst, size_t dst_count,
                 gk_type_t dst_type, const void *src, size_t src_count, gk_type_t src_type,
                 int nbi)
{
    struct side d = {.count = dst_count, .addr = dst, .count_arg = "dst_count",
                     .type_arg = "dst_type", .type_str = GK__TYPE_STR(dst_type)};
    struct side s = {.count = src_count, .addr = src, .count_arg = "src_count",
                     .type_arg = "src_type", .type_str = GK__TYPE_STR(src_type)};
    int status = gk__type_flat(op, "dst_type", dst_type, &d.flat);
    if (status == GK_OK)
        status = gk__type_flat(op, "src_type", src_type, &s.flat);
    if (status != GK_OK)
        return status;
    return dir == DIR_PUT ? gk__typed_xfer(op, dir, pe, &d, &s, nbi, NULL)
                          : gk__typed_xfer(op, dir, pe, &s, &d, nbi, NULL);
}

int gk_put_typed(int pe, void *dst, size_t dst_count, gk_type_t dst_type, const void *src,
                 size_t src_count, gk_type_t src_type)
{
    return typed("gk_put_typed", DIR_PUT, pe, dst, dst_count, dst_type, src, src_count,
                 src_type, 0);
}

int gk_get_typed(int pe, void *dst, size_t dst_count, gk_type_t dst_type, const void *src,
                 size_t src_count, gk_type_t src_type)
{
    return typed("gk_get_typed", DIR_GET, pe, dst, dst_count, dst_type, src, src_count,
                 src_type, 0);
}

int gk_put_typed_nbi(int pe, void *dst, size_t dst_count, gk_type_t dst_type, const void *src,
                     size_t src_count, gk_type_t src_type)
{
    return typed("gk_put_typed_nbi", DIR_PUT, pe, dst, dst_count, dst_type, src, src_count,
                 src_type, 1);
}

int gk_get_typed_nbi(int pe, void *dst, size_t dst_count, gk_type_t dst_type, const void *src,
                     size_t src_count, gk_type_t src_type)
{
    return typed("gk_get_typed_nbi", DIR_GET, pe, dst, dst_count, dst_type, src, src_count,
                 src_type, 1);
}

/* ------------------------------------------------------------------------ */
/* Strided forms                                                            */
/* ------------------------------------------------------------------------ */

static int strided_side(const char *op, const char *stride_arg, ptrdiff_t stride,
                        size_t blocksize, size_t nblocks, size_t elem_size,
                        struct gk__dt_strided *s)
{
    int64_t stride_bytes = 0;
    uint64_t block = 0;
    if (__builtin_mul_overflow((int64_t)stride, (int64_t)elem_size, &stride_bytes) ||
        elem_size > (size_t)INT64_MAX) {
        gk__error("%s: %s %td times elem_size %zu overflows", op, stride_arg, stride,
                  elem_size);
        return GK_ERR_INVALID_ARG;
    }
    if (__builtin_mul_overflow((uint64_t)blocksize, (uint64_t)elem_size, &block) ||
        gk__dt_strided_init(s, block, nblocks, stride_bytes) != GK_OK) {
        gk__error("%s: %zu blocks of %zu elements of %zu bytes, %s %td, overflow "
                  "(they span more than PTRDIFF_MAX bytes)",
                  op, nblocks, blocksize, elem_size, stride_arg, stride);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

static int strided(const char *op, enum gk__typed_dir dir, int pe, void *dst, const void *src,
                   ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t blocksize,
                   size_t nblocks, size_t elem_size)
{
    struct gk__dt_strided ds, ss;
    int status = strided_side(op, "dst_stride", dst_stride, blocksize, nblocks, elem_size, &ds);
    if (status == GK_OK)
        status = strided_side(op, "src_stride", src_stride, blocksize, nblocks, elem_size, &ss);
    if (status != GK_OK)
        return status;
    struct side d = {.flat = &ds.flat, .count = 1, .addr = dst, .count_arg = "dst",
                     .type_arg = "dst", .type_str = "the strided dst"};
    struct side s = {.flat = &ss.flat, .count = 1, .addr = src, .count_arg = "src",
                     .type_arg = "src", .type_str = "the strided src"};
    return dir == DIR_PUT ? gk__typed_xfer(op, dir, pe, &d, &s, 0, NULL)
                          : gk__typed_xfer(op, dir, pe, &s, &d, 0, NULL);
}

int gk_iput(int pe, void *dst, const void *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
            size_t nelems, size_t elem_size)
{
    return strided("gk_iput", DIR_PUT, pe, dst, src, dst_stride, src_stride, 1, nelems,
                   elem_size);
}

int gk_iget(int pe, void *dst, const void *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
            size_t nelems, size_t elem_size)
{
    return strided("gk_iget", DIR_GET, pe, dst, src, dst_stride, src_stride, 1, nelems,
                   elem_size);
}

int gk_ibput(int pe, void *dst, const void *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
             size_t blocksize, size_t nblocks, size_t elem_size)
{
    return strided("gk_ibput", DIR_PUT, pe, dst, src, dst_stride, src_stride, blocksize,
                   nblocks, elem_size);
}

int gk_ibget(int pe, void *dst, const void *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
             size_t blocksize, size_t nblocks, size_t elem_size)
{
    return strided("gk_ibget", DIR_GET, pe, dst, src, dst_stride, src_stride, blocksize,
                   nblocks, elem_size);
}

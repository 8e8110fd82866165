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
 * A transfer whose target pieces are small (under ROP_PIECE_MAX; any
 * piece where the transport's puts are messages anyway: net.h,
 * GK__NET_CAP_RMA_BY_MESSAGES) would cost a transport operation per piece; where the transport runs remote
 * operations (net.h), those stretches go instead as chunks of at most
 * ROP_CHUNK bytes, each one remote operation that carries the target
 * type's descriptor (desc.h) and the chunk's place in the transfer (its
 * first byte). The target decodes and checks the descriptor, checks that
 * the whole transfer's span lies in its segment, starts a cursor at the
 * chunk's first byte, and unpacks the packed bytes that came with a put's
 * chunk, or packs a get's into the reply. A put's chunks are posted (one
 * message each, complete at quiet), so they stream; a get's wait for their
 * data one at a time. Any byte can start a chunk, so no chunk depends on
 * another and memory stays bounded.
 *
 * The symmetric side is checked once, as one span (the lowest to the
 * highest byte its pieces touch), before anything moves; the cursors then
 * stay inside it by construction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "core/runtime.h"
#include "core/path.h"
#include "dtype/desc.h"
#include "dtype/flat.h"
#include "dtype/type.h"
#include "dtype/typed.h"

#define CHUNK 8192
#define DIRECT_MIN 512
#define ROP_CHUNK ((size_t)64 * 1024)
#define ROP_PIECE_MAX 16384 /* where the transport has remote memory access */
/* A descriptor larger than this share of a chunk goes piece by piece. */
#define ROP_DESC_SHARE 4

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
void gk__typed_gather(char *buf, const char *base, struct gk__dt_cursor *c, uint64_t n)
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

void gk__typed_skip(struct gk__dt_cursor *c, uint64_t n)
{
    while (n > 0) {
        uint64_t m = c->len < n ? c->len : n;
        gk__dt_cursor_advance(c, m);
        n -= m;
    }
}

/* typed.h; a refusal is logged here, since a put's sender never hears
 * why and a get's caller only says that it was refused. */
int gk__typed_rop_check(const char *kind, const uint64_t *args, const void *payload,
                        size_t nbytes, uint64_t n, struct gk__dt_flat **flat,
                        struct gk__dt_cursor *c)
{
    char why[160] = "";
    size_t why_len = sizeof(why);
    uint64_t origin = args[0], count = args[1], first = args[2];
    uint64_t desc_len = args[3];
    uint64_t size = 0;
    int64_t lo = 0, hi = 0;
    *flat = NULL;
    if (desc_len > nbytes) {
        snprintf(why, why_len, "a %llu-byte descriptor in %zu bytes",
                 (unsigned long long)desc_len, nbytes);
        goto err;
    }
    if (gk__dt_decode(payload, (size_t)desc_len, INT64_MIN, INT64_MAX, flat, why, why_len) !=
        GK_OK)
        goto err;
    if (gk__dt_span(*flat, count, &size, &lo, &hi) != GK_OK || first > size ||
        n > size - first) {
        snprintf(why, why_len, "bytes [%llu, +%llu) of %llu elements of %llu bytes",
                 (unsigned long long)first, (unsigned long long)n, (unsigned long long)count,
                 (unsigned long long)(*flat)->size);
        goto err;
    }
    /* The whole transfer's span, [origin + lo, origin + hi), in the heap. */
    uint64_t start = origin + (uint64_t)lo;
    if ((lo < 0 && origin < (uint64_t)-lo) || (lo >= 0 && start < origin) ||
        !gk__rt_own_bytes(GK__SEG_HEAP_OFFSET, (size_t)start, (size_t)(hi - lo))) {
        snprintf(why, why_len, "span [%llu, +%llu) is not in this PE's heap",
                 (unsigned long long)start, (unsigned long long)(hi - lo));
        goto err;
    }
    if (n > 0)
        gk__dt_cursor_init(c, *flat, count, first);
    return GK_OK;

err:
    free(*flat);
    *flat = NULL;
    gk__error("a typed %s's chunk from the network refused: %s", kind, why);
    return GK_ERR_UNSUPPORTED;
}

/* A typed put's chunk: the payload is the descriptor, then the chunk's
 * bytes, unpacked here. */
static int dt_put_rop(const uint64_t *args, const void *payload, size_t nbytes,
                      struct gk__net_rop_answer *answer)
{
    struct gk__dt_flat *flat;
    struct gk__dt_cursor c;
    uint64_t desc_len = args[3], n = desc_len <= nbytes ? nbytes - desc_len : 0;
    (void)answer;
    if (gk__typed_rop_check("put", args, payload, nbytes, n, &flat, &c) != GK_OK)
        return GK_ERR_UNSUPPORTED;
    if (n > 0)
        scatter(gk__rt_own(args[0]), &c,
                (const char *)payload + desc_len, n);
    free(flat);
    return GK_OK;
}

/* A typed get's chunk: the payload is the descriptor alone; the chunk,
 * answer->max bytes, is packed into the answer. */
static int dt_get_rop(const uint64_t *args, const void *payload, size_t nbytes,
                      struct gk__net_rop_answer *answer)
{
    struct gk__dt_flat *flat;
    struct gk__dt_cursor c;
    if (gk__typed_rop_check("get", args, payload, nbytes, answer->max, &flat, &c) != GK_OK)
        return GK_ERR_UNSUPPORTED;
    gk__typed_gather(answer->data, gk__rt_own(args[0]), &c,
                     answer->max);
    answer->len = answer->max;
    free(flat);
    return GK_OK;
}

__attribute__((constructor)) static void typed_register_rop(void)
{
    gk__net_rop_set(GK__NET_ROP_DT_PUT, dt_put_rop);
    gk__net_rop_set(GK__NET_ROP_DT_GET, dt_get_rop);
}

#define rop_path gk__typed_rop_path

/* What the path layer names in a report of a NULL buffer (checked before). */
#define OP_NET "a typed transfer"

uint64_t gk__typed_rop_chunk(const struct rop_path *rp, const struct gk__dt_cursor *rc,
                             uint64_t *args)
{
    args[0] = rp->origin;
    args[1] = rp->remote->count;
    args[2] = rp->remote->size - rc->left; /* its first byte */
    args[3] = rp->desc_len;
    return (uint64_t)min64(rc->left, rp->room - rp->desc_len);
}

/* Sends the bytes from rc's position on, up to a chunk, as one remote
 * operation, posted: complete at quiet, as a put, and a refusal is that
 * quiet's error. Gathers them from the local side. */
static int rop_put_chunk(int pe, const struct rop_path *rp,
                         struct gk__dt_cursor *rc, const char *src, struct gk__dt_cursor *lc)
{
    uint64_t args[GK__NET_ROP_ARGS];
    uint64_t n = gk__typed_rop_chunk(rp, rc, args);
    gk__typed_gather(rp->buf + rp->desc_len, src, lc, n);
    gk__typed_skip(rc, n);
    return gk__path_rop_post(pe, GK__NET_ROP_DT_PUT, args, rp->buf, rp->desc_len + n,
                             GK__NET_POST_QUIET);
}

/* Fetches the bytes from rc's position on, up to a chunk, as one remote
 * operation that packs them at the target; scatters them into the local
 * side. */
static int rop_get_chunk(int pe, const struct rop_path *rp,
                         struct gk__dt_cursor *rc, char *dst, struct gk__dt_cursor *lc)
{
    uint64_t args[GK__NET_ROP_ARGS];
    uint64_t n = gk__typed_rop_chunk(rp, rc, args);
    struct gk__net_rop_answer answer = {.data = rp->buf + rp->desc_len, .max = (size_t)n};
    int status = gk__path_rop(pe, GK__NET_ROP_DT_GET, args, rp->buf, rp->desc_len, &answer);
    if (status == GK_OK && answer.len != n) {
        gk__error("typed get from PE %d: a chunk came back with %zu bytes, not %llu",
                  pe, answer.len, (unsigned long long)n);
        status = GK_ERR_UNSUPPORTED;
    } else if (status == GK_ERR_UNSUPPORTED) {
        gk__error("typed get from PE %d: it refused a chunk (its log says why)", pe);
    }
    if (status == GK_OK)
        scatter(dst, lc, rp->buf + rp->desc_len, n);
    gk__typed_skip(rc, n);
    return status;
}

/* Puts through the transport: rc walks the target's pieces, lc the local
 * source's. `held`: the source stays untouched until quiet (_nbi). */
static int put_net(int pe, uint64_t seg_base, struct gk__dt_cursor *rc,
                   const char *src, struct gk__dt_cursor *lc, int held,
                   const struct rop_path *rp)
{
    char bounce[CHUNK];
    int status = GK_OK;
    while (rc->left > 0 && status == GK_OK) {
        size_t offset = (size_t)(seg_base + (uint64_t)rc->pos);
        if (rp->desc_len > 0 && rc->len < rp->piece_max) {
            status = rop_put_chunk(pe, rp, rc, src, lc);
        } else if (lc->len >= rc->len || lc->len >= DIRECT_MIN) {
            uint64_t n = (uint64_t)min64(rc->len, lc->len);
            const char *from = src + lc->pos;
            status = gk__path_put_at(OP_NET, pe, offset, from, n, GK__PATH_NO_WAKE,
                                     held ? GK__PATH_SRC_HELD : GK__PATH_SRC_FREE);
            gk__dt_cursor_advance(rc, n);
            gk__dt_cursor_advance(lc, n);
        } else {
            uint64_t n = (uint64_t)min64(rc->len, CHUNK);
            gk__typed_gather(bounce, src, lc, n);
            status = gk__path_put_at(OP_NET, pe, offset, bounce, n, GK__PATH_NO_WAKE,
                                     GK__PATH_SRC_FREE);
            gk__dt_cursor_advance(rc, n);
        }
    }
    return status;
}

/* Gets through the transport: rc walks the source's pieces at the target,
 * lc the local destination's. `later`: complete at quiet (_nbi). */
static int get_net(int pe, uint64_t seg_base, struct gk__dt_cursor *rc,
                   char *dst, struct gk__dt_cursor *lc, int later, const struct rop_path *rp)
{
    char bounce[CHUNK];
    int status = GK_OK, pending = 0;
    while (rc->left > 0 && status == GK_OK) {
        size_t offset = (size_t)(seg_base + (uint64_t)rc->pos);
        if (rp->desc_len > 0 && rc->len < rp->piece_max) {
            status = rop_get_chunk(pe, rp, rc, dst, lc);
        } else if (lc->len >= rc->len || lc->len >= DIRECT_MIN) {
            uint64_t n = (uint64_t)min64(rc->len, lc->len);
            char *to = dst + lc->pos;
            status = gk__path_get_at(OP_NET, pe, to, offset, n, GK__PATH_DST_AT_QUIET);
            pending = 1;
            gk__dt_cursor_advance(rc, n);
            gk__dt_cursor_advance(lc, n);
        } else {
            uint64_t n = (uint64_t)min64(rc->len, CHUNK);
            status = gk__path_get_at(OP_NET, pe, bounce, offset, n, GK__PATH_DST_NOW);
            if (status == GK_OK)
                scatter(dst, lc, bounce, n);
            gk__dt_cursor_advance(rc, n);
        }
    }
    /* The direct pieces were issued without waiting, so that a run of
     * small ones costs one round trip, not one each; a blocking get
     * completes them here. */
    if (status == GK_OK && pending && !later)
        status = gk__path_flush(pe);
    return status;
}

int gk__typed_rop_begin(const char *op, int pe, struct rop_path *rp, const struct side *remote)
{
    /* The share is of the chunks this transport carries, not of
     * ROP_CHUNK: a transport whose remote operations carry less still
     * takes small descriptors in chunks, where without them an accumulate
     * costs a round trip per element. */
    size_t rop_max = gk__path_rop_max(pe);
    size_t room = rop_max < ROP_CHUNK ? rop_max : ROP_CHUNK;
    size_t len = gk__dt_encoded_size(remote->flat);
    if (room < 64 || len > room / ROP_DESC_SHARE)
        return GK_OK;
    rp->room = room;
    /* Where the transport's puts are messages anyway, every piece goes in
     * chunks: they stream, where the transport's own put of a long piece
     * waits for its peer. */
    rp->piece_max = gk__path_rma_by_messages(pe) ? UINT64_MAX : ROP_PIECE_MAX;
    rp->buf = malloc(rp->room);
    if (rp->buf == NULL) {
        gk__error("%s: no memory for a %zu-byte chunk", op, rp->room);
        return GK_ERR_NOMEM;
    }
    gk__dt_encode(remote->flat, rp->buf);
    rp->desc_len = len;
    return GK_OK;
}

int gk__typed_check(const char *op, enum gk__typed_dir dir, int pe, struct side *remote,
                    struct side *local, const uint64_t *seg_base_checked, uint64_t *seg_base_p)
{
    int status = side_span(op, remote);
    if (status == GK_OK)
        status = side_span(op, local);
    if (status != GK_OK)
        return status;
    if (remote->size != local->size) {
        const struct side *d = dir == DIR_GET ? local : remote;
        const struct side *s = dir == DIR_GET ? remote : local;
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
    if (status == GK_OK)
        status = gk__rt_check_local(op, dir == DIR_GET ? "dst" : "src", local->addr,
                                    (size_t)local->size);
    *seg_base_p = (uint64_t)seg_lo - (uint64_t)remote->lo;
    return status;
}

/*
 * The transfer: `remote` is the symmetric side on pe, `local` this PE's
 * buffer; data flows local -> remote for a put.
 */
int gk__typed_xfer(const char *op, enum gk__typed_dir dir, int pe, struct side *remote,
                   struct side *local, int nbi, const uint64_t *seg_base_checked)
{
    uint64_t seg_base = 0;
    int status = gk__typed_check(op, dir, pe, remote, local, seg_base_checked, &seg_base);
    if (status != GK_OK || local->size == 0)
        return status;
    struct gk__dt_cursor rc, lc;
    gk__dt_cursor_init(&rc, remote->flat, remote->count, 0);
    gk__dt_cursor_init(&lc, local->flat, local->count, 0);
    if (dir == DIR_GET)
        gk__path_flush_wakes(); /* as gk_get: a get may be a poll */
    char *mapped = gk__path_addr(pe, (size_t)seg_base);
    if (mapped != NULL) {
        if (dir == DIR_PUT)
            gk__dt_copy(mapped, &rc, local->addr, &lc, local->size);
        else
            gk__dt_copy((char *)local->addr, &lc, mapped, &rc, local->size);
    } else {
        struct rop_path rp = {.remote = remote, .origin = seg_base};
        /* A target side of one contiguous run is one transport operation. */
        if ((uint64_t)(remote->hi - remote->lo) != remote->size)
            status = gk__typed_rop_begin(op, pe, &rp, remote);
        if (status == GK_OK && dir == DIR_PUT)
            status = put_net(pe, seg_base, &rc, local->addr, &lc, nbi, &rp);
        else if (status == GK_OK)
            status = get_net(pe, seg_base, &rc, (char *)local->addr, &lc, nbi, &rp);
        free(rp.buf);
    }
    if (status == GK_OK && dir == DIR_PUT)
        gk__path_defer_wake(pe, seg_base + (uint64_t)remote->lo, seg_base + (uint64_t)remote->hi);
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

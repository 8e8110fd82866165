/*
 * gasket_dtype.h: derived datatypes and the transfers that take them, in
 * the style of MPI's. Included by gasket.h; not meant to be included alone.
 *
 * A datatype (gk_type_t) describes where the bytes of one element lie in
 * memory: a list of (displacement, length) pieces, plus a lower bound and
 * an extent that say where the next element of an array of them starts.
 * Types are built from the base types (GK_TYPE_INT32, GK_TYPE_DOUBLE ...,
 * one for each gk_dtype_t) with the constructors below, committed once with
 * gk_type_commit(), used in as many transfers as wanted, and freed with
 * gk_type_free(). A put or get with a type on each side moves the bytes of
 * the source's pieces, in order, to the destination's pieces, in order:
 * the two sides may have different layouts as long as they hold the same
 * number of bytes (MPI's rule of matching type signatures, checked on the
 * byte count).
 *
 * Handles. gk_type_t is a plain value, like gk_sem_t: copy it, store it,
 * compare it. A handle names one type, never a later one: every call checks
 * it, and a handle used after gk_type_free() gets GK_ERR_INVALID_ARG with a
 * message naming it ("type 0x... was freed"), even when a new type now
 * sits in the same slot. GK_TYPE_NULL names no type. The base types need no
 * commit and are never freed.
 *
 * Constructors (MPI's name in brackets) build a new, uncommitted type from
 * one or more existing ones, committed or not; the old types may be freed
 * right after, the new one keeps what it needs. Counts and block lengths
 * are in elements of the old type; a stride or displacement is in extents
 * of the old type, or in bytes for the h forms; both may be negative.
 * Sizes, bounds and extents are computed at once, and a count or
 * displacement that makes one overflow (past PTRDIFF_MAX bytes) is
 * GK_ERR_INVALID_ARG with a message naming the argument and its value. A
 * count above PTRDIFF_MAX is reported as the negative number it probably
 * was. A constructor writes *type_p only on success.
 *
 * Thread safety: every call here may be made from any thread, before
 * gk_init() too (the transfers excepted); freeing a type while another
 * thread uses it is the program's error.
 */
#ifndef GASKET_DTYPE_H
#define GASKET_DTYPE_H

#ifndef GASKET_H
#error "include gasket.h, which includes gasket_dtype.h"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A datatype handle; a plain value. */
typedef struct gk_type {
    uint64_t bits;
} gk_type_t;

/** No type. */
#define GK_TYPE_NULL ((gk_type_t){0})
/* Base types: this tag and the gk_dtype_t value. */
#define GK__TYPE_BASE_TAG ((uint64_t)1 << 63)

/** The base type of a gk_dtype_t: one element of its C type. */
#define GK_TYPE_OF(dtype) ((gk_type_t){GK__TYPE_BASE_TAG | (uint64_t)(dtype)})
#define GK_TYPE_INT8 GK_TYPE_OF(GK_DTYPE_INT8)
#define GK_TYPE_INT16 GK_TYPE_OF(GK_DTYPE_INT16)
#define GK_TYPE_INT32 GK_TYPE_OF(GK_DTYPE_INT32)
#define GK_TYPE_INT64 GK_TYPE_OF(GK_DTYPE_INT64)
#define GK_TYPE_UINT8 GK_TYPE_OF(GK_DTYPE_UINT8)
#define GK_TYPE_UINT16 GK_TYPE_OF(GK_DTYPE_UINT16)
#define GK_TYPE_UINT32 GK_TYPE_OF(GK_DTYPE_UINT32)
#define GK_TYPE_UINT64 GK_TYPE_OF(GK_DTYPE_UINT64)
#define GK_TYPE_FLOAT GK_TYPE_OF(GK_DTYPE_FLOAT)
#define GK_TYPE_DOUBLE GK_TYPE_OF(GK_DTYPE_DOUBLE)
#define GK_TYPE_LONG_DOUBLE GK_TYPE_OF(GK_DTYPE_LONG_DOUBLE)
/* The value-index pairs (gk_double_int_t ...): size and extent differ
 * where the C struct has padding, as MPI_DOUBLE_INT's do. */
#define GK_TYPE_FLOAT_INT GK_TYPE_OF(GK_DTYPE_FLOAT_INT)
#define GK_TYPE_DOUBLE_INT GK_TYPE_OF(GK_DTYPE_DOUBLE_INT)
#define GK_TYPE_LONG_INT GK_TYPE_OF(GK_DTYPE_LONG_INT)
#define GK_TYPE_2INT GK_TYPE_OF(GK_DTYPE_2INT)
#define GK_TYPE_LONG_DOUBLE_INT GK_TYPE_OF(GK_DTYPE_LONG_DOUBLE_INT)
/** One byte (the same type as GK_TYPE_UINT8). */
#define GK_TYPE_BYTE GK_TYPE_UINT8

/** The order of a subarray's dimensions in memory. */
typedef enum gk_order {
    GK_ORDER_C = 0,      /* row-major: the last dimension varies fastest */
    GK_ORDER_FORTRAN = 1 /* column-major: the first dimension varies fastest */
} gk_order_t;

/** The deepest nesting a committed type may keep (see gk_type_commit()). */
#define GK_TYPE_MAX_DEPTH 32

/* ------------------------------------------------------------------------ */
/* Constructors                                                             */
/* ------------------------------------------------------------------------ */

/** `count` elements of `old`, one after the other [MPI_Type_contiguous]. */
GK_API int gk_type_contiguous(size_t count, gk_type_t old, gk_type_t *type_p);

/**
 * `count` blocks of `blocklen` elements of `old`; block i starts
 * i * stride extents of `old` after the first [MPI_Type_vector]. A column
 * of an n x m row-major matrix of doubles: gk_type_vector(n, 1, m,
 * GK_TYPE_DOUBLE, &col).
 */
GK_API int gk_type_vector(size_t count, size_t blocklen, ptrdiff_t stride, gk_type_t old,
                          gk_type_t *type_p);
/** gk_type_vector() with the stride in bytes [MPI_Type_create_hvector]. */
GK_API int gk_type_hvector(size_t count, size_t blocklen, ptrdiff_t stride_bytes,
                           gk_type_t old, gk_type_t *type_p);

/**
 * `count` blocks: block i has blocklens[i] elements of `old` and starts
 * displs[i] extents of `old` from the start [MPI_Type_indexed]. Blocks may
 * come in any order, and may overlap (a put to such a type writes the
 * overlap twice, the later block last).
 */
GK_API int gk_type_indexed(size_t count, const size_t *blocklens, const ptrdiff_t *displs,
                           gk_type_t old, gk_type_t *type_p);
/** gk_type_indexed() with displacements in bytes [MPI_Type_create_hindexed]. */
GK_API int gk_type_hindexed(size_t count, const size_t *blocklens,
                            const ptrdiff_t *displs_bytes, gk_type_t old, gk_type_t *type_p);
/** gk_type_indexed() with every block `blocklen` elements long
 * [MPI_Type_create_indexed_block]. */
GK_API int gk_type_indexed_block(size_t count, size_t blocklen, const ptrdiff_t *displs,
                                 gk_type_t old, gk_type_t *type_p);
/** The same with displacements in bytes [MPI_Type_create_hindexed_block]. */
GK_API int gk_type_hindexed_block(size_t count, size_t blocklen,
                                  const ptrdiff_t *displs_bytes, gk_type_t old,
                                  gk_type_t *type_p);

/**
 * `count` blocks, each of its own type: block i has blocklens[i] elements
 * of types[i] at displs_bytes[i] bytes from the start
 * [MPI_Type_create_struct]. As MPI implementations do, the extent is
 * rounded up to a multiple of the strictest alignment among the base
 * types inside, so an array of a C struct is described by the struct's
 * members alone: struct { double d; char c; } gives size 9, extent 16.
 * (MPICH leaves out the rounding when every member has the same type.)
 * Use gk_type_resized() for any other extent (offsetof and sizeof).
 */
GK_API int gk_type_struct(size_t count, const size_t *blocklens,
                          const ptrdiff_t *displs_bytes, const gk_type_t *types,
                          gk_type_t *type_p);

/**
 * A subarray of an `ndims`-dimensional array of `old` [MPI_Type_create_subarray]:
 * the array has sizes[d] elements along dimension d, the subarray
 * subsizes[d] (at least 1, at most sizes[d] - starts[d]) starting at
 * starts[d], laid out in `order`. Its lower bound is 0 and its extent the
 * whole array's, so consecutive elements of this type are consecutive
 * arrays. ndims: 1 to GK_TYPE_MAX_DEPTH.
 */
GK_API int gk_type_subarray(int ndims, const size_t *sizes, const size_t *subsizes,
                            const size_t *starts, gk_order_t order, gk_type_t old,
                            gk_type_t *type_p);

/**
 * `old` with lower bound `lb` and extent `extent` (bytes), its pieces
 * unchanged [MPI_Type_create_resized]: where the next element of an array
 * of it starts. The extent may be 0 or negative.
 */
GK_API int gk_type_resized(gk_type_t old, ptrdiff_t lb, ptrdiff_t extent, gk_type_t *type_p);

/** A new handle on a copy of `old`, committed if `old` is [MPI_Type_dup]. */
GK_API int gk_type_dup(gk_type_t old, gk_type_t *type_p);

/* ------------------------------------------------------------------------ */
/* Commit, free, queries                                                    */
/* ------------------------------------------------------------------------ */

/**
 * Makes a type usable in transfers [MPI_Type_commit]: flattens it into its
 * contiguous pieces, described compactly (a repeated block is one entry
 * with a count and a stride, however many times it repeats; adjacent
 * pieces are merged). Committing twice, or a base type, does nothing.
 * A type that still nests more than GK_TYPE_MAX_DEPTH levels after
 * flattening (structs inside vectors inside structs ...) is
 * GK_ERR_UNSUPPORTED; out of memory, GK_ERR_NOMEM.
 */
GK_API int gk_type_commit(gk_type_t type);

/**
 * Frees a type and sets *type to GK_TYPE_NULL [MPI_Type_free]. Types built
 * from it are not affected. Freeing a base type, GK_TYPE_NULL or a freed
 * type is GK_ERR_INVALID_ARG.
 */
GK_API int gk_type_free(gk_type_t *type);

/** The number of data bytes in one element (gaps left out) [MPI_Type_size]. */
GK_API int gk_type_size(gk_type_t type, size_t *size_p);
/** The lower bound and extent, in bytes [MPI_Type_get_extent]. */
GK_API int gk_type_extent(gk_type_t type, ptrdiff_t *lb_p, ptrdiff_t *extent_p);
/** The bounds of the bytes actually touched: the lowest byte's offset and
 * the span up to the highest [MPI_Type_get_true_extent]. */
GK_API int gk_type_true_extent(gk_type_t type, ptrdiff_t *lb_p, ptrdiff_t *extent_p);
/** 1 if `type` is committed (base types are), 0 if not; an error for a
 * handle that names no type. */
GK_API int gk_type_committed(gk_type_t type, int *committed_p);

/* ------------------------------------------------------------------------ */
/* Transfers with types                                                     */
/* ------------------------------------------------------------------------ */

/*
 * gk_put_typed copies dst_count elements' worth of data from `src` (local:
 * src_count elements of src_type) to the symmetric address `dst` on PE pe
 * (dst_count elements of dst_type); gk_get_typed the other way, from the
 * symmetric `src` on pe to the local `dst`. Both sides must hold the same
 * number of bytes (count times gk_type_size()), or the call is
 * GK_ERR_INVALID_ARG with both sizes in the message. Types must be
 * committed. The whole span the symmetric side's pieces touch is
 * bounds-checked before anything moves: GK_ERR_RANGE names the PE, the
 * span and the heap, as gk_put's does.
 *
 * How the data moves. To a PE of this node, piece by piece straight from
 * source to destination, with no staging buffer: the source's pieces and
 * the destination's are walked side by side and each step copies the
 * longest run contiguous on both. To a PE reached through a transport
 * (another host, or GK_NET_INDIRECT=1), each run contiguous at the target
 * is one transport put or get, straight from or into the local buffer
 * where that is contiguous too, else through a bounded buffer on the
 * stack (a few KiB, reused chunk after chunk): a large non-contiguous
 * transfer is never packed whole.
 *
 * Completion and ordering are gk_put's and gk_get's: gk_put_typed returns
 * when `src` may be reused, gk_get_typed when `dst` holds the data; the
 * _nbi forms leave their buffers to the library until gk_quiet(); on this
 * node every form is complete on return. gk_fence() orders them as puts.
 * A destination type whose pieces overlap is allowed (MPI forbids it);
 * which of the values written to an overlapped byte stays there is
 * defined only on this node (the last one in the type's order).
 */
GK_API int gk_put_typed(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                        const void *src, size_t src_count, gk_type_t src_type);
GK_API int gk_get_typed(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                        const void *src, size_t src_count, gk_type_t src_type);
GK_API int gk_put_typed_nbi(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                            const void *src, size_t src_count, gk_type_t src_type);
GK_API int gk_get_typed_nbi(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                            const void *src, size_t src_count, gk_type_t src_type);

/*
 * gk_accumulate_typed: each element of dst_count elements of dst_type at
 * the symmetric address `dst` on PE pe becomes itself `op` the matching
 * element of src_count elements of src_type at `src` (local), as
 * MPI_Accumulate with datatypes. Atomic per element, against other
 * accumulates and the gk_atomic_* calls on the same elements, for the ops
 * and base types gk_win_accumulate takes: GK_OP_SUM, PROD, MIN, MAX,
 * REPLACE, and BAND, BOR, BXOR on integers, over elements of INT32,
 * UINT32, INT64, UINT64, FLOAT or DOUBLE. Each type must be made of one
 * base type, the same on both sides (GK_ERR_INVALID_ARG naming both
 * otherwise), and every target element naturally aligned. Sizes and the
 * span of `dst` are checked as gk_put_typed's; a call that fails its
 * checks changes nothing.
 *
 * Completion is gk_put's: on return `src` may be reused, and the update
 * is complete at the target at gk_quiet() (gk_barrier() included). The
 * _nbi form is the same call, for symmetry with the others: its source is
 * copied before it returns.
 *
 * How the data moves: the two layouts are walked side by side, element
 * by element, with no staging buffer: CPU atomics on a PE of this node,
 * the transport's atomics where it has no remote operations; through a
 * transport that has them (UCX), packed into posted chunks of at most
 * 64 KiB that the target applies with its own atomics, so a large
 * accumulate streams and keeps a bounded buffer.
 */
GK_API int gk_accumulate_typed(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                               const void *src, size_t src_count, gk_type_t src_type,
                               gk_op_t op);
GK_API int gk_accumulate_typed_nbi(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                                   const void *src, size_t src_count, gk_type_t src_type,
                                   gk_op_t op);

/*
 * Strided puts and gets, the simplest typed transfers (OpenSHMEM's iput,
 * iget, ibput and ibget), with no type to build: `nelems` elements of
 * `elem_size` bytes, element i at dst + i * dst_stride * elem_size and
 * src + i * src_stride * elem_size (strides in elements, either sign).
 * The block forms move `nblocks` blocks of `blocksize` contiguous
 * elements, block i at i * dst_stride (src_stride) elements from the
 * first. Checks, completion and the path taken are gk_put_typed's and
 * gk_get_typed's: `dst` of gk_iput and `src` of gk_iget are symmetric.
 */
GK_API int gk_iput(int pe, void *dst, const void *src, ptrdiff_t dst_stride,
                   ptrdiff_t src_stride, size_t nelems, size_t elem_size);
GK_API int gk_iget(int pe, void *dst, const void *src, ptrdiff_t dst_stride,
                   ptrdiff_t src_stride, size_t nelems, size_t elem_size);
GK_API int gk_ibput(int pe, void *dst, const void *src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t blocksize, size_t nblocks, size_t elem_size);
GK_API int gk_ibget(int pe, void *dst, const void *src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t blocksize, size_t nblocks, size_t elem_size);
/* gk_iput and gk_iget on a context (gasket.h, "Contexts"). */
GK_API int gk_ctx_iput(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                       ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t nelems,
                       size_t elem_size);
GK_API int gk_ctx_iget(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                       ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t nelems,
                       size_t elem_size);

/* ------------------------------------------------------------------------ */
/* Typed transfers on windows                                               */
/* ------------------------------------------------------------------------ */

/*
 * MPI_Put, MPI_Get and MPI_Accumulate with datatypes: the origin's data is
 * origin_count elements of origin_type at `origin` (local memory), the
 * target's target_count elements of target_type starting at byte
 * displacement `disp` of PE pe's part of `win`. Both sides must hold the
 * same number of bytes (GK_ERR_INVALID_ARG, both sizes in the message);
 * types must be committed. Every byte the target's pieces touch must lie
 * inside pe's part (GK_ERR_RANGE, naming window, PE and span); a
 * GK_WIN_STRICT window needs an epoch (GK_ERR_EPOCH). A call that fails
 * its checks moves nothing.
 *
 * Destination first, as everywhere: the put and the accumulates take the
 * target (disp, target_count, target_type) before the origin; the get
 * takes the origin, where the data lands, before the target.
 *
 * Accumulate: target element = target element op origin element, atomic
 * per element as gk_win_accumulate's, for the ops and base types it takes
 * (INT32, UINT32, INT64, UINT64, FLOAT, DOUBLE). The type signatures must
 * match: each type is made of one base type, the same on both sides (a
 * struct of doubles accumulates into a vector of doubles; a struct of a
 * double and an int does not, GK_ERR_INVALID_ARG naming both), and every
 * target element is naturally aligned. The layouts are walked element by
 * element, so no element is ever split between two pieces.
 *
 * Completion, as gk_win_put's: on return the origin buffer may be reused
 * (put, accumulate) or holds the data (get); the operation is complete at
 * the target at gk_win_flush(), unlock, fence or complete. The _nbi forms
 * may return earlier: the origin buffer is the library's until
 * gk_win_flush_local() (or any call that completes at the target), and a
 * get's data is there only then.
 *
 * How the data moves: to a part of this node, piece by piece between the
 * mappings with no staging buffer; through a transport, each run
 * contiguous at the target is one transport operation, small origin
 * pieces gathered chunk by chunk into a bounded buffer (gk_put_typed's
 * paths). Accumulates take gk_accumulate_typed's paths: element by
 * element with atomics, or in chunks the target applies.
 */
GK_API int gk_win_put_typed(gk_win_t *win, int pe, size_t disp, size_t target_count,
                            gk_type_t target_type, const void *origin,
                            size_t origin_count, gk_type_t origin_type);
GK_API int gk_win_get_typed(gk_win_t *win, int pe, void *origin, size_t origin_count,
                            gk_type_t origin_type, size_t disp, size_t target_count,
                            gk_type_t target_type);
GK_API int gk_win_accumulate_typed(gk_win_t *win, int pe, size_t disp,
                                   size_t target_count, gk_type_t target_type,
                                   const void *origin, size_t origin_count,
                                   gk_type_t origin_type, gk_op_t op);
GK_API int gk_win_put_typed_nbi(gk_win_t *win, int pe, size_t disp, size_t target_count,
                                gk_type_t target_type, const void *origin,
                                size_t origin_count, gk_type_t origin_type);
GK_API int gk_win_get_typed_nbi(gk_win_t *win, int pe, void *origin, size_t origin_count,
                                gk_type_t origin_type, size_t disp, size_t target_count,
                                gk_type_t target_type);
GK_API int gk_win_accumulate_typed_nbi(gk_win_t *win, int pe, size_t disp,
                                       size_t target_count, gk_type_t target_type,
                                       const void *origin, size_t origin_count,
                                       gk_type_t origin_type, gk_op_t op);

#ifdef GK__CHECK_ARGS
/* A call in the old order, origin before target, passes a pointer for disp. */
#define gk_win_put_typed(win, pe, disp, tcount, ttype, origin, ocount, otype)   \
    gk_win_put_typed(win, pe, GK__INT(disp), tcount, ttype, origin, ocount, otype)
#define gk_win_put_typed_nbi(win, pe, disp, tcount, ttype, origin, ocount, otype) \
    gk_win_put_typed_nbi(win, pe, GK__INT(disp), tcount, ttype, origin, ocount, otype)
#define gk_win_accumulate_typed(win, pe, disp, tcount, ttype, origin, ocount, otype, op) \
    gk_win_accumulate_typed(win, pe, GK__INT(disp), tcount, ttype, origin, ocount,      \
                            otype, op)
#define gk_win_accumulate_typed_nbi(win, pe, disp, tcount, ttype, origin, ocount, otype, \
                                    op)                                                  \
    gk_win_accumulate_typed_nbi(win, pe, GK__INT(disp), tcount, ttype, origin, ocount,  \
                                otype, op)
#endif

#ifdef __cplusplus
}
#endif

#endif /* GASKET_DTYPE_H */

/*
 * flat.h: a committed datatype's flattened form, and the cursor that walks
 * it from any byte on.
 *
 * The form. A type's pieces are described by a small tree of nodes, kept
 * in one array with every child before its parent (so a walk from the
 * last node down always ends, and a decoder checks acyclicity with one
 * comparison per edge):
 *
 *   LEAF    len contiguous bytes at offset 0.
 *   REPEAT  `count` copies of the child node, copy i at i * stride
 *           (stride in bytes, either sign).
 *   LIST    `count` entries, each a child node placed at its own
 *           displacement: entries[first .. first + count).
 *
 * A chain of REPEATs above a LEAF is one "stack" of (count, stride) levels
 * over a contiguous leaf, the unit that pack-on-the-fly walks (the
 * non-contiguous one-sided transfers of sci-mpich-noncontig-onesided);
 * LISTs are where the stacks branch (indexed and struct types). Every node knows its data size, and
 * every LIST entry the bytes before it, so a cursor finds the piece that
 * holds byte b of the data by one division per REPEAT and one binary
 * search per LIST, going down: a transfer can start, or resume, at any
 * byte, and needs only a stack of GK_TYPE_MAX_DEPTH frames, not a buffer.
 *
 * Flattening simplifies as it goes: a REPEAT of a LEAF whose stride is the
 * leaf's length is one longer LEAF, a REPEAT of a REPEAT whose stride is
 * the inner span is one REPEAT, counts of 1 and lists of one entry vanish
 * into a displacement, adjacent LEAF entries of a list merge, a list of
 * equally spaced copies of one child becomes a REPEAT, empty blocks go,
 * and equal nodes are shared. So a vector of doubles is two nodes, and a
 * contiguous type one LEAF however it was built.
 *
 * Every node's data size is non-zero (an empty type has no nodes), and
 * every position a node can produce, relative to its origin, lies in
 * [lo, hi) with both in int64 range: the builder computes them with
 * overflow checks, and the decoder (desc.c) verifies them for a form that
 * came from elsewhere.
 */
#ifndef GK_DTYPE_FLAT_H
#define GK_DTYPE_FLAT_H

#include <stddef.h>
#include <stdint.h>

#include "gasket.h"

enum gk__dt_kind { GK__DT_LEAF = 1, GK__DT_REPEAT = 2, GK__DT_LIST = 3 };

struct gk__dt_node {
    uint32_t kind;  /* enum gk__dt_kind */
    uint32_t child; /* REPEAT: the child node; LIST: its first entry */
    uint64_t count; /* LEAF: its length; REPEAT: copies; LIST: entries */
    int64_t stride; /* REPEAT only */
    uint64_t size;  /* data bytes, non-zero */
    int64_t lo, hi; /* the bytes it touches, relative to its origin */
};

struct gk__dt_entry {
    int64_t disp;    /* where the child's origin lies, from the list's */
    uint32_t child;  /* a node before the list's */
    uint64_t before; /* data bytes in the list's earlier entries */
};

/*
 * A flattened type: nodes[root] placed at root_disp is one element; an
 * array of elements repeats it every `extent` bytes. size 0: no nodes.
 */
struct gk__dt_flat {
    uint32_t n_nodes;
    uint32_t n_entries;
    uint32_t root;
    uint32_t depth; /* nodes on the longest path from the root, root included */
    uint64_t size;
    int64_t root_disp;
    int64_t lb, extent;           /* MPI's bounds, for arrays of it */
    int64_t true_lb, true_ub;     /* the bytes one element touches */
    const struct gk__dt_node *nodes;
    const struct gk__dt_entry *entries;
};

/* The form of each base type (static, never freed); NULL for a value that
 * is not a gk_dtype_t. */
const struct gk__dt_flat *gk__dt_base_flat(int dtype);

/*
 * The form of `nblocks` blocks of `block` bytes, block i at i * stride
 * (the strided puts and gets), in caller-provided storage: no allocation.
 * GK_ERR_INVALID_ARG when a position overflows.
 */
struct gk__dt_strided {
    struct gk__dt_flat flat;
    struct gk__dt_node nodes[2];
};
int gk__dt_strided_init(struct gk__dt_strided *s, uint64_t block, uint64_t nblocks,
                        int64_t stride);

/*
 * The builder: makes a flat form from placed parts, bottom up. A part is
 * a node index (or GK__DT_NONE for nothing) with the displacement it lies
 * at; the builder interns LEAF and REPEAT nodes, so equal parts are one
 * node. Every call returns GK_OK, GK_ERR_NOMEM or GK_ERR_INVALID_ARG (an
 * overflow of int64 positions, which the caller's own checks should have
 * caught first).
 */
#define GK__DT_NONE UINT32_MAX

struct gk__dt_part {
    uint32_t node;
    int64_t disp;
};

struct gk__dt_builder {
    struct gk__dt_node *nodes;
    uint32_t n_nodes, cap_nodes;
    struct gk__dt_entry *entries;
    uint32_t n_entries, cap_entries;
    uint32_t *hash; /* interned nodes: index + 1, 0 empty */
    uint32_t hash_cap;
};

void gk__dt_builder_init(struct gk__dt_builder *b);
void gk__dt_builder_fini(struct gk__dt_builder *b);
int gk__dt_leaf(struct gk__dt_builder *b, uint64_t len, struct gk__dt_part *part_p);
int gk__dt_repeat(struct gk__dt_builder *b, uint64_t count, int64_t stride,
                  struct gk__dt_part child, struct gk__dt_part *part_p);
/* A list of n parts, in order (parts with node NONE are left out). */
int gk__dt_list(struct gk__dt_builder *b, const struct gk__dt_part *parts, size_t n,
                struct gk__dt_part *part_p);
/*
 * Ends the build with `root` as one element of the type: keeps only the
 * nodes it reaches, in order, computes the depth, and hands out one block
 * (*flat_p, freed with free()) holding the flat header, nodes and entries.
 * The bounds lb and extent are the caller's; size and true bounds come
 * from the nodes. Depth over GK_TYPE_MAX_DEPTH: GK_ERR_UNSUPPORTED (with
 * the depth in *depth_p).
 */
int gk__dt_finish(struct gk__dt_builder *b, struct gk__dt_part root, int64_t lb,
                  int64_t extent, struct gk__dt_flat **flat_p, uint32_t *depth_p);

/*
 * The cursor over `count` elements of a flat type at a buffer: positions
 * are byte offsets from the buffer's address. gk__dt_cursor_init places it
 * at data byte `offset` (of count * size); then `pos` and `len` give the
 * current piece's start and what is left of it, `left` what is left in
 * all (0: done), and gk__dt_cursor_advance moves on by n <= len bytes.
 */
struct gk__dt_frame {
    uint32_t node;
    uint64_t index;
    int64_t base; /* where this node's origin lies */
};

struct gk__dt_cursor {
    const struct gk__dt_flat *flat;
    uint64_t count;    /* elements */
    uint64_t element;  /* the current one */
    uint64_t left;     /* data bytes from the cursor to the end */
    int64_t pos;       /* the current piece's next byte */
    uint64_t len;      /* bytes left in the current piece */
    uint32_t depth;    /* frames in use */
    struct gk__dt_frame frames[GK_TYPE_MAX_DEPTH];
};

/*
 * The caller has checked that count * size fits in uint64 and that every
 * position of count elements fits in int64 (gk__dt_span). offset past the
 * end leaves the cursor done.
 */
void gk__dt_cursor_init(struct gk__dt_cursor *c, const struct gk__dt_flat *flat,
                        uint64_t count, uint64_t offset);
void gk__dt_cursor_next_piece(struct gk__dt_cursor *c);

static inline void gk__dt_cursor_advance(struct gk__dt_cursor *c, uint64_t n)
{
    c->pos += (int64_t)n;
    c->len -= n;
    c->left -= n;
    if (c->len == 0 && c->left != 0)
        gk__dt_cursor_next_piece(c);
}

/*
 * The data bytes of `count` elements (*size_p) and the span of bytes they
 * touch, [*lo_p, *hi_p) from the buffer's address (empty: both 0);
 * GK_ERR_INVALID_ARG when either overflows. Logs nothing.
 */
int gk__dt_span(const struct gk__dt_flat *flat, uint64_t count, uint64_t *size_p,
                int64_t *lo_p, int64_t *hi_p);

/* The span of `count` (>= 1) copies, `stride` apart, of something
 * spanning [lo, hi): 1, or 0 on overflow. */
int gk__dt_span_repeat(uint64_t count, int64_t stride, int64_t lo, int64_t hi, int64_t *lo_p,
                       int64_t *hi_p);

/*
 * The next stretch two cursors walk together, of at most n bytes: k
 * equal blocks of len bytes, strides apart on each side (strided: 1),
 * where one side stands in a strided run of equal blocks and the other
 * in one too or in a contiguous piece that holds several of them (its
 * `contig`, stride len); else one run of len bytes contiguous on both
 * (k = 1). gk__dt_stretch_pass moves both past it.
 */
struct gk__dt_stretch {
    uint64_t k, len;
    int64_t dstride, sstride;
    int strided, dcontig, scontig;
};
void gk__dt_stretch_next(const struct gk__dt_cursor *dc, const struct gk__dt_cursor *sc,
                         uint64_t n, struct gk__dt_stretch *st);
void gk__dt_stretch_pass(struct gk__dt_cursor *dc, struct gk__dt_cursor *sc,
                         const struct gk__dt_stretch *st);

/*
 * Copies `n` bytes from the source cursor's data to the destination's,
 * run by run (each run contiguous on both sides), advancing both: the
 * pack on the fly of a transfer between mapped memories.
 */
void gk__dt_copy(char *dst, struct gk__dt_cursor *dc, const char *src,
                 struct gk__dt_cursor *sc, uint64_t n);

#endif /* GK_DTYPE_FLAT_H */

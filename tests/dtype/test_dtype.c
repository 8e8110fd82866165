/*
 * Unit tests of the datatypes (src/dtype/): each constructor's size,
 * bounds and flattened pieces against hand-computed expectations (the
 * values MPI_Type_size, MPI_Type_get_extent and MPI_Pack give for the same
 * types), the compactness of the flattened form, cursors started at every
 * byte, the errors of the public calls with their messages, and the
 * descriptor's round trip and the decoder's refusals.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/desc.h"
#include "dtype/flat.h"
#include "dtype/type.h"
#include "gasket.h"
#include "net/net.h"
#include "gk_capture.h"
#include "gk_test.h"

struct piece {
    int64_t pos;
    uint64_t len;
};

#define MAX_PIECES 256

static const struct gk__dt_flat *flat_of(gk_type_t t)
{
    const struct gk__dt_flat *flat = NULL;
    if (gk__type_flat("test", "type", t, &flat) != GK_OK)
        GK_TEST_FAIL("type %#llx has no flat form", (unsigned long long)t.bits);
    return flat;
}

/* The pieces of count elements from data byte `offset` on. */
static size_t pieces_from(const struct gk__dt_flat *flat, uint64_t count, uint64_t offset,
                          struct piece *out)
{
    struct gk__dt_cursor c;
    size_t n = 0;
    gk__dt_cursor_init(&c, flat, count, offset);
    while (c.left > 0) {
        if (n == MAX_PIECES)
            GK_TEST_FAIL("more than %d pieces", MAX_PIECES);
        out[n].pos = c.pos;
        out[n].len = c.len;
        n++;
        gk__dt_cursor_advance(&c, c.len);
    }
    return n;
}

static void expect_pieces(gk_type_t t, uint64_t count, const struct piece *want, size_t n_want)
{
    struct piece got[MAX_PIECES];
    size_t n = pieces_from(flat_of(t), count, 0, got);
    for (size_t i = 0; i < n && i < n_want; i++) {
        if (got[i].pos != want[i].pos || got[i].len != want[i].len)
            GK_TEST_FAIL("piece %zu is (%lld, %llu), expected (%lld, %llu)", i,
                         (long long)got[i].pos, (unsigned long long)got[i].len,
                         (long long)want[i].pos, (unsigned long long)want[i].len);
    }
    ASSERT_EQ(n, n_want);
}

static void expect_bounds(gk_type_t t, size_t size, ptrdiff_t lb, ptrdiff_t extent,
                          ptrdiff_t true_lb, ptrdiff_t true_extent)
{
    size_t s = 0;
    ptrdiff_t l = 0, e = 0;
    ASSERT_EQ(gk_type_size(t, &s), GK_OK);
    ASSERT_EQ(s, size);
    ASSERT_EQ(gk_type_extent(t, &l, &e), GK_OK);
    ASSERT_EQ(l, lb);
    ASSERT_EQ(e, extent);
    ASSERT_EQ(gk_type_true_extent(t, &l, &e), GK_OK);
    ASSERT_EQ(l, true_lb);
    ASSERT_EQ(e, true_extent);
}

#define P(pos, len) {(pos), (len)}
#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Every data byte of count elements, by packing through cursors started at
 * each offset in turn: the stream from offset k must be the full stream's
 * tail from k (a transfer resumed at any byte moves the same data), for
 * one-byte steps and steps of 7.
 */
static void check_restart(gk_type_t t, uint64_t count)
{
    const struct gk__dt_flat *flat = flat_of(t);
    uint64_t total = count * flat->size;
    int64_t lo = 0, hi = 0;
    uint64_t size = 0;
    ASSERT_EQ(gk__dt_span(flat, count, &size, &lo, &hi), GK_OK);
    ASSERT_EQ(size, total);
    size_t mem = (size_t)(hi - lo);
    unsigned char *src = malloc(mem + 1);
    unsigned char *full = malloc(total + 1);
    unsigned char *part = malloc(total + 1);
    for (size_t i = 0; i < mem; i++)
        src[i] = (unsigned char)(i * 31 + 7);
    const unsigned char *base = src - lo;
    struct gk__dt_cursor c;
    gk__dt_cursor_init(&c, flat, count, 0);
    for (uint64_t k = 0; k < total; k++) {
        ASSERT_TRUE(c.pos >= lo && c.pos + (int64_t)c.len <= hi);
        full[k] = base[c.pos];
        gk__dt_cursor_advance(&c, 1);
    }
    ASSERT_EQ(c.left, 0);
    for (uint64_t start = 0; start <= total; start++) {
        gk__dt_cursor_init(&c, flat, count, start);
        ASSERT_EQ(c.left, total - start);
        uint64_t k = start;
        while (c.left > 0) {
            uint64_t step = c.len < 7 ? c.len : 7;
            memcpy(part + k, base + c.pos, step);
            k += step;
            gk__dt_cursor_advance(&c, step);
        }
        ASSERT_EQ(k, total);
        if (memcmp(part + start, full + start, total - start) != 0)
            GK_TEST_FAIL("the stream from byte %llu differs from the full one's tail",
                         (unsigned long long)start);
    }
    free(src);
    free(full);
    free(part);
}

static gk_type_t committed(int status, gk_type_t t)
{
    if (status != GK_OK)
        GK_TEST_FAIL("constructor returned %d (%s)", status, gk_strerror(status));
    ASSERT_EQ(gk_type_commit(t), GK_OK);
    return t;
}

GK_TEST(base_types)
{
    expect_bounds(GK_TYPE_INT32, 4, 0, 4, 0, 4);
    expect_bounds(GK_TYPE_DOUBLE, 8, 0, 8, 0, 8);
    expect_bounds(GK_TYPE_BYTE, 1, 0, 1, 0, 1);
    /* MPI_DOUBLE_INT: 12 bytes of data, an extent of 16. */
    expect_bounds(GK_TYPE_DOUBLE_INT, 12, 0, 16, 0, 12);
    expect_bounds(GK_TYPE_LONG_DOUBLE_INT, sizeof(long double) + 4, 0,
                  (ptrdiff_t)sizeof(gk_long_double_int_t), 0,
                  (ptrdiff_t)sizeof(long double) + 4);
    int c = 0;
    ASSERT_EQ(gk_type_committed(GK_TYPE_FLOAT, &c), GK_OK);
    ASSERT_EQ(c, 1);
    ASSERT_EQ(gk_type_commit(GK_TYPE_FLOAT), GK_OK);
    static const struct piece want[] = {P(0, 12), P(16, 12), P(32, 12)};
    expect_pieces(GK_TYPE_DOUBLE_INT, 3, want, N(want));
}

GK_TEST(contiguous_is_one_piece)
{
    gk_type_t t, tt;
    committed(gk_type_contiguous(5, GK_TYPE_INT32, &t), t);
    expect_bounds(t, 20, 0, 20, 0, 20);
    static const struct piece want[] = {P(0, 60)};
    expect_pieces(t, 3, want, N(want));
    ASSERT_EQ(flat_of(t)->n_nodes, 1);
    /* Contiguous of contiguous: still one leaf. */
    committed(gk_type_contiguous(4, t, &tt), tt);
    ASSERT_EQ(flat_of(tt)->n_nodes, 1);
    expect_bounds(tt, 80, 0, 80, 0, 80);
    ASSERT_EQ(gk_type_free(&t), GK_OK);
    ASSERT_EQ(t.bits, GK_TYPE_NULL.bits);
    ASSERT_EQ(gk_type_free(&tt), GK_OK);
}

GK_TEST(vector)
{
    gk_type_t t;
    /* 3 blocks of 2 doubles every 4: MPI_Type_vector(3, 2, 4, MPI_DOUBLE). */
    committed(gk_type_vector(3, 2, 4, GK_TYPE_DOUBLE, &t), t);
    expect_bounds(t, 48, 0, 80, 0, 80);
    static const struct piece want[] = {P(0, 16), P(32, 16), P(64, 16)};
    expect_pieces(t, 1, want, N(want));
    /* Two elements: the second starts an extent (80) later. */
    static const struct piece want2[] = {P(0, 16),  P(32, 16),  P(64, 16),
                                         P(80, 16), P(112, 16), P(144, 16)};
    expect_pieces(t, 2, want2, N(want2));
    /* A leaf and one repeat, however many blocks. */
    ASSERT_EQ(flat_of(t)->n_nodes, 2);
    ASSERT_EQ(flat_of(t)->depth, 2);
    check_restart(t, 2);
    gk_type_free(&t);

    /* A stride equal to the block: contiguous. */
    committed(gk_type_vector(4, 2, 2, GK_TYPE_DOUBLE, &t), t);
    ASSERT_EQ(flat_of(t)->n_nodes, 1);
    static const struct piece want3[] = {P(0, 64)};
    expect_pieces(t, 1, want3, N(want3));
    gk_type_free(&t);

    /* A negative stride: blocks go down from the first. */
    committed(gk_type_vector(3, 1, -2, GK_TYPE_INT32, &t), t);
    expect_bounds(t, 12, -16, 20, -16, 20);
    static const struct piece want4[] = {P(0, 4), P(-8, 4), P(-16, 4)};
    expect_pieces(t, 1, want4, N(want4));
    check_restart(t, 3);
    gk_type_free(&t);

    /* hvector: the stride in bytes. */
    committed(gk_type_hvector(2, 3, 100, GK_TYPE_INT16, &t), t);
    expect_bounds(t, 12, 0, 106, 0, 106);
    static const struct piece want5[] = {P(0, 6), P(100, 6)};
    expect_pieces(t, 1, want5, N(want5));
    gk_type_free(&t);

    /* Empty vectors. */
    committed(gk_type_vector(0, 2, 4, GK_TYPE_DOUBLE, &t), t);
    expect_bounds(t, 0, 0, 0, 0, 0);
    expect_pieces(t, 5, NULL, 0);
    gk_type_free(&t);
}

GK_TEST(vector_of_vector_merges)
{
    /* A vector of rows that are themselves back to back: one repeat. */
    gk_type_t row, t;
    committed(gk_type_vector(4, 1, 3, GK_TYPE_INT32, &row), row); /* extent 40 */
    committed(gk_type_hvector(5, 1, 48, row, &t), t);           /* stride = 4 * 12 */
    ASSERT_EQ(flat_of(t)->n_nodes, 2);
    static const struct piece want[] = {P(0, 4), P(12, 4), P(24, 4), P(36, 4), P(48, 4)};
    struct piece got[MAX_PIECES];
    size_t n = pieces_from(flat_of(t), 1, 0, got);
    ASSERT_EQ(n, 20);
    for (size_t i = 0; i < N(want); i++) {
        ASSERT_EQ(got[i].pos, want[i].pos);
        ASSERT_EQ(got[i].len, want[i].len);
    }
    check_restart(t, 1);
    gk_type_free(&row);
    gk_type_free(&t);
}

GK_TEST(indexed)
{
    gk_type_t t;
    size_t bl[] = {2, 1, 3};
    ptrdiff_t d[] = {5, 0, 10};
    committed(gk_type_indexed(3, bl, d, GK_TYPE_INT32, &t), t);
    expect_bounds(t, 24, 0, 52, 0, 52);
    static const struct piece want[] = {P(20, 8), P(0, 4), P(40, 12)};
    expect_pieces(t, 1, want, N(want));
    check_restart(t, 2);
    gk_type_free(&t);

    /* Adjacent blocks merge; empty blocks vanish. */
    size_t bl2[] = {1, 0, 1, 2};
    ptrdiff_t d2[] = {0, 7, 1, 2};
    committed(gk_type_indexed(4, bl2, d2, GK_TYPE_DOUBLE, &t), t);
    expect_bounds(t, 32, 0, 32, 0, 32);
    static const struct piece want2[] = {P(0, 32)};
    expect_pieces(t, 1, want2, N(want2));
    ASSERT_EQ(flat_of(t)->n_nodes, 1);
    gk_type_free(&t);

    /* hindexed: byte displacements. */
    size_t bl3[] = {1, 2};
    ptrdiff_t d3[] = {-3, 9};
    committed(gk_type_hindexed(2, bl3, d3, GK_TYPE_INT16, &t), t);
    expect_bounds(t, 6, -3, 16, -3, 16);
    static const struct piece want3[] = {P(-3, 2), P(9, 4)};
    expect_pieces(t, 1, want3, N(want3));
    gk_type_free(&t);
}

GK_TEST(indexed_block)
{
    gk_type_t t;
    /* Equally spaced blocks: a repeat, not a list. */
    ptrdiff_t d[] = {0, 3, 6, 9};
    committed(gk_type_indexed_block(4, 1, d, GK_TYPE_DOUBLE, &t), t);
    expect_bounds(t, 32, 0, 80, 0, 80);
    ASSERT_EQ(flat_of(t)->n_nodes, 2);
    static const struct piece want[] = {P(0, 8), P(24, 8), P(48, 8), P(72, 8)};
    expect_pieces(t, 1, want, N(want));
    gk_type_free(&t);

    ptrdiff_t d2[] = {4, 0, 9};
    committed(gk_type_indexed_block(3, 2, d2, GK_TYPE_INT32, &t), t);
    expect_bounds(t, 24, 0, 44, 0, 44);
    static const struct piece want2[] = {P(16, 8), P(0, 8), P(36, 8)};
    expect_pieces(t, 1, want2, N(want2));
    /* The three entries share one leaf node. */
    ASSERT_EQ(flat_of(t)->n_nodes, 2);
    ASSERT_EQ(flat_of(t)->n_entries, 3);
    check_restart(t, 3);
    gk_type_free(&t);

    ptrdiff_t d3[] = {10, 0};
    committed(gk_type_hindexed_block(2, 3, d3, GK_TYPE_UINT8, &t), t);
    expect_bounds(t, 6, 0, 13, 0, 13);
    static const struct piece want3[] = {P(10, 3), P(0, 3)};
    expect_pieces(t, 1, want3, N(want3));
    gk_type_free(&t);
}

GK_TEST(struct_pads_like_mpi)
{
    gk_type_t t;
    /* struct { int i; double d; char c; }: size 13, extent 24, as Open MPI
     * and MPICH give. */
    size_t bl[] = {1, 1, 1};
    ptrdiff_t d[] = {0, 8, 16};
    gk_type_t ty[] = {GK_TYPE_INT32, GK_TYPE_DOUBLE, GK_TYPE_INT8};
    committed(gk_type_struct(3, bl, d, ty, &t), t);
    expect_bounds(t, 13, 0, 24, 0, 17);
    static const struct piece want[] = {P(0, 4), P(8, 9), P(24, 4), P(32, 9)};
    expect_pieces(t, 2, want, N(want));
    check_restart(t, 3);
    gk_type_free(&t);

    /* struct { double d; char c; }: 9 bytes, extent 16. */
    size_t bl2[] = {1, 1};
    ptrdiff_t d2[] = {0, 8};
    gk_type_t ty2[] = {GK_TYPE_DOUBLE, GK_TYPE_INT8};
    committed(gk_type_struct(2, bl2, d2, ty2, &t), t);
    expect_bounds(t, 9, 0, 16, 0, 9);
    ASSERT_EQ(flat_of(t)->n_nodes, 1); /* one leaf of 9 bytes */
    gk_type_free(&t);

    /* Only chars: no padding. */
    gk_type_t ty3[] = {GK_TYPE_INT8, GK_TYPE_UINT8};
    ptrdiff_t d3[] = {0, 4};
    committed(gk_type_struct(2, bl2, d3, ty3, &t), t);
    expect_bounds(t, 2, 0, 5, 0, 5);
    gk_type_free(&t);
}

GK_TEST(subarray)
{
    gk_type_t t;
    /* A 2 x 3 block at (1, 1) of a 4 x 5 row-major int array. */
    size_t sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 1};
    committed(gk_type_subarray(2, sizes, sub, starts, GK_ORDER_C, GK_TYPE_INT32, &t), t);
    expect_bounds(t, 24, 0, 80, 24, 32);
    static const struct piece want[] = {P(24, 12), P(44, 12), P(104, 12), P(124, 12)};
    expect_pieces(t, 2, want, N(want));
    check_restart(t, 2);
    gk_type_free(&t);

    /* The same numbers in Fortran order: dimension 0 varies fastest. */
    committed(gk_type_subarray(2, sizes, sub, starts, GK_ORDER_FORTRAN, GK_TYPE_INT32, &t), t);
    expect_bounds(t, 24, 0, 80, 20, 40);
    static const struct piece want2[] = {P(20, 8), P(36, 8), P(52, 8)};
    expect_pieces(t, 1, want2, N(want2));
    gk_type_free(&t);

    /* 3-D: a 2 x 2 x 2 cube at (1, 0, 2) of 3 x 4 x 5 doubles. */
    size_t s3[] = {3, 4, 5}, sub3[] = {2, 2, 2}, st3[] = {1, 0, 2};
    committed(gk_type_subarray(3, s3, sub3, st3, GK_ORDER_C, GK_TYPE_DOUBLE, &t), t);
    expect_bounds(t, 64, 0, 480, 176, 216);
    static const struct piece want3[] = {P(176, 16), P(216, 16), P(336, 16), P(376, 16)};
    expect_pieces(t, 1, want3, N(want3));
    check_restart(t, 2);
    gk_type_free(&t);

    /* The whole array: one piece. */
    size_t full[] = {0, 0};
    committed(gk_type_subarray(2, sizes, sizes, full, GK_ORDER_C, GK_TYPE_INT32, &t), t);
    static const struct piece want4[] = {P(0, 160)};
    expect_pieces(t, 2, want4, N(want4));
    gk_type_free(&t);
}

GK_TEST(resized_and_dup)
{
    gk_type_t t, v, d;
    committed(gk_type_resized(GK_TYPE_INT32, -4, 12, &t), t);
    expect_bounds(t, 4, -4, 12, 0, 4);
    static const struct piece want[] = {P(0, 4), P(12, 4), P(24, 4)};
    expect_pieces(t, 3, want, N(want));

    /* A vector of it: blocks of the resized type are 12 bytes apart. */
    committed(gk_type_vector(2, 2, 3, t, &v), v);
    static const struct piece want2[] = {P(0, 4), P(12, 4), P(36, 4), P(48, 4)};
    expect_pieces(v, 1, want2, N(want2));
    expect_bounds(v, 16, -4, 60, 0, 52);

    /* dup: the same type, committed because the original is. */
    ASSERT_EQ(gk_type_dup(v, &d), GK_OK);
    int c = 0;
    ASSERT_EQ(gk_type_committed(d, &c), GK_OK);
    ASSERT_EQ(c, 1);
    expect_pieces(d, 1, want2, N(want2));
    expect_bounds(d, 16, -4, 60, 0, 52);
    /* Freeing the parts first leaves the whole intact. */
    gk_type_free(&t);
    gk_type_free(&v);
    expect_pieces(d, 1, want2, N(want2));
    gk_type_free(&d);

    /* dup of an uncommitted type is uncommitted. */
    ASSERT_EQ(gk_type_contiguous(3, GK_TYPE_INT8, &t), GK_OK);
    ASSERT_EQ(gk_type_dup(t, &d), GK_OK);
    ASSERT_EQ(gk_type_committed(d, &c), GK_OK);
    ASSERT_EQ(c, 0);
    gk_type_free(&t);
    gk_type_free(&d);
}

GK_TEST(nested_types)
{
    /* A vector of structs of vectors, two elements. */
    gk_type_t inner, s, t;
    committed(gk_type_vector(2, 1, 2, GK_TYPE_INT16, &inner), inner); /* (0,2) (4,2), ext 6 */
    size_t bl[] = {1, 2};
    ptrdiff_t d[] = {0, 8};
    gk_type_t ty[] = {GK_TYPE_INT32, inner};
    committed(gk_type_struct(2, bl, d, ty, &s), s);
    /* int at 0; inner at 8: (8,2) (12,2); inner at 14: (14,2) (18,2).
     * ub 20, align 4: extent 20. Pieces that meet across two copies of
     * inner stay two (the flattening merges within a level, not across). */
    expect_bounds(s, 12, 0, 20, 0, 20);
    static const struct piece want[] = {P(0, 4), P(8, 2), P(12, 2), P(14, 2), P(18, 2)};
    expect_pieces(s, 1, want, N(want));
    committed(gk_type_hvector(2, 1, 64, s, &t), t);
    static const struct piece want2[] = {P(0, 4),  P(8, 2),  P(12, 2), P(14, 2), P(18, 2),
                                         P(64, 4), P(72, 2), P(76, 2), P(78, 2), P(82, 2)};
    expect_pieces(t, 1, want2, N(want2));
    check_restart(t, 3);
    gk_type_free(&inner);
    gk_type_free(&s);
    gk_type_free(&t);
}

/* A type nesting `levels` lists: hindexed at bytes {0, 1, 3} of the last. */
static gk_type_t deep_type(int levels)
{
    gk_type_t t = GK_TYPE_INT8;
    size_t bl[] = {1, 1, 1};
    ptrdiff_t d[] = {0, 1, 3};
    for (int i = 0; i < levels; i++) {
        gk_type_t next;
        ASSERT_EQ(gk_type_hindexed(3, bl, d, t, &next), GK_OK);
        if (i > 0)
            gk_type_free(&t);
        t = next;
    }
    return t;
}

GK_TEST(depth_limit)
{
    gk_type_t ok = deep_type(GK_TYPE_MAX_DEPTH - 1);
    ASSERT_EQ(gk_type_commit(ok), GK_OK);
    ASSERT_LE(flat_of(ok)->depth, GK_TYPE_MAX_DEPTH);
    gk_type_free(&ok);
    gk_type_t deep = deep_type(GK_TYPE_MAX_DEPTH + 4);
    gk_capture_begin();
    int status = gk_type_commit(deep);
    const char *text = gk_capture_end();
    ASSERT_EQ(status, GK_ERR_UNSUPPORTED);
    ASSERT_CONTAINS(text, "gk_type_commit: the type nests");
    ASSERT_CONTAINS(text, "GK_TYPE_MAX_DEPTH (32)");
    gk_type_free(&deep);
}

/* The call returns `code` and logs one line with every needle. */
#define EXPECT_ERROR(code, call, ...)                                                    \
    do {                                                                                 \
        gk_capture_begin();                                                              \
        int status_ = (call);                                                            \
        const char *text_ = gk_capture_end();                                            \
        ASSERT_EQ(status_, (code));                                                      \
        ASSERT_EQ(gk_capture_count(text_, "error"), 1);                                  \
        const char *needles_[] = {__VA_ARGS__};                                          \
        for (size_t k_ = 0; k_ < sizeof(needles_) / sizeof(needles_[0]); k_++)           \
            ASSERT_CONTAINS(text_, needles_[k_]);                                        \
    } while (0)

GK_TEST(constructor_errors)
{
    gk_type_t t = GK_TYPE_NULL;
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_contiguous((size_t)-1, GK_TYPE_INT32, &t),
                 "gk_type_contiguous: count 18446744073709551615 is too large",
                 "as a signed number: -1");
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_vector(2, (size_t)-3, 1, GK_TYPE_INT32, &t),
                 "gk_type_vector: blocklen", "-3");
    EXPECT_ERROR(GK_ERR_INVALID_ARG,
                 gk_type_vector(3, 1, PTRDIFF_MAX / 2, GK_TYPE_INT32, &t),
                 "gk_type_vector: stride 4611686018427387903 times the extent of old",
                 "overflows");
    EXPECT_ERROR(GK_ERR_INVALID_ARG,
                 gk_type_hvector(3, 1, PTRDIFF_MAX / 2 + 1, GK_TYPE_INT32, &t),
                 "gk_type_hvector:", "count 3, blocklen 1, stride 4611686018427387904 bytes",
                 "overflows");
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_contiguous(4, GK_TYPE_NULL, &t),
                 "gk_type_contiguous: old is GK_TYPE_NULL");
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_contiguous(4, GK_TYPE_OF(77), &t),
                 "old 0x800000000000004d is not a type");
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_contiguous(4, GK_TYPE_INT8, NULL),
                 "gk_type_contiguous: type_p is NULL");
    size_t bl[] = {1, (size_t)-2};
    ptrdiff_t d[] = {0, 4};
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_indexed(2, bl, d, GK_TYPE_INT32, &t),
                 "gk_type_indexed: blocklens[1] 18446744073709551614 is too large");
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_indexed(2, NULL, d, GK_TYPE_INT32, &t),
                 "gk_type_indexed: blocklens is NULL with count 2");
    ptrdiff_t big[] = {0, PTRDIFF_MAX};
    size_t one[] = {1, 1};
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_indexed(2, one, big, GK_TYPE_INT32, &t),
                 "gk_type_indexed: displs[1] 9223372036854775807 times the extent");
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_hindexed(2, one, big, GK_TYPE_INT32, &t),
                 "gk_type_hindexed: block 1", "overflows");
    gk_type_t types[] = {GK_TYPE_INT32, GK_TYPE_OF(99)};
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_struct(2, one, d, types, &t),
                 "gk_type_struct: types[1]");
    size_t sizes[] = {4, 5}, sub[] = {2, 6}, starts[] = {0, 0};
    EXPECT_ERROR(GK_ERR_INVALID_ARG,
                 gk_type_subarray(2, sizes, sub, starts, GK_ORDER_C, GK_TYPE_INT32, &t),
                 "gk_type_subarray: dimension 1: sizes[1] 5, subsizes[1] 6");
    EXPECT_ERROR(GK_ERR_INVALID_ARG,
                 gk_type_subarray(0, sizes, sub, starts, GK_ORDER_C, GK_TYPE_INT32, &t),
                 "ndims 0 is not in [1, 32]");
    EXPECT_ERROR(GK_ERR_INVALID_ARG,
                 gk_type_subarray(2, sizes, sizes, starts, (gk_order_t)7, GK_TYPE_INT32, &t),
                 "order 7 is neither");
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_resized(GK_TYPE_INT32, PTRDIFF_MAX, 1, &t),
                 "gk_type_resized: lb 9223372036854775807 + extent 1 overflows");
    /* Nothing was written on failure. */
    ASSERT_EQ(t.bits, GK_TYPE_NULL.bits);
}

GK_TEST(handle_errors)
{
    gk_type_t t, old;
    ASSERT_EQ(gk_type_contiguous(2, GK_TYPE_INT32, &t), GK_OK);
    old = t;
    ASSERT_EQ(gk_type_free(&t), GK_OK);
    size_t size = 0;
    /* A freed handle is caught, also when a new type took its slot. */
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_size(old, &size), "gk_type_size: type",
                 "was freed (generation 0, now 1)");
    gk_type_t again;
    ASSERT_EQ(gk_type_contiguous(3, GK_TYPE_INT32, &again), GK_OK);
    ASSERT_EQ((uint32_t)again.bits, (uint32_t)old.bits); /* the same slot */
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_commit(old), "gk_type_commit: type",
                 "was freed");
    gk_type_t copy = old;
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_free(&copy), "gk_type_free: *type", "was freed");
    ASSERT_EQ(gk_type_size(again, &size), GK_OK);
    ASSERT_EQ(size, 12);
    gk_type_t base = GK_TYPE_DOUBLE;
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_free(&base),
                 "gk_type_free: *type is the base type GK_TYPE_OF(GK_DTYPE_DOUBLE)");
    gk_type_t null = GK_TYPE_NULL;
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_free(&null), "*type is GK_TYPE_NULL");
    gk_type_t never = {0x12345};
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_commit(never), "0x12345 is not a type");
    EXPECT_ERROR(GK_ERR_INVALID_ARG, gk_type_size(again, NULL), "gk_type_size: size_p is NULL");
    /* Uncommitted types have no flat form. */
    EXPECT_ERROR(GK_ERR_INVALID_ARG,
                 gk__type_flat("gk_put_typed", "dst_type", again, &(const struct gk__dt_flat *){0}),
                 "gk_put_typed: dst_type", "is not committed (gk_type_commit)");
    gk_type_free(&again);
}

GK_TEST(many_types)
{
    /* More than one chunk of the handle table, freed and made again. */
    enum { N_TYPES = 3000 };
    static gk_type_t ts[N_TYPES];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N_TYPES; i++)
            ASSERT_EQ(gk_type_contiguous((size_t)i + 1, GK_TYPE_INT8, &ts[i]), GK_OK);
        for (int i = 0; i < N_TYPES; i++) {
            size_t size = 0;
            ASSERT_EQ(gk_type_size(ts[i], &size), GK_OK);
            ASSERT_EQ(size, (size_t)i + 1);
            ASSERT_EQ(gk_type_free(&ts[i]), GK_OK);
        }
    }
}

GK_TEST(strided_forms)
{
    struct gk__dt_strided s;
    ASSERT_EQ(gk__dt_strided_init(&s, 8, 4, 24), GK_OK);
    struct piece got[MAX_PIECES];
    ASSERT_EQ(pieces_from(&s.flat, 1, 0, got), 4);
    ASSERT_EQ(got[3].pos, 72);
    ASSERT_EQ(s.flat.true_ub, 80);
    ASSERT_EQ(gk__dt_strided_init(&s, 8, 4, 8), GK_OK);
    ASSERT_EQ(pieces_from(&s.flat, 1, 0, got), 1);
    ASSERT_EQ(got[0].len, 32);
    ASSERT_EQ(gk__dt_strided_init(&s, 4, 3, -12), GK_OK);
    ASSERT_EQ(s.flat.true_lb, -24);
    ASSERT_EQ(pieces_from(&s.flat, 1, 0, got), 3);
    ASSERT_EQ(got[2].pos, -24);
    ASSERT_EQ(gk__dt_strided_init(&s, 0, 3, 8), GK_OK);
    ASSERT_EQ(s.flat.size, 0);
    ASSERT_EQ(gk__dt_strided_init(&s, 8, 3, INT64_MAX / 2), GK_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------ */
/* Descriptors                                                              */
/* ------------------------------------------------------------------------ */

static unsigned char *encode(gk_type_t t, size_t *len_p)
{
    const struct gk__dt_flat *flat = flat_of(t);
    *len_p = gk__dt_encoded_size(flat);
    unsigned char *buf = malloc(*len_p);
    gk__dt_encode(flat, buf);
    return buf;
}

static void expect_same_pieces(const struct gk__dt_flat *a, const struct gk__dt_flat *b,
                               uint64_t count)
{
    struct piece pa[MAX_PIECES], pb[MAX_PIECES];
    size_t na = pieces_from(a, count, 0, pa), nb = pieces_from(b, count, 0, pb);
    ASSERT_EQ(na, nb);
    for (size_t i = 0; i < na; i++) {
        ASSERT_EQ(pa[i].pos, pb[i].pos);
        ASSERT_EQ(pa[i].len, pb[i].len);
    }
}

GK_TEST(descriptor_round_trip)
{
    gk_type_t inner, s;
    committed(gk_type_vector(3, 1, 2, GK_TYPE_INT16, &inner), inner);
    size_t bl[] = {1, 2, 1};
    ptrdiff_t d[] = {0, 8, 40};
    gk_type_t ty[] = {GK_TYPE_INT32, inner, GK_TYPE_DOUBLE};
    committed(gk_type_struct(3, bl, d, ty, &s), s);
    size_t len = 0;
    unsigned char *buf = encode(s, &len);
    struct gk__dt_flat *back = NULL;
    char why[200] = "";
    ASSERT_EQ(gk__dt_decode(buf, len, -100, 100, &back, why, sizeof(why)), GK_OK);
    expect_same_pieces(flat_of(s), back, 3);
    ASSERT_EQ(back->size, flat_of(s)->size);
    ASSERT_EQ(back->extent, flat_of(s)->extent);
    free(back);

    /* The bound is checked: the struct touches [0, 48). */
    ASSERT_EQ(gk__dt_decode(buf, len, 0, 47, &back, why, sizeof(why)), GK_ERR_INVALID_ARG);
    ASSERT_CONTAINS(why, "are not inside [0, 47)");
    /* Truncated, or one byte more. */
    ASSERT_EQ(gk__dt_decode(buf, len - 1, -100, 100, &back, why, sizeof(why)),
              GK_ERR_INVALID_ARG);
    ASSERT_CONTAINS(why, "need");
    ASSERT_EQ(gk__dt_decode(buf, 10, -100, 100, &back, why, sizeof(why)), GK_ERR_INVALID_ARG);
    ASSERT_CONTAINS(why, "too few");
    /* A size that the nodes do not hold. */
    unsigned char *bad = malloc(len);
    memcpy(bad, buf, len);
    bad[24] ^= 1;
    ASSERT_EQ(gk__dt_decode(bad, len, -100, 100, &back, why, sizeof(why)), GK_ERR_INVALID_ARG);
    ASSERT_CONTAINS(why, "but the nodes hold");
    /* A child that does not come before its parent (a cycle, if it were
     * allowed): a repeat made its own child. */
    memcpy(bad, buf, len);
    uint32_t self = 0;
    while (flat_of(s)->nodes[self].kind != GK__DT_REPEAT)
        self++;
    memcpy(bad + GK__DT_DESC_HEADER + self * GK__DT_DESC_NODE + 4, &self, 4);
    ASSERT_EQ(gk__dt_decode(bad, len, -100, 100, &back, why, sizeof(why)), GK_ERR_INVALID_ARG);
    ASSERT_CONTAINS(why, "does not come before it");
    /* A zero count. */
    memcpy(bad, buf, len);
    memset(bad + GK__DT_DESC_HEADER + 8, 0, 8);
    ASSERT_EQ(gk__dt_decode(bad, len, -100, 100, &back, why, sizeof(why)), GK_ERR_INVALID_ARG);
    ASSERT_CONTAINS(why, "count 0 is not in");
    /* Not a descriptor. */
    memcpy(bad, buf, len);
    bad[0] = 'X';
    ASSERT_EQ(gk__dt_decode(bad, len, -100, 100, &back, why, sizeof(why)), GK_ERR_INVALID_ARG);
    ASSERT_CONTAINS(why, "not a version 1 descriptor");
    free(bad);
    free(buf);

    /* An empty type travels too. */
    gk_type_t e;
    committed(gk_type_contiguous(0, GK_TYPE_INT32, &e), e);
    buf = encode(e, &len);
    ASSERT_EQ(len, GK__DT_DESC_HEADER);
    ASSERT_EQ(gk__dt_decode(buf, len, 0, 0, &back, why, sizeof(why)), GK_OK);
    ASSERT_EQ(back->size, 0);
    free(back);
    free(buf);
    gk_type_free(&e);
    gk_type_free(&inner);
    gk_type_free(&s);
}

GK_TEST(descriptor_depth_is_checked)
{
    /* A chain of repeats deeper than the limit, made by hand. */
    enum { DEEP = GK_TYPE_MAX_DEPTH + 1 };
    size_t len = GK__DT_DESC_HEADER + DEEP * GK__DT_DESC_NODE;
    unsigned char *buf = calloc(1, len);
    uint32_t w;
    uint64_t q;
    w = GK__DT_DESC_MAGIC, memcpy(buf, &w, 4);
    w = GK__DT_DESC_VERSION, memcpy(buf + 4, &w, 4);
    w = DEEP, memcpy(buf + 8, &w, 4);
    w = DEEP - 1, memcpy(buf + 16, &w, 4);
    for (uint32_t i = 0; i < DEEP; i++) {
        unsigned char *n = buf + GK__DT_DESC_HEADER + i * GK__DT_DESC_NODE;
        w = i == 0 ? GK__DT_LEAF : GK__DT_REPEAT, memcpy(n, &w, 4);
        w = i == 0 ? 0 : i - 1, memcpy(n + 4, &w, 4);
        q = i == 0 ? 1 : 2, memcpy(n + 8, &q, 8);
        int64_t stride = i == 0 ? 0 : (int64_t)1 << (i - 1);
        memcpy(n + 16, &stride, 8);
    }
    struct gk__dt_flat *back = NULL;
    char why[200] = "";
    ASSERT_EQ(gk__dt_decode(buf, len, INT64_MIN, INT64_MAX, &back, why, sizeof(why)),
              GK_ERR_INVALID_ARG);
    ASSERT_CONTAINS(why, "levels deep, more than 32");
    free(buf);
}

/*
 * gk__dt_copy between two types, from data byte `start` on, against the
 * byte-by-byte copy through the same cursors: its loop over strided runs
 * of equal blocks must move the same bytes and leave the cursors where
 * one-byte steps would.
 */
static void check_copy(gk_type_t dt, uint64_t dcount, gk_type_t st, uint64_t scount,
                       uint64_t start)
{
    const struct gk__dt_flat *df = flat_of(dt), *sf = flat_of(st);
    uint64_t dsize = 0, ssize = 0;
    int64_t dlo = 0, dhi = 0, slo = 0, shi = 0;
    ASSERT_EQ(gk__dt_span(df, dcount, &dsize, &dlo, &dhi), GK_OK);
    ASSERT_EQ(gk__dt_span(sf, scount, &ssize, &slo, &shi), GK_OK);
    ASSERT_EQ(dsize, ssize);
    size_t dmem = (size_t)(dhi - dlo), smem = (size_t)(shi - slo);
    unsigned char *src = malloc(smem), *got = calloc(1, dmem), *want = calloc(1, dmem);
    for (size_t i = 0; i < smem; i++)
        src[i] = (unsigned char)(i * 131 + 17);
    struct gk__dt_cursor dc, sc, rd, rs;
    gk__dt_cursor_init(&rd, df, dcount, start);
    gk__dt_cursor_init(&rs, sf, scount, start);
    while (rd.left > 0) {
        want[rd.pos - dlo] = src[rs.pos - slo];
        gk__dt_cursor_advance(&rd, 1);
        gk__dt_cursor_advance(&rs, 1);
    }
    /* In two calls, so that the second starts wherever the first left. */
    uint64_t n = dsize - start, first = n / 3;
    gk__dt_cursor_init(&dc, df, dcount, start);
    gk__dt_cursor_init(&sc, sf, scount, start);
    gk__dt_copy((char *)got - dlo, &dc, (const char *)src - slo, &sc, first);
    ASSERT_EQ(dc.left, n - first);
    ASSERT_EQ(sc.left, n - first);
    gk__dt_copy((char *)got - dlo, &dc, (const char *)src - slo, &sc, n - first);
    ASSERT_EQ(dc.left, 0);
    ASSERT_EQ(sc.left, 0);
    if (memcmp(got, want, dmem) != 0)
        GK_TEST_FAIL("gk__dt_copy from byte %llu differs from the byte-by-byte copy",
                     (unsigned long long)start);
    free(src);
    free(got);
    free(want);
}

GK_TEST(copy_strided_runs)
{
    gk_type_t v8 = GK_TYPE_NULL, v8b = GK_TYPE_NULL, v16 = GK_TYPE_NULL, c = GK_TYPE_NULL;
    gk_type_t sub = GK_TYPE_NULL, nest = GK_TYPE_NULL;
    ASSERT_EQ(gk_type_vector(64, 8, 16, GK_TYPE_BYTE, &v8), GK_OK);
    ASSERT_EQ(gk_type_vector(64, 8, 24, GK_TYPE_BYTE, &v8b), GK_OK);
    ASSERT_EQ(gk_type_vector(32, 16, 40, GK_TYPE_BYTE, &v16), GK_OK);
    ASSERT_EQ(gk_type_contiguous(512, GK_TYPE_BYTE, &c), GK_OK);
    size_t sizes[2] = {16, 8}, subsizes[2] = {16, 4}, starts[2] = {0, 2};
    ASSERT_EQ(gk_type_subarray(2, sizes, subsizes, starts, GK_ORDER_C, GK_TYPE_DOUBLE, &sub),
              GK_OK);
    ASSERT_EQ(gk_type_vector(4, 2, 5, v8, &nest), GK_OK); /* runs inside runs */
    gk_type_t all[] = {v8, v8b, v16, c, sub, nest};
    for (size_t i = 0; i < N(all); i++)
        ASSERT_EQ(gk_type_commit(all[i]), GK_OK);
    uint64_t starts_at[] = {0, 1, 8, 13, 100, 511};
    for (size_t k = 0; k < N(starts_at); k++) {
        check_copy(v8, 1, v8b, 1, starts_at[k]);
        check_copy(v8b, 1, v16, 1, starts_at[k]);
        check_copy(v16, 1, c, 1, starts_at[k]);
        check_copy(c, 1, v8, 1, starts_at[k]);
        check_copy(sub, 1, v8, 1, starts_at[k]);
        check_copy(v8, 2, v16, 2, starts_at[k]);
        check_copy(nest, 1, v8b, 8, starts_at[k]);
        check_copy(v8, 8, nest, 1, starts_at[k]);
    }
    for (size_t i = 0; i < N(all); i++)
        ASSERT_EQ(gk_type_free(&all[i]), GK_OK);
}

/*
 * The target's side of a typed put's or get's chunk (typed_rma.c's remote
 * operations): what another PE sends is checked before a byte moves. No
 * runtime here, so this PE's heap is empty and every span is outside it.
 * A put's chunk brings its 64 bytes after the descriptor; a get's asks for
 * them back (answer.max).
 */
GK_TEST(typed_chunks_are_checked)
{
    /* Links typed_rma.c, which registers the operations. */
    static int (*volatile keep)(int, void *, size_t, gk_type_t, const void *, size_t,
                                gk_type_t) = gk_put_typed;
    (void)keep;
    gk_type_t v = GK_TYPE_NULL;
    ASSERT_EQ(gk_type_vector(64, 8, 16, GK_TYPE_BYTE, &v), GK_OK);
    ASSERT_EQ(gk_type_commit(v), GK_OK);
    const struct gk__dt_flat *flat = flat_of(v);
    size_t len = gk__dt_encoded_size(flat);
    unsigned char *buf = calloc(1, len + 64);
    unsigned char out[64];
    const enum gk__net_rop ops[] = {GK__NET_ROP_DT_PUT, GK__NET_ROP_DT_GET};
    for (size_t k = 0; k < N(ops); k++) {
        gk__net_rop_fn fn = gk__net_rop(ops[k]);
        ASSERT_TRUE(fn != NULL);
        int get = ops[k] == GK__NET_ROP_DT_GET;
        size_t sent = get ? len : len + 64; /* the payload with a full descriptor */
        struct gk__net_rop_answer answer = {.data = out, .max = get ? 64 : 0};
        gk__dt_encode(flat, buf);
        uint64_t too_long[GK__NET_ROP_ARGS] = {4096, 1, 0, len + 1};
        EXPECT_ERROR(GK_ERR_UNSUPPORTED, fn(too_long, buf, len, &answer), "descriptor in");
        /* An accumulate's type and op bits mean nothing to a put or a get. */
        uint64_t acc_bits[GK__NET_ROP_ARGS] = {4096, 1, 0, len | (uint64_t)GK_DTYPE_INT64 << 32};
        EXPECT_ERROR(GK_ERR_UNSUPPORTED, fn(acc_bits, buf, sent, &answer), "descriptor in");
        uint64_t past[GK__NET_ROP_ARGS] = {4096, 1, 500, len};
        EXPECT_ERROR(GK_ERR_UNSUPPORTED, fn(past, buf, sent, &answer), "bytes [500, +64)");
        uint64_t outside[GK__NET_ROP_ARGS] = {4096, 1, 0, len};
        EXPECT_ERROR(GK_ERR_UNSUPPORTED, fn(outside, buf, sent, &answer),
                     "not in this PE's heap");
        uint64_t wrap[GK__NET_ROP_ARGS] = {UINT64_MAX - 8, 1, 0, len};
        EXPECT_ERROR(GK_ERR_UNSUPPORTED, fn(wrap, buf, sent, &answer),
                     "not in this PE's heap");
        buf[0] ^= 1;
        EXPECT_ERROR(GK_ERR_UNSUPPORTED, fn(outside, buf, sent, &answer), "not a version");
        ASSERT_EQ(answer.len, 0);
    }
    free(buf);
    ASSERT_EQ(gk_type_free(&v), GK_OK);
}

/*
 * The target's side of a typed accumulate's chunk (typed_acc.c): its base
 * type and op are checked first, then the chunk as a put's.
 */
GK_TEST(typed_acc_chunks_are_checked)
{
    static int (*volatile keep)(int, void *, size_t, gk_type_t, const void *, size_t,
                                gk_type_t, gk_op_t) = gk_accumulate_typed;
    (void)keep;
    gk_type_t v = GK_TYPE_NULL;
    ASSERT_EQ(gk_type_vector(8, 1, 2, GK_TYPE_INT64, &v), GK_OK);
    ASSERT_EQ(gk_type_commit(v), GK_OK);
    const struct gk__dt_flat *flat = flat_of(v);
    size_t len = gk__dt_encoded_size(flat);
    unsigned char *buf = calloc(1, len + 64);
    gk__dt_encode(flat, buf);
    gk__net_rop_fn fn = gk__net_rop(GK__NET_ROP_DT_ACC);
    ASSERT_TRUE(fn != NULL);
    struct gk__net_rop_answer answer = {0};
    const struct {
        uint64_t dtype, op;
        size_t sent;
        const char *why;
    } bad[] = {
        {GK_DTYPE_INT8, GK_OP_SUM, len + 64, "refused: GK_DTYPE_INT8 is not an accumulate type"},
        {GK_DTYPE_DOUBLE, GK_OP_BXOR, len + 64, "GK_OP_BXOR is not valid for GK_DTYPE_DOUBLE"},
        {GK_DTYPE_INT64, GK_OP_NO_OP, len + 64, "refused: GK_OP_NO_OP is not valid here"},
        {GK_DTYPE_INT64, 200, len + 64, "accumulate's chunk from the network refused"},
        {GK_DTYPE_INT64, GK_OP_SUM, len + 60, "60 bytes are not whole elements of GK_DTYPE_INT64"},
        {GK_DTYPE_INT64, GK_OP_SUM, len + 64, "not in this PE's heap"},
    };
    for (size_t k = 0; k < N(bad); k++) {
        uint64_t args[GK__NET_ROP_ARGS] = {4096, 1, 0, len | bad[k].dtype << 32 | bad[k].op << 40};
        EXPECT_ERROR(GK_ERR_UNSUPPORTED, fn(args, buf, bad[k].sent, &answer), bad[k].why);
    }
    free(buf);
    ASSERT_EQ(gk_type_free(&v), GK_OK);
}

int main(int argc, char **argv)
{
    return gk_test_main(argc, argv);
}

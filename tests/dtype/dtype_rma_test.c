/*
 * dtype_rma_test: puts and gets with datatypes between PEs (gasket_dtype.h).
 *
 * Each case pairs two layouts that hold the same number of bytes: a
 * column of a matrix, indexed blocks, a vector, 3-D subarrays in C and
 * Fortran order, a padded struct, a vector with a negative stride, fine
 * pieces against coarse ones. Every PE puts to its right neighbour (and
 * itself, at 1 PE) with the layouts as (dst, src), then gets from it with
 * them as (dst, src) again. The byte offsets each layout covers are
 * computed here independently, straight from the constructors'
 * definitions, so a byte that lands anywhere but where MPI would put it
 * is caught, and every byte the destination's layout does not cover must
 * still hold its guard value. Blocking and _nbi forms; then the strided
 * calls (iput, iget, ibput, ibget), a transfer of a few MB in single
 * elements (through the transport in chunks, under GK_NET_INDIRECT=1 and
 * across hosts), and the errors: an uncommitted or freed type, sizes
 * that differ, a span outside the heap.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#define REGION ((size_t)1 << 21)
#define BASE ((ptrdiff_t)(64 * 1024)) /* layouts start here: room below too */
#define GUARD 0xee

static int me, npes;

/* A layout: a type, a count, and the byte offsets it covers, in order. */
struct layout {
    const char *name;
    gk_type_t type;
    size_t count;
    ptrdiff_t *off;
    size_t n;
};

static void off_add(struct layout *l, ptrdiff_t first, size_t len)
{
    l->off = realloc(l->off, (l->n + len) * sizeof(*l->off));
    CHECK_NOT_NULL(l->off);
    for (size_t i = 0; i < len; i++)
        l->off[l->n++] = first + (ptrdiff_t)i;
}

static struct layout contiguous_doubles(size_t n)
{
    struct layout l = {"contiguous", GK_TYPE_DOUBLE, n, NULL, 0};
    off_add(&l, 0, n * 8);
    return l;
}

/* Column 2 of an R x C row-major matrix of doubles, `count` columns' worth
 * (one element per row, C apart). */
static struct layout column(size_t rows, size_t cols)
{
    struct layout l = {"column", GK_TYPE_NULL, 1, NULL, 0};
    CHECK_OK(gk_type_vector(rows, 1, (ptrdiff_t)cols, GK_TYPE_DOUBLE, &l.type));
    for (size_t r = 0; r < rows; r++)
        off_add(&l, (ptrdiff_t)(r * cols * 8), 8);
    return l;
}

static struct layout vector_layout(size_t count, size_t bl, ptrdiff_t stride, size_t elems)
{
    struct layout l = {"vector", GK_TYPE_NULL, elems, NULL, 0};
    CHECK_OK(gk_type_vector(count, bl, stride, GK_TYPE_DOUBLE, &l.type));
    /* extent: from the lowest block to the end of the highest */
    ptrdiff_t lo = stride < 0 ? (ptrdiff_t)(count - 1) * stride : 0;
    ptrdiff_t hi = (stride > 0 ? (ptrdiff_t)(count - 1) * stride : 0) + (ptrdiff_t)bl;
    for (size_t e = 0; e < elems; e++)
        for (size_t i = 0; i < count; i++)
            off_add(&l, ((ptrdiff_t)e * (hi - lo) + (ptrdiff_t)i * stride) * 8,
                    bl * 8);
    return l;
}

static struct layout indexed_layout(void)
{
    static size_t bl[] = {2, 1, 3};
    static ptrdiff_t d[] = {5, 0, 10};
    struct layout l = {"indexed", GK_TYPE_NULL, 2, NULL, 0};
    CHECK_OK(gk_type_indexed(3, bl, d, GK_TYPE_DOUBLE, &l.type));
    for (size_t e = 0; e < 2; e++) /* extent 13 doubles */
        for (int b = 0; b < 3; b++)
            off_add(&l, (ptrdiff_t)(e * 13 + (size_t)d[b]) * 8, bl[b] * 8);
    return l;
}

/* A sub x sub x sub block of an n x n x n array of doubles at `start`. */
static struct layout cube(size_t n, size_t sub, size_t start, gk_order_t order)
{
    size_t sizes[3] = {n, n, n}, subs[3] = {sub, sub, sub};
    size_t starts[3] = {start, start + 1, start};
    struct layout l = {order == GK_ORDER_C ? "subarray C" : "subarray Fortran", GK_TYPE_NULL,
                       1, NULL, 0};
    CHECK_OK(gk_type_subarray(3, sizes, subs, starts, order, GK_TYPE_DOUBLE, &l.type));
    for (size_t i = 0; i < sub; i++)
        for (size_t j = 0; j < sub; j++)
            for (size_t k = 0; k < sub; k++) {
                /* C: index 2 varies fastest, element (a, b, c) at
                 * (a n + b) n + c; Fortran: index 0 does, at (c n + b) n + a.
                 * The loops walk the fastest index innermost. */
                size_t at;
                if (order == GK_ORDER_C)
                    at = ((starts[0] + i) * n + starts[1] + j) * n + starts[2] + k;
                else
                    at = ((starts[2] + i) * n + starts[1] + j) * n + starts[0] + k;
                off_add(&l, (ptrdiff_t)(at * 8), 8);
            }
    return l;
}

/* struct { int32_t i; double d; char c; }: size 13, extent 24. */
static struct layout struct_layout(size_t count)
{
    static size_t bl[] = {1, 1, 1};
    static ptrdiff_t d[] = {0, 8, 16};
    gk_type_t types[] = {GK_TYPE_INT32, GK_TYPE_DOUBLE, GK_TYPE_INT8};
    struct layout l = {"struct", GK_TYPE_NULL, count, NULL, 0};
    CHECK_OK(gk_type_struct(3, bl, d, types, &l.type));
    for (size_t e = 0; e < count; e++) {
        off_add(&l, (ptrdiff_t)(e * 24), 4);
        off_add(&l, (ptrdiff_t)(e * 24 + 8), 9);
    }
    return l;
}

/* Fine pieces: 3 bytes every 5, n of them. */
static struct layout fine_layout(size_t n)
{
    struct layout l = {"fine", GK_TYPE_NULL, 1, NULL, 0};
    CHECK_OK(gk_type_hvector(n, 3, 5, GK_TYPE_BYTE, &l.type));
    for (size_t i = 0; i < n; i++)
        off_add(&l, (ptrdiff_t)(i * 5), 3);
    return l;
}

static void layout_free(struct layout *l)
{
    int base = (l->type.bits >> 63) != 0;
    if (!base)
        CHECK_OK(gk_type_free(&l->type));
    free(l->off);
    l->off = NULL;
}

static unsigned char pattern(int writer, ptrdiff_t off)
{
    return (unsigned char)(writer * 37 + (off + 100000) * 11 + 5);
}

static void fill_pattern(unsigned char *region, int writer)
{
    for (ptrdiff_t i = 0; i < (ptrdiff_t)REGION; i++)
        region[i] = pattern(writer, i - BASE);
}

/* region (BASE-relative) holds writer's data from src's offsets at dst's,
 * and GUARD everywhere else. */
static void check_region(const unsigned char *region, const struct layout *dst,
                         const struct layout *src, int writer, const char *what)
{
    unsigned char *want = malloc(REGION);
    CHECK_NOT_NULL(want);
    memset(want, GUARD, REGION);
    for (size_t k = 0; k < dst->n; k++)
        want[BASE + dst->off[k]] = pattern(writer, src->off[k]);
    for (size_t i = 0; i < REGION; i++)
        if (region[i] != want[i])
            PE_FAIL("%s, dst %s, src %s: byte %td is %u, expected %u (%s)", what, dst->name,
                    src->name, (ptrdiff_t)i - BASE, region[i], want[i],
                    want[i] == GUARD ? "a guard byte" : "data");
    free(want);
}

static void commit(struct layout *l)
{
    CHECK_OK(gk_type_commit(l->type));
}

/* dst <- src put to the right neighbour and got back from it. */
static void exchange(unsigned char *sym, unsigned char *local, struct layout *dst,
                     struct layout *src, int nbi)
{
    if (dst->n != src->n)
        PE_FAIL("case %s <- %s: %zu bytes against %zu", dst->name, src->name, dst->n, src->n);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* Put: my local pattern into the right neighbour's guard-filled heap. */
    memset(sym, GUARD, REGION);
    fill_pattern(local, me);
    CHECK_OK(gk_barrier());
    if (nbi) {
        CHECK_OK(gk_put_typed_nbi(right, sym + BASE, dst->count, dst->type, local + BASE,
                                  src->count, src->type));
        CHECK_OK(gk_quiet());
    } else {
        CHECK_OK(gk_put_typed(right, sym + BASE, dst->count, dst->type, local + BASE,
                              src->count, src->type));
    }
    CHECK_OK(gk_barrier());
    check_region(sym, dst, src, left, nbi ? "gk_put_typed_nbi" : "gk_put_typed");

    /* Get: the right neighbour's heap pattern into my guard-filled buffer. */
    fill_pattern(sym, me);
    memset(local, GUARD, REGION);
    CHECK_OK(gk_barrier());
    if (nbi) {
        CHECK_OK(gk_get_typed_nbi(right, local + BASE, dst->count, dst->type, sym + BASE,
                                  src->count, src->type));
        CHECK_OK(gk_quiet());
    } else {
        CHECK_OK(gk_get_typed(right, local + BASE, dst->count, dst->type, sym + BASE,
                              src->count, src->type));
    }
    check_region(local, dst, src, right, nbi ? "gk_get_typed_nbi" : "gk_get_typed");
    CHECK_OK(gk_barrier());
}

static void typed_cases(unsigned char *sym, unsigned char *local)
{
    struct layout col = column(40, 7), c40 = contiguous_doubles(40);
    struct layout idx = indexed_layout(), vec = vector_layout(3, 4, 5, 1);
    struct layout cc = cube(9, 3, 2, GK_ORDER_C), cf = cube(9, 3, 4, GK_ORDER_FORTRAN);
    struct layout st = struct_layout(60), fine = fine_layout(260);
    struct layout neg = vector_layout(13, 2, -3, 1); /* 26 doubles, going down */
    struct layout c12 = contiguous_doubles(12), c26 = contiguous_doubles(26);
    struct layout c27 = contiguous_doubles(27);
    struct layout *all[] = {&col, &idx, &vec, &cc, &cf, &st, &fine, &neg};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        commit(all[i]);
    /* A struct array's 780 bytes of data as fine pieces, and back. */
    struct {
        struct layout *dst, *src;
    } cases[] = {
        {&col, &c40}, {&c40, &col}, {&idx, &vec},  {&vec, &idx}, {&idx, &c12},
        {&cc, &cf},   {&cf, &cc},   {&cc, &c27},   {&st, &fine}, {&fine, &st},
        {&st, &st},   {&neg, &c26}, {&c26, &neg},
    };
    for (int nbi = 0; nbi < 2; nbi++)
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            exchange(sym, local, cases[i].dst, cases[i].src, nbi);
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        layout_free(all[i]);
    layout_free(&c40);
    layout_free(&c12);
    layout_free(&c26);
    layout_free(&c27);
}

/* iput/iget (single elements) and ibput/ibget (blocks), strides of either sign. */
static void strided_cases(unsigned char *sym, unsigned char *local)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    const size_t es = 4, n = 100, bs = 3;
    const ptrdiff_t dstride = 5, sstride = -2;
    for (int block = 0; block < 2; block++) {
        size_t per = block ? bs : 1;
        struct layout d = {"strided dst", GK_TYPE_NULL, 0, NULL, 0};
        struct layout s = {"strided src", GK_TYPE_NULL, 0, NULL, 0};
        for (size_t i = 0; i < n; i++) {
            off_add(&d, (ptrdiff_t)i * dstride * (ptrdiff_t)es, per * es);
            off_add(&s, (ptrdiff_t)i * sstride * (ptrdiff_t)es, per * es);
        }
        memset(sym, GUARD, REGION);
        fill_pattern(local, me);
        CHECK_OK(gk_barrier());
        if (block)
            CHECK_OK(gk_ibput(right, sym + BASE, local + BASE, dstride, sstride, bs, n, es));
        else
            CHECK_OK(gk_iput(right, sym + BASE, local + BASE, dstride, sstride, n, es));
        CHECK_OK(gk_barrier());
        check_region(sym, &d, &s, left, block ? "gk_ibput" : "gk_iput");

        fill_pattern(sym, me);
        memset(local, GUARD, REGION);
        CHECK_OK(gk_barrier());
        if (block)
            CHECK_OK(gk_ibget(right, local + BASE, sym + BASE, dstride, sstride, bs, n, es));
        else
            CHECK_OK(gk_iget(right, local + BASE, sym + BASE, dstride, sstride, n, es));
        check_region(local, &d, &s, right, block ? "gk_ibget" : "gk_iget");
        CHECK_OK(gk_barrier());
        free(d.off);
        free(s.off);
    }
}

/* Every other double of 1.5 MB, both ways: far more than any chunk. */
static void large_case(unsigned char *sym, unsigned char *local)
{
    int right = (me + 1) % npes;
    const size_t n = 96 * 1024;
    double *src = (double *)(void *)local, *dst = (double *)(void *)sym;
    gk_type_t every_other;
    CHECK_OK(gk_type_vector(n, 1, 2, GK_TYPE_DOUBLE, &every_other));
    CHECK_OK(gk_type_commit(every_other));
    for (size_t i = 0; i < 2 * n; i++) {
        src[i] = (double)(me * 1000000 + (int)i);
        dst[i] = -1.0;
    }
    CHECK_OK(gk_barrier());
    /* src's even elements to the target's first n. */
    CHECK_OK(gk_put_typed(right, dst, n, GK_TYPE_DOUBLE, src, 1, every_other));
    CHECK_OK(gk_barrier());
    int left = (me + npes - 1) % npes;
    for (size_t i = 0; i < n; i++)
        if (dst[i] != (double)(left * 1000000 + (int)(2 * i)))
            PE_FAIL("large put: element %zu is %g", i, dst[i]);
    /* The target's first n back into my odd elements. */
    for (size_t i = 0; i < 2 * n; i++)
        src[i] = -2.0;
    CHECK_OK(gk_get_typed(right, src + 1, 1, every_other, dst, n, GK_TYPE_DOUBLE));
    for (size_t i = 0; i < 2 * n; i++) {
        double want = i % 2 ? (double)(me * 1000000 + (int)(i - 1)) : -2.0;
        if (src[i] != want)
            PE_FAIL("large get: element %zu is %g, expected %g", i, src[i], want);
    }
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_type_free(&every_other));
}

static void error_cases(unsigned char *sym, unsigned char *local)
{
    int right = (me + 1) % npes;
    gk_type_t t, freed;
    CHECK_OK(gk_type_vector(4, 1, 2, GK_TYPE_INT32, &t));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_put_typed(right, sym, 1, t, local, 4, GK_TYPE_INT32),
                 "gk_put_typed: dst_type", "is not committed");
    CHECK_OK(gk_type_commit(t));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_put_typed(right, sym, 1, t, local, 5, GK_TYPE_INT32),
                 "gk_put_typed: dst holds 16 bytes (dst_count 1 of", "but src 20",
                 "src_count 5 of GK_TYPE_OF(GK_DTYPE_INT32)");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_get_typed(right, local, 3, GK_TYPE_INT32, sym, 1, t),
                 "gk_get_typed: dst holds 12 bytes", "but src 16");
    /* The symmetric side must lie in the heap: past its end, or local
     * memory, is GK_ERR_RANGE. */
    unsigned char *past = sym + gk_heap_size();
    CHECK_LOGGED(GK_ERR_RANGE, gk_put_typed(right, past, 1, t, local, 4, GK_TYPE_INT32),
                 "gk_put_typed", "PE");
    CHECK_LOGGED(GK_ERR_RANGE, gk_get_typed(right, local, 1, t, local, 4, GK_TYPE_INT32),
                 "gk_get_typed", "PE");
    CHECK_LOGGED(GK_ERR_PE, gk_put_typed(npes, sym, 1, t, local, 4, GK_TYPE_INT32),
                 "gk_put_typed");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_put_typed(right, sym, 1, t, NULL, 4, GK_TYPE_INT32), "gk_put_typed", "src");
    CHECK_OK(gk_type_dup(t, &freed));
    gk_type_t stale = freed;
    CHECK_OK(gk_type_free(&freed));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_get_typed(right, local, 1, stale, sym, 4, GK_TYPE_INT32),
                 "gk_get_typed: dst_type", "was freed");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_iput(right, sym, local, PTRDIFF_MAX / 2, 1, 3, 4), "gk_iput: dst_stride");
    /* Nothing to move: any address, even NULL, as gk_put. */
    CHECK_OK(gk_put_typed(right, NULL, 0, t, NULL, 0, GK_TYPE_INT32));
    CHECK_OK(gk_iget(right, NULL, NULL, 3, 3, 0, 8));
    CHECK_OK(gk_type_free(&t));
    CHECK_OK(gk_barrier());
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    unsigned char *sym = gk_malloc(REGION);
    unsigned char *local = malloc(REGION);
    CHECK_NOT_NULL(sym);
    CHECK_NOT_NULL(local);
    typed_cases(sym, local);
    strided_cases(sym, local);
    large_case(sym, local);
    error_cases(sym, local);
    free(local);
    gk_free(sym);
    if (me == 0)
        PE_LOG("dtype_rma: %d PEs ok", npes);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * dtype_acc_test: accumulates with a datatype on each side into the
 * symmetric heap (gk_accumulate_typed and its _nbi form, gasket_dtype.h).
 *
 *   together   every PE adds INT64s into the same elements of PE 0 at once,
 *              round after round, through a vector (blocks with gaps) fed
 *              from a contiguous, an indexed or a subarray source in turn;
 *              blocking (the source rewritten as soon as a call returns)
 *              and _nbi (a source per round, one gk_quiet). PE 0 checks
 *              each element is its start value plus every contribution,
 *              and that every byte outside the vector's layout kept its
 *              guard value: nothing is lost to concurrency, nothing lands
 *              between the blocks.
 *   neighbour  each PE combines into its right neighbour's heap (itself at
 *              1 PE): DOUBLE MIN, MAX, PROD, REPLACE, UINT32 BXOR, BAND,
 *              BOR, FLOAT MAX, UINT64 BXOR, and SUM of DOUBLE, INT64 and
 *              INT32 where one side is a vector with a negative stride;
 *              vectors, indexed blocks, subarrays in C and Fortran order,
 *              a struct of doubles, byte-strided vectors. Values are exact
 *              in floating point, so every result is checked bit for bit.
 *              Blocking, then all _nbi and one gk_quiet.
 *   large      2 MiB of UINT64s summed into every other element of 4 MiB
 *              (many transport chunks across hosts), and back from every
 *              other element into a contiguous run (_nbi).
 *   count 0    does nothing and returns GK_OK, even with NULL buffers.
 *   errors     an uncommitted or freed type, sizes that differ, base types
 *              that differ, a type of several base types, a base type the
 *              accumulates do not take, a bitwise op on FLOAT or DOUBLE,
 *              GK_OP_NO_OP and other ops that are not valid here, a target
 *              element that is not aligned (the first element, or a later
 *              one while the first is aligned), a span wholly or partly
 *              outside the heap, a bad PE, a NULL source: each returns its
 *              code and logs one line naming the call and the culprit, for
 *              both forms, and leaves every target byte as it was.
 *
 * Expected values and the offsets each layout covers are computed here,
 * straight from the constructors' definitions, not with the library.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#define SMALL ((size_t)64 * 1024)          /* the small cases' region */
#define AREA ((size_t)4096)                /* one case's area in it */
#define MID ((ptrdiff_t)2048)              /* the layouts start here: room below */
#define LARGE_N ((size_t)256 * 1024)       /* 2 MiB of UINT64s */
#define REGION (2 * LARGE_N * 8 + SMALL)   /* 4 MiB for the large case, and more */
#define GUARD 0xee
#define ROUNDS 50
#define TOGETHER_AREA 13
#define ERROR_AREA 14

static int me, npes;

typedef int (*acc_fn)(int pe, void *dst, size_t dst_count, gk_type_t dst_type,
                      const void *src, size_t src_count, gk_type_t src_type, gk_op_t op);

/* The base types the accumulates take, as this test handles their values. */
enum kind { K_I32, K_U32, K_I64, K_U64, K_F32, K_F64 };

/* The size of an element of each. */
static const size_t kind_size[] = {
    [K_I32] = 4, [K_U32] = 4, [K_I64] = 8, [K_U64] = 8, [K_F32] = 4, [K_F64] = 8,
};

static gk_type_t kind_type(enum kind k)
{
    switch (k) {
    case K_I32:
        return GK_TYPE_INT32;
    case K_U32:
        return GK_TYPE_UINT32;
    case K_I64:
        return GK_TYPE_INT64;
    case K_U64:
        return GK_TYPE_UINT64;
    case K_F32:
        return GK_TYPE_FLOAT;
    case K_F64:
        break;
    }
    return GK_TYPE_DOUBLE;
}

union val {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
};

/* A target's start value at element k. Floating values are small
 * multiples of 1/2: sums, products and comparisons with the sources' are
 * exact. */
static union val target_value(enum kind kd, size_t k)
{
    union val v = {.u64 = 0};
    double f = (double)((int)((k * 7) % 11) - 5) * 0.5;
    switch (kd) {
    case K_I32:
        v.i32 = (int32_t)(k * 7919) - 40000;
        break;
    case K_U32:
        v.u32 = 0x9e3779b9u * (uint32_t)(k + 1);
        break;
    case K_I64:
        v.i64 = ((int64_t)k << 35) - 12345 * (int64_t)k;
        break;
    case K_U64:
        v.u64 = 0x9e3779b97f4a7c15ull * (k + 1);
        break;
    case K_F32:
        v.f32 = (float)f;
        break;
    case K_F64:
        v.f64 = f;
        break;
    }
    return v;
}

/* PE w's source value for the k-th element of its data (multiples of 1/4). */
static union val source_value(enum kind kd, int w, size_t k)
{
    union val v = {.u64 = 0};
    double f = (double)((int)((k * 5 + (size_t)w * 3) % 9) - 4) * 0.25;
    switch (kd) {
    case K_I32:
        v.i32 = (int32_t)((k + 1) * (size_t)(w + 3) * 101) - 5000;
        break;
    case K_U32:
        v.u32 = (0x85ebca6bu * (uint32_t)(k + 3 + (size_t)w * 17)) ^ ((uint32_t)w << 24);
        break;
    case K_I64:
        v.i64 = ((int64_t)(w + 1) << 33) + 77 * (int64_t)k - 999;
        break;
    case K_U64:
        v.u64 = 0xc2b2ae3d27d4eb4full * (k + 5 + (size_t)w * 31);
        break;
    case K_F32:
        v.f32 = (float)f;
        break;
    case K_F64:
        v.f64 = f;
        break;
    }
    return v;
}

#define COMBINE(field, T)                                                                \
    do {                                                                                 \
        T a = t.field, b = s.field;                                                      \
        switch (op) {                                                                    \
        case GK_OP_SUM:                                                                  \
            r.field = (T)(a + b);                                                        \
            break;                                                                       \
        case GK_OP_PROD:                                                                 \
            r.field = (T)(a * b);                                                        \
            break;                                                                       \
        case GK_OP_MIN:                                                                  \
            r.field = a < b ? a : b;                                                     \
            break;                                                                       \
        case GK_OP_MAX:                                                                  \
            r.field = a > b ? a : b;                                                     \
            break;                                                                       \
        default:                                                                         \
            r.field = b; /* GK_OP_REPLACE */                                             \
            break;                                                                       \
        }                                                                                \
    } while (0)

#define COMBINE_BITS(field, T)                                                           \
    do {                                                                                 \
        if (op == GK_OP_BAND)                                                            \
            r.field = (T)(t.field & s.field);                                            \
        else if (op == GK_OP_BOR)                                                        \
            r.field = (T)(t.field | s.field);                                            \
        else if (op == GK_OP_BXOR)                                                       \
            r.field = (T)(t.field ^ s.field);                                            \
        else                                                                             \
            COMBINE(field, T);                                                           \
    } while (0)

/* target op source, as the call should compute it (signed sums of the
 * values here never overflow). */
static union val combine(enum kind kd, gk_op_t op, union val t, union val s)
{
    union val r = {.u64 = 0};
    switch (kd) {
    case K_I32:
        COMBINE_BITS(i32, int32_t);
        break;
    case K_U32:
        COMBINE_BITS(u32, uint32_t);
        break;
    case K_I64:
        COMBINE_BITS(i64, int64_t);
        break;
    case K_U64:
        COMBINE_BITS(u64, uint64_t);
        break;
    case K_F32:
        COMBINE(f32, float);
        break;
    case K_F64:
        COMBINE(f64, double);
        break;
    }
    return r;
}

static void put_val(unsigned char *at, enum kind kd, union val v)
{
    memcpy(at, &v, kind_size[kd]); /* the union's first bytes (little or big end) */
}

/* ------------------------------------------------------------------------ */
/* Layouts: a type, a count, and the element offsets it covers, in order     */
/* ------------------------------------------------------------------------ */

struct layout {
    const char *name;
    gk_type_t type;
    size_t count;
    ptrdiff_t *off; /* in elements of the base type, from the buffer's address */
    size_t n;
    int derived; /* freed at the end */
};

static void off_add(struct layout *l, ptrdiff_t first, size_t len)
{
    l->off = realloc(l->off, (l->n + len) * sizeof(*l->off));
    CHECK_NOT_NULL(l->off);
    for (size_t i = 0; i < len; i++)
        l->off[l->n++] = first + (ptrdiff_t)i;
}

static struct layout contiguous(enum kind kd, size_t n)
{
    struct layout l = {"contiguous", kind_type(kd), n, NULL, 0, 0};
    off_add(&l, 0, n);
    return l;
}

/* `elems` vectors of `count` blocks of `bl`, `stride` elements apart. */
static struct layout vector(enum kind kd, size_t count, size_t bl, ptrdiff_t stride,
                            size_t elems)
{
    struct layout l = {stride < 0 ? "negative vector" : "vector", GK_TYPE_NULL, elems,
                       NULL, 0, 1};
    CHECK_OK(gk_type_vector(count, bl, stride, kind_type(kd), &l.type));
    /* extent: from the lowest block to the end of the highest */
    ptrdiff_t lo = stride < 0 ? (ptrdiff_t)(count - 1) * stride : 0;
    ptrdiff_t hi = (stride > 0 ? (ptrdiff_t)(count - 1) * stride : 0) + (ptrdiff_t)bl;
    for (size_t e = 0; e < elems; e++)
        for (size_t i = 0; i < count; i++)
            off_add(&l, (ptrdiff_t)e * (hi - lo) + (ptrdiff_t)i * stride, bl);
    return l;
}

/* Single elements `stride_bytes` apart (a multiple of the element size). */
static struct layout hvector(enum kind kd, size_t count, ptrdiff_t stride_bytes)
{
    struct layout l = {"hvector", GK_TYPE_NULL, 1, NULL, 0, 1};
    CHECK_OK(gk_type_hvector(count, 1, stride_bytes, kind_type(kd), &l.type));
    for (size_t i = 0; i < count; i++)
        off_add(&l, (ptrdiff_t)i * stride_bytes / (ptrdiff_t)kind_size[kd], 1);
    return l;
}

/* Blocks of bl[b] elements at d[b], in the order given; extent up to the
 * end of the highest block (the lowest displacement is 0). */
static struct layout indexed(enum kind kd, size_t nb, const size_t *bl, const ptrdiff_t *d,
                             size_t elems)
{
    struct layout l = {"indexed", GK_TYPE_NULL, elems, NULL, 0, 1};
    CHECK_OK(gk_type_indexed(nb, bl, d, kind_type(kd), &l.type));
    ptrdiff_t extent = 0;
    for (size_t b = 0; b < nb; b++)
        if (d[b] + (ptrdiff_t)bl[b] > extent)
            extent = d[b] + (ptrdiff_t)bl[b];
    for (size_t e = 0; e < elems; e++)
        for (size_t b = 0; b < nb; b++)
            off_add(&l, (ptrdiff_t)e * extent + d[b], bl[b]);
    return l;
}

/* A subs[0] x subs[1] block at starts of a sizes[0] x sizes[1] array. */
static struct layout subarray(enum kind kd, const size_t sizes[2], const size_t subs[2],
                              const size_t starts[2], gk_order_t order)
{
    struct layout l = {order == GK_ORDER_C ? "subarray C" : "subarray Fortran",
                       GK_TYPE_NULL, 1, NULL, 0, 1};
    CHECK_OK(gk_type_subarray(2, sizes, subs, starts, order, kind_type(kd), &l.type));
    /* C: index 1 varies fastest, (a, b) at a sizes[1] + b; Fortran: index 0
     * does, at b sizes[0] + a. The inner loop walks the fastest index. */
    if (order == GK_ORDER_C) {
        for (size_t a = 0; a < subs[0]; a++)
            off_add(&l, (ptrdiff_t)((starts[0] + a) * sizes[1] + starts[1]), subs[1]);
    } else {
        for (size_t b = 0; b < subs[1]; b++)
            off_add(&l, (ptrdiff_t)((starts[1] + b) * sizes[0] + starts[0]), subs[0]);
    }
    return l;
}

/* struct { double a; double gap; double b; } described by a and b: one
 * base type with a hole, size 16, extent 24. */
static struct layout struct_of_doubles(size_t elems)
{
    static const size_t bl[2] = {1, 1};
    static const ptrdiff_t d[2] = {0, 16};
    const gk_type_t types[2] = {GK_TYPE_DOUBLE, GK_TYPE_DOUBLE};
    struct layout l = {"struct of doubles", GK_TYPE_NULL, elems, NULL, 0, 1};
    CHECK_OK(gk_type_struct(2, bl, d, types, &l.type));
    for (size_t e = 0; e < elems; e++) {
        off_add(&l, (ptrdiff_t)(e * 3), 1);
        off_add(&l, (ptrdiff_t)(e * 3 + 2), 1);
    }
    return l;
}

static void layout_free(struct layout *l)
{
    if (l->derived)
        CHECK_OK(gk_type_free(&l->type));
    free(l->off);
    l->off = NULL;
}

/* Every byte of `have` as in `want`, else a failure naming the case. */
static void check_bytes(const unsigned char *have, const unsigned char *want, size_t len,
                        const char *what)
{
    if (memcmp(have, want, len) == 0)
        return;
    for (size_t i = 0; i < len; i++)
        if (have[i] != want[i])
            PE_FAIL("%s: byte %zu is 0x%02x, expected 0x%02x (%s)", what, i, have[i],
                    want[i], want[i] == GUARD ? "a guard byte" : "data");
}

/* ------------------------------------------------------------------------ */
/* Every PE into the same elements of PE 0                                   */
/* ------------------------------------------------------------------------ */

static int64_t contribution(int p, int round, size_t k)
{
    return ((int64_t)(p + 1) << 36) + (int64_t)round * 1000 + (int64_t)k - 500;
}

static void together(unsigned char *sym, int nbi)
{
    /* 2 x (20 blocks of 3, 5 apart): 120 elements over 196, with gaps. */
    struct layout dst = vector(K_I64, 20, 3, 5, 2);
    static const size_t ibl[3] = {4, 2, 6};
    static const ptrdiff_t idisp[3] = {10, 0, 20};
    static const size_t sizes[2] = {16, 20}, subs[2] = {10, 12}, starts[2] = {3, 5};
    struct layout srcs[3] = {contiguous(K_I64, 120), indexed(K_I64, 3, ibl, idisp, 10),
                             subarray(K_I64, sizes, subs, starts, GK_ORDER_C)};
    CHECK_OK(gk_type_commit(dst.type));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(gk_type_commit(srcs[i].type));
        CHECK_EQ(srcs[i].n, dst.n);
    }
    const size_t room = 320; /* elements each source's buffer spans, at most */
    int64_t *bufs = calloc(nbi ? ROUNDS * room : room, sizeof(int64_t));
    CHECK_NOT_NULL(bufs);
    unsigned char *area = sym + TOGETHER_AREA * AREA;
    unsigned char *want = malloc(AREA);
    CHECK_NOT_NULL(want);
    memset(want, GUARD, AREA);
    int64_t *base = (int64_t *)(void *)(area + MID);
    for (size_t k = 0; k < dst.n; k++) {
        int64_t v = target_value(K_I64, k).i64;
        for (int p = 0; p < npes; p++)
            for (int r = 0; r < ROUNDS; r++)
                v += contribution(p, r, k);
        memcpy(want + MID + dst.off[k] * 8, &v, 8);
    }
    if (me == 0) {
        memset(area, GUARD, AREA);
        for (size_t k = 0; k < dst.n; k++)
            base[dst.off[k]] = target_value(K_I64, k).i64;
    }
    CHECK_OK(gk_barrier());
    for (int r = 0; r < ROUNDS; r++) {
        struct layout *src = &srcs[(r + me) % 3];
        int64_t *buf = bufs + (nbi ? (size_t)r * room : 0);
        for (size_t k = 0; k < src->n; k++)
            buf[src->off[k]] = contribution(me, r, k);
        if (nbi)
            CHECK_OK(gk_accumulate_typed_nbi(0, base, dst.count, dst.type, buf, src->count,
                                             src->type, GK_OP_SUM));
        else
            CHECK_OK(gk_accumulate_typed(0, base, dst.count, dst.type, buf, src->count,
                                         src->type, GK_OP_SUM));
        /* Blocking: the source is ours again; spoil it before the next round. */
        if (!nbi)
            memset(buf, 0x77, room * sizeof(int64_t));
    }
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    if (me == 0)
        check_bytes(area, want, AREA,
                    nbi ? "together, gk_accumulate_typed_nbi" : "together, gk_accumulate_typed");
    CHECK_OK(gk_barrier());
    free(want);
    free(bufs);
    layout_free(&dst);
    for (int i = 0; i < 3; i++)
        layout_free(&srcs[i]);
}

/* ------------------------------------------------------------------------ */
/* Into the right neighbour, op by op                                       */
/* ------------------------------------------------------------------------ */

struct ncase {
    const char *what;
    enum kind kind;
    gk_op_t op;
    struct layout dst, src;
};

#define NCASES 12

static void make_ncases(struct ncase *c)
{
    static const size_t bl3[3] = {2, 1, 3};
    static const ptrdiff_t d3[3] = {5, 0, 10};
    static const size_t fs[2] = {6, 10}, fsub[2] = {4, 6}, fst[2] = {1, 2};
    static const size_t cs[2] = {5, 8}, csub[2] = {4, 6}, cst[2] = {1, 1};
    struct ncase all[NCASES] = {
        {"DOUBLE MIN", K_F64, GK_OP_MIN, vector(K_F64, 8, 3, 5, 1), contiguous(K_F64, 24)},
        {"DOUBLE MAX", K_F64, GK_OP_MAX, contiguous(K_F64, 24), struct_of_doubles(12)},
        {"DOUBLE PROD", K_F64, GK_OP_PROD, indexed(K_F64, 3, bl3, d3, 4),
         vector(K_F64, 24, 1, 2, 1)},
        {"DOUBLE REPLACE", K_F64, GK_OP_REPLACE,
         subarray(K_F64, fs, fsub, fst, GK_ORDER_FORTRAN), contiguous(K_F64, 24)},
        {"UINT32 BXOR", K_U32, GK_OP_BXOR, vector(K_U32, 12, 2, 3, 1),
         contiguous(K_U32, 24)},
        {"UINT32 BAND", K_U32, GK_OP_BAND, contiguous(K_U32, 24),
         indexed(K_U32, 3, bl3, d3, 4)},
        {"UINT32 BOR", K_U32, GK_OP_BOR, hvector(K_U32, 24, 12),
         subarray(K_U32, cs, csub, cst, GK_ORDER_C)},
        {"DOUBLE SUM", K_F64, GK_OP_SUM, vector(K_F64, 13, 2, -3, 1),
         contiguous(K_F64, 26)},
        {"INT64 SUM", K_I64, GK_OP_SUM, contiguous(K_I64, 26), vector(K_I64, 13, 2, -3, 1)},
        {"INT32 SUM", K_I32, GK_OP_SUM, vector(K_I32, 6, 4, -5, 1),
         vector(K_I32, 24, 1, 3, 1)},
        {"FLOAT MAX", K_F32, GK_OP_MAX, hvector(K_F32, 24, 8), contiguous(K_F32, 24)},
        {"UINT64 BXOR", K_U64, GK_OP_BXOR, contiguous(K_U64, 24),
         vector(K_U64, 8, 3, -4, 1)},
    };
    for (int i = 0; i < NCASES; i++) {
        c[i] = all[i];
        CHECK_EQ(c[i].dst.n, c[i].src.n);
        CHECK_OK(gk_type_commit(c[i].dst.type));
        CHECK_OK(gk_type_commit(c[i].src.type));
    }
}

static void neighbour(unsigned char *sym, unsigned char *local, struct ncase *c, int nbi)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char *want = malloc(SMALL);
    CHECK_NOT_NULL(want);
    memset(want, GUARD, SMALL);
    memset(sym, GUARD, SMALL);
    memset(local, GUARD, SMALL);
    for (int i = 0; i < NCASES; i++) {
        size_t es = kind_size[c[i].kind];
        unsigned char *dst = sym + (size_t)i * AREA + MID;
        unsigned char *src = local + (size_t)i * AREA + MID;
        unsigned char *w = want + (size_t)i * AREA + MID;
        for (size_t k = 0; k < c[i].dst.n; k++) {
            union val t = target_value(c[i].kind, k);
            put_val(dst + c[i].dst.off[k] * (ptrdiff_t)es, c[i].kind, t);
            put_val(w + c[i].dst.off[k] * (ptrdiff_t)es, c[i].kind,
                    combine(c[i].kind, c[i].op, t, source_value(c[i].kind, left, k)));
            put_val(src + c[i].src.off[k] * (ptrdiff_t)es, c[i].kind,
                    source_value(c[i].kind, me, k));
        }
    }
    CHECK_OK(gk_barrier());
    for (int i = 0; i < NCASES; i++) {
        void *dst = sym + (size_t)i * AREA + MID;
        const void *src = local + (size_t)i * AREA + MID;
        if (nbi)
            CHECK_OK(gk_accumulate_typed_nbi(right, dst, c[i].dst.count, c[i].dst.type, src,
                                             c[i].src.count, c[i].src.type, c[i].op));
        else
            CHECK_OK(gk_accumulate_typed(right, dst, c[i].dst.count, c[i].dst.type, src,
                                         c[i].src.count, c[i].src.type, c[i].op));
    }
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    for (int i = 0; i < NCASES; i++)
        check_bytes(sym + (size_t)i * AREA, want + (size_t)i * AREA, AREA,
                    pe_fmt("%s %s, dst %s, src %s", nbi ? "gk_accumulate_typed_nbi"
                                                        : "gk_accumulate_typed",
                           c[i].what, c[i].dst.name, c[i].src.name));
    check_bytes(sym + NCASES * AREA, want + NCASES * AREA, SMALL - NCASES * AREA,
                "the bytes after the neighbour cases' areas");
    CHECK_OK(gk_barrier());
    free(want);
}

/* ------------------------------------------------------------------------ */
/* Large                                                                    */
/* ------------------------------------------------------------------------ */

static uint64_t large_src(int w, size_t i)
{
    return (uint64_t)(w + 1) * 1000003u + 7 * (uint64_t)i;
}

static void large(unsigned char *sym, unsigned char *local)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    const uint64_t guard = 0xeeeeeeeeeeeeeeeeull;
    uint64_t *dst = (uint64_t *)(void *)sym, *src = (uint64_t *)(void *)local;
    gk_type_t every_other;
    CHECK_OK(gk_type_vector(LARGE_N, 1, 2, GK_TYPE_UINT64, &every_other));
    CHECK_OK(gk_type_commit(every_other));

    /* Contiguous source into every other target element. */
    for (size_t i = 0; i < 2 * LARGE_N; i++)
        dst[i] = i % 2 ? guard : 3 * (uint64_t)i;
    for (size_t i = 0; i < LARGE_N; i++)
        src[i] = large_src(me, i);
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_accumulate_typed(right, dst, 1, every_other, src, LARGE_N, GK_TYPE_UINT64,
                                 GK_OP_SUM));
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    for (size_t i = 0; i < 2 * LARGE_N; i++) {
        uint64_t want = i % 2 ? guard : 3 * (uint64_t)i + large_src(left, i / 2);
        if (dst[i] != want)
            PE_FAIL("large gk_accumulate_typed: element %zu is %llu, expected %llu", i,
                    (unsigned long long)dst[i], (unsigned long long)want);
    }
    CHECK_OK(gk_barrier());

    /* Every other source element into a contiguous target, _nbi. */
    for (size_t i = 0; i < LARGE_N; i++)
        dst[i] = 5 * (uint64_t)i;
    for (size_t i = LARGE_N; i < 2 * LARGE_N; i++)
        dst[i] = guard;
    for (size_t i = 0; i < 2 * LARGE_N; i++)
        src[i] = i % 2 ? ~(uint64_t)0 : large_src(me, i / 2) * 3;
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_accumulate_typed_nbi(right, dst, LARGE_N, GK_TYPE_UINT64, src, 1, every_other,
                                     GK_OP_SUM));
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    for (size_t i = 0; i < 2 * LARGE_N; i++) {
        uint64_t want = i < LARGE_N ? 5 * (uint64_t)i + large_src(left, i) * 3 : guard;
        if (dst[i] != want)
            PE_FAIL("large gk_accumulate_typed_nbi: element %zu is %llu, expected %llu", i,
                    (unsigned long long)dst[i], (unsigned long long)want);
    }
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_type_free(&every_other));
}

/* ------------------------------------------------------------------------ */
/* Count 0, errors                                                          */
/* ------------------------------------------------------------------------ */

static void count_zero(unsigned char *sym, unsigned char *local, acc_fn acc)
{
    int right = (me + 1) % npes;
    void *d = sym + ERROR_AREA * AREA + MID;
    gk_type_t vec;
    CHECK_OK(gk_type_vector(4, 1, 2, GK_TYPE_INT64, &vec));
    CHECK_OK(gk_type_commit(vec));
    CHECK_OK_SILENT(acc(right, d, 0, vec, local, 0, GK_TYPE_INT64, GK_OP_SUM));
    CHECK_OK_SILENT(acc(right, d, 0, GK_TYPE_DOUBLE, local, 0, GK_TYPE_DOUBLE, GK_OP_PROD));
    /* Nothing to move: any address, even NULL, as gk_put_typed. */
    CHECK_OK_SILENT(acc(right, NULL, 0, vec, NULL, 0, GK_TYPE_INT64, GK_OP_SUM));
    CHECK_OK(gk_type_free(&vec));
}

static void errors(unsigned char *sym, unsigned char *local, acc_fn acc, const char *name)
{
    int right = (me + 1) % npes;
    const char *call = pe_fmt("%s: ", name);
    const char *at_pe = pe_fmt("%s on PE %d", name, right); /* as gk_put's range errors */
    unsigned char *d = sym + ERROR_AREA * AREA + MID;
    const unsigned char *s = local; /* any values: nothing may arrive */
    gk_type_t unc, vec, freed, mixed, skew, far, below;

    CHECK_OK(gk_type_vector(4, 1, 2, GK_TYPE_INT64, &unc));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, unc, s, 4, GK_TYPE_INT64, GK_OP_SUM), call, "dst_type",
                 "is not committed");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 4, GK_TYPE_INT64, s, 1, unc, GK_OP_SUM), call, "src_type",
                 "is not committed");
    CHECK_OK(gk_type_vector(4, 1, 2, GK_TYPE_INT64, &vec));
    CHECK_OK(gk_type_commit(vec));
    CHECK_OK(gk_type_dup(vec, &freed));
    gk_type_t stale = freed;
    CHECK_OK(gk_type_free(&freed));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, stale, s, 4, GK_TYPE_INT64, GK_OP_SUM), call, "dst_type",
                 "was freed");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 4, GK_TYPE_INT64, s, 1, stale, GK_OP_SUM), call, "src_type",
                 "was freed");

    /* Sizes: 4 INT64s against 5. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, vec, s, 5, GK_TYPE_INT64, GK_OP_SUM), call,
                 "dst holds 32 bytes", "src 40");

    /* Base types: the same size, other elements. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, vec, s, 4, GK_TYPE_DOUBLE, GK_OP_SUM), call,
                 "type signatures do not match", "GK_DTYPE_INT64", "GK_DTYPE_DOUBLE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 4, GK_TYPE_UINT64, s, 4, GK_TYPE_INT64, GK_OP_MAX), call,
                 "type signatures do not match", "GK_DTYPE_UINT64", "GK_DTYPE_INT64");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 2, GK_TYPE_FLOAT, s, 2, GK_TYPE_INT32, GK_OP_SUM), call,
                 "type signatures do not match", "GK_DTYPE_FLOAT", "GK_DTYPE_INT32");

    /* struct { double; int32_t; }: 12 bytes of two base types. */
    static const size_t mbl[2] = {1, 1};
    static const ptrdiff_t mat[2] = {0, 8};
    const gk_type_t mty[2] = {GK_TYPE_DOUBLE, GK_TYPE_INT32};
    CHECK_OK(gk_type_struct(2, mbl, mat, mty, &mixed));
    CHECK_OK(gk_type_commit(mixed));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 3, GK_TYPE_INT32, s, 1, mixed, GK_OP_SUM), call, "src_type",
                 "several base types");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, mixed, s, 3, GK_TYPE_INT32, GK_OP_SUM), call, "dst_type",
                 "several base types");

    /* Base types the accumulates do not take. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 8, GK_TYPE_INT8, s, 8, GK_TYPE_INT8, GK_OP_SUM), call,
                 "GK_DTYPE_INT8");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 4, GK_TYPE_UINT16, s, 4, GK_TYPE_UINT16, GK_OP_BOR), call,
                 "GK_DTYPE_UINT16");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 2, GK_TYPE_LONG_DOUBLE, s, 2, GK_TYPE_LONG_DOUBLE,
                     GK_OP_SUM),
                 call, "GK_DTYPE_LONG_DOUBLE");

    /* Ops: bitwise on floating types, and those that are not valid here. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 4, GK_TYPE_DOUBLE, s, 4, GK_TYPE_DOUBLE, GK_OP_BXOR), call,
                 "GK_OP_BXOR", "GK_DTYPE_DOUBLE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 4, GK_TYPE_FLOAT, s, 4, GK_TYPE_FLOAT, GK_OP_BAND), call,
                 "GK_OP_BAND", "GK_DTYPE_FLOAT");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, vec, s, 4, GK_TYPE_INT64, GK_OP_NO_OP), call,
                 "GK_OP_NO_OP");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, vec, s, 4, GK_TYPE_INT64, GK_OP_MINLOC), call,
                 "GK_OP_MINLOC");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, vec, s, 4, GK_TYPE_INT64, (gk_op_t)99), call, "99");

    /* Alignment: the first target element, or the second while the first
     * is aligned (nothing may be applied before the check). */
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d + 4, 2, GK_TYPE_INT64, s, 2, GK_TYPE_INT64, GK_OP_SUM), call,
                 "not aligned");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d + 2, 2, GK_TYPE_UINT32, s, 2, GK_TYPE_UINT32, GK_OP_BXOR),
                 call, "not aligned");
    CHECK_OK(gk_type_hvector(3, 1, 12, GK_TYPE_INT64, &skew));
    CHECK_OK(gk_type_commit(skew));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 1, skew, s, 3, GK_TYPE_INT64, GK_OP_SUM), call,
                 "not aligned");

    /* Spans outside the heap: wholly, or with the first element inside. */
    CHECK_LOGGED(GK_ERR_RANGE,
                 acc(right, sym + gk_heap_size(), 4, GK_TYPE_INT64, s, 4, GK_TYPE_INT64,
                     GK_OP_SUM),
                 at_pe);
    CHECK_LOGGED(GK_ERR_RANGE,
                 acc(right, local, 4, GK_TYPE_INT64, s, 4, GK_TYPE_INT64, GK_OP_SUM),
                 at_pe);
    ptrdiff_t beyond = (ptrdiff_t)(gk_heap_size() / 8) + 64;
    CHECK_OK(gk_type_vector(2, 1, beyond, GK_TYPE_INT64, &far));
    CHECK_OK(gk_type_commit(far));
    CHECK_LOGGED(GK_ERR_RANGE,
                 acc(right, d, 1, far, s, 2, GK_TYPE_INT64, GK_OP_SUM), at_pe);
    static const size_t bbl[2] = {1, 1};
    const ptrdiff_t bd[2] = {0, -beyond};
    CHECK_OK(gk_type_indexed(2, bbl, bd, GK_TYPE_INT64, &below));
    CHECK_OK(gk_type_commit(below));
    CHECK_LOGGED(GK_ERR_RANGE,
                 acc(right, d, 1, below, s, 2, GK_TYPE_INT64, GK_OP_SUM), at_pe);

    /* The PE, the source. */
    CHECK_LOGGED(GK_ERR_PE,
                 acc(npes, d, 4, GK_TYPE_INT64, s, 4, GK_TYPE_INT64, GK_OP_SUM), call);
    CHECK_LOGGED(GK_ERR_PE,
                 acc(-1, d, 4, GK_TYPE_INT64, s, 4, GK_TYPE_INT64, GK_OP_SUM), call);
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 acc(right, d, 4, GK_TYPE_INT64, NULL, 4, GK_TYPE_INT64, GK_OP_SUM), call,
                 "src");

    CHECK_OK(gk_type_free(&unc));
    CHECK_OK(gk_type_free(&vec));
    CHECK_OK(gk_type_free(&mixed));
    CHECK_OK(gk_type_free(&skew));
    CHECK_OK(gk_type_free(&far));
    CHECK_OK(gk_type_free(&below));
}

/* Count 0 and the refused calls, both forms: afterwards every byte of the
 * targets' small region is as it was. */
static void refused(unsigned char *sym, unsigned char *local)
{
    unsigned char *want = malloc(SMALL);
    CHECK_NOT_NULL(want);
    memset(want, 0x5a, SMALL);
    memset(sym, 0x5a, SMALL);
    for (size_t i = 0; i < SMALL; i++)
        local[i] = (unsigned char)(i * 13 + 1);
    CHECK_OK(gk_barrier());
    count_zero(sym, local, gk_accumulate_typed);
    count_zero(sym, local, gk_accumulate_typed_nbi);
    errors(sym, local, gk_accumulate_typed, "gk_accumulate_typed");
    errors(sym, local, gk_accumulate_typed_nbi, "gk_accumulate_typed_nbi");
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    check_bytes(sym, want, SMALL, "the target after count 0 and refused calls");
    CHECK_OK(gk_barrier());
    free(want);
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

    together(sym, 0);
    together(sym, 1);
    struct ncase c[NCASES];
    make_ncases(c);
    neighbour(sym, local, c, 0);
    neighbour(sym, local, c, 1);
    for (int i = 0; i < NCASES; i++) {
        layout_free(&c[i].dst);
        layout_free(&c[i].src);
    }
    large(sym, local);
    refused(sym, local);

    free(local);
    gk_free(sym);
    if (me == 0)
        PE_LOG("dtype_acc: %d PEs ok", npes);
    CHECK_OK(gk_finalize());
    return 0;
}

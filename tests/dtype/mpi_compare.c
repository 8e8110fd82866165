/*
 * mpi_compare: gasket's datatypes against an MPI library's, on random
 * types. Each round builds one random type twice, with the same
 * constructor and arguments in both APIs (nested up to three levels deep:
 * contiguous, vector, hvector, indexed, hindexed, indexed_block,
 * hindexed_block, struct, subarray in both orders, resized, dup), and
 * checks that size, lower bound, extent and true extent agree, and that
 * the bytes MPI_Pack gathers from a patterned buffer for two elements are
 * the bytes gasket's cursor walks, in the same order. Counts and block
 * lengths are at least 1: MPI libraries differ among themselves on the
 * bounds of empty types (the unit tests cover those).
 *
 *   mpi_compare [ROUNDS [SEED]]     (default 3000 rounds, seed 1)
 *
 * Run as a single MPI process, without mpirun.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/flat.h"
#include "dtype/type.h"
#include "gasket.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

/* Signed in [-n, n]. */
static int around(int n)
{
    return below(2 * n + 1) - n;
}

struct pair {
    gk_type_t g;
    MPI_Datatype m;
    int derived; /* to free */
};

static unsigned long long round_no;
static char trail[4096]; /* how the current type was built */

static void fail(const char *what)
{
    fprintf(stderr, "mpi_compare: round %llu: %s\n  type: %s\n", round_no, what, trail);
    exit(1);
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    size_t len = strlen(trail);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(trail + len, sizeof(trail) - len, fmt, ap);
    va_end(ap);
}

static struct pair base(void)
{
    static const struct {
        gk_dtype_t g;
        MPI_Datatype m;
        const char *name;
    } bases[] = {
        {GK_DTYPE_INT8, MPI_INT8_T, "int8"},       {GK_DTYPE_INT16, MPI_INT16_T, "int16"},
        {GK_DTYPE_INT32, MPI_INT32_T, "int32"},    {GK_DTYPE_DOUBLE, MPI_DOUBLE, "double"},
        {GK_DTYPE_FLOAT, MPI_FLOAT, "float"},      {GK_DTYPE_UINT64, MPI_UINT64_T, "uint64"},
        {GK_DTYPE_DOUBLE_INT, MPI_DOUBLE_INT, "double_int"},
    };
    int i = below((int)(sizeof(bases) / sizeof(bases[0])));
    note("%s", bases[i].name);
    return (struct pair){GK_TYPE_OF(bases[i].g), bases[i].m, 0};
}

static void pair_free(struct pair *p)
{
    if (!p->derived)
        return;
    if (gk_type_free(&p->g) != GK_OK)
        fail("gk_type_free failed");
    MPI_Type_free(&p->m);
}

static void both(int gk_status, int mpi_status, const char *what)
{
    if (gk_status != GK_OK || mpi_status != MPI_SUCCESS) {
        char msg[160];
        snprintf(msg, sizeof(msg), "%s: gasket %d, MPI %d", what, gk_status, mpi_status);
        fail(msg);
    }
}

static void compare(struct pair *p);

/* Builds a random type in both APIs and compares it (its parts were
 * compared as they were made, so a failure names the smallest). */
static struct pair make(int depth)
{
    if (depth == 0 || below(4) == 0)
        return base();
    struct pair r = {GK_TYPE_NULL, MPI_DATATYPE_NULL, 1};
    int kind = below(11);
    enum { MAXN = 5 };
    int n = (kind == 7 ? 2 : 1) + below(kind == 7 ? MAXN - 1 : MAXN);
    int bl[MAXN], d[MAXN];
    size_t bls[MAXN];
    ptrdiff_t ds[MAXN];
    MPI_Aint da[MAXN];
    for (int i = 0; i < n; i++) {
        bl[i] = 1 + below(3);
        bls[i] = (size_t)bl[i];
        d[i] = around(12);
        ds[i] = d[i];
        da[i] = d[i];
    }
    if (kind == 7) { /* struct: its own children */
        struct pair kids[MAXN];
        gk_type_t gt[MAXN];
        MPI_Datatype mt[MAXN];
        note("struct(");
        for (int i = 0; i < n; i++) {
            da[i] = ds[i] = d[i] * 8 + below(3);
            note("%s%d x ", i ? ", " : "", bl[i]);
            /* The first two members base types, and different: MPICH
             * makes a struct of members of one type an hindexed type,
             * whose extent it does not pad, where gasket (and Open MPI)
             * pad every struct's. */
            kids[i] = i < 2 ? base() : make(depth - 1);
            while (i == 1 && kids[1].m == kids[0].m)
                kids[1] = base();
            note(" at %td", ds[i]);
            gt[i] = kids[i].g;
            mt[i] = kids[i].m;
        }
        note(")");
        both(gk_type_struct((size_t)n, bls, ds, gt, &r.g),
             MPI_Type_create_struct(n, bl, da, mt, &r.m), "struct");
        for (int i = 0; i < n; i++)
            pair_free(&kids[i]);
        compare(&r);
        return r;
    }
    int count = 1 + below(3), blocklen = 1 + below(2), stride = around(6);
    struct pair old;
    switch (kind) {
    case 0:
        note("contiguous(%d, ", count);
        old = make(depth - 1);
        both(gk_type_contiguous((size_t)count, old.g, &r.g),
             MPI_Type_contiguous(count, old.m, &r.m), "contiguous");
        break;
    case 1:
        note("vector(%d, %d, %d, ", count, blocklen, stride);
        old = make(depth - 1);
        both(gk_type_vector((size_t)count, (size_t)blocklen, stride, old.g, &r.g),
             MPI_Type_vector(count, blocklen, stride, old.m, &r.m), "vector");
        break;
    case 2:
        stride = stride * 7 + 1;
        note("hvector(%d, %d, %d, ", count, blocklen, stride);
        old = make(depth - 1);
        both(gk_type_hvector((size_t)count, (size_t)blocklen, stride, old.g, &r.g),
             MPI_Type_create_hvector(count, blocklen, stride, old.m, &r.m), "hvector");
        break;
    case 3:
        note("indexed(%d, bl %d %d, d %d %d, ", n, bl[0], bl[n - 1], d[0], d[n - 1]);
        old = make(depth - 1);
        both(gk_type_indexed((size_t)n, bls, ds, old.g, &r.g),
             MPI_Type_indexed(n, bl, d, old.m, &r.m), "indexed");
        break;
    case 4:
        for (int i = 0; i < n; i++)
            da[i] = ds[i] = d[i] * 5 + 3;
        note("hindexed(%d, ", n);
        old = make(depth - 1);
        both(gk_type_hindexed((size_t)n, bls, ds, old.g, &r.g),
             MPI_Type_create_hindexed(n, bl, da, old.m, &r.m), "hindexed");
        break;
    case 5:
        note("indexed_block(%d, %d, ", n, blocklen);
        old = make(depth - 1);
        both(gk_type_indexed_block((size_t)n, (size_t)blocklen, ds, old.g, &r.g),
             MPI_Type_create_indexed_block(n, blocklen, d, old.m, &r.m), "indexed_block");
        break;
    case 6:
        for (int i = 0; i < n; i++)
            da[i] = ds[i] = d[i] * 3;
        note("hindexed_block(%d, %d, ", n, blocklen);
        old = make(depth - 1);
        both(gk_type_hindexed_block((size_t)n, (size_t)blocklen, ds, old.g, &r.g),
             MPI_Type_create_hindexed_block(n, blocklen, da, old.m, &r.m), "hindexed_block");
        break;
    case 8: {
        int nd = 1 + below(3), sizes[3], subs[3], starts[3];
        size_t zs[3], zsub[3], zst[3];
        int fortran = below(2);
        for (int i = 0; i < nd; i++) {
            sizes[i] = 1 + below(5);
            subs[i] = 1 + below(sizes[i]);
            starts[i] = below(sizes[i] - subs[i] + 1);
            zs[i] = (size_t)sizes[i];
            zsub[i] = (size_t)subs[i];
            zst[i] = (size_t)starts[i];
        }
        note("subarray(%d dims, %s, ", nd, fortran ? "fortran" : "C");
        old = make(depth - 1);
        both(gk_type_subarray(nd, zs, zsub, zst, fortran ? GK_ORDER_FORTRAN : GK_ORDER_C,
                              old.g, &r.g),
             MPI_Type_create_subarray(nd, sizes, subs, starts,
                                      fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, old.m, &r.m),
             "subarray");
        break;
    }
    case 9: {
        int lb = around(16), ext = below(40);
        note("resized(%d, %d, ", lb, ext);
        old = make(depth - 1);
        both(gk_type_resized(old.g, lb, ext, &r.g), MPI_Type_create_resized(old.m, lb, ext, &r.m),
             "resized");
        break;
    }
    default:
        note("dup(");
        old = make(depth - 1);
        both(gk_type_dup(old.g, &r.g), MPI_Type_dup(old.m, &r.m), "dup");
        break;
    }
    note(")");
    pair_free(&old);
    compare(&r);
    return r;
}

static void compare(struct pair *p)
{
    both(gk_type_commit(p->g), MPI_Type_commit(&p->m), "commit");
    size_t gsize;
    int msize;
    ptrdiff_t glb, gext, gtlb, gtext;
    MPI_Aint mlb, mext, mtlb, mtext;
    both(gk_type_size(p->g, &gsize), MPI_Type_size(p->m, &msize), "size");
    both(gk_type_extent(p->g, &glb, &gext), MPI_Type_get_extent(p->m, &mlb, &mext), "extent");
    both(gk_type_true_extent(p->g, &gtlb, &gtext),
         MPI_Type_get_true_extent(p->m, &mtlb, &mtext), "true extent");
    char msg[256];
    if (gsize != (size_t)msize || glb != mlb || gext != mext) {
        snprintf(msg, sizeof(msg), "gasket: size %zu lb %td extent %td; MPI: %d %ld %ld", gsize,
                 glb, gext, msize, (long)mlb, (long)mext);
        fail(msg);
    }
    if (gsize > 0 && (gtlb != mtlb || gtext != mtext)) {
        snprintf(msg, sizeof(msg), "true bounds: gasket lb %td extent %td; MPI %ld %ld", gtlb,
                 gtext, (long)mtlb, (long)mtext);
        fail(msg);
    }
    if (gsize == 0)
        return;
    /* Two elements from a patterned buffer covering their whole span. */
    const struct gk__dt_flat *flat = NULL;
    if (gk__type_flat("mpi_compare", "type", p->g, &flat) != GK_OK)
        fail("no flat form");
    uint64_t total;
    int64_t lo, hi;
    if (gk__dt_span(flat, 2, &total, &lo, &hi) != GK_OK)
        fail("span overflows");
    unsigned char *mem = malloc((size_t)(hi - lo));
    for (int64_t i = 0; i < hi - lo; i++)
        mem[i] = (unsigned char)(i * 13 + (i >> 8) + 1);
    const unsigned char *buf = mem - lo;
    unsigned char *gpack = malloc(total), *mpack = malloc(total);
    struct gk__dt_cursor c;
    gk__dt_cursor_init(&c, flat, 2, 0);
    for (uint64_t k = 0; k < total;) {
        memcpy(gpack + k, buf + c.pos, c.len);
        k += c.len;
        gk__dt_cursor_advance(&c, c.len);
    }
    int pos = 0;
    if (MPI_Pack(buf, 2, p->m, mpack, (int)total, &pos, MPI_COMM_SELF) != MPI_SUCCESS ||
        (uint64_t)pos != total)
        fail("MPI_Pack failed");
    for (uint64_t k = 0; k < total; k++)
        if (gpack[k] != mpack[k]) {
            snprintf(msg, sizeof(msg), "packed byte %llu of %llu: gasket %u, MPI %u",
                     (unsigned long long)k, (unsigned long long)total, gpack[k], mpack[k]);
            fail(msg);
        }
    free(mem);
    free(gpack);
    free(mpack);
}

int main(int argc, char **argv)
{
    MPI_Init(NULL, NULL);
    unsigned long long rounds = argc > 1 ? strtoull(argv[1], NULL, 0) : 3000;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    for (round_no = 0; round_no < rounds; round_no++) {
        trail[0] = '\0';
        struct pair p = make(3);
        pair_free(&p);
    }
    printf("mpi_compare: %llu random types agree with MPI\n", rounds);
    MPI_Finalize();
    return 0;
}

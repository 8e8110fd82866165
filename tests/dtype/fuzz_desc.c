/*
 * fuzz_desc: a fuzz driver for the datatype descriptor decoder
 * (src/dtype/desc.c), the code that takes another PE's type layout apart.
 *
 *   fuzz_desc [SECONDS [SEED]]     (default 20 s, seed from the clock)
 *
 * It encodes a set of valid types (every constructor, nested), then, until
 * the time is up, takes one, mutates it (flipped bits, bytes and words set
 * to edge values, fields of one descriptor spliced into another, truncation
 * and extension) and decodes it with a random bound. The decoder must
 * never crash or touch memory outside the buffer (build with
 * -DGK_SANITIZE=ON to have AddressSanitizer check that: the buffer is
 * allocated at its exact length), and what it accepts must be sound: a
 * cursor over the result, from byte 0 and from random bytes, yields
 * pieces inside the decoder's bound whose lengths add up to the stated
 * size. A failure prints the seed and the iteration, which reproduce it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dtype/desc.h"
#include "dtype/flat.h"
#include "dtype/type.h"
#include "gasket.h"

#define MAX_SEEDS 32
#define MAX_WALK 20000 /* pieces walked per accepted descriptor */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct seed {
    unsigned char *buf;
    size_t len;
};
static struct seed seeds[MAX_SEEDS];
static int n_seeds;
static unsigned long long seed_value, iteration;

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_desc: %s (seed %llu, iteration %llu)\n", what, seed_value, iteration);
    exit(1);
}

static void add_seed(gk_type_t t)
{
    if (gk_type_commit(t) != GK_OK)
        fail("a seed type does not commit");
    const struct gk__dt_flat *flat = NULL;
    if (gk__type_flat("fuzz_desc", "type", t, &flat) != GK_OK || n_seeds == MAX_SEEDS)
        fail("a seed type has no form");
    struct seed *s = &seeds[n_seeds++];
    s->len = gk__dt_encoded_size(flat);
    s->buf = malloc(s->len);
    gk__dt_encode(flat, s->buf);
}

static void make_seeds(void)
{
    gk_type_t t, u, v, w;
    add_seed(GK_TYPE_DOUBLE_INT);
    gk_type_contiguous(0, GK_TYPE_INT8, &t), add_seed(t);
    gk_type_vector(5, 2, 3, GK_TYPE_DOUBLE, &t), add_seed(t);
    gk_type_vector(4, 1, -2, GK_TYPE_INT32, &u), add_seed(u);
    size_t bl[] = {2, 1, 3, 1};
    ptrdiff_t d[] = {5, 0, 10, -7};
    gk_type_indexed(4, bl, d, GK_TYPE_INT32, &v), add_seed(v);
    ptrdiff_t db[] = {0, 3, 6};
    gk_type_indexed_block(3, 2, db, t, &w), add_seed(w);
    gk_type_t ty[] = {GK_TYPE_INT8, t, v, GK_TYPE_LONG_DOUBLE};
    ptrdiff_t ds[] = {0, 16, 1000, 4000};
    gk_type_t s;
    gk_type_struct(4, bl, ds, ty, &s), add_seed(s);
    size_t sizes[] = {6, 7, 8}, sub[] = {2, 3, 4}, st[] = {1, 2, 3};
    gk_type_subarray(3, sizes, sub, st, GK_ORDER_C, GK_TYPE_FLOAT, &u), add_seed(u);
    gk_type_subarray(3, sizes, sub, st, GK_ORDER_FORTRAN, s, &u), add_seed(u);
    gk_type_resized(s, -64, 10000, &u), add_seed(u);
    gk_type_hvector(3, 2, 40000, u, &w), add_seed(w);
}

static void set64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static void set32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static const uint64_t edges[] = {0,
                                 1,
                                 2,
                                 3,
                                 7,
                                 8,
                                 31,
                                 32,
                                 33,
                                 0x7fffffffu,
                                 0x80000000u,
                                 0xffffffffu,
                                 0x100000000ull,
                                 0x7fffffffffffffffull,
                                 0x8000000000000000ull,
                                 0xffffffffffffffffull,
                                 0xfffffffffffffffeull};

/* One mutation of buf (len bytes, room for cap). */
static size_t mutate(unsigned char *buf, size_t len, size_t cap)
{
    size_t at = below(len ? len : 1);
    switch (below(8)) {
    case 0: /* flip a bit */
        if (len)
            buf[at] ^= (unsigned char)(1u << below(8));
        break;
    case 1: /* a random byte */
        if (len)
            buf[at] = (unsigned char)rnd();
        break;
    case 2: /* an edge value in an aligned word (the fields are aligned) */
        at &= ~(size_t)7;
        if (at + 8 <= len)
            set64(buf + at, edges[below(sizeof(edges) / sizeof(edges[0]))]);
        break;
    case 3: /* an edge or small value in a 4-byte field */
        at &= ~(size_t)3;
        if (at + 4 <= len)
            set32(buf + at, below(2) ? (uint32_t)edges[below(sizeof(edges) / sizeof(edges[0]))]
                                     : (uint32_t)below(40));
        break;
    case 4: /* cut */
        len = below(len + 1);
        break;
    case 5: /* grow by a node's or an entry's worth, or a few bytes */
    {
        size_t more = below(3) == 0 ? below(9) : below(2) ? 16 : 24;
        if (len + more <= cap) {
            for (size_t i = 0; i < more; i++)
                buf[len + i] = (unsigned char)(below(2) ? 0 : rnd());
            len += more;
        }
        break;
    }
    case 6: /* splice a run of another seed in at the same offset */
    {
        const struct seed *o = &seeds[below((uint64_t)n_seeds)];
        size_t from = below(o->len), n = 1 + below(48);
        if (from + n > o->len)
            n = o->len - from;
        if (from + n > cap)
            break;
        memcpy(buf + from, o->buf + from, n);
        if (from + n > len)
            len = from + n;
        break;
    }
    default: /* the header's counts: nodes, entries or root */
        if (len >= GK__DT_DESC_HEADER)
            set32(buf + 8 + 4 * below(3), (uint32_t)below(12));
        break;
    }
    return len;
}

/* What the decoder accepted must walk inside its bound. */
static void walk(const struct gk__dt_flat *flat, int64_t lo, int64_t hi)
{
    if (flat->size > 0 && (flat->true_lb < lo || flat->true_ub > hi))
        fail("accepted bounds outside the bound asked for");
    if (flat->depth > GK_TYPE_MAX_DEPTH)
        fail("accepted a form deeper than GK_TYPE_MAX_DEPTH");
    for (int start = 0; start < 3; start++) {
        uint64_t offset = start == 0 || flat->size == 0 ? 0 : below(flat->size);
        struct gk__dt_cursor c;
        gk__dt_cursor_init(&c, flat, 1, offset);
        uint64_t seen = 0;
        for (int k = 0; c.left > 0 && k < MAX_WALK; k++) {
            if (c.len == 0 || c.len > c.left)
                fail("a piece of length 0, or longer than what is left");
            /* true_ub - pos as unsigned: the distance may exceed INT64_MAX. */
            if (c.pos < flat->true_lb || c.pos > flat->true_ub ||
                c.len > (uint64_t)flat->true_ub - (uint64_t)c.pos) {
                char what[256];
                snprintf(what, sizeof(what),
                         "piece %d from byte %llu, (%lld, %llu), lies outside the accepted "
                         "true bounds [%lld, %lld)",
                         k, (unsigned long long)offset, (long long)c.pos,
                         (unsigned long long)c.len, (long long)flat->true_lb,
                         (long long)flat->true_ub);
                fail(what);
            }
            seen += c.len;
            gk__dt_cursor_advance(&c, c.len);
        }
        if (c.left == 0 && seen != flat->size - offset)
            fail("the pieces do not add up to the size");
    }
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 20.0;
    seed_value = argc > 2 ? strtoull(argv[2], NULL, 0) : (unsigned long long)time(NULL);
    rng_state = seed_value;
    printf("fuzz_desc: %.0f s, seed %llu\n", seconds, seed_value);
    fflush(stdout);
    make_seeds();

    enum { CAP = 4096 };
    double end = now() + seconds;
    unsigned long long accepted = 0, rejected = 0;
    char why[256];
    for (iteration = 0;; iteration++) {
        if ((iteration & 255) == 0 && now() >= end)
            break;
        const struct seed *s = &seeds[below((uint64_t)n_seeds)];
        unsigned char work[CAP];
        size_t len = s->len < CAP ? s->len : CAP;
        memcpy(work, s->buf, len);
        int rounds = 1 + (int)below(below(4) == 0 ? 16 : 3);
        for (int r = 0; r < rounds; r++)
            len = mutate(work, len, CAP);
        /* The decoder gets a buffer of exactly len bytes, so that a read
         * past its end is a read past an allocation. */
        unsigned char *exact = malloc(len ? len : 1);
        memcpy(exact, work, len);
        int64_t lo = below(4) == 0 ? INT64_MIN : -(int64_t)below(1 << 20);
        int64_t hi = below(4) == 0 ? INT64_MAX : (int64_t)below(1 << 20);
        struct gk__dt_flat *flat = NULL;
        int status = gk__dt_decode(exact, len, lo, hi, &flat, why, sizeof(why));
        if (status == GK_OK) {
            accepted++;
            walk(flat, lo, hi);
            free(flat);
        } else if (status == GK_ERR_INVALID_ARG) {
            rejected++;
        } else {
            fail("the decoder returned neither GK_OK nor GK_ERR_INVALID_ARG");
        }
        free(exact);
    }
    /* The seeds themselves must decode (an unbounded window). */
    for (int i = 0; i < n_seeds; i++) {
        struct gk__dt_flat *flat = NULL;
        if (gk__dt_decode(seeds[i].buf, seeds[i].len, INT64_MIN, INT64_MAX, &flat, why,
                          sizeof(why)) != GK_OK) {
            fprintf(stderr, "seed %d: %s\n", i, why);
            fail("a valid descriptor was refused");
        }
        walk(flat, INT64_MIN, INT64_MAX);
        free(flat);
        free(seeds[i].buf);
    }
    printf("fuzz_desc: %llu descriptors, %llu accepted, %llu refused, no fault\n", iteration,
           accepted, rejected);
    return accepted > 0 && rejected > 0 ? 0 : 1;
}

/*
 * team_coll_test [MAX_BYTES]: every team collective on teams of every
 * shape, every result checked against one computed here (team_red.h for
 * the reductions), with the bytes after each dst left alone.
 *
 *   teams   the world; GK_TEAM_NODE; a team of one PE (the last); the even
 *           PEs; the row and the column of a 2-D grid whose column count
 *           does not divide most PE counts; the PEs of this PE's parity,
 *           ordered backwards by key. Each PE runs the suite on each of its
 *           teams, in that order.
 *   sizes   0 bytes, one element, 8 bytes, 1000 bytes, 100 KiB; and 1 MiB
 *           for broadcast, one all-reduce and fcollect. None above
 *           MAX_BYTES (default 1 MiB; the runs across hosts pass less).
 *   barrier a put to the next team PE before it is seen after it;
 *   broadcast from every root (at 1 MiB the first and the last), the
 *           others' src ignored, and in place;
 *   allreduce  integer sums that wrap, products, min, max, bitwise ops,
 *           sums of integer-valued doubles, float min, MAXLOC/MINLOC with
 *           ties; once in place;
 *   reduce  to every root, dst NULL elsewhere;
 *   reduce_scatter, scan, exscan (PE 0's dst not written);
 *   fcollect, also in place (src is this PE's block of dst);
 *   collect with a different size on each PE (some 0), *total_p checked,
 *           and total_p NULL;
 *   alltoall, and alltoalls with strides 1 and 3 on either side (the
 *           elements between the strided ones stay as they were).
 *
 * Run again with each algorithm forced (GK_TEAM_LEVELS, GK_TEAM_ALGO_*:
 * the team_algo_* tests of CMakeLists.txt), and with every wait asleep
 * (team_coll_sleeping).
 */
#include "team_common.h"
#include "team_red.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
#define GUARD 64
#define FILLER 0xee

static int me, npes;
static size_t max_bytes;
static uint64_t *mail; /* symmetric: two words per team, for the barrier */

/* The team whose suite runs, and the seed of its next call (the same
 * sequence on each of its PEs). */
static const struct team_def *cur;
static int cur_index;
static unsigned seq;

static unsigned next_seed(void)
{
    return (unsigned)cur_index * 1000u + seq++;
}

/* The sizes of a test, in bytes, of elements of `elem` bytes: 0, one
 * element, 8, 1000, 100 KiB and 1 MiB, rounded down to whole elements,
 * none above `limit` or MAX_BYTES. Returns how many. */
static int sizes_of(size_t elem, size_t limit, size_t out[6])
{
    const size_t all[] = {0, elem, 8, 1000, 100 * KIB, MIB};
    int n = 0;
    for (int i = 0; i < 6; i++) {
        size_t s = all[i] / elem * elem;
        if (s > limit || s > max_bytes || (n > 0 && s <= out[n - 1]) || (i > 0 && s == 0))
            continue;
        out[n++] = s;
    }
    return n;
}

/* Whether GK_TEAM_ALGO_<op> forces the put algorithm: then the all-to-all
 * or fcollect runs into symmetric memory too (where it takes its puts
 * across hosts), and into it on the even PEs only (where every PE must go
 * the other way). Elsewhere those runs would test nothing new. */
static int forced_put(const char *var)
{
    const char *v = getenv(var);
    return v != NULL && strcmp(v, "put") == 0;
}

/* The symmetric dst of forced_put(var)'s extra runs, total bytes and a
 * guard; NULL where there are none. */
static unsigned char *sym_dst(const char *var, size_t total)
{
    if (!forced_put(var))
        return NULL;
    unsigned char *sym = gk_team_malloc(cur->team, total + GUARD);
    CHECK_NOT_NULL(sym);
    return sym;
}

/* The dst of extra run `mixed`: sym, except the private dst on the odd
 * PEs of the mixed run; all FILLER. */
static unsigned char *sym_run_dst(int mixed, unsigned char *sym, unsigned char *dst,
                                  size_t total)
{
    unsigned char *into = mixed && me % 2 != 0 ? dst : sym;
    memset(into, FILLER, total + GUARD);
    return into;
}

static void sym_dst_free(unsigned char *sym)
{
    if (sym != NULL)
        CHECK_OK(gk_team_free(cur->team, sym));
}

/* A buffer of nbytes plus a guard, all FILLER. */
static unsigned char *buffer(size_t nbytes)
{
    unsigned char *b = malloc(nbytes + GUARD);
    CHECK_NOT_NULL(b);
    memset(b, FILLER, nbytes + GUARD);
    return b;
}

#define CHECK_GUARD(buf, nbytes, ...)                                                    \
    CHECK_UNTOUCHED((const unsigned char *)(buf) + (nbytes), FILLER, GUARD, __VA_ARGS__)

static void test_barrier(void)
{
    const struct team_def *t = cur;
    int next = t->members[(t->me + 1) % t->n];
    int prev = t->members[(t->me + t->n - 1) % t->n];
    uint64_t *box = mail + 2 * cur_index;
    for (int round = 0; round < 4; round++) {
        /* The word of this round was read by its owner before the barrier
         * of the round before. Each value is new (its seed). */
        uint64_t tag = (uint64_t)next_seed() << 32;
        uint64_t value = tag | (uint64_t)me, want = tag | (uint64_t)prev;
        CHECK_OK(gk_put(next, &box[round % 2], &value, sizeof(value)));
        CHECK_OK(gk_team_barrier(t->team));
        if (box[round % 2] != want)
            PE_FAIL("team %s: after barrier %d the word from PE %d is 0x%llx, expected "
                    "0x%llx",
                    t->name, round, prev, (unsigned long long)box[round % 2],
                    (unsigned long long)want);
    }
}

static void broadcast_once(size_t nbytes, int root, int in_place)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    unsigned char *dst = buffer(nbytes), *src = buffer(nbytes), *expect = buffer(nbytes);
    team_fill(expect, t->members[root], seed, nbytes);
    if (t->me == root)
        memcpy(in_place ? dst : src, expect, nbytes);
    else
        team_fill(src, me, seed + 1, nbytes); /* must not be sent */
    CHECK_OK(gk_team_broadcast(t->team, dst, in_place ? dst : src, nbytes, root));
    CHECK_BYTES(dst, expect, nbytes, "team %s: broadcast of %zu B from %d%s", t->name, nbytes,
                root, in_place ? " in place" : "");
    CHECK_GUARD(dst, nbytes, "team %s: broadcast of %zu B from %d", t->name, nbytes, root);
    free(dst);
    free(src);
    free(expect);
}

static void test_broadcast(void)
{
    size_t sizes[6];
    int count = sizes_of(1, MIB, sizes);
    for (int s = 0; s < count; s++) {
        for (int root = 0; root < cur->n; root++)
            if (sizes[s] < MIB || root == 0 || root == cur->n - 1)
                broadcast_once(sizes[s], root, 0);
        broadcast_once(sizes[s], cur->n / 2, 1);
    }
}

static void allreduce_once(const struct red_case *c, size_t count, int in_place)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    size_t nbytes = count * c->elem;
    unsigned char *dst = buffer(nbytes), *src = buffer(nbytes);
    unsigned char *expect = buffer(nbytes), *tmp = buffer(nbytes);
    red_fill(c, in_place ? dst : src, me, seed, 0, count);
    red_reference(c, expect, tmp, t->members, t->n, seed, 0, count);
    CHECK_OK(gk_team_allreduce(t->team, dst, in_place ? dst : src, count, c->dtype, c->op));
    CHECK_RED(c, dst, expect, count, "team %s: allreduce of %zu%s", t->name, count,
              in_place ? " in place" : "");
    CHECK_GUARD(dst, nbytes, "team %s: allreduce %s of %zu", t->name, c->name, count);
    free(dst);
    free(src);
    free(expect);
    free(tmp);
}

static void test_allreduce(void)
{
    const struct red_case *cases[] = {
        &RED_INT32_SUM,  &RED_INT64_MIN,   &RED_INT64_MAX,  &RED_UINT64_BXOR,
        &RED_UINT8_SUM,  &RED_UINT32_PROD, &RED_INT16_BAND, &RED_DOUBLE_SUM,
        &RED_FLOAT_MIN,  &RED_DOUBLE_INT_MAXLOC, &RED_2INT_MINLOC,
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct red_case *c = cases[i];
        size_t sizes[6];
        int count = sizes_of(c->elem, c == &RED_DOUBLE_SUM ? MIB : 100 * KIB, sizes);
        for (int s = 0; s < count; s++)
            allreduce_once(c, sizes[s] / c->elem, 0);
    }
    allreduce_once(&RED_INT64_SUM, 1000 / 8, 1);
    allreduce_once(&RED_DOUBLE_SUM, 1, 1);
}

static void reduce_once(const struct red_case *c, size_t count, int root)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    size_t nbytes = count * c->elem;
    unsigned char *src = buffer(nbytes), *expect = buffer(nbytes), *tmp = buffer(nbytes);
    unsigned char *dst = t->me == root ? buffer(nbytes) : NULL;
    red_fill(c, src, me, seed, 0, count);
    red_reference(c, expect, tmp, t->members, t->n, seed, 0, count);
    CHECK_OK(gk_team_reduce(t->team, dst, src, count, c->dtype, c->op, root));
    if (dst != NULL) {
        CHECK_RED(c, dst, expect, count, "team %s: reduce of %zu to %d", t->name, count, root);
        CHECK_GUARD(dst, nbytes, "team %s: reduce %s of %zu", t->name, c->name, count);
    }
    free(dst);
    free(src);
    free(expect);
    free(tmp);
}

static void test_reduce(void)
{
    const struct red_case *cases[] = {&RED_INT64_SUM, &RED_DOUBLE_MAX, &RED_2INT_MINLOC};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct red_case *c = cases[i];
        size_t sizes[6];
        int count = sizes_of(c->elem, 100 * KIB, sizes);
        for (int s = 0; s < count; s++)
            for (int root = 0; root < cur->n; root++)
                if (sizes[s] <= 1000 || root == cur->n - 1)
                    reduce_once(c, sizes[s] / c->elem, root);
    }
}

static void reduce_scatter_once(const struct red_case *c, size_t count)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    size_t nbytes = count * c->elem, n = (size_t)t->n;
    unsigned char *dst = buffer(nbytes), *src = buffer(n * nbytes);
    unsigned char *expect = buffer(nbytes), *tmp = buffer(nbytes);
    red_fill(c, src, me, seed, 0, n * count);
    red_reference(c, expect, tmp, t->members, t->n, seed, (size_t)t->me * count, count);
    CHECK_OK(gk_team_reduce_scatter(t->team, dst, src, count, c->dtype, c->op));
    CHECK_RED(c, dst, expect, count, "team %s: reduce_scatter of %zu per PE", t->name, count);
    CHECK_GUARD(dst, nbytes, "team %s: reduce_scatter %s of %zu", t->name, c->name, count);
    free(dst);
    free(src);
    free(expect);
    free(tmp);
}

static void test_reduce_scatter(void)
{
    const struct red_case *cases[] = {&RED_INT32_SUM, &RED_DOUBLE_SUM, &RED_UINT64_BOR};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t sizes[6];
        int count = sizes_of(cases[i]->elem, 100 * KIB, sizes);
        for (int s = 0; s < count; s++)
            reduce_scatter_once(cases[i], sizes[s] / cases[i]->elem);
    }
}

static void scan_once(const struct red_case *c, size_t count, int exclusive)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    size_t nbytes = count * c->elem;
    unsigned char *dst = buffer(nbytes), *src = buffer(nbytes);
    unsigned char *expect = buffer(nbytes), *tmp = buffer(nbytes);
    red_fill(c, src, me, seed, 0, count);
    int upto = exclusive ? t->me : t->me + 1; /* PEs combined */
    if (upto > 0)
        red_reference(c, expect, tmp, t->members, upto, seed, 0, count);
    if (exclusive)
        CHECK_OK(gk_team_exscan(t->team, dst, src, count, c->dtype, c->op));
    else
        CHECK_OK(gk_team_scan(t->team, dst, src, count, c->dtype, c->op));
    const char *name = exclusive ? "exscan" : "scan";
    if (upto > 0)
        CHECK_RED(c, dst, expect, count, "team %s: %s of %zu", t->name, name, count);
    else
        CHECK_UNTOUCHED(dst, FILLER, nbytes, "team %s: %s of %zu on team PE 0", t->name, name,
                        count);
    CHECK_GUARD(dst, nbytes, "team %s: %s %s of %zu", t->name, name, c->name, count);
    free(dst);
    free(src);
    free(expect);
    free(tmp);
}

static void test_scan(void)
{
    const struct red_case *cases[] = {&RED_INT64_SUM, &RED_INT32_MAX, &RED_DOUBLE_SUM,
                                      &RED_UINT32_PROD};
    for (int exclusive = 0; exclusive <= 1; exclusive++)
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            size_t sizes[6];
            int count = sizes_of(cases[i]->elem, 100 * KIB, sizes);
            for (int s = 0; s < count; s++)
                scan_once(cases[i], sizes[s] / cases[i]->elem, exclusive);
        }
}

static void fcollect_once(size_t nbytes, int in_place)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    size_t total = (size_t)t->n * nbytes;
    unsigned char *dst = buffer(total), *src = buffer(nbytes), *expect = buffer(total);
    for (int j = 0; j < t->n; j++)
        team_fill(expect + (size_t)j * nbytes, t->members[j], seed, nbytes);
    unsigned char *mine = in_place ? dst + (size_t)t->me * nbytes : src;
    team_fill(mine, me, seed, nbytes);
    CHECK_OK(gk_team_fcollect(t->team, dst, mine, nbytes));
    CHECK_BYTES(dst, expect, total, "team %s: fcollect of %zu B%s", t->name, nbytes,
                in_place ? " in place" : "");
    CHECK_GUARD(dst, total, "team %s: fcollect of %zu B", t->name, nbytes);
    unsigned char *sym = sym_dst("GK_TEAM_ALGO_FCOLLECT", total);
    for (int mixed = 0; sym != NULL && mixed < 2; mixed++) {
        unsigned char *into = sym_run_dst(mixed, sym, dst, total);
        mine = in_place ? into + (size_t)t->me * nbytes : src;
        team_fill(mine, me, seed, nbytes);
        CHECK_OK(gk_team_fcollect(t->team, into, mine, nbytes));
        CHECK_BYTES(into, expect, total, "team %s: fcollect of %zu B%s into %s", t->name,
                    nbytes, in_place ? " in place" : "",
                    mixed ? "symmetric memory on the even PEs" : "symmetric memory");
        CHECK_GUARD(into, total, "team %s: fcollect of %zu B into symmetric memory", t->name,
                    nbytes);
    }
    sym_dst_free(sym);
    free(dst);
    free(src);
    free(expect);
}

static void test_fcollect(void)
{
    size_t sizes[6];
    int count = sizes_of(1, MIB, sizes);
    for (int s = 0; s < count; s++) {
        fcollect_once(sizes[s], 0);
        fcollect_once(sizes[s], 1);
    }
}

/* What team PE j contributes to a collect of base size `base`: a
 * different size on each PE, and none on every third. */
static size_t collect_size(size_t base, int j)
{
    if (base == 0 || j % 3 == 1)
        return 0;
    return base + 3 * (size_t)j;
}

static void collect_once(size_t base, int with_total, size_t room_extra)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    size_t total = 0;
    for (int j = 0; j < t->n; j++)
        total += collect_size(base, j);
    size_t mine = collect_size(base, t->me);
    unsigned char *dst = buffer(total + room_extra), *src = buffer(mine);
    unsigned char *expect = buffer(total);
    size_t at = 0;
    for (int j = 0; j < t->n; j++) {
        team_fill(expect + at, t->members[j], seed, collect_size(base, j));
        at += collect_size(base, j);
    }
    team_fill(src, me, seed, mine);
    size_t got_total = (size_t)-1;
    CHECK_OK(gk_team_collect(t->team, dst, total + room_extra, src, mine,
                             with_total ? &got_total : NULL));
    if (with_total && got_total != total)
        PE_FAIL("team %s: collect of base %zu: *total_p is %zu, expected %zu", t->name, base,
                got_total, total);
    CHECK_BYTES(dst, expect, total, "team %s: collect of base %zu", t->name, base);
    CHECK_UNTOUCHED(dst + total, FILLER, room_extra + GUARD,
                    "team %s: collect of base %zu, after the total", t->name, base);
    free(dst);
    free(src);
    free(expect);
}

static void test_collect(void)
{
    size_t sizes[6];
    int count = sizes_of(1, 100 * KIB, sizes);
    for (int s = 0; s < count; s++) {
        collect_once(sizes[s], 1, 0);
        collect_once(sizes[s], 0, 100);
    }
}

/* Byte i of the block world PE `from` sends to world PE `to`. */
static unsigned char xchg_pattern(int from, int to, unsigned seed, size_t i)
{
    return (unsigned char)(from * 29 + to * 71 + seed * 7 + i * 13 + (i >> 8) + 1);
}

static void alltoall_once(size_t nbytes)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    size_t total = (size_t)t->n * nbytes;
    unsigned char *dst = buffer(total), *src = buffer(total), *expect = buffer(total);
    for (int j = 0; j < t->n; j++)
        for (size_t i = 0; i < nbytes; i++) {
            src[(size_t)j * nbytes + i] = xchg_pattern(me, t->members[j], seed, i);
            expect[(size_t)j * nbytes + i] = xchg_pattern(t->members[j], me, seed, i);
        }
    CHECK_OK(gk_team_alltoall(t->team, dst, src, nbytes));
    CHECK_BYTES(dst, expect, total, "team %s: alltoall of %zu B", t->name, nbytes);
    CHECK_GUARD(dst, total, "team %s: alltoall of %zu B", t->name, nbytes);
    unsigned char *sym = sym_dst("GK_TEAM_ALGO_ALLTOALL", total);
    for (int mixed = 0; sym != NULL && mixed < 2; mixed++) {
        unsigned char *into = sym_run_dst(mixed, sym, dst, total);
        CHECK_OK(gk_team_alltoall(t->team, into, src, nbytes));
        CHECK_BYTES(into, expect, total, "team %s: alltoall of %zu B into %s", t->name, nbytes,
                    mixed ? "symmetric memory on the even PEs" : "symmetric memory");
        CHECK_GUARD(into, total, "team %s: alltoall of %zu B into symmetric memory", t->name,
                    nbytes);
    }
    sym_dst_free(sym);
    free(dst);
    free(src);
    free(expect);
}

static void alltoalls_once(size_t elem, size_t nelems, size_t dst_stride, size_t src_stride)
{
    const struct team_def *t = cur;
    unsigned seed = next_seed();
    size_t n = (size_t)t->n;
    size_t src_bytes = n * nelems * src_stride * elem, dst_bytes = n * nelems * dst_stride * elem;
    unsigned char *dst = buffer(dst_bytes), *src = buffer(src_bytes);
    unsigned char *expect = buffer(dst_bytes);
    /* Every byte of src, the gaps too, is its sender's pattern at its
     * offset; the receiver expects the strided ones, FILLER between. */
    team_fill(src, me, seed, src_bytes);
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < nelems; k++)
            for (size_t b = 0; b < elem; b++) {
                size_t from = ((size_t)t->me * nelems + k) * src_stride * elem + b;
                expect[(j * nelems + k) * dst_stride * elem + b] =
                    team_pattern(t->members[j], seed, from);
            }
    CHECK_OK(gk_team_alltoalls(t->team, dst, src, dst_stride, src_stride, elem, nelems));
    CHECK_BYTES(dst, expect, dst_bytes, "team %s: alltoalls of %zu x %zu B, strides %zu/%zu",
                t->name, nelems, elem, dst_stride, src_stride);
    CHECK_GUARD(dst, dst_bytes, "team %s: alltoalls of %zu x %zu B", t->name, nelems, elem);
    free(dst);
    free(src);
    free(expect);
}

static void test_alltoall(void)
{
    size_t sizes[6];
    int count = sizes_of(1, 100 * KIB, sizes);
    for (int s = 0; s < count; s++)
        alltoall_once(sizes[s]);
    const size_t strides[][2] = {{1, 1}, {3, 1}, {1, 3}, {3, 3}};
    for (size_t elem = 4; elem <= 8; elem += 4) {
        count = sizes_of(elem, 100 * KIB, sizes);
        for (int s = 0; s < count; s++)
            for (int k = 0; k < 4; k++)
                alltoalls_once(elem, sizes[s] / elem, strides[k][0], strides[k][1]);
    }
}

static void run_suite(const struct team_def *t, int index)
{
    if (t->me < 0)
        return;
    cur = t;
    cur_index = index;
    seq = 0;
    team_def_check(t);
    double t0 = gk_wtime();
    test_barrier();
    test_broadcast();
    test_allreduce();
    test_reduce();
    test_reduce_scatter();
    test_scan();
    test_fcollect();
    test_collect();
    test_alltoall();
    test_barrier();
    if (t->me == 0)
        PE_LOG("team %s (%d PEs): %u calls in %.2f s", t->name, t->n, seq, gk_wtime() - t0);
}

int main(int argc, char **argv)
{
    max_bytes = (size_t)pe_count_arg(argc, argv, "MAX_BYTES", "bytes", (long)MIB, 0, (long)MIB);
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    enum { TEAMS = 7 };
    mail = gk_calloc(2 * TEAMS, sizeof(uint64_t));
    CHECK_NOT_NULL(mail);

    struct team_def world, node, one, even, row, col, parity;
    team_def_world(&world);
    team_def_node(&node, mail);

    team_def_strided(&one, "the last alone", &world, npes - 1, 1, 1);
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, npes - 1, 1, 1, &one.team));
    team_def_strided(&even, "even", &world, 0, 2, (npes + 1) / 2);
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 2, (npes + 1) / 2, &even.team));
    int xrange = npes >= 4 ? 3 : 2;
    team_def_2d(&row, &col, &world, xrange, me);
    CHECK_OK(gk_team_split_2d(GK_TEAM_WORLD, xrange, &row.team, &col.team));
    int *colors = calloc((size_t)npes, sizeof(int)), *keys = calloc((size_t)npes, sizeof(int));
    CHECK_TRUE(colors && keys);
    for (int p = 0; p < npes; p++) {
        colors[p] = p % 2;
        keys[p] = npes - p;
    }
    team_def_split(&parity, "parity, reversed", &world, colors, keys, colors[me]);
    CHECK_OK(gk_team_split(GK_TEAM_WORLD, colors[me], keys[me], &parity.team));

    struct team_def *teams[TEAMS] = {&world, &node, &one, &even, &row, &col, &parity};
    for (int i = 0; i < TEAMS; i++)
        run_suite(teams[i], i);

    for (int i = TEAMS - 1; i >= 2; i--)
        if (teams[i]->me >= 0)
            CHECK_OK(gk_team_destroy(&teams[i]->team));
    for (int i = 0; i < TEAMS; i++)
        team_def_free(teams[i]);
    free(colors);
    free(keys);
    gk_free(mail);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("team_coll_test: %d PEs ok\n", npes);
    return 0;
}

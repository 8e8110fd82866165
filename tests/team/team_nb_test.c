/*
 * team_nb_test: the non-blocking team collectives (_nb) on the world, a
 * team of one, the rows and columns of a 2-D grid and a colour split.
 *
 *   reverse     an all-reduce, a broadcast, an all-to-all and a barrier
 *               started on one team, waited for last to first (each handle
 *               GK_HANDLE_NULL after its wait), every result right;
 *   every kind  all eleven started at once on one team, then
 *               gk_handle_wait_all;
 *   two teams   collectives started on a PE's row and on its column, in
 *               one order on the even PEs and the other on the odd ones
 *               (teams are independent), then gk_handle_wait_all;
 *   test loop   gk_handle_test with gk_poll until done, bounded by
 *               gk_wtime (a hang fails, it does not wait for the launcher);
 *   blocking    a blocking collective on a team with collectives of its own
 *               pending finishes them first: each handle tests done at
 *               once after it, with its result in place;
 *   other team  a blocking collective on the world while a row's are
 *               pending, then the row's are waited for.
 */
#include "team_common.h"
#include "team_red.h"

#define DEADLINE_S 30.0

static int me, npes;

/* One collective's buffers and expected results, kept until its wait. */
struct op {
    const char *what;
    const struct team_def *t;
    const struct red_case *c; /* reductions */
    unsigned char *dst, *src, *expect, *tmp;
    size_t nbytes; /* what dst must hold (checked) */
    size_t count;
    int root;
    int dst_unwritten; /* exscan on team PE 0: dst stays FILLER */
    size_t total;      /* collect: what *total_p must be */
    size_t got_total;
    gk_handle_t h;
};

#define FILLER 0xee

static unsigned char *buffer(size_t nbytes)
{
    unsigned char *b = malloc(nbytes + 1);
    CHECK_NOT_NULL(b);
    memset(b, FILLER, nbytes + 1);
    return b;
}

static void op_init(struct op *o, const char *what, const struct team_def *t, size_t dst_bytes,
                    size_t src_bytes)
{
    memset(o, 0, sizeof(*o));
    o->what = what;
    o->t = t;
    o->dst = buffer(dst_bytes);
    o->src = buffer(src_bytes);
    o->expect = buffer(dst_bytes);
    o->tmp = buffer(dst_bytes);
    o->nbytes = dst_bytes;
    o->h = GK_HANDLE_NULL;
}

static void op_check(struct op *o)
{
    if (o->h.opaque != GK_HANDLE_NULL.opaque)
        PE_FAIL("team %s: %s: the handle is 0x%llx after its wait, not GK_HANDLE_NULL",
                o->t->name, o->what, (unsigned long long)o->h.opaque);
    if (o->dst_unwritten)
        CHECK_UNTOUCHED(o->dst, FILLER, o->nbytes + 1, "team %s: %s on team PE 0",
                        o->t->name, o->what);
    else if (o->c != NULL)
        CHECK_RED(o->c, o->dst, o->expect, o->count, "team %s: %s", o->t->name, o->what);
    else
        CHECK_BYTES(o->dst, o->expect, o->nbytes, "team %s: %s", o->t->name, o->what);
    CHECK_UNTOUCHED(o->dst + o->nbytes, FILLER, 1, "team %s: %s, after dst", o->t->name,
                    o->what);
    if (o->total != 0 && o->got_total != o->total)
        PE_FAIL("team %s: %s: *total_p is %zu, expected %zu", o->t->name, o->what,
                o->got_total, o->total);
    free(o->dst);
    free(o->src);
    free(o->expect);
    free(o->tmp);
}

/* The starts: each prepares o, starts the collective and keeps its handle. */

static void start_barrier(struct op *o, const struct team_def *t)
{
    op_init(o, "barrier", t, 0, 0);
    CHECK_OK(gk_team_barrier_nb(t->team, &o->h));
}

static void start_broadcast(struct op *o, const struct team_def *t, size_t nbytes, int root,
                            unsigned seed)
{
    op_init(o, "broadcast", t, nbytes, nbytes);
    team_fill(o->expect, t->members[root], seed, nbytes);
    team_fill(o->src, me, seed, nbytes);
    CHECK_OK(gk_team_broadcast_nb(t->team, o->dst, o->src, nbytes, root, &o->h));
}

static void start_allreduce(struct op *o, const struct team_def *t, const struct red_case *c,
                            size_t count, unsigned seed)
{
    op_init(o, "allreduce", t, count * c->elem, count * c->elem);
    o->c = c;
    o->count = count;
    red_fill(c, o->src, me, seed, 0, count);
    red_reference(c, o->expect, o->tmp, t->members, t->n, seed, 0, count);
    CHECK_OK(gk_team_allreduce_nb(t->team, o->dst, o->src, count, c->dtype, c->op, &o->h));
}

static void start_reduce(struct op *o, const struct team_def *t, const struct red_case *c,
                         size_t count, int root, unsigned seed)
{
    size_t nbytes = t->me == root ? count * c->elem : 0;
    op_init(o, "reduce", t, nbytes, count * c->elem);
    o->c = c;
    o->count = t->me == root ? count : 0;
    free(o->tmp);
    o->tmp = buffer(count * c->elem);
    red_fill(c, o->src, me, seed, 0, count);
    if (t->me == root) {
        red_reference(c, o->expect, o->tmp, t->members, t->n, seed, 0, count);
        CHECK_OK(gk_team_reduce_nb(t->team, o->dst, o->src, count, c->dtype, c->op, root,
                                   &o->h));
    } else {
        CHECK_OK(gk_team_reduce_nb(t->team, NULL, o->src, count, c->dtype, c->op, root,
                                   &o->h));
    }
}

static void start_reduce_scatter(struct op *o, const struct team_def *t,
                                 const struct red_case *c, size_t count, unsigned seed)
{
    op_init(o, "reduce_scatter", t, count * c->elem, (size_t)t->n * count * c->elem);
    o->c = c;
    o->count = count;
    red_fill(c, o->src, me, seed, 0, (size_t)t->n * count);
    red_reference(c, o->expect, o->tmp, t->members, t->n, seed, (size_t)t->me * count, count);
    CHECK_OK(gk_team_reduce_scatter_nb(t->team, o->dst, o->src, count, c->dtype, c->op,
                                       &o->h));
}

static void start_scan(struct op *o, const struct team_def *t, const struct red_case *c,
                       size_t count, int exclusive, unsigned seed)
{
    op_init(o, exclusive ? "exscan" : "scan", t, count * c->elem, count * c->elem);
    o->c = c;
    o->count = count;
    red_fill(c, o->src, me, seed, 0, count);
    int upto = exclusive ? t->me : t->me + 1;
    if (upto > 0)
        red_reference(c, o->expect, o->tmp, t->members, upto, seed, 0, count);
    else
        o->dst_unwritten = 1;
    if (exclusive)
        CHECK_OK(gk_team_exscan_nb(t->team, o->dst, o->src, count, c->dtype, c->op, &o->h));
    else
        CHECK_OK(gk_team_scan_nb(t->team, o->dst, o->src, count, c->dtype, c->op, &o->h));
}

static void start_fcollect(struct op *o, const struct team_def *t, size_t nbytes, unsigned seed)
{
    op_init(o, "fcollect", t, (size_t)t->n * nbytes, nbytes);
    for (int j = 0; j < t->n; j++)
        team_fill(o->expect + (size_t)j * nbytes, t->members[j], seed, nbytes);
    team_fill(o->src, me, seed, nbytes);
    CHECK_OK(gk_team_fcollect_nb(t->team, o->dst, o->src, nbytes, &o->h));
}

static size_t collect_size(size_t base, int j)
{
    return j % 3 == 1 ? 0 : base + 5 * (size_t)j;
}

static void start_collect(struct op *o, const struct team_def *t, size_t base, unsigned seed)
{
    size_t total = 0, mine = collect_size(base, t->me);
    for (int j = 0; j < t->n; j++)
        total += collect_size(base, j);
    op_init(o, "collect", t, total, mine);
    o->total = total;
    for (int j = 0, at = 0; j < t->n; j++) {
        team_fill(o->expect + at, t->members[j], seed, collect_size(base, j));
        at += (int)collect_size(base, j);
    }
    team_fill(o->src, me, seed, mine);
    CHECK_OK(gk_team_collect_nb(t->team, o->dst, total, o->src, mine, &o->got_total, &o->h));
}

static unsigned char xchg_pattern(int from, int to, unsigned seed, size_t i)
{
    return (unsigned char)(from * 29 + to * 71 + seed * 7 + i * 13 + (i >> 8) + 1);
}

static void start_alltoall(struct op *o, const struct team_def *t, size_t nbytes,
                           unsigned seed)
{
    size_t total = (size_t)t->n * nbytes;
    op_init(o, "alltoall", t, total, total);
    for (int j = 0; j < t->n; j++)
        for (size_t i = 0; i < nbytes; i++) {
            o->src[(size_t)j * nbytes + i] = xchg_pattern(me, t->members[j], seed, i);
            o->expect[(size_t)j * nbytes + i] = xchg_pattern(t->members[j], me, seed, i);
        }
    CHECK_OK(gk_team_alltoall_nb(t->team, o->dst, o->src, nbytes, &o->h));
}

static void start_alltoalls(struct op *o, const struct team_def *t, size_t nelems,
                            unsigned seed)
{
    enum { ELEM = 8, DST_STRIDE = 2, SRC_STRIDE = 3 };
    size_t n = (size_t)t->n;
    op_init(o, "alltoalls", t, n * nelems * DST_STRIDE * ELEM, n * nelems * SRC_STRIDE * ELEM);
    team_fill(o->src, me, seed, n * nelems * SRC_STRIDE * ELEM);
    memset(o->expect, FILLER, o->nbytes);
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < nelems; k++)
            for (size_t b = 0; b < ELEM; b++)
                o->expect[(j * nelems + k) * DST_STRIDE * ELEM + b] = team_pattern(
                    t->members[j], seed, ((size_t)t->me * nelems + k) * SRC_STRIDE * ELEM + b);
    CHECK_OK(gk_team_alltoalls_nb(t->team, o->dst, o->src, DST_STRIDE, SRC_STRIDE, ELEM,
                                  nelems, &o->h));
}

static void wait_op(struct op *o)
{
    CHECK_OK(gk_handle_wait(&o->h));
    op_check(o);
}

/* Started in order, waited for last to first. */
static void test_reverse(const struct team_def *t, unsigned seed)
{
    struct op ops[4];
    start_allreduce(&ops[0], t, &RED_INT64_SUM, 125, seed);
    start_broadcast(&ops[1], t, 1000, t->n - 1, seed + 1);
    start_alltoall(&ops[2], t, 64, seed + 2);
    start_barrier(&ops[3], t);
    for (int i = 3; i >= 0; i--)
        wait_op(&ops[i]);
}

static void test_every_kind(const struct team_def *t, unsigned seed)
{
    enum { KINDS = 11 };
    struct op ops[KINDS];
    start_barrier(&ops[0], t);
    start_broadcast(&ops[1], t, 3000, 0, seed);
    start_allreduce(&ops[2], t, &RED_DOUBLE_SUM, 1000, seed + 1);
    start_reduce(&ops[3], t, &RED_INT32_MAX, 77, t->n / 2, seed + 2);
    start_reduce_scatter(&ops[4], t, &RED_UINT64_BXOR, 33, seed + 3);
    start_scan(&ops[5], t, &RED_INT64_SUM, 50, 0, seed + 4);
    start_scan(&ops[6], t, &RED_INT64_MAX, 50, 1, seed + 5);
    start_fcollect(&ops[7], t, 999, seed + 6);
    start_collect(&ops[8], t, 100, seed + 7);
    start_alltoall(&ops[9], t, 200, seed + 8);
    start_alltoalls(&ops[10], t, 20, seed + 9);
    gk_handle_t handles[KINDS];
    for (int i = 0; i < KINDS; i++)
        handles[i] = ops[i].h;
    CHECK_OK(gk_handle_wait_all(handles, KINDS));
    for (int i = 0; i < KINDS; i++) {
        if (handles[i].opaque != GK_HANDLE_NULL.opaque)
            PE_FAIL("team %s: handle %d of gk_handle_wait_all is not GK_HANDLE_NULL", t->name,
                    i);
        ops[i].h = handles[i];
        op_check(&ops[i]);
    }
}

/* Even PEs start on the row first, odd PEs on the column first. */
static void test_two_teams(const struct team_def *row, const struct team_def *col,
                           unsigned seed)
{
    struct op ops[4];
    gk_handle_t handles[4];
    int row_first = me % 2 == 0;
    const struct team_def *first = row_first ? row : col, *second = row_first ? col : row;
    unsigned s1 = row_first ? seed : seed + 10, s2 = row_first ? seed + 10 : seed;
    start_allreduce(&ops[0], first, &RED_INT32_SUM, 300, s1);
    start_fcollect(&ops[1], first, 100, s1 + 1);
    start_allreduce(&ops[2], second, &RED_INT32_SUM, 300, s2);
    start_fcollect(&ops[3], second, 100, s2 + 1);
    for (int i = 0; i < 4; i++)
        handles[i] = ops[3 - i].h;
    CHECK_OK(gk_handle_wait_all(handles, 4));
    for (int i = 0; i < 4; i++) {
        ops[3 - i].h = handles[i];
        op_check(&ops[3 - i]);
    }
}

static void test_loop(struct op *o)
{
    double deadline = gk_wtime() + DEADLINE_S;
    int done = 0, polls = 0;
    for (;;) {
        CHECK_OK(gk_handle_test(&o->h, &done));
        if (done)
            break;
        CHECK_OK(gk_poll());
        polls++;
        if (gk_wtime() > deadline)
            PE_FAIL("team %s: %s not done after %.0f s of gk_handle_test and gk_poll (%d "
                    "polls)",
                    o->t->name, o->what, DEADLINE_S, polls);
    }
    op_check(o);
}

static void test_test_loop(const struct team_def *t, unsigned seed)
{
    struct op o;
    start_allreduce(&o, t, &RED_DOUBLE_SUM, 100 * 1024 / 8, seed);
    test_loop(&o);
    start_barrier(&o, t);
    test_loop(&o);
    start_alltoall(&o, t, 4096, seed + 1);
    test_loop(&o);
}

/* A blocking collective on the team finishes the pending ones first. */
static void test_blocking(const struct team_def *t, unsigned seed)
{
    struct op ops[3];
    start_allreduce(&ops[0], t, &RED_INT64_MIN, 500, seed);
    start_fcollect(&ops[1], t, 5000, seed + 1);
    start_broadcast(&ops[2], t, 20000, 0, seed + 2);
    int64_t in = me, sum = 0, want = 0;
    for (int j = 0; j < t->n; j++)
        want += t->members[j];
    CHECK_OK(gk_team_allreduce(t->team, &sum, &in, 1, GK_DTYPE_INT64, GK_OP_SUM));
    CHECK_EQ(sum, want);
    for (int i = 0; i < 3; i++) {
        int done = 0;
        CHECK_OK(gk_handle_test(&ops[i].h, &done));
        if (!done)
            PE_FAIL("team %s: %s still pending after a blocking all-reduce on its team",
                    t->name, ops[i].what);
        op_check(&ops[i]);
    }
}

/* A row's collectives pending while the world's blocking one runs. */
static void test_other_team(const struct team_def *row, unsigned seed)
{
    struct op ops[2];
    start_allreduce(&ops[0], row, &RED_UINT8_SUM, 4000, seed);
    start_alltoall(&ops[1], row, 300, seed + 1);
    uint64_t in = (uint64_t)me + 1, sum = 0;
    CHECK_OK(gk_team_allreduce(GK_TEAM_WORLD, &sum, &in, 1, GK_DTYPE_UINT64, GK_OP_SUM));
    CHECK_EQ_U64(sum, (uint64_t)npes * (uint64_t)(npes + 1) / 2);
    wait_op(&ops[1]);
    wait_op(&ops[0]);
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();

    gk_handle_t none = GK_HANDLE_NULL;
    CHECK_OK(gk_handle_wait(&none));

    struct team_def world, one, row, col, parity;
    team_def_world(&world);
    team_def_strided(&one, "the first alone", &world, 0, 1, 1);
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, 1, &one.team));
    int xrange = npes >= 4 ? 3 : 2;
    team_def_2d(&row, &col, &world, xrange, me);
    CHECK_OK(gk_team_split_2d(GK_TEAM_WORLD, xrange, &row.team, &col.team));
    int *colors = calloc((size_t)npes, sizeof(int)), *keys = calloc((size_t)npes, sizeof(int));
    CHECK_TRUE(colors && keys);
    for (int p = 0; p < npes; p++) {
        colors[p] = p % 2;
        keys[p] = -p;
    }
    team_def_split(&parity, "parity, reversed", &world, colors, keys, colors[me]);
    CHECK_OK(gk_team_split(GK_TEAM_WORLD, colors[me], keys[me], &parity.team));

    struct team_def *teams[] = {&world, &one, &row, &col, &parity};
    enum { TEAMS = sizeof(teams) / sizeof(teams[0]) };
    for (int i = 0; i < TEAMS; i++) {
        struct team_def *t = teams[i];
        team_def_check(t);
        if (t->me < 0)
            continue;
        unsigned seed = (unsigned)i * 100;
        test_reverse(t, seed);
        test_every_kind(t, seed + 10);
        test_test_loop(t, seed + 30);
        test_blocking(t, seed + 40);
    }
    test_two_teams(&row, &col, 1000);
    test_other_team(&row, 2000);
    test_two_teams(&parity, &row, 3000);

    /* Destroying a team with calls in flight completes them first; their
     * handles stay valid after the team is gone. */
    if (parity.me >= 0) {
        gk_handle_t h[2] = {GK_HANDLE_NULL, GK_HANDLE_NULL};
        uint64_t in = 1, out = 0;
        CHECK_OK(gk_team_barrier_nb(parity.team, &h[0]));
        CHECK_OK(gk_team_allreduce_nb(parity.team, &out, &in, 1, GK_DTYPE_UINT64, GK_OP_SUM,
                                      &h[1]));
        int n = parity.n;
        CHECK_OK(gk_team_destroy(&parity.team));
        CHECK_TRUE(parity.team == GK_TEAM_INVALID);
        CHECK_OK(gk_handle_wait_all(h, 2));
        CHECK_EQ(out, (uint64_t)n);
    }
    for (int i = TEAMS - 1; i >= 1; i--)
        if (teams[i]->me >= 0 && teams[i] != &parity)
            CHECK_OK(gk_team_destroy(&teams[i]->team));
    for (int i = 0; i < TEAMS; i++)
        team_def_free(teams[i]);
    free(colors);
    free(keys);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("team_nb_test: %d PEs ok\n", npes);
    return 0;
}

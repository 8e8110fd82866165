/*
 * team_split_test: the predefined teams, every way of splitting one, and
 * the errors, each team checked against its definition (team_common.h:
 * its size, this PE's number, every member's number in the world and in
 * every other team this PE holds, -1 for every PE that is not in it).
 *
 *   predefined  GK_TEAM_WORLD is every PE in world order; GK_TEAM_NODE the
 *               PEs whose heaps gk_ptr() reaches, in world order (alone
 *               with GK_NET_INDIRECT=1); GK_TEAM_INVALID has no PEs;
 *   strided     even PEs, odd PEs, the world reversed (stride -1), every
 *               other PE from the last one down (stride -2), a team of one,
 *               a strided team of a strided team; a PE left out gets
 *               GK_TEAM_INVALID;
 *   2-D         rows and columns of grids of 1, 2 and 3 columns (3 does not
 *               divide most PE counts: the last row is short), and a grid
 *               split from a split team;
 *   colour/key  two colours with the key reversing the order, one colour
 *               with equal keys (parent order), a PE with
 *               GK_TEAM_UNDEFINED (GK_TEAM_INVALID), a split of a split;
 *   destroy     sets the handle to GK_TEAM_INVALID; 3 * GK_TEAM_MAX teams
 *               made and destroyed one after another, of changing members,
 *               each used for a few collectives (slots are reused);
 *   the limit   GK_TEAM_MAX teams at once, predefined ones included: one
 *               more split fails with GK_ERR_NOMEM on every PE of the parent
 *               (when all hold the maximum, and when only PE 0 does), and
 *               after a destroy the split works again; the limit is per PE:
 *               with PEs 0 and 1 in three teams of their own each, a split
 *               of the world works;
 *   errors      NULL output pointers, stride 0, starts and members out of
 *               range, a negative size, xrange 0, a colour below
 *               GK_TEAM_UNDEFINED, an invalid parent, destroying a
 *               predefined team: GK_ERR_INVALID_ARG (or GK_ERR_PE for a PE
 *               out of range) and one error line naming the argument; the
 *               output is not written.
 */
#include "team_common.h"

static int me, npes;
static struct team_def world, node;

/* A split team made by a quick broadcast and all-reduce works (the team a
 * slot held before must leave nothing behind). */
static void check_team_works(const struct team_def *t, unsigned seed)
{
    if (t->me < 0)
        return;
    uint64_t in = (uint64_t)gk_my_pe() + seed, out = 0, want = 0;
    for (int i = 0; i < t->n; i++)
        want += (uint64_t)t->members[i] + seed;
    CHECK_OK(gk_team_allreduce(t->team, &out, &in, 1, GK_DTYPE_UINT64, GK_OP_SUM));
    if (out != want)
        PE_FAIL("team %s: all-reduce sum is %llu, expected %llu", t->name,
                (unsigned long long)out, (unsigned long long)want);
    unsigned char buf[24], expect[24];
    int root = (int)(seed % (unsigned)t->n);
    team_fill(expect, t->members[root], seed, sizeof(buf));
    if (t->me == root)
        memcpy(buf, expect, sizeof(buf));
    else
        memset(buf, 0, sizeof(buf));
    CHECK_OK(gk_team_broadcast(t->team, buf, buf, sizeof(buf), root));
    CHECK_BYTES(buf, expect, sizeof(buf), "team %s: broadcast from %d", t->name, root);
}

/* Destroys a team of this PE (nothing to do where it is not a member). */
static void destroy_def(struct team_def *t)
{
    if (t->me >= 0) {
        CHECK_OK(gk_team_destroy(&t->team));
        if (t->team != GK_TEAM_INVALID)
            PE_FAIL("team %s: gk_team_destroy left the handle %p, not GK_TEAM_INVALID",
                    t->name, (void *)t->team);
    }
    team_def_free(t);
}

static void check_all_pairs(struct team_def *const *defs, int count)
{
    for (int a = 0; a < count; a++) {
        team_def_check(defs[a]);
        for (int b = 0; b < count; b++)
            team_def_check_pair(defs[a], defs[b]);
    }
}

static void test_predefined(void)
{
    CHECK_EQ(gk_team_n_pes(GK_TEAM_WORLD), npes);
    CHECK_EQ(gk_team_my_pe(GK_TEAM_WORLD), me);
    team_def_check(&world);
    team_def_check(&node);
    team_def_check_pair(&world, &node);
    team_def_check_pair(&node, &world);
    CHECK_EQ(gk_team_n_pes(GK_TEAM_NODE), node.n);
    CHECK_GE(node.n, 1);
    const char *indirect = getenv("GK_NET_INDIRECT");
    if (indirect != NULL && strcmp(indirect, "1") == 0)
        CHECK_EQ(node.n, 1);
    CHECK_QUERY_INVALID(gk_team_n_pes(GK_TEAM_INVALID));
    CHECK_QUERY_INVALID(gk_team_my_pe(GK_TEAM_INVALID));
    CHECK_QUERY_INVALID(gk_team_translate_pe(GK_TEAM_INVALID, 0, GK_TEAM_WORLD));
    CHECK_QUERY_INVALID(gk_team_translate_pe(GK_TEAM_WORLD, 0, GK_TEAM_INVALID));
    check_team_works(&world, 1);
    check_team_works(&node, 2);
}

/* Splits parent (held by this PE) with split_strided, checking that the
 * handle is written (GK_TEAM_INVALID where this PE is left out). */
static void split_strided(struct team_def *t, const char *name, const struct team_def *parent,
                          int start, int stride, int size)
{
    team_def_strided(t, name, parent, start, stride, size);
    if (parent->me < 0)
        return;
    t->team = GK_TEAM_WORLD; /* must be overwritten either way */
    CHECK_OK(gk_team_split_strided(parent->team, start, stride, size, &t->team));
    team_def_check(t);
}

static void test_strided(void)
{
    struct team_def even, odd, rev, rev2, one, sub;
    split_strided(&even, "even", &world, 0, 2, (npes + 1) / 2);
    split_strided(&odd, "odd", &world, 1 % npes, 2, npes / 2 > 0 ? npes / 2 : 1);
    split_strided(&rev, "reversed", &world, npes - 1, -1, npes);
    split_strided(&rev2, "every other from the last", &world, npes - 1, -2, (npes + 1) / 2);
    split_strided(&one, "the last alone", &world, npes - 1, 1, 1);
    /* Team numbers, not world numbers: PEs 1, 4, 7 ... of the reversed world. */
    split_strided(&sub, "strided of reversed", &rev, 1 % npes, 3, (npes - 1 % npes + 2) / 3);
    struct team_def *defs[] = {&world, &node, &even, &odd, &rev, &rev2, &one, &sub};
    check_all_pairs(defs, 8);
    for (int i = 2; i < 8; i++)
        check_team_works(defs[i], (unsigned)i);
    /* Destroyed in an order other than their making. */
    destroy_def(&rev2);
    destroy_def(&even);
    destroy_def(&sub);
    destroy_def(&one);
    destroy_def(&rev);
    destroy_def(&odd);
}

static void split_2d(struct team_def *row, struct team_def *col, const struct team_def *parent,
                     int xrange)
{
    team_def_2d(row, col, parent, xrange, parent->me < 0 ? 0 : parent->me);
    if (parent->me < 0) {
        row->me = col->me = -1;
        return;
    }
    row->team = col->team = GK_TEAM_WORLD;
    CHECK_OK(gk_team_split_2d(parent->team, xrange, &row->team, &col->team));
    /* Every PE is in a row and a column. */
    CHECK_GE(row->me, 0);
    CHECK_GE(col->me, 0);
    CHECK_EQ(row->me, parent->me % xrange);
    CHECK_EQ(col->me, parent->me / xrange);
    team_def_check(row);
    team_def_check(col);
}

static void test_2d(void)
{
    for (int xrange = 1; xrange <= 3; xrange++) {
        struct team_def row, col;
        split_2d(&row, &col, &world, xrange);
        struct team_def *defs[] = {&world, &node, &row, &col};
        check_all_pairs(defs, 4);
        check_team_works(&row, (unsigned)xrange);
        check_team_works(&col, (unsigned)xrange + 10);
        destroy_def(&col);
        destroy_def(&row);
    }
    /* A grid of a split team: the reversed world in rows of 2. */
    struct team_def rev, row, col;
    split_strided(&rev, "reversed", &world, npes - 1, -1, npes);
    split_2d(&row, &col, &rev, 2);
    struct team_def *defs[] = {&world, &rev, &row, &col};
    check_all_pairs(defs, 4);
    check_team_works(&row, 5);
    check_team_works(&col, 6);
    destroy_def(&row);
    destroy_def(&col);
    destroy_def(&rev);
}

static void split_color(struct team_def *t, const char *name, const struct team_def *parent,
                        const int *colors, const int *keys)
{
    if (parent->me < 0) {
        team_def_init(t, name, 0);
        return;
    }
    team_def_split(t, name, parent, colors, keys, colors[parent->me]);
    t->team = GK_TEAM_WORLD;
    CHECK_OK(gk_team_split(parent->team, colors[parent->me], keys[parent->me], &t->team));
    team_def_check(t);
}

static void test_color_split(void)
{
    int *colors = calloc((size_t)npes, sizeof(int)), *keys = calloc((size_t)npes, sizeof(int));
    CHECK_TRUE(colors && keys);

    /* Two colours, each ordered backwards by its key. */
    for (int p = 0; p < npes; p++) {
        colors[p] = p % 2;
        keys[p] = npes - p;
    }
    struct team_def parity;
    split_color(&parity, "parity, reversed", &world, colors, keys);
    CHECK_EQ(parity.me, (parity.n - 1) - me / 2);

    /* One colour, equal keys: the parent's order. PE 1 (or the only PE)
     * joins none and gets GK_TEAM_INVALID. */
    for (int p = 0; p < npes; p++) {
        colors[p] = p == 1 % npes ? GK_TEAM_UNDEFINED : 7;
        keys[p] = 3;
    }
    struct team_def same;
    split_color(&same, "one colour, equal keys", &world, colors, keys);

    /* A split of the parity team: colour by its team number / 2, keys that
     * put the odd team numbers first. */
    int pn = parity.n;
    int *pcolors = calloc((size_t)pn, sizeof(int)), *pkeys = calloc((size_t)pn, sizeof(int));
    CHECK_TRUE(pcolors && pkeys);
    for (int i = 0; i < pn; i++) {
        pcolors[i] = i / 2;
        pkeys[i] = i % 2 == 1 ? -i : i + 100;
    }
    struct team_def sub;
    split_color(&sub, "split of parity", &parity, pcolors, pkeys);

    struct team_def *defs[] = {&world, &node, &parity, &same, &sub};
    check_all_pairs(defs, 5);
    check_team_works(&parity, 3);
    check_team_works(&same, 4);
    check_team_works(&sub, 5);
    destroy_def(&sub);
    destroy_def(&same);
    destroy_def(&parity);
    free(pcolors);
    free(pkeys);
    free(colors);
    free(keys);
}

/* Many teams one after another, more than there are slots: members change
 * each time (so a slot's next team differs from its last) and each team
 * runs one to three rounds of collectives. */
static void test_reuse(void)
{
    int *colors = calloc((size_t)npes, sizeof(int)), *keys = calloc((size_t)npes, sizeof(int));
    CHECK_TRUE(colors && keys);
    for (int round = 0; round < 3 * GK_TEAM_MAX; round++) {
        struct team_def t;
        switch (round % 3) {
        case 0:
            split_strided(&t, "reuse strided", &world, round % npes, 1,
                          npes - round % npes);
            break;
        case 1:
            for (int p = 0; p < npes; p++) {
                colors[p] = (p + round) % 3 == 0 && npes > 1 ? GK_TEAM_UNDEFINED : 0;
                keys[p] = (p * 5 + round) % npes;
            }
            split_color(&t, "reuse colour", &world, colors, keys);
            break;
        default: {
            struct team_def other;
            split_2d(&t, &other, &world, 1 + (round / 3) % 3);
            destroy_def(&other);
            break;
        }
        }
        for (int k = 0; k <= round % 3; k++)
            check_team_works(&t, (unsigned)(round * 4 + k));
        destroy_def(&t);
    }
    free(colors);
    free(keys);
}

/* A team takes the same slot on every member, the lowest free on every
 * PE of the parent: with PE 0 in half the split slots on teams of its own
 * and then PE 1 in the other half, no slot is free on both, though
 * neither PE holds GK_TEAM_MAX teams; the split of the world fails on
 * every PE, and works again once they are destroyed. */
static void test_limit_per_pe(void)
{
    enum { OWN = (GK_TEAM_MAX - 2) / 2 };
    struct team_def own0[OWN], own1[OWN];
    for (int i = 0; i < OWN; i++)
        split_strided(&own0[i], "PE 0's own", &world, 0, 1, 1);
    for (int i = 0; i < OWN; i++)
        split_strided(&own1[i], "PE 1's own", &world, 1, 1, 1);
    gk_team_t team = GK_TEAM_NODE;
    CHECK_LOGGED(GK_ERR_NOMEM, gk_team_split_strided(GK_TEAM_WORLD, 0, 1, npes, &team),
                 "gk_team_split_strided", "no team slot is free on every PE of the parent");
    CHECK_EQ(team == GK_TEAM_NODE, 1);
    for (int i = 0; i < OWN; i++) {
        destroy_def(&own1[i]);
        destroy_def(&own0[i]);
    }
    struct team_def all;
    team_def_strided(&all, "the world once slots are free", &world, 0, 1, npes);
    all.team = GK_TEAM_INVALID;
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, npes, &all.team));
    team_def_check(&all);
    check_team_works(&all, 12);
    destroy_def(&all);
}

/*
 * Output parameters are written only on success (gasket.h's conventions):
 * a failed split leaves the handle as it was. Noted as the test goes and
 * checked at the end, so that the checks after it still run.
 */
static const char *written_by;
static int written_count;

static void check_kept(gk_team_t *handle, const char *call)
{
    if (*handle != GK_TEAM_NODE && written_count++ == 0)
        written_by = call;
    *handle = GK_TEAM_NODE;
}

static void check_outputs_kept(void)
{
    if (written_count != 0)
        PE_FAIL("%d failed splits wrote their output handle, the first after %s (outputs "
                "are written only on success)",
                written_count, written_by);
}

/* GK_TEAM_MAX teams at once, the predefined two included. */
static void test_limit(void)
{
    enum { FREE = GK_TEAM_MAX - 2 };
    struct team_def held[FREE];
    for (int i = 0; i < FREE; i++)
        split_strided(&held[i], "held", &world, 0, 1, npes);
    gk_team_t extra = GK_TEAM_NODE;
    CHECK_LOGGED(GK_ERR_NOMEM, gk_team_split_strided(GK_TEAM_WORLD, 0, 1, npes, &extra),
                 "gk_team_split_strided");
    check_kept(&extra, "the split past the limit");
    /* Room for one, not for the two of a grid. */
    destroy_def(&held[FREE - 1]);
    gk_team_t x = GK_TEAM_NODE, y = GK_TEAM_NODE;
    CHECK_LOGGED(GK_ERR_NOMEM, gk_team_split_2d(GK_TEAM_WORLD, 1, &x, &y), "gk_team_split_2d");
    check_kept(&x, "the 2-D split past the limit");
    check_kept(&y, "the 2-D split past the limit");
    split_strided(&held[FREE - 1], "held again", &world, npes - 1, -1, npes);
    check_team_works(&held[FREE - 1], 9);
    for (int i = 0; i < FREE; i++)
        check_team_works(&held[i], (unsigned)i);
    for (int i = 0; i < FREE; i++)
        destroy_def(&held[i]);

    /* Only PE 0 is full (teams of PE 0 alone): a split of the world fails
     * on every PE all the same, and nothing is made anywhere. */
    for (int i = 0; i < FREE; i++)
        split_strided(&held[i], "PE 0 alone", &world, 0, 1, 1);
    extra = GK_TEAM_NODE;
    CHECK_LOGGED(GK_ERR_NOMEM, gk_team_split(GK_TEAM_WORLD, 0, me, &extra), "gk_team_split");
    check_kept(&extra, "the split past PE 0's limit");
    for (int i = 0; i < FREE; i++)
        destroy_def(&held[i]);
    /* And all is well again. */
    struct team_def t;
    split_strided(&t, "after the limit", &world, 0, 1, npes);
    check_team_works(&t, 11);
    destroy_def(&t);
}

static void test_errors(void)
{
    gk_team_t t = GK_TEAM_NODE, x = GK_TEAM_NODE;
    const char *s = "gk_team_split_strided";
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split_strided(GK_TEAM_WORLD, 0, 1, npes, NULL), s,
                 "team_p");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split_strided(GK_TEAM_WORLD, 0, 0, npes, &t), s,
                 "stride");
    check_kept(&t, "stride 0");
    CHECK_LOGGED_EITHER(GK_ERR_INVALID_ARG, GK_ERR_PE,
                        gk_team_split_strided(GK_TEAM_WORLD, npes, 1, 1, &t), s, "start");
    CHECK_LOGGED_EITHER(GK_ERR_INVALID_ARG, GK_ERR_PE,
                        gk_team_split_strided(GK_TEAM_WORLD, -1, 1, 1, &t), s, "start");
    check_kept(&t, "a start out of range");
    /* The last member past the end, or before the start. */
    CHECK_LOGGED_EITHER(GK_ERR_INVALID_ARG, GK_ERR_PE,
                        gk_team_split_strided(GK_TEAM_WORLD, 0, 1, npes + 1, &t), s);
    CHECK_LOGGED_EITHER(GK_ERR_INVALID_ARG, GK_ERR_PE,
                        gk_team_split_strided(GK_TEAM_WORLD, 0, -1, 2, &t), s);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split_strided(GK_TEAM_WORLD, 0, 1, -1, &t), s,
                 "size");
    check_kept(&t, "a member out of range");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split_2d(GK_TEAM_WORLD, 0, &t, &x),
                 "gk_team_split_2d", "xrange");
    check_kept(&t, "xrange 0");
    check_kept(&x, "xrange 0");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split(GK_TEAM_WORLD, -2, 0, &t), "gk_team_split",
                 "colo");
    check_kept(&t, "colour -2");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split(GK_TEAM_WORLD, 0, 0, NULL), "gk_team_split",
                 "team_p");
    if (npes >= 2) {
        /* PEs that pass different triplets: named as such, on every PE. */
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split_strided(GK_TEAM_WORLD, me % 2, 1, 1, &t),
                     s, "different starts (from 0 to 1");
        check_kept(&t, "different starts");
    }

    gk_team_t predefined = GK_TEAM_WORLD;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_destroy(&predefined), "gk_team_destroy");
    CHECK_TRUE(predefined == GK_TEAM_WORLD);
    predefined = GK_TEAM_NODE;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_destroy(&predefined), "gk_team_destroy");
    CHECK_TRUE(predefined == GK_TEAM_NODE);
    predefined = GK_TEAM_INVALID;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_destroy(&predefined), "gk_team_destroy");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_destroy(NULL), "gk_team_destroy", "team_p");

    /* The predefined teams still work. */
    check_team_works(&world, 21);
    check_team_works(&node, 22);
}

/* An invalid parent, named as the argument it is. */
static void test_invalid_parent(void)
{
    gk_team_t t = GK_TEAM_NODE, x = GK_TEAM_NODE;
    const char *s = "gk_team_split_strided";
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split_strided(GK_TEAM_INVALID, 0, 1, 1, &t), s,
                 "parent");
    check_kept(&t, "an invalid parent");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split_2d(GK_TEAM_INVALID, 1, &t, &x),
                 "gk_team_split_2d", "parent");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_split(GK_TEAM_INVALID, 0, 0, &t), "gk_team_split",
                 "parent");
    check_kept(&t, "an invalid parent");
    check_kept(&x, "an invalid parent");
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    void *sym = gk_malloc(64);
    CHECK_NOT_NULL(sym);
    team_def_world(&world);
    team_def_node(&node, sym);

    test_predefined();
    test_strided();
    test_2d();
    test_color_split();
    test_reuse();
    test_limit();
    test_errors();
    check_outputs_kept();
    test_invalid_parent();
    check_outputs_kept();
    /* Last: where slots are shared between PEs, this is what fails. */
    if (npes >= 2)
        test_limit_per_pe();

    team_def_free(&node);
    team_def_free(&world);
    gk_free(sym);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("team_split_test: %d PEs ok\n", npes);
    return 0;
}

/*
 * team_malloc_test: symmetric allocation over a team (gk_team_malloc,
 * gk_team_calloc, gk_team_align, gk_team_free), and the world's heap calls
 * after team allocations have made the PEs' heaps differ.
 *
 * The teams: the even PEs and the odd PEs (strided splits of the world; at
 * 1 PE only the even one), the world reversed, GK_TEAM_NODE and
 * GK_TEAM_WORLD. A block's place is
 * checked as its offset from a world block allocated first (`base`), the
 * same on every PE.
 *
 *   no common room  the odd team holds the low half of the free heap, the
 *                   even team a block just above it: each PE has room for
 *                   half the heap, but at no offset free on all, so
 *                   gk_malloc fails on every PE with a line saying so;
 *   members         each member puts its pattern into its slot of the block
 *                   on every other member (world numbers, and team numbers
 *                   through a context on the team) and reads them all back;
 *                   the offset is the same on every member (all-reduce);
 *                   calloc is zero, align is aligned;
 *   reuse           a block freed and allocated again takes the same offset;
 *   world after     the two teams allocate at the same time, leaving holes
 *                   that differ (the even team frees one of its blocks), then
 *                   a team of every PE and a world gk_malloc take a range
 *                   free on every PE (in a few rounds of agreement): the
 *                   same offset on all, clear of this PE's team blocks, and
 *                   every PE puts into its slot on every PE while the team
 *                   blocks keep their contents; gk_team_malloc on
 *                   GK_TEAM_WORLD is gk_malloc;
 *   random          the halves, the world and the world reversed allocate
 *                   and free blocks of random sizes and alignments in
 *                   sequences of their own: each new block is at one offset
 *                   on all its PEs and clear of every block each holds;
 *   destroy         a team with a live block is not destroyed
 *                   (GK_ERR_INVALID_ARG on every member, a line naming the
 *                   block count); it works on, and after gk_team_free it is
 *                   destroyed;
 *   errors          GK_TEAM_INVALID, a destroyed team, size 0, a calloc
 *                   overflow, a bad alignment, members passing different
 *                   sizes or one member size 0, a block of another team or
 *                   of the world to gk_team_free, a team block to gk_free and
 *                   gk_realloc: NULL or an error with one line on every PE of
 *                   the call naming the call and the value, nothing
 *                   allocated or freed; a member in gk_team_malloc while the
 *                   others are in gk_team_barrier: GK_ERR_COLL_MISMATCH
 *                   naming gk_team_malloc on every member (on a spare team,
 *                   which then stays broken).
 */
#include "team_common.h"

static int me, npes;
static char *base; /* the world's first block: offsets are from it */
static struct team_def world, node, evens, odds, reversed;

static long offset_of(const void *p)
{
    return (long)((const char *)p - base);
}

/* p's offset is the same on every PE of t. */
static void check_same_offset(const struct team_def *t, const void *p, const char *what)
{
    int64_t off = offset_of(p), in[2] = {off, -off}, out[2] = {0, 0};
    CHECK_OK(gk_team_allreduce(t->team, out, in, 2, GK_DTYPE_INT64, GK_OP_MAX));
    if (out[0] != off || -out[1] != off)
        PE_FAIL("%s on team %s: offsets from %lld to %lld, this PE %lld", what, t->name,
                (long long)-out[1], (long long)out[0], (long long)off);
}

/* [a, a + an) and [b, b + bn) are disjoint. */
static void check_apart(const void *a, size_t an, const void *b, size_t bn, const char *what)
{
    const char *x = a, *y = b;
    if (x < y + bn && y < x + an)
        PE_FAIL("%s: [%ld, +%zu) overlaps [%ld, +%zu)", what, offset_of(a), an, offset_of(b),
                bn);
}

/* Every member puts its pattern (seed) into its slot of `slot` bytes of p
 * on every member, then checks every slot of its own copy. */
static void exchange(const struct team_def *t, char *p, size_t slot, unsigned seed)
{
    unsigned char *mine = malloc(slot), *want = malloc(slot);
    CHECK_NOT_NULL(mine);
    CHECK_NOT_NULL(want);
    team_fill(mine, me, seed, slot);
    for (int i = 0; i < t->n; i++)
        CHECK_OK(gk_put(t->members[i], p + (size_t)t->me * slot, mine, slot));
    CHECK_OK(gk_team_barrier(t->team));
    for (int i = 0; i < t->n; i++) {
        team_fill(want, t->members[i], seed, slot);
        CHECK_BYTES(p + (size_t)i * slot, want, slot, "team %s: member %d's slot (seed %u)",
                    t->name, i, seed);
    }
    CHECK_OK(gk_team_barrier(t->team));
    free(mine);
    free(want);
}

/* The contents a block was given by exchange() are still there. */
static void check_kept(const struct team_def *t, const char *p, size_t slot, unsigned seed)
{
    unsigned char *want = malloc(slot);
    CHECK_NOT_NULL(want);
    for (int i = 0; i < t->n; i++) {
        team_fill(want, t->members[i], seed, slot);
        CHECK_BYTES(p + (size_t)i * slot, want, slot,
                    "team %s: member %d's slot (seed %u) after the world's puts", t->name, i,
                    seed);
    }
    free(want);
}

/* The team this PE is in, of the even and the odd PEs. */
static const struct team_def *my_half(void)
{
    return evens.me >= 0 ? &evens : &odds;
}

/* A call that returns a pointer fails with one error line containing the
 * needles. */
#define CHECK_NULL_LOGGED(call, ...)                                                     \
    CHECK_LOGGED(GK_ERR_INVALID_ARG, (call) == NULL ? GK_ERR_INVALID_ARG : GK_OK,       \
                 __VA_ARGS__)

static int free_void(void *p)
{
    gk_free(p);
    return GK_ERR_INVALID_ARG; /* what the line says is checked */
}

/* ---- No common room ---- */

static void test_no_common_room(void)
{
    if (npes < 2)
        return;
    /* Every heap is the same here: half of what is free, in pages. */
    size_t half = gk_heap_free() / 2 / 4096 * 4096 - 4096;
    const struct team_def *t = my_half();
    void *low = NULL, *high = NULL;
    if (t == &odds) {
        /* Odd PEs: [s, s + half) held, [s + half, s + 2 half) held, the
         * first freed: room below, none above. */
        low = gk_team_malloc(t->team, half);
        high = gk_team_malloc(t->team, half);
        CHECK_NOT_NULL(low);
        CHECK_NOT_NULL(high);
        CHECK_OK(gk_team_free(t->team, low));
    } else {
        /* Even PEs: [s, s + half) held, room above it only. */
        high = gk_team_malloc(t->team, half);
        CHECK_NOT_NULL(high);
    }
    CHECK_NULL_LOGGED(gk_malloc(half), "gk_malloc",
                      pe_fmt("no range of %zu bytes is free on every PE", half));
    /* Nothing was left taken: a small block still fits everywhere. */
    void *small = gk_malloc(64);
    CHECK_NOT_NULL(small);
    check_same_offset(&world, small, "gk_malloc after a failed one");
    gk_free(small);
    CHECK_OK(gk_team_free(t->team, high));
}

/* ---- Members ---- */

static void test_members(const struct team_def *t, unsigned seed)
{
    if (t->me < 0)
        return;
    size_t slot = 40 + seed;
    char *p = gk_team_malloc(t->team, slot * (size_t)t->n);
    CHECK_NOT_NULL(p);
    check_same_offset(t, p, "gk_team_malloc");
    exchange(t, p, slot, seed);

    /* Through a context on the team: team numbers. */
    gk_ctx_t *ctx = NULL;
    CHECK_OK(gk_team_ctx_create(t->team, 0, &ctx));
    uint64_t *word = gk_team_calloc(t->team, (size_t)t->n, sizeof(uint64_t));
    CHECK_NOT_NULL(word);
    for (int i = 0; i < t->n; i++)
        CHECK_EQ_U64(word[i], 0);
    CHECK_OK(gk_team_barrier(t->team)); /* every member has looked */
    int next = (t->me + 1) % t->n;
    uint64_t value = 1000u * seed + (uint64_t)me;
    CHECK_OK(gk_ctx_put(ctx, next, &word[t->me], &value, sizeof(value)));
    CHECK_OK(gk_ctx_quiet(ctx));
    CHECK_OK(gk_team_barrier(t->team));
    int prev = (t->me + t->n - 1) % t->n;
    CHECK_EQ_U64(word[prev], 1000u * seed + (uint64_t)t->members[prev]);
    CHECK_OK(gk_ctx_destroy(ctx));

    char *aligned = gk_team_align(t->team, 4096, 100);
    CHECK_NOT_NULL(aligned);
    CHECK_EQ((uintptr_t)aligned % 4096, 0);
    check_same_offset(t, aligned, "gk_team_align");
    check_apart(aligned, 100, p, slot * (size_t)t->n, "gk_team_align's block");

    CHECK_OK(gk_team_free(t->team, aligned));
    CHECK_OK(gk_team_free(t->team, word));
    CHECK_OK(gk_team_free(t->team, NULL));
    /* Reuse: the same size again takes the same place. */
    CHECK_OK(gk_team_free(t->team, p));
    char *again = gk_team_malloc(t->team, slot * (size_t)t->n);
    CHECK_EQ(again, p);
    exchange(t, again, slot, seed + 1);
    CHECK_OK(gk_team_free(t->team, again));
}

/* ---- The world after team allocations ---- */

static void test_world_after_teams(void)
{
    const struct team_def *t = my_half();
    size_t slot = 96;
    /* Different holes on the two halves: the evens hold [x + 128, x + 256)
     * after freeing [x, x + 128), the odds [x, x + 64) (x: the first free
     * offset), so their first fits for 128 bytes differ, and the first
     * offset free on both is past both. */
    char *first = gk_team_malloc(t->team, t == &evens ? 128 : 64);
    CHECK_NOT_NULL(first);
    char *kept = first, *second = NULL;
    if (t == &evens) {
        second = gk_team_malloc(t->team, 128);
        CHECK_NOT_NULL(second);
        CHECK_OK(gk_team_free(t->team, first));
        kept = second;
    }
    size_t kept_size = t == &evens ? 128 : 64;
    /* A team of every PE places its block where both halves have room:
     * past the evens' hole, which the odds' block cuts short. */
    char *across = gk_team_malloc(reversed.team, 128);
    CHECK_NOT_NULL(across);
    check_same_offset(&reversed, across, "gk_team_malloc over both halves");
    check_apart(across, 128, kept, kept_size, "the reversed team's block");
    exchange(&reversed, across, 8, 5);
    /* Team data in the blocks, by the members. */
    char *data = gk_team_malloc(t->team, slot * (size_t)t->n);
    CHECK_NOT_NULL(data);
    exchange(t, data, slot, 7);

    /* The world's block: the same offset everywhere, clear of every team
     * block this PE holds, and every PE puts into every PE's copy. */
    size_t wslot = 128;
    char *w = gk_malloc(wslot * (size_t)npes);
    CHECK_NOT_NULL(w);
    check_same_offset(&world, w, "gk_malloc after team allocations");
    check_apart(w, wslot * (size_t)npes, kept, kept_size, "the world's block");
    check_apart(w, wslot * (size_t)npes, data, slot * (size_t)t->n, "the world's block");
    exchange(&world, w, wslot, 9);
    check_kept(t, data, slot, 7);

    /* gk_team_malloc on the world is gk_malloc; gk_team_free there too. */
    char *w2 = gk_team_malloc(GK_TEAM_WORLD, 200);
    CHECK_NOT_NULL(w2);
    check_same_offset(&world, w2, "gk_team_malloc on GK_TEAM_WORLD");
    check_apart(w2, 200, w, wslot * (size_t)npes, "GK_TEAM_WORLD's block");
    check_apart(w2, 200, data, slot * (size_t)t->n, "GK_TEAM_WORLD's block");
    char *w3 = gk_realloc(w2, 5000);
    CHECK_NOT_NULL(w3);
    check_same_offset(&world, w3, "gk_realloc after team allocations");
    check_apart(w3, 5000, data, slot * (size_t)t->n, "gk_realloc's block");
    check_apart(w3, 5000, w, wslot * (size_t)npes, "gk_realloc's block");
    CHECK_OK(gk_team_free(GK_TEAM_WORLD, w3));

    /* A team block on the reversed world beside them all. */
    char *r = gk_team_malloc(reversed.team, 64 * (size_t)npes);
    CHECK_NOT_NULL(r);
    check_same_offset(&reversed, r, "gk_team_malloc on the world reversed");
    check_apart(r, 64 * (size_t)npes, data, slot * (size_t)t->n, "the reversed team's block");
    check_apart(r, 64 * (size_t)npes, w, wslot * (size_t)npes, "the reversed team's block");
    exchange(&reversed, r, 64, 11);
    check_kept(t, data, slot, 7);

    CHECK_OK(gk_team_free(reversed.team, r));
    check_kept(&reversed, across, 8, 5);
    CHECK_OK(gk_team_free(reversed.team, across));
    gk_free(w);
    CHECK_OK(gk_team_free(t->team, data));
    CHECK_OK(gk_team_free(t->team, kept));
}

/* ---- Random sequences ---- */

/* The live blocks of the random test on this PE. */
enum { LIVE_MAX = 24 };
static struct live {
    char *p;
    size_t size;
    const struct team_def *team;
} live[LIVE_MAX];
static int n_live;

static unsigned rand_next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* A new block of t on every member: the same offset, clear of every
 * other block this PE holds. */
static void random_take(const struct team_def *t, unsigned *seed)
{
    static const size_t aligns[] = {0, 0, 0, 256, 4096};
    size_t size = 1 + rand_next(seed) % 3000;
    size_t align = aligns[rand_next(seed) % 5];
    char *p = align == 0 ? gk_team_malloc(t->team, size) : gk_team_align(t->team, align, size);
    CHECK_NOT_NULL(p);
    if (align != 0)
        CHECK_EQ((uintptr_t)p % align, 0);
    check_same_offset(t, p, "a random sequence's block");
    for (int i = 0; i < n_live; i++)
        check_apart(p, size, live[i].p, live[i].size, "a random sequence's block");
    live[n_live++] = (struct live){p, size, t};
}

/* Frees a random block of t (this PE's i-th of t's, the same on every
 * member). */
static void random_give(const struct team_def *t, unsigned *seed)
{
    int mine = 0;
    for (int i = 0; i < n_live; i++)
        mine += live[i].team == t;
    if (mine == 0)
        return;
    int k = (int)(rand_next(seed) % (unsigned)mine);
    for (int i = 0; i < n_live; i++) {
        if (live[i].team != t || k-- != 0)
            continue;
        CHECK_OK(gk_team_free(t->team, live[i].p));
        /* In order: t's blocks stay in the order of their calls. */
        memmove(&live[i], &live[i + 1], (size_t)(--n_live - i) * sizeof(live[0]));
        return;
    }
}

/* Each half, the world and the world reversed allocate and free blocks of
 * random sizes and alignments, in sequences of their own (the same on
 * every member); every new block is at one offset on all its PEs and
 * clear of every block each of them holds. */
static void test_random(int rounds)
{
    const struct team_def *t = my_half();
    unsigned half_seed = t == &evens ? 11 : 23, world_seed = 37;
    /* The choices of a sequence depend on its own blocks only: the
     * half's on the half's, the world's on the world's and the world
     * reversed's, which every PE holds alike. */
    int n_half = 0, n_all = 0;
    for (int round = 0; round < rounds; round++) {
        if (n_half == LIVE_MAX / 2 || rand_next(&half_seed) % 3 == 0) {
            random_give(t, &half_seed);
        } else {
            random_take(t, &half_seed);
            n_half++;
        }
        unsigned what = rand_next(&world_seed) % 8;
        const struct team_def *all = what < 4 ? &world : &reversed;
        if (what % 4 == 0 && n_all < LIVE_MAX / 2) {
            random_take(all, &world_seed);
            n_all++;
        } else if (what % 4 == 1) {
            random_give(all, &world_seed);
        }
        n_half = n_all = 0;
        for (int i = 0; i < n_live; i++) {
            n_half += live[i].team == t;
            n_all += live[i].team != t;
        }
    }
    while (n_live > 0) {
        CHECK_OK(gk_team_free(live[n_live - 1].team->team, live[n_live - 1].p));
        n_live--;
    }
}

/* ---- Destroy ---- */

static void test_destroy(void)
{
    gk_team_t team = GK_TEAM_INVALID;
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, npes, &team));
    void *p = gk_team_malloc(team, 64);
    CHECK_NOT_NULL(p);
    gk_team_t kept = team;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_destroy(&team), "gk_team_destroy",
                 "still holds 1 symmetric block", "gk_team_free");
    CHECK_EQ(team, kept);
    CHECK_OK(gk_team_barrier(team));
    CHECK_OK(gk_team_free(team, p));
    CHECK_OK(gk_team_destroy(&team));
    CHECK_EQ(team, GK_TEAM_INVALID);
    /* The destroyed team's handle is no team any more. */
    CHECK_NULL_LOGGED(gk_team_malloc(kept, 64), "gk_team_malloc",
                      "is not a team of this PE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_free(kept, NULL), "gk_team_free",
                 "is not a team of this PE");
}

/* ---- Errors ---- */

static void test_errors(void)
{
    const struct team_def *t = my_half();
    CHECK_NULL_LOGGED(gk_team_malloc(GK_TEAM_INVALID, 64), "gk_team_malloc",
                      "team is GK_TEAM_INVALID");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_free(GK_TEAM_INVALID, base), "gk_team_free",
                 "team is GK_TEAM_INVALID");
    CHECK_NULL_LOGGED(gk_team_malloc(t->team, 0), "gk_team_malloc", "size is 0");
    CHECK_NULL_LOGGED(gk_team_calloc(t->team, SIZE_MAX / 2, 4), "gk_team_calloc",
                      "overflows");
    CHECK_NULL_LOGGED(gk_team_align(t->team, 48, 64), "gk_team_align",
                      "alignment 48 is not a power of two");
    /* On the world, a size of 0 is an error too. */
    CHECK_NULL_LOGGED(gk_team_malloc(GK_TEAM_WORLD, 0), "gk_team_malloc", "size is 0");

    /* Members that disagree: every member fails, nothing is taken. */
    size_t before = gk_heap_free();
    if (t->n >= 2) {
        CHECK_NULL_LOGGED(gk_team_malloc(t->team, t->me == 0 ? 64 : 128), "gk_team_malloc",
                          "passed different sizes (from 64 to 128");
        if (t->me == 0)
            CHECK_NULL_LOGGED(gk_team_malloc(t->team, 0), "gk_team_malloc", "size is 0");
        else
            CHECK_NULL_LOGGED(gk_team_malloc(t->team, 64), "gk_team_malloc",
                              "passed different sizes");
        CHECK_NULL_LOGGED(t->me == 0 ? gk_team_calloc(t->team, 1, 64)
                                     : gk_team_malloc(t->team, 64),
                          "different heap calls (gk_team_malloc on some, gk_team_calloc");
    }
    CHECK_EQ(gk_heap_free(), before);

    /* Blocks freed on the wrong team, or with the world's calls. */
    char *mine = gk_team_malloc(t->team, 64);
    CHECK_NOT_NULL(mine);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_free(t->team, base), "gk_team_free",
                 pe_fmt("ptr %p is not a block of this team's", (void *)base),
                 "the world's (gk_malloc)");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_free(reversed.team, mine), "gk_team_free",
                 "is not a block of this team's", "another team's");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_free(t->team, mine + 8), "gk_team_free",
                 "is not a block of the symmetric heap");
    if (t->n >= 2)
        CHECK_LOGGED(GK_ERR_INVALID_ARG,
                     gk_team_free(t->team, t->me == 0 ? (void *)mine : NULL),
                     "gk_team_free", "passed different blocks");
    /* Every PE passes the evens' block: a team block there, on the odds
     * no block, or their own team block. */
    int64_t off = evens.me >= 0 ? offset_of(mine) : 0, top = 0;
    CHECK_OK(gk_allreduce(&top, &off, 1, GK_DTYPE_INT64, GK_OP_MAX));
    char *same = base + top;
    if (evens.me >= 0 || npes == 1)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, free_void(same), "gk_free",
                     "is a block of a team (gk_team_malloc)");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG, free_void(same), "gk_free");
    CHECK_NULL_LOGGED(gk_realloc(same, 256), "gk_realloc");
    /* It is still the team's. */
    exchange(t, mine, 8, 3);
    CHECK_OK(gk_team_free(t->team, mine));
    CHECK_EQ(gk_heap_free(), before);
}

/* One member in gk_team_malloc, the others in gk_team_barrier. */
static void test_kind_mismatch(void)
{
    if (npes < 2)
        return;
    gk_team_t spare = GK_TEAM_INVALID;
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, npes, &spare));
    if (me == 0)
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH,
                     gk_team_malloc(spare, 64) == NULL ? GK_ERR_COLL_MISMATCH : GK_OK,
                     "gk_team_malloc", "gk_team_barrier");
    else
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_team_barrier(spare), "gk_team_barrier",
                     "gk_team_malloc");
    /* The team is out of step for good; the world is not. */
    CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_team_free(spare, NULL), "gk_team_free");
    CHECK_OK(gk_barrier());
}

int main(int argc, char **argv)
{
    int rounds = (int)pe_count_arg(argc, argv, "ROUNDS", "rounds", 200, 1, 100000);
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    base = gk_malloc(64);
    CHECK_NOT_NULL(base);
    team_def_world(&world);
    team_def_node(&node, base);
    team_def_strided(&evens, "evens", &world, 0, 2, (npes + 1) / 2);
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 2, (npes + 1) / 2, &evens.team));
    team_def_strided(&odds, "odds", &world, npes >= 2 ? 1 : 0, 2, npes / 2);
    if (npes >= 2)
        CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 1, 2, npes / 2, &odds.team));
    team_def_strided(&reversed, "reversed", &world, npes - 1, -1, npes);
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, npes - 1, -1, npes, &reversed.team));
    team_def_check(&evens);
    team_def_check(&reversed);

    test_no_common_room();
    test_members(my_half(), 1);
    test_members(&reversed, 2);
    test_members(&world, 3);
    test_members(&node, 4);
    test_world_after_teams();
    test_random(rounds);
    test_destroy();
    test_errors();
    test_kind_mismatch();

    CHECK_OK(gk_team_destroy(&reversed.team));
    if (odds.me >= 0)
        CHECK_OK(gk_team_destroy(&odds.team));
    if (evens.me >= 0)
        CHECK_OK(gk_team_destroy(&evens.team));
    team_def_free(&reversed);
    team_def_free(&odds);
    team_def_free(&evens);
    team_def_free(&node);
    team_def_free(&world);
    gk_free(base);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("team_malloc_test: %d PEs ok\n", npes);
    return 0;
}

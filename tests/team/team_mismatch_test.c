/*
 * team_mismatch_test: team collectives whose PEs disagree, or where one
 * PE's arguments are wrong, fail on every PE of the team with an error line
 * (captured and checked on each PE), never a hang; the team then works on.
 * PEs in different calls break the team for good (GK_ERR_COLL_MISMATCH at
 * once from then on) and no other team. At 2 PEs or more.
 *
 * First on a split team (the world reversed, without PE 0 from 3 PEs on:
 * PE 0 is not in it and carries on alone), then on GK_TEAM_WORLD:
 *
 *   roots      broadcast and reduce with different roots (team PE 1 passes
 *              1, the others 0): GK_ERR_INVALID_ARG, "root", everywhere;
 *   sizes      broadcast, team PE 0 16 bytes, the others 8: "size"; an
 *              all-to-all, team PE 0 8 bytes, the others 1 KiB: "size";
 *   reduction  all-reduce with different counts, types, operations;
 *   one PE     a root out of range on team PE 1 only; a NULL dst on the last
 *              PE only; too little room for a collect on PE 0 only (nothing
 *              is written anywhere); the PE with the bad argument names it,
 *              all fail;
 *   all PEs    root -1, DOUBLE with BXOR, an alltoalls stride of 0;
 *   non-blocking  a broadcast with different roots started with _nb: the
 *              start or the wait fails, with a line, on every PE;
 *   after each an all-reduce on the team gives the right sum;
 *   kinds      team PE 0 in gk_team_barrier, the others in
 *              gk_team_allreduce: GK_ERR_COLL_MISMATCH naming both on every
 *              PE; then every collective on the team fails at once with
 *              GK_ERR_COLL_MISMATCH, while the world (after the split
 *              team's) and a spare copy of the world (after the world's)
 *              still work. The world's is the last thing before
 *              gk_finalize, which must return (GK_OK, or
 *              GK_ERR_COLL_MISMATCH with one line).
 */
#include "team_common.h"

static int me, npes;

/* The team still works: an all-reduce sum of the members' world numbers. */
static void check_works(struct team_def *t)
{
    if (t->me < 0)
        return;
    unsigned round_no = ++t->rounds;
    uint64_t in[3] = {(uint64_t)me, round_no, 1}, out[3] = {0}, want = 0;
    for (int j = 0; j < t->n; j++)
        want += (uint64_t)t->members[j];
    CHECK_OK(gk_team_allreduce(t->team, out, in, 3, GK_DTYPE_UINT64, GK_OP_SUM));
    if (out[0] != want || out[1] != (uint64_t)t->n * round_no || out[2] != (uint64_t)t->n)
        PE_FAIL("team %s: all-reduce after round %u gives {%llu, %llu, %llu}, expected "
                "{%llu, %llu, %d}",
                t->name, round_no, (unsigned long long)out[0], (unsigned long long)out[1],
                (unsigned long long)out[2], (unsigned long long)want,
                (unsigned long long)((uint64_t)t->n * round_no), t->n);
}

/* An _nb start that may fail at once, or start and fail at its wait: either
 * way one error line with the needles, on every PE. */
#define CHECK_NB_LOGGED(code, start, handle, ...)                                        \
    do {                                                                                 \
        gk_capture_begin();                                                              \
        int start_ = (start);                                                            \
        int wait_ = start_ == GK_OK ? gk_handle_wait(&(handle)) : start_;               \
        const char *text_ = gk_capture_end();                                            \
        int code_ = (code);                                                              \
        const char *const needles_[] = {__VA_ARGS__, NULL};                              \
        const char *why_ =                                                               \
            wait_ != code_ ? gk_strerror(wait_) : pe_check_report(text_, needles_);      \
        if (why_ != NULL) {                                                              \
            fprintf(stderr, "--- what %s logged:\n", #start);                            \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("%s: start %d, wait %d, expected %d (%s) with one line: %s", #start,   \
                    start_, wait_, code_, gk_strerror(code_), why_);                     \
        }                                                                                \
    } while (0)

static void test_disagreements(struct team_def *t)
{
    if (t->me < 0)
        return;
    gk_team_t team = t->team;
    unsigned char buf[64] = {0};
    const char *bc = "gk_team_broadcast", *ar = "gk_team_allreduce";

    int root = t->me == 1 ? 1 : 0;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_broadcast(team, buf, buf, 8, root), bc, "root");
    check_works(t);

    size_t size = t->me == 0 ? 16 : 8;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_broadcast(team, buf, buf, size, 0), bc, "size");
    check_works(t);

    /* Sizes on both sides of an algorithm's switch (the all-to-all in the
     * agreement at 8 bytes a block, in exchanges at 1 KiB). */
    size_t block = t->me == 0 ? 8 : 1024, span = 1024 * (size_t)t->n;
    unsigned char *a2a_src = calloc(span, 1), *a2a_dst = calloc(span, 1);
    if (a2a_src == NULL || a2a_dst == NULL)
        PE_FAIL("no memory for the all-to-all's buffers");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_alltoall(team, a2a_dst, a2a_src, block),
                 "gk_team_alltoall", "size");
    free(a2a_src);
    free(a2a_dst);
    check_works(t);

    int64_t in[4] = {1, 2, 3, 4}, out[4];
    size_t count = t->me == 0 ? 4 : 3;
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_team_allreduce(team, out, in, count, GK_DTYPE_INT64, GK_OP_SUM), ar);
    check_works(t);

    gk_dtype_t dtype = t->me == 0 ? GK_DTYPE_INT64 : GK_DTYPE_UINT64;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_allreduce(team, out, in, 4, dtype, GK_OP_SUM),
                 ar);
    check_works(t);

    gk_op_t op = t->me == t->n - 1 ? GK_OP_MAX : GK_OP_SUM;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_allreduce(team, out, in, 4, GK_DTYPE_INT64, op),
                 ar);
    check_works(t);

    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_team_reduce(team, out, in, 4, GK_DTYPE_INT64, GK_OP_SUM, root),
                 "gk_team_reduce", "root");
    check_works(t);

    gk_handle_t h = GK_HANDLE_NULL;
    CHECK_NB_LOGGED(GK_ERR_INVALID_ARG, gk_team_broadcast_nb(team, buf, buf, 8, root, &h), h,
                    "gk_team_broadcast", "root");
    check_works(t);
}

static void test_one_bad_pe(struct team_def *t)
{
    if (t->me < 0)
        return;
    gk_team_t team = t->team;
    unsigned char buf[64] = {0};
    const char *bc = "gk_team_broadcast";

    /* A root out of range on team PE 1 alone. */
    if (t->me == 1)
        CHECK_LOGGED_EITHER(GK_ERR_INVALID_ARG, GK_ERR_PE,
                            gk_team_broadcast(team, buf, buf, 8, t->n), bc, "root");
    else
        CHECK_LOGGED_EITHER(GK_ERR_INVALID_ARG, GK_ERR_PE,
                            gk_team_broadcast(team, buf, buf, 8, 0), bc);
    check_works(t);

    /* A NULL dst on the last PE alone. */
    size_t n = (size_t)t->n;
    unsigned char *all = malloc(8 * n);
    CHECK_NOT_NULL(all);
    if (t->me == t->n - 1)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_fcollect(team, NULL, buf, 8),
                     "gk_team_fcollect", "dst");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_fcollect(team, all, buf, 8),
                     "gk_team_fcollect");
    free(all);
    check_works(t);

    /* Too little room on team PE 0 alone: nothing is written anywhere. */
    size_t total = 16 * n;
    unsigned char *dst = malloc(total), src[16];
    CHECK_NOT_NULL(dst);
    memset(dst, 0xee, total);
    team_fill(src, me, 5, sizeof(src));
    size_t room = t->me == 0 ? total - 1 : total, got = 12345;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_collect(team, dst, room, src, 16, &got),
                 "gk_team_collect");
    CHECK_UNTOUCHED(dst, 0xee, total, "team %s: collect with too little room on PE 0",
                    t->name);
    CHECK_EQ(got, 12345);
    free(dst);
    check_works(t);

    /* Bad on every PE. */
    CHECK_LOGGED_EITHER(GK_ERR_INVALID_ARG, GK_ERR_PE,
                        gk_team_broadcast(team, buf, buf, 8, -1), bc, "root");
    check_works(t);
    double d = 1.0, e = 0.0;
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_team_allreduce(team, &e, &d, 1, GK_DTYPE_DOUBLE, GK_OP_BXOR),
                 "gk_team_allreduce");
    check_works(t);
    uint64_t *a = calloc(n, 8), *b = calloc(n, 8);
    CHECK_TRUE(a && b);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_alltoalls(team, a, b, 1, 0, 8, 1),
                 "gk_team_alltoalls", "stride");
    free(a);
    free(b);
    check_works(t);
}

/* Team PE 0 in a barrier, the others in an all-reduce: the team is broken
 * for good, and the teams in `others` still work. */
static void test_kinds(struct team_def *t, struct team_def *const *others, int n_others)
{
    if (t->me >= 0) {
        gk_team_t team = t->team;
        const char *what = "gk_team_barrier", *other = "gk_team_allreduce";
        uint64_t in = 1, out = 0;
        if (t->me == 0)
            CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_team_barrier(team), what, other);
        else
            CHECK_LOGGED(GK_ERR_COLL_MISMATCH,
                         gk_team_allreduce(team, &out, &in, 1, GK_DTYPE_UINT64, GK_OP_SUM),
                         what, other);
        /* Every later call fails at once, on every PE. */
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_team_barrier(team), what);
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH,
                     gk_team_allreduce(team, &out, &in, 1, GK_DTYPE_UINT64, GK_OP_SUM), other);
        unsigned char buf[8] = {0};
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_team_broadcast(team, buf, buf, 8, 0),
                     "gk_team_broadcast");
        unsigned char *all = malloc(8 * (size_t)t->n);
        CHECK_NOT_NULL(all);
        gk_handle_t h = GK_HANDLE_NULL;
        CHECK_NB_LOGGED(GK_ERR_COLL_MISMATCH, gk_team_fcollect_nb(team, all, buf, 8, &h), h,
                        "gk_team_fcollect");
        free(all);
    }
    for (int i = 0; i < n_others; i++)
        check_works(others[i]);
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    if (npes < 2) {
        CHECK_OK(gk_finalize());
        printf("team_mismatch_test: needs 2 PEs or more, skipped\n");
        return 77;
    }

    /* An invalid team is an error on the PE alone. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_team_barrier(GK_TEAM_INVALID), "gk_team_barrier",
                 "team");

    struct team_def world, split, spare;
    team_def_world(&world);
    int size = npes >= 3 ? npes - 1 : npes;
    team_def_strided(&split, "reversed", &world, npes - 1, -1, size);
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, npes - 1, -1, size, &split.team));
    team_def_strided(&spare, "spare world", &world, 0, 1, npes);
    CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, npes, &spare.team));
    team_def_check(&split);
    team_def_check(&spare);

    test_disagreements(&split);
    test_one_bad_pe(&split);
    check_works(&world);
    struct team_def *after_split[] = {&world, &spare};
    test_kinds(&split, after_split, 2);
    if (split.me >= 0)
        CHECK_OK_OR_LOGGED(GK_ERR_COLL_MISMATCH, gk_team_destroy(&split.team),
                           "gk_team_destroy");

    test_disagreements(&world);
    test_one_bad_pe(&world);
    check_works(&spare);
    struct team_def *after_world[] = {&spare};
    test_kinds(&world, after_world, 1);
    CHECK_OK(gk_team_destroy(&spare.team));

    team_def_free(&split);
    team_def_free(&spare);
    team_def_free(&world);
    CHECK_OK_OR_LOGGED(GK_ERR_COLL_MISMATCH, gk_finalize(), "gk_finalize");
    if (me == 0)
        printf("team_mismatch_test: %d PEs ok\n", npes);
    return 0;
}

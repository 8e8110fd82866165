/*
 * team_ctx_test: a context made on a team numbers PEs as the team does.
 * Over a colour split with the key reversed (team PE i is the world's
 * highest of its colour first), each PE puts its world number to team PE
 * i + 1 through the context and reads team PE i - 1's back; a PE outside
 * the team's range is GK_ERR_PE with a line naming the context's team;
 * the context outlives its team.
 */
#include "pe_check.h"

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    uint64_t *word = gk_malloc(sizeof(uint64_t));
    CHECK_NOT_NULL(word);
    *word = UINT64_MAX;
    gk_team_t team = GK_TEAM_INVALID;
    CHECK_OK(gk_team_split(GK_TEAM_WORLD, me % 2, -me, &team));
    int n = gk_team_n_pes(team), tme = gk_team_my_pe(team);
    gk_ctx_t *ctx = NULL;
    CHECK_OK(gk_team_ctx_create(team, 0, &ctx));
    CHECK_OK(gk_barrier());
    int next = (tme + 1) % n, prev = (tme + n - 1) % n;
    CHECK_OK(gk_ctx_put_u64(ctx, next, word, (uint64_t)me));
    CHECK_OK(gk_ctx_quiet(ctx));
    CHECK_OK(gk_team_barrier(team));
    int prev_world = gk_team_translate_pe(team, prev, GK_TEAM_WORLD);
    CHECK_EQ(*word, (uint64_t)prev_world);
    uint64_t got = 0;
    CHECK_OK(gk_ctx_get_u64(ctx, next, word, &got));
    CHECK_EQ(got, (uint64_t)me);
    CHECK_LOGGED(GK_ERR_PE, gk_ctx_put_u64(ctx, n, word, 1), "gk_ctx_put_u64",
                 pe_fmt("PE %d is not in the context's team", n));
    CHECK_OK(gk_team_barrier(team));
    CHECK_OK(gk_team_destroy(&team));
    /* The context keeps its numbering after the team is gone: team PE
     * prev's word holds the world number of the PE before it. */
    CHECK_OK(gk_ctx_get_u64(ctx, prev, word, &got));
    CHECK_EQ(got < (uint64_t)npes, 1);
    CHECK_EQ((int)(got % 2), me % 2);
    CHECK_OK(gk_ctx_destroy(ctx));
    CHECK_OK(gk_barrier());
    gk_free(word);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("team_ctx_test: %d PEs ok\n", npes);
    return 0;
}

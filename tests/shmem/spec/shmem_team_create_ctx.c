/*
 * shmem_team_create_ctx.c: the specification's team-context example.
 * Two strided teams (every 2nd and every 3rd PE), a context on each; the
 * PEs outside a team get SHMEM_TEAM_INVALID and SHMEM_CTX_INVALID, and
 * still quiet and destroy them (no operation, as the spec says). Each
 * team's PEs put their team number to their ring neighbour; the PEs in
 * both add the two values to PE 0, whose sum is checked.
 */
#include "spec_check.h"

int main(void)
{
    static int sum = 0, val_2 = -1, val_3 = -1;
    shmem_team_t team_2, team_3;
    shmem_ctx_t ctx_2, ctx_3;
    shmem_team_config_t conf = {.num_contexts = 1};
    long cmask = SHMEM_TEAM_NUM_CONTEXTS;

    shmem_init();
    int npes = shmem_n_pes(), me = shmem_my_pe();
    SPEC_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &conf,
                                        cmask, &team_2),
               0);
    SPEC_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 3, (npes + 2) / 3, &conf,
                                        cmask, &team_3),
               0);
    SPEC_CHECK(team_2 != SHMEM_TEAM_INVALID, me % 2 == 0);
    SPEC_CHECK(team_3 != SHMEM_TEAM_INVALID, me % 3 == 0);
    int ret = shmem_team_create_ctx(team_2, 0, &ctx_2);
    SPEC_CHECK(ret != 0, team_2 == SHMEM_TEAM_INVALID);
    SPEC_CHECK(ctx_2 == SHMEM_CTX_INVALID, team_2 == SHMEM_TEAM_INVALID);
    ret = shmem_team_create_ctx(team_3, 0, &ctx_3);
    SPEC_CHECK(ret != 0, team_3 == SHMEM_TEAM_INVALID);

    if (ctx_2 != SHMEM_CTX_INVALID) {
        int pe = shmem_team_my_pe(team_2);
        shmem_ctx_int_put(ctx_2, &val_2, &pe, 1, (pe + 1) % shmem_team_n_pes(team_2));
    }
    if (ctx_3 != SHMEM_CTX_INVALID) {
        int pe = shmem_team_my_pe(team_3);
        shmem_ctx_int_put(ctx_3, &val_3, &pe, 1, (pe + 1) % shmem_team_n_pes(team_3));
    }
    /* On the PEs outside a team, a quiet of SHMEM_CTX_INVALID. */
    shmem_ctx_quiet(ctx_2);
    shmem_ctx_quiet(ctx_3);
    shmem_team_sync(SHMEM_TEAM_WORLD);

    if (team_3 != SHMEM_TEAM_INVALID && team_2 != SHMEM_TEAM_INVALID)
        shmem_ctx_int_atomic_add(ctx_2, &sum, val_2 + val_3, 0);
    shmem_ctx_quiet(ctx_2);
    shmem_team_sync(SHMEM_TEAM_WORLD);

    if (me == 0) {
        int vsum = 0;
        for (int i = 0; i < npes; i++) {
            if (i % 2 == 0 && i % 3 == 0) {
                vsum += i - 2 < 0 ? shmem_team_n_pes(team_2) - 1
                                  : shmem_team_translate_pe(SHMEM_TEAM_WORLD, i - 2, team_2);
                vsum += i - 3 < 0 ? shmem_team_n_pes(team_3) - 1
                                  : shmem_team_translate_pe(SHMEM_TEAM_WORLD, i - 3, team_3);
            }
        }
        SPEC_CHECK(sum, vsum);
    }
    /* Contexts before teams; SHMEM_CTX_INVALID and SHMEM_TEAM_INVALID: no
     * operation. */
    shmem_ctx_destroy(ctx_2);
    shmem_team_destroy(team_2);
    shmem_ctx_destroy(ctx_3);
    shmem_team_destroy(team_3);
    shmem_finalize();
    return 0;
}

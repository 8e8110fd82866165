/*
 * shmem_team_split_strided.c: the specification's split_strided example
 * (the even PEs, npes / 2 of them: even PE k is k / 2 there, odd PEs get
 * SHMEM_TEAM_INVALID) and its shmem_team_translate_pe example (the even
 * PEs again, (npes + 1) / 2: a PE's team number translates back to its
 * world number, and the other way), plus translations that have no
 * answer (-1).
 */
#include "spec_check.h"

int main(void)
{
    shmem_team_t new_team, even_team;
    shmem_team_config_t *config = NULL;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    SPEC_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, npes / 2, config, 0, &new_team),
               0);
    SPEC_CHECK(new_team != SHMEM_TEAM_INVALID, me % 2 == 0);
    if (new_team != SHMEM_TEAM_INVALID) {
        SPEC_CHECK(shmem_team_n_pes(new_team), npes / 2);
        SPEC_CHECK(shmem_team_my_pe(new_team), me / 2);
    }

    SPEC_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, config, 0,
                                        &even_team),
               0);
    SPEC_CHECK(even_team != SHMEM_TEAM_INVALID, me % 2 == 0);
    if (even_team != SHMEM_TEAM_INVALID) {
        int team_mype = shmem_team_my_pe(even_team);
        SPEC_CHECK(shmem_team_translate_pe(even_team, team_mype, SHMEM_TEAM_WORLD), me);
        SPEC_CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, even_team), team_mype);
        SPEC_CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, even_team), -1);
        SPEC_CHECK(shmem_team_translate_pe(even_team, (npes + 1) / 2, SHMEM_TEAM_WORLD), -1);
    }
    SPEC_CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);

    if (new_team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(new_team);
    if (even_team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even_team);
    shmem_finalize();
    return 0;
}

/*
 * shmem_sync.c: the specification's shmem_sync example: a team of every
 * second PE from PE 2 and one of every third PE from PE 3; each team's
 * PEs put the team's number to the next member round their ring, quiet
 * and sync the team, with a sync of SHMEM_TEAM_WORLD between the two
 * teams' rounds. PEs in no team (all of them below 3 PEs) get
 * SHMEM_TEAM_INVALID, whose queries answer -1, and keep 10101; PE 0 is
 * in neither.
 */
#include "spec_check.h"

int main(void)
{
    static int x = 10101;
    shmem_team_t twos_team = SHMEM_TEAM_INVALID;
    shmem_team_t threes_team = SHMEM_TEAM_INVALID;
    shmem_team_config_t *config = NULL;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > 2)
        SPEC_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 2, 2, (npes - 1) / 2, config,
                                            0, &twos_team),
                   0);
    if (npes > 3)
        SPEC_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 3, 3, (npes - 1) / 3, config,
                                            0, &threes_team),
                   0);
    int in_twos = me >= 2 && me % 2 == 0 && npes > 2;
    int in_threes = me >= 3 && me % 3 == 0 && npes > 3;
    SPEC_CHECK(twos_team != SHMEM_TEAM_INVALID, in_twos);
    SPEC_CHECK(threes_team != SHMEM_TEAM_INVALID, in_threes);

    int mype_twos = shmem_team_my_pe(twos_team);
    int mype_threes = shmem_team_my_pe(threes_team);
    int npes_twos = shmem_team_n_pes(twos_team);
    int npes_threes = shmem_team_n_pes(threes_team);
    SPEC_CHECK(mype_twos, in_twos ? me / 2 - 1 : -1);
    SPEC_CHECK(npes_twos, in_twos ? (npes - 1) / 2 : -1);
    SPEC_CHECK(mype_threes, in_threes ? me / 3 - 1 : -1);
    SPEC_CHECK(npes_threes, in_threes ? (npes - 1) / 3 : -1);

    if (twos_team != SHMEM_TEAM_INVALID) {
        shmem_p(&x, 2,
                shmem_team_translate_pe(twos_team, (mype_twos + 1) % npes_twos,
                                        SHMEM_TEAM_WORLD));
        shmem_quiet();
        SPEC_CHECK(shmem_team_sync(twos_team), 0);
        SPEC_CHECK(x, 2);
    }
    shmem_sync(SHMEM_TEAM_WORLD);
    if (threes_team != SHMEM_TEAM_INVALID) {
        shmem_p(&x, 3,
                shmem_team_translate_pe(threes_team, (mype_threes + 1) % npes_threes,
                                        SHMEM_TEAM_WORLD));
        shmem_quiet();
        SPEC_CHECK(shmem_sync(threes_team), 0);
    }

    if (in_threes)
        SPEC_CHECK(x, 3);
    else if (in_twos)
        SPEC_CHECK(x, 2);
    else
        SPEC_CHECK(x, 10101);
    if (twos_team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(twos_team);
    if (threes_team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(threes_team);
    shmem_finalize();
    return 0;
}

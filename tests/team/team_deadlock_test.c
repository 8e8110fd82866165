/*
 * team_deadlock_test: PEs that wait for each other in the collectives of
 * two different teams, each in a call the other has not made, get
 * GK_ERR_COLL_MISMATCH and one error line each, and the job ends, instead
 * of hanging (core/coll_deadlock.c); orders that are only different, not
 * deadlocked, still complete. `team_deadlock_test <case>`:
 *
 *   world   (3 PEs or more) PE 0 in a barrier of the even PEs' team, every
 *           other PE in gk_barrier: PE 0 and PE 2 wait for each other, and
 *           either may find it; the other PEs learn of it from them;
 *   teams   (2 PEs) two teams of both PEs: PE 0 in the first's barrier, PE
 *           1 in the second's; then world barriers, each PE late for one in
 *           turn, pass with nothing reported;
 *   cycle   (3 PEs or more) a team of each pair {i, i + 1 mod n}: PE i in
 *           the barrier of {i, i + 1}, which waits for PE i + 1, in the
 *           next pair's: a cycle through every PE. One of them finds it;
 *           each gets an error line naming a deadlock in its barrier, as
 *           the others learn of it in turn;
 *   final   (2 PEs) PE 0 in the barrier of a team of both, PE 1 in
 *           gk_finalize: either may find it; PE 0's line names PE 1's
 *           gk_finalize, PE 1's its own;
 *   legal   (3 PEs) teams left {0, 1}, right and right2 {1, 2}: PE 0 waits in
 *           left's barrier while PE 1 computes, then makes right's, left's
 *           and right2's; PE 2 starts right2's non-blocking, then waits in
 *           right's. Different orders, none deadlocked: PE 0 is in no team
 *           of PE 1's other calls, and PE 2 started right2's call before it
 *           waits: every call ends, with nothing logged.
 *
 * In the legal case PE 1 first computes for a second (a loop on the
 * clock), so that the others' waits last long enough to look at it.
 */
#include <time.h>

#include "team_common.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Computes (polls) for `seconds`, so that the others' waits last. */
static void compute_for(double seconds)
{
    for (double end = now_s() + seconds; now_s() < end;)
        gk_poll();
}

/* The error of a deadlock, one line on this PE, naming it. */
#define CHECK_DEADLOCK(call, needle) CHECK_LOGGED(GK_ERR_COLL_MISMATCH, call, needle)

int main(int argc, char **argv)
{
    if (argc != 2)
        PE_FAIL("usage: team_deadlock_test world|teams|legal|cycle|final");
    const char *which = argv[1];
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    if (strcmp(which, "world") == 0) {
        CHECK_TRUE(npes >= 3);
        gk_team_t even = GK_TEAM_INVALID;
        CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 2, (npes + 1) / 2, &even));
        /* Whichever of PE 0 and PE 2 finds it first reports it; the other
         * learns of it. Both lines name it. */
        if (me == 0)
            CHECK_DEADLOCK(gk_team_barrier(even), "collective deadlock");
        else if (me == 2)
            CHECK_DEADLOCK(gk_barrier(), "collective deadlock");
        else
            CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_barrier(), "collective mismatch found by PE");
        /* The job's collectives are out of step for good: finalize says so. */
        CHECK_OK_OR_LOGGED(GK_ERR_COLL_MISMATCH, gk_finalize(), "gk_finalize");
        return 0;
    }
    if (strcmp(which, "cycle") == 0) {
        CHECK_TRUE(npes >= 3);
        gk_team_t mine = GK_TEAM_INVALID, other = GK_TEAM_INVALID;
        /* Pair i is {i, i + 1}, the last {0, n - 1}: PE i is in pairs i and
         * i - 1 (mod n). */
        for (int i = 0; i < npes; i++) {
            gk_team_t pair = GK_TEAM_INVALID;
            if (i < npes - 1)
                CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, i, 1, 2, &pair));
            else
                CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, npes - 1, 2, &pair));
            if (i == me)
                mine = pair;
            else if (i == (me + npes - 1) % npes)
                other = pair;
        }
        CHECK_TRUE(mine != GK_TEAM_INVALID && other != GK_TEAM_INVALID);
        CHECK_DEADLOCK(gk_team_barrier(mine), "collective deadlock");
        CHECK_OK_OR_LOGGED(GK_ERR_COLL_MISMATCH, gk_finalize(), "gk_finalize");
        return 0;
    }
    if (strcmp(which, "final") == 0) {
        CHECK_EQ(npes, 2);
        gk_team_t both = GK_TEAM_INVALID;
        CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, 2, &both));
        if (me == 0)
            CHECK_DEADLOCK(gk_team_barrier(both), "gk_finalize");
        CHECK_OK_OR_LOGGED(GK_ERR_COLL_MISMATCH, gk_finalize(), "gk_finalize");
        return 0;
    }
    if (strcmp(which, "teams") == 0) {
        CHECK_EQ(npes, 2);
        gk_team_t first = GK_TEAM_INVALID, second = GK_TEAM_INVALID;
        CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, 2, &first));
        CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, 2, &second));
        /* Whichever finds it first reports the deadlock; the other learns
         * of it. Both lines name it. */
        CHECK_DEADLOCK(gk_team_barrier(me == 0 ? first : second), "collective deadlock");
        /* Both teams are out of step for good; the world is not. */
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_team_barrier(me == 0 ? second : first),
                     "out of step");
        /* The finder's note of the deadlock concerns that wait only: each
         * PE now waits long in a world barrier for the other, and nothing
         * is reported. */
        for (int late = 0; late < 2; late++) {
            if (me == late)
                compute_for(1.0);
            CHECK_OK(gk_barrier());
        }
        CHECK_OK(gk_finalize());
        return 0;
    }
    if (strcmp(which, "legal") == 0) {
        CHECK_EQ(npes, 3);
        gk_team_t left = GK_TEAM_INVALID, right = GK_TEAM_INVALID, right2 = GK_TEAM_INVALID;
        CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 1, 2, &left));
        CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 1, 1, 2, &right));
        CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 1, 1, 2, &right2));
        if (me == 0) {
            CHECK_OK(gk_team_barrier(left));
        } else if (me == 1) {
            compute_for(1.0);
            CHECK_OK(gk_team_barrier(right));
            CHECK_OK(gk_team_barrier(left));
            CHECK_OK(gk_team_barrier(right2));
        } else {
            gk_handle_t h = GK_HANDLE_NULL;
            CHECK_OK(gk_team_barrier_nb(right2, &h));
            CHECK_OK(gk_team_barrier(right));
            CHECK_OK(gk_handle_wait(&h));
        }
        CHECK_OK(gk_barrier());
        CHECK_OK(gk_finalize());
        return 0;
    }
    PE_FAIL("unknown case %s", which);
}

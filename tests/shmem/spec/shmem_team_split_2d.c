/*
 * shmem_team_split_2d.c: the specification's 3-D grid example: npes is
 * factored into xdim * ydim * zdim as evenly as it goes, SHMEM_TEAM_WORLD
 * is split into x teams and yz teams, and each yz team into y and z
 * teams. A PE's coordinates are its numbers in its x, y and z teams:
 * world PE k is (k % xdim, k / xdim % ydim, k / (xdim * ydim)). The
 * example prints the PEs in grid order, one at a time between syncs;
 * here the PE at each step puts its number into PE 0's list, which must
 * come out 0, 1, 2, ... The factors are found with integer loops (the
 * example uses sqrt and cbrt).
 */
#include <stdlib.h>

#include "spec_check.h"

/* The largest divider of n not above ceil(n^(1/root)). */
static int divider_near_root(int n, int root)
{
    int d = 1;
    while ((root == 2 ? d * d : d * d * d) < n)
        d++;
    while (n % d != 0)
        d--;
    return d;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int xdim = divider_near_root(npes, 3);
    int ydim = divider_near_root(npes / xdim, 2);
    int zdim = npes / xdim / ydim;
    SPEC_CHECK(xdim * ydim * zdim, npes);
    int *order = shmem_malloc(npes * sizeof(int));
    for (int i = 0; i < npes; i++)
        order[i] = -1;

    shmem_team_t xteam, yzteam, yteam, zteam;
    SPEC_CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xdim, NULL, 0, &xteam, NULL, 0, &yzteam),
               0);
    SPEC_CHECK(shmem_team_split_2d(yzteam, ydim, NULL, 0, &yteam, NULL, 0, &zteam), 0);
    shmem_team_destroy(yzteam);

    int my_x = shmem_team_my_pe(xteam);
    int my_y = shmem_team_my_pe(yteam);
    int my_z = shmem_team_my_pe(zteam);
    SPEC_CHECK(my_x, me % xdim);
    SPEC_CHECK(my_y, me / xdim % ydim);
    SPEC_CHECK(my_z, me / (xdim * ydim));
    SPEC_CHECK(shmem_team_n_pes(xteam), xdim);
    SPEC_CHECK(shmem_team_n_pes(yteam), ydim);
    SPEC_CHECK(shmem_team_n_pes(zteam), zdim);

    int step = 0;
    for (int zdx = 0; zdx < zdim; zdx++) {
        for (int ydx = 0; ydx < ydim; ydx++) {
            for (int xdx = 0; xdx < xdim; xdx++) {
                if (my_x == xdx && my_y == ydx && my_z == zdx) {
                    shmem_int_p(&order[step], me, 0);
                    shmem_quiet();
                }
                shmem_team_sync(SHMEM_TEAM_WORLD);
                step++;
            }
        }
    }
    if (me == 0)
        for (int i = 0; i < npes; i++)
            SPEC_CHECK(order[i], i);
    shmem_team_destroy(xteam);
    shmem_team_destroy(yteam);
    shmem_team_destroy(zteam);
    shmem_free(order);
    shmem_finalize();
    return 0;
}

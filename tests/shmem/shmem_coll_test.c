/*
 * shmem_coll_test.c: the collectives on SHMEM_TEAM_WORLD: barrier_all, sync_all,
 * broadcast (mem and typed), fcollect, alltoall and the reductions;
 * SHMEM_TEAM_INVALID gets a non-zero return and a message.
 */
#include <shmem.h>
#include <stdint.h>

#include "pe_check.h"

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int root = npes - 1;
    long *src = shmem_malloc(4 * npes * sizeof(long));
    long *dst = shmem_calloc(4 * npes, sizeof(long));
    for (int i = 0; i < 4 * npes; i++)
        src[i] = me * 1000 + i;
    shmem_sync_all();
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    CHECK_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);

    CHECK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, root), 0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(dst[i], root * 1000 + i);
    CHECK_EQ(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src + 1, sizeof(long), 0), 0);
    CHECK_EQ(dst[0], 1);

    CHECK_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, 2), 0);
    for (int p = 0; p < npes; p++)
        CHECK_EQ(dst[2 * p + 1], p * 1000 + 1);
    CHECK_EQ(shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src + 3, sizeof(long)), 0);
    CHECK_EQ(dst[npes - 1], (npes - 1) * 1000 + 3);

    CHECK_EQ(shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 2), 0);
    for (int p = 0; p < npes; p++)
        CHECK_EQ(dst[2 * p + 1], p * 1000 + 2 * me + 1);
    CHECK_EQ(shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, sizeof(long)), 0);
    CHECK_EQ(dst[0], me);

    /* Reductions. */
    int *isrc = shmem_malloc(2 * sizeof(int)), *idst = shmem_malloc(2 * sizeof(int));
    isrc[0] = me + 1;
    isrc[1] = -me;
    CHECK_EQ(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, idst, isrc, 2), 0);
    CHECK_EQ(idst[0], npes * (npes + 1) / 2);
    CHECK_EQ(idst[1], -(npes * (npes - 1) / 2));
    CHECK_EQ(shmem_int_max_reduce(SHMEM_TEAM_WORLD, idst, isrc, 2), 0);
    CHECK_EQ(idst[0], npes);
    CHECK_EQ(idst[1], 0);
    CHECK_EQ(shmem_int_min_reduce(SHMEM_TEAM_WORLD, idst, isrc, 2), 0);
    CHECK_EQ(idst[0], 1);
    CHECK_EQ(idst[1], -(npes - 1));
    CHECK_EQ(shmem_int_prod_reduce(SHMEM_TEAM_WORLD, idst, isrc, 1), 0);
    int fact = 1;
    for (int p = 1; p <= npes; p++)
        fact *= p;
    CHECK_EQ(idst[0], fact);
    double *d = shmem_malloc(sizeof(double));
    *d = 0.5 * me;
    CHECK_EQ(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, d, d, 1), 0); /* in place */
    CHECK_TRUE(*d == 0.25 * npes * (npes - 1));
    uint64_t *u = shmem_malloc(3 * sizeof(uint64_t)), *ud = shmem_malloc(3 * sizeof(uint64_t));
    u[0] = u[1] = u[2] = (uint64_t)1 << me;
    CHECK_EQ(shmem_uint64_or_reduce(SHMEM_TEAM_WORLD, ud, u, 1), 0);
    CHECK_EQ(ud[0], ((uint64_t)1 << npes) - 1);
    CHECK_EQ(shmem_uint64_and_reduce(SHMEM_TEAM_WORLD, ud, u, 1), 0);
    CHECK_EQ(ud[0], npes == 1 ? 1u : 0u);
    CHECK_EQ(shmem_uint64_xor_reduce(SHMEM_TEAM_WORLD, ud, u, 1), 0);
    CHECK_EQ(ud[0], ((uint64_t)1 << npes) - 1);
    short *sh = shmem_malloc(sizeof(short));
    *sh = (short)(me - 3);
    CHECK_EQ(shmem_short_min_reduce(SHMEM_TEAM_WORLD, sh, sh, 1), 0);
    CHECK_EQ(*sh, -3);

    /* An invalid team: a message and a non-zero return, nothing breaks. */
    gk_capture_begin();
    int status = shmem_long_broadcast(SHMEM_TEAM_INVALID, dst, src, 1, 0);
    const char *text = gk_capture_end();
    CHECK_NE(status, 0);
    if (gk_capture_count(text, "is SHMEM_TEAM_INVALID") != 1) {
        gk_capture_echo(text);
        PE_FAIL("no message for SHMEM_TEAM_INVALID");
    }
    gk_capture_echo(text);

    shmem_barrier_all();
    shmem_free(sh);
    shmem_free(ud);
    shmem_free(u);
    shmem_free(d);
    shmem_free(idst);
    shmem_free(isrc);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}

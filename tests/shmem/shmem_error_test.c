/*
 * shmem_error_test.c: misuse of a routine without a return code ends the job
 * with the native API's message: run by run_error.sh, which checks the
 * exit status and the lines. Cases: badpe (a put to PE n), nonsym (a put
 * to an address outside the symmetric heap), amo (an AMO to PE -1),
 * wait (a wait on a word outside the heap), ctxdestroyed (a put on a
 * destroyed context), ctxinvalid (a put on SHMEM_CTX_INVALID), ctxdouble
 * (a context destroyed twice), ctxdefault (SHMEM_CTX_DEFAULT destroyed),
 * teampe (a put on a context of a one-PE team to its team PE 1),
 * teamdouble (a team destroyed twice).
 */
#include <shmem.h>
#include <string.h>

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *x = shmem_calloc(1, sizeof(long));
    long local = 0;
    const char *c = argc > 1 ? argv[1] : "";
    /* Collective, before the cases: PE 0's team of one. */
    shmem_team_t alone = SHMEM_TEAM_INVALID;
    if (strcmp(c, "teampe") == 0 || strcmp(c, "teamdouble") == 0)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &alone);
    if (me == 0) {
        if (strcmp(c, "badpe") == 0)
            shmem_long_put(x, &local, 1, npes);
        else if (strcmp(c, "nonsym") == 0)
            shmem_long_put(&local, x, 1, 0);
        else if (strcmp(c, "amo") == 0)
            shmem_long_atomic_inc(x, -1);
        else if (strcmp(c, "wait") == 0)
            shmem_short_wait_until((short *)&local, SHMEM_CMP_EQ, 1);
        else if (strcmp(c, "ctxdestroyed") == 0 || strcmp(c, "ctxdouble") == 0) {
            shmem_ctx_t ctx = SHMEM_CTX_INVALID;
            if (shmem_ctx_create(0, &ctx) != 0)
                return 2;
            shmem_ctx_destroy(ctx);
            if (strcmp(c, "ctxdouble") == 0)
                shmem_ctx_destroy(ctx);
            else
                shmem_ctx_long_put(ctx, x, &local, 1, 1);
        } else if (strcmp(c, "ctxinvalid") == 0)
            shmem_ctx_long_put(SHMEM_CTX_INVALID, x, &local, 1, 1);
        else if (strcmp(c, "ctxdefault") == 0)
            shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
        else if (strcmp(c, "teampe") == 0) {
            shmem_ctx_t ctx = SHMEM_CTX_INVALID;
            if (shmem_team_create_ctx(alone, 0, &ctx) != 0)
                return 2;
            shmem_ctx_long_put(ctx, x, &local, 1, 1);
        } else if (strcmp(c, "teamdouble") == 0) {
            shmem_team_destroy(alone);
            shmem_team_destroy(alone);
        }
    }
    shmem_barrier_all();
    shmem_free(x);
    shmem_finalize();
    return 0;
}

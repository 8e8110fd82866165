/*
 * shmem_test.c: the specification's shmem_test example: PE 0 loops over
 * the words with shmem_test until one differs from zero, and the PE that
 * set it (every other PE sets its own word on PE 0 to its number) is the
 * one found; PE 0 then waits for the rest and checks each.
 */
#include "spec_check.h"

static int user_wait_any(long *ivar, int count, int cmp, long value)
{
    int idx = 0;
    while (!shmem_test(&ivar[idx], cmp, value))
        idx = (idx + 1) % count;
    return idx;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *wait_vars = shmem_calloc(npes, sizeof(long));
    if (me == 0) {
        int who = user_wait_any(wait_vars, npes, SHMEM_CMP_NE, 0);
        SPEC_CHECK(who >= 1 && who < npes, 1);
        SPEC_CHECK(wait_vars[who], who);
        for (int pe = 1; pe < npes; pe++) {
            shmem_wait_until(&wait_vars[pe], SHMEM_CMP_NE, 0);
            SPEC_CHECK(wait_vars[pe], pe);
        }
        SPEC_CHECK(shmem_test(&wait_vars[0], SHMEM_CMP_NE, 0), 0);
    } else {
        shmem_atomic_set(&wait_vars[me], (long)me, 0);
    }
    shmem_free(wait_vars);
    shmem_finalize();
    return 0;
}

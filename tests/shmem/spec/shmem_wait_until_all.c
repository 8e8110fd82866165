/*
 * shmem_wait_until_all.c: the specification's shmem_wait_until_all
 * example: every PE sets its flag on every PE and waits, with no status
 * array, until all flags are 1; then again on a second set of flags with
 * a status array that excludes the PE's own flag, which no one sets.
 */
#include <stdlib.h>

#include "spec_check.h"

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *flags = shmem_calloc(npes, sizeof(int));
    int *others = shmem_calloc(npes, sizeof(int));
    int *status = NULL;
    for (int i = 0; i < npes; i++)
        shmem_atomic_set(&flags[me], 1, i);
    shmem_wait_until_all(flags, npes, status, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < npes; i++)
        SPEC_CHECK(flags[i], 1);

    status = calloc(npes, sizeof(int));
    status[me] = 1;
    for (int i = 0; i < npes; i++)
        if (i != me)
            shmem_atomic_set(&others[me], 1, i);
    shmem_wait_until_all(others, npes, status, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < npes; i++)
        SPEC_CHECK(others[i], i != me);
    free(status);
    shmem_free(flags);
    shmem_free(others);
    shmem_finalize();
    return 0;
}

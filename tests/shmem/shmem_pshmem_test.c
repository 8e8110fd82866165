/*
 * shmem_pshmem_test.c: the profiling interface. This program defines
 * shmem_putmem itself, as a tool would; the library's is a weak alias, so
 * calls reach this one, which counts and forwards to pshmem_putmem.
 */
#include <pshmem.h>
#include <shmem.h>

#include "pe_check.h"

static int calls;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    calls++;
    pshmem_putmem(dest, source, nelems, pe);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *x = shmem_calloc(1, sizeof(int));
    shmem_barrier_all();
    shmem_putmem(x, &me, sizeof(int), (me + 1) % npes);
    shmem_barrier_all();
    CHECK_EQ(calls, 1);
    CHECK_EQ(*x, (me + npes - 1) % npes);
    /* The library never routes its own calls through a shmem_ name. */
    shmem_int_put(x, &me, 1, me);
    CHECK_EQ(calls, 1);
    shmem_barrier_all();
    shmem_free(x);
    shmem_finalize();
    return 0;
}

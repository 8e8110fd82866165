/*
 * shmem_globals_test.c: the program's global and static variables are
 * symmetric (GK_SYMMETRIC_DATA, which shmem_init sets): initialized data
 * keeps its value, and puts, gets, atomics, waits, shmem_ptr and an
 * active-set barrier with a static pSync work on globals as on the heap.
 */
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static long psync[SHMEM_BARRIER_SYNC_SIZE]; /* bss */
static int initialized = 42;                /* data */
static double ring[64];
static long counter;
static int flag;
long exported_word = 7; /* a non-static global too */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    int local = 0;
    CHECK_TRUE(shmem_addr_accessible(&ring, right));
    CHECK_TRUE(shmem_addr_accessible(&exported_word, left));
    CHECK_TRUE(!shmem_addr_accessible(&local, right)); /* the stack is not */
    shmem_barrier_all();

    /* Initialized data was copied whole into the segment. */
    CHECK_EQ(initialized, 42);
    CHECK_EQ(shmem_int_g(&initialized, right), 42);
    CHECK_EQ(shmem_long_g(&exported_word, left), 7);

    /* A put into the right neighbour's static array. */
    double mine[64];
    for (int i = 0; i < 64; i++)
        mine[i] = me * 1000.0 + i;
    shmem_double_put(ring, mine, 64, right);
    shmem_barrier_all();
    for (int i = 0; i < 64; i++)
        CHECK_TRUE(ring[i] == left * 1000.0 + i);

    /* Atomics on PE 0's static counter, from every PE. */
    long old = shmem_long_atomic_fetch_add(&counter, 1, 0);
    CHECK_TRUE(old >= 0 && old < n);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(counter, (long)n);

    /* A wait on a static flag, set by the left neighbour. */
    shmem_int_p(&flag, 1, right);
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);

    /* shmem_ptr of a global on a PE of this node is a real pointer. */
    int *peer = shmem_ptr(&initialized, right);
    if (peer != NULL)
        CHECK_EQ(*peer, 42);

    /* The active-set barrier with its pSync in bss, every PE, twice. */
    shmem_barrier(0, 0, n, psync);
    shmem_barrier(0, 0, n, psync);
    shmem_finalize();
    return 0;
}

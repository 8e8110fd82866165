/*
 * shmem_set_lock.c: the specification's lock example: each PE takes the
 * lock, reads PE 0's counter, adds one and writes it back, and releases
 * the lock; with the lock, no increment is lost: PE 0 finds 10 x npes. Then
 * each PE in turn takes the free lock with shmem_test_lock while the next
 * one fails to.
 */
#include "spec_check.h"

int main(void)
{
    static long lock = 0;
    static int count = 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int round = 0; round < 10; round++) {
        shmem_set_lock(&lock);
        int val = shmem_g(&count, 0);
        val++;
        shmem_p(&count, val, 0);
        shmem_clear_lock(&lock); /* completes the update first */
    }
    shmem_barrier_all();
    if (me == 0)
        SPEC_CHECK(count, 10 * npes);
    /* The lock is free again: each PE in turn takes it with a test, and
     * one PE's test while another holds it fails. */
    for (int turn = 0; turn < npes; turn++) {
        if (me == turn) {
            SPEC_CHECK(shmem_test_lock(&lock), 0);
        }
        shmem_barrier_all();
        if (me == (turn + 1) % npes && npes > 1)
            SPEC_CHECK(shmem_test_lock(&lock), 1);
        shmem_barrier_all();
        if (me == turn)
            shmem_clear_lock(&lock);
        shmem_barrier_all();
    }
    shmem_finalize();
    return 0;
}

/*
 * shmem_put_signal.c: the specification's example: PE 0 sends a message
 * with a signal to PE 1, each PE waits for the signal and forwards what
 * it received to the next PE, round the ring; each PE checks it got PE
 * 0's message.
 */
#include <stdint.h>
#include <stdlib.h>

#include "spec_check.h"

int main(void)
{
    size_t size = 2048;
    static uint64_t sig_addr = 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int pe = (me + 1) % npes;
    uint64_t *message = malloc(size * sizeof(uint64_t));
    for (size_t i = 0; i < size; i++)
        message[i] = (uint64_t)me * 1000000 + i;
    uint64_t *data = shmem_calloc(size, sizeof(uint64_t));
    if (me == 0) {
        shmem_put_signal(data, message, size, &sig_addr, 1, SHMEM_SIGNAL_SET, pe);
    } else {
        shmem_wait_until(&sig_addr, SHMEM_CMP_EQ, 1);
        shmem_put_signal(data, data, size, &sig_addr, 1, SHMEM_SIGNAL_SET, pe);
    }
    if (me == 0)
        shmem_wait_until(&sig_addr, SHMEM_CMP_EQ, 1); /* the ring came back */
    for (size_t i = 0; i < size; i++)
        SPEC_CHECK(data[i], i);
    SPEC_CHECK(shmem_signal_fetch(&sig_addr), 1);
    free(message);
    shmem_barrier_all();
    shmem_free(data);
    shmem_finalize();
    return 0;
}

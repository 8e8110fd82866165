/*
 * shmem_atomic_or.c: the specification's AMO scenario 2 ORs into one word
 * with 32-bit and 64-bit AMOs at once, which is undefined; here every PE
 * ORs its number plus one into PE 0's uint64_t word with the uint64_t
 * routine and into a uint32_t word with the uint32_t one, and PE 0 finds
 * the OR of 1 .. npes in both.
 */
#include <stdint.h>

#include "spec_check.h"

int main(void)
{
    static uint64_t x = 0;
    static uint32_t x32 = 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_uint64_atomic_or(&x, (uint64_t)me + 1, 0);
    shmem_uint32_atomic_or(&x32, (uint32_t)me + 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        uint64_t expected = 0;
        for (int pe = 0; pe < npes; pe++)
            expected |= (uint64_t)pe + 1;
        SPEC_CHECK(x, expected);
        SPEC_CHECK(x32, expected);
    }
    shmem_finalize();
    return 0;
}

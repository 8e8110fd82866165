/*
 * shmem_ptr.c: the specification's shmem_ptr example: PE 0 fills PE 1's
 * array through the pointer shmem_ptr gives, and PE 1 finds 1 .. 4 after
 * a barrier. A pointer is given exactly for the PEs of PE 0's
 * SHMEM_TEAM_SHARED (for its own array always: not necessarily dest
 * itself, but an address of the same memory); where PE 1 is not one of them (on
 * another host) shmem_ptr is NULL, as the example allows, and PE 0 puts
 * the values instead.
 */
#include "spec_check.h"

int main(void)
{
    static int dest[4];
    shmem_init();
    int me = shmem_my_pe();
    int *own = shmem_ptr(dest, me);
    SPEC_CHECK(own != NULL, 1);
    own[3] = -7;
    SPEC_CHECK(dest[3], -7);
    shmem_barrier_all();
    if (me == 0) {
        int *ptr = shmem_ptr(dest, 1);
        int shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, SHMEM_TEAM_SHARED) >= 0;
        SPEC_CHECK(ptr != NULL, shared);
        for (int i = 0; i < 4; i++) {
            if (ptr != NULL)
                *ptr++ = i + 1;
            else
                shmem_int_p(&dest[i], i + 1, 1);
        }
    }
    shmem_barrier_all();
    if (me == 1)
        for (int i = 0; i < 4; i++)
            SPEC_CHECK(dest[i], i + 1);
    shmem_finalize();
    return 0;
}

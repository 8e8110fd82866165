/*
 * shmem_ptr.c: the specification's shmem_ptr example: PE 0 fills PE 1's
 * array through the pointer shmem_ptr gives, and PE 1 finds 1 .. 4 after
 * a barrier. A pointer is given exactly for the PEs of PE 0's
 * SHMEM_TEAM_SHARED (for the calling PE, dest itself, a static
 * variable as a heap object); where PE 1 is not one of them (on
 * another host) shmem_ptr is NULL, as the example allows, and PE 0 puts
 * the values instead.
 */
#include "spec_check.h"

int main(void)
{
    static int dest[4];
    shmem_init();
    int me = shmem_my_pe();
    /* For the calling PE, the object itself, a static as a heap one. */
    int *heap = shmem_malloc(sizeof(int));
    SPEC_CHECK(shmem_ptr(dest, me) == dest, 1);
    SPEC_CHECK(shmem_ptr(heap, me) == heap, 1);
    SPEC_CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, dest, me) == dest, 1);
    shmem_free(heap);
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

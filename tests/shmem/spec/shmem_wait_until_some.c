/*
 * shmem_wait_until_some.c: the specification's all-to-all sum with
 * shmem_wait_until_some (spec_all2all.h): each PE calls it until it
 * returns 0 (every flag excluded through the status array), summing the
 * blocks of the PEs it returns.
 */
#include "spec_all2all.h"

int main(void)
{
    struct spec_all2all a;
    shmem_init();
    int npes = shmem_n_pes();
    size_t *indices = malloc(npes * sizeof(size_t));
    spec_all2all_start(&a);
    size_t ncompleted;
    while ((ncompleted = shmem_wait_until_some(a.flags, npes, indices, a.status, SHMEM_CMP_NE,
                                               0)))
        for (size_t i = 0; i < ncompleted; i++)
            spec_all2all_take(&a, indices[i]);
    spec_all2all_finish(&a);
    free(indices);
    shmem_finalize();
    return 0;
}

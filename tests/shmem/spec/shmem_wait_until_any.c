/*
 * shmem_wait_until_any.c: the specification's all-to-all sum with
 * shmem_wait_until_any (spec_all2all.h): each PE calls it npes times,
 * summing the block of the PE it returns and excluding that flag through
 * the status array; with every flag excluded it returns SIZE_MAX.
 */
#include <stdint.h>

#include "spec_all2all.h"

int main(void)
{
    struct spec_all2all a;
    shmem_init();
    int npes = shmem_n_pes();
    spec_all2all_start(&a);
    for (int i = 0; i < npes; i++)
        spec_all2all_take(&a, shmem_wait_until_any(a.flags, npes, a.status, SHMEM_CMP_NE, 0));
    SPEC_CHECK(shmem_wait_until_any(a.flags, npes, a.status, SHMEM_CMP_NE, 0) == SIZE_MAX, 1);
    spec_all2all_finish(&a);
    shmem_finalize();
    return 0;
}

/*
 * shmem_test_some.c: the specification's shmem_test_some example, an
 * all-to-all sum (spec_all2all.h): each PE loops on shmem_test_some until
 * it has seen every flag, summing the block of each PE it returns and
 * excluding that flag through the status array; with every flag
 * excluded it returns 0.
 */
#include "spec_all2all.h"

int main(void)
{
    struct spec_all2all a;
    shmem_init();
    int npes = shmem_n_pes();
    size_t *indices = calloc(npes, sizeof(size_t));
    spec_all2all_start(&a);
    int ncompleted = 0;
    while (ncompleted < npes) {
        size_t ntested = shmem_test_some(a.flags, npes, indices, a.status, SHMEM_CMP_NE, 0);
        for (size_t i = 0; i < ntested; i++)
            spec_all2all_take(&a, indices[i]);
        ncompleted += (int)ntested;
    }
    SPEC_CHECK(shmem_test_some(a.flags, npes, indices, a.status, SHMEM_CMP_NE, 0), 0);
    spec_all2all_finish(&a);
    free(indices);
    shmem_finalize();
    return 0;
}

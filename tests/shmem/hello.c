/* hello.c: a plain OpenSHMEM program, built by check_oshcc.sh with the
 * installed oshcc. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *x = shmem_malloc(sizeof(int));
    shmem_int_p(x, me, (me + 1) % npes);
    shmem_barrier_all();
    int left = *x;
    printf("hello from PE %d of %d, left is %d\n", me, npes, left);
    shmem_free(x);
    shmem_finalize();
    return left == (me + npes - 1) % npes ? 0 : 1;
}

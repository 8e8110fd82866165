/*
 * shmem_global_exit.c: the specification's shmem_global_exit example, a
 * PE that cannot go on ends the job, with the status checked by
 * check_global_exit.sh through the launcher. Argument: the status. The
 * last PE opens a file that is not there, says so on stdout (left in
 * stdio's buffer: the routine must flush it) and calls
 * shmem_global_exit(status); the others wait in a barrier it never
 * reaches, so only the global exit can end them. Reaching the end of
 * main is a failure (status 99).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : EXIT_FAILURE;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (me == npes - 1) {
        FILE *fp = fopen("/nonexistent/gasket-input.txt", "r");
        if (fp == NULL) {
            printf("PE %d: no input, shmem_global_exit(%d)\n", me, status);
            shmem_global_exit(status);
        }
        fclose(fp);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 99;
}

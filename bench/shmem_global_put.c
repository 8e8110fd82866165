/*
 * shmem-global-put: shmem_putmem of 8 B to PE 1, to the symmetric heap and
 * to a static variable (symmetric through GK_SYMMETRIC_DATA, which
 * shmem_init sets), in nanoseconds per put: 2 million puts and a quiet,
 * five rounds, one line each. OSU's osu_oshm_put prints two decimals of a
 * microsecond, too coarse for this.
 *
 *   build/tools/oshrun -n 2 --bind build/bench/shmem-global-put
 */
#include <shmem.h>
#include <stdio.h>
#include <time.h>

#define PUTS 2000000
#define ROUNDS 5

static char global_target[64];

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double per_put(char *dst, const char *src)
{
    double t0 = now_ns();
    for (int i = 0; i < PUTS; i++)
        shmem_putmem(dst, src, 8, 1);
    shmem_quiet();
    return (now_ns() - t0) / PUTS;
}

int main(void)
{
    shmem_init();
    char *heap_target = shmem_malloc(64);
    char src[8] = {1};
    if (shmem_n_pes() < 2) {
        fprintf(stderr, "shmem-global-put: run it on 2 PEs\n");
        shmem_global_exit(1);
    }
    if (shmem_my_pe() == 0)
        printf("# ns per shmem_putmem of 8 B\n# heap      global\n");
    for (int round = 0; round < ROUNDS; round++) {
        if (shmem_my_pe() == 0) {
            double heap = per_put(heap_target, src);
            double global = per_put(global_target, src);
            printf("%-10.2f %.2f\n", heap, global);
        }
        shmem_barrier_all();
    }
    shmem_free(heap_target);
    shmem_finalize();
    return 0;
}

/*
 * shmem-deprecated: what OpenSHMEM's deprecated calls cost beside the
 * calls that replace them (docs/OPENSHMEM.md): start_pes(0) against
 * shmem_init, shmem_int_sum_to_all against shmem_int_sum_reduce on
 * SHMEM_TEAM_WORLD, and shmem_barrier on an active set (every PE, and the
 * even PEs only) against shmem_barrier_all. One line per measurement, in
 * microseconds, PE 0's median of single calls (a reduction is timed
 * alone, a barrier_all after it untimed, as OSU's reduction benchmark
 * does; barriers back to back). Start-up is timed around the one call,
 * in its own job: the argument picks it.
 *
 *   build/tools/oshrun -n 4 build/bench/shmem-deprecated start_pes
 *   build/tools/oshrun -n 4 build/bench/shmem-deprecated init
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ITERS 2000
#define SKIP 100

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static long psync[2][SHMEM_REDUCE_SYNC_SIZE];
static long barrier_psync[SHMEM_BARRIER_SYNC_SIZE];
static int pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 4096];
static double t[ITERS];

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* kind 0: sum_to_all, 1: sum_reduce; nreduce ints. */
static double time_reduce(int kind, int *dst, const int *src, int nreduce)
{
    int npes = shmem_n_pes();
    for (int i = 0; i < ITERS + SKIP; i++) {
        double t0 = now_us();
        if (kind == 0)
            shmem_int_sum_to_all(dst, src, nreduce, 0, 0, npes, pwrk, psync[i % 2]);
        else
            shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, (size_t)nreduce);
        double t1 = now_us();
        if (i >= SKIP)
            t[i - SKIP] = t1 - t0;
        shmem_barrier_all();
    }
    if (dst[0] != npes * (npes + 1) / 2) {
        fprintf(stderr, "PE %d: sum %d, expected %d\n", shmem_my_pe(), dst[0],
                npes * (npes + 1) / 2);
        shmem_global_exit(1);
    }
    return median(t, ITERS);
}

/* kind 0: barrier_all; 1: shmem_barrier, every PE; 2: shmem_barrier, the
 * even PEs (the odd ones wait in a barrier_all afterwards). */
static double time_barrier(int kind)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int in = kind != 2 || me % 2 == 0;
    for (int i = 0; i < ITERS + SKIP && in; i++) {
        double t0 = now_us();
        if (kind == 0)
            shmem_barrier_all();
        else if (kind == 1)
            shmem_barrier(0, 0, npes, barrier_psync);
        else
            shmem_barrier(0, 1, (npes + 1) / 2, barrier_psync);
        double t1 = now_us();
        if (i >= SKIP)
            t[i - SKIP] = t1 - t0;
    }
    shmem_barrier_all();
    return in ? median(t, ITERS) : 0;
}

int main(int argc, char **argv)
{
    int use_start_pes = argc > 1 && strcmp(argv[1], "start_pes") == 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
            psync[k][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        barrier_psync[i] = SHMEM_SYNC_VALUE;
    double t0 = now_us();
    if (use_start_pes)
        start_pes(0);
    else
        shmem_init();
    double start_us = now_us() - t0;
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (me == 0)
        printf("%s, %d PEs: %.0f us\n", use_start_pes ? "start_pes" : "shmem_init", npes,
               start_us);

    static const int sizes[] = {1, 64, 4096};
    int *src = shmem_malloc(4096 * sizeof(int)), *dst = shmem_malloc(4096 * sizeof(int));
    for (int i = 0; i < 4096; i++)
        src[i] = me + 1;
    shmem_barrier_all();
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        double to_all = time_reduce(0, dst, src, sizes[s]);
        double reduce = time_reduce(1, dst, src, sizes[s]);
        if (me == 0)
            printf("int sum, %4d ints: sum_to_all %.2f us, sum_reduce %.2f us\n", sizes[s],
                   to_all, reduce);
    }
    double all = time_barrier(0), aset = time_barrier(1), even = time_barrier(2);
    if (me == 0)
        printf("barrier: barrier_all %.2f us, shmem_barrier(all PEs) %.2f us, "
               "shmem_barrier(even PEs) %.2f us\n",
               all, aset, even);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}

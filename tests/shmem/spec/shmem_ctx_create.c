/*
 * shmem_ctx_create.c: the specification's two OpenMP context examples.
 * Work sharing: each PE's 1024 tasks are handed out by a counter on that
 * PE; every thread, on a private context of its own, takes tasks with
 * fetch_inc from its PE's counter and then helps the next PEs, and the
 * sum over all PEs of the tasks done is 1024 x npes. Thread-local
 * contexts: a library gives each thread a private context (falling back
 * to a shared one, then SHMEM_CTX_DEFAULT), and the threads put each
 * PE's block to it through their own; PE p's block on every PE holds
 * (p << 10) + the number of the thread that filled it on PE p.
 * Built only with OpenMP (the test is skipped without it).
 */
#include <omp.h>
#include <stddef.h>

#include "spec_check.h"

static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long task_cntr = 0;
static long tasks_done = 0;
static long total_done = 0;

static void work_sharing(int me, int npes)
{
    long ntasks = 1024;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
#pragma omp parallel reduction(+ : tasks_done)
    {
        shmem_ctx_t ctx;
        int task_pe = me, pes_done = 0;
        SPEC_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
        while (pes_done < npes) {
            long task = shmem_atomic_fetch_inc(ctx, &task_cntr, task_pe);
            while (task < ntasks) {
                tasks_done++;
                task = shmem_atomic_fetch_inc(ctx, &task_cntr, task_pe);
            }
            pes_done++;
            task_pe = (task_pe + 1) % npes;
        }
        shmem_ctx_destroy(ctx);
    }
    shmem_long_sum_to_all(&total_done, &tasks_done, 1, 0, 0, npes, pwrk, psync);
    SPEC_CHECK(total_done, ntasks * npes);
}

static _Thread_local shmem_ctx_t thread_ctx = SHMEM_CTX_INVALID;

static void lib_thread_register(void)
{
    if (thread_ctx == SHMEM_CTX_INVALID)
        if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &thread_ctx) &&
            shmem_ctx_create(0, &thread_ctx))
            thread_ctx = SHMEM_CTX_DEFAULT;
}

static void lib_thread_unregister(void)
{
    if (thread_ctx != SHMEM_CTX_DEFAULT) {
        shmem_ctx_destroy(thread_ctx);
        thread_ctx = SHMEM_CTX_INVALID;
    }
}

static void lib_thread_putmem(void *dst, const void *src, size_t nbytes, int pe)
{
    shmem_ctx_putmem(thread_ctx, dst, src, nbytes, pe);
}

static void thread_contexts(int me, int npes)
{
    const int count = 1 << 15;
    int *src_bufs[npes];
    int *dst_bufs[npes];
    for (int i = 0; i < npes; i++) {
        src_bufs[i] = shmem_calloc(count, sizeof(*src_bufs[i]));
        dst_bufs[i] = shmem_calloc(count, sizeof(*dst_bufs[i]));
        SPEC_CHECK(src_bufs[i] != NULL && dst_bufs[i] != NULL, 1);
    }
    int nthreads = 1;
#pragma omp parallel
    {
        int my_thrd = omp_get_thread_num();
#pragma omp single
        nthreads = omp_get_num_threads();
#pragma omp for
        for (int i = 0; i < npes; i++)
            for (int j = 0; j < count; j++)
                src_bufs[i][j] = (me << 10) + my_thrd;
        lib_thread_register();
        SPEC_CHECK(thread_ctx != SHMEM_CTX_INVALID, 1);
#pragma omp for
        for (int i = 0; i < npes; i++)
            lib_thread_putmem(dst_bufs[me], src_bufs[i], count * sizeof(*src_bufs[i]), i);
        lib_thread_unregister();
    }
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) {
        int first = dst_bufs[p][0];
        SPEC_CHECK(first >> 10, p);
        SPEC_CHECK((first & 1023) < nthreads, 1);
        for (int j = 0; j < count; j++)
            if (dst_bufs[p][j] != first)
                SPEC_CHECK(dst_bufs[p][j], first);
    }
    for (int i = 0; i < npes; i++) {
        shmem_free(src_bufs[i]);
        shmem_free(dst_bufs[i]);
    }
}

int main(void)
{
    int provided;
    SPEC_CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    SPEC_CHECK(provided, SHMEM_THREAD_MULTIPLE);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    work_sharing(me, npes);
    thread_contexts(me, npes);
    shmem_finalize();
    return 0;
}

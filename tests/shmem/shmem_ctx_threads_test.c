/*
 * shmem_ctx_threads_test.c: SHMEM_THREAD_MULTIPLE with 4 threads per PE,
 * each on a SHMEM_CTX_PRIVATE context of its own, all at once. Every
 * round a thread puts the round's value into its slot on the next PE,
 * adds 1 to its own counter there with an AMO, and adds 1 to its signal
 * word there with a signaling put, all on its context, then quiets that
 * context; every 64 rounds it checks with a fetching AMO on its context
 * that its counter on the next PE holds every add so far. Afterwards
 * each slot, counter and signal is checked. Labelled `thread`: CI runs it
 * again under ThreadSanitizer.
 *
 *   shmem_ctx_threads_test [ITERS]   ITERS: rounds per thread (default 2000)
 */
#include <pthread.h>
#include <shmem.h>

#include "pe_args.h"
#include "pe_check.h"
#include "shmem_ring.h"

#define THREADS 4
static int n_iters = 2000;

static long *slots;       /* symmetric: THREADS * 8 (a line each) */
static long *counters;    /* symmetric: THREADS * 8 */
static uint64_t *signals; /* symmetric: THREADS * 8 */
static long *payload;     /* symmetric: THREADS * 8, the signaling puts' data */

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_ctx_get_team(ctx, &team), 0);
    CHECK_TRUE(team == SHMEM_TEAM_WORLD);
    for (long i = 1; i <= n_iters; i++) {
        long v = (long)me << 32 | i;
        shmem_ctx_long_p(ctx, &slots[t * 8], v, right);
        shmem_ctx_long_atomic_add(ctx, &counters[t * 8], 1, right);
        shmem_ctx_long_put_signal_nbi(ctx, &payload[t * 8], &v, 1, &signals[t * 8], 1,
                                      SHMEM_SIGNAL_ADD, right);
        shmem_ctx_quiet(ctx);
        if (i % 64 == 0)
            CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, &counters[t * 8], right), i);
    }
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    n_iters = (int)pe_count_arg(argc, argv, "ITERS", "rounds per thread", n_iters, 64,
                                10000000);
    int provided = -1;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    shmem_ring_init();
    slots = shmem_calloc(THREADS * 8, sizeof(long));
    counters = shmem_calloc(THREADS * 8, sizeof(long));
    signals = shmem_calloc(THREADS * 8, sizeof(uint64_t));
    payload = shmem_calloc(THREADS * 8, sizeof(long));
    CHECK_NOT_NULL(slots);
    CHECK_NOT_NULL(counters);
    CHECK_NOT_NULL(signals);
    CHECK_NOT_NULL(payload);
    shmem_barrier_all();
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ(pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ(pthread_join(threads[t], NULL), 0);
    shmem_barrier_all();
    long last = (long)left << 32 | n_iters;
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ(shmem_long_atomic_fetch(&slots[t * 8], me), last);
        CHECK_EQ(shmem_long_atomic_fetch(&counters[t * 8], me), (long)n_iters);
        CHECK_EQ_U64(shmem_signal_fetch(&signals[t * 8]), (uint64_t)n_iters);
        CHECK_EQ(shmem_long_atomic_fetch(&payload[t * 8], me), last);
    }
    shmem_barrier_all();
    shmem_free(payload);
    shmem_free(signals);
    shmem_free(counters);
    shmem_free(slots);
    shmem_finalize();
    return 0;
}

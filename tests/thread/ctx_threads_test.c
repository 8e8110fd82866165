/*
 * ctx_threads_test: GK_THREAD_MULTIPLE with 4 threads per PE, each on its
 * own context, all at once: every thread puts to its own slots on the next
 * PE (quiet on its context), adds to one shared counter there with a
 * context atomic, and sends to and receives from the same thread of the
 * neighbours (two-sided, tag = thread). Afterwards every slot and the
 * counter are checked. Under ThreadSanitizer (CI) this is the data-race
 * check of the paths threads share.
 *
 *   ctx_threads_test [ITERS]   ITERS: rounds per thread (default 20000)
 */
#include <pthread.h>

#include "pe_args.h"
#include "pe_check.h"

#define THREADS 4
static int n_iters = 20000; /* rounds per thread */

static int me, npes;
static uint64_t *slots;   /* symmetric: THREADS * 8 words (a line each) */
static uint64_t *counter; /* symmetric */

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    gk_ctx_t *ctx = NULL;
    CHECK_OK(gk_ctx_create(GK_CTX_PRIVATE, &ctx));
    for (int i = 1; i <= n_iters; i++) {
        uint64_t v = (uint64_t)me << 32 | (uint64_t)i;
        CHECK_OK(gk_ctx_put(ctx, right, &slots[t * 8], &v, sizeof(v)));
        CHECK_OK(gk_ctx_atomic_add_u64(ctx, right, counter, 1));
        CHECK_OK(gk_ctx_quiet(ctx));
        if (i % 100 == 0) {
            uint64_t out = v, in = 0;
            gk_request_t *rq = NULL;
            gk_msg_status_t st;
            CHECK_OK(gk_irecv(left, t, &in, sizeof(in), &rq));
            CHECK_OK(gk_send(right, t, &out, sizeof(out)));
            CHECK_OK(gk_request_wait(&rq, &st));
            CHECK_EQ_U64(in, (uint64_t)left << 32 | (uint64_t)i);
            CHECK_EQ(st.tag, t);
        }
    }
    CHECK_OK(gk_ctx_destroy(ctx));
    return NULL;
}

int main(int argc, char **argv)
{
    n_iters = (int)pe_count_arg(argc, argv, "ITERS", "rounds per thread", n_iters, 100,
                                10000000);
    gk_thread_level_t provided = (gk_thread_level_t)99;
    CHECK_OK(gk_init_thread(GK_THREAD_MULTIPLE, &provided));
    CHECK_EQ(provided, GK_THREAD_MULTIPLE);
    gk_thread_level_t level = (gk_thread_level_t)99;
    CHECK_OK(gk_thread_query(&level));
    CHECK_EQ(level, GK_THREAD_MULTIPLE);
    me = gk_my_pe();
    npes = gk_n_pes();
    slots = gk_calloc(THREADS * 8, sizeof(uint64_t));
    counter = gk_calloc(1, sizeof(uint64_t));
    CHECK_NOT_NULL(slots);
    CHECK_NOT_NULL(counter);
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ(pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ(pthread_join(threads[t], NULL), 0);
    CHECK_OK(gk_barrier());
    int left = (me + npes - 1) % npes;
    CHECK_EQ_U64(*counter, (uint64_t)THREADS * n_iters);
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ_U64(slots[t * 8], (uint64_t)left << 32 | n_iters);
    /* The default context is shared by every thread: its checks work. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_ctx_destroy(GK_CTX_DEFAULT), "default context");
    gk_free(counter);
    gk_free(slots);
    return gk_finalize() == GK_OK ? 0 : 1;
}

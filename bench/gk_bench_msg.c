/*
 * gk_bench_msg.c: gk-bench's benchmarks of active messages, two-sided
 * messages and threads on contexts:
 *
 *   am_lat        round trip of a short AM request and its reply, and of a
 *                 medium request (size bytes) with a short reply (us)
 *   am_wait_lat   the short round trip again, the reply's handler storing
 *                 its argument into a heap word that the requester awaits
 *                 with gk_wait_until_u64 (a wait that must run handlers)
 *   am_rate       short AM requests per second from PE 0 to PE 1, in
 *                 windows of 64 answered by one reply (messages/s)
 *   sendrecv_lat  gk_send/gk_recv ping-pong, 1 B to 4 MiB (us one-way)
 *   sendrecv_bw   windows of 64 gk_isend, then a 0-byte ack (MB/s)
 *   mt_put_lat    gk_ctx_put + gk_ctx_quiet latency with 1, 2 and 4 threads
 *                 of PE 0, each on its own context (size is the thread
 *                 count; us per put, the mean over threads)
 *
 * The tables have the format of the others (bench_common.h); the MPI peer
 * prints the same names for its send/recv ping-pong and bandwidth.
 */
#include <gasket.h>
#include <sched.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "gk_bench.h"

/* ------------------------------------------------------------------------ */
/* Active messages                                                          */
/* ------------------------------------------------------------------------ */

#define H_PING 200
#define H_PONG 201
#define H_COUNT 202

static volatile uint64_t pongs, counted;

static void h_ping(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    (void)payload, (void)nbytes, (void)nargs;
    bench_check(gk_am_reply_short(token, H_PONG, args, 1), "gk_am_reply_short");
}

static void h_pong(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)args, (void)nargs;
    pongs++;
}

/* am_wait_lat's reply: the answer goes into a heap word. */
#define H_SET 203
static uint64_t *answer;
static void h_set(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)nargs;
    __atomic_store_n(answer, args[0], __ATOMIC_RELEASE);
}

/* Counts requests; answers every 64th (the window's last). */
static void h_count(gk_am_token_t *token, void *payload, size_t nbytes,
                    const uint64_t *args, int nargs)
{
    (void)payload, (void)nbytes, (void)nargs;
    if (++counted % BENCH_BW_WINDOW == 0)
        bench_check(gk_am_reply_short(token, H_PONG, args, 1), "gk_am_reply_short");
}

static void am_register(void)
{
    bench_check(gk_am_register(H_PING, h_ping), "gk_am_register");
    bench_check(gk_am_register(H_PONG, h_pong), "gk_am_register");
    bench_check(gk_am_register(H_COUNT, h_count), "gk_am_register");
    bench_check(gk_barrier(), "gk_barrier");
}

static void wait_pongs(uint64_t n)
{
    while (pongs < n)
        bench_check(gk_poll(), "gk_poll");
}

void bench_am_lat(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    am_register();
    if (bench_me == 0)
        bench_header(name, "gasket", bench_npes, "size 0: short request; else medium",
                     "us round trip (request + reply)");
    BENCH_FOR_SIZES(opts, size, 0, gk_am_max_medium()) {
        long iters = bench_iters(opts, size, 20000), warmup = bench_warmup(opts, size, 20000);
        bench_check(gk_barrier(), "gk_barrier");
        double start = 0;
        if (bench_me == 0) {
            uint64_t arg[1] = {0};
            pongs = 0;
            for (long i = 0; i < warmup + iters; i++) {
                if (i == warmup)
                    start = bench_now_us();
                if (size == 0)
                    bench_check(gk_am_request_short(1, H_PING, arg, 1), "gk_am_request_short");
                else
                    bench_check(gk_am_request_medium(1, H_PING, bench_priv, size, arg, 1),
                                "gk_am_request_medium");
                wait_pongs((uint64_t)i + 1);
            }
            bench_row_lat(opts, size, (bench_now_us() - start) / (double)iters);
        }
        bench_check(gk_barrier(), "gk_barrier"); /* PE 1 serves inside it */
        if (size == 0)
            size = 1; /* 0, then 1, 2, 4 ... */
    }
}

void bench_am_wait_lat(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    answer = gk_calloc(1, sizeof(*answer));
    if (answer == NULL)
        bench_fail(GK_ERR_NOMEM, "gk_calloc");
    bench_check(gk_am_register(H_PING, h_ping), "gk_am_register");
    bench_check(gk_am_register(H_PONG, h_set), "gk_am_register");
    bench_check(gk_barrier(), "gk_barrier");
    if (bench_me == 0) {
        bench_header(name, "gasket", bench_npes, "short request; reply sets a heap word",
                     "us round trip (request + reply + gk_wait_until_u64)");
        long iters = bench_iters(opts, 0, 20000), warmup = bench_warmup(opts, 0, 20000);
        double start = 0;
        for (long i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                start = bench_now_us();
            uint64_t arg[1] = {(uint64_t)i + 1};
            bench_check(gk_am_request_short(1, H_PING, arg, 1), "gk_am_request_short");
            bench_check(gk_wait_until_u64(answer, GK_CMP_EQ, arg[0]), "gk_wait_until_u64");
        }
        bench_row_lat(opts, 0, (bench_now_us() - start) / (double)iters);
    }
    bench_check(gk_barrier(), "gk_barrier"); /* PE 1 serves inside it */
    gk_free(answer);
}

void bench_am_rate(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    am_register();
    if (bench_me == 0)
        bench_header(name, "gasket", bench_npes, "short requests, windows of 64",
                     "messages per second");
    long windows = opts->iters > 0 ? opts->iters : 2000;
    counted = 0;
    pongs = 0;
    bench_check(gk_barrier(), "gk_barrier");
    if (bench_me == 0) {
        uint64_t arg[1] = {0};
        double start = bench_now_us();
        for (long w = 0; w < windows; w++) {
            for (int i = 0; i < BENCH_BW_WINDOW; i++)
                bench_check(gk_am_request_short(1, H_COUNT, arg, 1), "gk_am_request_short");
            wait_pongs((uint64_t)w + 1);
        }
        double us = bench_now_us() - start;
        printf("%-12d %.0f\n", 0, (double)windows * BENCH_BW_WINDOW / us * 1e6);
    }
    bench_check(gk_barrier(), "gk_barrier");
}

/* ------------------------------------------------------------------------ */
/* Two-sided                                                                */
/* ------------------------------------------------------------------------ */

void bench_sendrecv_lat(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    if (bench_me == 0)
        bench_header(name, "gasket", bench_npes, NULL, "us one-way (gk_send/gk_recv)");
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long iters = bench_iters(opts, size, 20000), warmup = bench_warmup(opts, size, 20000);
        bench_check(gk_barrier(), "gk_barrier");
        if (bench_me < 2) {
            int other = 1 - bench_me;
            /* A send buffer and a receive buffer, as the MPI peer and OSU
             * have: with one for both, every receive writes lines the
             * other PE has just read (64 KiB one-way 13 us, not 7). */
            unsigned char *sbuf = bench_priv, *rbuf = bench_priv + BENCH_MAX_MSG;
            double start = 0;
            for (long i = 0; i < warmup + iters; i++) {
                if (i == warmup)
                    start = bench_now_us();
                if (bench_me == 0) {
                    bench_check(gk_send(other, 1, sbuf, size), "gk_send");
                    bench_check(gk_recv(other, 1, rbuf, size, NULL), "gk_recv");
                } else {
                    bench_check(gk_recv(other, 1, rbuf, size, NULL), "gk_recv");
                    bench_check(gk_send(other, 1, sbuf, size), "gk_send");
                }
            }
            if (bench_me == 0)
                bench_row_lat(opts, size, (bench_now_us() - start) / (double)iters / 2);
        }
    }
    bench_check(gk_barrier(), "gk_barrier");
}

void bench_sendrecv_bw(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    if (bench_me == 0)
        bench_header(name, "gasket", bench_npes, "windows of 64 gk_isend, then a 0 B ack",
                     "MB/s");
    gk_request_t *reqs[BENCH_BW_WINDOW];
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long loops = bench_bw_loops(opts, size);
        bench_check(gk_barrier(), "gk_barrier");
        if (bench_me < 2) {
            double start = bench_now_us();
            for (long l = 0; l < loops; l++) {
                for (int i = 0; i < BENCH_BW_WINDOW; i++) {
                    /* One buffer for the window: as OSU does. */
                    if (bench_me == 0)
                        bench_check(gk_isend(1, 2, bench_priv, size, &reqs[i]), "gk_isend");
                    else
                        bench_check(gk_irecv(0, 2, bench_priv, size, &reqs[i]), "gk_irecv");
                }
                bench_check(gk_request_wait_all(reqs, BENCH_BW_WINDOW, NULL),
                            "gk_request_wait_all");
                if (bench_me == 0)
                    bench_check(gk_recv(1, 3, NULL, 0, NULL), "gk_recv");
                else
                    bench_check(gk_send(0, 3, NULL, 0), "gk_send");
            }
            double us = bench_now_us() - start;
            if (bench_me == 0)
                bench_row_bw_windows(size, loops, us);
        }
    }
    bench_check(gk_barrier(), "gk_barrier");
}

/* ------------------------------------------------------------------------ */
/* Threads on contexts                                                      */
/* ------------------------------------------------------------------------ */

struct mt_arg {
    int thread;
    long iters;
    double us_per_put;
    pthread_barrier_t *start;
};

/*
 * Pins the calling thread to the n-th CPU (modulo their number) that the
 * process may use, so that threads get CPUs of their own where there are
 * enough. Under gasket-run --bind the PE has one CPU and every thread
 * shares it: run mt_put_lat without --bind to measure the contexts rather
 * than the time-slicing (compare_msg.py does).
 */
static void mt_pin(int n)
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) == 0)
        return;
    n %= CPU_COUNT(&allowed);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &allowed) && n-- == 0) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
            return;
        }
    }
}

static void *mt_worker(void *p)
{
    struct mt_arg *arg = p;
    gk_ctx_t *ctx = NULL;
    mt_pin(arg->thread);
    bench_check(gk_ctx_create(GK_CTX_PRIVATE, &ctx), "gk_ctx_create");
    /* Each thread its own pair of cache lines of the target (the CPU's
     * adjacent-line prefetch works on 128-byte pairs). */
    unsigned char *dst = bench_sym + (size_t)arg->thread * 128;
    uint64_t value = 0;
    pthread_barrier_wait(arg->start);
    double start = bench_now_us();
    for (long i = 0; i < arg->iters; i++) {
        value = (uint64_t)i;
        bench_check(gk_ctx_put(ctx, 1, dst, &value, sizeof(value)), "gk_ctx_put");
        bench_check(gk_ctx_quiet(ctx), "gk_ctx_quiet");
    }
    arg->us_per_put = (bench_now_us() - start) / (double)arg->iters;
    bench_check(gk_ctx_destroy(ctx), "gk_ctx_destroy");
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_mt_put_lat(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    gk_thread_level_t level = GK_THREAD_SINGLE;
    bench_check(gk_thread_query(&level), "gk_thread_query");
    if (level != GK_THREAD_MULTIPLE) {
        if (bench_me == 0)
            printf("# %s needs gk_init_thread(GK_THREAD_MULTIPLE); skipped\n", name);
        return;
    }
    if (bench_me == 0)
        bench_header(name, "gasket", bench_npes,
                     "size = threads of PE 0, each on its own context; mean over threads",
                     "us per gk_ctx_put 8 B + gk_ctx_quiet");
    for (int threads = 1; threads <= 4; threads *= 2) {
        bench_check(gk_barrier(), "gk_barrier");
        if (bench_me == 0) {
            pthread_t tid[4];
            struct mt_arg args[4];
            pthread_barrier_t start;
            pthread_barrier_init(&start, NULL, (unsigned)threads);
            long iters = opts->iters > 0 ? opts->iters : 200000;
            for (int t = 0; t < threads; t++) {
                args[t] = (struct mt_arg){t, iters, 0, &start};
                pthread_create(&tid[t], NULL, mt_worker, &args[t]);
            }
            double us[4];
            for (int t = 0; t < threads; t++) {
                pthread_join(tid[t], NULL);
                us[t] = args[t].us_per_put;
            }
            pthread_barrier_destroy(&start);
            /* The mean over the threads: with two, a median would be the
             * faster one (CPUs of a VM differ by 10-20%). */
            qsort(us, (size_t)threads, sizeof(double), cmp_double);
            double sum = 0;
            for (int t = 0; t < threads; t++)
                sum += us[t];
            printf("# %d thread%s: fastest %.4f, slowest %.4f us\n", threads,
                   threads > 1 ? "s" : "", us[0], us[threads - 1]);
            bench_row_lat(opts, (size_t)threads, sum / threads);
        }
    }
    bench_check(gk_barrier(), "gk_barrier");
}

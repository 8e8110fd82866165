/*
 * gk_bench_lock.c: gk-bench's benchmarks of windows and their locks, the
 * figures of the seed passive-rma-locks-ib-atomics:
 *
 *   lock_put_lat      exclusive lock on PE 1, one put, unlock (8 B to 64 KiB)
 *   lock_get_lat      shared lock on PE 1, one get, unlock
 *   lock_get8_lat     shared lock, eight gets, unlock
 *   lock_all_get_lat  lock_all, one get from PE 1, unlock_all
 *   lock_xget_lat     exclusive lock on PE 1, one get, unlock
 *   lock_contended    every PE takes PE 0's exclusive lock, adds one to a
 *                     word (get, put), unlocks: one row "8 us", the job's
 *                     microseconds per acquisition, and a # line with the
 *                     longest single wait for the lock
 *   overlap           that seed's overlap test: lock, put (or get) of size
 *                     bytes, a calibrated computation about as long as the
 *                     epoch, unlock; the % of the transfer hidden behind the
 *                     computation (100: all of it; bench_overlap_measure())
 *   passive_busy      lock + put + unlock (exclusive) and lock + get + unlock
 *                     (shared), 8 B and 1 MiB, timed while PE 1 waits in a
 *                     barrier (tables passive_put_idle, passive_get_idle)
 *                     and while it computes for 50 ms without calling gasket
 *                     (passive_put_busy, passive_get_busy): what passive
 *                     target access costs when the target makes no progress
 *
 * The MPI peer (peers/mpi_lock_peer.c) prints the same tables with MPI-3
 * windows, for osc/sm, osc/rdma and MPICH.
 */
#include <gasket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "gk_bench.h"

#define LOCK_MAX_MSG ((size_t)64 * 1024)

static gk_win_t *lock_window(size_t size, void **base_p)
{
    gk_win_t *win = NULL;
    bench_check(gk_win_allocate(size, 0, base_p, &win), "gk_win_allocate");
    return win;
}

enum lock_kind { LK_PUT, LK_GET, LK_GET8, LK_ALL_GET, LK_XGET };

static void lock_epoch(gk_win_t *win, enum lock_kind kind, size_t size)
{
    switch (kind) {
    case LK_PUT:
        bench_check(gk_win_lock(win, 1, GK_LOCK_EXCLUSIVE, 0), "gk_win_lock");
        bench_check(gk_win_put(win, 1, 0, bench_priv, size), "gk_win_put");
        bench_check(gk_win_unlock(win, 1), "gk_win_unlock");
        break;
    case LK_GET:
    case LK_GET8:
    case LK_XGET:
        bench_check(gk_win_lock(win, 1, kind == LK_XGET ? GK_LOCK_EXCLUSIVE : GK_LOCK_SHARED, 0),
                    "gk_win_lock");
        for (int i = 0; i < (kind == LK_GET8 ? 8 : 1); i++)
            bench_check(gk_win_get(win, 1, bench_priv + (size_t)i * size,
                                   (size_t)i * size,
                                   size),
                        "gk_win_get");
        bench_check(gk_win_unlock(win, 1), "gk_win_unlock");
        break;
    case LK_ALL_GET:
        bench_check(gk_win_lock_all(win, 0), "gk_win_lock_all");
        bench_check(gk_win_get(win, 1, bench_priv, 0, size), "gk_win_get");
        bench_check(gk_win_unlock_all(win), "gk_win_unlock_all");
        break;
    }
}

static void lock_lat(const struct bench_opts *opts, const char *name, enum lock_kind kind)
{
    if (!bench_need_two(name))
        return;
    void *base = NULL;
    gk_win_t *win = lock_window(8 * LOCK_MAX_MSG, &base);
    static const char *const units[] = {
        "us per exclusive lock + gk_win_put + unlock", "us per shared lock + gk_win_get + unlock",
        "us per shared lock + 8 gk_win_get + unlock", "us per lock_all + gk_win_get + unlock_all",
        "us per exclusive lock + gk_win_get + unlock"};
    if (bench_me == 0)
        bench_header(name, "gasket", bench_npes, NULL, units[kind]);
    BENCH_FOR_SIZES(opts, size, 8, LOCK_MAX_MSG) {
        long iters = bench_iters(opts, size, 50000), warmup = bench_warmup(opts, size, 50000);
        bench_check(gk_barrier(), "gk_barrier");
        if (bench_me == 0) {
            double start = 0;
            BENCH_TIMED_LOOP(i, warmup, iters, start) {
                lock_epoch(win, kind, size);
            }
            bench_row_lat(opts, size, (bench_now_us() - start) / (double)iters);
        }
    }
    bench_check(gk_barrier(), "gk_barrier");
    bench_check(gk_win_free(win), "gk_win_free");
}

void bench_lock_put_lat(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_PUT); }
void bench_lock_get_lat(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_GET); }
void bench_lock_get8_lat(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_GET8); }
void bench_lock_all_get_lat(const struct bench_opts *o, const char *n)
{
    lock_lat(o, n, LK_ALL_GET);
}
void bench_lock_xget_lat(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_XGET); }

void bench_lock_contended(const struct bench_opts *opts, const char *name)
{
    void *base = NULL;
    gk_win_t *win = lock_window(64, &base);
    /* 50000 at every PE count: with fewer, an oversubscribed run could finish
     * one PE's loop before the others left the barrier (no contention; about
     * 0.1 us per acquisition in some runs at 4 and 8 PEs). */
    long iters = opts->iters > 0 ? opts->iters : 50000;
    if (bench_me == 0)
        bench_header(name, "gasket", bench_npes,
                     "every PE: PE 0's exclusive lock, get + 1 + put, unlock; size 8",
                     "us per acquisition (the job's)");
    bench_check(gk_barrier(), "gk_barrier");
    double longest = 0, start = bench_now_us();
    for (long i = 0; i < iters; i++) {
        double asked = bench_now_us();
        bench_check(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0), "gk_win_lock");
        double waited = bench_now_us() - asked;
        if (waited > longest)
            longest = waited;
        uint64_t v = 0;
        bench_check(gk_win_get(win, 0, &v, 0, sizeof(v)), "gk_win_get");
        v++;
        bench_check(gk_win_put(win, 0, 0, &v, sizeof(v)), "gk_win_put");
        bench_check(gk_win_unlock(win, 0), "gk_win_unlock");
    }
    bench_check(gk_barrier(), "gk_barrier");
    double elapsed = bench_now_us() - start, all_elapsed = 0, all_longest = 0;
    bench_check(gk_allreduce(&all_elapsed, &elapsed, 1, GK_DTYPE_DOUBLE, GK_OP_MAX),
                "gk_allreduce");
    bench_check(gk_allreduce(&all_longest, &longest, 1, GK_DTYPE_DOUBLE, GK_OP_MAX),
                "gk_allreduce");
    if (bench_me == 0) {
        uint64_t total = *(uint64_t *)base, expected = (uint64_t)iters * (uint64_t)bench_npes;
        if (total != expected) {
            fprintf(stderr, "gk-bench: lock_contended counted %llu, expected %llu\n",
                    (unsigned long long)total, (unsigned long long)expected);
            gk_abort(1, "lock_contended: lost updates");
        }
        bench_row_lat(opts, 8, all_elapsed / (double)expected);
        printf("# longest wait for the lock: %.1f us (%d PEs, %ld acquisitions each)\n",
               all_longest, bench_npes, iters);
    }
    bench_check(gk_win_free(win), "gk_win_free");
}


/* One epoch of the overlap test (bench_overlap_measure() in bench_common.c). */
struct overlap_ctx {
    gk_win_t *win;
    size_t size;
    int is_get;
};

static void overlap_epoch(void *arg, long rounds)
{
    const struct overlap_ctx *c = arg;
    bench_check(gk_win_lock(c->win, 1, c->is_get ? GK_LOCK_SHARED : GK_LOCK_EXCLUSIVE, 0),
                "gk_win_lock");
    if (c->is_get)
        bench_check(gk_win_get(c->win, 1, bench_priv, 0, c->size), "gk_win_get");
    else
        bench_check(gk_win_put(c->win, 1, 0, bench_priv, c->size), "gk_win_put");
    if (rounds > 0)
        bench_compute(rounds);
    bench_check(gk_win_unlock(c->win, 1), "gk_win_unlock");
}

void bench_overlap(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    void *base = NULL;
    gk_win_t *win = lock_window(BENCH_MAX_MSG, &base);
    /* Two tables: the put's overlap, then the get's. */
    for (int is_get = 0; is_get < 2; is_get++) {
        if (bench_me == 0)
            bench_header(is_get ? "overlap_get" : "overlap_put", "gasket", bench_npes,
                         "lock, transfer, compute about as long as lock+transfer+unlock, "
                         "unlock; median of 5 trials",
                         "% of the transfer hidden by the computation");
        BENCH_FOR_SIZES(opts, size, 8, (size_t)1 << 20) {
            bench_check(gk_barrier(), "gk_barrier");
            if (bench_me != 0)
                continue;
            struct overlap_ctx c = {win, size, is_get};
            printf("%-12zu %.1f\n", size,
                   bench_overlap_measure(overlap_epoch, &c, bench_iters(opts, size, 5000)));
            fflush(stdout);
        }
    }
    bench_check(gk_barrier(), "gk_barrier");
    bench_check(gk_win_free(win), "gk_win_free");
}

/*
 * passive_busy. Each trial starts at a barrier. PE 1 then either waits in
 * the next barrier (idle: it runs gasket's progress) or computes for
 * PASSIVE_BUSY_US before entering it, making no gasket call meanwhile
 * (busy). PE 0 lets PASSIVE_START_US pass, so that PE 1 is surely in its
 * computation, then times epochs one by one until PASSIVE_WINDOW_US after
 * the start (at least one); an epoch that needs PE 1's help takes until
 * its computation ends, and the table shows it. Idle and busy trials
 * alternate, so a drift of the machine touches both alike. A row is the
 * median over every epoch timed.
 */
#define PASSIVE_BUSY_US 50000.0
#define PASSIVE_START_US 5000.0
#define PASSIVE_WINDOW_US 35000.0
#define PASSIVE_TRIALS 10
#define PASSIVE_MAX_EPOCHS 64 /* per trial */

struct passive_samples {
    double us[PASSIVE_TRIALS * PASSIVE_MAX_EPOCHS];
    int n;
};

static int passive_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void passive_trial(const struct overlap_ctx *c, int busy, struct passive_samples *out)
{
    bench_check(gk_barrier(), "gk_barrier");
    double start = bench_now_us();
    if (bench_me == 1 && busy) {
        while (bench_now_us() - start < PASSIVE_BUSY_US)
            bench_compute(1000);
    } else if (bench_me == 0) {
        while (bench_now_us() - start < PASSIVE_START_US)
            ;
        int n = 0;
        do {
            double t0 = bench_now_us();
            overlap_epoch((void *)c, 0);
            double t1 = bench_now_us();
            if (out != NULL && out->n < PASSIVE_TRIALS * PASSIVE_MAX_EPOCHS)
                out->us[out->n++] = t1 - t0;
        } while (++n < PASSIVE_MAX_EPOCHS && bench_now_us() - start < PASSIVE_WINDOW_US);
    }
    bench_check(gk_barrier(), "gk_barrier");
}

void bench_passive_busy(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    static const size_t sizes[] = {8, (size_t)1 << 20};
    enum { N_SIZES = sizeof(sizes) / sizeof(sizes[0]) };
    /* [is_get][busy][size] */
    static struct passive_samples samples[2][2][N_SIZES];
    memset(samples, 0, sizeof(samples));
    void *base = NULL;
    gk_win_t *win = lock_window(sizes[N_SIZES - 1], &base);
    for (int is_get = 0; is_get < 2; is_get++) {
        for (int s = 0; s < N_SIZES; s++) {
            if (sizes[s] < opts->min_size || (opts->max_size != 0 && sizes[s] > opts->max_size))
                continue;
            struct overlap_ctx c = {win, sizes[s], is_get};
            passive_trial(&c, 0, NULL); /* warm-up */
            for (int t = 0; t < PASSIVE_TRIALS; t++) {
                int busy_first = t % 2;
                passive_trial(&c, busy_first, &samples[is_get][busy_first][s]);
                passive_trial(&c, !busy_first, &samples[is_get][!busy_first][s]);
            }
        }
    }
    if (bench_me == 0) {
        static const char *const tables[2][2] = {{"passive_put_idle", "passive_put_busy"},
                                                 {"passive_get_idle", "passive_get_busy"}};
        for (int is_get = 0; is_get < 2; is_get++) {
            for (int busy = 0; busy < 2; busy++) {
                bench_header(tables[is_get][busy], "gasket", bench_npes,
                             busy ? "PE 1 computes 50 ms without calling gasket"
                                  : "PE 1 waits in gk_barrier",
                             is_get ? "us per shared lock + gk_win_get + unlock (median)"
                                    : "us per exclusive lock + gk_win_put + unlock (median)");
                for (int s = 0; s < N_SIZES; s++) {
                    struct passive_samples *p = &samples[is_get][busy][s];
                    if (p->n == 0)
                        continue;
                    qsort(p->us, (size_t)p->n, sizeof(p->us[0]), passive_cmp);
                    bench_row_lat(opts, sizes[s], p->us[p->n / 2]);
                }
            }
        }
    }
    bench_check(gk_barrier(), "gk_barrier");
    bench_check(gk_win_free(win), "gk_win_free");
}

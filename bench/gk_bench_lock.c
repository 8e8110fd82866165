/*
 * gk_bench_lock.c: gk-bench's benchmarks of windows and their locks, the
 * figures of the seed passive-rma-locks-ib-atomics:
 *
 *   lock_put_lat      exclusive lock on PE 1, one put, unlock (8 B to 64 KiB)
 *   lock_get_lat      shared lock on PE 1, one get, unlock
 *   lock_get8_lat     shared lock, eight gets, unlock
 *   lock_all_get_lat  lock_all, one get from PE 1, unlock_all
 *   lock_contended    every PE takes PE 0's exclusive lock, adds one to a
 *                     word (get, put), unlocks: one row "8 us", the job's
 *                     microseconds per acquisition, and a # line with the
 *                     longest single wait for the lock
 *   overlap           the seed's overlap test: lock, put (or get) of size
 *                     bytes, a calibrated computation about as long as the
 *                     epoch, unlock; the % of the transfer hidden behind the
 *                     computation (100: all of it; bench_overlap_measure())
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

enum lock_kind { LK_PUT, LK_GET, LK_GET8, LK_ALL_GET };

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
        bench_check(gk_win_lock(win, 1, GK_LOCK_SHARED, 0), "gk_win_lock");
        for (int i = 0; i < (kind == LK_GET8 ? 8 : 1); i++)
            bench_check(gk_win_get(win, 1, (size_t)i * size, bench_priv + (size_t)i * size,
                                   size),
                        "gk_win_get");
        bench_check(gk_win_unlock(win, 1), "gk_win_unlock");
        break;
    case LK_ALL_GET:
        bench_check(gk_win_lock_all(win, 0), "gk_win_lock_all");
        bench_check(gk_win_get(win, 1, 0, bench_priv, size), "gk_win_get");
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
        "us per shared lock + 8 gk_win_get + unlock", "us per lock_all + gk_win_get + unlock_all"};
    if (bench_me == 0)
        bench_header(name, "gasket", bench_npes, NULL, units[kind]);
    BENCH_FOR_SIZES(opts, size, 8, LOCK_MAX_MSG) {
        long iters = bench_iters(opts, size, 50000), warmup = bench_warmup(opts, size, 50000);
        bench_check(gk_barrier(), "gk_barrier");
        if (bench_me == 0) {
            double start = 0;
            for (long i = -warmup; i < iters; i++) {
                if (i == 0)
                    start = bench_now_us();
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
        bench_check(gk_win_get(win, 0, 0, &v, sizeof(v)), "gk_win_get");
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
        bench_check(gk_win_get(c->win, 1, 0, bench_priv, c->size), "gk_win_get");
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

/*
 * mpi-lock-peer: gk-bench's window-lock benchmarks (bench/gk_bench_lock.c)
 * with MPI-3 windows, the same names and tables:
 *
 *   mpirun -n 2 --bind-to core --mca osc sm   mpi-lock-peer NAME [options]
 *   mpirun -n 2 --bind-to core --mca osc rdma mpi-lock-peer NAME [options]
 *   mpirun.mpich -n 2 mpi-lock-peer-mpich NAME [options]
 *
 * lock_put_lat, lock_get_lat, lock_get8_lat, lock_all_get_lat,
 * lock_xget_lat, lock_contended and overlap, as in gk_bench_lock.c (MPI_Win_lock,
 * MPI_Put/MPI_Get, MPI_Win_unlock; MPI_Win_lock_all for lock_all).
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

#define PEER_NAME "mpi-lock-peer"
#include "mpi_check.h"

#define LOCK_MAX_MSG ((size_t)64 * 1024)

static const char usage[] =
    "usage: mpirun -n 2 --bind-to core [--mca osc sm|rdma] mpi-lock-peer NAME [options]\n"
    "  lock_put_lat, lock_get_lat, lock_get8_lat, lock_all_get_lat, lock_xget_lat,\n"
    "  lock_contended,\n"
    "  overlap (see bench/gk_bench_lock.c)\n";

static int me, npes;
static unsigned char *priv;


static MPI_Win window(size_t size, void **base_p)
{
    MPI_Win win;
    check(MPI_Win_allocate((MPI_Aint)size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, base_p, &win),
          "MPI_Win_allocate");
    check(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
    memset(*base_p, 0, size);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    return win;
}

enum lock_kind { LK_PUT, LK_GET, LK_GET8, LK_ALL_GET, LK_XGET };

static void lock_epoch(MPI_Win win, enum lock_kind kind, size_t size)
{
    int n = (int)size;
    switch (kind) {
    case LK_PUT:
        check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win), "MPI_Win_lock");
        check(MPI_Put(priv, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win), "MPI_Put");
        check(MPI_Win_unlock(1, win), "MPI_Win_unlock");
        break;
    case LK_GET:
    case LK_GET8:
    case LK_XGET:
        check(MPI_Win_lock(kind == LK_XGET ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, 1, 0, win),
              "MPI_Win_lock");
        for (int i = 0; i < (kind == LK_GET8 ? 8 : 1); i++)
            check(MPI_Get(priv + (size_t)i * size, n, MPI_BYTE, 1, (MPI_Aint)i * n, n,
                          MPI_BYTE, win),
                  "MPI_Get");
        check(MPI_Win_unlock(1, win), "MPI_Win_unlock");
        break;
    case LK_ALL_GET:
        check(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
        check(MPI_Get(priv, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win), "MPI_Get");
        check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
        break;
    }
}

static void lock_lat(const struct bench_opts *opts, const char *name, enum lock_kind kind)
{
    void *base = NULL;
    MPI_Win win = window(8 * LOCK_MAX_MSG, &base);
    static const char *const units[] = {
        "us per exclusive MPI_Win_lock + MPI_Put + unlock",
        "us per shared MPI_Win_lock + MPI_Get + unlock",
        "us per shared MPI_Win_lock + 8 MPI_Get + unlock",
        "us per MPI_Win_lock_all + MPI_Get + unlock_all",
        "us per exclusive MPI_Win_lock + MPI_Get + unlock"};
    if (me == 0)
        bench_header(name, "MPI", npes, NULL, units[kind]);
    BENCH_FOR_SIZES(opts, size, 8, LOCK_MAX_MSG) {
        long iters = bench_iters(opts, size, 50000), warmup = bench_warmup(opts, size, 50000);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (me == 0) {
            double start = 0;
            BENCH_TIMED_LOOP(i, warmup, iters, start) {
                lock_epoch(win, kind, size);
            }
            bench_row_lat(opts, size, (bench_now_us() - start) / (double)iters);
        }
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    check(MPI_Win_free(&win), "MPI_Win_free");
}

static void lock_contended(const struct bench_opts *opts, const char *name)
{
    void *base = NULL;
    MPI_Win win = window(64, &base);
    long iters = opts->iters > 0 ? opts->iters : 50000; /* as gk_bench_lock.c */
    if (me == 0)
        bench_header(name, "MPI", npes,
                     "every rank: rank 0's exclusive lock, get + 1 + put, unlock; size 8",
                     "us per acquisition (the job's)");
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double longest = 0, start = bench_now_us();
    for (long i = 0; i < iters; i++) {
        double asked = bench_now_us();
        check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), "MPI_Win_lock");
        double waited = bench_now_us() - asked;
        if (waited > longest)
            longest = waited;
        uint64_t v = 0;
        check(MPI_Get(&v, 8, MPI_BYTE, 0, 0, 8, MPI_BYTE, win), "MPI_Get");
        check(MPI_Win_flush(0, win), "MPI_Win_flush");
        v++;
        check(MPI_Put(&v, 8, MPI_BYTE, 0, 0, 8, MPI_BYTE, win), "MPI_Put");
        check(MPI_Win_unlock(0, win), "MPI_Win_unlock");
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double elapsed = bench_now_us() - start, all_elapsed = 0, all_longest = 0;
    check(MPI_Allreduce(&elapsed, &all_elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce");
    check(MPI_Allreduce(&longest, &all_longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce");
    if (me == 0) {
        uint64_t total = *(uint64_t *)base, expected = (uint64_t)iters * (uint64_t)npes;
        if (total != expected) {
            fprintf(stderr, "mpi-lock-peer: lock_contended counted %llu, expected %llu\n",
                    (unsigned long long)total, (unsigned long long)expected);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        bench_row_lat(opts, 8, all_elapsed / (double)expected);
        printf("# longest wait for the lock: %.1f us (%d ranks, %ld acquisitions each)\n",
               all_longest, npes, iters);
    }
    check(MPI_Win_free(&win), "MPI_Win_free");
}

/* One epoch of the overlap test (bench_overlap_measure() in bench_common.c). */
struct overlap_ctx {
    MPI_Win win;
    int size, is_get;
};

static void overlap_epoch(void *arg, long rounds)
{
    const struct overlap_ctx *c = arg;
    check(MPI_Win_lock(c->is_get ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, 1, 0, c->win),
          "MPI_Win_lock");
    if (c->is_get)
        check(MPI_Get(priv, c->size, MPI_BYTE, 1, 0, c->size, MPI_BYTE, c->win), "MPI_Get");
    else
        check(MPI_Put(priv, c->size, MPI_BYTE, 1, 0, c->size, MPI_BYTE, c->win), "MPI_Put");
    if (rounds > 0)
        bench_compute(rounds);
    check(MPI_Win_unlock(1, c->win), "MPI_Win_unlock");
}

static void overlap(const struct bench_opts *opts, const char *name)
{
    void *base = NULL;
    MPI_Win win = window(BENCH_MAX_MSG, &base);
    for (int is_get = 0; is_get < 2; is_get++) {
        if (me == 0)
            bench_header(is_get ? "overlap_get" : "overlap_put", "MPI", npes,
                         "lock, transfer, compute about as long as lock+transfer+unlock, "
                         "unlock; median of 5 trials",
                         "% of the transfer hidden by the computation");
        BENCH_FOR_SIZES(opts, size, 8, (size_t)1 << 20) {
            check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
            if (me != 0)
                continue;
            struct overlap_ctx c = {win, (int)size, is_get};
            printf("%-12zu %.1f\n", size,
                   bench_overlap_measure(overlap_epoch, &c, bench_iters(opts, size, 5000)));
            fflush(stdout);
        }
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    check(MPI_Win_free(&win), "MPI_Win_free");
}

static void run_put(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_PUT); }
static void run_get(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_GET); }
static void run_get8(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_GET8); }
static void run_all(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_ALL_GET); }
static void run_xget(const struct bench_opts *o, const char *n) { lock_lat(o, n, LK_XGET); }

static const struct bench_entry benches[] = {
    {"lock_put_lat", run_put},      {"lock_get_lat", run_get},
    {"lock_get8_lat", run_get8},    {"lock_all_get_lat", run_all},
    {"lock_xget_lat", run_xget},
    {"lock_contended", lock_contended}, {"overlap", overlap},
};

int main(int argc, char **argv)
{
    struct bench_opts opts;
    if (bench_parse(argc, argv, usage, &opts) != 0)
        return 2;
    int found =
        bench_select("mpi-lock-peer", usage, &opts, benches, BENCH_COUNT(benches), 0, 0);
    if (found == BENCH_REFUSED)
        return 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (strcmp(opts.name, "lock_contended") != 0 &&
        !bench_two_or_skip(me, npes, opts.name, "ranks")) {
        MPI_Finalize();
        return 0;
    }
    if (posix_memalign((void **)&priv, 4096, 8 * LOCK_MAX_MSG + BENCH_MAX_MSG) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(priv, 1, 8 * LOCK_MAX_MSG + BENCH_MAX_MSG);
    benches[found].run(&opts, opts.name);
    free(priv);
    MPI_Finalize();
    return 0;
}

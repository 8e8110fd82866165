/*
 * oshmem-peer: gk-bench's one-sided benchmarks with OpenSHMEM calls, the
 * same names, command line and tables, for Open MPI's OSHMEM:
 *
 *   oshrun -n 2 --bind-to core --mca spml ucx build/bench/oshmem-peer NAME
 *          [--iters N] [--warmup N] [--min-size BYTES] [--max-size BYTES]
 *          [--digits D]
 *
 * PE 0 targets PE 1's copy of a buffer from shmem_malloc; PE 1 waits in the
 * next barrier. The latency loops are gk-bench's (bench/gk_bench.c): a call
 * and its completion, one after the other.
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench_common.h"

/* The name its tables give the implementation: bench/sos_compare.py builds
 * this file with other implementations' oshcc and names each. */
#ifndef PEER_IMPL
#define PEER_IMPL "OSHMEM"
#endif

static const char usage[] =
    "usage: oshrun -n 2 --bind-to core --mca spml ucx oshmem-peer NAME [--iters N]\n"
    "              [--warmup N] [--min-size BYTES] [--max-size BYTES] [--digits D]\n"
    "  put_lat   shmem_putmem + shmem_quiet, 1 B to 4 MiB (us)\n"
    "  get_lat   shmem_getmem (blocking), 1 B to 4 MiB (us)\n"
    "  put_bw    windows of 64 shmem_putmem_nbi, then shmem_quiet (MB/s)\n"
    "  get_bw    windows of 64 shmem_getmem_nbi, then shmem_quiet (MB/s)\n"
    "  fadd_lat  shmem_ulong_atomic_fetch_add (us)\n"
    "  fadd_passive  the same while PE 1 sleeps outside OpenSHMEM (us)\n";

static int me, npes;
static unsigned char *sym, *priv;

static void rma_lat(const struct bench_opts *opts, const char *name, int is_put)
{
    if (me == 0)
        bench_header(name, PEER_IMPL, npes, NULL,
                     is_put ? "us per shmem_putmem + shmem_quiet" : "us per shmem_getmem");
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long iters = bench_iters(opts, size, 200000);
        long warmup = bench_warmup(opts, size, 200000);
        shmem_barrier_all();
        if (me != 0)
            continue;
        double t0 = 0;
        BENCH_TIMED_LOOP(i, warmup, iters, t0) {
            if (is_put) {
                shmem_putmem(sym, priv, size, 1);
                shmem_quiet();
            } else {
                shmem_getmem(priv, sym, size, 1);
            }
        }
        bench_row_lat(opts, size, (bench_now_us() - t0) / (double)iters);
    }
    shmem_barrier_all();
}

/* put_bw / get_bw: windows of non-blocking operations, each closed by
 * quiet, as gk-bench's. */
static void rma_bw(const struct bench_opts *opts, const char *name, int put)
{
    if (me == 0)
        bench_header(name, PEER_IMPL, npes,
                     put ? "windows of 64 shmem_putmem_nbi, then shmem_quiet"
                         : "windows of 64 shmem_getmem_nbi, then shmem_quiet",
                     "MB/s");
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long loops = bench_bw_loops(opts, size), warmup = bench_bw_warmup(opts, loops);
        shmem_barrier_all();
        if (me != 0)
            continue;
        double t0 = 0;
        BENCH_TIMED_LOOP(l, warmup, loops, t0) {
            for (int w = 0; w < BENCH_BW_WINDOW; w++) {
                if (put)
                    shmem_putmem_nbi(sym, priv, size, 1);
                else
                    shmem_getmem_nbi(priv, sym, size, 1);
            }
            shmem_quiet();
        }
        bench_row_bw_windows(size, loops, bench_now_us() - t0);
    }
    shmem_barrier_all();
}

/* PE 0's timed fetch-adds to one word on PE 1, each checked: the check a
 * program would make keeps the result live. Prints the row. */
static void fadd_row(const struct bench_opts *opts, long warmup, long iters)
{
    unsigned long *word = (unsigned long *)(void *)(sym + BENCH_MAX_MSG);
    unsigned long expected = 0;
    double t0 = 0;
    BENCH_TIMED_LOOP(i, warmup, iters, t0) {
        unsigned long old = shmem_ulong_atomic_fetch_add(word, 1, 1);
        if (old != expected++) {
            fprintf(stderr, "oshmem-peer: fetch-add saw %lu, expected %lu\n", old,
                    expected - 1);
            shmem_global_exit(1);
        }
    }
    bench_row_lat(opts, 8, (bench_now_us() - t0) / (double)iters);
}

static void fadd_lat(const struct bench_opts *opts, const char *name)
{
    shmem_barrier_all();
    if (me == 0) {
        bench_header(name, PEER_IMPL, npes, NULL, "us per shmem_ulong_atomic_fetch_add");
        fadd_row(opts, bench_warmup(opts, 8, 1000000), bench_iters(opts, 8, 1000000));
    }
    shmem_barrier_all();
}

/*
 * fadd_passive: fadd_lat while PE 1 sleeps in usleep, outside every
 * OpenSHMEM call, as a PE that computes: what the target's runtime serves
 * without its program. PE 1 wakes every millisecond to read a word that
 * PE 0 puts when done, and gives up after 30 s so that a put nobody places
 * cannot hang the job (PE 0's row is then the time it took, or its own
 * time limit).
 */
static void fadd_passive(const struct bench_opts *opts, const char *name)
{
    long *done = (long *)(void *)(sym + BENCH_MAX_MSG + 64);
    shmem_barrier_all();
    if (me == 1) {
        for (int ms = 0; ms < 30000 && *(volatile long *)done == 0; ms++)
            usleep(1000);
    } else {
        bench_header(name, PEER_IMPL, npes, "PE 1 asleep outside OpenSHMEM",
                     "us per shmem_ulong_atomic_fetch_add");
        fadd_row(opts, bench_warmup(opts, 8, 100), bench_iters(opts, 8, 100));
        long one = 1;
        shmem_long_put(done, &one, 1, 1);
        shmem_quiet();
    }
    shmem_barrier_all();
}

static void put_bw(const struct bench_opts *o, const char *n) { rma_bw(o, n, 1); }
static void get_bw(const struct bench_opts *o, const char *n) { rma_bw(o, n, 0); }
static void run_put_lat(const struct bench_opts *o, const char *n) { rma_lat(o, n, 1); }
static void run_get_lat(const struct bench_opts *o, const char *n) { rma_lat(o, n, 0); }

static const struct bench_entry benches[] = {
    {"put_lat", run_put_lat},
    {"get_lat", run_get_lat},
    {"put_bw", put_bw},
    {"get_bw", get_bw},
    {"fadd_lat", fadd_lat},
    {"fadd_passive", fadd_passive},
};

int main(int argc, char **argv)
{
    struct bench_opts opts;
    if (bench_parse(argc, argv, usage, &opts) != 0)
        return 2;
    int found =
        bench_select("oshmem-peer", usage, &opts, benches, BENCH_COUNT(benches), 0, 0);
    if (found == BENCH_REFUSED)
        return 2;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (!bench_two_or_skip(me, npes, opts.name, "PEs")) {
        shmem_finalize();
        return 0;
    }
    sym = shmem_malloc(2 * BENCH_MAX_MSG);
    if (sym == NULL || posix_memalign((void **)&priv, 4096, 2 * BENCH_MAX_MSG) != 0) {
        fprintf(stderr, "oshmem-peer: no memory for the buffers\n");
        shmem_global_exit(1);
    }
    memset(priv, 1, 2 * BENCH_MAX_MSG);
    memset(sym, 0, 2 * BENCH_MAX_MSG);
    shmem_barrier_all();
    benches[found].run(&opts, opts.name);
    shmem_free(sym);
    free(priv);
    shmem_finalize();
    return 0;
}

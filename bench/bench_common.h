/*
 * bench_common.h: what gk-bench and the peer programs (mpi-peer,
 * mpi-lock-peer, oshmem-peer, raw-floor) share, so that they measure alike,
 * their tables line up and compare.py can read all of them with one parser:
 * the clock, the command line and the table of benchmarks, the iteration
 * counts by message size, the size sweep, the timed loop and the OSU-style
 * output (`#` header lines, then `size value` rows).
 *
 * Nothing here knows about gasket, MPI or OpenSHMEM; the peers link
 * bench_common.c without the library, built by their own compiler wrappers.
 */
#ifndef GK_BENCH_COMMON_H
#define GK_BENCH_COMMON_H

#include <stddef.h>

/* The largest message of the size sweeps (4 MiB) and the bandwidth window. */
#define BENCH_MAX_MSG ((size_t)4 << 20)
#define BENCH_BW_WINDOW 64

/* The non-contiguous transfers (gk_bench_dtype.c, peers/mpi_dtype_peer.c):
 * the data each moves, the largest block, the default iterations and the
 * most (each row is the median of the iterations' times, which a machine
 * shared with other jobs disturbs less than the mean). */
#define BENCH_DT_TOTAL ((size_t)4 << 20)
#define BENCH_DT_MAX_BLOCK ((size_t)64 << 10)
#define BENCH_DT_ITERS 30
#define BENCH_DT_MAX_ITERS 1000

#define BENCH_MAX_ARGS 8

/* The command line every program takes: NAME [--iters N] [--warmup N]
 * [--min-size BYTES] [--max-size BYTES] [--sizes LIST] [--digits D] [--poll]
 * [extra positional arguments]. NAME may be a comma-separated list of
 * benchmarks (bench_select()). */
struct bench_opts {
    const char *name; /* the benchmark to run */
    long iters;       /* --iters: base count for small messages; 0: default */
    long warmup;      /* --warmup: base warm-up count; -1: default */
    size_t min_size;  /* --min-size: start every sweep here; 0: no limit */
    size_t max_size;  /* --max-size: end every sweep here; 0: no limit */
    int digits;       /* --digits: decimals of latencies (2, as OSU) */
    /* --sizes 8,64K,1M: bit k set when 2^k is listed; the sweeps visit only
     * the listed sizes (within --min-size and --max-size). 0: every size. */
    unsigned long long sizes;
    int poll;         /* --poll: a benchmark that computes polls every ~1 ms */
    int n_args;       /* positional arguments after NAME */
    const char *args[BENCH_MAX_ARGS];
};

/*
 * Parses argv into *opts_p. On a bad command line prints `usage` (the
 * program's own lines) to stderr and returns 2; returns 0 otherwise.
 */
int bench_parse(int argc, char **argv, const char *usage, struct bench_opts *opts_p);

/*
 * A program's benchmarks: a table of names and the functions that run them
 * (each gets the options and its own name, for the table header).
 */
struct bench_entry {
    const char *name;
    void (*run)(const struct bench_opts *opts, const char *name);
};

#define BENCH_COUNT(table) (sizeof(table) / sizeof((table)[0]))
#define BENCH_ALL (-1)     /* bench_select(): "all" was named */
#define BENCH_REFUSED (-2) /* bench_select(): unknown name or extra argument */
#define BENCH_LIST (-3)    /* bench_select(): a list of names; see bench_listed() */

/*
 * The entry of table[0 .. n - 1] that opts->name names: its index, or
 * BENCH_ALL for "all" when `all` is non-zero, or BENCH_LIST for a
 * comma-separated list of names of the table (each run in table order:
 * bench_listed() says which). A name not in the table, or a
 * positional argument after it (these benchmarks take none), gives
 * BENCH_REFUSED, after "PROG: unknown benchmark NAME" or "PROG: unexpected
 * argument ARG" and `usage` on stderr unless `quiet` (the other processes of
 * a job, which refuse alike).
 */
int bench_select(const char *prog, const char *usage, const struct bench_opts *opts,
                 const struct bench_entry *table, size_t n, int all, int quiet);

/* 1 when `name` is opts->name or one of the names of its list. */
int bench_listed(const struct bench_opts *opts, const char *name);

/* Microseconds on CLOCK_MONOTONIC. */
double bench_now_us(void);

/* The median of v[0 .. n - 1] (sorted in place); 0 when n is 0. */
double bench_median(double *v, long n);

/*
 * Iterations at `size` bytes: `base` (or --iters) up to 4 KiB, then scaled
 * down in proportion to the size (the copy dominates there), never below 20
 * (or the base, if smaller). bench_warmup() is the same for the warm-up
 * (default a tenth of the iterations, at least 2).
 */
long bench_iters(const struct bench_opts *opts, size_t size, long base);
long bench_warmup(const struct bench_opts *opts, size_t size, long base);

/*
 * Windows of BENCH_BW_WINDOW transfers for a bandwidth run: about 1 GiB in
 * all, between 5 and 20000 windows; --iters sets the window count for small
 * messages instead (scaled down like bench_iters()).
 */
long bench_bw_loops(const struct bench_opts *opts, size_t size);

/* Warm-up windows of a bandwidth run of `loops` windows: --warmup (at most
 * `loops`), else 2. */
long bench_bw_warmup(const struct bench_opts *opts, long loops);

/* The last size of a sweep from `lo` to `hi`: hi, or --max-size if smaller
 * (but never below lo, so each sweep prints at least one row). */
size_t bench_last_size(const struct bench_opts *opts, size_t lo, size_t hi);

/* The first size of that sweep: the first of lo, 2 lo, 4 lo ... (1, 2, 4 ...
 * after a lo of 0) that reaches --min-size, or the sweep's last one if none
 * does, so that each sweep still prints a row. With --sizes, the first of
 * those that is listed (none: a size past the last, and no row). */
size_t bench_first_size(const struct bench_opts *opts, size_t lo, size_t hi);

/* The size after `size` in a sweep that ends at `last`: twice it, or with
 * --sizes the next listed one (past `last` when none is left). */
size_t bench_next_size(const struct bench_opts *opts, size_t size, size_t last);

#define BENCH_FOR_SIZES(opts, size, lo, hi)                                    \
    for (size_t size = bench_first_size((opts), (lo), (hi)),                   \
                size##_last_ = bench_last_size((opts), (lo), (hi));            \
         size <= size##_last_; size = bench_next_size((opts), size, size##_last_))

/*
 * The timed loop of a run, used as a for statement:
 *   double t0 = 0;
 *   BENCH_TIMED_LOOP(i, warmup, iters, t0) { one operation }
 * runs the body `warmup` times, then `iters` times (at least 1) with t0 set
 * to bench_now_us() just before the first of those. One loop for both, so
 * that the warm-up runs the very code that is timed, back to back with it.
 * The else binds the body; break and continue act on the loop.
 */
#define BENCH_TIMED_LOOP(i, warmup, iters, t0)                                 \
    for (long i = -(long)(warmup); i < (long)(iters); i++)                     \
        if (i == 0 && ((t0) = bench_now_us(), 0)) {                            \
        } else

/*
 * The header of a table:
 *   # NAME (IMPL), N PEs
 *   # NOTE                      (only when note is not NULL)
 *   # size    UNIT
 */
void bench_header(const char *name, const char *impl, int npes, const char *note,
                  const char *unit);

/* A latency row (us, --digits decimals) and a bandwidth row (MB/s, 2). */
void bench_row_lat(const struct bench_opts *opts, size_t size, double us);
void bench_row_bw(size_t size, double mb_per_s);
/* The bandwidth row of `loops` windows of BENCH_BW_WINDOW transfers of
 * `size` bytes that took `us` microseconds. */
void bench_row_bw_windows(size_t size, long loops, double us);

/*
 * 1 when the job has 2 processes or more. Otherwise 0, and process 0 prints
 * "# NAME needs 2 UNITS; skipped" (units: "PEs", "ranks") as the table.
 */
int bench_two_or_skip(int me, int npes, const char *name, const char *units);

/*
 * The overlap test of the passive-rma-locks-ib-atomics seed, the same procedure for gk-bench and the MPI
 * peers. epoch(ctx, rounds) runs one access epoch: lock, the transfer under
 * test, bench_compute(rounds) when rounds > 0, unlock. bench_overlap_measure()
 * measures t_comm (epochs without computation), calibrates a computation of
 * about t_comm, then in each of 5 trials times `iters` / 5 epochs without
 * computation (t_comm), the computation alone (t_comp) and epochs with it
 * (t_total), and returns the median over the trials of
 * 100 * (t_comm + t_comp - t_total) / t_comm, clamped to [0, 100]: the
 * share of the transfer hidden behind the computation. The trials and the
 * interleaving keep the VM's changes of speed out of the difference.
 */
void bench_compute(long rounds);
double bench_overlap_measure(void (*epoch)(void *ctx, long rounds), void *ctx, long iters);

#endif /* GK_BENCH_COMMON_H */

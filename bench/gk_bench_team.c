/*
 * gk_bench_team.c: gk-bench's benchmarks of the team collectives, over
 * GK_TEAM_WORLD, with the names, timing and tables of the collective peers
 * (bench/peers/mpi_coll_peer.c, bench/peers/shmem_coll_peer.c), which
 * bench/coll_compare.py runs beside them:
 *
 *   team_barrier_lat    gk_team_barrier (size is the PE count)
 *   team_bcast_lat      gk_team_broadcast of size bytes from PE 0
 *   team_allreduce_lat  gk_team_allreduce, size / 8 doubles (sum)
 *   team_reduce_lat     gk_team_reduce to PE 0, the same
 *   team_fcollect_lat   gk_team_fcollect, size bytes from each PE
 *   team_alltoall_lat   gk_team_alltoall, size bytes to each PE
 *   team_alltoall_sym_lat, team_fcollect_sym_lat  the same into a dst
 *                       from gk_malloc (symmetric)
 *   team_overlap        a 1 MiB gk_team_allreduce_nb, then gk_team_alltoall_nb
 *                       (1 MiB to each PE), behind 50 ms of computation
 *   team_overlap_sym    the same into a dst from gk_malloc
 *
 * The latencies are us per call: after a warm-up, a barrier, `iters` calls
 * back to back, then a barrier, PE 0's time over `iters` (the closing
 * barrier makes it last until every PE is done).
 */
#include <gasket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "gk_bench.h"

#define TEAM_MAX_MSG ((size_t)1 << 20)

enum team_op {
    OP_BARRIER,
    OP_BCAST,
    OP_ALLREDUCE,
    OP_REDUCE,
    OP_FCOLLECT,
    OP_ALLTOALL,
    OP_ALLTOALL_SYM,
    OP_FCOLLECT_SYM
};

static const char *const team_units[] = {
    [OP_BARRIER] = "us per gk_team_barrier",
    [OP_BCAST] = "us per gk_team_broadcast from PE 0",
    [OP_ALLREDUCE] = "us per gk_team_allreduce of doubles (sum)",
    [OP_REDUCE] = "us per gk_team_reduce of doubles (sum) to PE 0",
    [OP_FCOLLECT] = "us per gk_team_fcollect (size: bytes from each PE)",
    [OP_ALLTOALL] = "us per gk_team_alltoall (size: bytes to each PE)",
    [OP_ALLTOALL_SYM] = "us per gk_team_alltoall into gk_malloc'd dst (size: bytes to each PE)",
    [OP_FCOLLECT_SYM] = "us per gk_team_fcollect into gk_malloc'd dst (size: bytes from each PE)",
};

/* Page-aligned and touched, so that no page fault lands in a timed loop. */
static unsigned char *team_buffer(size_t len, int fill)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, len != 0 ? len : 1) != 0)
        bench_fail(GK_ERR_NOMEM, "posix_memalign");
    memset(p, fill, len);
    return p;
}

static inline void team_call(enum team_op op, unsigned char *dst, const unsigned char *src,
                             size_t size)
{
    switch (op) {
    case OP_BARRIER:
        bench_check(gk_team_barrier(GK_TEAM_WORLD), "gk_team_barrier");
        break;
    case OP_BCAST:
        bench_check(gk_team_broadcast(GK_TEAM_WORLD, dst, src, size, 0), "gk_team_broadcast");
        break;
    case OP_ALLREDUCE:
        bench_check(gk_team_allreduce(GK_TEAM_WORLD, dst, src, size / 8, GK_DTYPE_DOUBLE,
                                      GK_OP_SUM),
                    "gk_team_allreduce");
        break;
    case OP_REDUCE:
        bench_check(gk_team_reduce(GK_TEAM_WORLD, dst, src, size / 8, GK_DTYPE_DOUBLE,
                                   GK_OP_SUM, 0),
                    "gk_team_reduce");
        break;
    case OP_FCOLLECT:
    case OP_FCOLLECT_SYM:
        bench_check(gk_team_fcollect(GK_TEAM_WORLD, dst, src, size), "gk_team_fcollect");
        break;
    case OP_ALLTOALL:
    case OP_ALLTOALL_SYM:
        bench_check(gk_team_alltoall(GK_TEAM_WORLD, dst, src, size), "gk_team_alltoall");
        break;
    }
}

static void team_lat(const struct bench_opts *opts, const char *name, enum team_op op)
{
    int npes = gk_team_n_pes(GK_TEAM_WORLD), me = gk_team_my_pe(GK_TEAM_WORLD);
    /* More PEs than cores: each round may wait for a time slice. */
    long base = npes > 4 ? 200 : 1000;
    size_t last = bench_last_size(opts, 8, TEAM_MAX_MSG);
    int sym = op == OP_ALLTOALL_SYM || op == OP_FCOLLECT_SYM;
    size_t blocks = op == OP_FCOLLECT || op == OP_ALLTOALL || sym ? (size_t)npes : 1;
    unsigned char *src = NULL, *dst = NULL;
    if (op != OP_BARRIER) {
        src = team_buffer(blocks * last, 1);
        dst = sym ? gk_malloc(blocks * last) : team_buffer(blocks * last, 0);
        if (dst == NULL)
            bench_fail(GK_ERR_NOMEM, "gk_malloc");
    }
    if (me == 0)
        bench_header(name, "gasket", npes,
                     op == OP_BARRIER ? "GK_TEAM_WORLD; size is the number of PEs"
                                      : "GK_TEAM_WORLD",
                     team_units[op]);
    BENCH_FOR_SIZES(opts, size, 8, TEAM_MAX_MSG) {
        long iters = bench_iters(opts, size, base), warmup = bench_warmup(opts, size, base);
        for (long i = 0; i < warmup; i++)
            team_call(op, dst, src, size);
        bench_check(gk_team_barrier(GK_TEAM_WORLD), "gk_team_barrier");
        double t0 = bench_now_us();
        for (long i = 0; i < iters; i++)
            team_call(op, dst, src, size);
        bench_check(gk_team_barrier(GK_TEAM_WORLD), "gk_team_barrier");
        if (me == 0)
            bench_row_lat(opts, op == OP_BARRIER ? (size_t)npes : size,
                          (bench_now_us() - t0) / (double)iters);
        if (op == OP_BARRIER)
            break; /* one row: its size is the PE count */
    }
    free(src);
    if (sym)
        gk_free(dst);
    else
        free(dst);
}

void bench_team_barrier_lat(const struct bench_opts *o, const char *n)
{
    team_lat(o, n, OP_BARRIER);
}
void bench_team_bcast_lat(const struct bench_opts *o, const char *n)
{
    team_lat(o, n, OP_BCAST);
}
void bench_team_allreduce_lat(const struct bench_opts *o, const char *n)
{
    team_lat(o, n, OP_ALLREDUCE);
}
void bench_team_reduce_lat(const struct bench_opts *o, const char *n)
{
    team_lat(o, n, OP_REDUCE);
}
void bench_team_fcollect_lat(const struct bench_opts *o, const char *n)
{
    team_lat(o, n, OP_FCOLLECT);
}
void bench_team_alltoall_lat(const struct bench_opts *o, const char *n)
{
    team_lat(o, n, OP_ALLTOALL);
}
void bench_team_alltoall_sym_lat(const struct bench_opts *o, const char *n)
{
    team_lat(o, n, OP_ALLTOALL_SYM);
}
void bench_team_fcollect_sym_lat(const struct bench_opts *o, const char *n)
{
    team_lat(o, n, OP_FCOLLECT_SYM);
}

/*
 * team_overlap. Does a non-blocking collective move on while its PEs
 * compute? Each trial times, on every PE, three things, a barrier before
 * each: the computation alone, the collective alone (start, then
 * gk_handle_wait), and the collective started, the computation, then
 * gk_handle_wait. The computation is a fixed number of rounds of
 * bench_compute(), about 50 ms on an idle CPU (the same count on every
 * PE), cut in slices of about 1 ms; with --poll, gk_poll() runs between
 * slices (in the computation alone too, so that both pay for it). A row
 * holds the medians over the trials of the slowest PE's times and
 * compute+collective / compute: 1.0 when the collective is wholly hidden.
 */
#define OVERLAP_COMPUTE_US 50000.0
#define OVERLAP_SLICE_US 1000.0
#define OVERLAP_TRIALS 5

/* Rounds of bench_compute() per microsecond: the fastest of 5 timings. */
static double overlap_rate(void)
{
    double rate = 0;
    for (int t = 0; t < 5; t++) {
        double t0 = bench_now_us();
        bench_compute(200000);
        double r = 200000.0 / (bench_now_us() - t0);
        if (r > rate)
            rate = r;
    }
    return rate;
}

static void overlap_compute(const struct bench_opts *opts, long slices, long slice_rounds)
{
    for (long s = 0; s < slices; s++) {
        bench_compute(slice_rounds);
        if (opts->poll)
            bench_check(gk_poll(), "gk_poll");
    }
}

static void overlap_start(int is_alltoall, unsigned char *dst, const unsigned char *src,
                          gk_handle_t *handle)
{
    if (is_alltoall)
        bench_check(gk_team_alltoall_nb(GK_TEAM_WORLD, dst, src, TEAM_MAX_MSG, handle),
                    "gk_team_alltoall_nb");
    else
        bench_check(gk_team_allreduce_nb(GK_TEAM_WORLD, dst, src, TEAM_MAX_MSG / 8,
                                         GK_DTYPE_DOUBLE, GK_OP_SUM, handle),
                    "gk_team_allreduce_nb");
}

static double overlap_median(double *v)
{
    return bench_median(v, OVERLAP_TRIALS);
}

/* team_overlap, into private memory or (sym) into gk_malloc'd dst. */
static void overlap_run(const struct bench_opts *opts, int sym)
{
    int npes = gk_team_n_pes(GK_TEAM_WORLD), me = gk_team_my_pe(GK_TEAM_WORLD);
    unsigned char *src = team_buffer((size_t)npes * TEAM_MAX_MSG, 1);
    unsigned char *dst = sym ? gk_malloc((size_t)npes * TEAM_MAX_MSG)
                             : team_buffer((size_t)npes * TEAM_MAX_MSG, 0);
    if (dst == NULL)
        bench_fail(GK_ERR_NOMEM, "gk_malloc");
    /* The same rounds everywhere: the fastest PE's rate. */
    double rate = overlap_rate(), agreed = 0;
    bench_check(gk_team_allreduce(GK_TEAM_WORLD, &agreed, &rate, 1, GK_DTYPE_DOUBLE, GK_OP_MAX),
                "gk_team_allreduce");
    long slice_rounds = (long)(agreed * OVERLAP_SLICE_US);
    long slices = (long)(OVERLAP_COMPUTE_US / OVERLAP_SLICE_US);
    if (slice_rounds < 1)
        slice_rounds = 1;

    for (int is_alltoall = 0; is_alltoall < 2; is_alltoall++) {
        /* [trial][computation, collective, both] */
        double mine[OVERLAP_TRIALS][3], slowest[OVERLAP_TRIALS][3];
        gk_handle_t handle;
        overlap_start(is_alltoall, dst, src, &handle); /* warm-up */
        bench_check(gk_handle_wait(&handle), "gk_handle_wait");
        for (int t = 0; t < OVERLAP_TRIALS; t++) {
            for (int k = 0; k < 3; k++) {
                int what = (k + t) % 3; /* a drift of the machine touches all three */
                bench_check(gk_team_barrier(GK_TEAM_WORLD), "gk_team_barrier");
                double t0 = bench_now_us();
                if (what != 0)
                    overlap_start(is_alltoall, dst, src, &handle);
                if (what != 1)
                    overlap_compute(opts, slices, slice_rounds);
                if (what != 0)
                    bench_check(gk_handle_wait(&handle), "gk_handle_wait");
                mine[t][what] = bench_now_us() - t0;
            }
        }
        bench_check(gk_team_allreduce(GK_TEAM_WORLD, slowest, mine, OVERLAP_TRIALS * 3,
                                      GK_DTYPE_DOUBLE, GK_OP_MAX),
                    "gk_team_allreduce");
        if (me == 0) {
            double v[3][OVERLAP_TRIALS], ratio[OVERLAP_TRIALS];
            for (int t = 0; t < OVERLAP_TRIALS; t++) {
                for (int k = 0; k < 3; k++)
                    v[k][t] = slowest[t][k];
                ratio[t] = slowest[t][2] / slowest[t][0];
            }
            char note[200];
            snprintf(note, sizeof(note),
                     "1 MiB %s, %.0f ms of computation, %s, gk_handle_wait; medians of %d "
                     "trials of the slowest PE",
                     is_alltoall ? "gk_team_alltoall_nb to each PE"
                                 : "gk_team_allreduce_nb of doubles (sum)",
                     OVERLAP_COMPUTE_US / 1000.0,
                     opts->poll ? "gk_poll about every 1 ms" : "no gk_poll", OVERLAP_TRIALS);
            bench_header(is_alltoall ? (sym ? "team_overlap_sym_alltoall" : "team_overlap_alltoall")
                                     : (sym ? "team_overlap_sym_allreduce"
                                            : "team_overlap_allreduce"),
                         "gasket", npes, note,
                         "compute_us   coll_us      both_us      both/compute");
            printf("%-12zu %-12.1f %-12.1f %-12.1f %.3f\n", TEAM_MAX_MSG, overlap_median(v[0]),
                   overlap_median(v[1]), overlap_median(v[2]), overlap_median(ratio));
            fflush(stdout);
        }
    }
    free(src);
    if (sym)
        gk_free(dst);
    else
        free(dst);
}

void bench_team_overlap(const struct bench_opts *opts, const char *name)
{
    (void)name;
    overlap_run(opts, 0);
}

void bench_team_overlap_sym(const struct bench_opts *opts, const char *name)
{
    (void)name;
    overlap_run(opts, 1);
}

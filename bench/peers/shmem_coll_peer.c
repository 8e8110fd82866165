/*
 * shmem-coll-peer: gk-bench's team collectives (bench/gk_bench_team.c) with
 * OpenSHMEM's, the same names, timing and tables, for Open MPI's OSHMEM:
 *
 *   oshrun -n 8 --bind-to none --oversubscribe --mca spml ucx
 *          build/bench/shmem-coll-peer NAME[,NAME...] [--iters N] [--warmup N]
 *          [--sizes LIST] [--digits D]
 *
 * With an OpenSHMEM 1.5 library the calls are those of the teams API on
 * SHMEM_TEAM_WORLD: shmem_broadcastmem, shmem_double_sum_reduce,
 * shmem_fcollectmem, shmem_alltoallmem. Open MPI 4.1's OSHMEM is 1.4 and
 * has no teams: there the same operations are the active-set calls over
 * every PE (shmem_broadcast64, shmem_double_sum_to_all, shmem_fcollect64,
 * shmem_alltoall64), each alternating between two pSync arrays, as the
 * OSU benchmarks do, so that a call never reuses the array of the call
 * just before it. The barrier is shmem_barrier_all in both (like
 * gk_team_barrier it completes this PE's puts first). OpenSHMEM has no
 * reduction to one PE: team_reduce_lat says so and prints no row.
 * Buffers come from shmem_malloc.
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_common.h"

#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
#define PEER_TEAMS 1
#define PEER_IMPL "OpenSHMEM 1.5"
#else
#define PEER_TEAMS 0
#define PEER_IMPL "OpenSHMEM 1.4"
#endif

static const char usage[] =
    "usage: oshrun -n N shmem-coll-peer NAME[,NAME...] [--iters N] [--warmup N]\n"
    "              [--min-size BYTES] [--max-size BYTES] [--sizes LIST] [--digits D]\n"
    "  team_barrier_lat    shmem_barrier_all (us; size is the number of PEs)\n"
    "  team_bcast_lat      broadcast from PE 0, 8 B to 1 MiB (us)\n"
    "  team_allreduce_lat  sum of doubles to every PE\n"
    "  team_reduce_lat     (OpenSHMEM has no reduction to one PE: no row)\n"
    "  team_fcollect_lat   fcollect, size bytes from each PE\n"
    "  team_alltoall_lat   alltoall, size bytes to each PE\n";

#define MAX_MSG ((size_t)1 << 20)

static int me, npes;

enum coll_op { OP_BARRIER, OP_BCAST, OP_ALLREDUCE, OP_FCOLLECT, OP_ALLTOALL };

#if PEER_TEAMS
static const char *const units[] = {
    [OP_BARRIER] = "us per shmem_barrier_all",
    [OP_BCAST] = "us per shmem_broadcastmem from PE 0",
    [OP_ALLREDUCE] = "us per shmem_double_sum_reduce",
    [OP_FCOLLECT] = "us per shmem_fcollectmem (size: bytes from each PE)",
    [OP_ALLTOALL] = "us per shmem_alltoallmem (size: bytes to each PE)",
};
#else
static const char *const units[] = {
    [OP_BARRIER] = "us per shmem_barrier_all",
    [OP_BCAST] = "us per shmem_broadcast64 from PE 0",
    [OP_ALLREDUCE] = "us per shmem_double_sum_to_all",
    [OP_FCOLLECT] = "us per shmem_fcollect64 (size: bytes from each PE)",
    [OP_ALLTOALL] = "us per shmem_alltoall64 (size: bytes to each PE)",
};

/* Two pSync arrays per kind of call, used in turn; and the reduction's
 * work array, sized for the largest message. */
#define SYNC_LONGS 64
_Static_assert(SYNC_LONGS >= SHMEM_BCAST_SYNC_SIZE && SYNC_LONGS >= SHMEM_REDUCE_SYNC_SIZE &&
                   SYNC_LONGS >= SHMEM_COLLECT_SYNC_SIZE && SYNC_LONGS >= SHMEM_ALLTOALL_SYNC_SIZE,
               "a pSync array holds every kind's");
static long *psync[2];
static double *pwrk;
static unsigned long calls;
#endif

static void *sym_buffer(size_t len, int fill)
{
    void *p = shmem_malloc(len != 0 ? len : 8);
    if (p == NULL) {
        fprintf(stderr, "shmem-coll-peer: shmem_malloc(%zu) failed (raise "
                        "SHMEM_SYMMETRIC_SIZE)\n", len);
        shmem_global_exit(1);
    }
    memset(p, fill, len);
    return p;
}


#if PEER_TEAMS
static void fail(const char *what, int rc)
{
    fprintf(stderr, "shmem-coll-peer: %s failed: %d\n", what, rc);
    shmem_global_exit(1);
}
#endif

static inline void coll_call(enum coll_op op, unsigned char *dst, const unsigned char *src,
                             size_t size)
{
#if PEER_TEAMS
    int rc = 0;
    switch (op) {
    case OP_BARRIER:
        shmem_barrier_all();
        break;
    case OP_BCAST:
        rc = shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0);
        break;
    case OP_ALLREDUCE:
        rc = shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)(void *)dst,
                                     (const double *)(const void *)src, size / 8);
        break;
    case OP_FCOLLECT:
        rc = shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, size);
        break;
    case OP_ALLTOALL:
        rc = shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size);
        break;
    }
    if (rc != 0)
        fail(op == OP_BCAST ? "shmem_broadcastmem"
             : op == OP_ALLREDUCE ? "shmem_double_sum_reduce"
             : op == OP_FCOLLECT ? "shmem_fcollectmem" : "shmem_alltoallmem", rc);
#else
    long *sync = psync[calls++ & 1];
    switch (op) {
    case OP_BARRIER:
        shmem_barrier_all();
        break;
    case OP_BCAST:
        shmem_broadcast64(dst, src, size / 8, 0, 0, 0, npes, sync);
        break;
    case OP_ALLREDUCE:
        shmem_double_sum_to_all((double *)(void *)dst, (double *)(void *)src, (int)(size / 8), 0,
                                0, npes, pwrk, sync);
        break;
    case OP_FCOLLECT:
        shmem_fcollect64(dst, src, size / 8, 0, 0, npes, sync);
        break;
    case OP_ALLTOALL:
        shmem_alltoall64(dst, src, size / 8, 0, 0, npes, sync);
        break;
    }
#endif
}

/* As gk_bench_team.c: warm-up, barrier, iters calls, barrier; PE 0's time. */
static void coll_lat(const struct bench_opts *opts, const char *name, enum coll_op op)
{
    long base = npes > 4 ? 200 : 1000;
    size_t last = bench_last_size(opts, 8, MAX_MSG);
    size_t blocks = op == OP_FCOLLECT || op == OP_ALLTOALL ? (size_t)npes : 1;
    unsigned char *src = NULL, *dst = NULL;
    if (op != OP_BARRIER) {
        src = sym_buffer(blocks * last, 1);
        dst = sym_buffer(blocks * last, 0);
    }
    if (me == 0)
        bench_header(name, "OpenSHMEM", npes,
                     op == OP_BARRIER ? PEER_IMPL ", every PE; size is the number of PEs"
                                      : PEER_IMPL ", every PE",
                     units[op]);
    shmem_barrier_all();
    BENCH_FOR_SIZES(opts, size, 8, MAX_MSG) {
        long iters = bench_iters(opts, size, base), warmup = bench_warmup(opts, size, base);
        for (long i = 0; i < warmup; i++)
            coll_call(op, dst, src, size);
        shmem_barrier_all();
        double t0 = bench_now_us();
        for (long i = 0; i < iters; i++)
            coll_call(op, dst, src, size);
        shmem_barrier_all();
        if (me == 0)
            bench_row_lat(opts, op == OP_BARRIER ? (size_t)npes : size,
                          (bench_now_us() - t0) / (double)iters);
        if (op == OP_BARRIER)
            break;
    }
    shmem_barrier_all();
    if (src != NULL) {
        shmem_free(src);
        shmem_free(dst);
    }
}

static void run_barrier(const struct bench_opts *o, const char *n) { coll_lat(o, n, OP_BARRIER); }
static void run_bcast(const struct bench_opts *o, const char *n) { coll_lat(o, n, OP_BCAST); }
static void run_allreduce(const struct bench_opts *o, const char *n)
{
    coll_lat(o, n, OP_ALLREDUCE);
}
static void run_fcollect(const struct bench_opts *o, const char *n)
{
    coll_lat(o, n, OP_FCOLLECT);
}
static void run_alltoall(const struct bench_opts *o, const char *n)
{
    coll_lat(o, n, OP_ALLTOALL);
}
static void run_reduce(const struct bench_opts *o, const char *n)
{
    (void)o;
    if (me == 0) {
        printf("# %s: OpenSHMEM has no reduction to one PE; skipped\n", n);
        fflush(stdout);
    }
}

static const struct bench_entry benches[] = {
    {"team_barrier_lat", run_barrier},
    {"team_bcast_lat", run_bcast},
    {"team_allreduce_lat", run_allreduce},
    {"team_reduce_lat", run_reduce},
    {"team_fcollect_lat", run_fcollect},
    {"team_alltoall_lat", run_alltoall},
};

int main(int argc, char **argv)
{
    struct bench_opts opts;
    if (bench_parse(argc, argv, usage, &opts) != 0)
        return 2;
    int found =
        bench_select("shmem-coll-peer", usage, &opts, benches, BENCH_COUNT(benches), 0, 0);
    if (found == BENCH_REFUSED)
        return 2;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
#if !PEER_TEAMS
    for (int k = 0; k < 2; k++) {
        psync[k] = sym_buffer(SYNC_LONGS * sizeof(long), 0);
        for (int i = 0; i < SYNC_LONGS; i++)
            psync[k][i] = SHMEM_SYNC_VALUE;
    }
    size_t wrk = MAX_MSG / 8 / 2 + 1;
    if (wrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE)
        wrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    pwrk = sym_buffer(wrk * sizeof(double), 0);
    shmem_barrier_all();
#endif
    for (size_t b = 0; b < BENCH_COUNT(benches); b++) {
        if (found == (int)b || (found == BENCH_LIST && bench_listed(&opts, benches[b].name))) {
            benches[b].run(&opts, benches[b].name);
            shmem_barrier_all();
        }
    }
    shmem_finalize();
    return 0;
}

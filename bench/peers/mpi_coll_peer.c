/*
 * mpi-coll-peer: gk-bench's team collectives (bench/gk_bench_team.c) with
 * MPI's collectives on MPI_COMM_WORLD, the same names, timing and tables:
 *
 *   mpirun -n 8 --bind-to none --oversubscribe build/bench/mpi-coll-peer
 *          NAME[,NAME...] [--iters N] [--warmup N] [--sizes LIST] [--digits D]
 *          [--poll]
 *
 * Built with Open MPI's mpicc (mpi-coll-peer) and, where it is installed,
 * MPICH's (mpi-coll-peer-mpich). Which collective algorithms run is the
 * MPI's choice (Open MPI: --mca coll ... on the command line).
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_common.h"

#define PEER_NAME "mpi-coll-peer"
#include "mpi_check.h"

static const char usage[] =
    "usage: mpirun -n N mpi-coll-peer NAME[,NAME...] [--iters N] [--warmup N]\n"
    "              [--min-size BYTES] [--max-size BYTES] [--sizes LIST] [--digits D]\n"
    "              [--poll]\n"
    "  team_barrier_lat    MPI_Barrier (us; size is the number of ranks)\n"
    "  team_bcast_lat      MPI_Bcast from rank 0, 8 B to 1 MiB (us)\n"
    "  team_allreduce_lat  MPI_Allreduce of doubles (sum)\n"
    "  team_reduce_lat     MPI_Reduce of doubles (sum) to rank 0\n"
    "  team_fcollect_lat   MPI_Allgather, size bytes from each rank\n"
    "  team_alltoall_lat   MPI_Alltoall, size bytes to each rank\n"
    "  team_overlap        1 MiB MPI_Iallreduce and MPI_Ialltoall behind 50 ms of\n"
    "                      computation (--poll: MPI_Test about every 1 ms)\n";

#define MAX_MSG ((size_t)1 << 20)

static int me, npes;

enum coll_op { OP_BARRIER, OP_BCAST, OP_ALLREDUCE, OP_REDUCE, OP_FCOLLECT, OP_ALLTOALL };

static const char *const units[] = {
    [OP_BARRIER] = "us per MPI_Barrier",
    [OP_BCAST] = "us per MPI_Bcast from rank 0",
    [OP_ALLREDUCE] = "us per MPI_Allreduce of doubles (sum)",
    [OP_REDUCE] = "us per MPI_Reduce of doubles (sum) to rank 0",
    [OP_FCOLLECT] = "us per MPI_Allgather (size: bytes from each rank)",
    [OP_ALLTOALL] = "us per MPI_Alltoall (size: bytes to each rank)",
};

static unsigned char *buffer(size_t len, int fill)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, len != 0 ? len : 1) != 0) {
        fprintf(stderr, "%s: no memory for %zu bytes\n", PEER_NAME, len);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, fill, len);
    return p;
}

static inline void coll_call(enum coll_op op, unsigned char *dst, const unsigned char *src,
                             size_t size)
{
    int n = (int)size;
    switch (op) {
    case OP_BARRIER:
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        break;
    case OP_BCAST:
        /* gasket's broadcast reads src on the root and writes dst; MPI's is
         * in place, so the root passes the data it sends. */
        check(MPI_Bcast(me == 0 ? (void *)src : dst, n, MPI_BYTE, 0, MPI_COMM_WORLD),
              "MPI_Bcast");
        break;
    case OP_ALLREDUCE:
        check(MPI_Allreduce(src, dst, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Allreduce");
        break;
    case OP_REDUCE:
        check(MPI_Reduce(src, dst, n / 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
        break;
    case OP_FCOLLECT:
        check(MPI_Allgather(src, n, MPI_BYTE, dst, n, MPI_BYTE, MPI_COMM_WORLD), "MPI_Allgather");
        break;
    case OP_ALLTOALL:
        check(MPI_Alltoall(src, n, MPI_BYTE, dst, n, MPI_BYTE, MPI_COMM_WORLD), "MPI_Alltoall");
        break;
    }
}

/* As gk_bench_team.c: warm-up, barrier, iters calls, barrier; rank 0's time. */
static void coll_lat(const struct bench_opts *opts, const char *name, enum coll_op op)
{
    long base = npes > 4 ? 200 : 1000;
    size_t last = bench_last_size(opts, 8, MAX_MSG);
    size_t blocks = op == OP_FCOLLECT || op == OP_ALLTOALL ? (size_t)npes : 1;
    unsigned char *src = NULL, *dst = NULL;
    if (op != OP_BARRIER) {
        src = buffer(blocks * last, 1);
        dst = buffer(blocks * last, 0);
    }
    if (me == 0)
        bench_header(name, "MPI", npes,
                     op == OP_BARRIER ? "MPI_COMM_WORLD; size is the number of ranks"
                                      : "MPI_COMM_WORLD",
                     units[op]);
    BENCH_FOR_SIZES(opts, size, 8, MAX_MSG) {
        long iters = bench_iters(opts, size, base), warmup = bench_warmup(opts, size, base);
        for (long i = 0; i < warmup; i++)
            coll_call(op, dst, src, size);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        double t0 = bench_now_us();
        for (long i = 0; i < iters; i++)
            coll_call(op, dst, src, size);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (me == 0)
            bench_row_lat(opts, op == OP_BARRIER ? (size_t)npes : size,
                          (bench_now_us() - t0) / (double)iters);
        if (op == OP_BARRIER)
            break;
    }
    free(src);
    free(dst);
}

static void run_barrier(const struct bench_opts *o, const char *n) { coll_lat(o, n, OP_BARRIER); }
static void run_bcast(const struct bench_opts *o, const char *n) { coll_lat(o, n, OP_BCAST); }
static void run_allreduce(const struct bench_opts *o, const char *n)
{
    coll_lat(o, n, OP_ALLREDUCE);
}
static void run_reduce(const struct bench_opts *o, const char *n) { coll_lat(o, n, OP_REDUCE); }
static void run_fcollect(const struct bench_opts *o, const char *n)
{
    coll_lat(o, n, OP_FCOLLECT);
}
static void run_alltoall(const struct bench_opts *o, const char *n)
{
    coll_lat(o, n, OP_ALLTOALL);
}

/*
 * team_overlap, as in gk_bench_team.c: per trial the computation alone,
 * the collective alone (start, MPI_Wait) and both (start, computation,
 * MPI_Wait), each after a barrier; --poll calls MPI_Test between the
 * computation's 1 ms slices. Medians over trials of the slowest rank.
 */
#define OVERLAP_COMPUTE_US 50000.0
#define OVERLAP_SLICE_US 1000.0
#define OVERLAP_TRIALS 5

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

static void overlap_compute(const struct bench_opts *opts, long slices, long slice_rounds,
                            MPI_Request *req)
{
    for (long s = 0; s < slices; s++) {
        bench_compute(slice_rounds);
        if (opts->poll) {
            int done = 0;
            if (*req != MPI_REQUEST_NULL)
                check(MPI_Test(req, &done, MPI_STATUS_IGNORE), "MPI_Test");
            else
                check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &done,
                                 MPI_STATUS_IGNORE),
                      "MPI_Iprobe");
        }
    }
}

static void overlap_start(int is_alltoall, unsigned char *dst, const unsigned char *src,
                          MPI_Request *req)
{
    if (is_alltoall)
        check(MPI_Ialltoall(src, (int)MAX_MSG, MPI_BYTE, dst, (int)MAX_MSG, MPI_BYTE,
                            MPI_COMM_WORLD, req),
              "MPI_Ialltoall");
    else
        check(MPI_Iallreduce(src, dst, (int)(MAX_MSG / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                             req),
              "MPI_Iallreduce");
}

static void run_overlap(const struct bench_opts *opts, const char *name)
{
    (void)name;
    unsigned char *src = buffer((size_t)npes * MAX_MSG, 1);
    unsigned char *dst = buffer((size_t)npes * MAX_MSG, 0);
    double rate = overlap_rate(), agreed = 0;
    check(MPI_Allreduce(&rate, &agreed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    long slice_rounds = (long)(agreed * OVERLAP_SLICE_US);
    long slices = (long)(OVERLAP_COMPUTE_US / OVERLAP_SLICE_US);
    if (slice_rounds < 1)
        slice_rounds = 1;
    for (int is_alltoall = 0; is_alltoall < 2; is_alltoall++) {
        double mine[OVERLAP_TRIALS][3], slowest[OVERLAP_TRIALS][3];
        MPI_Request req = MPI_REQUEST_NULL;
        overlap_start(is_alltoall, dst, src, &req);
        check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
        for (int t = 0; t < OVERLAP_TRIALS; t++) {
            for (int k = 0; k < 3; k++) {
                int what = (k + t) % 3;
                check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
                double t0 = bench_now_us();
                req = MPI_REQUEST_NULL;
                if (what != 0)
                    overlap_start(is_alltoall, dst, src, &req);
                if (what != 1)
                    overlap_compute(opts, slices, slice_rounds, &req);
                if (what != 0)
                    check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
                mine[t][what] = bench_now_us() - t0;
            }
        }
        check(MPI_Reduce(mine, slowest, OVERLAP_TRIALS * 3, MPI_DOUBLE, MPI_MAX, 0,
                         MPI_COMM_WORLD),
              "MPI_Reduce");
        if (me == 0) {
            double v[3][OVERLAP_TRIALS], ratio[OVERLAP_TRIALS];
            for (int t = 0; t < OVERLAP_TRIALS; t++) {
                for (int k = 0; k < 3; k++)
                    v[k][t] = slowest[t][k];
                ratio[t] = slowest[t][2] / slowest[t][0];
            }
            char note[200];
            snprintf(note, sizeof(note),
                     "1 MiB %s, %.0f ms of computation, %s, MPI_Wait; medians of %d trials "
                     "of the slowest rank",
                     is_alltoall ? "MPI_Ialltoall to each rank"
                                 : "MPI_Iallreduce of doubles (sum)",
                     OVERLAP_COMPUTE_US / 1000.0,
                     opts->poll ? "MPI_Test about every 1 ms" : "no MPI call", OVERLAP_TRIALS);
            bench_header(is_alltoall ? "team_overlap_alltoall" : "team_overlap_allreduce", "MPI",
                         npes, note, "compute_us   coll_us      both_us      both/compute");
            printf("%-12zu %-12.1f %-12.1f %-12.1f %.3f\n", MAX_MSG,
                   bench_median(v[0], OVERLAP_TRIALS), bench_median(v[1], OVERLAP_TRIALS),
                   bench_median(v[2], OVERLAP_TRIALS), bench_median(ratio, OVERLAP_TRIALS));
            fflush(stdout);
        }
    }
    free(src);
    free(dst);
}

static const struct bench_entry benches[] = {
    {"team_barrier_lat", run_barrier},
    {"team_bcast_lat", run_bcast},
    {"team_allreduce_lat", run_allreduce},
    {"team_reduce_lat", run_reduce},
    {"team_fcollect_lat", run_fcollect},
    {"team_alltoall_lat", run_alltoall},
    {"team_overlap", run_overlap},
};

int main(int argc, char **argv)
{
    struct bench_opts opts;
    if (bench_parse(argc, argv, usage, &opts) != 0)
        return 2;
    int found = bench_select(PEER_NAME, usage, &opts, benches, BENCH_COUNT(benches), 0, 0);
    if (found == BENCH_REFUSED)
        return 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    for (size_t b = 0; b < BENCH_COUNT(benches); b++) {
        if (found == (int)b || (found == BENCH_LIST && bench_listed(&opts, benches[b].name))) {
            benches[b].run(&opts, benches[b].name);
            check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        }
    }
    MPI_Finalize();
    return 0;
}

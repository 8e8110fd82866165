/*
 * mpi-peer: the MPI side of the comparison, with gk-bench's benchmark names,
 * command line and table format:
 *
 *   mpirun -n 2 --bind-to core --mca osc sm build/bench/mpi-peer NAME
 *          [--iters N] [--warmup N] [--max-size BYTES] [--digits D]
 *
 * The RMA benchmarks use a window from MPI_Win_allocate (so that Open MPI's
 * osc/sm can serve it when forced with --mca osc sm) in one passive
 * MPI_Win_lock_all epoch; rank 0 targets rank 1.
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_common.h"

#define PEER_NAME "mpi-peer"
#include "mpi_check.h"

static const char usage[] =
    "usage: mpirun -n 2 --bind-to core --mca osc sm mpi-peer NAME [--iters N]\n"
    "              [--warmup N] [--max-size BYTES] [--digits D]\n"
    "  put_lat      MPI_Put + MPI_Win_flush, 1 B to 4 MiB (us)\n"
    "  get_lat      MPI_Get + MPI_Win_flush, 1 B to 4 MiB (us)\n"
    "  put_bw       windows of 64 MPI_Put, then MPI_Win_flush (MB/s)\n"
    "  get_bw       windows of 64 MPI_Get, then MPI_Win_flush (MB/s)\n"
    "  fadd_lat     MPI_Fetch_and_op (MPI_SUM) + MPI_Win_flush (us)\n"
    "  cswap_lat    MPI_Compare_and_swap + MPI_Win_flush (us)\n"
    "  barrier_lat  MPI_Barrier (us; size is the number of ranks)\n"
    "  pingpong     MPI_Send/MPI_Recv, 8 B to 64 KiB (us one-way)\n"
    "  sendrecv_lat the same, 1 B to 4 MiB\n"
    "  sendrecv_bw  windows of 64 MPI_Isend, then a 0 B ack (MB/s)\n"
    "  bcast_lat, allreduce_lat: MPI_Bcast from rank 0, MPI_Allreduce of\n"
    "               doubles (sum), 8 B to 64 KiB (us)\n"
    "  all          every benchmark above\n";

static int me, npes;
static unsigned char *base, *priv;
static MPI_Win win;


static int need_two(const char *name)
{
    return bench_two_or_skip(me, npes, name, "ranks");
}

static void rma_lat(const struct bench_opts *opts, const char *name, int is_put)
{
    if (!need_two(name))
        return;
    if (me == 0)
        bench_header(name, "MPI", npes, NULL,
                     is_put ? "us per MPI_Put + MPI_Win_flush" : "us per MPI_Get + MPI_Win_flush");
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long iters = bench_iters(opts, size, 200000);
        long warmup = bench_warmup(opts, size, 200000);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (me != 0)
            continue;
        double t0 = 0;
        BENCH_TIMED_LOOP(i, warmup, iters, t0) {
            if (is_put)
                check(MPI_Put(priv, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win),
                      "MPI_Put");
            else
                check(MPI_Get(priv, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win),
                      "MPI_Get");
            check(MPI_Win_flush(1, win), "MPI_Win_flush");
        }
        bench_row_lat(opts, size, (bench_now_us() - t0) / (double)iters);
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

static void rma_bw(const struct bench_opts *opts, const char *name, int is_put)
{
    if (!need_two(name))
        return;
    if (me == 0)
        bench_header(name, "MPI", npes,
                     is_put ? "windows of 64 MPI_Put, then MPI_Win_flush"
                            : "windows of 64 MPI_Get, then MPI_Win_flush",
                     "MB/s");
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long loops = bench_bw_loops(opts, size), warmup = bench_bw_warmup(opts, loops);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (me != 0)
            continue;
        double t0 = 0;
        BENCH_TIMED_LOOP(l, warmup, loops, t0) {
            for (int w = 0; w < BENCH_BW_WINDOW; w++) {
                if (is_put)
                    check(MPI_Put(priv, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win),
                          "MPI_Put");
                else
                    check(MPI_Get(priv, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win),
                          "MPI_Get");
            }
            check(MPI_Win_flush(1, win), "MPI_Win_flush");
        }
        bench_row_bw_windows(size, loops, bench_now_us() - t0);
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

/* Every compare-and-swap succeeds: it expects the value the previous left. */
static void amo_lat(const struct bench_opts *opts, const char *name, int is_fadd)
{
    if (!need_two(name))
        return;
    long iters = bench_iters(opts, 8, 1000000);
    long warmup = bench_warmup(opts, 8, 1000000);
    const MPI_Aint disp = (MPI_Aint)BENCH_MAX_MSG; /* the word after the data */
    uint64_t one = 1, old = 0, expected = 0;
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (me == 0) {
        bench_header(name, "MPI", npes, NULL,
                     is_fadd ? "us per MPI_Fetch_and_op + MPI_Win_flush"
                             : "us per MPI_Compare_and_swap + MPI_Win_flush");
        check(MPI_Fetch_and_op(&one, &expected, MPI_UINT64_T, 1, disp, MPI_NO_OP, win),
              "MPI_Fetch_and_op");
        check(MPI_Win_flush(1, win), "MPI_Win_flush");
        double t0 = 0;
        BENCH_TIMED_LOOP(i, warmup, iters, t0) {
            if (is_fadd) {
                check(MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 1, disp, MPI_SUM, win),
                      "MPI_Fetch_and_op");
                check(MPI_Win_flush(1, win), "MPI_Win_flush");
            } else {
                uint64_t desired = expected + 1;
                check(MPI_Compare_and_swap(&desired, &expected, &old, MPI_UINT64_T, 1, disp,
                                           win),
                      "MPI_Compare_and_swap");
                check(MPI_Win_flush(1, win), "MPI_Win_flush");
                if (old != expected) {
                    fprintf(stderr, "mpi-peer: compare-and-swap saw %llu, expected %llu\n",
                            (unsigned long long)old, (unsigned long long)expected);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                expected = desired;
            }
        }
        bench_row_lat(opts, 8, (bench_now_us() - t0) / (double)iters);
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

static void barrier_lat(const struct bench_opts *opts, const char *name)
{
    long b = npes > 4 ? 20000 : 200000;
    long iters = bench_iters(opts, 8, b), warmup = bench_warmup(opts, 8, b);
    if (me == 0)
        bench_header(name, "MPI", npes, "size is the number of ranks", "us per MPI_Barrier");
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double t0 = 0;
    BENCH_TIMED_LOOP(i, warmup, iters, t0) {
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    }
    double us = (bench_now_us() - t0) / (double)iters;
    if (me == 0)
        bench_row_lat(opts, (size_t)npes, us);
}

static void pingpong_sizes(const struct bench_opts *opts, const char *name, size_t lo,
                           size_t hi)
{
    if (!need_two(name))
        return;
    if (me == 0)
        bench_header(name, "MPI", npes, NULL, "us one-way (MPI_Send/MPI_Recv)");
    BENCH_FOR_SIZES(opts, size, lo, hi) {
        long iters = bench_iters(opts, size, 100000);
        long warmup = bench_warmup(opts, size, 100000);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        double t0 = 0;
        for (long i = -warmup; i < iters && me < 2; i++) {
            if (i == 0)
                t0 = bench_now_us();
            if (me == 0) {
                check(MPI_Send(priv, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD), "MPI_Send");
                check(MPI_Recv(priv + BENCH_MAX_MSG, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE),
                      "MPI_Recv");
            } else {
                check(MPI_Recv(priv + BENCH_MAX_MSG, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE),
                      "MPI_Recv");
                check(MPI_Send(priv, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD), "MPI_Send");
            }
        }
        if (me == 0)
            bench_row_lat(opts, size, (bench_now_us() - t0) / (double)iters / 2.0);
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

static void pingpong(const struct bench_opts *o, const char *n) { pingpong_sizes(o, n, 8, 65536); }
static void sendrecv_lat(const struct bench_opts *o, const char *n)
{
    pingpong_sizes(o, n, 1, BENCH_MAX_MSG);
}

/* OSU's bandwidth test: windows of 64 MPI_Isend (one buffer), then an ack. */
static void sendrecv_bw(const struct bench_opts *opts, const char *name)
{
    if (!need_two(name))
        return;
    if (me == 0)
        bench_header(name, "MPI", npes, "windows of 64 MPI_Isend, then a 0 B ack", "MB/s");
    MPI_Request reqs[BENCH_BW_WINDOW];
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long loops = bench_bw_loops(opts, size);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (me >= 2)
            continue;
        double t0 = bench_now_us();
        for (long l = 0; l < loops; l++) {
            for (int i = 0; i < BENCH_BW_WINDOW; i++) {
                if (me == 0)
                    check(MPI_Isend(priv, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[i]),
                          "MPI_Isend");
                else
                    check(MPI_Irecv(priv, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[i]),
                          "MPI_Irecv");
            }
            check(MPI_Waitall(BENCH_BW_WINDOW, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
            if (me == 0)
                check(MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                      "MPI_Recv");
            else
                check(MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD), "MPI_Send");
        }
        double us = bench_now_us() - t0;
        if (me == 0)
            bench_row_bw_windows(size, loops, us);
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

static void collective_lat(const struct bench_opts *opts, const char *name, int is_bcast)
{
    if (me == 0)
        bench_header(name, "MPI", npes, NULL,
                     is_bcast ? "us per MPI_Bcast from rank 0"
                              : "us per MPI_Allreduce of doubles (sum)");
    BENCH_FOR_SIZES(opts, size, 8, 65536) {
        long iters = bench_iters(opts, size, 20000);
        long warmup = bench_warmup(opts, size, 20000);
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        double t0 = 0;
        BENCH_TIMED_LOOP(i, warmup, iters, t0) {
            if (is_bcast)
                check(MPI_Bcast(priv, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
            else
                check(MPI_Allreduce(priv + BENCH_MAX_MSG, priv, (int)(size / 8), MPI_DOUBLE,
                                    MPI_SUM, MPI_COMM_WORLD),
                      "MPI_Allreduce");
        }
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (me == 0)
            bench_row_lat(opts, size, (bench_now_us() - t0) / (double)iters);
    }
}

static void run_put_lat(const struct bench_opts *o, const char *n) { rma_lat(o, n, 1); }
static void run_get_lat(const struct bench_opts *o, const char *n) { rma_lat(o, n, 0); }
static void run_put_bw(const struct bench_opts *o, const char *n) { rma_bw(o, n, 1); }
static void run_get_bw(const struct bench_opts *o, const char *n) { rma_bw(o, n, 0); }
static void run_fadd(const struct bench_opts *o, const char *n) { amo_lat(o, n, 1); }
static void run_cswap(const struct bench_opts *o, const char *n) { amo_lat(o, n, 0); }
static void run_bcast(const struct bench_opts *o, const char *n) { collective_lat(o, n, 1); }
static void run_allreduce(const struct bench_opts *o, const char *n) { collective_lat(o, n, 0); }

static const struct bench_entry benches[] = {
    {"put_lat", run_put_lat},     {"get_lat", run_get_lat},     {"put_bw", run_put_bw},
    {"get_bw", run_get_bw},       {"fadd_lat", run_fadd},       {"cswap_lat", run_cswap},
    {"barrier_lat", barrier_lat}, {"pingpong", pingpong},       {"bcast_lat", run_bcast},
    {"allreduce_lat", run_allreduce}, {"sendrecv_lat", sendrecv_lat},
    {"sendrecv_bw", sendrecv_bw},
};

int main(int argc, char **argv)
{
    struct bench_opts opts;
    if (bench_parse(argc, argv, usage, &opts) != 0)
        return 2;
    int found =
        bench_select("mpi-peer", usage, &opts, benches, BENCH_COUNT(benches), 1, 0);
    if (found == BENCH_REFUSED)
        return 2;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    /* The data, then one 8-byte word for the atomics. */
    check(MPI_Win_allocate((MPI_Aint)BENCH_MAX_MSG + 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                           &win),
          "MPI_Win_allocate");
    check(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
    if (posix_memalign((void **)&priv, 4096, 2 * BENCH_MAX_MSG) != 0) {
        fprintf(stderr, "mpi-peer: no memory for the buffers\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(priv, 1, 2 * BENCH_MAX_MSG);
    memset(base, 0, BENCH_MAX_MSG + 64);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    check(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");

    for (size_t b = 0; b < BENCH_COUNT(benches); b++) {
        if (found == BENCH_ALL || found == (int)b) {
            benches[b].run(&opts, benches[b].name);
            check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        }
    }

    check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    check(MPI_Win_free(&win), "MPI_Win_free");
    free(priv);
    MPI_Finalize();
    return 0;
}

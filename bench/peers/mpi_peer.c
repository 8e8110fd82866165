/*
 * mpi-peer: the MPI side of the comparison, with the same benchmark names
 * and table format as gk-bench:
 *
 *   mpirun -n 2 --bind-to core --mca osc sm build/bench/mpi-peer NAME
 *
 * put_lat / get_lat: MPI_Put (MPI_Get) + MPI_Win_flush in a passive
 * MPI_Win_lock_all epoch on a window from MPI_Win_allocate; put_bw: a window
 * of MPI_Put then one flush; fadd_lat: MPI_Fetch_and_op (MPI_SUM) + flush;
 * cswap_lat: MPI_Compare_and_swap + flush; barrier_lat: MPI_Barrier;
 * pingpong: MPI_Send/MPI_Recv one-way; bcast_lat: MPI_Bcast;
 * allreduce_lat: MPI_Allreduce of doubles.
 */
#include <mpi.h>
#include <stdint.h>

#include "../bench_common.h"

#define MAX_MSG ((size_t)4 << 20)
#define BW_WINDOW 64

static int me, npes;
static unsigned char *base, *priv;
static MPI_Win win;

static void rma_lat(const char *name, int is_put)
{
    if (me == 0)
        bench_header(name, "MPI", npes, is_put ? "us per MPI_Put + MPI_Win_flush"
                                               : "us per MPI_Get + MPI_Win_flush");
    BENCH_FOR_SIZES(size, 1, MAX_MSG) {
        long iters = bench_iters(size, 20000);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            double t0 = 0;
            for (long i = -iters / 10; i < iters; i++) {
                if (i == 0)
                    t0 = bench_now_us();
                if (is_put)
                    MPI_Put(priv, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
                else
                    MPI_Get(priv, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
                MPI_Win_flush(1, win);
            }
            bench_row(size, (bench_now_us() - t0) / (double)iters);
        }
    }
}

static void put_bw(void)
{
    if (me == 0)
        bench_header("put_bw", "MPI", npes, "MB/s");
    BENCH_FOR_SIZES(size, 1, MAX_MSG) {
        long loops = bench_bw_loops(size, BW_WINDOW);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            double t0 = 0;
            for (long l = -2; l < loops; l++) {
                if (l == 0)
                    t0 = bench_now_us();
                for (int w = 0; w < BW_WINDOW; w++)
                    MPI_Put(priv, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
                MPI_Win_flush(1, win);
            }
            bench_row(size, (double)size * BW_WINDOW * (double)loops / (bench_now_us() - t0));
        }
    }
}

static void amo_lat(const char *name, int is_fadd)
{
    long iters = 200000;
    uint64_t one = 1, old = 0, cmp = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        bench_header(name, "MPI", npes, "us per operation + MPI_Win_flush");
        double t0 = 0;
        for (long i = -1000; i < iters; i++) {
            if (i == 0)
                t0 = bench_now_us();
            if (is_fadd) {
                MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 1, 0, MPI_SUM, win);
            } else {
                uint64_t next = cmp + 1;
                MPI_Compare_and_swap(&next, &cmp, &old, MPI_UINT64_T, 1, 0, win);
            }
            MPI_Win_flush(1, win);
            cmp = old;
        }
        bench_row(8, (bench_now_us() - t0) / (double)iters);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void barrier_lat(void)
{
    long iters = npes > 4 ? 20000 : 100000;
    if (me == 0)
        bench_header("barrier_lat", "MPI", npes, "us per MPI_Barrier (size is the PE count)");
    for (long i = 0; i < 1000; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        bench_row((size_t)npes, (bench_now_us() - t0) / (double)iters);
}

static void pingpong(void)
{
    if (me == 0)
        bench_header("pingpong", "MPI", npes, "us one-way (MPI_Send/MPI_Recv)");
    BENCH_FOR_SIZES(size, 1, 65536) {
        long iters = bench_iters(size, 20000);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0;
        for (long i = -iters / 10; i < iters && me < 2; i++) {
            if (i == 0)
                t0 = bench_now_us();
            if (me == 0) {
                MPI_Send(priv, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(priv, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(priv, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(priv, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (me == 0)
            bench_row(size, (bench_now_us() - t0) / (double)iters / 2.0);
    }
}

static void collective_lat(const char *name, int is_bcast)
{
    if (me == 0)
        bench_header(name, "MPI", npes, is_bcast ? "us per MPI_Bcast from rank 0"
                                                 : "us per MPI_Allreduce of doubles (sum)");
    BENCH_FOR_SIZES(size, 8, 65536) {
        long iters = bench_iters(size, 20000);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0;
        for (long i = -iters / 10; i < iters; i++) {
            if (i == 0)
                t0 = bench_now_us();
            if (is_bcast)
                MPI_Bcast(priv, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD);
            else
                MPI_Allreduce(priv + MAX_MSG, priv, (int)(size / 8), MPI_DOUBLE, MPI_SUM,
                              MPI_COMM_WORLD);
        }
        if (is_bcast)
            MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0)
            bench_row(size, (bench_now_us() - t0) / (double)iters);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    const char *name = argc > 1 ? argv[1] : "all";
    int all = strcmp(name, "all") == 0;
    MPI_Win_allocate((MPI_Aint)MAX_MSG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    priv = malloc(2 * MAX_MSG);
    memset(priv, 1, 2 * MAX_MSG);
    memset(base, 0, MAX_MSG);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    int two = npes >= 2;
    if (two && (all || !strcmp(name, "put_lat")))
        rma_lat("put_lat", 1);
    if (two && (all || !strcmp(name, "get_lat")))
        rma_lat("get_lat", 0);
    if (two && (all || !strcmp(name, "put_bw")))
        put_bw();
    if (two && (all || !strcmp(name, "fadd_lat")))
        amo_lat("fadd_lat", 1);
    if (two && (all || !strcmp(name, "cswap_lat")))
        amo_lat("cswap_lat", 0);
    if (all || !strcmp(name, "barrier_lat"))
        barrier_lat();
    if (two && (all || !strcmp(name, "pingpong")))
        pingpong();
    if (all || !strcmp(name, "bcast_lat"))
        collective_lat("bcast_lat", 1);
    if (all || !strcmp(name, "allreduce_lat"))
        collective_lat("allreduce_lat", 0);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(priv);
    MPI_Finalize();
    return 0;
}

/*
 * mpi-dtype-peer: gk-bench's non-contiguous transfers (bench/gk_bench_dtype.c)
 * with MPI derived datatypes, the same names, layouts and tables:
 *
 *   mpirun -n 2 --bind-to core --mca osc sm mpi-dtype-peer NAME [options]
 *   mpirun.mpich -n 2 -bind-to core mpi-dtype-peer-mpich NAME [options]
 *
 * vector_put_lat, vector_get_lat: MPI_Put (MPI_Get) of one MPI_Type_vector
 * of BENCH_DT_TOTAL / size blocks of `size` bytes, stride 2 size, on both
 * sides, then MPI_Win_flush; subarray_put_lat, subarray_get_lat: the same
 * with MPI_Type_create_subarray (doubles, C order, rows of 2 size bytes of
 * which the middle `size` are taken). The window comes from
 * MPI_Win_allocate and the whole run is one passive MPI_Win_lock_all
 * epoch, so an operation + flush is what gk_put_typed + gk_quiet is: done
 * at the target when it returns. Each size alternates with MPI_Put (MPI_Get)
 * of the 4 MiB as MPI_BYTE, printed as NAME_contig. subarray_acc_lat:
 * MPI_Accumulate with MPI_SUM of the subarray, beside the accumulate of the
 * 4 MiB as MPI_DOUBLE. A row is the median of the iterations' times.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

#define PEER_NAME "mpi-dtype-peer"
#include "mpi_check.h"

static const char usage[] =
    "usage: mpirun -n 2 --bind-to core [--mca osc sm] mpi-dtype-peer NAME [options]\n"
    "  vector_put_lat, vector_get_lat, subarray_put_lat, subarray_get_lat,\n"
    "  subarray_acc_lat\n"
    "  (see bench/gk_bench_dtype.c)\n";

static int me, npes;
static unsigned char *priv, *base;
static MPI_Win win;

static MPI_Datatype dt_make(int subarray, size_t size)
{
    MPI_Datatype type;
    int rows = (int)(BENCH_DT_TOTAL / size);
    if (!subarray) {
        check(MPI_Type_vector(rows, (int)size, (int)(2 * size), MPI_BYTE, &type),
              "MPI_Type_vector");
    } else {
        int cols = (int)(size / sizeof(double));
        int sizes[2] = {rows, 2 * cols}, subsizes[2] = {rows, cols}, starts[2] = {0, cols / 2};
        check(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE,
                                       &type),
              "MPI_Type_create_subarray");
    }
    check(MPI_Type_commit(&type), "MPI_Type_commit");
    return type;
}

enum dt_op { DT_PUT, DT_GET, DT_ACC };

static void transfer(enum dt_op op, void *buf, int count, MPI_Datatype type)
{
    if (op == DT_PUT)
        check(MPI_Put(buf, count, type, 1, 0, count, type, win), "MPI_Put");
    else if (op == DT_GET)
        check(MPI_Get(buf, count, type, 1, 0, count, type, win), "MPI_Get");
    else
        check(MPI_Accumulate(buf, count, type, 1, 0, count, type, MPI_SUM, win),
              "MPI_Accumulate");
    check(MPI_Win_flush(1, win), "MPI_Win_flush");
}

static const char *const dt_unit[] = {"us per MPI_Put + MPI_Win_flush",
                                      "us per MPI_Get + MPI_Win_flush",
                                      "us per MPI_Accumulate + MPI_Win_flush"};

static void dt_lat(const struct bench_opts *opts, const char *name, int subarray,
                   enum dt_op op)
{
    enum { MAX_ROWS = 16 };
    size_t sizes[MAX_ROWS];
    double typed_us[MAX_ROWS], contig_us[MAX_ROWS];
    int rows = 0;
    BENCH_FOR_SIZES(opts, size, 8, BENCH_DT_MAX_BLOCK) {
        MPI_Datatype type = dt_make(subarray, size);
        long iters = opts->iters > 0 ? opts->iters : BENCH_DT_ITERS;
        if (iters > BENCH_DT_MAX_ITERS)
            iters = BENCH_DT_MAX_ITERS;
        long warmup = opts->warmup >= 0 ? opts->warmup : 2;
        static double t_typed[BENCH_DT_MAX_ITERS], t_contig[BENCH_DT_MAX_ITERS];
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (me == 0) {
            for (long i = -warmup; i < iters; i++) {
                double t0 = bench_now_us();
                transfer(op, priv, 1, type);
                double t1 = bench_now_us();
                if (op == DT_ACC)
                    transfer(op, priv, (int)(BENCH_DT_TOTAL / sizeof(double)), MPI_DOUBLE);
                else
                    transfer(op, priv, (int)BENCH_DT_TOTAL, MPI_BYTE);
                if (i >= 0) {
                    t_typed[i] = t1 - t0;
                    t_contig[i] = bench_now_us() - t1;
                }
            }
            sizes[rows] = size;
            typed_us[rows] = bench_median(t_typed, iters);
            contig_us[rows] = bench_median(t_contig, iters);
            rows++;
        }
        check(MPI_Type_free(&type), "MPI_Type_free");
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (me != 0)
        return;
    char contig_name[64];
    snprintf(contig_name, sizeof(contig_name), "%s_contig", name);
    bench_header(name, "MPI", npes,
                 subarray ? "4 MiB as MPI_Type_create_subarray of doubles, rows of `size` "
                            "bytes, both sides"
                          : "4 MiB as MPI_Type_vector of blocks of `size` bytes, stride 2 "
                            "size, both sides",
                 dt_unit[op]);
    for (int r = 0; r < rows; r++)
        bench_row_lat(opts, sizes[r], typed_us[r]);
    bench_header(contig_name, "MPI", npes,
                 op == DT_ACC ? "the same 4 MiB as MPI_DOUBLE, alternating with the rows above"
                              : "the same 4 MiB as MPI_BYTE, alternating with the rows above",
                 dt_unit[op]);
    for (int r = 0; r < rows; r++)
        bench_row_lat(opts, sizes[r], contig_us[r]);
}

static void run_vput(const struct bench_opts *o, const char *n) { dt_lat(o, n, 0, DT_PUT); }
static void run_vget(const struct bench_opts *o, const char *n) { dt_lat(o, n, 0, DT_GET); }
static void run_sput(const struct bench_opts *o, const char *n) { dt_lat(o, n, 1, DT_PUT); }
static void run_sget(const struct bench_opts *o, const char *n) { dt_lat(o, n, 1, DT_GET); }
static void run_sacc(const struct bench_opts *o, const char *n) { dt_lat(o, n, 1, DT_ACC); }

static const struct bench_entry benches[] = {
    {"vector_put_lat", run_vput},
    {"vector_get_lat", run_vget},
    {"subarray_put_lat", run_sput},
    {"subarray_get_lat", run_sget},
    {"subarray_acc_lat", run_sacc},
};

int main(int argc, char **argv)
{
    struct bench_opts opts;
    if (bench_parse(argc, argv, usage, &opts) != 0)
        return 2;
    int found =
        bench_select("mpi-dtype-peer", usage, &opts, benches, BENCH_COUNT(benches), 0, 0);
    if (found == BENCH_REFUSED)
        return 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (!bench_two_or_skip(me, npes, opts.name, "ranks")) {
        MPI_Finalize();
        return 0;
    }
    size_t span = 2 * BENCH_DT_TOTAL;
    if (posix_memalign((void **)&priv, 4096, span) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(priv, 1, span);
    check(MPI_Win_allocate((MPI_Aint)span, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
          "MPI_Win_allocate");
    check(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
    memset(base, 0, span);
    check(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    benches[found].run(&opts, opts.name);
    check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    check(MPI_Win_free(&win), "MPI_Win_free");
    free(priv);
    MPI_Finalize();
    return 0;
}

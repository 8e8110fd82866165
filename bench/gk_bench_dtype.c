/*
 * gk_bench_dtype.c: gk-bench's non-contiguous transfers, each beside the
 * contiguous transfer of the same bytes (docs/DATATYPES.md, "Performance").
 *
 * Every row moves BENCH_DT_TOTAL (4 MiB) of data with one blocking
 * gk_put_typed (gk_get_typed) + gk_quiet, the same type on both sides:
 *
 *   vector_*    gk_type_vector of BENCH_DT_TOTAL / size blocks of `size`
 *               bytes, stride 2 * size (a block, then a gap of a block);
 *   subarray_*  gk_type_subarray of doubles, C order: an array of
 *               BENCH_DT_TOTAL / size rows of 2 * size bytes, and in each
 *               row the `size` bytes from the quarter point on (the
 *               middle half of the columns).
 *
 * subarray_acc_lat is the subarray with one gk_accumulate_typed (GK_OP_SUM
 * on the doubles) + gk_quiet, beside the contiguous accumulate of the same
 * 4 MiB of doubles (no floor: a loop of plain adds would not be atomic).
 *
 * So the span touched is 8 MiB, the symmetric buffer's size. Each size's
 * rows alternate, iteration by iteration, with gk_put (gk_get) of the 4 MiB
 * contiguous, which is printed as a second table, NAME_contig, with the
 * same sizes: compare_dtype.py divides the two for the "typed vs
 * contiguous" target. Where the peer's buffer is mapped (one node), a
 * third, NAME_floor, is the same strided copy as a plain loop of memcpy
 * through gk_ptr: what any pack-on-the-fly copy costs on this memory,
 * the cost of the runs apart from gasket's. A row is the median of the
 * iterations' times (BENCH_DT_ITERS, or --iters).
 * bench/peers/mpi_dtype_peer.c does the same with MPI.
 */
#include <gasket.h>

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "gk_bench.h"

#define me bench_me
#define npes bench_npes
#define sym bench_sym
#define priv bench_priv

enum dt_shape { DT_VECTOR, DT_SUBARRAY };
enum dt_op { DT_PUT, DT_GET, DT_ACC };

static gk_type_t dt_make(enum dt_shape shape, size_t size)
{
    gk_type_t type = GK_TYPE_NULL;
    size_t rows = BENCH_DT_TOTAL / size;
    if (shape == DT_VECTOR) {
        bench_check(gk_type_vector(rows, size, (ptrdiff_t)(2 * size), GK_TYPE_BYTE, &type),
                    "gk_type_vector");
    } else {
        size_t cols = size / sizeof(double);
        size_t sizes[2] = {rows, 2 * cols}, subsizes[2] = {rows, cols};
        size_t starts[2] = {0, cols / 2};
        bench_check(gk_type_subarray(2, sizes, subsizes, starts, GK_ORDER_C, GK_TYPE_DOUBLE,
                                     &type),
                    "gk_type_subarray");
    }
    bench_check(gk_type_commit(type), "gk_type_commit");
    return type;
}

/* The floor: the type's runs copied by a loop of memcpy, `remote` the
 * peer's buffer through its mapping. Both shapes are rows of `size`
 * bytes every 2 * size, the subarray's from the quarter point of a row. */
static void dt_floor_copy(enum dt_shape shape, size_t size, char *remote, enum dt_op op)
{
    size_t rows = BENCH_DT_TOTAL / size, first = shape == DT_VECTOR ? 0 : size / 2;
    char *dst = op == DT_PUT ? remote : (char *)priv;
    const char *src = op == DT_PUT ? (char *)priv : remote;
    for (size_t r = 0; r < rows; r++)
        memcpy(dst + first + r * 2 * size, src + first + r * 2 * size, size);
    atomic_thread_fence(memory_order_seq_cst); /* as gk_quiet's on one node */
}

/* One typed operation of the row's type, then its contiguous twin. */
static void dt_typed(enum dt_op op, gk_type_t type)
{
    if (op == DT_PUT)
        bench_check(gk_put_typed(1, sym, 1, type, priv, 1, type), "gk_put_typed");
    else if (op == DT_GET)
        bench_check(gk_get_typed(1, priv, 1, type, sym, 1, type), "gk_get_typed");
    else
        bench_check(gk_accumulate_typed(1, sym, 1, type, priv, 1, type, GK_OP_SUM),
                    "gk_accumulate_typed");
    bench_check(gk_quiet(), "gk_quiet");
}

static void dt_contig(enum dt_op op)
{
    size_t n = BENCH_DT_TOTAL / sizeof(double);
    if (op == DT_PUT)
        bench_check(gk_put(1, sym, priv, BENCH_DT_TOTAL), "gk_put");
    else if (op == DT_GET)
        bench_check(gk_get(1, priv, sym, BENCH_DT_TOTAL), "gk_get");
    else
        bench_check(gk_accumulate_typed(1, sym, n, GK_TYPE_DOUBLE, priv, n, GK_TYPE_DOUBLE,
                                        GK_OP_SUM),
                    "gk_accumulate_typed");
    bench_check(gk_quiet(), "gk_quiet");
}

static const char *const dt_unit[] = {"us per gk_put_typed + gk_quiet",
                                      "us per gk_get_typed + gk_quiet",
                                      "us per gk_accumulate_typed + gk_quiet"};
static const char *const dt_contig_unit[] = {
    "us per gk_put + gk_quiet", "us per gk_get + gk_quiet",
    "us per gk_accumulate_typed of contiguous doubles + gk_quiet"};

static void dt_lat(const struct bench_opts *opts, const char *name, enum dt_shape shape,
                   enum dt_op op)
{
    if (!bench_need_two(name))
        return;
    enum { MAX_ROWS = 16 };
    size_t sizes[MAX_ROWS];
    double typed_us[MAX_ROWS], contig_us[MAX_ROWS], floor_us[MAX_ROWS];
    int rows = 0;
    char *remote = op == DT_ACC ? NULL : gk_ptr(sym, 1); /* NULL across hosts: no floor */
    size_t lo = shape == DT_VECTOR ? 8 : sizeof(double);
    BENCH_FOR_SIZES(opts, size, lo, BENCH_DT_MAX_BLOCK) {
        gk_type_t type = dt_make(shape, size);
        long iters = opts->iters > 0 ? opts->iters : BENCH_DT_ITERS;
        if (iters > BENCH_DT_MAX_ITERS)
            iters = BENCH_DT_MAX_ITERS;
        long warmup = opts->warmup >= 0 ? opts->warmup : 2;
        static double t_typed[BENCH_DT_MAX_ITERS], t_contig[BENCH_DT_MAX_ITERS],
            t_floor[BENCH_DT_MAX_ITERS];
        bench_check(gk_barrier(), "gk_barrier");
        if (me == 0) {
            for (long i = -warmup; i < iters; i++) {
                double t0 = bench_now_us();
                dt_typed(op, type);
                double t1 = bench_now_us();
                dt_contig(op);
                double t2 = bench_now_us();
                if (remote != NULL)
                    dt_floor_copy(shape, size, remote, op);
                if (i >= 0) {
                    t_typed[i] = t1 - t0;
                    t_contig[i] = t2 - t1;
                    t_floor[i] = bench_now_us() - t2;
                }
            }
            sizes[rows] = size;
            typed_us[rows] = bench_median(t_typed, iters);
            contig_us[rows] = bench_median(t_contig, iters);
            floor_us[rows] = bench_median(t_floor, iters);
            rows++;
        }
        bench_check(gk_type_free(&type), "gk_type_free");
    }
    bench_check(gk_barrier(), "gk_barrier");
    if (me != 0)
        return;
    char contig_name[64];
    snprintf(contig_name, sizeof(contig_name), "%s_contig", name);
    bench_header(name, "gasket", npes,
                 shape == DT_VECTOR
                     ? "4 MiB as a vector of blocks of `size` bytes, stride 2 size, both sides"
                     : "4 MiB as a 2-D subarray of doubles, rows of `size` bytes, both sides",
                 dt_unit[op]);
    for (int r = 0; r < rows; r++)
        bench_row_lat(opts, sizes[r], typed_us[r]);
    bench_header(contig_name, "gasket", npes,
                 "the same 4 MiB contiguous, alternating with the rows above",
                 dt_contig_unit[op]);
    for (int r = 0; r < rows; r++)
        bench_row_lat(opts, sizes[r], contig_us[r]);
    if (remote == NULL)
        return;
    char floor_name[64];
    snprintf(floor_name, sizeof(floor_name), "%s_floor", name);
    bench_header(floor_name, "memcpy", npes,
                 "the rows above as a loop of memcpy through gk_ptr, alternating with them",
                 "us per strided copy");
    for (int r = 0; r < rows; r++)
        bench_row_lat(opts, sizes[r], floor_us[r]);
}

void bench_vector_put_lat(const struct bench_opts *o, const char *n)
{
    dt_lat(o, n, DT_VECTOR, DT_PUT);
}
void bench_vector_get_lat(const struct bench_opts *o, const char *n)
{
    dt_lat(o, n, DT_VECTOR, DT_GET);
}
void bench_subarray_put_lat(const struct bench_opts *o, const char *n)
{
    dt_lat(o, n, DT_SUBARRAY, DT_PUT);
}
void bench_subarray_get_lat(const struct bench_opts *o, const char *n)
{
    dt_lat(o, n, DT_SUBARRAY, DT_GET);
}
void bench_subarray_acc_lat(const struct bench_opts *o, const char *n)
{
    dt_lat(o, n, DT_SUBARRAY, DT_ACC);
}

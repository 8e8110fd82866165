/*
 * halo2d: a 2-D halo exchange with gasket's typed puts, beside
 * apps/halo2d_mpi.c (MPI_Type_vector + MPI_Sendrecv), the same grid,
 * sweep and check (halo2d_common.h).
 *
 *   gasket-run -n 4 build/apps/halo2d [--n 64 | --nx X --ny Y] [--iters 100]
 *                                     [--no-check]
 *
 * Each PE owns an ny x nx tile of a periodic grid of PR x PC tiles, kept
 * with a one-cell halo in two symmetric buffers, one per parity of the
 * sweep. Sweep t reads buffer t % 2 and writes buffer (t + 1) % 2. Before
 * it, each PE writes its edges of buffer t % 2 into its four neighbours'
 * halos of buffer t % 2: north and south rows with gk_put (contiguous),
 * west and east columns with gk_put_typed and a gk_type_vector of ny
 * doubles, stride nx + 2. Then gk_fence and one gk_atomic_add_u64 on
 * each neighbour's arrival counter of parity t % 2; a PE sweeps once that
 * counter reaches 4 (t / 2 + 1). One counter per parity, because a
 * neighbour may already send sweep t + 1's edges while another's for
 * sweep t are still on their way (never sweep t + 2's: those wait for
 * this PE's t + 1 edges).
 *
 * Why two buffers are enough: a PE writes a neighbour's buffer t % 2 halo
 * in sweep t; the neighbour last read that halo in sweep t - 2, and the
 * writer got past sweep t - 1's wait only after the neighbour's sweep t - 1
 * edges arrived, which the neighbour sent after finishing sweep t - 2.
 *
 * Prints the grid, ms per sweep (the exchange and the wait for it, and the
 * whole sweep), and the check: every cell against a serial run of the
 * whole grid; the exit status is 1 when a cell differs.
 */
#include <gasket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "halo2d_common.h"

static void ok_or_die(int status, const char *what)
{
    if (status != GK_OK) {
        char why[200];
        snprintf(why, sizeof(why), "halo2d: %s failed: %s", what, gk_strerror(status));
        gk_abort(1, why);
    }
}

int main(int argc, char **argv)
{
    struct halo_opts o;
    if (halo_parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: gasket-run -n N halo2d [--n N | --nx X --ny Y] [--iters T] "
                        "[--no-check]\n");
        return 2;
    }
    ok_or_die(gk_init(), "gk_init");
    int me = gk_my_pe(), npes = gk_n_pes();
    struct halo_grid g;
    halo_grid_init(&g, me, npes);
    long nx = o.nx, ny = o.ny;
    size_t cells = (size_t)(nx + 2) * (size_t)(ny + 2);
    double *buf[2] = {gk_calloc(cells, sizeof(double)), gk_calloc(cells, sizeof(double))};
    uint64_t *arrived = gk_calloc(2, sizeof(uint64_t));
    if (buf[0] == NULL || buf[1] == NULL || arrived == NULL)
        gk_abort(1, "halo2d: no room in the symmetric heap (raise GK_HEAP_SIZE)");
    halo_fill(buf[0], &o, &g);

    gk_type_t column = GK_TYPE_NULL;
    ok_or_die(gk_type_vector((size_t)ny, 1, (ptrdiff_t)(nx + 2), GK_TYPE_DOUBLE, &column),
              "gk_type_vector");
    ok_or_die(gk_type_commit(column), "gk_type_commit");
    ok_or_die(gk_barrier(), "gk_barrier");

    double t_exchange = 0, t0 = gk_wtime();
    for (long t = 0; t < o.iters; t++) {
        double *a = buf[t % 2];
        double te = gk_wtime();
        /* My first row is my north neighbour's south halo, and so on. */
        ok_or_die(gk_put(g.north, &HALO_AT(a, nx, ny + 1, 1), &HALO_AT(a, nx, 1, 1),
                         (size_t)nx * sizeof(double)),
                  "gk_put");
        ok_or_die(gk_put(g.south, &HALO_AT(a, nx, 0, 1), &HALO_AT(a, nx, ny, 1),
                         (size_t)nx * sizeof(double)),
                  "gk_put");
        ok_or_die(gk_put_typed(g.west, &HALO_AT(a, nx, 1, nx + 1), 1, column,
                               &HALO_AT(a, nx, 1, 1), 1, column),
                  "gk_put_typed");
        ok_or_die(gk_put_typed(g.east, &HALO_AT(a, nx, 1, 0), 1, column,
                               &HALO_AT(a, nx, 1, nx), 1, column),
                  "gk_put_typed");
        ok_or_die(gk_fence(), "gk_fence");
        uint64_t *count = &arrived[t % 2];
        ok_or_die(gk_atomic_add_u64(g.north, count, 1), "gk_atomic_add_u64");
        ok_or_die(gk_atomic_add_u64(g.south, count, 1), "gk_atomic_add_u64");
        ok_or_die(gk_atomic_add_u64(g.west, count, 1), "gk_atomic_add_u64");
        ok_or_die(gk_atomic_add_u64(g.east, count, 1), "gk_atomic_add_u64");
        ok_or_die(gk_wait_until_u64(count, GK_CMP_GE, 4 * (uint64_t)(t / 2 + 1)),
                  "gk_wait_until_u64");
        t_exchange += gk_wtime() - te;
        halo_sweep(buf[(t + 1) % 2], a, nx, ny);
    }
    double t_total = gk_wtime() - t0;
    ok_or_die(gk_quiet(), "gk_quiet");
    ok_or_die(gk_barrier(), "gk_barrier");

    double *result = buf[o.iters % 2];
    double local[3] = {halo_tile_sum(result, nx, ny), t_exchange, t_total}, sums[3];
    ok_or_die(gk_allreduce(sums, local, 3, GK_DTYPE_DOUBLE, GK_OP_SUM), "gk_allreduce");
    double bad_local = 0, bad = 0, want = 0;
    if (o.check) {
        long n_bad = halo_check(result, &o, &g, &want);
        bad_local = n_bad < 0 ? 1 : (double)n_bad;
    }
    ok_or_die(gk_allreduce(&bad, &bad_local, 1, GK_DTYPE_DOUBLE, GK_OP_SUM), "gk_allreduce");
    int status = bad > 0 ? 1 : 0;
    if (me == 0) {
        printf("halo2d (gasket): %d PEs as %dx%d, tile %ldx%ld, %ld sweeps\n", npes, g.pr,
               g.pc, ny, nx, o.iters);
        printf("ms per sweep: exchange %.4f total %.4f (average over PEs)\n",
               sums[1] / npes / (double)o.iters * 1e3, sums[2] / npes / (double)o.iters * 1e3);
        printf("checksum %.10e", sums[0]);
        if (o.check)
            printf(" serial %.10e: %s (%.0f cells differ)\n", want,
                   status == 0 ? "verified" : "FAILED", bad);
        else
            printf(" (not checked)\n");
    }
    ok_or_die(gk_type_free(&column), "gk_type_free");
    gk_free(arrived);
    gk_free(buf[1]);
    gk_free(buf[0]);
    ok_or_die(gk_finalize(), "gk_finalize");
    return status;
}

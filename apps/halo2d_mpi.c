/*
 * halo2d_mpi: apps/halo2d.c with MPI two-sided messages: the same grid,
 * tiles, sweep and check (halo2d_common.h), timed the same way.
 *
 *   mpirun -n 4 build/apps/halo2d_mpi [--n 64 | --nx X --ny Y] [--iters 100]
 *                                     [--no-check]
 *
 * Before each sweep four MPI_Sendrecv calls fill the halo: rows (north,
 * south) as nx MPI_DOUBLEs, columns (west, east) as one MPI_Type_vector of
 * ny doubles, stride nx + 2, on both sides. Two buffers, as in halo2d.c,
 * though two-sided messages need only one.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "halo2d_common.h"

static void ok_or_die(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "halo2d_mpi: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, npes;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    struct halo_opts o;
    if (halo_parse(argc, argv, &o) != 0) {
        if (me == 0)
            fprintf(stderr, "usage: mpirun -n N halo2d_mpi [--n N | --nx X --ny Y] "
                            "[--iters T] [--no-check]\n");
        MPI_Finalize();
        return 2;
    }
    struct halo_grid g;
    halo_grid_init(&g, me, npes);
    long nx = o.nx, ny = o.ny;
    size_t cells = (size_t)(nx + 2) * (size_t)(ny + 2);
    double *buf[2] = {calloc(cells, sizeof(double)), calloc(cells, sizeof(double))};
    if (buf[0] == NULL || buf[1] == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    halo_fill(buf[0], &o, &g);

    MPI_Datatype column;
    ok_or_die(MPI_Type_vector((int)ny, 1, (int)(nx + 2), MPI_DOUBLE, &column), "MPI_Type_vector");
    ok_or_die(MPI_Type_commit(&column), "MPI_Type_commit");
    MPI_Barrier(MPI_COMM_WORLD);

    double t_exchange = 0, t0 = MPI_Wtime();
    int n = (int)nx;
    for (long t = 0; t < o.iters; t++) {
        double *a = buf[t % 2];
        double te = MPI_Wtime();
        /* Northward: my first row to the north, my south halo from the south. */
        ok_or_die(MPI_Sendrecv(&HALO_AT(a, nx, 1, 1), n, MPI_DOUBLE, g.north, 0,
                               &HALO_AT(a, nx, ny + 1, 1), n, MPI_DOUBLE, g.south, 0,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
        ok_or_die(MPI_Sendrecv(&HALO_AT(a, nx, ny, 1), n, MPI_DOUBLE, g.south, 1,
                               &HALO_AT(a, nx, 0, 1), n, MPI_DOUBLE, g.north, 1,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
        ok_or_die(MPI_Sendrecv(&HALO_AT(a, nx, 1, 1), 1, column, g.west, 2,
                               &HALO_AT(a, nx, 1, nx + 1), 1, column, g.east, 2,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
        ok_or_die(MPI_Sendrecv(&HALO_AT(a, nx, 1, nx), 1, column, g.east, 3,
                               &HALO_AT(a, nx, 1, 0), 1, column, g.west, 3, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
        t_exchange += MPI_Wtime() - te;
        halo_sweep(buf[(t + 1) % 2], a, nx, ny);
    }
    double t_total = MPI_Wtime() - t0;

    double *result = buf[o.iters % 2];
    double local[3] = {halo_tile_sum(result, nx, ny), t_exchange, t_total}, sums[3];
    MPI_Allreduce(local, sums, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double bad_local = 0, bad = 0, want = 0;
    if (o.check) {
        long n_bad = halo_check(result, &o, &g, &want);
        bad_local = n_bad < 0 ? 1 : (double)n_bad;
    }
    MPI_Allreduce(&bad_local, &bad, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int status = bad > 0 ? 1 : 0;
    if (me == 0) {
        printf("halo2d (MPI): %d ranks as %dx%d, tile %ldx%ld, %ld sweeps\n", npes, g.pr, g.pc,
               ny, nx, o.iters);
        printf("ms per sweep: exchange %.4f total %.4f (average over ranks)\n",
               sums[1] / npes / (double)o.iters * 1e3, sums[2] / npes / (double)o.iters * 1e3);
        printf("checksum %.10e", sums[0]);
        if (o.check)
            printf(" serial %.10e: %s (%.0f cells differ)\n", want,
                   status == 0 ? "verified" : "FAILED", bad);
        else
            printf(" (not checked)\n");
    }
    MPI_Type_free(&column);
    free(buf[1]);
    free(buf[0]);
    MPI_Finalize();
    return status;
}

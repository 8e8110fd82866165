/*
 * halo2d_common.h: what apps/halo2d.c (gasket) and apps/halo2d_mpi.c (MPI)
 * share, so that the two compute the same thing and can be timed against
 * each other: the command line, the process grid, the initial field, the
 * Jacobi sweep and the check against a serial run of the whole grid.
 *
 * The global grid is PR * ny rows by PC * nx columns of doubles, periodic
 * in both directions; each process owns an ny x nx tile, stored with a
 * halo of one cell: (ny + 2) rows of (nx + 2) doubles, C order. A sweep
 * replaces every cell by the mean of itself and its four neighbours.
 * Rows of the halo (north, south) are contiguous; columns (east, west) are
 * a vector of ny doubles with stride nx + 2.
 *
 * Needs neither gasket nor MPI; every function is static.
 */
#ifndef GK_APPS_HALO2D_COMMON_H
#define GK_APPS_HALO2D_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct halo_opts {
    long nx, ny; /* the tile, interior cells */
    long iters;
    int check; /* compare with the serial run */
};

struct halo_grid {
    int pr, pc;       /* process grid */
    int row, col;     /* this process's place */
    int north, south; /* neighbours (periodic); may be this process */
    int west, east;
};

static int halo_parse(int argc, char **argv, struct halo_opts *o)
{
    o->nx = 64;
    o->ny = 64;
    o->iters = 100;
    o->check = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            o->nx = o->ny = atol(argv[++i]);
        } else if (strcmp(argv[i], "--nx") == 0 && i + 1 < argc) {
            o->nx = atol(argv[++i]);
        } else if (strcmp(argv[i], "--ny") == 0 && i + 1 < argc) {
            o->ny = atol(argv[++i]);
        } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            o->iters = atol(argv[++i]);
        } else if (strcmp(argv[i], "--no-check") == 0) {
            o->check = 0;
        } else {
            return -1;
        }
    }
    return o->nx > 0 && o->ny > 0 && o->iters > 0 ? 0 : -1;
}

/* The most nearly square pr x pc = n, pr <= pc. */
static void halo_grid_init(struct halo_grid *g, int me, int n)
{
    int pr = 1;
    for (int d = 1; d * d <= n; d++)
        if (n % d == 0)
            pr = d;
    g->pr = pr;
    g->pc = n / pr;
    g->row = me / g->pc;
    g->col = me % g->pc;
    g->north = ((g->row + g->pr - 1) % g->pr) * g->pc + g->col;
    g->south = ((g->row + 1) % g->pr) * g->pc + g->col;
    g->west = g->row * g->pc + (g->col + g->pc - 1) % g->pc;
    g->east = g->row * g->pc + (g->col + 1) % g->pc;
}

static double halo_initial(long r, long c)
{
    unsigned long h = (unsigned long)(r * 2654435761L + c * 40503L + 977L);
    h ^= h >> 13;
    h *= 0x5bd1e995UL;
    h ^= h >> 15;
    return (double)(h % 1000003UL) / 1000003.0;
}

#define HALO_AT(a, nx, r, c) ((a)[(size_t)(r) * (size_t)((nx) + 2) + (size_t)(c)])

/* Fills a tile's interior (rows and columns from 1) for the process at
 * (row, col) of the grid; the halo is left for the exchange. */
static void halo_fill(double *a, const struct halo_opts *o, const struct halo_grid *g)
{
    for (long r = 1; r <= o->ny; r++)
        for (long c = 1; c <= o->nx; c++)
            HALO_AT(a, o->nx, r, c) = halo_initial(g->row * o->ny + r - 1, g->col * o->nx + c - 1);
}

/* One sweep of the interior from `in` (halo filled) into `out`. */
static void halo_sweep(double *restrict out, const double *restrict in, long nx, long ny)
{
    for (long r = 1; r <= ny; r++)
        for (long c = 1; c <= nx; c++)
            HALO_AT(out, nx, r, c) =
                0.2 * (HALO_AT(in, nx, r, c) + HALO_AT(in, nx, r - 1, c) +
                       HALO_AT(in, nx, r + 1, c) + HALO_AT(in, nx, r, c - 1) +
                       HALO_AT(in, nx, r, c + 1));
}

/*
 * The serial run: the whole periodic grid, `iters` sweeps, as one tile
 * whose halo is copied from its own opposite edges. Returns the number of
 * cells of this process's tile `a` that differ from it by more than 1e-12
 * (-1 when out of memory) and the grid's sum in *sum_p.
 */
static long halo_check(const double *a, const struct halo_opts *o, const struct halo_grid *g,
                       double *sum_p)
{
    long gx = o->nx * g->pc, gy = o->ny * g->pr;
    size_t cells = (size_t)(gx + 2) * (size_t)(gy + 2);
    double *u = calloc(cells, sizeof(double)), *v = calloc(cells, sizeof(double));
    if (u == NULL || v == NULL) {
        free(u);
        free(v);
        return -1;
    }
    for (long r = 1; r <= gy; r++)
        for (long c = 1; c <= gx; c++)
            HALO_AT(u, gx, r, c) = halo_initial(r - 1, c - 1);
    for (long t = 0; t < o->iters; t++) {
        for (long c = 1; c <= gx; c++) {
            HALO_AT(u, gx, 0, c) = HALO_AT(u, gx, gy, c);
            HALO_AT(u, gx, gy + 1, c) = HALO_AT(u, gx, 1, c);
        }
        for (long r = 1; r <= gy; r++) {
            HALO_AT(u, gx, r, 0) = HALO_AT(u, gx, r, gx);
            HALO_AT(u, gx, r, gx + 1) = HALO_AT(u, gx, r, 1);
        }
        halo_sweep(v, u, gx, gy);
        double *w = u;
        u = v;
        v = w;
    }
    long bad = 0;
    double sum = 0;
    for (long r = 1; r <= gy; r++)
        for (long c = 1; c <= gx; c++)
            sum += HALO_AT(u, gx, r, c);
    for (long r = 1; r <= o->ny; r++)
        for (long c = 1; c <= o->nx; c++) {
            double want = HALO_AT(u, gx, g->row * o->ny + r, g->col * o->nx + c);
            if (fabs(HALO_AT(a, o->nx, r, c) - want) > 1e-12)
                bad++;
        }
    free(u);
    free(v);
    *sum_p = sum;
    return bad;
}

/* The sum of a tile's interior. */
static double halo_tile_sum(const double *a, long nx, long ny)
{
    double sum = 0;
    for (long r = 1; r <= ny; r++)
        for (long c = 1; c <= nx; c++)
            sum += HALO_AT(a, nx, r, c);
    return sum;
}

#endif /* GK_APPS_HALO2D_COMMON_H */

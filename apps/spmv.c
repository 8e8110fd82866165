/*
 * spmv: y = A*x for the 9-point stencil matrix on an N x N grid (the SPMV
 * kernel of the signaling-put-upc seed), in the four halo-exchange variants, with the time split
 * into computation, send, receive-wait and barrier; checks y against a
 * serial computation of the same rows.
 *
 *   gasket-run -n 4 build/apps/spmv [--n 1024] [--iters 100] [--variant NAME|all]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

static double x_of(long g)
{
    return 1.0 + (double)(g % 17) * 0.25;
}

static void die(const char *what, int status)
{
    fprintf(stderr, "spmv: %s failed: %s\n", what, gk_strerror(status));
    gk_abort(1, what);
}

int main(int argc, char **argv)
{
    int n = 1024, iters = 100, only = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            only = stencil_variant_parse(name);
            if (only < 0) {
                fprintf(stderr, "spmv: unknown --variant %s\n", name);
                return 2;
            }
            if (only == STENCIL_VARIANTS)
                only = -1; /* all */
        } else {
            fprintf(stderr, "usage: spmv [--n N] [--iters K] [--variant NAME|all]\n");
            return 2;
        }
    }
    int status = gk_init();
    if (status != GK_OK)
        die("gk_init", status);
    if (n < gk_n_pes() || iters < 1) {
        fprintf(stderr, "spmv: --n %d must be at least the PE count and --iters >= 1\n", n);
        gk_abort(2, "bad arguments");
    }
    struct stencil s;
    if ((status = stencil_create(&s, n)) != GK_OK)
        die("stencil_create", status);
    size_t mine = (size_t)s.rows * (size_t)n;
    double *y = malloc(mine * sizeof(double));
    double *x = stencil_x(&s);
    for (size_t r = 0; r < mine; r++)
        x[r] = x_of((long)s.row0 * n + (long)r);

    int failures = 0;
    if (s.me == 0)
        printf("# spmv: %d x %d grid, %d PEs, %d products per variant; ms per product "
               "(average over PEs)\n# %-16s %9s %9s %9s %9s %9s %s\n",
               n, n, s.npes, iters, "variant", "total", "compute", "send", "recv_wait",
               "barrier", "check");
    for (int v = 0; v < STENCIL_VARIANTS; v++) {
        if (only >= 0 && v != only)
            continue;
        struct stencil_times t = {0, 0, 0, 0}, warm = {0, 0, 0, 0};
        if ((status = stencil_spmv(&s, (enum stencil_variant)v, y, &warm)) != GK_OK)
            die("stencil_spmv", status);
        gk_barrier();
        double start = stencil_now();
        for (int it = 0; it < iters; it++)
            if ((status = stencil_spmv(&s, (enum stencil_variant)v, y, &t)) != GK_OK)
                die("stencil_spmv", status);
        double total = stencil_now() - start;
        gk_barrier();
        long bad = 0;
        for (size_t r = 0; r < mine; r++) {
            long g = (long)s.row0 * n + (long)r;
            if (y[r] != stencil_serial_row(n, g, x_of))
                bad++;
        }
        double local[6] = {total, t.compute, t.send, t.recv_wait, t.barrier, (double)bad};
        double sum[6];
        if ((status = gk_allreduce(sum, local, 6, GK_DTYPE_DOUBLE, GK_OP_SUM)) != GK_OK)
            die("gk_allreduce", status);
        if (s.me == 0) {
            double scale = 1e3 / iters / s.npes;
            printf("  %-16s %9.4f %9.4f %9.4f %9.4f %9.4f %s\n", stencil_variant_names[v],
                   sum[0] * scale, sum[1] * scale, sum[2] * scale, sum[3] * scale,
                   sum[4] * scale, sum[5] == 0 ? "ok" : "WRONG");
        }
        if (sum[5] != 0)
            failures++;
    }
    free(y);
    stencil_destroy(&s);
    gk_finalize();
    return failures ? 1 : 0;
}

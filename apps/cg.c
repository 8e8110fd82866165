/*
 * cg: conjugate gradient on the 9-point stencil matrix (SPD) of an N x N
 * grid, with b = A * ones so the answer is known, using the distributed
 * SPMV (one of the four halo variants) and gk_allreduce for the dot
 * products. Prints iterations, time, and the split of the time; checks the
 * residual falls below the tolerance and the solution is ones.
 *
 *   gasket-run -n 4 build/apps/cg [--n 1024] [--tol 1e-8] [--variant NAME|all]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

static double one(long g)
{
    (void)g;
    return 1.0;
}

static void die(const char *what, int status)
{
    fprintf(stderr, "cg: %s failed: %s\n", what, gk_strerror(status));
    gk_abort(1, what);
}

static double dot(const double *a, const double *b, size_t n, double *reduce_time)
{
    double local = 0, global;
    for (size_t i = 0; i < n; i++)
        local += a[i] * b[i];
    double t0 = stencil_now();
    int status = gk_allreduce(&global, &local, 1, GK_DTYPE_DOUBLE, GK_OP_SUM);
    if (status != GK_OK)
        die("gk_allreduce", status);
    *reduce_time += stencil_now() - t0;
    return global;
}

/* Runs CG with one variant; returns 0 when it converged to ones. */
static int cg_run(struct stencil *s, enum stencil_variant variant, double tol, int max_iters)
{
    int n = s->n;
    size_t mine = (size_t)s->rows * (size_t)n;
    double *xs = calloc(mine, sizeof(double)), *r = malloc(mine * sizeof(double));
    double *ap = malloc(mine * sizeof(double)), *b = malloc(mine * sizeof(double));
    double *p = stencil_x(s); /* p is the vector the SPMV multiplies */
    struct stencil_times t = {0, 0, 0, 0};
    double reduce_time = 0;
    for (size_t i = 0; i < mine; i++)
        b[i] = stencil_serial_row(n, (long)s->row0 * n + (long)i, one);
    memcpy(r, b, mine * sizeof(double));
    memcpy(p, b, mine * sizeof(double));
    gk_barrier();
    double start = stencil_now();
    double rs = dot(r, r, mine, &reduce_time), rs0 = rs;
    int it = 0;
    while (it < max_iters && sqrt(rs / rs0) > tol) {
        int status = stencil_spmv(s, variant, ap, &t);
        if (status != GK_OK)
            die("stencil_spmv", status);
        double alpha = rs / dot(p, ap, mine, &reduce_time);
        double local_compute = stencil_now();
        for (size_t i = 0; i < mine; i++) {
            xs[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        t.compute += stencil_now() - local_compute;
        double rs_new = dot(r, r, mine, &reduce_time);
        double beta = rs_new / rs;
        local_compute = stencil_now();
        for (size_t i = 0; i < mine; i++)
            p[i] = r[i] + beta * p[i];
        t.compute += stencil_now() - local_compute;
        rs = rs_new;
        it++;
    }
    double total = stencil_now() - start;
    double err = 0;
    for (size_t i = 0; i < mine; i++)
        err = fmax(err, fabs(xs[i] - 1.0));
    double local[7] = {total, t.compute, t.send, t.recv_wait, t.barrier, reduce_time, err};
    double sum[7], max_err;
    gk_allreduce(sum, local, 7, GK_DTYPE_DOUBLE, GK_OP_SUM);
    gk_allreduce(&max_err, &err, 1, GK_DTYPE_DOUBLE, GK_OP_MAX);
    int converged = sqrt(rs / rs0) <= tol && max_err < 1e-5;
    if (s->me == 0) {
        double scale = 1e3 / s->npes;
        printf("  %-16s %6d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %9.2e %s\n",
               stencil_variant_names[variant], it, sum[0] * scale, sum[1] * scale,
               sum[2] * scale, sum[3] * scale, sum[4] * scale, sum[5] * scale, max_err,
               converged ? "ok" : "NOT CONVERGED");
    }
    free(xs);
    free(r);
    free(ap);
    free(b);
    return converged ? 0 : 1;
}

int main(int argc, char **argv)
{
    int n = 1024, only = -1, max_iters = 5000;
    double tol = 1e-8;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--tol") == 0 && i + 1 < argc)
            tol = atof(argv[++i]);
        else if (strcmp(argv[i], "--max-iters") == 0 && i + 1 < argc)
            max_iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            only = stencil_variant_parse(name);
            if (only < 0) {
                fprintf(stderr, "cg: unknown --variant %s\n", name);
                return 2;
            }
            if (only == STENCIL_VARIANTS)
                only = -1; /* all */
        } else {
            fprintf(stderr, "usage: cg [--n N] [--tol T] [--max-iters K] [--variant NAME|all]\n");
            return 2;
        }
    }
    int status = gk_init();
    if (status != GK_OK)
        die("gk_init", status);
    if (n < gk_n_pes()) {
        fprintf(stderr, "cg: --n %d must be at least the PE count\n", n);
        gk_abort(2, "bad arguments");
    }
    struct stencil s;
    if ((status = stencil_create(&s, n)) != GK_OK)
        die("stencil_create", status);
    if (s.me == 0)
        printf("# cg: %d x %d grid, %d PEs, tolerance %g; ms (average over PEs)\n"
               "# %-16s %6s %10s %10s %10s %10s %10s %10s %9s %s\n",
               n, n, s.npes, tol, "variant", "iters", "total", "compute", "send",
               "recv_wait", "barrier", "allreduce", "max_err", "check");
    int failures = 0;
    for (int v = 0; v < STENCIL_VARIANTS; v++)
        if (only < 0 || v == only)
            failures += cg_run(&s, (enum stencil_variant)v, tol, max_iters);
    stencil_destroy(&s);
    gk_finalize();
    return failures ? 1 : 0;
}

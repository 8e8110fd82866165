/*
 * ft_mpi: the NAS FT kernel of apps/ft.c with the transposes NPB's FT
 * does: the local FFTs of the whole slab, a local transpose into one block
 * per process, MPI_Alltoall, then the FFTs along the remaining dimension
 * (ft_kernel.h: the same layouts, FFTW plans and checks as ft's, so the
 * two differ only in how the data moves). No overlap: communication
 * starts when every local FFT is done.
 *
 *   mpirun -n 2 build/apps/ft_mpi [--class S|W|A|B] [--iters N]
 *                                 [--fftw measure|estimate] [--verbose]
 *
 * Prints the line apps/ft prints, variant "alltoall": time (max over
 * processes), its split (average over processes: fft, wait = in
 * MPI_Alltoall, other) and NPB's Mop/s.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft_kernel.h"

static double wait_time;

static void alltoall(const struct ft *ft, double complex *dst, const double complex *src)
{
    double t0 = ft_now();
    int count = (int)(ft->n / (size_t)ft->npes);
    MPI_Alltoall(src, count, MPI_C_DOUBLE_COMPLEX, dst, count, MPI_C_DOUBLE_COMPLEX,
                 MPI_COMM_WORLD);
    wait_time += ft_now() - t0;
}

static void forward(struct ft *ft)
{
    for (int zl = 0; zl < ft->nzl; zl++)
        ft_plane_2d(ft, zl);
    ft_pack_forward(ft);
    alltoall(ft, ft->u0, ft->s);
    ft_z_all(ft, FT_FWD, ft->u0);
}

static void inverse(struct ft *ft)
{
    ft_inverse_zx(ft);
    ft_pack_inverse(ft);
    alltoall(ft, ft->c, ft->s);
    ft_exec(ft, ft->yall, ft->c, ft->c);
}

static int run(struct ft *ft, int verbose)
{
    /* As NPB: set up and transform once untimed, so that every page is touched. */
    ft_init_twiddle(ft);
    ft_init_conditions(ft);
    forward(ft);
    MPI_Barrier(MPI_COMM_WORLD);
    ft->fft_time = 0;
    wait_time = 0;
    double start = ft_now();
    ft_init_twiddle(ft);
    ft_init_conditions(ft);
    forward(ft);
    for (int iter = 1; iter <= ft->niter; iter++) {
        ft_evolve(ft);
        inverse(ft);
        double complex local = ft_checksum_local(ft), global;
        MPI_Allreduce(&local, &global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        ft_checksum_record(ft, iter, global);
    }
    double total = ft_now() - start;

    int ok = ft_verify(ft);
    double local[3] = {total, ft->fft_time, wait_time}, sum[3], max_total;
    MPI_Reduce(local, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&total, &max_total, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (ft->me == 0) {
        if (verbose)
            for (int i = 1; i <= ft->niter; i++)
                printf("#   T = %2d checksum %22.12e %22.12e\n", i, creal(ft->sums[i]),
                       cimag(ft->sums[i]));
        double avg[3];
        for (int i = 0; i < 3; i++)
            avg[i] = sum[i] / ft->npes;
        printf("ft_mpi class %c variant alltoall: VERIFICATION %s time %.3f s (fft %.3f, "
               "wait %.3f, other %.3f) Mop/s %.1f\n",
               ft->cls->name, ok ? "SUCCESSFUL" : "FAILED", max_total, avg[1], avg[2],
               avg[0] - avg[1] - avg[2], ft_mops(ft, max_total));
        fflush(stdout);
    }
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *class_name = "S";
    int iters = 0, verbose = 0;
    unsigned fftw_flags = FFTW_MEASURE;
    MPI_Init(&argc, &argv);
    int me, npes;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--class") == 0 && i + 1 < argc)
            class_name = argv[++i];
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = 1;
        else if (strcmp(argv[i], "--fftw") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "measure") == 0 || strcmp(argv[i + 1], "estimate") == 0))
            fftw_flags = strcmp(argv[++i], "estimate") == 0 ? FFTW_ESTIMATE : FFTW_MEASURE;
        else {
            if (me == 0)
                fprintf(stderr, "usage: ft_mpi [--class S|W|A|B] [--iters N] "
                                "[--fftw measure|estimate] [--verbose]\n");
            MPI_Finalize();
            return 2;
        }
    }
    const struct ft_class *cls = ft_class_find(class_name);
    static struct ft ft;
    char why[128];
    if (cls == NULL)
        snprintf(why, sizeof(why), "unknown --class %s (S, W, A or B)", class_name);
    if (cls == NULL ||
        ft_setup(&ft, cls, iters > 0 ? iters : cls->niter, npes, me, why, sizeof(why)) != 0) {
        if (me == 0)
            fprintf(stderr, "ft_mpi: %s\n", why);
        MPI_Finalize();
        return 2;
    }
    size_t bytes = ft.n * sizeof(double complex);
    ft.u0 = fftw_malloc(bytes);
    ft.c = fftw_malloc(bytes);
    ft.a = fftw_malloc(bytes);
    ft.s = fftw_malloc(bytes);
    ft.tw = fftw_malloc(ft.n * sizeof(double));
    if (!ft.u0 || !ft.c || !ft.a || !ft.s || !ft.tw) {
        fprintf(stderr, "ft_mpi: rank %d: out of memory for class %c\n", me, cls->name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (ft_plan(&ft, fftw_flags) != 0) {
        fprintf(stderr, "ft_mpi: rank %d: FFTW could not plan the transforms\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(ft.a, 0, bytes);
    memset(ft.s, 0, bytes);
    memset(ft.u0, 0, bytes);
    memset(ft.c, 0, bytes);
    memset(ft.tw, 0, ft.n * sizeof(double));
    if (me == 0)
        printf("# ft_mpi: class %c, %d x %d x %d, %d iterations, %d processes; seconds, max "
               "over processes; its split: average over processes\n",
               cls->name, ft.nx, ft.ny, ft.nz, ft.niter, npes);
    int failed = run(&ft, verbose);
    ft_unplan(&ft);
    fftw_free(ft.a);
    fftw_free(ft.s);
    fftw_free(ft.tw);
    fftw_free(ft.c);
    fftw_free(ft.u0);
    fftw_cleanup();
    MPI_Finalize();
    return failed;
}

/*
 * ft: the NAS FT kernel (3-D FFT, evolution, checksum; NPB 3.x classes S,
 * W, A and B, verified against NPB's checksums) with the three transposes
 * of the one-sided overlap seed, each a variant:
 *
 *   packed   the 2-D FFTs of every local plane, then a pack and one put
 *            of a packed block to each PE (an all-to-all)
 *   slabs    per plane: the FFTs along y, then for each PE the FFTs along
 *            x of the rows it owns after the transpose, sent at once
 *            while the next PE's rows are transformed
 *   pencils  the same a row at a time: each row is sent as soon as its FFT
 *            along x is done
 *   alltoall     NPB's transposes on gasket's collective: the FFTs of every
 *                local plane, then one gk_team_alltoall on GK_TEAM_WORLD
 *   alltoall-nb  the transpose in pieces of a group of planes (--pieces K a
 *                transpose): each piece's gk_team_alltoall_nb starts as
 *                soon as its FFTs are done, while the next piece's run;
 *                gk_handle_test on the calls in flight between FFTs moves
 *                them on, gk_handle_wait ends the transpose
 *
 * The inverse transform moves the same way (ft_kernel.h): the FFTs along z
 * of a plane of rows, then its rows along x, sent to their owners. Rows
 * land straight in the target's layout. Slabs and pencils send a row to a
 * PE whose buffer gk_ptr() maps here (one on this node) by having the FFT
 * write its output there; to any other PE (and with --puts to every PE)
 * the FFT writes into a staging buffer and a gk_put_nbi() follows.
 * Completion is gk_quiet() and a barrier.
 *
 * The all-to-all variants need no packing either: their FFTs along x write
 * each PE's block of a piece into the staging buffer, and the planes and
 * rows are dealt out block-cyclically in groups of a piece (ft_kernel.h),
 * so that every PE's block of a piece lands next to the others' where the
 * all-to-all puts it. (alltoall's one piece is the block distribution.)
 *
 * Times: fft (in FFTW, stores to mapped targets included), wait (in
 * gasket's calls: the puts, the quiet and the barrier; the all-to-alls,
 * their tests and waits), other (the rest: setup, evolution, packing,
 * checksums). Mop/s as NPB counts them, over the whole timed run.
 *
 *   gasket-run -n 2 build/apps/ft [--class S|W|A|B] [--variant all|NAME,NAME...]
 *                                 [--iters N] [--puts] [--pieces K]
 *                                 [--fftw measure|estimate] [--verbose]
 *
 * The two receive buffers are symmetric: 2 * 16 * nx*ny*nz / P bytes of
 * GK_HEAP_SIZE per PE (class B at 2 PEs: 512 MiB).
 */
#include <gasket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft_kernel.h"

enum ft_variant {
    FT_PACKED,
    FT_SLABS,
    FT_PENCILS,
    FT_ALLTOALL,
    FT_ALLTOALL_NB,
    FT_VARIANTS
};
static const char *const ft_variant_names[FT_VARIANTS] = {"packed", "slabs", "pencils",
                                                          "alltoall", "alltoall-nb"};

/* The pieces of alltoall-nb's transposes unless --pieces says otherwise. */
#define FT_PIECES 4

/* An all-to-all variant's distribution (ft_kernel.h) and its FFTs along x
   into the staging buffer: of one A plane's rows for a PE, of one B
   plane's rows for a PE. */
struct ft_a2a {
    int zgroup, ygroup;
    fftw_plan fwd, inv;
};

struct ft_run {
    struct ft ft;
    double wait; /* seconds in gasket's calls */
    int direct;  /* slabs and pencils: FFTs write into mapped targets */
    struct ft_a2a a2a[2]; /* alltoall, alltoall-nb */
    gk_handle_t *calls;   /* alltoall-nb's calls of one transpose */
    int started, oldest;  /* calls started; the first not known to be done */
    /* alltoall-nb, for --verbose: seconds in the tests and in the final
       waits; calls in all, and those the tests found done. */
    double test_time, final_time;
    long ncalls, nearly;
};

static void die(const char *what, int status)
{
    fprintf(stderr, "ft: %s failed: %s\n", what, gk_strerror(status));
    gk_abort(1, what);
}

static void put(struct ft_run *run, int pe, void *dst, const void *src, size_t count)
{
    double t0 = ft_now();
    int status = gk_put_nbi(pe, dst, src, count * sizeof(double complex));
    if (status != GK_OK)
        die("gk_put_nbi", status);
    run->wait += ft_now() - t0;
}

/* Every PE's puts have landed. */
static void complete(struct ft_run *run)
{
    double t0 = ft_now();
    int status = gk_quiet();
    if (status != GK_OK)
        die("gk_quiet", status);
    if ((status = gk_barrier()) != GK_OK)
        die("gk_barrier", status);
    run->wait += ft_now() - t0;
}

/* The k-th PE after this one: each PE starts its round with a different target. */
static int target(const struct ft *ft, int k)
{
    return (ft->me + 1 + k) % ft->npes;
}

/*
 * Transforms rows along x with `plan` (out of place) and sends them to
 * `dst` on PE pe: straight into the target's buffer where gk_ptr() maps it
 * here (the FFT's stores are the transfer), otherwise into `stage` and from
 * there by a non-blocking put.
 */
static void send_rows(struct ft_run *run, fftw_plan plan, double complex *rows,
                      double complex *stage, int pe, double complex *dst, size_t count)
{
    double complex *mapped = run->direct ? gk_ptr(dst, pe) : NULL;
    if (mapped != NULL) {
        ft_exec(&run->ft, plan, rows, mapped);
        return;
    }
    ft_exec(&run->ft, plan, rows, stage);
    put(run, pe, dst, stage, count);
}

static void forward(struct ft_run *run, enum ft_variant v)
{
    struct ft *ft = &run->ft;
    size_t nx = (size_t)ft->nx, nyl = (size_t)ft->nyl, piece = nyl * nx;
    if (v == FT_PACKED) {
        for (int zl = 0; zl < ft->nzl; zl++)
            ft_plane_2d(ft, zl);
        ft_pack_forward(ft);
        for (int k = 0; k < ft->npes; k++) {
            int q = target(ft, k);
            put(run, q, ft->u0 + (size_t)ft->z0 * piece, ft->s + (size_t)q * ft->nzl * piece,
                (size_t)ft->nzl * piece);
        }
    }
    for (int zl = 0; v != FT_PACKED && zl < ft->nzl; zl++) {
        size_t plane = (size_t)zl * ft->ny * nx;
        double complex *dst = ft->u0 + (size_t)(ft->z0 + zl) * piece;
        ft_exec(ft, ft->ycols, ft->a + plane, ft->a + plane);
        if (v == FT_SLABS) {
            for (int k = 0; k < ft->npes; k++) {
                int q = target(ft, k);
                size_t at = plane + (size_t)q * piece;
                send_rows(run, ft->xslab_fwd, ft->a + at, ft->s + at, q, dst, piece);
            }
            continue;
        }
        for (size_t r = 0; r < nyl; r++)
            for (int k = 0; k < ft->npes; k++) {
                int q = target(ft, k);
                size_t at = plane + ((size_t)q * nyl + r) * nx;
                send_rows(run, ft->xrow_fwd, ft->a + at, ft->s + at, q, dst + r * nx, nx);
            }
    }
    complete(run);
    ft_z_all(ft, FT_FWD, ft->u0);
}

static void inverse(struct ft_run *run, enum ft_variant v)
{
    struct ft *ft = &run->ft;
    size_t nx = (size_t)ft->nx, nz = (size_t)ft->nz, nzl = (size_t)ft->nzl;
    size_t nyl = (size_t)ft->nyl;
    if (v == FT_PACKED) {
        ft_inverse_zx(ft);
        ft_pack_inverse(ft);
        for (int k = 0; k < ft->npes; k++) {
            int p = target(ft, k);
            put(run, p, ft->c + (size_t)ft->y0 * nzl * nx, ft->s + (size_t)p * nyl * nzl * nx,
                nyl * nzl * nx);
        }
    }
    for (size_t yl = 0; v != FT_PACKED && yl < nyl; yl++) {
        double complex *dst = ft->c + ((size_t)ft->y0 + yl) * nzl * nx;
        ft_exec(ft, ft->zcols[FT_INV], ft->a + yl * nx, ft->a + yl * nx);
        if (v == FT_SLABS) {
            for (int k = 0; k < ft->npes; k++) {
                int p = target(ft, k);
                size_t z = (size_t)p * nzl;
                send_rows(run, ft->xslab_inv, ft->a + (z * nyl + yl) * nx,
                          ft->s + (yl * nz + z) * nx, p, dst, nzl * nx);
            }
            continue;
        }
        for (size_t zr = 0; zr < nzl; zr++)
            for (int k = 0; k < ft->npes; k++) {
                int p = target(ft, k);
                size_t z = (size_t)p * nzl + zr;
                send_rows(run, ft->xrow_inv, ft->a + (z * nyl + yl) * nx,
                          ft->s + (yl * nz + z) * nx, p, dst + zr * nx, nx);
            }
    }
    complete(run);
    ft_exec(ft, ft->yall, ft->c, ft->c);
}

/*
 * The all-to-all variants. A piece's all-to-all starts once its FFTs are
 * done; alltoall's waits there, alltoall-nb's is left in flight, and the
 * tests between the next FFTs move the calls on (they move only while this
 * PE is inside gasket, unless a progress thread moves them).
 */
static void a2a_start(struct ft_run *run, enum ft_variant v, double complex *dst,
                      double complex *src, size_t count)
{
    double t0 = ft_now();
    size_t bytes = count * sizeof(double complex);
    int status = v == FT_ALLTOALL_NB
                     ? gk_team_alltoall_nb(GK_TEAM_WORLD, dst, src, bytes,
                                           &run->calls[run->started++])
                     : gk_team_alltoall(GK_TEAM_WORLD, dst, src, bytes);
    if (status != GK_OK)
        die(v == FT_ALLTOALL_NB ? "gk_team_alltoall_nb" : "gk_team_alltoall", status);
    run->wait += ft_now() - t0;
}

/* Tests the calls in flight, oldest first, up to the first not done. */
static void a2a_poll(struct ft_run *run)
{
    if (run->oldest == run->started)
        return;
    double t0 = ft_now();
    while (run->oldest < run->started) {
        int done = 0, status = gk_handle_test(&run->calls[run->oldest], &done);
        if (status != GK_OK)
            die("gk_handle_test", status);
        if (!done)
            break;
        run->oldest++;
        run->nearly++;
    }
    double t = ft_now() - t0;
    run->wait += t;
    run->test_time += t;
}

static void a2a_complete(struct ft_run *run)
{
    double t0 = ft_now();
    for (; run->oldest < run->started; run->oldest++) {
        int status = gk_handle_wait(&run->calls[run->oldest]);
        if (status != GK_OK)
            die("gk_handle_wait", status);
    }
    run->ncalls += run->started;
    run->started = run->oldest = 0;
    double t = ft_now() - t0;
    run->wait += t;
    run->final_time += t;
}

/* Piece g is the A planes of group g: PE q's rows of each, along x, to
   block q of the piece's staging; it lands as B planes of group g * P + j
   from PE j. */
static void a2a_forward(struct ft_run *run, enum ft_variant v)
{
    struct ft *ft = &run->ft;
    const struct ft_a2a *d = &run->a2a[v == FT_ALLTOALL_NB];
    size_t nx = (size_t)ft->nx, nyl = (size_t)ft->nyl, gz = (size_t)d->zgroup;
    size_t piece = gz * ft->ny * nx;
    for (size_t g = 0; g < (size_t)ft->nzl / gz; g++) {
        double complex *stage = ft->s + g * piece;
        for (size_t i = 0; i < gz; i++) {
            double complex *plane = ft->a + (g * gz + i) * ft->ny * nx;
            ft_exec(ft, ft->ycols, plane, plane);
            a2a_poll(run);
            for (size_t q = 0; q < (size_t)ft->npes; q++) {
                ft_exec(ft, d->fwd, plane + q * d->ygroup * nx,
                        stage + (q * gz + i) * nyl * nx);
                a2a_poll(run);
            }
        }
        a2a_start(run, v, ft->u0 + g * piece, stage, gz * nyl * nx);
    }
    a2a_complete(run);
    ft_z_all(ft, FT_FWD, ft->u0);
}

/* Piece h is the B planes yl of group h: along z, then PE p's rows along
   x to block p of the piece's staging; it lands as C rows y of group
   h * P + j from PE j. */
static void a2a_inverse(struct ft_run *run, enum ft_variant v)
{
    struct ft *ft = &run->ft;
    const struct ft_a2a *d = &run->a2a[v == FT_ALLTOALL_NB];
    size_t nx = (size_t)ft->nx, nyl = (size_t)ft->nyl, nzl = (size_t)ft->nzl;
    size_t gy = (size_t)d->ygroup, piece = gy * ft->nz * nx;
    for (size_t h = 0; h < nyl / gy; h++) {
        double complex *stage = ft->s + h * piece;
        for (size_t i = 0; i < gy; i++) {
            size_t yl = h * gy + i;
            ft_exec(ft, ft->zcols[FT_INV], ft->a + yl * nx, ft->a + yl * nx);
            a2a_poll(run);
            for (size_t p = 0; p < (size_t)ft->npes; p++) {
                ft_exec(ft, d->inv, ft->a + (p * d->zgroup * nyl + yl) * nx,
                        stage + (p * gy + i) * nzl * nx);
                a2a_poll(run);
            }
        }
        a2a_start(run, v, ft->c + h * piece, stage, gy * nzl * nx);
    }
    a2a_complete(run);
    ft_exec(ft, ft->yall, ft->c, ft->c);
}

/* The largest divisor of n that is at most k (at least 1). */
static int divisor_at_most(int n, int k)
{
    int d = k < n ? (k > 1 ? k : 1) : n;
    while (n % d != 0)
        d--;
    return d;
}

/* Plans an all-to-all variant's FFTs along x for `pieces` pieces a
   transpose (or the fewest more that divide the planes and rows); 0 or -1. */
static int a2a_plan(struct ft *ft, struct ft_a2a *d, int pieces, unsigned flags)
{
    int nx = ft->nx, nyl = ft->nyl, nzl = ft->nzl, npes = ft->npes;
    d->zgroup = nzl / divisor_at_most(nzl, pieces);
    d->ygroup = nyl / divisor_at_most(nyl, pieces);
    int gz = d->zgroup, gy = d->ygroup;
    d->fwd = ft_plan_rows(ft, FT_FWD, ft->a, ft->s, nyl / gy, gy, npes * gy * nx, nx,
                          gy * nx, nx, flags);
    d->inv = ft_plan_rows(ft, FT_INV, ft->a, ft->s, nzl / gz, gz, npes * gz * nyl * nx,
                          nyl * nx, gz * nx, nx, flags);
    return d->fwd != NULL && d->inv != NULL ? 0 : -1;
}

static void a2a_unplan(struct ft_a2a *d)
{
    if (d->fwd != NULL)
        fftw_destroy_plan(d->fwd);
    if (d->inv != NULL)
        fftw_destroy_plan(d->inv);
    d->fwd = d->inv = NULL;
}

static void checksum(struct ft *ft, int iter)
{
    double complex local = ft_checksum_local(ft), global;
    int status = gk_allreduce(&global, &local, 2, GK_DTYPE_DOUBLE, GK_OP_SUM);
    if (status != GK_OK)
        die("gk_allreduce", status);
    ft_checksum_record(ft, iter, global);
}

/* One variant, timed as NPB times FT; 0 when it verifies. */
static int run_variant(struct ft_run *run, enum ft_variant v, int verbose)
{
    struct ft *ft = &run->ft;
    int a2a = v == FT_ALLTOALL || v == FT_ALLTOALL_NB;
    void (*fwd)(struct ft_run *, enum ft_variant) = a2a ? a2a_forward : forward;
    void (*inv)(struct ft_run *, enum ft_variant) = a2a ? a2a_inverse : inverse;
    ft->zgroup = a2a ? run->a2a[v == FT_ALLTOALL_NB].zgroup : ft->nzl;
    ft->ygroup = a2a ? run->a2a[v == FT_ALLTOALL_NB].ygroup : ft->nyl;
    /* As NPB: set up and transform once untimed, so that every page is touched. */
    gk_barrier();
    ft_init_twiddle(ft);
    ft_init_conditions(ft);
    fwd(run, v);
    gk_barrier();
    ft->fft_time = 0;
    run->wait = run->test_time = run->final_time = 0;
    run->ncalls = run->nearly = 0;
    double start = ft_now();
    ft_init_twiddle(ft);
    ft_init_conditions(ft);
    fwd(run, v);
    for (int iter = 1; iter <= ft->niter; iter++) {
        ft_evolve(ft);
        inv(run, v);
        checksum(ft, iter);
    }
    double total = ft_now() - start;

    int ok = ft_verify(ft);
    double local[7] = {total,          ft->fft_time,       run->wait,
                       run->test_time, run->final_time,    (double)run->ncalls,
                       (double)run->nearly};
    double sum[7], max_total;
    gk_allreduce(sum, local, 7, GK_DTYPE_DOUBLE, GK_OP_SUM);
    gk_allreduce(&max_total, &total, 1, GK_DTYPE_DOUBLE, GK_OP_MAX);
    if (ft->me == 0) {
        if (verbose)
            for (int i = 1; i <= ft->niter; i++)
                printf("#   T = %2d checksum %22.12e %22.12e\n", i, creal(ft->sums[i]),
                       cimag(ft->sums[i]));
        if (verbose && v == FT_ALLTOALL_NB)
            printf("#   wait: %.3f s in gk_handle_test, %.3f s in the final "
                   "gk_handle_wait; %.0f of %.0f calls done before their wait (averages "
                   "over PEs)\n",
                   sum[3] / ft->npes, sum[4] / ft->npes, sum[6] / ft->npes,
                   sum[5] / ft->npes);
        double avg[3];
        for (int i = 0; i < 3; i++)
            avg[i] = sum[i] / ft->npes;
        printf("ft class %c variant %s: VERIFICATION %s time %.3f s (fft %.3f, wait %.3f, "
               "other %.3f) Mop/s %.1f\n",
               ft->cls->name, ft_variant_names[v], ok ? "SUCCESSFUL" : "FAILED", max_total,
               avg[1], avg[2], avg[0] - avg[1] - avg[2], ft_mops(ft, max_total));
        fflush(stdout);
    }
    return ok ? 0 : 1;
}

/* "all", or variant names separated by commas, into a set of bits. */
static int parse_variants(const char *list, unsigned *chosen_p)
{
    if (strcmp(list, "all") == 0) {
        *chosen_p = (1u << FT_VARIANTS) - 1;
        return 0;
    }
    unsigned chosen = 0;
    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int v = 0; v < FT_VARIANTS; v++)
            if (strlen(ft_variant_names[v]) == len && strncmp(p, ft_variant_names[v], len) == 0)
                found = v;
        if (found < 0) {
            fprintf(stderr, "ft: unknown variant in --variant %s\n", list);
            return -1;
        }
        chosen |= 1u << found;
        p += len + (p[len] == ',');
    }
    if (chosen == 0) {
        fprintf(stderr, "ft: --variant names no variant\n");
        return -1;
    }
    *chosen_p = chosen;
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: ft [--class S|W|A|B] "
                    "[--variant all|packed,slabs,pencils,alltoall,alltoall-nb] [--iters N] "
                    "[--puts] [--pieces K] [--fftw measure|estimate] [--verbose]\n");
}

int main(int argc, char **argv)
{
    const char *class_name = "S";
    int iters = 0, verbose = 0, puts_only = 0, pieces = FT_PIECES;
    unsigned chosen = (1u << FT_VARIANTS) - 1;
    unsigned fftw_flags = FFTW_MEASURE;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--class") == 0 && i + 1 < argc)
            class_name = argv[++i];
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = 1;
        else if (strcmp(argv[i], "--puts") == 0)
            puts_only = 1;
        else if (strcmp(argv[i], "--pieces") == 0 && i + 1 < argc) {
            pieces = atoi(argv[++i]);
            if (pieces < 1) {
                usage();
                return 2;
            }
        }
        else if (strcmp(argv[i], "--fftw") == 0 && i + 1 < argc) {
            const char *how = argv[++i];
            if (strcmp(how, "estimate") == 0)
                fftw_flags = FFTW_ESTIMATE;
            else if (strcmp(how, "measure") != 0) {
                usage();
                return 2;
            }
        } else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            if (parse_variants(argv[++i], &chosen) != 0)
                return 2;
        } else {
            usage();
            return 2;
        }
    }
    const struct ft_class *cls = ft_class_find(class_name);
    if (cls == NULL) {
        fprintf(stderr, "ft: unknown --class %s (S, W, A or B)\n", class_name);
        return 2;
    }
    int status = gk_init();
    if (status != GK_OK)
        die("gk_init", status);
    static struct ft_run run;
    struct ft *ft = &run.ft;
    run.direct = !puts_only;
    char why[128];
    if (ft_setup(ft, cls, iters > 0 ? iters : cls->niter, gk_n_pes(), gk_my_pe(), why,
                 sizeof(why)) != 0) {
        if (gk_my_pe() == 0)
            fprintf(stderr, "ft: %s\n", why);
        gk_finalize();
        return 2;
    }
    size_t bytes = ft->n * sizeof(double complex);
    /* Both symmetric buffers, and room for the runtime's own blocks. */
    if (gk_heap_free() < 2 * bytes + (1u << 20)) {
        if (ft->me == 0)
            fprintf(stderr, "ft: class %c on %d PEs needs GK_HEAP_SIZE of at least %zuM\n",
                    cls->name, ft->npes, (2 * bytes >> 20) + 2);
        gk_finalize();
        return 2;
    }
    ft->u0 = gk_align(64, bytes);
    ft->c = gk_align(64, bytes);
    ft->a = fftw_malloc(bytes);
    ft->s = fftw_malloc(bytes);
    ft->tw = fftw_malloc(ft->n * sizeof(double));
    if (!ft->u0 || !ft->c || !ft->a || !ft->s || !ft->tw) {
        fprintf(stderr, "ft: PE %d: out of memory for class %c\n", ft->me, cls->name);
        gk_abort(1, "out of memory");
    }
    size_t most_calls = (size_t)(ft->nzl > ft->nyl ? ft->nzl : ft->nyl);
    run.calls = malloc(most_calls * sizeof(gk_handle_t));
    if (run.calls == NULL || ft_plan(ft, fftw_flags) != 0 ||
        a2a_plan(ft, &run.a2a[0], 1, fftw_flags) != 0 ||
        a2a_plan(ft, &run.a2a[1], pieces, fftw_flags) != 0) {
        fprintf(stderr, "ft: PE %d: FFTW could not plan the transforms\n", ft->me);
        gk_abort(1, "fftw planning");
    }
    memset(ft->a, 0, bytes);
    memset(ft->s, 0, bytes);
    memset(ft->u0, 0, bytes);
    memset(ft->c, 0, bytes);
    memset(ft->tw, 0, ft->n * sizeof(double));
    if (ft->me == 0)
        printf("# ft: class %c, %d x %d x %d, %d iterations, %d PEs, %s, alltoall-nb in "
               "%d and %d pieces; seconds, max over PEs; its split: average over PEs\n",
               cls->name, ft->nx, ft->ny, ft->nz, ft->niter, ft->npes,
               puts_only ? "puts only" : "stores to the PEs mapped here",
               ft->nzl / run.a2a[1].zgroup, ft->nyl / run.a2a[1].ygroup);
    int failures = 0;
    for (int v = 0; v < FT_VARIANTS; v++)
        if (chosen & (1u << v))
            failures += run_variant(&run, (enum ft_variant)v, verbose);
    ft_unplan(ft);
    a2a_unplan(&run.a2a[0]);
    a2a_unplan(&run.a2a[1]);
    free(run.calls);
    fftw_free(ft->a);
    fftw_free(ft->s);
    fftw_free(ft->tw);
    gk_free(ft->c);
    gk_free(ft->u0);
    fftw_cleanup();
    gk_finalize();
    return failures ? 1 : 0;
}

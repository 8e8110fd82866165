/*
 * ft_kernel: NAS FT's computation (see ft_kernel.h for the layouts).
 * Written from the NPB 3.x specification: the generator, the initial
 * conditions, the evolution factors, the checksum's index pattern, the
 * reference checksums and the operation count are NPB's.
 */
#include "ft_kernel.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const struct ft_class ft_classes[] = {
    {'S', 64, 64, 64, 6},
    {'W', 128, 128, 32, 6},
    {'A', 256, 256, 128, 6},
    {'B', 512, 256, 256, 20},
};

/* NPB's reference checksums (real, imaginary) per iteration. */
static const double ft_ref_s[][2] = {
    {5.546087004964e+02, 4.845363331978e+02}, {5.546385409189e+02, 4.865304269511e+02},
    {5.546148406171e+02, 4.883910722336e+02}, {5.545423607415e+02, 4.901273169046e+02},
    {5.544255039624e+02, 4.917475857993e+02}, {5.542683411902e+02, 4.932597244941e+02},
};
static const double ft_ref_w[][2] = {
    {5.673612178944e+02, 5.293246849175e+02}, {5.631436885271e+02, 5.282149986629e+02},
    {5.594024089970e+02, 5.270996558037e+02}, {5.560698047020e+02, 5.260027904925e+02},
    {5.530898991250e+02, 5.249400845633e+02}, {5.504159734538e+02, 5.239212247086e+02},
};
static const double ft_ref_a[][2] = {
    {5.046735008193e+02, 5.114047905510e+02}, {5.059412319734e+02, 5.098809666433e+02},
    {5.069376896287e+02, 5.098144042213e+02}, {5.077892868474e+02, 5.101336130759e+02},
    {5.085233095391e+02, 5.104914655194e+02}, {5.091487099959e+02, 5.107917842803e+02},
};
static const double ft_ref_b[][2] = {
    {5.177643571579e+02, 5.077803458597e+02}, {5.154521291263e+02, 5.088249431599e+02},
    {5.146409228649e+02, 5.096208912659e+02}, {5.142378756213e+02, 5.101023387619e+02},
    {5.139626667737e+02, 5.103976610617e+02}, {5.137423460082e+02, 5.105948019802e+02},
    {5.135547056878e+02, 5.107404165783e+02}, {5.133910925466e+02, 5.108576573661e+02},
    {5.132470705390e+02, 5.109577278523e+02}, {5.131197729984e+02, 5.110460304483e+02},
    {5.130070319283e+02, 5.111252433800e+02}, {5.129070537032e+02, 5.111968077718e+02},
    {5.128182883502e+02, 5.112616233064e+02}, {5.127393733383e+02, 5.113203605551e+02},
    {5.126691062020e+02, 5.113735928093e+02}, {5.126064276004e+02, 5.114218460548e+02},
    {5.125504076570e+02, 5.114656139760e+02}, {5.125002331720e+02, 5.115053595966e+02},
    {5.124551951846e+02, 5.115415130407e+02}, {5.124146770029e+02, 5.115744692211e+02},
};

const struct ft_class *ft_class_find(const char *name)
{
    if (name == NULL || name[0] == '\0' || name[1] != '\0')
        return NULL;
    for (size_t i = 0; i < sizeof(ft_classes) / sizeof(ft_classes[0]); i++)
        if (ft_classes[i].name == name[0])
            return &ft_classes[i];
    return NULL;
}

static const double (*ft_reference(char name))[2]
{
    switch (name) {
    case 'S':
        return ft_ref_s;
    case 'W':
        return ft_ref_w;
    case 'A':
        return ft_ref_a;
    default:
        return ft_ref_b;
    }
}

double ft_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ft_setup(struct ft *ft, const struct ft_class *cls, int niter, int npes, int me,
             char *why, size_t why_len)
{
    memset(ft, 0, sizeof(*ft));
    if (cls->nz % npes != 0 || cls->ny % npes != 0) {
        snprintf(why, why_len, "class %c needs a PE count that divides %d and %d", cls->name,
                 cls->nz, cls->ny);
        return -1;
    }
    if (niter < 1 || niter > cls->niter) {
        snprintf(why, why_len, "class %c has 1 to %d iterations", cls->name, cls->niter);
        return -1;
    }
    ft->cls = cls;
    ft->niter = niter;
    ft->nx = cls->nx;
    ft->ny = cls->ny;
    ft->nz = cls->nz;
    ft->npes = npes;
    ft->me = me;
    ft->nzl = cls->nz / npes;
    ft->nyl = cls->ny / npes;
    ft->z0 = me * ft->nzl;
    ft->y0 = me * ft->nyl;
    ft->zgroup = ft->nzl;
    ft->ygroup = ft->nyl;
    ft->n = (size_t)cls->nx * (size_t)cls->ny * (size_t)ft->nzl;
    return 0;
}

/*
 * NPB's forward transform is the sum with exp(+2 pi i jk / n), FFTW's
 * backward one. (The evolution factors are even in each wave number, so
 * the checksums do not depend on the convention.)
 */
static int ft_sign(enum ft_dir dir)
{
    return dir == FT_FWD ? FFTW_BACKWARD : FFTW_FORWARD;
}

#define FT_PLANS(ft)                                                                      \
    {&(ft)->ycols, &(ft)->xplane, &(ft)->xrow_fwd, &(ft)->xslab_fwd, &(ft)->zcols[FT_FWD],    \
     &(ft)->zcols[FT_INV], &(ft)->xrow_inv, &(ft)->xslab_inv, &(ft)->xplane_inv, &(ft)->yall}

static fftw_plan ft_plan_1d(int n, int howmany, double complex *in, int istride, int idist,
                            double complex *out, int ostride, int odist, enum ft_dir dir,
                            unsigned flags)
{
    return fftw_plan_many_dft(1, &n, howmany, in, NULL, istride, idist, out, NULL, ostride,
                              odist, ft_sign(dir), flags);
}

int ft_plan(struct ft *ft, unsigned flags)
{
    int nx = ft->nx, ny = ft->ny, nz = ft->nz, nyl = ft->nyl, nzl = ft->nzl;
    unsigned oop = flags | FFTW_DESTROY_INPUT;
    ft->ycols = ft_plan_1d(ny, nx, ft->a, nx, 1, ft->a, nx, 1, FT_FWD, flags);
    ft->xplane = ft_plan_1d(nx, ny, ft->a, 1, nx, ft->a, 1, nx, FT_FWD, flags);
    ft->xrow_fwd = ft_plan_1d(nx, 1, ft->a, 1, nx, ft->s, 1, nx, FT_FWD, oop);
    ft->xslab_fwd = ft_plan_1d(nx, nyl, ft->a, 1, nx, ft->s, 1, nx, FT_FWD, oop);
    for (int d = FT_FWD; d <= FT_INV; d++)
        ft->zcols[d] = ft_plan_1d(nz, nx, ft->a, nyl * nx, 1, ft->a, nyl * nx, 1,
                                  (enum ft_dir)d, flags);
    ft->xrow_inv = ft_plan_1d(nx, 1, ft->a, 1, nx, ft->s, 1, nx, FT_INV, oop);
    ft->xslab_inv = ft_plan_1d(nx, nzl, ft->a, 1, nyl * nx, ft->s, 1, nx, FT_INV, oop);
    ft->xplane_inv = ft_plan_1d(nx, nz, ft->a, 1, nyl * nx, ft->a, 1, nyl * nx, FT_INV, flags);
    ft->yall = ft_plan_1d(ny, nzl * nx, ft->c, nzl * nx, 1, ft->c, nzl * nx, 1, FT_INV, flags);
    fftw_plan *plans[] = FT_PLANS(ft);
    for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
        if (*plans[i] == NULL)
            return -1;
    return 0;
}

fftw_plan ft_plan_rows(const struct ft *ft, enum ft_dir dir, double complex *in,
                       double complex *out, int groups, int rows, int in_group,
                       int in_row, int out_group, int out_row,
                       unsigned flags)
{
    fftw_iodim x = {.n = ft->nx, .is = 1, .os = 1};
    fftw_iodim many[2] = {{.n = groups, .is = in_group, .os = out_group},
                          {.n = rows, .is = in_row, .os = out_row}};
    return fftw_plan_guru_dft(1, &x, 2, many, in, out, ft_sign(dir),
                              flags | FFTW_DESTROY_INPUT);
}

int ft_z_of(const struct ft *ft, int zl)
{
    return (zl / ft->zgroup * ft->npes + ft->me) * ft->zgroup + zl % ft->zgroup;
}

int ft_y_of(const struct ft *ft, int yl)
{
    return (yl / ft->ygroup * ft->npes + ft->me) * ft->ygroup + yl % ft->ygroup;
}

void ft_unplan(struct ft *ft)
{
    fftw_plan *plans[] = FT_PLANS(ft);
    for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
        if (*plans[i] != NULL) {
            fftw_destroy_plan(*plans[i]);
            *plans[i] = NULL;
        }
}

/*
 * NPB's generator: x_{k+1} = a * x_k mod 2^46, the number x_{k+1} / 2^46.
 * Reduced mod 2^64 by the unsigned multiply, the product is still exact mod
 * 2^46, which divides 2^64.
 */
#define FT_MASK46 ((UINT64_C(1) << 46) - 1)
#define FT_SEED UINT64_C(314159265)
#define FT_MULT UINT64_C(1220703125) /* 5^13 */

static uint64_t ft_pow46(uint64_t a, uint64_t e)
{
    uint64_t r = 1;
    while (e > 0) {
        if (e & 1)
            r = (r * a) & FT_MASK46;
        a = (a * a) & FT_MASK46;
        e >>= 1;
    }
    return r;
}

/*
 * The grid is filled in NPB's order, x fastest, two numbers (real, then
 * imaginary) an element: element (x, y, z) gets numbers 2 * (x + nx * (y +
 * ny * z)) and the next. Each PE starts each group of its planes by
 * jumping ahead.
 */
void ft_init_conditions(struct ft *ft)
{
    const double r46 = 1.0 / (double)(UINT64_C(1) << 46);
    uint64_t plane_jump = ft_pow46(FT_MULT, 2 * (uint64_t)ft->nx * (uint64_t)ft->ny);
    uint64_t start = 0;
    for (int zl = 0; zl < ft->nzl; zl++) {
        if (zl % ft->zgroup == 0)
            start = (FT_SEED * ft_pow46(plane_jump, (uint64_t)ft_z_of(ft, zl))) &
                    FT_MASK46;
        uint64_t x = start;
        double complex *plane = ft->a + (size_t)zl * ft->ny * ft->nx;
        for (size_t i = 0; i < (size_t)ft->ny * ft->nx; i++) {
            x = (x * FT_MULT) & FT_MASK46;
            double re = r46 * (double)x;
            x = (x * FT_MULT) & FT_MASK46;
            plane[i] = CMPLX(re, r46 * (double)x);
        }
        start = (start * plane_jump) & FT_MASK46;
    }
}

/* exp(-4 alpha pi^2 k^2) for the wave numbers k of a dimension of n. */
static void ft_factors(int n, double *e)
{
    const double pi = 3.141592653589793238, alpha = 1.0e-6;
    for (int i = 0; i < n; i++) {
        int k = (i + n / 2) % n - n / 2;
        e[i] = exp(-4.0 * alpha * pi * pi * (double)k * (double)k);
    }
}

void ft_init_twiddle(struct ft *ft)
{
    double ex[ft->nx], ey[ft->ny], ez[ft->nz];
    ft_factors(ft->nx, ex);
    ft_factors(ft->ny, ey);
    ft_factors(ft->nz, ez);
    double *t = ft->tw;
    for (int z = 0; z < ft->nz; z++)
        for (int yl = 0; yl < ft->nyl; yl++) {
            double f = ez[z] * ey[ft_y_of(ft, yl)];
            for (int x = 0; x < ft->nx; x++)
                *t++ = f * ex[x];
        }
}

void ft_exec(struct ft *ft, fftw_plan plan, double complex *in, double complex *out)
{
    double t0 = ft_now();
    fftw_execute_dft(plan, in, out);
    ft->fft_time += ft_now() - t0;
}

void ft_plane_2d(struct ft *ft, int zl)
{
    double complex *plane = ft->a + (size_t)zl * ft->ny * ft->nx;
    ft_exec(ft, ft->ycols, plane, plane);
    ft_exec(ft, ft->xplane, plane, plane);
}

void ft_z_all(struct ft *ft, enum ft_dir dir, double complex *b)
{
    for (int yl = 0; yl < ft->nyl; yl++) {
        double complex *p = b + (size_t)yl * ft->nx;
        ft_exec(ft, ft->zcols[dir], p, p);
    }
}

void ft_inverse_zx(struct ft *ft)
{
    for (int yl = 0; yl < ft->nyl; yl++) {
        double complex *p = ft->a + (size_t)yl * ft->nx;
        ft_exec(ft, ft->zcols[FT_INV], p, p);
        ft_exec(ft, ft->xplane_inv, p, p);
    }
}

void ft_evolve(struct ft *ft)
{
    double complex *restrict u0 = ft->u0, *restrict u1 = ft->a;
    const double *restrict tw = ft->tw;
    for (size_t i = 0; i < ft->n; i++) {
        u0[i] *= tw[i];
        u1[i] = u0[i];
    }
}

void ft_pack_forward(struct ft *ft)
{
    size_t piece = (size_t)ft->nyl * ft->nx;
    for (int q = 0; q < ft->npes; q++)
        for (int zl = 0; zl < ft->nzl; zl++)
            memcpy(ft->s + ((size_t)q * ft->nzl + zl) * piece,
                   ft->a + ((size_t)zl * ft->ny + (size_t)q * ft->nyl) * ft->nx,
                   piece * sizeof(double complex));
}

void ft_pack_inverse(struct ft *ft)
{
    size_t nx = (size_t)ft->nx;
    for (int p = 0; p < ft->npes; p++)
        for (int yl = 0; yl < ft->nyl; yl++)
            for (int zl = 0; zl < ft->nzl; zl++)
                memcpy(ft->s + (((size_t)p * ft->nyl + yl) * ft->nzl + zl) * nx,
                       ft->a + (((size_t)p * ft->nzl + zl) * ft->nyl + yl) * nx,
                       nx * sizeof(double complex));
}

/* NPB's 1024 elements: (j mod nx, 3j mod ny, 5j mod nz), j = 1..1024. */
double complex ft_checksum_local(const struct ft *ft)
{
    double complex sum = 0;
    int gz = ft->zgroup;
    for (int j = 1; j <= 1024; j++) {
        int x = j % ft->nx, y = (3 * j) % ft->ny, z = (5 * j) % ft->nz;
        if (z / gz % ft->npes != ft->me)
            continue;
        size_t zl = (size_t)(z / (gz * ft->npes) * gz + z % gz);
        sum += ft->c[((size_t)y * ft->nzl + zl) * ft->nx + x];
    }
    return sum;
}

void ft_checksum_record(struct ft *ft, int iter, double complex global)
{
    double ntotal = (double)ft->nx * (double)ft->ny * (double)ft->nz;
    ft->sums[iter] = global / ntotal;
}

int ft_verify(const struct ft *ft)
{
    const double(*ref)[2] = ft_reference(ft->cls->name);
    for (int i = 1; i <= ft->niter; i++) {
        double complex want = CMPLX(ref[i - 1][0], ref[i - 1][1]);
        double err = cabs((ft->sums[i] - want) / want);
        if (!(err <= 1.0e-12))
            return 0;
    }
    return 1;
}

double ft_mops(const struct ft *ft, double seconds)
{
    double ntotal = (double)ft->nx * (double)ft->ny * (double)ft->nz;
    double ops = ntotal * (14.8157 + 7.19641 * log(ntotal) +
                           (5.23518 + 7.21113 * log(ntotal)) * ft->niter);
    return seconds > 0 ? 1.0e-6 * ops / seconds : 0.0;
}

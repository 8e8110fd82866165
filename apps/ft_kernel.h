/*
 * ft_kernel: the NAS FT benchmark (NPB 3.x) without its communication,
 * shared by apps/ft.c (gasket's one-sided variants) and apps/ft_mpi.c
 * (MPI_Alltoall): the classes and their reference checksums, NPB's random
 * initial conditions, the evolution factors, FFTW plans for the pieces of
 * the 3-D FFT, the checksum, the verification and NPB's Mop/s.
 *
 * The 3-D FFT is distributed in slabs. The grid is nx * ny * nz complex
 * numbers, x fastest; PE p owns z planes [z0, z0 + nzl) and, after the
 * transpose, y rows [y0, y0 + nyl). Three layouts, all of n = nx*ny*nz/P
 * elements:
 *
 *   A  [zl][y][x]   the initial conditions; the forward FFT's 2-D FFTs of
 *                   each plane (along y, then along x)
 *   B  [z][yl][x]   after the forward transpose: the FFTs along z, the
 *                   evolution and the inverse FFTs along z and x
 *   C  [y][zl][x]   after the inverse transpose: the FFTs along y and the
 *                   checksum
 *
 * Every piece a transpose moves is contiguous on both sides: the rows y0_q..
 * of an A plane z are B[z][0..nyl) on PE q, and the rows z0_p.. of a B
 * plane yl, once transformed along x into the staging buffer (layout
 * [yl][z][x]), are C[y0 + yl][0..nzl) on PE p. So puts need no packing;
 * the bulk variants pack into [q][...] blocks so that one message goes to
 * each PE.
 *
 * That is the block distribution. The all-to-all variants may deal planes
 * and rows out block-cyclically instead: in groups of zgroup planes (ygroup
 * rows), group g of PE p being planes (g * P + p) * zgroup .. + zgroup. A
 * transpose in pieces of one group then lands each PE's block of a piece
 * next to the other PEs' blocks, as an all-to-all puts them. zgroup = nzl
 * and ygroup = nyl (ft_setup's) are the block distribution; z0 and y0
 * describe only that one.
 */
#ifndef FT_KERNEL_H
#define FT_KERNEL_H

#include <complex.h> /* before fftw3.h: fftw_complex is double complex */
#include <fftw3.h>
#include <stddef.h>

#define FT_MAX_ITER 20

struct ft_class {
    char name;
    int nx, ny, nz, niter;
};

/* NPB's class of that letter (S, W, A, B), or NULL. */
const struct ft_class *ft_class_find(const char *name);

enum ft_dir { FT_FWD, FT_INV };

struct ft {
    const struct ft_class *cls;
    int niter;
    int nx, ny, nz, npes, me;
    int nzl, nyl, z0, y0;
    int zgroup, ygroup; /* the distribution's groups (above); divide nzl, nyl */
    size_t n;           /* local elements */

    /* Set by the caller before ft_plan(), aligned to 64 bytes, n each. */
    double complex *a;  /* layout A, then B (the evolved u1) */
    double complex *u0; /* layout B: the forward transform (receives it) */
    double complex *s;  /* staging and packing */
    double complex *c;  /* layout C (receives the inverse transpose) */
    double *tw;         /* layout B: the evolution factors */

    /* Rows and slabs along x go out of place: to the staging buffer, or
       straight into the target's buffer where it is mapped here. */
    fftw_plan ycols;       /* forward: one A plane along y, in place */
    fftw_plan xplane;      /* forward: the ny rows of an A plane, in place */
    fftw_plan xrow_fwd;    /* forward: one A row */
    fftw_plan xslab_fwd;   /* forward: nyl rows of an A plane */
    fftw_plan zcols[2];    /* one B plane (fixed yl), along z, in place */
    fftw_plan xrow_inv;    /* inverse: one B row */
    fftw_plan xslab_inv;   /* inverse: nzl rows z of a B plane, into contiguous rows */
    fftw_plan xplane_inv;  /* inverse: the nz rows of a B plane, in place */
    fftw_plan yall;        /* inverse: every C column, along y, in place */

    double complex sums[FT_MAX_ITER + 1]; /* checksums, 1-based as NPB's */
    double fft_time;                      /* seconds in FFTW */
};

/*
 * Fills the geometry for class `cls` on `npes` PEs; 0, or -1 with a message
 * in `why` when the PE count does not divide nz and ny.
 */
int ft_setup(struct ft *ft, const struct ft_class *cls, int niter, int npes, int me,
             char *why, size_t why_len);
/* Plans every transform on the arrays (which it overwrites); 0 or -1. */
int ft_plan(struct ft *ft, unsigned fftw_flags);
void ft_unplan(struct ft *ft);
/*
 * A plan of FFTs along x (in direction dir, out of place) of groups * rows
 * rows: row r of group g from in + g * in_group + r * in_row, to out + g *
 * out_group + r * out_row (strides in elements). NULL when FFTW cannot.
 */
fftw_plan ft_plan_rows(const struct ft *ft, enum ft_dir dir, double complex *in,
                       double complex *out, int groups, int rows, int in_group,
                       int in_row, int out_group, int out_row,
                       unsigned fftw_flags);

/* The global z of local plane zl and y of local row yl, in the distribution
   of zgroup and ygroup. */
int ft_z_of(const struct ft *ft, int zl);
int ft_y_of(const struct ft *ft, int yl);

/* A monotonic clock, seconds. */
double ft_now(void);

/* NPB's initial conditions into `a` (layout A); the factors into `tw`. */
void ft_init_conditions(struct ft *ft);
void ft_init_twiddle(struct ft *ft);

/* Runs a plan (timed into fft_time). */
void ft_exec(struct ft *ft, fftw_plan plan, double complex *in, double complex *out);

/* The 2-D FFT of A plane zl, in place. */
void ft_plane_2d(struct ft *ft, int zl);
/* The FFTs along z of every B plane of `b`, in place. */
void ft_z_all(struct ft *ft, enum ft_dir dir, double complex *b);
/* The inverse FFTs along z and x of every B plane of `a`, in place, a
   plane at a time (it stays in cache between the two). */
void ft_inverse_zx(struct ft *ft);

/* u0 *= tw; a = u0 (layout B). */
void ft_evolve(struct ft *ft);

/* Packs A (after the 2-D FFTs) into s as [q][zl][yl][x]. */
void ft_pack_forward(struct ft *ft);
/* Packs B (after ft_inverse_zx) into s as [p][yl][zl][x]. */
void ft_pack_inverse(struct ft *ft);

/* This PE's part of NPB's checksum, from c (layout C). */
double complex ft_checksum_local(const struct ft *ft);
/* Records iteration iter's global checksum (the sum over PEs). */
void ft_checksum_record(struct ft *ft, int iter, double complex global);
/* 1 when every recorded checksum is within 1e-12 of NPB's reference. */
int ft_verify(const struct ft *ft);
/* NPB's Mop/s for the whole run taking `seconds`. */
double ft_mops(const struct ft *ft, double seconds);

#endif

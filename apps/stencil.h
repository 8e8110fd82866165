/*
 * stencil.h: the 9-point 2-D stencil matrix of the SPMV and CG kernels, its
 * distribution over PEs, and the four ways of exchanging the halo that the
 * signaling-put seed compares.
 *
 * The grid is N x N points; matrix row g = i*N + j is grid point (i, j), with
 * 8 on the diagonal and -1 for each of the (up to) eight neighbours, so the
 * matrix is symmetric positive definite. PE p owns a block of whole grid
 * rows; a product y = A*x needs one grid row of x from the PE above and one
 * from the PE below: the halo.
 */
#ifndef GK_APPS_STENCIL_H
#define GK_APPS_STENCIL_H

#include <gasket.h>
#include <stddef.h>
#include <stdint.h>

enum stencil_variant {
    STENCIL_BARRIER = 0,    /* put halo, barrier, compute */
    STENCIL_PUT_FLAG = 1,   /* put halo, fence, put flag; wait for flag */
    STENCIL_NBI_FLAG = 2,   /* put_nbi halo, compute inside, quiet, put flag */
    STENCIL_PUT_SIGNAL = 3, /* put_signal halo; compute inside; sem_wait */
    STENCIL_VARIANTS = 4
};

extern const char *const stencil_variant_names[STENCIL_VARIANTS];

/* The variant called `name`, STENCIL_VARIANTS for "all", -1 if unknown. */
int stencil_variant_parse(const char *name);

/* Where the time goes, in seconds, as in the signaling-put-upc seed's charts. */
struct stencil_times {
    double compute, send, recv_wait, barrier;
};

struct stencil {
    int n;                /* grid side */
    int me, npes;
    int row0, rows;       /* my grid rows: [row0, row0 + rows) */
    /* CSR of my matrix rows; column indices are local: ghost row above is
     * [0, n), my rows [n, n + rows*n), ghost row below after them. */
    size_t *row_start;
    int32_t *col;
    double *val;
    /* Symmetric: x with ghost rows, two ghost copies per side (parity). */
    double *xbuf;         /* n * (rows + 2) doubles: ghost, mine, ghost */
    double *ghost[2][2];  /* [parity][0 = from above, 1 = from below] */
    uint64_t *flags;      /* [parity][side] iteration numbers (flag variants) */
    gk_sem_t sem[2];      /* signaling put: [0] from above, [1] from below */
    uint64_t iteration;
};

/* Collective: builds my rows of the matrix for an n x n grid. */
int stencil_create(struct stencil *s, int n);
void stencil_destroy(struct stencil *s);

/* My part of x: rows*n values the caller fills (it lives inside xbuf). */
double *stencil_x(struct stencil *s);

/* y = A*x for my rows, exchanging the halo by `variant`; times add up. */
int stencil_spmv(struct stencil *s, enum stencil_variant variant, double *y,
                 struct stencil_times *times);

/* A global row's value of y = A*x computed serially for x(g) = f(g). */
double stencil_serial_row(int n, long g, double (*f)(long g));

double stencil_now(void);

#endif /* GK_APPS_STENCIL_H */

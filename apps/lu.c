/*
 * lu: blocked dense LU factorisation without pivoting, in the style of the
 * SPLASH-2 LU kernel, whose blocks move between PEs under passive-target
 * window locks (the "Splash LU Kernel" of the seed
 * passive-rma-locks-ib-atomics). apps/lu_mpi.c is the same algorithm with
 * MPI two-sided messages.
 *
 *   gasket-run -n 4 build/apps/lu [--n 1024] [--b 32] [--grid PRxPC] [--tol 1e-10]
 *
 * Matrix and distribution. A is N x N, diagonally dominant (so no pivoting
 * is needed), cut into nb x nb blocks of B x B. Blocks are dealt 2-D
 * block-cyclically over a PR x PC grid of PEs (PR*PC = PEs, PR the largest
 * divisor <= sqrt(PEs); --grid 1xP gives the 1-D cyclic-by-block-column
 * layout): block (I,J) lives on PE (I % PR) * PC + (J % PC), in that PE's
 * part of one window, each block contiguous and row-major.
 *
 * The algorithm, step k = 0 .. nb-1 (as SPLASH-2 LU):
 *   diagonal   the owner of (k,k) factors it in place: A_kk = L_kk U_kk;
 *   perimeter  the owners of (k,j), j > k solve A_kj = L_kk^-1 A_kj, and the
 *              owners of (i,k), i > k solve A_ik = A_ik U_kk^-1;
 *   interior   the owners of (i,j), i,j > k update A_ij -= A_ik A_kj.
 * Every PE walks the steps in order doing its own part. Interior updates
 * that feed step k+1 (row and column k+1) go first, so the next diagonal
 * and perimeter owners can start while the rest of step k goes on.
 *
 * Synchronisation: the locks carry it, there is no barrier per step.
 * Besides its blocks, each PE's part of the window holds two arrays of
 * 64-bit "version" words, one per block it owns: ver_row[k][j] for the
 * blocks (k,j), j >= k (the diagonal block included) and ver_col[k][i] for
 * the blocks (i,k), i > k, laid out so that the words of one step are
 * contiguous. A block is final after step min(I,J), and its version is
 * then min(I,J) + 1 (0 before).
 *   - Owners compute in place in their own part (no other PE touches a
 *     block that is not final), then publish: under an EXCLUSIVE lock on
 *     their own part they put the new version words (one epoch for the
 *     diagonal block, one for the row of perimeter blocks, one for the
 *     column). The unlock completes the stores before the lock can pass on.
 *   - Consumers fetch: under a SHARED lock on the owner's part they get the
 *     version words of all the blocks they still need from that owner (one
 *     get of a contiguous range), get the blocks whose version is final
 *     into local buffers, and unlock. Blocks not yet final are retried in a
 *     new epoch (after a sched_yield()). A reader that sees the final
 *     version sees the data: the publisher wrote both before its exclusive
 *     unlock, and the reader's shared lock is granted after it.
 * So every piece of data that crosses PEs is read under a shared lock, and
 * every "it is ready" crosses PEs under an exclusive one (the window is
 * GK_WIN_STRICT, so an RMA call outside an epoch would fail). A block that
 * is final never changes again, so the readers' gets never race the
 * owner's computation, which works in place on its own part with plain
 * loads and stores.
 *
 * Check: after the factorisation every PE gathers the factored matrix
 * (gets under lock_all), forms its own blocks of L*U, and the PEs sum
 * ||L*U - A||_F^2 and ||A||_F^2 with gk_allreduce; the run fails (exit 1)
 * unless ||L*U - A||_F / ||A||_F < tol.
 *
 * Times per PE, in ms, printed as the average over PEs (and the largest
 * total): compute (the block kernels), comm (the gets of block data),
 * sync (lock and unlock calls, the version-word gets and the retries:
 * the lock wait and the waiting for data to become final) and the total
 * from a barrier before the first step to the end of the PE's last step.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gasket.h>

static void die(const char *what, int status)
{
    fprintf(stderr, "lu: %s failed: %s\n", what, gk_strerror(status));
    gk_abort(1, what);
}

#define CHECK(call)                                                            \
    do {                                                                       \
        int check_status_ = (call);                                            \
        if (check_status_ != GK_OK)                                            \
            die(#call, check_status_);                                         \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* The matrix and the block kernels (the same in apps/lu_mpi.c)            */
/* ------------------------------------------------------------------------ */

/* Entry (r, c) of A: values in [-0.5, 0.5) off the diagonal, N on it, so
 * every row is strictly diagonally dominant. */
static double a_entry(long n, long r, long c)
{
    if (r == c)
        return (double)n;
    unsigned long h = (unsigned long)(r * 2654435761L + c * 40503L + 12345L);
    h ^= h >> 13;
    h *= 0x5bd1e995UL;
    h ^= h >> 15;
    return (double)(h % 1000003UL) / 1000003.0 - 0.5;
}

/* a = L U in place: L unit lower, U upper (no pivoting). */
static void block_factor(int b, double *restrict a)
{
    for (int p = 0; p < b; p++) {
        double inv = 1.0 / a[p * b + p];
        for (int r = p + 1; r < b; r++) {
            double l = a[r * b + p] *= inv;
            for (int c = p + 1; c < b; c++)
                a[r * b + c] -= l * a[p * b + c];
        }
    }
}

/* a = L^-1 a, L the unit lower triangle of d. */
static void block_lower_solve(int b, const double *restrict d, double *restrict a)
{
    for (int r = 1; r < b; r++)
        for (int p = 0; p < r; p++) {
            double l = d[r * b + p];
            for (int c = 0; c < b; c++)
                a[r * b + c] -= l * a[p * b + c];
        }
}

/* a = a U^-1, U the upper triangle of d. */
static void block_upper_solve(int b, const double *restrict d, double *restrict a)
{
    for (int r = 0; r < b; r++)
        for (int p = 0; p < b; p++) {
            double x = a[r * b + p] /= d[p * b + p];
            for (int c = p + 1; c < b; c++)
                a[r * b + c] -= x * d[p * b + c];
        }
}

/* c -= x y */
static void block_gemm_sub(int b, double *restrict c, const double *restrict x,
                           const double *restrict y)
{
    for (int r = 0; r < b; r++)
        for (int p = 0; p < b; p++) {
            double v = x[r * b + p];
            for (int q = 0; q < b; q++)
                c[r * b + q] -= v * y[p * b + q];
        }
}

/* ------------------------------------------------------------------------ */
/* Distribution                                                             */
/* ------------------------------------------------------------------------ */

struct lu {
    int n, b, nb;           /* matrix side, block side, blocks per side */
    int me, npes, pr, pc;   /* PE grid PR x PC */
    int myr, myc;           /* my grid coordinates */
    int nlr, nlc;           /* local block rows and columns (the most any PE has) */
    size_t bb;              /* doubles per block */
    gk_win_t *win;
    char *base;             /* my part of the window */
    size_t ver_row_disp, ver_col_disp, blocks_disp;
    uint64_t *shadow;       /* my version words as I publish them (nb values) */
    uint64_t *vers;         /* version words fetched from a peer (nb values) */
    double *diagbuf, *rowbuf, *colbuf; /* fetched blocks of the current step */
    double compute, comm, sync;
    long polls;
};

static int owner(const struct lu *lu, int i, int j)
{
    return (i % lu->pr) * lu->pc + (j % lu->pc);
}

/* Displacement of block (i,j) in its owner's part. */
static size_t block_disp(const struct lu *lu, int i, int j)
{
    size_t local = (size_t)(i / lu->pr) * (size_t)lu->nlc + (size_t)(j / lu->pc);
    return lu->blocks_disp + local * lu->bb * sizeof(double);
}

/* My block (i,j), which I must own. */
static double *my_block(const struct lu *lu, int i, int j)
{
    return (double *)(lu->base + block_disp(lu, i, j));
}

/* The first index > k that is congruent to `res` modulo `mod`. */
static int first_after(int k, int res, int mod)
{
    int x = k + 1 + ((res - (k + 1) % mod) + mod) % mod;
    return x;
}

/* ------------------------------------------------------------------------ */
/* Publishing and fetching under the window locks                          */
/* ------------------------------------------------------------------------ */

/* Version words [lo, hi) of step k in the array at `array_disp` become
 * `value` where `mine(i)`; put under an exclusive lock on my own part. */
static void publish(struct lu *lu, size_t array_disp, int k, int lo, int hi, int stride)
{
    double t0 = now();
    for (int x = lo; x < hi; x += stride)
        lu->shadow[x] = (uint64_t)k + 1;
    size_t disp = array_disp + ((size_t)k * (size_t)lu->nb + (size_t)lo) * sizeof(uint64_t);
    CHECK(gk_win_lock(lu->win, lu->me, GK_LOCK_EXCLUSIVE, 0));
    CHECK(gk_win_put(lu->win, lu->me, disp, lu->shadow + lo,
                     (size_t)(hi - lo) * sizeof(uint64_t)));
    CHECK(gk_win_unlock(lu->win, lu->me));
    lu->sync += now() - t0;
}

/* A set of blocks of step k to fetch from one owner: indices lo, lo+stride,
 * ... < hi of the version array at array_disp; index x is block
 * (x, k) (column array) or (k, x) (row array); it lands in dst[x / div]. */
struct fetch {
    int pe;
    size_t array_disp;
    int column; /* 1: blocks (x, k); 0: blocks (k, x) */
    int lo, hi, stride, div;
    double *dst;
    int pending;
    unsigned char *done; /* per index slot, (x - lo) / stride */
};

static void fetch_init(struct fetch *f, unsigned char *done, int pe, size_t array_disp,
                       int column, int lo, int hi, int stride, int div, double *dst)
{
    f->pe = pe;
    f->array_disp = array_disp;
    f->column = column;
    f->lo = lo;
    f->hi = hi;
    f->stride = stride;
    f->div = div;
    f->dst = dst;
    f->done = done;
    f->pending = lo < hi ? (hi - lo + stride - 1) / stride : 0;
    memset(done, 0, (size_t)f->pending);
}

/* One shared-lock epoch on f->pe: read the versions, get what is final. */
static void fetch_try(struct lu *lu, struct fetch *f, int k)
{
    double t0 = now(), data = 0;
    CHECK(gk_win_lock(lu->win, f->pe, GK_LOCK_SHARED, 0));
    size_t disp = f->array_disp +
                  ((size_t)k * (size_t)lu->nb + (size_t)f->lo) * sizeof(uint64_t);
    CHECK(gk_win_get(lu->win, f->pe, lu->vers, disp,
                     (size_t)(f->hi - f->lo) * sizeof(uint64_t)));
    for (int x = f->lo, s = 0; x < f->hi; x += f->stride, s++) {
        if (f->done[s] || lu->vers[x - f->lo] != (uint64_t)k + 1)
            continue;
        double t1 = now();
        size_t bd = f->column ? block_disp(lu, x, k) : block_disp(lu, k, x);
        CHECK(gk_win_get(lu->win, f->pe, f->dst + (size_t)(x / f->div) * lu->bb, bd,
                         lu->bb * sizeof(double)));
        data += now() - t1;
        f->done[s] = 1;
        f->pending--;
    }
    CHECK(gk_win_unlock(lu->win, f->pe));
    lu->comm += data;
    lu->sync += now() - t0 - data;
}

/* Fetches every block of the `nf` sets, retrying until all are final. */
static void fetch_all(struct lu *lu, struct fetch *f, int nf, int k)
{
    for (;;) {
        int pending = 0;
        for (int i = 0; i < nf; i++) {
            if (f[i].pending)
                fetch_try(lu, &f[i], k);
            pending += f[i].pending;
        }
        if (!pending)
            return;
        double t0 = now();
        lu->polls++;
        sched_yield();
        lu->sync += now() - t0;
    }
}

/* ------------------------------------------------------------------------ */
/* The factorisation                                                        */
/* ------------------------------------------------------------------------ */

static void interior_update(struct lu *lu, int k, int i, int j, int row_owner_me,
                            int col_owner_me)
{
    const double *x = col_owner_me ? my_block(lu, i, k) : lu->colbuf + (size_t)(i / lu->pr) * lu->bb;
    const double *y = row_owner_me ? my_block(lu, k, j) : lu->rowbuf + (size_t)(j / lu->pc) * lu->bb;
    double t0 = now();
    block_gemm_sub(lu->b, my_block(lu, i, j), x, y);
    lu->compute += now() - t0;
}

static void factorise(struct lu *lu)
{
    int nb = lu->nb, b = lu->b;
    unsigned char *done = malloc(2 * (size_t)nb + 2);
    for (int k = 0; k < nb; k++) {
        int kr = k % lu->pr, kc = k % lu->pc;
        int diag_pe = owner(lu, k, k);
        /* My perimeter and interior index ranges: rows i > k with
         * i % PR == myr start at i0, columns j > k with j % PC == myc at j0. */
        int i0 = first_after(k, lu->myr, lu->pr), j0 = first_after(k, lu->myc, lu->pc);
        int have_rows = i0 < nb, have_cols = j0 < nb;
        int row_perim = lu->myr == kr && have_cols; /* blocks (k, j0 ..) */
        int col_perim = lu->myc == kc && have_rows; /* blocks (i0 .., k) */

        /* Diagonal. */
        if (diag_pe == lu->me) {
            double t0 = now();
            block_factor(b, my_block(lu, k, k));
            lu->compute += now() - t0;
            publish(lu, lu->ver_row_disp, k, k, k + 1, 1);
        }

        /* Perimeter. */
        if (row_perim || col_perim) {
            const double *d = diag_pe == lu->me ? my_block(lu, k, k) : lu->diagbuf;
            if (diag_pe != lu->me) {
                struct fetch f;
                fetch_init(&f, done, diag_pe, lu->ver_row_disp, 0, k, k + 1, 1, nb,
                           lu->diagbuf);
                fetch_all(lu, &f, 1, k);
            }
            if (row_perim) {
                double t0 = now();
                for (int j = j0; j < nb; j += lu->pc)
                    block_lower_solve(b, d, my_block(lu, k, j));
                lu->compute += now() - t0;
                publish(lu, lu->ver_row_disp, k, j0, nb, lu->pc);
            }
            if (col_perim) {
                double t0 = now();
                for (int i = i0; i < nb; i += lu->pr)
                    block_upper_solve(b, d, my_block(lu, i, k));
                lu->compute += now() - t0;
                publish(lu, lu->ver_col_disp, k, i0, nb, lu->pr);
            }
        }

        /* Interior. */
        if (!(have_rows && have_cols))
            continue;
        int row_pe = kr * lu->pc + lu->myc; /* owns (k, j) for my columns */
        int col_pe = lu->myr * lu->pc + kc; /* owns (i, k) for my rows */
        struct fetch f[2];
        int nf = 0;
        if (row_pe != lu->me)
            fetch_init(&f[nf++], done, row_pe, lu->ver_row_disp, 0, j0, nb, lu->pc, lu->pc,
                       lu->rowbuf);
        if (col_pe != lu->me)
            fetch_init(&f[nf++], done + nb + 1, col_pe, lu->ver_col_disp, 1, i0, nb, lu->pr,
                       lu->pr, lu->colbuf);
        fetch_all(lu, f, nf, k);
        int rme = row_pe == lu->me, cme = col_pe == lu->me;
        /* Row and column k+1 first: step k+1 needs them. */
        if (i0 == k + 1)
            for (int j = j0; j < nb; j += lu->pc)
                interior_update(lu, k, i0, j, rme, cme);
        if (j0 == k + 1)
            for (int i = i0; i < nb; i += lu->pr)
                if (i != k + 1)
                    interior_update(lu, k, i, j0, rme, cme);
        for (int i = i0; i < nb; i += lu->pr)
            for (int j = j0; j < nb; j += lu->pc)
                if (i != k + 1 && j != k + 1)
                    interior_update(lu, k, i, j, rme, cme);
    }
    free(done);
}

/* ------------------------------------------------------------------------ */
/* The check                                                                */
/* ------------------------------------------------------------------------ */

/* Sums ||L*U - A||^2 and ||A||^2 over my blocks; f holds every factored
 * block, block-major ((I*nb + J) * bb). */
static void residual(const struct lu *lu, const double *f, double *err2_p, double *norm2_p)
{
    int b = lu->b, nb = lu->nb;
    size_t bb = lu->bb;
    double *c = malloc(bb * sizeof(double)), *l = malloc(bb * sizeof(double));
    double *u = malloc(bb * sizeof(double));
    double err2 = 0, norm2 = 0;
    for (int bi = lu->myr; bi < nb; bi += lu->pr)
        for (int bj = lu->myc; bj < nb; bj += lu->pc) {
            memset(c, 0, bb * sizeof(double));
            int kmax = bi < bj ? bi : bj;
            for (int kk = 0; kk <= kmax; kk++) {
                const double *lk = f + ((size_t)bi * nb + kk) * bb;
                const double *uk = f + ((size_t)kk * nb + bj) * bb;
                if (kk == bi) { /* unit lower triangle of the diagonal block */
                    for (int r = 0; r < b; r++)
                        for (int q = 0; q < b; q++)
                            l[r * b + q] = r == q ? 1.0 : r > q ? lk[r * b + q] : 0.0;
                    lk = l;
                }
                if (kk == bj) { /* upper triangle */
                    for (int r = 0; r < b; r++)
                        for (int q = 0; q < b; q++)
                            u[r * b + q] = r <= q ? uk[r * b + q] : 0.0;
                    uk = u;
                }
                block_gemm_sub(b, c, lk, uk); /* c = -(L U) */
            }
            for (int r = 0; r < b; r++)
                for (int q = 0; q < b; q++) {
                    double a = a_entry(lu->n, (long)bi * b + r, (long)bj * b + q);
                    double d = -c[r * b + q] - a;
                    err2 += d * d;
                    norm2 += a * a;
                }
        }
    free(c);
    free(l);
    free(u);
    *err2_p = err2;
    *norm2_p = norm2;
}

static double check(struct lu *lu)
{
    int nb = lu->nb;
    double *f = malloc((size_t)nb * nb * lu->bb * sizeof(double));
    if (f == NULL)
        gk_abort(1, "lu: out of memory for the check");
    CHECK(gk_win_lock_all(lu->win, 0));
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++)
            CHECK(gk_win_get(lu->win, owner(lu, i, j), f + ((size_t)i * nb + j) * lu->bb,
                             block_disp(lu, i, j), lu->bb * sizeof(double)));
    CHECK(gk_win_unlock_all(lu->win));
    double local[2], sum[2];
    residual(lu, f, &local[0], &local[1]);
    free(f);
    CHECK(gk_allreduce(sum, local, 2, GK_DTYPE_DOUBLE, GK_OP_SUM));
    return sqrt(sum[0] / sum[1]);
}

/* ------------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr, "usage: lu [--n N] [--b B] [--grid PRxPC] [--tol T]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int n = 1024, b = 32, pr = 0, pc = 0;
    double tol = 1e-10;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--b") == 0 && i + 1 < argc)
            b = atoi(argv[++i]);
        else if (strcmp(argv[i], "--tol") == 0 && i + 1 < argc)
            tol = atof(argv[++i]);
        else if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &pr, &pc) != 2 || pr < 1 || pc < 1)
                usage();
        } else
            usage();
    }
    CHECK(gk_init());
    struct lu lu;
    memset(&lu, 0, sizeof lu);
    lu.me = gk_my_pe();
    lu.npes = gk_n_pes();
    if (pr == 0) {
        for (pr = 1; (pr + 1) * (pr + 1) <= lu.npes; pr++)
            ;
        while (lu.npes % pr)
            pr--;
        pc = lu.npes / pr;
    }
    if (b < 1 || n < b || n % b != 0 || pr * pc != lu.npes) {
        if (lu.me == 0)
            fprintf(stderr, "lu: need B >= 1 dividing N and a grid of %d PEs (have "
                            "N %d, B %d, grid %dx%d)\n", lu.npes, n, b, pr, pc);
        gk_abort(2, "bad arguments");
    }
    lu.n = n;
    lu.b = b;
    lu.nb = n / b;
    lu.pr = pr;
    lu.pc = pc;
    lu.myr = lu.me / pc;
    lu.myc = lu.me % pc;
    lu.nlr = (lu.nb + pr - 1) / pr;
    lu.nlc = (lu.nb + pc - 1) / pc;
    lu.bb = (size_t)b * (size_t)b;
    size_t vers = (size_t)lu.nb * (size_t)lu.nb * sizeof(uint64_t);
    lu.ver_row_disp = 0;
    lu.ver_col_disp = vers;
    lu.blocks_disp = (2 * vers + 63) & ~(size_t)63;
    size_t size = lu.blocks_disp + (size_t)lu.nlr * lu.nlc * lu.bb * sizeof(double);
    void *base;
    CHECK(gk_win_allocate(size, GK_WIN_STRICT, &base, &lu.win)); /* all RMA in epochs */
    lu.base = base;
    lu.shadow = calloc((size_t)lu.nb, sizeof(uint64_t));
    lu.vers = calloc((size_t)lu.nb, sizeof(uint64_t));
    lu.diagbuf = malloc(lu.bb * sizeof(double));
    lu.rowbuf = malloc((size_t)lu.nlc * lu.bb * sizeof(double));
    lu.colbuf = malloc((size_t)lu.nlr * lu.bb * sizeof(double));
    if (!lu.shadow || !lu.vers || !lu.diagbuf || !lu.rowbuf || !lu.colbuf)
        gk_abort(1, "lu: out of memory");

    for (int bi = lu.myr; bi < lu.nb; bi += pr)
        for (int bj = lu.myc; bj < lu.nb; bj += pc) {
            double *blk = my_block(&lu, bi, bj);
            for (int r = 0; r < b; r++)
                for (int q = 0; q < b; q++)
                    blk[r * b + q] = a_entry(n, (long)bi * b + r, (long)bj * b + q);
        }

    CHECK(gk_barrier());
    double start = now();
    factorise(&lu);
    double total = now() - start;
    CHECK(gk_barrier());
    double err = check(&lu);

    double local[5] = {total, lu.compute, lu.comm, lu.sync, (double)lu.polls}, sum[5], tmax;
    CHECK(gk_allreduce(sum, local, 5, GK_DTYPE_DOUBLE, GK_OP_SUM));
    CHECK(gk_allreduce(&tmax, &total, 1, GK_DTYPE_DOUBLE, GK_OP_MAX));
    int ok = err < tol;
    if (lu.me == 0) {
        double scale = 1e3 / lu.npes;
        printf("# lu: %d x %d matrix, %d x %d blocks, %d PEs on a %d x %d grid "
               "(2-D block-cyclic); ms (average over PEs), max_total the slowest PE, "
               "%.0f polls per PE\n"
               "# %-14s %10s %10s %10s %10s %10s %8s %10s %s\n",
               n, n, b, b, lu.npes, pr, pc, sum[4] / lu.npes, "variant", "total", "compute",
               "comm", "sync", "max_total", "GFlop/s", "residual", "check");
        printf("  %-14s %10.3f %10.3f %10.3f %10.3f %10.3f %8.2f %10.2e %s\n", "gasket-locks",
               sum[0] * scale, sum[1] * scale, sum[2] * scale, sum[3] * scale, tmax * 1e3,
               2.0 / 3.0 * (double)n * n * n / tmax * 1e-9, err, ok ? "ok" : "WRONG");
    }
    free(lu.shadow);
    free(lu.vers);
    free(lu.diagbuf);
    free(lu.rowbuf);
    free(lu.colbuf);
    CHECK(gk_win_free(lu.win));
    CHECK(gk_finalize());
    return ok ? 0 : 1;
}

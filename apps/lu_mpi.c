/*
 * lu_mpi: the LU factorisation of apps/lu.c with MPI two-sided messages
 * instead of window locks: the same matrix, block kernels, 2-D
 * block-cyclic distribution, step order and check, so the two can be
 * timed against each other (docs/PERFORMANCE.md, "LU").
 *
 *   mpirun -n 4 build/apps/lu_mpi [--n 1024] [--b 32] [--grid PRxPC] [--tol 1e-10]
 *
 * Communication is pushed by the owners: when a block becomes final (the
 * diagonal block after its factorisation, a perimeter block after its
 * solve) its owner MPI_Isends it, straight from its storage (a final block
 * never changes), to every PE that will use it, tagged with the block's
 * number I*nb + J. At the start of step k every PE posts MPI_Irecvs for
 * the blocks of step k it needs (the diagonal block if it owns perimeter
 * blocks, the row-k blocks of its columns and the column-k blocks of its
 * rows) and waits for them just before it uses them. The send requests
 * are completed at the end.
 *
 * Times per PE, in ms, average over PEs: compute (the block kernels), comm
 * (MPI_Isend and MPI_Irecv calls and the final wait for the sends), sync
 * (MPI_Wait/MPI_Waitall on receives: waiting for the data to be produced
 * and to arrive), total. The check gathers the matrix with MPI_Allgather.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double now(void)
{
    return MPI_Wtime();
}

/* ------------------------------------------------------------------------ */
/* The matrix and the block kernels (the same in apps/lu.c)                */
/* ------------------------------------------------------------------------ */

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

static void block_lower_solve(int b, const double *restrict d, double *restrict a)
{
    for (int r = 1; r < b; r++)
        for (int p = 0; p < r; p++) {
            double l = d[r * b + p];
            for (int c = 0; c < b; c++)
                a[r * b + c] -= l * a[p * b + c];
        }
}

static void block_upper_solve(int b, const double *restrict d, double *restrict a)
{
    for (int r = 0; r < b; r++)
        for (int p = 0; p < b; p++) {
            double x = a[r * b + p] /= d[p * b + p];
            for (int c = p + 1; c < b; c++)
                a[r * b + c] -= x * d[p * b + c];
        }
}

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
    int n, b, nb;
    int me, npes, pr, pc, myr, myc, nlr, nlc;
    size_t bb;
    double *blocks;          /* my blocks, (I/PR)*nlc + J/PC */
    double *diagbuf, *rowbuf, *colbuf;
    MPI_Request *sends;      /* every send, completed at the end */
    size_t nsends, capsends;
    MPI_Request *recvs;      /* the receives of the current step */
    double compute, comm, sync;
};

static int owner(const struct lu *lu, int i, int j)
{
    return (i % lu->pr) * lu->pc + (j % lu->pc);
}

static double *my_block(const struct lu *lu, int i, int j)
{
    return lu->blocks + ((size_t)(i / lu->pr) * lu->nlc + (size_t)(j / lu->pc)) * lu->bb;
}

static int first_after(int k, int res, int mod)
{
    return k + 1 + ((res - (k + 1) % mod) + mod) % mod;
}

/* Does grid row r own a block row i > k (column c a block column j > k)? */
static int has_row_after(const struct lu *lu, int r, int k)
{
    return first_after(k, r, lu->pr) < lu->nb;
}
static int has_col_after(const struct lu *lu, int c, int k)
{
    return first_after(k, c, lu->pc) < lu->nb;
}

static void send_block(struct lu *lu, const double *blk, int pe, int tag)
{
    if (lu->nsends == lu->capsends) {
        lu->capsends = lu->capsends ? 2 * lu->capsends : 256;
        lu->sends = realloc(lu->sends, lu->capsends * sizeof(MPI_Request));
        if (lu->sends == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Isend(blk, (int)lu->bb, MPI_DOUBLE, pe, tag, MPI_COMM_WORLD, &lu->sends[lu->nsends++]);
}

/* Sends final block (i,j) of step k to everyone who needs it. */
static void send_diag(struct lu *lu, int k)
{
    double t0 = now();
    int kr = k % lu->pr, kc = k % lu->pc, tag = k * lu->nb + k;
    const double *blk = my_block(lu, k, k);
    for (int pe = 0; pe < lu->npes; pe++) {
        int r = pe / lu->pc, c = pe % lu->pc;
        if (pe != lu->me && ((r == kr && has_col_after(lu, c, k)) ||
                             (c == kc && has_row_after(lu, r, k))))
            send_block(lu, blk, pe, tag);
    }
    lu->comm += now() - t0;
}

static void send_row_perimeter(struct lu *lu, int k, int j)
{
    double t0 = now();
    for (int r = 0; r < lu->pr; r++) {
        int pe = r * lu->pc + lu->myc;
        if (pe != lu->me && has_row_after(lu, r, k))
            send_block(lu, my_block(lu, k, j), pe, k * lu->nb + j);
    }
    lu->comm += now() - t0;
}

static void send_col_perimeter(struct lu *lu, int k, int i)
{
    double t0 = now();
    for (int c = 0; c < lu->pc; c++) {
        int pe = lu->myr * lu->pc + c;
        if (pe != lu->me && has_col_after(lu, c, k))
            send_block(lu, my_block(lu, i, k), pe, i * lu->nb + k);
    }
    lu->comm += now() - t0;
}

static void wait_recvs(struct lu *lu, MPI_Request *reqs, int n)
{
    if (n == 0)
        return;
    double t0 = now();
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    lu->sync += now() - t0;
}

/* ------------------------------------------------------------------------ */
/* The factorisation                                                        */
/* ------------------------------------------------------------------------ */

static void interior_update(struct lu *lu, int k, int i, int j, int rme, int cme)
{
    const double *x = cme ? my_block(lu, i, k) : lu->colbuf + (size_t)(i / lu->pr) * lu->bb;
    const double *y = rme ? my_block(lu, k, j) : lu->rowbuf + (size_t)(j / lu->pc) * lu->bb;
    double t0 = now();
    block_gemm_sub(lu->b, my_block(lu, i, j), x, y);
    lu->compute += now() - t0;
}

static void factorise(struct lu *lu)
{
    int nb = lu->nb, b = lu->b;
    for (int k = 0; k < nb; k++) {
        int kr = k % lu->pr, kc = k % lu->pc;
        int diag_pe = owner(lu, k, k);
        int i0 = first_after(k, lu->myr, lu->pr), j0 = first_after(k, lu->myc, lu->pc);
        int have_rows = i0 < nb, have_cols = j0 < nb;
        int row_perim = lu->myr == kr && have_cols;
        int col_perim = lu->myc == kc && have_rows;
        int row_pe = kr * lu->pc + lu->myc, col_pe = lu->myr * lu->pc + kc;
        int interior = have_rows && have_cols;

        /* Post this step's receives: diagonal, row k, column k. */
        double t0 = now();
        int ndiag = 0, nrow = 0, ncol = 0;
        MPI_Request *rq = lu->recvs;
        if ((row_perim || col_perim) && diag_pe != lu->me)
            MPI_Irecv(lu->diagbuf, (int)lu->bb, MPI_DOUBLE, diag_pe, k * nb + k,
                      MPI_COMM_WORLD, &rq[ndiag++]);
        if (interior && row_pe != lu->me)
            for (int j = j0; j < nb; j += lu->pc)
                MPI_Irecv(lu->rowbuf + (size_t)(j / lu->pc) * lu->bb, (int)lu->bb, MPI_DOUBLE,
                          row_pe, k * nb + j, MPI_COMM_WORLD, &rq[ndiag + nrow++]);
        if (interior && col_pe != lu->me)
            for (int i = i0; i < nb; i += lu->pr)
                MPI_Irecv(lu->colbuf + (size_t)(i / lu->pr) * lu->bb, (int)lu->bb, MPI_DOUBLE,
                          col_pe, i * nb + k, MPI_COMM_WORLD, &rq[ndiag + nrow + ncol++]);
        lu->comm += now() - t0;

        if (diag_pe == lu->me) {
            t0 = now();
            block_factor(b, my_block(lu, k, k));
            lu->compute += now() - t0;
            send_diag(lu, k);
        }
        if (row_perim || col_perim) {
            wait_recvs(lu, rq, ndiag);
            const double *d = diag_pe == lu->me ? my_block(lu, k, k) : lu->diagbuf;
            if (row_perim)
                for (int j = j0; j < nb; j += lu->pc) {
                    t0 = now();
                    block_lower_solve(b, d, my_block(lu, k, j));
                    lu->compute += now() - t0;
                    send_row_perimeter(lu, k, j);
                }
            if (col_perim)
                for (int i = i0; i < nb; i += lu->pr) {
                    t0 = now();
                    block_upper_solve(b, d, my_block(lu, i, k));
                    lu->compute += now() - t0;
                    send_col_perimeter(lu, k, i);
                }
        }
        if (!interior)
            continue;
        wait_recvs(lu, rq + ndiag, nrow + ncol);
        int rme = row_pe == lu->me, cme = col_pe == lu->me;
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
    double t0 = now();
    MPI_Waitall((int)lu->nsends, lu->sends, MPI_STATUSES_IGNORE);
    lu->comm += now() - t0;
}

/* ------------------------------------------------------------------------ */
/* The check (as apps/lu.c, the matrix gathered with MPI_Allgather)        */
/* ------------------------------------------------------------------------ */

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
                if (kk == bi) {
                    for (int r = 0; r < b; r++)
                        for (int q = 0; q < b; q++)
                            l[r * b + q] = r == q ? 1.0 : r > q ? lk[r * b + q] : 0.0;
                    lk = l;
                }
                if (kk == bj) {
                    for (int r = 0; r < b; r++)
                        for (int q = 0; q < b; q++)
                            u[r * b + q] = r <= q ? uk[r * b + q] : 0.0;
                    uk = u;
                }
                block_gemm_sub(b, c, lk, uk);
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
    size_t mine = (size_t)lu->nlr * lu->nlc * lu->bb;
    double *all = malloc(mine * lu->npes * sizeof(double));
    double *f = malloc((size_t)nb * nb * lu->bb * sizeof(double));
    if (all == NULL || f == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Allgather(lu->blocks, (int)mine, MPI_DOUBLE, all, (int)mine, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++) {
            size_t local = (size_t)(i / lu->pr) * lu->nlc + (size_t)(j / lu->pc);
            memcpy(f + ((size_t)i * nb + j) * lu->bb,
                   all + (size_t)owner(lu, i, j) * mine + local * lu->bb,
                   lu->bb * sizeof(double));
        }
    free(all);
    double local[2], sum[2];
    residual(lu, f, &local[0], &local[1]);
    free(f);
    MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sqrt(sum[0] / sum[1]);
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = 1024, b = 32, pr = 0, pc = 0, bad = 0;
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
                bad = 1;
        } else
            bad = 1;
    }
    struct lu lu;
    memset(&lu, 0, sizeof lu);
    MPI_Comm_rank(MPI_COMM_WORLD, &lu.me);
    MPI_Comm_size(MPI_COMM_WORLD, &lu.npes);
    if (pr == 0) {
        for (pr = 1; (pr + 1) * (pr + 1) <= lu.npes; pr++)
            ;
        while (lu.npes % pr)
            pr--;
        pc = lu.npes / pr;
    }
    int *tag_ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    if (bad || b < 1 || n < b || n % b != 0 || pr * pc != lu.npes ||
        (flag && (long)(n / b) * (n / b) > (long)*tag_ub)) {
        if (lu.me == 0)
            fprintf(stderr, "usage: lu_mpi [--n N] [--b B] [--grid PRxPC] [--tol T]: "
                            "B must divide N, the grid hold %d ranks, and (N/B)^2 fit "
                            "in MPI_TAG_UB\n", lu.npes);
        MPI_Finalize();
        return 2;
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
    lu.blocks = malloc((size_t)lu.nlr * lu.nlc * lu.bb * sizeof(double));
    lu.diagbuf = malloc(lu.bb * sizeof(double));
    lu.rowbuf = malloc((size_t)lu.nlc * lu.bb * sizeof(double));
    lu.colbuf = malloc((size_t)lu.nlr * lu.bb * sizeof(double));
    lu.recvs = malloc((size_t)(lu.nlr + lu.nlc + 1) * sizeof(MPI_Request));
    if (!lu.blocks || !lu.diagbuf || !lu.rowbuf || !lu.colbuf || !lu.recvs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(lu.blocks, 0, (size_t)lu.nlr * lu.nlc * lu.bb * sizeof(double));
    for (int bi = lu.myr; bi < lu.nb; bi += pr)
        for (int bj = lu.myc; bj < lu.nb; bj += pc) {
            double *blk = my_block(&lu, bi, bj);
            for (int r = 0; r < b; r++)
                for (int q = 0; q < b; q++)
                    blk[r * b + q] = a_entry(n, (long)bi * b + r, (long)bj * b + q);
        }

    MPI_Barrier(MPI_COMM_WORLD);
    double start = now();
    factorise(&lu);
    double total = now() - start;
    MPI_Barrier(MPI_COMM_WORLD);
    double err = check(&lu);

    double local[4] = {total, lu.compute, lu.comm, lu.sync}, sum[4], tmax;
    MPI_Allreduce(local, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&total, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int ok = err < tol;
    if (lu.me == 0) {
        double scale = 1e3 / lu.npes;
        printf("# lu_mpi: %d x %d matrix, %d x %d blocks, %d ranks on a %d x %d grid "
               "(2-D block-cyclic); ms (average over ranks), max_total the slowest rank\n"
               "# %-14s %10s %10s %10s %10s %10s %8s %10s %s\n",
               n, n, b, b, lu.npes, pr, pc, "variant", "total", "compute", "comm", "sync",
               "max_total", "GFlop/s", "residual", "check");
        printf("  %-14s %10.3f %10.3f %10.3f %10.3f %10.3f %8.2f %10.2e %s\n", "mpi-sendrecv",
               sum[0] * scale, sum[1] * scale, sum[2] * scale, sum[3] * scale, tmax * 1e3,
               2.0 / 3.0 * (double)n * n * n / tmax * 1e-9, err, ok ? "ok" : "WRONG");
    }
    free(lu.blocks);
    free(lu.diagbuf);
    free(lu.rowbuf);
    free(lu.colbuf);
    free(lu.recvs);
    free(lu.sends);
    MPI_Finalize();
    return ok ? 0 : 1;
}

/*
 * stencil.c: the distributed 9-point stencil matrix and its halo exchanges.
 * The layout and the four variants are described in stencil.h.
 *
 * Ghost rows are double-buffered by iteration parity: a neighbour can be at
 * most one product ahead of us (its next product needs our halo, which we
 * send only when we start ours), so it never writes the buffer we are
 * reading. For the same reason the signaling-put variant uses one
 * semaphore per side: a count shared by both sides could be satisfied by
 * two signals from one fast neighbour.
 */
#include "stencil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const stencil_variant_names[STENCIL_VARIANTS] = {
    "barrier", "put+fence+flag", "nbi put+flag", "signaling put"};

int stencil_variant_parse(const char *name)
{
    for (int v = 0; v < STENCIL_VARIANTS; v++)
        if (strcmp(name, stencil_variant_names[v]) == 0)
            return v;
    return strcmp(name, "all") == 0 ? STENCIL_VARIANTS : -1;
}

double stencil_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double stencil_serial_row(int n, long g, double (*f)(long g))
{
    long i = g / n, j = g % n;
    double sum = 0;
    for (long di = -1; di <= 1; di++) {
        for (long dj = -1; dj <= 1; dj++) {
            long ii = i + di, jj = j + dj;
            if (ii < 0 || ii >= n || jj < 0 || jj >= n)
                continue;
            sum += (di == 0 && dj == 0 ? 8.0 : -1.0) * f(ii * n + jj);
        }
    }
    return sum;
}

static int stencil_build_matrix(struct stencil *s)
{
    int n = s->n;
    size_t nrows = (size_t)s->rows * (size_t)n;
    s->row_start = malloc((nrows + 1) * sizeof(size_t));
    s->col = malloc(nrows * 9 * sizeof(int32_t));
    s->val = malloc(nrows * 9 * sizeof(double));
    if (s->row_start == NULL || s->col == NULL || s->val == NULL)
        return GK_ERR_NOMEM;
    size_t nz = 0;
    for (int li = 0; li < s->rows; li++) {
        int gi = s->row0 + li;
        for (int j = 0; j < n; j++) {
            s->row_start[(size_t)li * n + (size_t)j] = nz;
            for (int di = -1; di <= 1; di++) {
                for (int dj = -1; dj <= 1; dj++) {
                    int ii = gi + di, jj = j + dj;
                    if (ii < 0 || ii >= n || jj < 0 || jj >= n)
                        continue;
                    /* Local x index: ghost row above is local row -1. */
                    s->col[nz] = (int32_t)((li + di + 1) * n + jj);
                    s->val[nz] = (di == 0 && dj == 0) ? 8.0 : -1.0;
                    nz++;
                }
            }
        }
    }
    s->row_start[nrows] = nz;
    return GK_OK;
}

int stencil_create(struct stencil *s, int n)
{
    memset(s, 0, sizeof(*s));
    s->n = n;
    s->me = gk_my_pe();
    s->npes = gk_n_pes();
    int base = n / s->npes, extra = n % s->npes;
    s->rows = base + (s->me < extra);
    s->row0 = s->me * base + (s->me < extra ? s->me : extra);
    /* Symmetric objects must have the same size everywhere: size for the
     * largest block. */
    size_t max_rows = (size_t)base + (extra > 0);
    s->xbuf = gk_calloc((max_rows + 2) * (size_t)n, sizeof(double));
    double *ghosts = gk_calloc(4 * (size_t)n, sizeof(double));
    s->flags = gk_calloc(4, sizeof(uint64_t));
    if (s->xbuf == NULL || ghosts == NULL || s->flags == NULL)
        return GK_ERR_NOMEM;
    for (int parity = 0; parity < 2; parity++)
        for (int side = 0; side < 2; side++)
            s->ghost[parity][side] = ghosts + (size_t)(parity * 2 + side) * (size_t)n;
    for (int side = 0; side < 2; side++) {
        int status = gk_sem_alloc_all(GK_SEM_SINGLE_PRODUCER | GK_SEM_SINGLE_CONSUMER,
                                      &s->sem[side]);
        if (status != GK_OK)
            return status;
    }
    return stencil_build_matrix(s);
}

void stencil_destroy(struct stencil *s)
{
    gk_sem_free_all(s->sem[1]);
    gk_sem_free_all(s->sem[0]);
    gk_free(s->flags);
    gk_free(s->ghost[0][0]);
    gk_free(s->xbuf);
    free(s->row_start);
    free(s->col);
    free(s->val);
}

double *stencil_x(struct stencil *s)
{
    return s->xbuf + s->n;
}

static void stencil_rows(const struct stencil *s, double *y, int first, int last)
{
    const double *x = s->xbuf;
    for (size_t r = (size_t)first * (size_t)s->n; r < (size_t)last * (size_t)s->n; r++) {
        double sum = 0;
        for (size_t k = s->row_start[r]; k < s->row_start[r + 1]; k++)
            sum += s->val[k] * x[s->col[k]];
        y[r] = sum;
    }
}

/* Waits for the flags of iteration `it` from the neighbours there are. */
static int stencil_wait_flags(struct stencil *s, int parity, uint64_t it, int has_up,
                              int has_down)
{
    int status = GK_OK;
    if (has_up)
        status = gk_wait_until_u64(&s->flags[parity * 2 + 0], GK_CMP_GE, it);
    if (status == GK_OK && has_down)
        status = gk_wait_until_u64(&s->flags[parity * 2 + 1], GK_CMP_GE, it);
    return status;
}

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != GK_OK)                                                  \
            return status_;                                                    \
    } while (0)

int stencil_spmv(struct stencil *s, enum stencil_variant variant, double *y,
                 struct stencil_times *t)
{
    int n = s->n, up = s->me - 1, down = s->me + 1;
    int has_up = up >= 0, has_down = down < s->npes;
    uint64_t it = ++s->iteration;
    int parity = (int)(it & 1);
    double *first_row = stencil_x(s);
    double *last_row = first_row + (size_t)(s->rows - 1) * (size_t)n;
    /* My first row is the "from below" ghost of the PE above; my last row
     * the "from above" ghost of the PE below. */
    double t0 = stencil_now(), t1;

    switch (variant) {
    case STENCIL_BARRIER:
        if (has_up)
            CHECK(gk_put(up, s->ghost[parity][1], first_row, (size_t)n * sizeof(double)));
        if (has_down)
            CHECK(gk_put(down, s->ghost[parity][0], last_row, (size_t)n * sizeof(double)));
        t1 = stencil_now();
        t->send += t1 - t0;
        CHECK(gk_barrier());
        t0 = stencil_now();
        t->barrier += t0 - t1;
        break;
    case STENCIL_PUT_FLAG:
        if (has_up) {
            CHECK(gk_put(up, s->ghost[parity][1], first_row, (size_t)n * sizeof(double)));
            CHECK(gk_fence());
            CHECK(gk_put_u64(up, &s->flags[parity * 2 + 1], it));
        }
        if (has_down) {
            CHECK(gk_put(down, s->ghost[parity][0], last_row, (size_t)n * sizeof(double)));
            CHECK(gk_fence());
            CHECK(gk_put_u64(down, &s->flags[parity * 2 + 0], it));
        }
        t1 = stencil_now();
        t->send += t1 - t0;
        CHECK(stencil_wait_flags(s, parity, it, has_up, has_down));
        t0 = stencil_now();
        t->recv_wait += t0 - t1;
        break;
    case STENCIL_NBI_FLAG:
    case STENCIL_PUT_SIGNAL:
        if (variant == STENCIL_NBI_FLAG) {
            if (has_up)
                CHECK(gk_put_nbi(up, s->ghost[parity][1], first_row, (size_t)n * sizeof(double)));
            if (has_down)
                CHECK(gk_put_nbi(down, s->ghost[parity][0], last_row, (size_t)n * sizeof(double)));
        } else {
            gk_sem_t to;
            if (has_up) {
                CHECK(gk_sem_on(s->sem[1], up, &to));
                CHECK(gk_put_sem_nbi(up, s->ghost[parity][1], first_row,
                                     (size_t)n * sizeof(double), to, 1));
            }
            if (has_down) {
                CHECK(gk_sem_on(s->sem[0], down, &to));
                CHECK(gk_put_sem_nbi(down, s->ghost[parity][0], last_row,
                                     (size_t)n * sizeof(double), to, 1));
            }
        }
        t1 = stencil_now();
        t->send += t1 - t0;
        /* Overlap: the inside rows need no ghost. */
        if (s->rows > 2)
            stencil_rows(s, y, 1, s->rows - 1);
        t0 = stencil_now();
        t->compute += t0 - t1;
        if (variant == STENCIL_NBI_FLAG) {
            CHECK(gk_quiet());
            if (has_up)
                CHECK(gk_put_u64(up, &s->flags[parity * 2 + 1], it));
            if (has_down)
                CHECK(gk_put_u64(down, &s->flags[parity * 2 + 0], it));
            t1 = stencil_now();
            t->send += t1 - t0;
            CHECK(stencil_wait_flags(s, parity, it, has_up, has_down));
        } else {
            t1 = t0;
            if (has_up)
                CHECK(gk_sem_wait(s->sem[0]));
            if (has_down)
                CHECK(gk_sem_wait(s->sem[1]));
        }
        t0 = stencil_now();
        t->recv_wait += t0 - t1;
        break;
    default:
        return GK_ERR_INVALID_ARG;
    }

    /* Ghosts into place, then the rows still to do. */
    if (has_up)
        memcpy(s->xbuf, s->ghost[parity][0], (size_t)n * sizeof(double));
    if (has_down)
        memcpy(s->xbuf + (size_t)(s->rows + 1) * (size_t)n, s->ghost[parity][1],
               (size_t)n * sizeof(double));
    if (variant == STENCIL_NBI_FLAG || variant == STENCIL_PUT_SIGNAL) {
        stencil_rows(s, y, 0, 1);
        if (s->rows > 1)
            stencil_rows(s, y, s->rows - 1, s->rows);
    } else {
        stencil_rows(s, y, 0, s->rows);
    }
    t->compute += stencil_now() - t0;
    return GK_OK;
}

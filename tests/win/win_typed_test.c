/*
 * win_typed_test: typed puts, gets and accumulates on windows, blocking
 * and _nbi, in lock, lock_all and fence epochs, with the data checked at
 * both ends.
 *
 *   put        each PE puts a contiguous column of N doubles into column
 *              `me` of an N x M row-major matrix on its right neighbour
 *              (under an exclusive lock); the target checks its matrix:
 *              the columns written and nothing else.
 *   get        each PE gets its right neighbour's column `me` back into
 *              a strided origin (every other double of a buffer), and a
 *              whole row of the matrix as a contiguous run; _nbi forms
 *              checked after the flush.
 *   accumulate every PE adds into PE 0, under lock_all: SUM of int64 from
 *              a contiguous origin into every other element (a vector),
 *              MAX of doubles from a struct-of-doubles origin (_nbi);
 *              the gaps stay untouched.
 *   errors     mismatched type signatures, a mixed-base type, sizes that
 *              differ, a span past the part (and before it); nothing moved.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#define N 8 /* matrix rows */
#define M 6 /* matrix columns (>= 4 PEs) */
#define MAT 0
#define ACC 512
#define DACC 1024
#define PART 2048

static int me, npes;

static double mat_value(int from, int i)
{
    return 1000.0 * (from + 1) + i;
}

static void check_put_get(gk_win_t *win, char *base, gk_type_t col)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    double mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = mat_value(me, i);
    memset(base, 0, PART);
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_lock(win, right, GK_LOCK_EXCLUSIVE, 0));
    CHECK_OK(gk_win_put_typed(win, right, MAT + (size_t)me * sizeof(double), 1, col,
                              mine, N, GK_TYPE_DOUBLE));
    CHECK_OK(gk_win_unlock(win, right));
    CHECK_OK(gk_barrier());
    const double *m = (const double *)(void *)(base + MAT);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            CHECK_TRUE(m[i * M + j] == (j == left ? mat_value(left, i) : 0.0));
    CHECK_OK(gk_barrier()); /* checked before anyone writes again */
    /* Back: the column into every other double of a buffer. */
    gk_type_t every_other;
    CHECK_OK(gk_type_vector(N, 1, 2, GK_TYPE_DOUBLE, &every_other));
    CHECK_OK(gk_type_commit(every_other));
    double back[2 * N], row[M];
    for (int i = 0; i < 2 * N; i++)
        back[i] = -1.0;
    CHECK_OK(gk_win_lock(win, right, GK_LOCK_SHARED, 0));
    CHECK_OK(gk_win_get_typed(win, right, back, 1, every_other,
                              MAT + (size_t)me * sizeof(double), 1, col));
    CHECK_OK(gk_win_get_typed(win, right, row, M, GK_TYPE_DOUBLE, MAT + 2 * M * sizeof(double),
                              M * sizeof(double), GK_TYPE_BYTE));
    CHECK_OK(gk_win_unlock(win, right));
    for (int i = 0; i < N; i++) {
        CHECK_TRUE(back[2 * i] == mat_value(me, i));
        CHECK_TRUE(back[2 * i + 1] == -1.0);
    }
    for (int j = 0; j < M; j++)
        CHECK_TRUE(row[j] == (j == me ? mat_value(me, 2) : 0.0));
    /* The _nbi forms, complete at the flush. */
    double again[N];
    memset(again, 0, sizeof(again));
    CHECK_OK(gk_win_lock_all(win, 0));
    CHECK_OK(gk_win_get_typed_nbi(win, right, again, N, GK_TYPE_DOUBLE,
                                  MAT + (size_t)me * sizeof(double), 1, col));
    CHECK_OK(gk_win_flush(win, right));
    for (int i = 0; i < N; i++)
        CHECK_TRUE(again[i] == mat_value(me, i));
    for (int i = 0; i < N; i++)
        again[i] = -mat_value(me, i);
    CHECK_OK(gk_win_put_typed_nbi(win, right, MAT + (size_t)me * sizeof(double), 1, col,
                                  again, N, GK_TYPE_DOUBLE));
    CHECK_OK(gk_win_flush_local(win, right));
    CHECK_OK(gk_win_unlock_all(win));
    CHECK_OK(gk_barrier());
    for (int i = 0; i < N; i++)
        CHECK_TRUE(m[i * M + left] == -mat_value(left, i));
    CHECK_OK(gk_type_free(&every_other));
    CHECK_OK(gk_barrier());
}

static void check_accumulate(gk_win_t *win, char *base)
{
    memset(base, 0, PART);
    int64_t *acc = (int64_t *)(void *)(base + ACC);
    double *dacc = (double *)(void *)(base + DACC);
    for (int i = 0; i < 2 * N; i++)
        acc[i] = i % 2 ? 7 : 0;
    for (int i = 0; i < N; i++)
        dacc[i] = -1e9;
    CHECK_OK(gk_barrier());
    gk_type_t gaps, two;
    CHECK_OK(gk_type_vector(N, 1, 2, GK_TYPE_INT64, &gaps));
    CHECK_OK(gk_type_commit(gaps));
    /* Two doubles described member by member: a struct of one base type. */
    size_t bl[2] = {1, 1};
    ptrdiff_t at[2] = {0, sizeof(double)};
    gk_type_t ty[2] = {GK_TYPE_DOUBLE, GK_TYPE_DOUBLE};
    CHECK_OK(gk_type_struct(2, bl, at, ty, &two));
    CHECK_OK(gk_type_commit(two));
    int64_t add[N];
    double dv[N];
    for (int i = 0; i < N; i++) {
        add[i] = (int64_t)(me + 1) * (i + 1);
        dv[i] = (double)((me * 7 + i * 3) % 11);
    }
    CHECK_OK(gk_win_lock_all(win, 0));
    CHECK_OK(gk_win_accumulate_typed(win, 0, ACC, 1, gaps, add, N, GK_TYPE_INT64,
                                     GK_OP_SUM));
    CHECK_OK(gk_win_accumulate_typed_nbi(win, 0, DACC, N, GK_TYPE_DOUBLE, dv, N / 2, two,
                                         GK_OP_MAX));
    CHECK_OK(gk_win_flush_all(win));
    CHECK_OK(gk_win_unlock_all(win));
    CHECK_OK(gk_barrier());
    if (me == 0) {
        for (int i = 0; i < N; i++) {
            CHECK_EQ(acc[2 * i], (int64_t)(i + 1) * npes * (npes + 1) / 2);
            CHECK_EQ(acc[2 * i + 1], 7);
            double want = -1e9;
            for (int p = 0; p < npes; p++) {
                double v = (double)((p * 7 + i * 3) % 11);
                want = v > want ? v : want;
            }
            CHECK_TRUE(dacc[i] == want);
        }
    }
    CHECK_OK(gk_type_free(&gaps));
    CHECK_OK(gk_type_free(&two));
    CHECK_OK(gk_barrier());
}

static void check_errors(gk_win_t *win, char *base, gk_type_t col)
{
    int64_t buf[2 * N] = {0};
    double d[N] = {0};
    int right = (me + 1) % npes;
    gk_type_t mixed;
    size_t bl[2] = {1, 1};
    ptrdiff_t at[2] = {0, 8};
    gk_type_t ty[2] = {GK_TYPE_DOUBLE, GK_TYPE_INT64};
    CHECK_OK(gk_type_struct(2, bl, at, ty, &mixed));
    CHECK_OK(gk_type_commit(mixed));
    memset(base, 0x5a, PART);
    CHECK_OK(gk_barrier());
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate_typed(win, right, ACC, N, GK_TYPE_INT64, d, N,
                                         GK_TYPE_DOUBLE, GK_OP_SUM),
                 "gk_win_accumulate_typed", "type signatures do not match",
                 "GK_DTYPE_DOUBLE", "GK_DTYPE_INT64");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate_typed(win, right, ACC, 2, GK_TYPE_INT64, buf, 1, mixed,
                                         GK_OP_SUM),
                 "several base types");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_put_typed(win, right, MAT, 1, col, d, N - 1, GK_TYPE_DOUBLE),
                 "origin holds 56 bytes", "target 64");
    CHECK_LOGGED(GK_ERR_RANGE,
                 gk_win_put_typed(win, right, PART - 64, 2 * N, GK_TYPE_INT64, buf, 2 * N,
                                  GK_TYPE_INT64),
                 "outside window");
    gk_type_t back;
    CHECK_OK(gk_type_resized(GK_TYPE_DOUBLE, -16, 8, &back));
    gk_type_t neg;
    ptrdiff_t displ[1] = {-2};
    size_t one[1] = {1};
    CHECK_OK(gk_type_indexed(1, one, displ, GK_TYPE_DOUBLE, &neg));
    CHECK_OK(gk_type_commit(neg));
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_get_typed(win, right, d, 1, GK_TYPE_DOUBLE, 8, 1, neg),
                 "before the start of window");
    CHECK_OK(gk_type_free(&back));
    CHECK_OK(gk_type_free(&neg));
    CHECK_OK(gk_type_free(&mixed));
    CHECK_OK(gk_barrier());
    for (size_t i = 0; i < PART; i++)
        CHECK_EQ((unsigned char)base[i], 0x5a);
    CHECK_OK(gk_barrier());
}

/*
 * The kinds of window: 0 allocated (every part direct), 1 created over
 * malloc memory (every part emulated: the owner runs the operations), 2
 * mixed: even PEs' parts in the symmetric heap, odd PEs' in malloc memory.
 */
#define KINDS 3
static char *heap_block;

static void make_window(int kind, char **base_p, gk_win_t **win_p)
{
    if (kind == 0) {
        CHECK_OK(gk_win_allocate(PART, 0, (void **)base_p, win_p));
        return;
    }
    heap_block = gk_malloc(PART); /* collective: every PE takes part */
    CHECK_NOT_NULL(heap_block);
    char *base = kind == 2 && me % 2 == 0 ? heap_block : malloc(PART);
    CHECK_NOT_NULL(base);
    memset(base, 0, PART);
    CHECK_OK(gk_win_create(base, PART, 0, win_p));
    *base_p = base;
}

static void free_window(int kind, char *base, gk_win_t *win)
{
    CHECK_OK(gk_win_free(win));
    if (kind == 0)
        return;
    if (base != heap_block)
        free(base);
    gk_free(heap_block);
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    gk_type_t col;
    CHECK_OK(gk_type_vector(N, 1, M, GK_TYPE_DOUBLE, &col));
    CHECK_OK(gk_type_commit(col));
    for (int kind = 0; kind < KINDS; kind++) {
        char *base = NULL;
        gk_win_t *win = NULL;
        make_window(kind, &base, &win);
        check_put_get(win, base, col);
        check_accumulate(win, base);
        check_errors(win, base, col);
        free_window(kind, base, win);
    }
    CHECK_OK(gk_type_free(&col));
    CHECK_OK(gk_finalize());
    return 0;
}

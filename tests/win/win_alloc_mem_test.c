/*
 * win_alloc_mem_test: gk_mem_alloc's hints and the windows made over what
 * it returns.
 *
 *   hints      shared and registered memory lies in the local area (in
 *              this PE's segment), private memory does not; alignments 0, 8, 4096 are
 *              honoured; many small blocks freed in any order are all
 *              handed out again; the symmetric heap is untouched
 *              (gk_heap_free before and after).
 *   windows    over shared memory every part is direct, over private
 *              memory every part is emulated, and over a mix (even PEs
 *              shared) each as its memory says; on each, a typed put of a
 *              column, a get back, and a SUM accumulate from every PE.
 *   errors     unknown or contradictory hints, a bad alignment, size 0,
 *              more shared memory than the area holds (GK_ALLOC_MEM_SIZE
 *              named), a pointer that is no block.
 */
#include <string.h>

#include "pe_check.h"
#include "win/win.h"

#define N 16

static int me, npes;

/* Inside this PE's heap range, which node peers map and the network has
 * registered (gk_ptr answers for symmetric addresses only). */
static int in_segment(const void *p)
{
    uintptr_t at = (uintptr_t)p, lo = (uintptr_t)gk__rt.heap;
    return at >= lo && at - lo < gk__rt.heap_span;
}

static void check_hints(void)
{
    size_t heap_free = gk_heap_free();
    void *sh = NULL, *reg = NULL, *priv = NULL, *al = NULL;
    CHECK_OK(gk_mem_alloc(100, GK_MEM_SHARED, 0, &sh));
    CHECK_OK(gk_mem_alloc(100, GK_MEM_REGISTERED, 8, &reg));
    CHECK_OK(gk_mem_alloc(100, GK_MEM_PRIVATE, 0, &priv));
    CHECK_OK(gk_mem_alloc(5000, GK_MEM_SHARED, 4096, &al));
    CHECK_TRUE(in_segment(sh));
    CHECK_TRUE(in_segment(reg));
    CHECK_TRUE(!in_segment(priv));
    CHECK_EQ((uintptr_t)al % 4096, 0);
    CHECK_EQ((uintptr_t)sh % 64, 0);
    memset(sh, 1, 100);
    memset(priv, 2, 100);
    memset(al, 3, 5000);
    CHECK_EQ_U64(gk_heap_free(), heap_free);
    void *blocks[64];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 64; i++)
            CHECK_OK(gk_mem_alloc(1000 + (size_t)i, GK_MEM_SHARED, 0, &blocks[i]));
        for (int i = 0; i < 64; i++)
            CHECK_OK(gk_mem_free(blocks[(i * 37) % 64]));
    }
    CHECK_OK(gk_mem_free(sh));
    CHECK_OK(gk_mem_free(reg));
    CHECK_OK(gk_mem_free(priv));
    CHECK_OK(gk_mem_free(al));
    CHECK_OK(gk_mem_free(NULL));

    void *p = NULL;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_mem_alloc(8, 0x80, 0, &p), "gk_mem_alloc",
                 "hints 0x80");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_mem_alloc(8, GK_MEM_SHARED | GK_MEM_PRIVATE, 0, &p),
                 "neither shared nor registered");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_mem_alloc(8, 0, 48, &p), "alignment 48");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_mem_alloc(0, 0, 0, &p), "size is 0");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_mem_alloc(8, 0, 0, NULL), "ptr_p is NULL");
    CHECK_LOGGED(GK_ERR_NOMEM, gk_mem_alloc((size_t)1 << 40, GK_MEM_SHARED, 0, &p),
                 "GK_ALLOC_MEM_SIZE");
    CHECK_NULL(p);
    /* No hint: too large for the area, so private memory. */
    CHECK_OK(gk_mem_alloc((size_t)64 << 20, 0, 0, &p));
    CHECK_TRUE(!in_segment(p));
    CHECK_OK(gk_mem_free(p));
    void *q = NULL;
    CHECK_OK(gk_mem_alloc(256, GK_MEM_SHARED, 0, &q));
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_mem_free((char *)q + 64), "not a block");
    CHECK_OK(gk_mem_free(q));
}

/* mode 0: all shared, 1: all private, 2: even PEs shared. */
static void check_window(int mode)
{
    unsigned hints = mode == 0 || (mode == 2 && me % 2 == 0) ? GK_MEM_SHARED : GK_MEM_PRIVATE;
    size_t part = 2 * N * sizeof(int64_t);
    int64_t *base = NULL;
    CHECK_OK(gk_mem_alloc(part, hints, 0, (void **)&base));
    memset(base, 0, part);
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_create(base, part, 0, &win));
    for (int pe = 0; pe < npes; pe++) {
        int shared = mode == 0 || (mode == 2 && pe % 2 == 0);
        CHECK_EQ(gk__win_part_emulated(win, pe), !shared);
    }
    gk_type_t every_other;
    CHECK_OK(gk_type_vector(N, 1, 2, GK_TYPE_INT64, &every_other));
    CHECK_OK(gk_type_commit(every_other));
    int right = (me + 1) % npes;
    int64_t mine[N], back[N];
    for (int i = 0; i < N; i++)
        mine[i] = 100 * me + i;
    CHECK_OK(gk_win_fence(win, 0));
    CHECK_OK(gk_win_put_typed(win, right, 0, 1, every_other, mine, N, GK_TYPE_INT64));
    CHECK_OK(gk_win_fence(win, 0));
    CHECK_OK(gk_win_get_typed(win, right, back, N, GK_TYPE_INT64, 0, 1, every_other));
    for (int i = 0; i < N; i++)
        CHECK_EQ(back[i], mine[i]);
    int64_t one[N];
    for (int i = 0; i < N; i++)
        one[i] = i + 1;
    CHECK_OK(gk_win_accumulate_typed(win, 0, sizeof(int64_t), 1, every_other, one, N,
                                     GK_TYPE_INT64, GK_OP_SUM));
    CHECK_OK(gk_win_fence(win, GK_WIN_NOSUCCEED));
    if (me == 0)
        for (int i = 0; i < N; i++)
            CHECK_EQ(base[2 * i + 1], (int64_t)(i + 1) * npes);
    CHECK_OK(gk_type_free(&every_other));
    CHECK_OK(gk_win_free(win));
    CHECK_OK(gk_mem_free(base));
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    check_hints();
    for (int mode = 0; mode < 3; mode++)
        check_window(mode);
    CHECK_OK(gk_finalize());
    return 0;
}

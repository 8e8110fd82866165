/*
 * win_errors_test: bad arguments and misuse of windows, each with its code
 * and the words of its message; nothing crashes or hangs.
 */
#include "pe_check.h"

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    char *base = NULL;
    gk_win_t *win = NULL, *strict = NULL;
    CHECK_OK(gk_win_allocate(256, 0, (void **)&base, &win));
    void *strict_base = NULL;
    CHECK_OK(gk_win_allocate(64, GK_WIN_STRICT, &strict_base, &strict));
    char buf[512] = {0};
    int other = (me + 1) % npes;

    /* Out of the target's part: names the window, PE, displacement, length. */
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_put(win, other, 250, buf, 8), "window 1",
                 "250 + 8 bytes", "256 bytes");
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_get(win, other, 4096, buf, 1), "displacement 4096");
    CHECK_LOGGED(GK_ERR_PE, gk_win_put(win, npes, 0, buf, 8), "PE");
    CHECK_LOGGED(GK_ERR_PE, gk_win_lock(win, -1, GK_LOCK_SHARED, 0), "PE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_put(NULL, other, 0, buf, 8), "win is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_get(win, other, 0, NULL, 8), "dst");

    /* Types and operations. */
    double d = 1;
    uint64_t u = 1, old = 0;
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, &d, 1, GK_DTYPE_DOUBLE, GK_OP_BAND),
                 "GK_OP_BAND", "integer");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_compare_and_swap(win, other, 0, &d, &d, &d, GK_DTYPE_FLOAT),
                 "not an integer");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, &u, 1, (gk_dtype_t)42, GK_OP_SUM),
                 "dtype 42");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, &u, 1, GK_DTYPE_UINT64, GK_OP_NO_OP),
                 "op 8");
    CHECK_LOGGED(GK_ERR_ALIGN,
                 gk_win_fetch_and_op(win, other, 4, &u, &old, GK_DTYPE_UINT64, GK_OP_SUM),
                 "not aligned");

    /* Epoch misuse. */
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_unlock(win, other), "not locked");
    CHECK_OK(gk_win_lock(win, other, GK_LOCK_SHARED, 0));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_lock(win, other, GK_LOCK_EXCLUSIVE, 0),
                 "already locked");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_lock_all(win, 0), "already has a lock");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_free(win), "epoch open");
    CHECK_OK(gk_win_unlock(win, other));
    CHECK_OK(gk_win_lock_all(win, 0));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_lock(win, other, GK_LOCK_SHARED, 0), "lock_all");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_unlock(win, other), "unlock_all");
    CHECK_OK(gk_win_unlock_all(win));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_unlock_all(win), "not inside lock_all");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_lock(win, other, 3, 0), "lock_type 3");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_complete(win), "no access epoch");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_wait(win), "not exposed");
    int twice[2] = {other, other};
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_start(win, twice, 2, 0), "twice");

    /* A strict window: RMA outside every epoch. */
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_put(strict, other, 0, buf, 8), "GK_WIN_STRICT",
                 "no epoch");
    CHECK_OK(gk_win_lock(strict, other, GK_LOCK_EXCLUSIVE, 0));
    CHECK_OK(gk_win_put(strict, other, 0, buf, 8));
    CHECK_OK(gk_win_unlock(strict, other));

    /* Creation: bad flags; a base outside the heap. */
    gk_win_t *bad = NULL;
    void *bad_base = NULL;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_allocate(64, 0x80, &bad_base, &bad), "flags");
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_create(buf, sizeof(buf), 0, &bad), "symmetric heap");

    CHECK_OK(gk_win_free(strict));
    CHECK_OK(gk_win_free(win));
    /* A freed window is refused (the handle is gone: use a stale copy of
     * a live-looking one would be undefined, so only NULL is tested). */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_flush(NULL, 0), "win is NULL");
    return gk_finalize() == GK_OK ? 0 : 1;
}

/*
 * win_errors_test: bad arguments and misuse of windows, each with its code
 * and the words of its message; nothing crashes or hangs. check_more():
 * every call kind against ranges, bad PEs, NULL buffers, bad types and
 * ops, misalignment, lock and PSCW misuse, what each epoch kind covers on
 * a strict window, creation with a base that differs between PEs.
 */
#include <stdint.h>

#include "pe_check.h"

/* The remaining misuse cases, each with its code and its message. */
static void check_more(gk_win_t *win, gk_win_t *strict, int me, int npes)
{
    int other = (me + 1) % npes;
    char buf[512] = {0};
    uint64_t u = 1, old = 0, cmp = 0;
    int32_t i32 = 1;
    double d = 1;
    float f = 1;
    size_t size = gk_win_size(win, other);

    /* Ranges: the message names the window, the PE, displacement, length. */
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_put(win, other, size, buf, 1), "gk_win_put",
                 "window 1", pe_fmt("on PE %d", other), pe_fmt("displacement %zu", size),
                 "+ 1 bytes");
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_get(win, other, buf, 0, size + 1), "gk_win_get",
                 "window 1", pe_fmt("PE %d", other), "displacement 0",
                 pe_fmt("%zu bytes", size + 1));
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_put(win, other, SIZE_MAX, buf, 2), "window 1",
                 pe_fmt("displacement %zu", (size_t)SIZE_MAX));
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_put(win, other, 8, buf, SIZE_MAX - 4), "window 1",
                 "displacement 8");
    CHECK_LOGGED(
        GK_ERR_RANGE,
        gk_win_accumulate(win, other, size - 8, &u, 2, GK_DTYPE_UINT64, GK_OP_SUM),
        "gk_win_accumulate", "window 1", pe_fmt("displacement %zu", size - 8),
        "16 bytes");
    CHECK_LOGGED(
        GK_ERR_RANGE,
        gk_win_fetch_and_op(win, other, size, &u, &old, GK_DTYPE_UINT64, GK_OP_SUM),
        "gk_win_fetch_and_op", "window 1");
    CHECK_LOGGED(
        GK_ERR_RANGE,
        gk_win_compare_and_swap(win, other, size - 4, &cmp, &u, &old, GK_DTYPE_UINT64),
        "gk_win_compare_and_swap", "window 1", pe_fmt("displacement %zu", size - 4));
    CHECK_LOGGED(
        GK_ERR_INVALID_ARG,
        gk_win_accumulate(win, other, 0, &u, SIZE_MAX / 4, GK_DTYPE_UINT64, GK_OP_SUM),
        "gk_win_accumulate", "overflows");
    /* The end of the part itself is fine: 0 bytes there, the last byte. */
    CHECK_OK_SILENT(gk_win_put(win, other, size, buf, 0));
    CHECK_OK_SILENT(gk_win_get(win, other, buf, size - 1, 1));

    /* Bad PEs, on every kind of call: the number and the valid range. */
    const char *no_such = pe_fmt("PE %d does not exist", npes);
    CHECK_LOGGED(GK_ERR_PE, gk_win_get(win, npes, buf, 0, 8), "gk_win_get", no_such);
    CHECK_LOGGED(GK_ERR_PE,
                 gk_win_accumulate(win, -1, 0, &u, 1, GK_DTYPE_UINT64, GK_OP_SUM),
                 "gk_win_accumulate", "PE -1 does not exist");
    CHECK_LOGGED(GK_ERR_PE,
                 gk_win_compare_and_swap(win, npes, 0, &cmp, &u, &old, GK_DTYPE_UINT64),
                 "gk_win_compare_and_swap", no_such);
    CHECK_LOGGED(GK_ERR_PE, gk_win_lock(win, npes, GK_LOCK_EXCLUSIVE, 0), "gk_win_lock",
                 no_such);
    int got = 0;
    CHECK_LOGGED(GK_ERR_PE, gk_win_try_lock(win, npes, GK_LOCK_SHARED, &got),
                 "gk_win_try_lock", no_such);
    CHECK_LOGGED(GK_ERR_PE, gk_win_unlock(win, npes), "gk_win_unlock", no_such);
    CHECK_LOGGED(GK_ERR_PE, gk_win_flush(win, npes), "gk_win_flush", no_such);
    CHECK_LOGGED(GK_ERR_PE, gk_win_flush_local(win, -3), "gk_win_flush_local",
                 "PE -3 does not exist");
    gk_capture_begin();
    size_t no_size = gk_win_size(win, npes);
    const char *text = gk_capture_end();
    CHECK_EQ(no_size, 0);
    const char *const size_needles[] = {"gk_win_size", no_such, NULL};
    const char *why = pe_check_report(text, size_needles);
    if (why != NULL) {
        gk_capture_echo(text);
        PE_FAIL("the report of gk_win_size(win, %d): %s", npes, why);
    }
    CHECK_EQ(gk_win_size(win, me), 256);
    int bad_group[1] = {npes};
    CHECK_LOGGED(GK_ERR_PE, gk_win_start(win, bad_group, 1, 0), "gk_win_start", no_such);
    CHECK_LOGGED(GK_ERR_PE, gk_win_post(win, bad_group, 1, 0), "gk_win_post", no_such);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_post(win, NULL, 1, 0), "gk_win_post",
                 "group");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_start(win, bad_group, -1, 0), "gk_win_start",
                 "group of -1 PEs");

    /* NULL buffers and output pointers (0 bytes from NULL is fine). */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_put(win, other, 0, NULL, 8), "gk_win_put",
                 "src is NULL", "8 bytes");
    CHECK_OK_SILENT(gk_win_put(win, other, 0, NULL, 0));
    CHECK_OK_SILENT(gk_win_get(win, other, NULL, 0, 0));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, NULL, 2, GK_DTYPE_INT32, GK_OP_SUM),
                 "gk_win_accumulate", "src is NULL");
    CHECK_LOGGED(
        GK_ERR_INVALID_ARG,
        gk_win_get_accumulate(win, other, 0, &u, NULL, 1, GK_DTYPE_UINT64, GK_OP_SUM),
        "gk_win_get_accumulate", "result is NULL");
    CHECK_LOGGED(
        GK_ERR_INVALID_ARG,
        gk_win_fetch_and_op(win, other, 0, NULL, &old, GK_DTYPE_UINT64, GK_OP_SUM),
        "gk_win_fetch_and_op", "src is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_compare_and_swap(win, other, 0, NULL, &u, &old, GK_DTYPE_UINT64),
                 "gk_win_compare_and_swap", "compare is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_compare_and_swap(win, other, 0, &cmp, &u, NULL, GK_DTYPE_UINT64),
                 "gk_win_compare_and_swap", "result is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_try_lock(win, other, GK_LOCK_SHARED, NULL),
                 "gk_win_try_lock", "acquired_p is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_get(NULL, other, buf, 0, 8), "gk_win_get",
                 "win is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_lock(NULL, other, GK_LOCK_SHARED, 0),
                 "gk_win_lock", "win is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_fence(NULL, 0), "gk_win_fence",
                 "win is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_free(NULL), "gk_win_free", "win is NULL");
    CHECK_LOGGED_NULL(gk_win_base(NULL), "gk_win_base", "win is NULL");

    /* Types and operations, named in the messages: every bitwise op on both
     * floating types, CAS on both, NO_OP where no fetch is made, an unknown
     * op and dtype. */
    static const gk_op_t bitwise[] = {GK_OP_BAND, GK_OP_BOR, GK_OP_BXOR};
    static const char *const bitwise_names[] = {"GK_OP_BAND", "GK_OP_BOR", "GK_OP_BXOR"};
    for (int k = 0; k < 3; k++) {
        CHECK_LOGGED(GK_ERR_INVALID_ARG,
                     gk_win_accumulate(win, other, 0, &f, 1, GK_DTYPE_FLOAT, bitwise[k]),
                     pe_fmt("%s is not valid for GK_DTYPE_FLOAT", bitwise_names[k]));
        CHECK_LOGGED(
            GK_ERR_INVALID_ARG,
            gk_win_fetch_and_op(win, other, 0, &d, &d, GK_DTYPE_DOUBLE, bitwise[k]),
            pe_fmt("%s is not valid for GK_DTYPE_DOUBLE", bitwise_names[k]));
    }
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_compare_and_swap(win, other, 0, &d, &d, &d, GK_DTYPE_DOUBLE),
                 "gk_win_compare_and_swap: GK_DTYPE_DOUBLE is not an integer accumulate type");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_compare_and_swap(win, other, 0, &f, &f, &f, GK_DTYPE_FLOAT),
                 "GK_DTYPE_FLOAT is not an integer accumulate type");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_compare_and_swap(win, other, 0, &u, &u, &u, (gk_dtype_t)99),
                 "gk_win_compare_and_swap: dtype 99 (not a gk_dtype_t) is not valid");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_compare_and_swap(win, other, 0, &u, &u, &u, GK_DTYPE_INT8),
                 "gk_win_compare_and_swap", "GK_DTYPE_INT8 is not an integer accumulate type");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, &u, 1, (gk_dtype_t)-3, GK_OP_SUM),
                 "gk_win_accumulate: dtype -3 (not a gk_dtype_t) is not valid");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, &u, 1, GK_DTYPE_UINT64, (gk_op_t)99),
                 "gk_win_accumulate: op 99 (not a gk_op_t) is not valid");
    /* The reductions' types and operations that windows do not take. */
    static const struct {
        gk_dtype_t dtype;
        const char *name;
    } not_window[] = {
        {GK_DTYPE_INT8, "GK_DTYPE_INT8"},
        {GK_DTYPE_INT16, "GK_DTYPE_INT16"},
        {GK_DTYPE_UINT8, "GK_DTYPE_UINT8"},
        {GK_DTYPE_UINT16, "GK_DTYPE_UINT16"},
        {GK_DTYPE_LONG_DOUBLE, "GK_DTYPE_LONG_DOUBLE"},
        {GK_DTYPE_FLOAT_INT, "GK_DTYPE_FLOAT_INT"},
        {GK_DTYPE_DOUBLE_INT, "GK_DTYPE_DOUBLE_INT"},
        {GK_DTYPE_LONG_INT, "GK_DTYPE_LONG_INT"},
        {GK_DTYPE_2INT, "GK_DTYPE_2INT"},
        {GK_DTYPE_LONG_DOUBLE_INT, "GK_DTYPE_LONG_DOUBLE_INT"},
    };
    for (size_t k = 0; k < sizeof(not_window) / sizeof(not_window[0]); k++)
        CHECK_LOGGED(GK_ERR_INVALID_ARG,
                     gk_win_accumulate(win, other, 0, &u, 1, not_window[k].dtype, GK_OP_SUM),
                     "gk_win_accumulate",
                     pe_fmt("%s is not an accumulate type", not_window[k].name));
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, &u, 1, GK_DTYPE_UINT64, GK_OP_MINLOC),
                 "gk_win_accumulate", "GK_OP_MINLOC is not valid here");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_fetch_and_op(win, other, 0, &u, &old, GK_DTYPE_2INT, GK_OP_MAXLOC),
                 "gk_win_fetch_and_op", "GK_DTYPE_2INT is not an accumulate type");
    CHECK_LOGGED(
        GK_ERR_INVALID_ARG,
        gk_win_fetch_and_op(win, other, 0, &u, &old, GK_DTYPE_UINT64, (gk_op_t)-1),
        "gk_win_fetch_and_op", "op -1 (not a gk_op_t)");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, &u, 1, GK_DTYPE_UINT64, GK_OP_NO_OP),
                 "gk_win_accumulate: GK_OP_NO_OP is not valid here");

    /* Misaligned elements: the address and the width. */
    CHECK_LOGGED(
        GK_ERR_ALIGN, gk_win_accumulate(win, other, 4, &u, 1, GK_DTYPE_INT64, GK_OP_SUM),
        "gk_win_accumulate", pe_fmt("on PE %d", other), "not aligned to 8 bytes");
    CHECK_LOGGED(GK_ERR_ALIGN,
                 gk_win_accumulate(win, other, 2, &i32, 1, GK_DTYPE_INT32, GK_OP_MAX),
                 "gk_win_accumulate", "not aligned to 4 bytes");
    CHECK_LOGGED(GK_ERR_ALIGN,
                 gk_win_accumulate(win, other, 1, &d, 1, GK_DTYPE_DOUBLE, GK_OP_SUM),
                 "not aligned to 8 bytes");
    CHECK_LOGGED(
        GK_ERR_ALIGN,
        gk_win_get_accumulate(win, other, 6, &f, &f, 1, GK_DTYPE_FLOAT, GK_OP_SUM),
        "gk_win_get_accumulate", "not aligned to 4 bytes");
    CHECK_LOGGED(GK_ERR_ALIGN,
                 gk_win_compare_and_swap(win, other, 12, &cmp, &u, &old, GK_DTYPE_UINT64),
                 "gk_win_compare_and_swap", "not aligned to 8 bytes");
    /* A misaligned accumulate changed nothing. */
    CHECK_OK(gk_barrier());
    uint64_t zero[4] = {0}, seen[4] = {1, 1, 1, 1};
    CHECK_OK(gk_win_get(win, other, seen, 0, sizeof(seen)));
    CHECK_EQ(memcmp(seen, zero, sizeof(seen)), 0);
    CHECK_OK(gk_barrier());

    /* Lock arguments and epochs. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_lock(win, other, 0, 0), "lock_type 0");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_lock(win, other, GK_LOCK_SHARED, 0x40),
                 "gk_win_lock", "flags 0x40");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_lock_all(win, 0x8), "gk_win_lock_all",
                 "flags 0x8");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_fence(win, 0x100), "gk_win_fence",
                 "flags 0x100");
    /* Bad on one PE only: it fails, and still takes part in the fence's
     * barrier, so the others' fence completes (a hang otherwise). */
    if (me == 0)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_fence(win, 0x100), "flags 0x100");
    else
        CHECK_OK(gk_win_fence(win, GK_WIN_NOSUCCEED));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_unlock(win, me), "gk_win_unlock", "window 1",
                 pe_fmt("PE %d", me), "not locked");
    /* A second lock of the same target, of either kind, also with try_lock
     * and NOCHECK; a lock of another target is fine. */
    CHECK_OK(gk_win_lock(win, other, GK_LOCK_EXCLUSIVE, 0));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_lock(win, other, GK_LOCK_SHARED, 0), "gk_win_lock",
                 pe_fmt("PE %d", other), "window 1", "already locked");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_lock(win, other, GK_LOCK_EXCLUSIVE, GK_WIN_NOCHECK),
                 "already locked");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_try_lock(win, other, GK_LOCK_EXCLUSIVE, &got),
                 "gk_win_try_lock", "already locked");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_fence(win, 0), "gk_win_fence", "window 1");
    int group[1] = {other};
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_start(win, group, 1, 0), "gk_win_start",
                 "window 1");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_unlock_all(win), "not inside lock_all");
    if (npes > 1) {
        /* NOCHECK: my part is held exclusive by my left neighbour (a real
         * lock here would be a deadlock of the test's own making). */
        CHECK_OK(gk_win_lock(win, me, GK_LOCK_SHARED, GK_WIN_NOCHECK));
        CHECK_OK(gk_win_unlock(win, me));
    }
    CHECK_OK(gk_win_unlock(win, other));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_unlock(win, other), "not locked"); /* twice */
    /* Inside lock_all: no lock, try_lock, second lock_all or start. */
    CHECK_OK(gk_win_lock_all(win, GK_WIN_NOCHECK));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_lock(win, me, GK_LOCK_EXCLUSIVE, 0), "lock_all");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_try_lock(win, me, GK_LOCK_SHARED, &got),
                 "lock_all");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_lock_all(win, 0), "gk_win_lock_all",
                 "already has lock_all");
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_start(win, group, 1, 0), "gk_win_start");
    CHECK_OK(gk_win_unlock_all(win));
    /* PSCW misuse: a second post before wait; test without a post. */
    CHECK_OK(gk_win_post(win, group, 1, 0));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_post(win, group, 1, 0), "gk_win_post",
                 "already exposed");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_test(win, NULL), "gk_win_test", "done_p");
    int from[1] = {(me + npes - 1) % npes};
    CHECK_OK(gk_win_start(win, from, 1, 0));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_start(win, from, 1, 0), "gk_win_start",
                 "already has an access epoch");
    CHECK_OK(gk_win_complete(win));
    CHECK_OK(gk_win_wait(win));
    int done = 1;
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_test(win, &done), "gk_win_test", "not exposed");
    CHECK_OK(gk_barrier());

    /* Strict: every kind of RMA outside an epoch; and each epoch kind
     * covers exactly its targets, for exactly its duration. */
    int strict_other = npes > 1 ? other : 0;
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_get(strict, other, buf, 0, 8), "gk_win_get",
                 "window 2", "GK_WIN_STRICT", pe_fmt("PE %d", other));
    CHECK_LOGGED(GK_ERR_EPOCH,
                 gk_win_accumulate(strict, other, 0, &u, 1, GK_DTYPE_UINT64, GK_OP_SUM),
                 "gk_win_accumulate", "GK_WIN_STRICT");
    CHECK_LOGGED(GK_ERR_EPOCH,
                 gk_win_get_accumulate(strict, other, 0, NULL, &old, 1, GK_DTYPE_UINT64,
                                       GK_OP_NO_OP),
                 "gk_win_get_accumulate", "GK_WIN_STRICT");
    CHECK_LOGGED(
        GK_ERR_EPOCH,
        gk_win_fetch_and_op(strict, other, 0, &u, &old, GK_DTYPE_UINT64, GK_OP_SUM),
        "gk_win_fetch_and_op", "GK_WIN_STRICT");
    CHECK_LOGGED(
        GK_ERR_EPOCH,
        gk_win_compare_and_swap(strict, other, 0, &cmp, &u, &old, GK_DTYPE_UINT64),
        "gk_win_compare_and_swap", "GK_WIN_STRICT");
    if (npes > 1) {
        /* A lock of one target is no epoch for another. */
        CHECK_OK(gk_win_lock(strict, me, GK_LOCK_SHARED, 0));
        CHECK_LOGGED(GK_ERR_EPOCH, gk_win_put(strict, strict_other, 0, buf, 8),
                     "GK_WIN_STRICT", pe_fmt("PE %d", strict_other));
        CHECK_OK(gk_win_unlock(strict, me));
        /* An access epoch covers its group only. */
        CHECK_OK(gk_win_post(strict, from, 1, 0));
        int right[1] = {other};
        CHECK_OK(gk_win_start(strict, right, 1, 0));
        CHECK_OK(gk_win_put(strict, other, 0, buf, 8));
        if (npes > 2)
            CHECK_LOGGED(GK_ERR_EPOCH, gk_win_put(strict, from[0], 0, buf, 8),
                         "GK_WIN_STRICT", pe_fmt("PE %d", from[0]));
        CHECK_OK(gk_win_complete(strict));
        CHECK_OK(gk_win_wait(strict));
        CHECK_LOGGED(GK_ERR_EPOCH, gk_win_put(strict, other, 0, buf, 8), "GK_WIN_STRICT");
    }
    /* NOCHECK locks and lock_all are epochs too; unlock ends them. */
    CHECK_OK(gk_win_lock(strict, strict_other, GK_LOCK_EXCLUSIVE, GK_WIN_NOCHECK));
    CHECK_OK_SILENT(gk_win_put(strict, strict_other, 8, buf, 8));
    CHECK_OK(gk_win_unlock(strict, strict_other));
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_lock_all(strict, 0));
    CHECK_OK_SILENT(gk_win_get(strict, strict_other, buf, 8, 8));
    CHECK_OK(gk_win_unlock_all(strict));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_get(strict, strict_other, buf, 8, 8),
                 "GK_WIN_STRICT");
    /* A fence epoch: open after a fence, closed by NOSUCCEED. */
    CHECK_OK(gk_win_fence(strict, GK_WIN_NOPRECEDE));
    CHECK_OK_SILENT(gk_win_get(strict, strict_other, buf, 8, 8));
    CHECK_OK(gk_win_fence(strict, GK_WIN_NOSUCCEED));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_get(strict, strict_other, buf, 8, 8),
                 "GK_WIN_STRICT");

    /* Creation: NULL outputs; a base that differs between PEs is fine:
     * each part is reached at its own heap offset. */
    void *base = NULL;
    gk_win_t *w = NULL;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_allocate(64, 0, NULL, &w), "gk_win_allocate",
                 "base_p is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_allocate(64, 0, &base, NULL),
                 "gk_win_allocate", "win_p is NULL");
    if (npes > 1) {
        char *range = gk_calloc(1, 4096);
        CHECK_NOT_NULL(range);
        CHECK_OK(gk_win_create(range + (me == 0 ? 0 : 64), 64, 0, &w));
        uint64_t v = 0xabcd0000u + (uint64_t)me;
        CHECK_OK(gk_win_put(w, other, 8, &v, sizeof(v)));
        CHECK_OK(gk_win_fence(w, 0));
        memcpy(&v, range + (me == 0 ? 0 : 64) + 8, sizeof(v));
        CHECK_EQ_U64(v, 0xabcd0000u + (uint64_t)((me + npes - 1) % npes));
        CHECK_OK(gk_win_free(w));
        gk_free(range);
    }
    CHECK_OK(gk_barrier());
    /* After all that, the windows still work. */
    CHECK_OK(gk_win_lock(win, other, GK_LOCK_EXCLUSIVE, 0));
    u = 0xfeed;
    CHECK_OK(gk_win_put(win, other, 64, &u, sizeof(u)));
    CHECK_OK(gk_win_unlock(win, other));
    CHECK_OK(gk_barrier());
    uint64_t mine = 0;
    memcpy(&mine, (char *)gk_win_base(win) + 64, sizeof(mine));
    CHECK_EQ_U64(mine, 0xfeed);
    CHECK_OK(gk_barrier());
}

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
    CHECK_LOGGED(GK_ERR_RANGE, gk_win_get(win, other, buf, 4096, 1), "displacement 4096");
    CHECK_LOGGED(GK_ERR_PE, gk_win_put(win, npes, 0, buf, 8), "PE");
    CHECK_LOGGED(GK_ERR_PE, gk_win_lock(win, -1, GK_LOCK_SHARED, 0), "PE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_put(NULL, other, 0, buf, 8), "win is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_get(win, other, NULL, 0, 8), "dst");

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
                 "dtype 42 (not a gk_dtype_t)");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_win_accumulate(win, other, 0, &u, 1, GK_DTYPE_UINT64, GK_OP_NO_OP),
                 "GK_OP_NO_OP is not valid here");
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
    /* An epoch open on one PE fails gk_win_free on every PE (each says
     * why), and the window stays usable. */
    if (me == 0)
        CHECK_OK(gk_win_lock(win, other, GK_LOCK_SHARED, 0));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_win_free(win), "gk_win_free",
                 me == 0 ? "epoch open (a lock" : "epoch open on another PE",
                 "not freed on any PE");
    if (me == 0)
        CHECK_OK(gk_win_unlock(win, other));
    CHECK_OK(gk_win_lock(win, other, GK_LOCK_EXCLUSIVE, 0));
    CHECK_OK(gk_win_put(win, other, 0, buf, 8));
    CHECK_OK(gk_win_unlock(win, other));
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

    /* Creation: bad flags; a NULL base. */
    gk_win_t *bad = NULL;
    void *bad_base = NULL;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_allocate(64, 0x80, &bad_base, &bad), "flags");
    /* Bad on one PE only: every PE fails, the others saying so. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_allocate(64, me == 0 ? 0x80 : 0, &bad_base, &bad),
                 me == 0 ? "flags" : "failed on another PE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_create(NULL, 64, 0, &bad), "base is NULL");
    /* Memory outside the heap makes an emulated window, not an error. */
    CHECK_OK(gk_win_create(buf, sizeof(buf), 0, &bad));
    CHECK_OK(gk_win_free(bad));

    check_more(win, strict, me, npes);

    CHECK_OK(gk_win_free(strict));
    CHECK_OK(gk_win_free(win));
    /* A freed window is refused (the handle is gone: use a stale copy of
     * a live-looking one would be undefined, so only NULL is tested). */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_win_flush(NULL, 0), "win is NULL");

    /* gk_finalize with a lock still held refuses (others could be queued
     * behind it, waiting for ever), and works once it is released. */
    gk_win_t *last = NULL;
    void *last_base = NULL;
    CHECK_OK(gk_win_allocate(64, 0, &last_base, &last));
    CHECK_OK(gk_win_lock(last, other, GK_LOCK_SHARED, 0));
    CHECK_LOGGED(GK_ERR_EPOCH, gk_finalize(), "gk_finalize", "window", "epoch open");
    CHECK_OK(gk_win_unlock(last, other));
    CHECK_OK(gk_win_free(last));
    return gk_finalize() == GK_OK ? 0 : 1;
}

/*
 * win_lock_order_test: the lock's documented rules, checked with schemes
 * that cannot fail by timing:
 *
 *   try_lock   shared succeeds beside readers and fails beside a writer or
 *              once a writer waits; exclusive succeeds only on a free lock;
 *              a failed try changes nothing (the holder can still release,
 *              the next try succeeds).
 *   windows    the locks of two windows on the same target are independent.
 *   queueing   a reader that asks after a writer is waiting waits for that
 *              writer ("readers cannot starve writers"), and of two
 *              writers the one that asked first is granted first.
 *
 * The queueing scheme: PE 0 holds its part shared. PE 1 asks for it
 * exclusive (and waits, PE 0 is a reader). Everyone else polls
 * gk_win_try_lock(SHARED) until it fails: by the try_lock rule that
 * happens exactly when a writer is queued, and PE 1 is the only one that
 * can be, so each of them now asks strictly after PE 1. PE 2 asks
 * exclusive, PEs 3.. shared. PE 0 releases once all have said they are
 * about to ask. Then PE 1 must be the first writer granted, and every
 * reader must find PE 1's section finished. No sleep decides anything.
 */
#include <sched.h>

#include "pe_check.h"
#include "win_emulated.h"

enum {
    DISP_TURN = 0,      /* writers take a turn number under the lock */
    DISP_W1_DONE = 8,   /* PE 1's section has finished (put under the lock) */
    DISP_ASKING = 16,   /* PEs about to ask (atomic count) */
    DISP_ORDER = 64,    /* the writers in grant order */
    DISP_READ_OK = 128, /* per reader: 1 if it found PE 1 finished */
};

static void try_expect(gk_win_t *win, int pe, int type, int expected)
{
    int got = -1;
    CHECK_OK(gk_win_try_lock(win, pe, type, &got));
    if (got != expected)
        PE_FAIL("gk_win_try_lock(PE %d, %s) acquired %d, expected %d", pe,
                type == GK_LOCK_SHARED ? "SHARED" : "EXCLUSIVE", got, expected);
    if (got)
        CHECK_OK(gk_win_unlock(win, pe));
}

static void check_try_lock(gk_win_t *win, gk_win_t *other_win, int me, int npes)
{
    int other = npes - 1; /* the holder of the lock under test */
    int t = 0;            /* the target */
    /* Free: both kinds succeed (each PE on its own part, so nobody
     * competes). */
    try_expect(win, me, GK_LOCK_SHARED, 1);
    try_expect(win, me, GK_LOCK_EXCLUSIVE, 1);
    CHECK_OK(gk_barrier());
    if (npes == 1)
        return;

    /* A reader holds it: shared yes, exclusive no. */
    if (me == other) { /* held from the flush on, across hosts too */
        CHECK_OK(gk_win_lock(win, t, GK_LOCK_SHARED, 0));
        CHECK_OK(gk_win_flush(win, t));
    }
    CHECK_OK(gk_barrier());
    if (me != other) {
        try_expect(win, t, GK_LOCK_SHARED, 1);
        try_expect(win, t, GK_LOCK_EXCLUSIVE, 0);
        if (me == 0) /* another window's lock on the same target: free */
            try_expect(other_win, t, GK_LOCK_EXCLUSIVE, 1);
    }
    CHECK_OK(gk_barrier());
    if (me == other)
        CHECK_OK(gk_win_unlock(win, t));
    CHECK_OK(gk_barrier());

    /* A writer holds it (taken with try_lock): neither kind. */
    if (me == other) {
        int got = 0;
        CHECK_OK(gk_win_try_lock(win, t, GK_LOCK_EXCLUSIVE, &got));
        CHECK_EQ(got, 1);
    }
    CHECK_OK(gk_barrier());
    if (me != other) {
        try_expect(win, t, GK_LOCK_SHARED, 0);
        try_expect(win, t, GK_LOCK_EXCLUSIVE, 0);
        try_expect(other_win, t, GK_LOCK_SHARED, 1);
    }
    CHECK_OK(gk_barrier());
    if (me == other)
        CHECK_OK(gk_win_unlock(win, t));
    CHECK_OK(gk_barrier());
    /* Freed again: the failed tries left nothing behind. */
    if (me == 0) {
        try_expect(win, t, GK_LOCK_EXCLUSIVE, 1);
        CHECK_OK(gk_win_lock(win, t, GK_LOCK_EXCLUSIVE, 0));
        CHECK_OK(gk_win_unlock(win, t));
    }
    CHECK_OK(gk_barrier());
}

/* Waits until a writer is queued on PE 0's lock (a shared try fails). */
static void wait_writer_queued(gk_win_t *win)
{
    for (;;) {
        int got = 0;
        CHECK_OK(gk_win_try_lock(win, 0, GK_LOCK_SHARED, &got));
        if (!got)
            return;
        CHECK_OK(gk_win_unlock(win, 0));
        sched_yield();
    }
}

static void writer_section(gk_win_t *win, int me)
{
    uint64_t one = 1, turn = 0;
    CHECK_OK(
        gk_win_fetch_and_op(win, 0, DISP_TURN, &one, &turn, GK_DTYPE_UINT64, GK_OP_SUM));
    uint64_t who = (uint64_t)me;
    CHECK_OK(gk_win_put(win, 0, DISP_ORDER + 8 * (size_t)turn, &who, sizeof(who)));
    if (me == 1) {
        sched_yield(); /* a reader let in early would see the flag still 0 */
        CHECK_OK(gk_win_put(win, 0, DISP_W1_DONE, &one, sizeof(one)));
    }
}

static void check_queueing(gk_win_t *win, uint64_t *base, int me, int npes)
{
    if (me == 0)
        CHECK_OK(gk_win_lock(win, 0, GK_LOCK_SHARED, 0));
    CHECK_OK(gk_barrier()); /* PE 0 holds it shared */
    uint64_t one = 1, old = 0;
    if (me == 1) {
        CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
        writer_section(win, me);
        CHECK_OK(gk_win_unlock(win, 0));
    } else if (me >= 2) {
        wait_writer_queued(win);
        CHECK_OK(gk_win_fetch_and_op(win, 0, DISP_ASKING, &one, &old, GK_DTYPE_UINT64,
                                     GK_OP_SUM));
        if (me == 2) {
            CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
            writer_section(win, me);
        } else {
            CHECK_OK(gk_win_lock(win, 0, GK_LOCK_SHARED, 0));
            uint64_t done = 0;
            CHECK_OK(gk_win_get(win, 0, &done, DISP_W1_DONE, sizeof(done)));
            uint64_t ok = done == 1;
            CHECK_OK(gk_win_put(win, 0, DISP_READ_OK + 8 * (size_t)me, &ok, sizeof(ok)));
        }
        CHECK_OK(gk_win_unlock(win, 0));
    } else {
        /* PE 0: release once everyone else has asked (or is about to). */
        while (__atomic_load_n(&base[DISP_ASKING / 8], __ATOMIC_ACQUIRE) <
               (uint64_t)(npes - 2))
            sched_yield();
        CHECK_OK(gk_win_unlock(win, 0));
    }
    CHECK_OK(gk_barrier());
    if (me == 0) {
        CHECK_EQ_U64(base[DISP_TURN / 8], npes >= 3 ? 2 : 1);
        CHECK_EQ_U64(base[DISP_ORDER / 8], 1); /* PE 1 asked first */
        if (npes >= 3)
            CHECK_EQ_U64(base[DISP_ORDER / 8 + 1], 2);
        CHECK_EQ_U64(base[DISP_W1_DONE / 8], 1);
        for (int p = 3; p < npes; p++)
            if (base[DISP_READ_OK / 8 + p] != 1)
                PE_FAIL("reader PE %d asked after writer PE 1 was queued but was granted "
                        "before PE 1 finished",
                        p);
    }
    CHECK_OK(gk_barrier());
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    uint64_t *base = NULL, *other_base = NULL;
    gk_win_t *win = NULL, *other_win = NULL;
    CHECK_OK(gk_win_allocate(128 + 8 * (size_t)npes, 0, (void **)&base, &win));
    CHECK_OK(gk_win_allocate(64, 0, (void **)&other_base, &other_win));
    check_try_lock(win, other_win, me, npes);
    if (npes >= 2) {
        for (int round = 0; round < 20; round++) {
            if (me == 0)
                memset(base, 0, 128 + 8 * (size_t)npes);
            CHECK_OK(gk_barrier());
            check_queueing(win, base, me, npes);
        }
    }
    CHECK_OK(gk_win_free(other_win));
    CHECK_OK(gk_win_free(win));
    return gk_finalize() == GK_OK ? 0 : 1;
}

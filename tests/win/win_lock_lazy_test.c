/*
 * win_lock_lazy_test: window locks whose request goes with the epoch's
 * first operation (across hosts: win/rwlock_lazy.c), contended by PEs on
 * the target's host and PEs on another, in its .hosts<k> variants; on one
 * host the same program checks the eager lock.
 *
 *   rounds     every PE, round after round with no pause (lock, unlock,
 *              lock again at once), on PE 0's part and on the last PE's:
 *              exclusive epochs that start with a get or with a put, shared
 *              epochs, and epochs with no operation at all. Writers put a
 *              counter and then its copy in two puts and leave their tag:
 *              a reader must see both equal, a writer its own tag to the
 *              end of its section, and the counter must end equal to the
 *              number of writer sections (no lost update).
 *   no-op      an epoch with no operation is still ordered after the
 *              epoch that holds the lock: PE `holder` holds PE 0's lock
 *              exclusive across a barrier (across hosts, from a flush on)
 *              and writes a flag twice; the other PE's lock + unlock with
 *              nothing between returns only after the second write.
 */
#include <sched.h>
#include <stdlib.h>

#include "pe_check.h"

enum { DISP_COUNT = 0, DISP_COPY = 8, DISP_TAG = 16, DISP_FLAG = 24, PART = 64 };

static uint64_t get64(gk_win_t *win, int t, size_t disp)
{
    uint64_t v = ~0ull;
    CHECK_OK(gk_win_get(win, t, &v, disp, sizeof(v)));
    return v;
}

static void put64(gk_win_t *win, int t, size_t disp, uint64_t v)
{
    CHECK_OK(gk_win_put(win, t, disp, &v, sizeof(v)));
}

/* A writer's section; `put_first`: its first operation is a put. */
static void write_section(gk_win_t *win, int t, uint64_t tag, int put_first)
{
    if (put_first)
        put64(win, t, DISP_TAG, tag);
    uint64_t count = get64(win, t, DISP_COUNT);
    CHECK_EQ_U64(get64(win, t, DISP_COPY), count);
    if (!put_first)
        put64(win, t, DISP_TAG, tag);
    put64(win, t, DISP_COUNT, count + 1);
    put64(win, t, DISP_COPY, count + 1);
    /* A put is complete at the target at a flush (check mode defers it to
     * one): only then may a get of the same bytes see it. */
    CHECK_OK(gk_win_flush(win, t));
    CHECK_EQ_U64(get64(win, t, DISP_TAG), tag); /* nobody else wrote in between */
}

static void rounds(gk_win_t *win, uint64_t *base, int me, int npes, int n_rounds)
{
    uint64_t written[2] = {0, 0}; /* my writer sections on PE 0 and the last PE */
    for (int r = 0; r < n_rounds; r++) {
        int which = r % 2, t = which ? npes - 1 : 0;
        uint64_t tag = (uint64_t)me << 32 | (uint64_t)r;
        switch ((r / 2 + me) % 4) {
        case 0:
        case 1:
            CHECK_OK(gk_win_lock(win, t, GK_LOCK_EXCLUSIVE, 0));
            write_section(win, t, tag, (r / 2 + me) % 4 == 1);
            CHECK_OK(gk_win_unlock(win, t));
            written[which]++;
            break;
        case 2: {
            CHECK_OK(gk_win_lock(win, t, GK_LOCK_SHARED, 0));
            uint64_t count = get64(win, t, DISP_COUNT);
            CHECK_EQ_U64(get64(win, t, DISP_COPY), count);
            CHECK_OK(gk_win_unlock(win, t));
            break;
        }
        default:
            CHECK_OK(gk_win_lock(win, t, GK_LOCK_EXCLUSIVE, 0));
            CHECK_OK(gk_win_unlock(win, t));
            CHECK_OK(gk_win_lock(win, t, GK_LOCK_SHARED, 0));
            CHECK_OK(gk_win_unlock(win, t));
            break;
        }
    }
    uint64_t total[2] = {0, 0};
    CHECK_OK(gk_allreduce(total, written, 2, GK_DTYPE_UINT64, GK_OP_SUM));
    if (me == 0 || me == npes - 1) {
        uint64_t expected = me == 0 ? total[0] : total[1];
        if (npes == 1)
            expected = total[0] + total[1];
        CHECK_EQ_U64(base[DISP_COUNT / 8], expected);
        CHECK_EQ_U64(base[DISP_COPY / 8], expected);
    }
    CHECK_OK(gk_barrier());
}

static void busy(void)
{
    for (int i = 0; i < 2000; i++)
        sched_yield();
}

/* PE holder holds PE 0's lock across a barrier; PE other's empty epoch
 * must end after the holder's. */
static void noop_ordered(gk_win_t *win, uint64_t *base, int me, int holder, int other)
{
    if (me == 0)
        base[DISP_FLAG / 8] = 0;
    CHECK_OK(gk_barrier());
    if (me == holder) {
        CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
        CHECK_OK(gk_win_flush(win, 0)); /* held from here on, across hosts too */
        put64(win, 0, DISP_FLAG, 1);
    }
    CHECK_OK(gk_barrier());
    if (me == holder) {
        busy(); /* gives a lock that did not wait the time to be wrong */
        put64(win, 0, DISP_FLAG, 2);
        CHECK_OK(gk_win_unlock(win, 0));
    } else if (me == other) {
        CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
        CHECK_OK(gk_win_unlock(win, 0));
        /* Read outside any epoch: only the empty epoch orders it. The
         * holder's put completed before its release. */
        uint64_t flag = 0;
        CHECK_OK(gk_get(0, &flag, &base[DISP_FLAG / 8], sizeof(flag)));
        CHECK_EQ_U64(flag, 2);
    }
    CHECK_OK(gk_barrier());
}

int main(int argc, char **argv)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int n_rounds = argc > 1 ? atoi(argv[1]) : 400;
    uint64_t *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(PART, 0, (void **)&base, &win));
    CHECK_OK(gk_barrier());
    rounds(win, base, me, npes, n_rounds);
    if (npes > 1) {
        noop_ordered(win, base, me, 0, npes - 1); /* the target holds, the last PE asks */
        noop_ordered(win, base, me, npes - 1, 0); /* the other way round */
    }
    CHECK_OK(gk_win_free(win));
    return gk_finalize() == GK_OK ? 0 : 1;
}

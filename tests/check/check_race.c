/*
 * check_race: conflicting accesses between PEs, which check mode's race
 * detector (GK_CHECK=1, docs/CHECK.md) reports, each beside the same
 * accesses ordered by one kind of synchronisation, which it must not
 * report. Run at 2 PEs: `check_race <case> wrong|right`.
 *
 *   put_put    both PEs put to the same words of PE 0        right: a barrier between
 *   put_get    PE 0 puts to PE 1's words, PE 1 gets them     right: a barrier between
 *   lock       both PEs put to PE 0's words                  right: each under gk_lock_t
 *   sem        PE 0 puts to its words, PE 1 then puts there  right: PE 0 posts PE 1's
 *                                                            semaphore, PE 1 waits first
 *   signal     PE 0 puts to PE 1's words, PE 1 gets them     right: gk_put_signal, and
 *                                                            PE 1 waits for the signal
 *   flag       the same                                      right: gk_fence, an atomic
 *                                                            flag PE 1 polls by atomics
 *   win_fence  both PEs put to PE 0's part of a window in     right: in two epochs
 *              one fence epoch
 *   win_lock   (right only) both PEs put to PE 0's part, each in an exclusive lock
 *              epoch
 *   unrelated  PE 0 puts to PE 1's words; PE 1 sees     right: gk_fence, an atomic
 *              them land (plain loads, which order      flag PE 1 waits for
 *              nothing), gets other words of its own,
 *              then gets them: the first get must not
 *              order the second
 *
 * The wrong forms leave the data as one of the PEs wrote it: only the
 * detector's report ("check: race") tells, from whichever PE came second.
 * Every form ends in a barrier, so the accesses of a wrong form are in one
 * interval whatever the timing.
 */
#include <sched.h>

#include "pe_check.h"

enum { WORDS = 8 };

/* PE 0's side of flag and unrelated: its put to PE 1's data, then, in the
 * right form, a fence and the flag PE 1 waits for. */
static void put_then_flag(uint64_t *data, const uint64_t *mine, size_t nbytes, uint64_t *flag,
                          int right)
{
    CHECK_OK(gk_put(1, data, mine, nbytes));
    if (right) {
        CHECK_OK(gk_fence());
        CHECK_OK(gk_atomic_set_u64(1, flag, 1));
    }
}

int main(int argc, char **argv)
{
    if (argc != 3)
        PE_FAIL("usage: check_race put_put|put_get|lock|sem|signal|flag|win_fence|win_lock|unrelated "
                "wrong|right");
    const char *which = argv[1];
    int right = strcmp(argv[2], "right") == 0;
    CHECK_OK(gk_init());
    CHECK_EQ(gk_n_pes(), 2);
    int me = gk_my_pe(), other = 1 - me;
    uint64_t *data = gk_calloc(WORDS, sizeof(uint64_t));
    uint64_t *flag = gk_calloc(1, sizeof(uint64_t));
    gk_lock_t *lock = gk_calloc(1, sizeof(gk_lock_t));
    CHECK_NOT_NULL(data);
    CHECK_NOT_NULL(flag);
    CHECK_NOT_NULL(lock);
    uint64_t mine[WORDS], got[WORDS];
    for (size_t i = 0; i < WORDS; i++)
        mine[i] = 0x100 * (uint64_t)(me + 1) + i;
    CHECK_OK(gk_barrier());

    if (strcmp(which, "put_put") == 0) {
        if (me == 1 && right)
            CHECK_OK(gk_barrier());
        CHECK_OK(gk_put(0, data, mine, sizeof(mine)));
        if (me == 0 && right)
            CHECK_OK(gk_barrier());
    } else if (strcmp(which, "put_get") == 0) {
        if (me == 0)
            CHECK_OK(gk_put(1, data, mine, sizeof(mine)));
        if (right)
            CHECK_OK(gk_barrier());
        if (me == 1)
            CHECK_OK(gk_get(1, got, data, sizeof(got)));
    } else if (strcmp(which, "lock") == 0) {
        if (right)
            CHECK_OK(gk_lock_set(lock));
        CHECK_OK(gk_put(0, data, mine, sizeof(mine)));
        if (right)
            CHECK_OK(gk_lock_clear(lock));
    } else if (strcmp(which, "sem") == 0) {
        gk_sem_t sem, theirs;
        CHECK_OK(gk_sem_alloc_all(GK_SEM_INTEGER, &sem));
        CHECK_OK(gk_sem_on(sem, other, &theirs));
        if (me == 0) {
            CHECK_OK(gk_put(0, data, mine, sizeof(mine)));
            CHECK_OK(gk_sem_post(theirs));
        } else {
            if (right)
                CHECK_OK(gk_sem_wait(sem));
            CHECK_OK(gk_put(0, data, mine, sizeof(mine)));
            if (!right)
                CHECK_OK(gk_sem_wait(sem));
        }
        CHECK_OK(gk_barrier());
        CHECK_OK(gk_sem_free_all(sem));
    } else if (strcmp(which, "signal") == 0) {
        if (me == 0) {
            if (right)
                CHECK_OK(gk_put_signal(1, data, mine, sizeof(mine), flag, 1, GK_SIGNAL_SET));
            else
                CHECK_OK(gk_put(1, data, mine, sizeof(mine)));
        } else {
            if (right)
                CHECK_OK(gk_wait_until_u64(flag, GK_CMP_EQ, 1));
            CHECK_OK(gk_get(1, got, data, sizeof(got)));
        }
    } else if (strcmp(which, "flag") == 0) {
        if (me == 0) {
            put_then_flag(data, mine, sizeof(mine), flag, right);
        } else {
            uint64_t seen = 0;
            while (right && seen == 0)
                CHECK_OK(gk_atomic_fetch_u64(1, flag, &seen));
            CHECK_OK(gk_get(1, got, data, sizeof(got)));
        }
    } else if (strcmp(which, "unrelated") == 0) {
        uint64_t *unrelated = gk_calloc(WORDS, sizeof(uint64_t));
        CHECK_NOT_NULL(unrelated);
        if (me == 0) {
            put_then_flag(data, mine, sizeof(mine), flag, right);
        } else {
            if (right) {
                CHECK_OK(gk_wait_until_u64(flag, GK_CMP_EQ, 1));
            } else {
                /* Seen in time, not ordered: what a plain load observes
                 * synchronises nothing. */
                while (__atomic_load_n(&data[WORDS - 1], __ATOMIC_RELAXED) != 0x100 + WORDS - 1)
                    sched_yield();
            }
            CHECK_OK(gk_get(1, got, unrelated, sizeof(got)));
            CHECK_OK(gk_get(1, got, data, sizeof(got)));
            CHECK_EQ(got[WORDS - 1], 0x100 + WORDS - 1);
        }
        CHECK_OK(gk_barrier());
        gk_free(unrelated);
    } else if (strcmp(which, "win_fence") == 0 || strcmp(which, "win_lock") == 0) {
        gk_win_t *win = NULL;
        CHECK_OK(gk_win_create(data, sizeof(uint64_t) * WORDS, 0, &win));
        if (strcmp(which, "win_lock") == 0) {
            /* Exclusive epochs: the lock orders them (no wrong form). */
            CHECK_OK(gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0));
            CHECK_OK(gk_win_put(win, 0, 0, mine, sizeof(mine)));
            CHECK_OK(gk_win_unlock(win, 0));
        } else {
            CHECK_OK(gk_win_fence(win, 0));
            if (me == 0 || !right)
                CHECK_OK(gk_win_put(win, 0, 0, mine, sizeof(mine)));
            CHECK_OK(gk_win_fence(win, 0));
            if (me == 1 && right)
                CHECK_OK(gk_win_put(win, 0, 0, mine, sizeof(mine)));
            CHECK_OK(gk_win_fence(win, 0));
        }
        CHECK_OK(gk_barrier());
        CHECK_OK(gk_win_free(win));
    } else {
        PE_FAIL("unknown case %s", which);
    }
    CHECK_OK(gk_barrier());
    gk_free(lock);
    gk_free(flag);
    gk_free(data);
    CHECK_OK(gk_finalize());
    return 0;
}

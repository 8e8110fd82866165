/*
 * check_native: the completion bugs check mode (GK_CHECK=1) is for, written
 * as a user would write them with the native API, each beside its correct
 * form. Run at 2 PEs: `check_native <case> wrong|right`.
 *
 *   get_nbi_read   PE 0 reads a gk_get_nbi destination before gk_quiet
 *   get_nb_read    the same with gk_get_nb, before gk_handle_wait
 *   flag_no_fence  PE 0 raises PE 1's flag after gk_put_nbi with no fence
 *   put_nbi_reuse  PE 0 writes a gk_put_nbi source before gk_quiet
 *   put_signal_nbi_reuse  the same with gk_put_signal_nbi
 *   win_put_flag   PE 0 raises PE 1's flag after gk_win_put with no flush
 *   put_after_free PE 0 puts to a gk_malloc block after gk_free
 *   wait_no_writer PE 1 waits (gk_wait_until_u64) for a word no PE writes
 *   sem_no_post    PE 1 waits on a semaphore no PE posts
 *   sem_unbalanced PE 0 posts twice to PE 1's semaphore, which takes once
 *   win_no_epoch   PE 0 puts to a GK_WIN_STRICT window without a lock
 *   win_lock_finalize  PE 0 calls gk_finalize holding a window lock
 *
 * A program that reads stale data says so ("stale: ...") and fails; the
 * tests (CMakeLists.txt) expect that line from the wrong forms in check
 * mode, or the checker's own report for the source reuse, which leaves
 * the data right. The right forms must pass with no report at all.
 *
 * The flag case's PE 0 waits for PE 1's verdict by polling a word of its
 * own heap, not with a gasket wait: a wait that sleeps is a completion
 * point in check mode, and the put must stay incomplete until PE 1 read.
 */
#include <sched.h>
#include <stdatomic.h>

#include "pe_check.h"

enum { WORDS = 64 };

static uint64_t value_of(size_t i)
{
    return 0x1000 + i;
}

/* Fails the job as the user's own check would, naming what it saw. */
static void expect_data(const uint64_t *got, const char *what)
{
    for (size_t i = 0; i < WORDS; i++)
        if (got[i] != value_of(i))
            PE_FAIL("stale: %s word %zu is %#llx, not %#llx", what, i,
                    (unsigned long long)got[i], (unsigned long long)value_of(i));
}

static void poll_until_set(uint64_t *word)
{
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
}

/* PE 1's side of the flag cases: waits for the flag, reads the data,
 * answers PE 0 (flag[1]), then judges what it read. */
static void read_under_flag(const void *data, uint64_t *flag, const char *what)
{
    CHECK_OK(gk_wait_until_u64(&flag[0], GK_CMP_EQ, 1));
    uint64_t copy[WORDS];
    memcpy(copy, data, sizeof(copy));
    CHECK_OK(gk_put_u64(0, &flag[1], 1));
    expect_data(copy, what);
}

/*
 * The cases whose wrong form leaves something behind for gk_finalize (or
 * ends the job there): each returns what main still has to free and end,
 * and in the wrong form goes straight to gk_finalize (a barrier first
 * would wait for a PE that never comes).
 */
static void case_wait_no_writer(int me, int right, uint64_t *flag)
{
    CHECK_OK(gk_barrier());
    if (me == 0 && right)
        CHECK_OK(gk_atomic_set_u64(1, &flag[0], 1));
    if (me == 1)
        CHECK_OK(gk_wait_until_u64(&flag[0], GK_CMP_EQ, 1));
}

static void case_sem_no_post(int me, int right)
{
    gk_sem_t sem, on1;
    CHECK_OK(gk_sem_alloc_all(GK_SEM_INTEGER, &sem));
    CHECK_OK(gk_sem_on(sem, 1, &on1));
    if (me == 0 && right)
        CHECK_OK(gk_sem_post(on1));
    if (me == 1)
        CHECK_OK(gk_sem_wait(sem));
    if (right) {
        CHECK_OK(gk_barrier());
        CHECK_OK(gk_sem_free_all(sem));
    }
}

static void case_sem_unbalanced(int me, int right)
{
    gk_sem_t sem, on1;
    CHECK_OK(gk_sem_alloc_all(GK_SEM_INTEGER, &sem));
    CHECK_OK(gk_sem_on(sem, 1, &on1));
    if (me == 0) {
        CHECK_OK(gk_sem_post(on1));
        CHECK_OK(gk_sem_post(on1));
    } else {
        CHECK_OK(gk_sem_wait(sem));
        if (right)
            CHECK_OK(gk_sem_wait(sem));
    }
    CHECK_OK(gk_barrier()); /* left allocated: gk_finalize judges it */
}

static void case_win_lock_finalize(int me, int right)
{
    void *base;
    gk_win_t *win;
    CHECK_OK(gk_win_allocate(64, 0, &base, &win));
    if (me == 0) {
        CHECK_OK(gk_win_lock(win, 1, GK_LOCK_EXCLUSIVE, 0));
        uint64_t one = 1;
        CHECK_OK(gk_win_put(win, 1, 0, &one, sizeof(one)));
        if (right)
            CHECK_OK(gk_win_unlock(win, 1));
    }
    if (right)
        CHECK_OK(gk_win_free(win));
}

int main(int argc, char **argv)
{
    if (argc != 3)
        PE_FAIL("usage: check_native <case> wrong|right (the cases: this file's comment)");
    const char *which = argv[1];
    int right = strcmp(argv[2], "right") == 0;
    CHECK_OK(gk_init());
    CHECK_EQ(gk_n_pes(), 2);
    int me = gk_my_pe();
    uint64_t *data = gk_calloc(WORDS, sizeof(uint64_t));
    uint64_t *flag = gk_calloc(2, sizeof(uint64_t)); /* [0] the flag, [1] the answer */
    CHECK_NOT_NULL(data);
    CHECK_NOT_NULL(flag);
    uint64_t local[WORDS];
    for (size_t i = 0; i < WORDS; i++)
        local[i] = value_of(i);

    if (strcmp(which, "get_nbi_read") == 0) {
        if (me == 1)
            memcpy(data, local, sizeof(local));
        CHECK_OK(gk_barrier());
        if (me == 0) {
            uint64_t got[WORDS];
            CHECK_OK(gk_get_nbi(1, got, data, sizeof(got)));
            if (right)
                CHECK_OK(gk_quiet());
            uint64_t copy[WORDS];
            memcpy(copy, got, sizeof(copy)); /* the wrong form's early read */
            CHECK_OK(gk_quiet());
            expect_data(copy, "gk_get_nbi destination");
        }
    } else if (strcmp(which, "get_nb_read") == 0) {
        if (me == 1)
            memcpy(data, local, sizeof(local));
        CHECK_OK(gk_barrier());
        if (me == 0) {
            uint64_t got[WORDS];
            gk_handle_t handle;
            CHECK_OK(gk_get_nb(1, got, data, sizeof(got), &handle));
            if (right)
                CHECK_OK(gk_handle_wait(&handle));
            uint64_t copy[WORDS];
            memcpy(copy, got, sizeof(copy));
            CHECK_OK(gk_handle_wait(&handle));
            expect_data(copy, "gk_get_nb destination");
        }
    } else if (strcmp(which, "flag_no_fence") == 0) {
        CHECK_OK(gk_barrier());
        if (me == 0) {
            CHECK_OK(gk_put_nbi(1, data, local, sizeof(local)));
            if (right)
                CHECK_OK(gk_fence());
            CHECK_OK(gk_put_u64(1, &flag[0], 1));
            poll_until_set(&flag[1]); /* PE 1 has read */
        } else {
            read_under_flag(data, flag, "data under the flag");
        }
    } else if (strcmp(which, "put_nbi_reuse") == 0) {
        if (me == 0) {
            uint64_t src[WORDS];
            memcpy(src, local, sizeof(src));
            CHECK_OK(gk_put_nbi(1, data, src, sizeof(src)));
            if (right)
                CHECK_OK(gk_quiet());
            src[0] = 0xdead; /* the wrong form's reuse */
            CHECK_OK(gk_quiet());
        }
        CHECK_OK(gk_barrier());
        if (me == 1)
            expect_data(data, "the put's data");
    } else if (strcmp(which, "put_signal_nbi_reuse") == 0) {
        if (me == 0) {
            uint64_t src[WORDS];
            memcpy(src, local, sizeof(src));
            CHECK_OK(gk_put_signal_nbi(1, data, src, sizeof(src), &flag[0], 1, GK_SIGNAL_SET));
            if (right)
                CHECK_OK(gk_quiet());
            src[0] = 0xdead;
            CHECK_OK(gk_quiet());
        } else {
            CHECK_OK(gk_signal_wait_until(&flag[0], GK_CMP_EQ, 1, NULL));
            expect_data(data, "the signaling put's data");
        }
    } else if (strcmp(which, "win_put_flag") == 0) {
        void *base;
        gk_win_t *win;
        CHECK_OK(gk_win_allocate(sizeof(local), 0, &base, &win));
        if (me == 0) {
            CHECK_OK(gk_win_lock(win, 1, GK_LOCK_SHARED, 0));
            CHECK_OK(gk_win_put(win, 1, 0, local, sizeof(local)));
            if (right)
                CHECK_OK(gk_win_flush(win, 1));
            CHECK_OK(gk_put_u64(1, &flag[0], 1));
            poll_until_set(&flag[1]); /* PE 1 has read */
            CHECK_OK(gk_win_unlock(win, 1));
        } else {
            read_under_flag(base, flag, "window data under the flag");
        }
        CHECK_OK(gk_win_free(win));
    } else if (strcmp(which, "put_after_free") == 0) {
        uint64_t *block = gk_malloc(sizeof(local));
        CHECK_NOT_NULL(block);
        if (me == 0 && right)
            CHECK_OK(gk_put(1, block, local, sizeof(local)));
        gk_free(block);
        if (me == 0 && !right)
            CHECK_OK(gk_put(1, block, local, sizeof(local)));
    } else if (strcmp(which, "win_no_epoch") == 0) {
        void *base;
        gk_win_t *win;
        CHECK_OK(gk_win_allocate(sizeof(local), GK_WIN_STRICT, &base, &win));
        if (me == 0) {
            if (right)
                CHECK_OK(gk_win_lock(win, 1, GK_LOCK_SHARED, 0));
            CHECK_OK(gk_win_put(win, 1, 0, local, sizeof(local)));
            if (right)
                CHECK_OK(gk_win_unlock(win, 1));
        }
        CHECK_OK(gk_barrier());
        if (me == 1)
            expect_data(base, "the window's data");
        CHECK_OK(gk_win_free(win));
    } else if (strcmp(which, "wait_no_writer") == 0 || strcmp(which, "sem_no_post") == 0 ||
               strcmp(which, "sem_unbalanced") == 0 ||
               strcmp(which, "win_lock_finalize") == 0) {
        if (strcmp(which, "wait_no_writer") == 0)
            case_wait_no_writer(me, right, flag);
        else if (strcmp(which, "sem_no_post") == 0)
            case_sem_no_post(me, right);
        else if (strcmp(which, "sem_unbalanced") == 0)
            case_sem_unbalanced(me, right);
        else
            case_win_lock_finalize(me, right);
        if (!right) {
            CHECK_OK(gk_finalize());
            return 0;
        }
    } else {
        PE_FAIL("unknown case %s", which);
    }
    CHECK_OK(gk_barrier());
    gk_free(flag);
    gk_free(data);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * coll_mismatch_test MODE: PEs that make different collective calls get
 * GK_ERR_COLL_MISMATCH and one line naming both calls on every PE, never
 * a hang; after that every collective fails at once, gk_finalize included,
 * which still releases everything. And PEs that make the same calls get
 * no false alarm, however far apart they run.
 *
 *   malloc_barrier   PE 0 in gk_malloc, the others in gk_barrier
 *   malloc_barrier_far  the same with PE n / 2 in gk_malloc: run with more
 *                    PEs than a wait reads at a time, most PEs find it
 *                    only once their batches come round to it or to a
 *                    finder
 *   extra_barrier    PE 1 calls gk_barrier once more, the others go on to
 *                    gk_finalize (whose barrier would fit the extra one)
 *   vote_allreduce   PE 0 in a gk_allreduce shaped as gk_sem_alloc_all's
 *                    argument vote, the others in gk_sem_alloc_all
 *   reduce_allreduce PE 0 in gk_reduce, the others in gk_allreduce
 *   root_ahead,      PE 0 broadcasts as the root, then calls an all-reduce,
 *   root_far_ahead   while the others are in a barrier: the root's
 *                    broadcast waits for its agreement rounds, so it finds
 *                    the mismatch there, and the all-reduce fails at once
 *   extra_broadcast, PE 0 broadcasts while the others are in gk_barrier:
 *   far_ahead        both calls fail with the mismatch
 *   in_step          every kind of collective, many times, with a
 *                    broadcast root running ahead and PEs held back in
 *                    turn (run with GK_SLEEP_MS=1: waits look at their
 *                    peers after every millisecond asleep)
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pe_check.h"

static int me, npes;

/* Nothing of this job is left in /dev/shm (its segments are named after
 * the job key, GK_JOB_KEY). */
static void check_shm_clean(void)
{
    const char *key = getenv("GK_JOB_KEY");
    if (key == NULL || key[0] == '\0')
        return;
    DIR *dir = opendir("/dev/shm");
    if (dir == NULL)
        return;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;)
        if (strstr(entry->d_name, key) != NULL)
            PE_FAIL("/dev/shm/%s is left behind", entry->d_name);
    closedir(dir);
}

/* gk_finalize after a mismatch: fails at once, says so, releases all. */
static void finalize_after_mismatch(void)
{
    CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_finalize(), "gk_finalize", "not run",
                 "without the final barrier");
    CHECK_EQ(gk_initialized(), 0);
    check_shm_clean();
}

static void malloc_barrier(int odd)
{
    const char *what = "collective mismatch";
    if (me == odd)
        CHECK_LOGGED_NULL(gk_malloc(64), what, "gk_malloc", "gk_barrier");
    else
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_barrier(), what, "gk_barrier", "gk_malloc");
    /* Out of step for good: the next collective fails at once. */
    CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_barrier(), "gk_barrier", "not run");
    finalize_after_mismatch();
}

static void extra_barrier(void)
{
    if (me == 1) {
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_barrier(), "collective mismatch",
                     "gk_barrier", "gk_finalize");
        finalize_after_mismatch();
    } else {
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_finalize(), "collective mismatch",
                     "gk_finalize", "gk_barrier");
        CHECK_EQ(gk_initialized(), 0);
        check_shm_clean();
    }
}

/* A broadcast's root waits for the call's agreement rounds like every PE,
 * so a root whose peers are in another call (`count` broadcasts, or a
 * barrier) learns of it in its own first broadcast, as they do. */
static void extra_broadcasts(int count)
{
    unsigned char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    (void)count;
    if (me == 0)
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_broadcast(buf, buf, sizeof(buf), 0),
                     "collective mismatch", "gk_broadcast", "gk_barrier");
    else
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_barrier(), "collective mismatch", "gk_barrier",
                     "gk_broadcast");
    finalize_after_mismatch();
}

/* The same with the root going on to an all-reduce: after the mismatch
 * every later call fails at once. */
static void root_ahead(int count)
{
    unsigned char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    (void)count;
    if (me == 0) {
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_broadcast(buf, buf, sizeof(buf), 0),
                     "collective mismatch", "gk_broadcast");
        uint64_t in = 1, out = 0;
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH,
                     gk_allreduce(&out, &in, 1, GK_DTYPE_UINT64, GK_OP_SUM),
                     "out of step");
    } else {
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_barrier(), "collective mismatch", "gk_barrier",
                     "gk_broadcast");
    }
    finalize_after_mismatch();
}

static void vote_allreduce(void)
{
    gk_sem_t sem = GK_SEM_NULL;
    if (me == 0) {
        uint64_t in = 0, out = 0;
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH,
                     gk_allreduce(&out, &in, 1, GK_DTYPE_UINT64, GK_OP_MAX),
                     "collective mismatch", "gk_allreduce", "gk_sem_alloc_all");
    } else {
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH, gk_sem_alloc_all(0, &sem),
                     "collective mismatch", "gk_sem_alloc_all", "gk_allreduce");
    }
    finalize_after_mismatch();
}

static void reduce_allreduce(void)
{
    int32_t in = me + 1, out = 0;
    if (me == 0)
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH,
                     gk_reduce(&out, &in, 1, GK_DTYPE_INT32, GK_OP_SUM, 0),
                     "collective mismatch", "gk_reduce", "gk_allreduce");
    else
        CHECK_LOGGED(GK_ERR_COLL_MISMATCH,
                     gk_allreduce(&out, &in, 1, GK_DTYPE_INT32, GK_OP_SUM),
                     "collective mismatch", "gk_allreduce", "gk_reduce");
    finalize_after_mismatch();
}

/* Holds this PE back for a few milliseconds (so the others wait, sleep and
 * look at their peers); a delay, not a synchronisation. */
static void hold_back(int turn)
{
    if (turn % npes != me)
        return;
    struct timespec pause = {0, 3 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

static void in_step(void)
{
    enum { ROUNDS = 40 };
    unsigned char buf[256];
    for (int round = 0; round < ROUNDS; round++) {
        hold_back(round);
        CHECK_OK(gk_barrier());

        /* The root runs ahead: several broadcasts in a row (one empty),
         * then other calls, while the others may still be behind. */
        int root = round % npes;
        for (int b = 0; b < 4; b++) {
            size_t len = b == 2 ? 0 : sizeof(buf);
            for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = me == root ? (unsigned char)(i + (size_t)b + (size_t)round) : 0;
            CHECK_OK(gk_broadcast(buf, buf, len, root));
            for (size_t i = 0; i < len; i++)
                CHECK_EQ(buf[i], (unsigned char)(i + (size_t)b + (size_t)round));
        }
        hold_back(round + 1);
        uint64_t in[700], out[700]; /* two pieces */
        for (size_t i = 0; i < 700; i++)
            in[i] = (uint64_t)me + i;
        CHECK_OK(gk_allreduce(out, in, 700, GK_DTYPE_UINT64, GK_OP_SUM));
        CHECK_EQ_U64(out[699], (uint64_t)npes * 699 + (uint64_t)npes * (npes - 1) / 2);
        out[0] = 0;
        CHECK_OK(gk_reduce(out, in, 1, GK_DTYPE_UINT64, GK_OP_SUM, root));
        if (me == root)
            CHECK_EQ_U64(out[0], (uint64_t)npes * (npes - 1) / 2);
        uint64_t mine[2] = {(uint64_t)me, (uint64_t)me}, all[2 * 8];
        CHECK_LE(npes, 8);
        CHECK_OK(gk_collect(all, mine, sizeof(uint64_t)));
        CHECK_EQ_U64(all[npes - 1], (uint64_t)npes - 1);
        uint64_t to_each[8], from_each[8];
        for (int p = 0; p < npes; p++)
            to_each[p] = (uint64_t)(me * 100 + p);
        CHECK_OK(gk_alltoall(from_each, to_each, sizeof(uint64_t)));
        CHECK_EQ_U64(from_each[0], (uint64_t)me);

        uint64_t *a = gk_malloc(64), *c = gk_calloc(4, 16), *al = gk_align(256, 64);
        CHECK_NOT_NULL(a);
        CHECK_NOT_NULL(c);
        CHECK_NOT_NULL(al);
        hold_back(round + 2);
        uint64_t *r = gk_realloc(a, 4096);
        CHECK_NOT_NULL(r);
        uint64_t *from_null = gk_realloc(NULL, 32); /* a gk_malloc */
        CHECK_NOT_NULL(from_null);
        CHECK_NULL(gk_realloc(from_null, 0)); /* a gk_free */
        gk_free(al);
        gk_free(c);
        gk_free(r);
        gk_free(NULL);

        void *base = NULL;
        gk_win_t *win = NULL, *win2 = NULL;
        CHECK_OK(gk_win_allocate(64, 0, &base, &win));
        CHECK_OK(gk_win_fence(win, 0));
        hold_back(round + 3);
        CHECK_OK(gk_win_fence(win, GK_WIN_NOSUCCEED));
        uint64_t *heap = gk_malloc(128);
        CHECK_NOT_NULL(heap);
        CHECK_OK(gk_win_create(heap, 128, 0, &win2));
        CHECK_OK(gk_win_free(win2));
        CHECK_OK(gk_win_free(win));
        gk_free(heap);

        gk_sem_t sem;
        CHECK_OK(gk_sem_alloc_all(0, &sem));
        gk_sem_t next;
        CHECK_OK(gk_sem_on(sem, (me + 1) % npes, &next));
        CHECK_OK(gk_sem_post(next));
        CHECK_OK(gk_sem_wait(sem));
        hold_back(round + 4);
        CHECK_OK(gk_sem_free_all(sem));
    }
    CHECK_OK(gk_finalize());
    check_shm_clean();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    if (strcmp(mode, "in_step") == 0) {
        in_step();
    } else if (npes < 2) {
        CHECK_OK(gk_finalize());
    } else if (strcmp(mode, "malloc_barrier") == 0) {
        malloc_barrier(0);
    } else if (strcmp(mode, "malloc_barrier_far") == 0) {
        malloc_barrier(npes / 2);
    } else if (strcmp(mode, "extra_barrier") == 0) {
        extra_barrier();
    } else if (strcmp(mode, "vote_allreduce") == 0) {
        vote_allreduce();
    } else if (strcmp(mode, "reduce_allreduce") == 0) {
        reduce_allreduce();
    } else if (strcmp(mode, "root_ahead") == 0) {
        root_ahead(4);
    } else if (strcmp(mode, "root_far_ahead") == 0) {
        root_ahead(8);
    } else if (strcmp(mode, "extra_broadcast") == 0) {
        extra_broadcasts(1);
    } else if (strcmp(mode, "far_ahead") == 0) {
        extra_broadcasts(5);
    } else {
        PE_FAIL("unknown mode \"%s\"", mode);
    }
    if (me == 0)
        printf("coll_mismatch_test %s: %d PEs ok\n", mode, npes);
    return 0;
}

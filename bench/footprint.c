/*
 * footprint: what one PE costs beyond its symmetric heap, and how long the
 * job took to start (bench/footprint.py runs it at several PE counts).
 *
 * Each PE measures itself; PE 0 prints the largest value over the PEs, one
 * "key value" line each:
 *
 *   startup_s      from GK_FOOTPRINT_T0 (the launch, ns since the epoch,
 *                  set by the script) to the end of the first barrier
 *   private_kib    resident pages private to the process, outside gasket's
 *                  segments (/proc/self/smaps): libraries' data, malloc
 *                  (per-peer tables, UCX's endpoints), stacks
 *   segment_kib    what /dev/shm holds of the PE's segment beyond its heap:
 *                  the pages of the runtime's area reserved at start-up
 *                  (or touched since), from the segment file's allocated
 *                  blocks (st_blocks through /proc/self/map_files, which
 *                  needs root; mincore does not see pages fallocate
 *                  reserved and nobody touched) less the heap, which is
 *                  reserved whole. Without root: the area's size, all of
 *                  it, an upper bound (said on stderr)
 *   window_kib     what gk_win_allocate of 8 bytes adds: heap pages its
 *                  control block touches, and private pages ("none" when
 *                  the heap has no room for it)
 *   semaphore_kib  what 64 gk_sem_alloc add, the same way
 *   remote_peers   peers reached through a network transport (UCX)
 *
 * Then the job uses what it measured, and checks the results (a wrong one
 * ends the job with an error), where the heap had room for the window:
 * every PE takes PE 0's window lock
 * exclusive in turn and adds 1 to a word there (the queue of n writers),
 * then all of them take it shared at once, and an all-reduce sums the
 * PE numbers. PE 0 prints "exercised 1" when all was right.
 */
#include <gasket.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Resident KiB of this process's mappings: those of gasket's segments
 * (/dev/shm/gk-*) into *segments, the rest into *private_kib (Private_*
 * lines only: pages no other process shares). */
static void smaps_kib(uint64_t *private_kib, uint64_t *segments)
{
    *private_kib = 0;
    *segments = 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL)
        return;
    char line[512];
    int in_segment = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long long kib;
        if (strchr(line, '-') != NULL && strchr(line, ':') == NULL) {
            /* A mapping's first line: "start-end perms offset dev inode path". */
            in_segment = strstr(line, "/dev/shm/gk-") != NULL;
        } else if (in_segment && sscanf(line, "Rss: %llu kB", &kib) == 1) {
            *segments += kib;
        } else if (!in_segment && (sscanf(line, "Private_Clean: %llu kB", &kib) == 1 ||
                                   sscanf(line, "Private_Dirty: %llu kB", &kib) == 1)) {
            *private_kib += kib;
        }
    }
    fclose(f);
}

/* What /dev/shm holds of this PE's own segment, in KiB: the file's
 * allocated blocks, or, where /proc/self/map_files cannot be read (not
 * root), the mapping's size (*exact_p 0). 0: not found. */
static uint64_t own_segment_kib(int me, int *exact_p)
{
    *exact_p = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return 0;
    char line[512], suffix[32];
    snprintf(suffix, sizeof(suffix), "-%d", me);
    uint64_t kib = 0;
    while (kib == 0 && fgets(line, sizeof(line), f) != NULL) {
        char *path = strstr(line, "/dev/shm/gk-");
        unsigned long long start, end;
        if (path == NULL || sscanf(line, "%llx-%llx", &start, &end) != 2)
            continue;
        path[strcspn(path, " \n")] = '\0';
        size_t n = strlen(path), m = strlen(suffix);
        if (n <= m || strcmp(path + n - m, suffix) != 0)
            continue;
        char file[96];
        struct stat st;
        snprintf(file, sizeof(file), "/proc/self/map_files/%llx-%llx", start, end);
        if (stat(file, &st) == 0) {
            kib = (uint64_t)st.st_blocks * 512 / 1024;
            *exact_p = 1;
        } else {
            kib = (end - start) / 1024;
        }
    }
    fclose(f);
    return kib;
}

/* KiB that smaps shows more now than at `before` (taken by smaps_kib),
 * private pages and segment pages together. */
static uint64_t kib_added(uint64_t private_before, uint64_t segments_before)
{
    uint64_t private_now, segments_now;
    smaps_kib(&private_now, &segments_now);
    return (private_now > private_before ? private_now - private_before : 0) +
           (segments_now > segments_before ? segments_now - segments_before : 0);
}

static uint64_t max_over_pes(uint64_t mine)
{
    uint64_t out = 0;
    if (gk_allreduce(&out, &mine, 1, GK_DTYPE_UINT64, GK_OP_MAX) != GK_OK) {
        fprintf(stderr, "footprint: gk_allreduce failed\n");
        gk_abort(1, "footprint");
    }
    return out;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The window's lock and an all-reduce at the job's size (see the top). */
static void exercise(gk_win_t *win)
{
    int n = gk_n_pes();
    uint64_t one = 1, old = 0, seen = 0, zero = 0;
    if (gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0) != GK_OK ||
        gk_win_fetch_and_op(win, 0, 0, &one, &old, GK_DTYPE_UINT64, GK_OP_SUM) != GK_OK ||
        gk_win_unlock(win, 0) != GK_OK || gk_barrier() != GK_OK ||
        gk_win_lock(win, 0, GK_LOCK_SHARED, 0) != GK_OK ||
        gk_win_fetch_and_op(win, 0, 0, &zero, &seen, GK_DTYPE_UINT64, GK_OP_NO_OP) != GK_OK ||
        gk_win_unlock(win, 0) != GK_OK)
        gk_abort(1, "footprint: a window lock call failed");
    if (seen != (uint64_t)n)
        gk_abort(1, "footprint: the word the window lock guards is wrong");
    uint64_t me = (uint64_t)gk_my_pe(), sum = 0;
    if (gk_allreduce(&sum, &me, 1, GK_DTYPE_UINT64, GK_OP_SUM) != GK_OK ||
        sum != (uint64_t)n * (uint64_t)(n - 1) / 2)
        gk_abort(1, "footprint: the all-reduce's sum is wrong");
}

int main(void)
{
    if (gk_init() != GK_OK)
        return 1;
    if (gk_barrier() != GK_OK)
        gk_abort(1, "footprint: barrier");
    double started = now_s();
    int me = gk_my_pe();

    uint64_t private_kib, segments_kib; /* after start-up: private_kib is reported */
    smaps_kib(&private_kib, &segments_kib);
    int exact;
    uint64_t segment_kib = own_segment_kib(me, &exact) - gk_heap_size() / 1024;
    if (!exact && me == 0)
        fprintf(stderr, "footprint: /proc/self/map_files needs root: segment_kib is the "
                        "area's size, not what /dev/shm holds of it\n");

    void *base = NULL;
    gk_win_t *win = NULL;
    uint64_t window_kib = UINT64_MAX;
    if (gk_win_allocate(8, 0, &base, &win) == GK_OK) {
        window_kib = kib_added(private_kib, segments_kib);
        *(uint64_t *)base = 0; /* exercise()'s word, before its barrier */
    }

    enum { SEMS = 64 };
    gk_sem_t sems[SEMS];
    uint64_t private_before, segments_before;
    smaps_kib(&private_before, &segments_before);
    for (int i = 0; i < SEMS; i++)
        if (gk_sem_alloc(0, &sems[i]) != GK_OK)
            gk_abort(1, "footprint: gk_sem_alloc");
    uint64_t semaphore_kib = kib_added(private_before, segments_before);

    uint64_t remote = 0;
    uint64_t *probe = gk_calloc(1, sizeof(uint64_t));
    for (int pe = 0; probe != NULL && pe < gk_n_pes(); pe++)
        remote += pe != me && gk_ptr(probe, pe) == NULL;
    gk_free(probe);

    const char *t0 = getenv("GK_FOOTPRINT_T0");
    double startup = t0 != NULL ? started - (double)strtoull(t0, NULL, 10) * 1e-9 : -1.0;
    uint64_t startup_us = startup >= 0 ? (uint64_t)(startup * 1e6) : 0;

    uint64_t values[] = {max_over_pes(startup_us), max_over_pes(private_kib),
                         max_over_pes(segment_kib), max_over_pes(window_kib),
                         max_over_pes(semaphore_kib), max_over_pes(remote)};
    if (me == 0) {
        printf("pes %d\n", gk_n_pes());
        printf("startup_s %.3f\n", t0 != NULL ? (double)values[0] * 1e-6 : -1.0);
        printf("private_kib %llu\n", (unsigned long long)values[1]);
        printf("segment_kib %llu\n", (unsigned long long)values[2]);
        if (values[3] == UINT64_MAX)
            printf("window_kib none\n");
        else
            printf("window_kib %llu\n", (unsigned long long)values[3]);
        printf("semaphore_kib %llu\n", (unsigned long long)values[4]);
        printf("remote_peers %llu\n", (unsigned long long)values[5]);
    }
    if (win != NULL) {
        exercise(win);
        if (me == 0)
            printf("exercised 1\n");
    }
    for (int i = 0; i < SEMS; i++)
        gk_sem_free(sems[i]);
    if (win != NULL)
        gk_win_free(win);
    return gk_finalize() == GK_OK ? 0 : 1;
}

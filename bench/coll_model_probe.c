/*
 * gk-coll-model-probe: the measurements behind the cost model of the team
 * collectives (bench/coll_model.py, docs/COLLECTIVES-MODEL.md).
 *
 *   gasket-run -n 2 [--hosts 2] gk-coll-model-probe pingpong [ITERS [ROUNDS]]
 *   gasket-run -n N [--hosts K] gk-coll-model-probe coll OP BYTES [ITERS [ROUNDS]]
 *   gk-coll-model-probe gamma
 *
 * pingpong: one agreement message's one-way time between PE 0 and PE 1,
 * the way the engine sends it (src/team/engine.c): a put of the payload, a
 * put of the 120 bytes of header behind the stamp, gk_fence, the stamp by
 * gk_put_u64; the receiver waits on the stamp and copies the payload out of
 * its box. Payloads 0 B to 64 KiB; ROUNDS (100) rounds of ITERS (500)
 * round trips per size (above 1 KiB, ITERS x 1 KiB / size, at least 20),
 * the sizes interleaved. One line per size, the
 * fastest round's and the median round's one-way time:
 * "pingpong BYTES MIN_US MEDIAN_US".
 *
 * coll: OP (barrier, allreduce, broadcast, fcollect, alltoall, scan) of
 * BYTES per PE on GK_TEAM_WORLD (doubles, sum, for the reductions; root 0):
 * two warm-up calls, then ROUNDS (5) rounds, each a barrier and ITERS (100)
 * calls back to back; a round's time per call is the slowest PE's. The
 * fastest and the median round: "coll OP NPES BYTES MIN_US MEDIAN_US".
 *
 * PE 0 first prints "job KEY", the job's key (GK_JOB_KEY), which names its
 * shared-memory segments.
 *
 * gamma: seconds per byte of combining doubles (sum), in cache, one
 * process: "gamma NS_PER_KIB".
 */
#include <gasket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HDR_REST 120 /* a header's bytes behind its stamp word */
#define PP_MAX ((size_t)65536)

static void check(int status, const char *what)
{
    if (status != GK_OK) {
        char why[256];
        snprintf(why, sizeof(why), "gk-coll-model-probe: %s failed: %s", what,
                 gk_strerror(status));
        fprintf(stderr, "%s\n", why);
        gk_abort(1, why);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int pingpong(long iters, int rounds)
{
    int me = gk_my_pe();
    if (gk_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "gk-coll-model-probe: pingpong needs 2 PEs\n");
        return 2;
    }
    static const size_t sizes[] = {0, 8, 64, 512, 2048, 8192, 16384, 65536};
    enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
    /* The box: payload, header, and the stamp on a line of its own. */
    unsigned char *box = gk_malloc(PP_MAX + 256);
    unsigned char *src = malloc(PP_MAX + HDR_REST), *out = malloc(PP_MAX);
    double *us = malloc(sizeof(double) * NS * (size_t)rounds);
    if (box == NULL || src == NULL || out == NULL || us == NULL)
        check(GK_ERR_NOMEM, "allocating the box");
    memset(src, 1, PP_MAX + HDR_REST);
    uint64_t *stamp = (uint64_t *)(void *)(box + PP_MAX + 128);
    *stamp = 0;
    check(gk_barrier(), "gk_barrier");
    uint64_t seq = 0;
    int peer = 1 - me;
    /* Rounds outside, sizes inside: every size sees the same spread of
     * the machine's other load; the minimum over rounds is the quiet
     * figure. */
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < NS; k++) {
            size_t s = sizes[k];
            /* Fewer round trips for larger payloads: every round about as
             * long, so that as many are hit by the other load. */
            long it = s > 1024 ? iters * 1024 / (long)s : iters;
            if (it < 20)
                it = 20;
            double t0 = 0;
            for (long i = -it / 10 - 1; i < it; i++) {
                if (i == 0)
                    t0 = gk_wtime();
                for (int turn = 0; turn < 2; turn++) {
                    seq++;
                    if ((turn == 0) == (me == 0)) {
                        if (s > 0)
                            check(gk_put(peer, box, src, s), "gk_put");
                        check(gk_put(peer, box + PP_MAX, src + PP_MAX, HDR_REST), "gk_put");
                        check(gk_fence(), "gk_fence");
                        check(gk_put_u64(peer, stamp, seq), "gk_put_u64");
                    } else {
                        check(gk_wait_until_u64(stamp, GK_CMP_GE, seq), "gk_wait_until_u64");
                        memcpy(out, box, s);
                    }
                }
            }
            us[k * rounds + r] = (gk_wtime() - t0) * 1e6 / (double)it / 2.0;
        }
    }
    if (me == 0)
        for (int k = 0; k < NS; k++) {
            double *v = &us[k * rounds];
            qsort(v, (size_t)rounds, sizeof(double), cmp_double);
            printf("pingpong %zu %.3f %.3f\n", sizes[k], v[0], v[rounds / 2]);
        }
    fflush(stdout);
    check(gk_barrier(), "gk_barrier");
    gk_free(box);
    free(src);
    free(out);
    free(us);
    return 0;
}

static int one_call(const char *op, unsigned char *dst, const unsigned char *src, size_t bytes)
{
    size_t count = bytes / sizeof(double);
    if (strcmp(op, "barrier") == 0)
        return gk_team_barrier(GK_TEAM_WORLD);
    if (strcmp(op, "allreduce") == 0)
        return gk_team_allreduce(GK_TEAM_WORLD, dst, src, count, GK_DTYPE_DOUBLE, GK_OP_SUM);
    if (strcmp(op, "broadcast") == 0)
        return gk_team_broadcast(GK_TEAM_WORLD, dst, src, bytes, 0);
    if (strcmp(op, "fcollect") == 0)
        return gk_team_fcollect(GK_TEAM_WORLD, dst, src, bytes);
    if (strcmp(op, "alltoall") == 0)
        return gk_team_alltoall(GK_TEAM_WORLD, dst, src, bytes);
    if (strcmp(op, "scan") == 0)
        return gk_team_scan(GK_TEAM_WORLD, dst, src, count, GK_DTYPE_DOUBLE, GK_OP_SUM);
    return GK_ERR_INVALID_ARG;
}

static int coll(const char *op, size_t bytes, long iters, int rounds)
{
    int n = gk_n_pes();
    size_t room = bytes * (size_t)n + 64;
    unsigned char *dst = malloc(room), *src = malloc(room);
    double *us = malloc(sizeof(double) * (size_t)rounds);
    if (dst == NULL || src == NULL || us == NULL)
        check(GK_ERR_NOMEM, "allocating the buffers");
    memset(src, 0, room);
    for (int i = 0; i < 2; i++)
        check(one_call(op, dst, src, bytes), op);
    for (int r = 0; r < rounds; r++) {
        check(gk_team_barrier(GK_TEAM_WORLD), "gk_team_barrier");
        double t0 = gk_wtime();
        for (long i = 0; i < iters; i++)
            check(one_call(op, dst, src, bytes), op);
        double mine = (gk_wtime() - t0) * 1e6 / (double)iters;
        check(gk_team_allreduce(GK_TEAM_WORLD, &us[r], &mine, 1, GK_DTYPE_DOUBLE, GK_OP_MAX),
              "gk_team_allreduce");
    }
    qsort(us, (size_t)rounds, sizeof(double), cmp_double);
    if (gk_my_pe() == 0)
        printf("coll %s %d %zu %.3f %.3f\n", op, n, bytes, us[0], us[rounds / 2]);
    free(dst);
    free(src);
    free(us);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int gamma_probe(void)
{
    enum { N = 8192 }; /* 64 KiB of doubles, twice */
    static double a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = b[i] = i;
    long reps = 20000;
    double t0 = now_s();
    for (long r = 0; r < reps; r++) {
        for (int i = 0; i < N; i++)
            a[i] += b[i];
        __asm__ volatile("" : : "r"(a) : "memory");
    }
    double s = now_s() - t0;
    printf("gamma %.3f\n", s * 1e9 / ((double)reps * N * sizeof(double) / 1024.0));
    return a[1] > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *usage = "usage: gk-coll-model-probe pingpong [ITERS [ROUNDS]] | coll OP BYTES [ITERS [ROUNDS]] | gamma\n";
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    if (strcmp(argv[1], "gamma") == 0)
        return gamma_probe();
    int status = 2;
    check(gk_init(), "gk_init");
    /* The job's key names its segments (/dev/shm/gk-KEY-PE): the caller
     * checks that none is left. */
    const char *key = getenv("GK_JOB_KEY");
    if (gk_my_pe() == 0 && key != NULL)
        printf("job %s\n", key);
    if (strcmp(argv[1], "pingpong") == 0) {
        status = pingpong(argc > 2 ? atol(argv[2]) : 500, argc > 3 ? atoi(argv[3]) : 100);
    } else if (strcmp(argv[1], "coll") == 0 && argc >= 4) {
        status = coll(argv[2], (size_t)atoll(argv[3]), argc > 4 ? atol(argv[4]) : 100,
                      argc > 5 ? atoi(argv[5]) : 5);
    } else if (gk_my_pe() == 0) {
        fputs(usage, stderr);
    }
    check(gk_finalize(), "gk_finalize");
    return status;
}

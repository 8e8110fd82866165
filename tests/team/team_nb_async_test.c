/*
 * team_nb_async_test: with GK_PROGRESS_THREAD=1, non-blocking team
 * collectives complete while every PE stays out of gasket. Each PE starts
 * the call, then watches its destination with plain loads (no gasket call,
 * so nothing but the progress thread can move the call) until the whole
 * result is there, or fails after DEADLINE_S; only then does it wait for
 * the handle.
 *
 *   allreduce   8 bytes on the world (in the agreement rounds);
 *   alltoall    ALLTOALL_BLOCK bytes a pair on the world: many chunks a
 *               stream, every step waiting for acks as well as data;
 *   halves      an all-reduce on the even PEs' team, while the odd PEs
 *               watch one on theirs.
 */
#include <sched.h>
#include <stdatomic.h>

#include "team_common.h"

#define DEADLINE_S 30.0
#define ALLTOALL_BLOCK ((size_t)64 * 1024)

static int me, npes;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits, outside gasket, until `have` holds `want` (nbytes). */
static void watch_outside(const char *what, const unsigned char *have, const unsigned char *want,
                          size_t nbytes)
{
    double deadline = now_s() + DEADLINE_S;
    for (;;) {
        atomic_thread_fence(memory_order_acquire);
        if (memcmp(have, want, nbytes) == 0)
            return;
        if (now_s() > deadline)
            PE_FAIL("%s: not complete after %.0f s with no gasket call on this PE: the "
                    "progress thread did not move it",
                    what, DEADLINE_S);
        sched_yield();
    }
}

/* The handle of a call whose result is in place (the last steps may still
 * be acknowledging chunks): its wait returns, and nulls it. */
static void check_done(const char *what, gk_handle_t *h)
{
    (void)what;
    CHECK_OK(gk_handle_wait(h));
    CHECK_EQ_U64(h->opaque, GK_HANDLE_NULL.opaque);
}

static void allreduce_world(void)
{
    _Alignas(8) int64_t mine = me + 1, sum = -1;
    int64_t want = (int64_t)npes * (npes + 1) / 2;
    gk_handle_t h;
    CHECK_OK(gk_team_allreduce_nb(GK_TEAM_WORLD, &sum, &mine, 1, GK_DTYPE_INT64, GK_OP_SUM, &h));
    watch_outside("allreduce", (const unsigned char *)&sum, (const unsigned char *)&want,
                  sizeof(want));
    check_done("allreduce", &h);
}

static void alltoall_world(void)
{
    size_t total = ALLTOALL_BLOCK * (size_t)npes;
    unsigned char *src = malloc(total), *dst = malloc(total), *want = malloc(total);
    CHECK_NOT_NULL(src);
    CHECK_NOT_NULL(dst);
    CHECK_NOT_NULL(want);
    for (int pe = 0; pe < npes; pe++) {
        /* Block pe of my source goes to pe; block pe of dst came from pe. */
        memset(src + (size_t)pe * ALLTOALL_BLOCK, (me * 16 + pe) & 0xff, ALLTOALL_BLOCK);
        memset(want + (size_t)pe * ALLTOALL_BLOCK, (pe * 16 + me) & 0xff, ALLTOALL_BLOCK);
    }
    memset(dst, 0xee, total);
    gk_handle_t h;
    CHECK_OK(gk_team_alltoall_nb(GK_TEAM_WORLD, dst, src, ALLTOALL_BLOCK, &h));
    watch_outside("alltoall", dst, want, total);
    check_done("alltoall", &h);
    free(src);
    free(dst);
    free(want);
}

/* Even PEs and odd PEs each on a team of their own, at the same time. */
static void allreduce_halves(void)
{
    int parity = me % 2;
    gk_team_t half;
    CHECK_OK(gk_team_split(GK_TEAM_WORLD, parity, me, &half));
    int64_t mine = me, sum = -1, want = 0;
    for (int pe = parity; pe < npes; pe += 2)
        want += pe;
    gk_handle_t h;
    CHECK_OK(gk_team_allreduce_nb(half, &sum, &mine, 1, GK_DTYPE_INT64, GK_OP_SUM, &h));
    watch_outside("allreduce on half the PEs", (const unsigned char *)&sum,
                  (const unsigned char *)&want, sizeof(want));
    check_done("allreduce on half the PEs", &h);
    CHECK_OK(gk_team_destroy(&half));
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const char *thread = getenv("GK_PROGRESS_THREAD");
    if (thread == NULL || strcmp(thread, "1") != 0) {
        fprintf(stderr, "team_nb_async_test: run with GK_PROGRESS_THREAD=1\n");
        return 1;
    }
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    for (int round = 0; round < 3; round++) {
        allreduce_world();
        alltoall_world();
    }
    if (npes >= 2) {
        allreduce_halves();
        CHECK_OK(gk_barrier());
    }
    CHECK_OK(gk_finalize());
    return 0;
}

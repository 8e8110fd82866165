/*
 * hybrid_am_deadlock: the pattern that deadlocks runtimes without shared
 * progress. In each pair of world ranks (2k, 2k+1), the even rank blocks in
 * MPI_Recv from the odd one, while the odd one first needs an active
 * message answered by the even rank (gk_am_request_short, a reply handler,
 * gk_poll until the reply is in) and only then MPI_Sends to it. The even
 * rank sits in MPI and makes no gasket call, so only gasket's progress
 * thread (GK_PROGRESS_THREAD=1) can run its handler.
 *
 *   hybrid_am_deadlock progress     GK_PROGRESS_THREAD=1; MPI initialized at
 *                                   MPI_THREAD_FUNNELED (only the main
 *                                   thread calls MPI). Checks the handler
 *                                   ran on a thread other than main's.
 *   hybrid_am_deadlock handler-mpi  GK_PROGRESS_THREAD=1 and MPI at
 *                                   MPI_THREAD_MULTIPLE: the handler also
 *                                   MPI_Sends to the requester, from the
 *                                   progress thread, while the main thread
 *                                   sits in MPI_Recv. Prints "skipped" when
 *                                   MPI does not provide MULTIPLE.
 *   hybrid_am_deadlock stall        the control, without the progress
 *                                   thread: the odd rank polls for half a second
 *                                   and must get no reply (the even rank is
 *                                   in MPI_Recv), then sends anyway; the even
 *                                   rank then polls gasket and the reply
 *                                   arrives. Shows that `progress` passes
 *                                   because of the thread.
 *
 * Prints "hybrid_am_deadlock: <mode> ok" on world rank 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime under -std=c11 */
#endif
#include <gasket_mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me;

#define HYBRID_PROGRAM "hybrid_am_deadlock"
#include "hybrid_check.h"

enum { H_QUESTION = 0, H_ANSWER = 1 };
enum { TAG_AFTER_REPLY = 9, TAG_FROM_HANDLER = 11 };

static int handler_calls_mpi;
static pthread_t main_thread;
static int served;           /* the even rank's handler ran */
static int served_off_main;  /* ... on a thread other than main */
static uint64_t reply_value; /* the odd rank's answer */
static int replied;

static void h_question(gk_am_token_t *token, void *payload, size_t nbytes,
                       const uint64_t *args, int nargs)
{
    (void)payload, (void)nbytes;
    if (nargs != 1)
        FAIL("question with %d arguments", nargs);
    uint64_t answer[1] = {args[0] * 2 + 1};
    if (handler_calls_mpi) {
        /* MPI from the progress thread: needs MPI_THREAD_MULTIPLE. */
        int value = (int)answer[0] + 1000;
        MPI_Send(&value, 1, MPI_INT, gk_am_token_pe(token), TAG_FROM_HANDLER, MPI_COMM_WORLD);
    }
    /* Before the reply: the requester's MPI_Send follows the reply. */
    __atomic_store_n(&served_off_main, !pthread_equal(pthread_self(), main_thread),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&served, 1, __ATOMIC_RELEASE);
    CHECK(gk_am_reply_short(token, H_ANSWER, answer, 1));
}

static void h_answer(gk_am_token_t *token, void *payload, size_t nbytes,
                     const uint64_t *args, int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)nargs;
    reply_value = args[0];
    __atomic_store_n(&replied, 1, __ATOMIC_RELEASE);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "progress";
    int stall = strcmp(mode, "stall") == 0;
    handler_calls_mpi = strcmp(mode, "handler-mpi") == 0;
    if (!stall && !handler_calls_mpi && strcmp(mode, "progress") != 0) {
        fprintf(stderr, "usage: hybrid_am_deadlock [progress|handler-mpi|stall]\n");
        return 2;
    }
    main_thread = pthread_self();
    int required = handler_calls_mpi ? MPI_THREAD_MULTIPLE
                   : stall           ? MPI_THREAD_SINGLE
                                     : MPI_THREAD_FUNNELED;
    int provided = -1, size = 0;
    MPI_Init_thread(&argc, &argv, required, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size % 2 != 0)
        FAIL("needs an even number of ranks, not %d", size);
    if (provided < required) {
        if (me == 0)
            printf("hybrid_am_deadlock: %s skipped: MPI provides thread level %d, not %d\n",
                   mode, provided, required);
        MPI_Finalize();
        return 0;
    }
    const char *thread_env = getenv("GK_PROGRESS_THREAD");
    int threaded = thread_env != NULL && atoi(thread_env) != 0;
    if (threaded == stall)
        FAIL("mode %s needs GK_PROGRESS_THREAD=%d", mode, stall ? 0 : 1);

    CHECK(gk_init_mpi(MPI_COMM_WORLD));
    CHECK(gk_am_register(H_QUESTION, h_question));
    CHECK(gk_am_register(H_ANSWER, h_answer));
    MPI_Barrier(MPI_COMM_WORLD); /* every handler registered */

    int even = me % 2 == 0, peer = even ? me + 1 : me - 1;
    int even_rank = even ? me : peer;
    int rounds = stall ? 3 : 5;
    for (int round = 1; round <= rounds; round++) {
        __atomic_store_n(&served, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&replied, 0, __ATOMIC_RELAXED);
        /* From here to its MPI_Recv the even rank makes no gasket call. */
        MPI_Barrier(MPI_COMM_WORLD);
        uint64_t question[1] = {(uint64_t)(100 * round + even_rank)};
        int answer = (int)(2 * question[0] + 1);
        if (even) {
            int value = 0;
            MPI_Recv(&value, 1, MPI_INT, peer, TAG_AFTER_REPLY, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (value != answer)
                FAIL("round %d: MPI_Recv after the active message gave %d", round, value);
            if (stall) {
                /* Now the even rank runs gasket, and its handler runs. */
                while (!__atomic_load_n(&served, __ATOMIC_ACQUIRE))
                    CHECK(gk_poll());
            } else if (!__atomic_load_n(&served, __ATOMIC_ACQUIRE)) {
                FAIL("round %d: the peer sent before my handler ran", round);
            }
            if (!stall && !__atomic_load_n(&served_off_main, __ATOMIC_RELAXED))
                FAIL("round %d: the handler ran on the main thread", round);
        } else {
            CHECK(gk_am_request_short(peer, H_QUESTION, question, 1));
            double give_up = now() + 0.5;
            while (!__atomic_load_n(&replied, __ATOMIC_ACQUIRE)) {
                CHECK(gk_poll());
                if (stall && now() > give_up)
                    break;
            }
            if (stall && __atomic_load_n(&replied, __ATOMIC_ACQUIRE))
                FAIL("round %d: without a progress thread the reply came while the peer "
                     "sat in MPI_Recv: the control no longer shows the deadlock",
                     round);
            int value = answer;
            if (!stall && reply_value != (uint64_t)value)
                FAIL("round %d: reply %llu, expected %d", round,
                     (unsigned long long)reply_value, value);
            MPI_Send(&value, 1, MPI_INT, peer, TAG_AFTER_REPLY, MPI_COMM_WORLD);
            if (stall) {
                while (!__atomic_load_n(&replied, __ATOMIC_ACQUIRE))
                    CHECK(gk_poll());
                if (reply_value != (uint64_t)value)
                    FAIL("round %d: late reply %llu", round, (unsigned long long)reply_value);
            }
            if (handler_calls_mpi) {
                int from_handler = 0;
                MPI_Recv(&from_handler, 1, MPI_INT, peer, TAG_FROM_HANDLER, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                if (from_handler != value + 1000)
                    FAIL("round %d: the handler's MPI_Send gave %d", round, from_handler);
            }
        }
        CHECK(gk_barrier());
    }
    CHECK(gk_finalize());
    MPI_Finalize();
    if (me == 0)
        printf("hybrid_am_deadlock: %s ok: %d ranks, MPI thread level %d\n", mode, size,
               provided);
    return 0;
}

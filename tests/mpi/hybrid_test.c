/*
 * hybrid_test: a program that is half MPI and half gasket, started by
 * mpirun and gk_init_mpi(). Rounds of MPI collectives alternate with
 * gasket puts, atomics and barriers, with no barrier between the models,
 * and the results of both are checked. Then the pattern that deadlocks
 * runtimes without shared progress: rank 0 blocks in MPI_Recv from rank 1,
 * while rank 1 first needs an active message answered by rank 0 and only
 * then sends. It finishes because gasket's progress thread
 * (GK_PROGRESS_THREAD=1, set by the test) serves the message while rank 0
 * sits in MPI.
 */
#include <gasket_mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "hybrid_test: rank %d: ", me);                        \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        MPI_Abort(MPI_COMM_WORLD, 1);                                          \
    } while (0)
#define CHECK(call)                                                            \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != 0)                                                          \
            FAIL("%s returned %d", #call, rc_);                                \
    } while (0)

static int me;
static volatile uint64_t reply_value;
static volatile int replied;

static void h_question(gk_am_token_t *token, void *payload, size_t nbytes,
                       const uint64_t *args, int nargs)
{
    (void)payload, (void)nbytes, (void)nargs;
    uint64_t answer[1] = {args[0] * 2 + 1};
    CHECK(gk_am_reply_short(token, 1, answer, 1));
}

static void h_answer(gk_am_token_t *token, void *payload, size_t nbytes,
                     const uint64_t *args, int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)nargs;
    reply_value = args[0];
    __atomic_store_n(&replied, 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(gk_init_mpi(MPI_COMM_WORLD));
    if (gk_my_pe() != me || gk_n_pes() != size)
        FAIL("PE %d of %d, rank %d of %d", gk_my_pe(), gk_n_pes(), me, size);
    CHECK(gk_am_register(0, h_question));
    CHECK(gk_am_register(1, h_answer));

    uint64_t *inbox = gk_calloc(1, sizeof(uint64_t));
    uint64_t *counter = gk_calloc(1, sizeof(uint64_t));
    if (inbox == NULL || counter == NULL)
        FAIL("gk_calloc failed");
    int right = (me + 1) % size, left = (me + size - 1) % size;
    for (int round = 1; round <= 50; round++) {
        /* MPI, then gasket, then MPI: no separating barrier anywhere. */
        int sum = 0, mine = me + round;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size * (size - 1) / 2 + size * round)
            FAIL("round %d: MPI_Allreduce gave %d", round, sum);
        uint64_t v = (uint64_t)round * 1000 + (uint64_t)me;
        CHECK(gk_put(right, inbox, &v, sizeof(v)));
        CHECK(gk_atomic_add_u64(0, counter, 1));
        CHECK(gk_barrier());
        if (*inbox != (uint64_t)round * 1000 + (uint64_t)left)
            FAIL("round %d: gasket put gave %llu", round, (unsigned long long)*inbox);
        int token = me == 0 ? round : -1;
        MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (token != round)
            FAIL("round %d: MPI_Bcast gave %d", round, token);
        int out = me, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, right, 7, &in, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (in != left)
            FAIL("round %d: MPI_Sendrecv gave %d", round, in);
        CHECK(gk_barrier());
    }
    if (me == 0 && *counter != 50ULL * (uint64_t)size)
        FAIL("the gasket counter is %llu", (unsigned long long)*counter);

    /* Shared progress: rank 0 waits in MPI while rank 1 needs its handler. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (size >= 2 && me == 0) {
        int value = 0;
        MPI_Recv(&value, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (value != 43)
            FAIL("MPI_Recv after the active message gave %d", value);
    } else if (size >= 2 && me == 1) {
        uint64_t question[1] = {21};
        CHECK(gk_am_request_short(0, 0, question, 1));
        while (!__atomic_load_n(&replied, __ATOMIC_ACQUIRE))
            CHECK(gk_poll());
        int value = (int)reply_value + 0;
        MPI_Send(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }
    CHECK(gk_barrier());
    gk_free(counter);
    gk_free(inbox);
    CHECK(gk_finalize());
    MPI_Finalize();
    if (me == 0)
        printf("hybrid_test: %d ranks, MPI and gasket interleaved, shared progress ok\n", size);
    return 0;
}

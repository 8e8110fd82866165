/*
 * hybrid_rma: a program that is half MPI and half gasket, started by mpirun
 * and gk_init_mpi(). Rounds of MPI calls (MPI_Allreduce, MPI_Bcast,
 * MPI_Sendrecv) alternate with gasket one-sided calls (gk_put, gk_get,
 * atomics, gk_barrier) on the same ranks, and the results of both are
 * checked. Some rounds use MPI to synchronize gasket data: a put completed
 * by gk_quiet() and announced by an MPI message, read by the receiver after
 * its MPI_Recv with no gasket call between.
 *
 *   hybrid_rma            gasket over MPI_COMM_WORLD (PE n = rank n)
 *   hybrid_rma --reverse  gasket over a communicator of the same ranks in
 *                         reverse order (PE n = world rank size-1-n)
 *   hybrid_rma --abort    PE 1 calls gk_abort(7, ...) while the others wait
 *                         in gk_barrier: mpirun must end the job with 7
 *
 * Prints "hybrid_rma: ok" on world rank 0 when every check passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fileno (gk_capture.h) under -std=c11 */
#endif
#include <gasket_mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me; /* world rank */

#define HYBRID_PROGRAM "hybrid_rma"
#include "../lib/gk_capture.h"
#include "hybrid_check.h"

#define ROUNDS 40
#define BIG (1u << 20) /* bytes of the large put and get */

static uint8_t pattern(int pe, int round, size_t i)
{
    return (uint8_t)(pe * 31 + round * 7 + (int)(i % 251));
}

int main(int argc, char **argv)
{
    int reverse = argc > 1 && strcmp(argv[1], "--reverse") == 0;
    int abort_test = argc > 1 && strcmp(argv[1], "--abort") == 0;
    /* FUNNELED: the runs with GK_PROGRESS_THREAD=1 have a second thread
     * (which makes no MPI call). */
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm comm = MPI_COMM_WORLD;
    if (reverse)
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - me, &comm);
    CHECK(gk_init_mpi(comm));
    int pe = gk_my_pe(), npes = gk_n_pes();
    int want = reverse ? size - 1 - me : me;
    if (pe != want || npes != size)
        FAIL("PE %d of %d, expected PE %d of %d", pe, npes, want, size);
    if (abort_test) {
        if (pe == 1)
            gk_abort(7, "hybrid_rma --abort: PE 1 ends the job");
        gk_barrier(); /* never completes: PE 1 does not come */
        FAIL("gk_barrier returned without PE 1");
    }
    /* Twice is refused, with a message, and the refusal leaves the runtime
     * running. */
    gk_capture_begin();
    int again = gk_init_mpi(comm);
    const char *said = gk_capture_end();
    if (again != GK_ERR_ALREADY_INIT || strstr(said, "already initialized") == NULL)
        FAIL("a second gk_init_mpi returned %d and said \"%s\"", again, said);

    uint64_t *inbox = gk_calloc(2, sizeof(uint64_t));
    uint64_t *counter = gk_calloc(1, sizeof(uint64_t));
    uint64_t *cas_word = gk_calloc(1, sizeof(uint64_t));
    uint64_t *published = gk_calloc(1, sizeof(uint64_t));
    uint8_t *big = gk_malloc(BIG);
    uint8_t *local = malloc(BIG);
    if (!inbox || !counter || !cas_word || !published || !big || !local)
        FAIL("out of memory");
    /* Neighbors in PE numbering (gasket) and in world ranks (MPI). */
    int right = (pe + 1) % npes, left = (pe + npes - 1) % npes;
    int wright = (me + 1) % size, wleft = (me + size - 1) % size;

    for (int round = 1; round <= ROUNDS; round++) {
        /* MPI collective, then gasket, then MPI: no separating barrier. */
        int sum = 0, mine = me + round;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size * (size - 1) / 2 + size * round)
            FAIL("round %d: MPI_Allreduce gave %d", round, sum);

        uint64_t v = (uint64_t)round * 1000 + (uint64_t)pe;
        CHECK(gk_put(right, &inbox[0], &v, sizeof(v)));
        CHECK(gk_put_u64(right, &inbox[1], v + 1));
        CHECK(gk_atomic_add_u64(0, counter, 1));
        uint64_t old = 0;
        /* Exactly one PE per round wins the swap from round-1 to round. */
        CHECK(gk_atomic_compare_swap_u64(npes - 1, cas_word, (uint64_t)round - 1,
                                         (uint64_t)round, &old));
        if (old != (uint64_t)round - 1 && old != (uint64_t)round)
            FAIL("round %d: compare_swap saw %llu", round, (unsigned long long)old);
        CHECK(gk_barrier());
        uint64_t expect = (uint64_t)round * 1000 + (uint64_t)left;
        if (inbox[0] != expect || inbox[1] != expect + 1)
            FAIL("round %d: gasket puts gave %llu, %llu", round,
                 (unsigned long long)inbox[0], (unsigned long long)inbox[1]);
        uint64_t got = 0;
        CHECK(gk_get(right, &got, &inbox[0], sizeof(got)));
        if (got != (uint64_t)round * 1000 + (uint64_t)pe)
            FAIL("round %d: gk_get of my put gave %llu", round, (unsigned long long)got);
        uint64_t count = 0;
        CHECK(gk_atomic_fetch_u64(0, counter, &count));
        if (count < (uint64_t)round * (uint64_t)npes)
            FAIL("round %d: counter %llu", round, (unsigned long long)count);

        int token = me == 0 ? round : -1;
        MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (token != round)
            FAIL("round %d: MPI_Bcast gave %d", round, token);
        int out = me, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, wright, 7, &in, 1, MPI_INT, wleft, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (in != wleft)
            FAIL("round %d: MPI_Sendrecv gave %d", round, in);

        /* gasket data, MPI notification: put + quiet, then MPI_Send to the
         * target's world rank; the target reads after MPI_Recv. Every few
         * rounds the data is 1 MiB (not the inline path). */
        size_t nbytes = round % 4 == 0 ? BIG : 64;
        for (size_t i = 0; i < nbytes; i++)
            local[i] = pattern(pe, round, i);
        int target_world = reverse ? size - 1 - right : right;
        int source_world = reverse ? size - 1 - left : left;
        CHECK(gk_put(right, big, local, nbytes));
        CHECK(gk_put_u64(right, published, (uint64_t)round));
        CHECK(gk_quiet());
        int note = round;
        MPI_Request sreq;
        MPI_Isend(&note, 1, MPI_INT, target_world, 8, MPI_COMM_WORLD, &sreq);
        int heard = -1;
        MPI_Recv(&heard, 1, MPI_INT, source_world, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        if (heard != round || *(volatile uint64_t *)published != (uint64_t)round)
            FAIL("round %d: MPI note %d, gasket flag %llu", round, heard,
                 (unsigned long long)*published);
        for (size_t i = 0; i < nbytes; i++)
            if (big[i] != pattern(left, round, i))
                FAIL("round %d: byte %zu of %zu put by PE %d is %u", round, i, nbytes, left,
                     big[i]);
        /* And back: get what the right neighbor holds (from me), with MPI as
         * the only synchronization since the last gasket barrier. */
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(gk_get(right, local, big, nbytes));
        for (size_t i = 0; i < nbytes; i++)
            if (local[i] != pattern(pe, round, i))
                FAIL("round %d: gk_get byte %zu is %u", round, i, local[i]);
        MPI_Barrier(MPI_COMM_WORLD); /* before the next round overwrites big */
    }
    CHECK(gk_barrier());
    if (pe == 0 && *counter != (uint64_t)ROUNDS * (uint64_t)npes)
        FAIL("the gasket counter is %llu", (unsigned long long)*counter);
    if (pe == npes - 1 && *cas_word != ROUNDS)
        FAIL("the compare-swap word is %llu", (unsigned long long)*cas_word);

    /* gasket's and MPI's reductions agree. */
    int64_t x = (int64_t)me * 3 - 5, gk_sum = 0, mpi_sum = 0;
    CHECK(gk_allreduce(&gk_sum, &x, 1, GK_DTYPE_INT64, GK_OP_SUM));
    MPI_Allreduce(&x, &mpi_sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (gk_sum != mpi_sum)
        FAIL("gk_allreduce %lld, MPI_Allreduce %lld", (long long)gk_sum, (long long)mpi_sum);

    free(local);
    gk_free(big);
    gk_free(published);
    gk_free(cas_word);
    gk_free(counter);
    gk_free(inbox);
    CHECK(gk_finalize());
    /* MPI still works after gk_finalize, gasket's communicator included
     * (freed by MPI_Finalize). */
    int one = 1, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, comm);
    if (total != size)
        FAIL("MPI_Allreduce after gk_finalize gave %d", total);
    if (reverse)
        MPI_Comm_free(&comm);
    MPI_Finalize();
    if (me == 0)
        printf("hybrid_rma: ok: %d ranks%s, %d rounds of MPI and gasket interleaved\n", size,
               reverse ? " (PEs in reverse rank order)" : "", ROUNDS);
    return 0;
}

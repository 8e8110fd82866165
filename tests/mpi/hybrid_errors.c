/*
 * hybrid_errors: gk_init_mpi() refuses what it cannot start from, each with
 * its status and a message, and a start after those refusals works:
 *   before MPI_Init               GK_ERR_BOOT, "MPI is not initialized"
 *   MPI_COMM_NULL                 GK_ERR_INVALID_ARG, "MPI_COMM_NULL"
 *   an intercommunicator          GK_ERR_INVALID_ARG, "intercommunicator"
 *   MPI_COMM_WORLD                GK_OK; a barrier and an atomic work
 *   after MPI_Finalize            GK_ERR_BOOT, "MPI is finalized"
 * Run with an even number of ranks (2 or more). Rank 0 prints
 * "hybrid_errors: ok"; the test also checks every message was printed.
 */
#include <gasket_mpi.h>

#include <stdio.h>
#include <stdlib.h>

static int me; /* world rank */

#define HYBRID_PROGRAM "hybrid_errors"
#include "hybrid_check.h"

#define EXPECT(call, want)                                                     \
    do {                                                                       \
        int got_ = (call);                                                     \
        if (got_ != (want))                                                    \
            FAIL("%s returned %d, expected %s (%d)", #call, got_, #want, want); \
    } while (0)

int main(int argc, char **argv)
{
    int before = gk_init_mpi(MPI_COMM_WORLD); /* checked once ranks are known */
    MPI_Init(&argc, &argv);
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (before != GK_ERR_BOOT)
        FAIL("gk_init_mpi before MPI_Init returned %d, expected GK_ERR_BOOT", before);
    if (size < 2 || size % 2 != 0)
        FAIL("run with an even number of ranks, not %d", size);

    EXPECT(gk_init_mpi(MPI_COMM_NULL), GK_ERR_INVALID_ARG);

    /* Even and odd ranks, joined by an intercommunicator. */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 == 0 ? 1 : 0, 99, &inter);
    EXPECT(gk_init_mpi(inter), GK_ERR_INVALID_ARG);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    /* The refusals left nothing behind: a real start works. */
    CHECK(gk_init_mpi(MPI_COMM_WORLD));
    if (gk_my_pe() != me || gk_n_pes() != size)
        FAIL("PE %d of %d for world rank %d of %d", gk_my_pe(), gk_n_pes(), me, size);
    uint64_t *counter = gk_calloc(1, sizeof(uint64_t));
    if (counter == NULL)
        FAIL("gk_calloc failed");
    CHECK(gk_atomic_add_u64(0, counter, 1));
    CHECK(gk_barrier());
    if (me == 0 && *counter != (uint64_t)size)
        FAIL("counter %llu, expected %d", (unsigned long long)*counter, size);
    CHECK(gk_barrier());
    gk_free(counter);
    CHECK(gk_finalize());
    MPI_Finalize();

    EXPECT(gk_init_mpi(MPI_COMM_WORLD), GK_ERR_BOOT);
    if (me == 0)
        printf("hybrid_errors: ok\n");
    return 0;
}

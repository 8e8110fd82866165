/*
 * shmem_init_mpi.c: the specification's two MPI interoperability
 * examples, started by Open MPI's mpirun: MPI_Init, then shmem_init.
 * Mapping PEs to ranks with shmem_int_collect of each PE's MPI rank
 * (every rank once; gasket, joining mpirun's job, numbers PE n as rank
 * n), and with an MPI_Comm_split of MPI_COMM_WORLD keyed on the PE
 * number, where each PE's rank is its PE number.
 */
#include <mpi.h>
#include <stdlib.h>

#include "spec_check.h"

int main(int argc, char *argv[])
{
    MPI_Init(&argc, &argv);
    shmem_init();
    int mype = shmem_team_my_pe(SHMEM_TEAM_WORLD);
    int npes = shmem_team_n_pes(SHMEM_TEAM_WORLD);
    int world_size;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    SPEC_CHECK(world_size, npes);

    static int myrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
    int *mpi_ranks = shmem_calloc(npes, sizeof(int));
    SPEC_CHECK(shmem_int_collect(SHMEM_TEAM_WORLD, mpi_ranks, &myrank, 1), 0);
    int *pe_of_rank = malloc(npes * sizeof(int));
    MPI_Allgather(&mype, 1, MPI_INT, pe_of_rank, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < npes; i++) {
        SPEC_CHECK(mpi_ranks[i] >= 0 && mpi_ranks[i] < npes, 1);
        SPEC_CHECK(pe_of_rank[mpi_ranks[i]], i);
        SPEC_CHECK(mpi_ranks[i], i);
    }
    free(pe_of_rank);
    shmem_free(mpi_ranks);

    MPI_Comm shmem_comm;
    MPI_Comm_split(MPI_COMM_WORLD, 0, mype, &shmem_comm);
    int rank_in_split;
    MPI_Comm_rank(shmem_comm, &rank_in_split);
    SPEC_CHECK(rank_in_split, mype);
    MPI_Comm_free(&shmem_comm);

    shmem_finalize();
    MPI_Finalize();
    return 0;
}

/*
 * gasket_mpi.h: starting gasket inside an MPI program (libgasket_mpi).
 *
 *   MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
 *   gk_init_mpi(MPI_COMM_WORLD);     PE numbers = ranks of the communicator
 *   ... MPI and gasket calls, in any order ...
 *   gk_finalize();
 *   MPI_Finalize();
 *
 * Start the program with mpirun (Open MPI or MPICH), not gasket-run. The
 * bootstrap (who is where, the shared-memory job key) goes through a
 * duplicate of `comm`; after gk_init_mpi() returns gasket calls MPI only
 * in gk_abort() (MPI_Abort); the duplicate is freed by the program's
 * MPI_Finalize. The rules for threads and progress are in docs/MPI.md.
 */
#ifndef GASKET_MPI_H
#define GASKET_MPI_H

#include <gasket.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * gk_init() over an MPI communicator: every rank of `comm` calls it
 * (collective); PE n is rank n. MPI must be initialized. Same return codes
 * as gk_init(). Link with -lgasket_mpi -lgasket.
 */
GK_API int gk_init_mpi(MPI_Comm comm);

/**
 * gk_init_thread() over an MPI communicator: as gk_init_mpi(), at gasket
 * thread level `requested` (GK_THREAD_SINGLE .. GK_THREAD_MULTIPLE), the
 * level given in *provided_p. gasket's level is independent of MPI's: it
 * says which threads may call gasket; MPI's says which may call MPI.
 */
GK_API int gk_init_thread_mpi(MPI_Comm comm, gk_thread_level_t requested,
                              gk_thread_level_t *provided_p);

#ifdef __cplusplus
}
#endif

#endif /* GASKET_MPI_H */

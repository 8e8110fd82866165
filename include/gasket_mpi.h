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
 * duplicate of `comm`; after gk_init_mpi() gasket calls MPI only in
 * gk_abort() (MPI_Abort). The rules for threads and progress are in
 * docs/MPI.md.
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

#ifdef __cplusplus
}
#endif

#endif /* GASKET_MPI_H */

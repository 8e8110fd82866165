/*
 * boot_mpi.h: the bootstrap back end over an MPI communicator (boot.h's
 * table), part of libgasket_mpi, not of libgasket. gk_init_mpi() hands
 * gk__boot_mpi_open to gk__boot_use_external() and calls gk_init().
 */
#ifndef GK_MPI_BOOT_MPI_H
#define GK_MPI_BOOT_MPI_H

#include <mpi.h>

#include "boot/boot.h"

/*
 * Opens the back end over a duplicate of *(MPI_Comm *)arg: rank and size
 * are the communicator's, rank 0 draws the job key and broadcasts it.
 * Collective over the communicator. MPI must be initialized.
 */
int gk__boot_mpi_open(struct gk__boot *boot, void *arg);

#endif /* GK_MPI_BOOT_MPI_H */

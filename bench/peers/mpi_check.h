/*
 * mpi_check.h: the MPI peers' error check. They set MPI_ERRORS_RETURN, so
 * a failed call returns here and ends the job with MPI's own text. The
 * program defines PEER_NAME (its name, for the message) before including.
 */
#ifndef GK_BENCH_MPI_CHECK_H
#define GK_BENCH_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        fprintf(stderr, "%s: %s failed: %s\n", PEER_NAME, what, text);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

#endif /* GK_BENCH_MPI_CHECK_H */

/*
 * hybrid_check.h: the checks of the hybrid MPI + gasket test programs. A
 * failure prints "PROGRAM: rank R: what" and ends the job with MPI_Abort
 * (mpirun then stops every rank). Before including this, the program
 * defines HYBRID_PROGRAM (its name) and `static int me`, which it sets to
 * its world rank.
 *
 *   FAIL("format", ...)   fail with a message
 *   CHECK(gk_call(...))   fail unless the call returned 0, with its text
 */
#ifndef GK_TESTS_HYBRID_CHECK_H
#define GK_TESTS_HYBRID_CHECK_H

#include <gasket_mpi.h>
#include <stdio.h>

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "%s: rank %d: ", HYBRID_PROGRAM, me);                  \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        MPI_Abort(MPI_COMM_WORLD, 1);                                          \
    } while (0)
#define CHECK(call)                                                            \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != 0)                                                          \
            FAIL("%s returned %d (%s)", #call, rc_, gk_strerror(rc_));        \
    } while (0)

#endif /* GK_TESTS_HYBRID_CHECK_H */

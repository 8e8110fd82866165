/*
 * shmem_int.h: what the files of the OpenSHMEM layer share: how a routine
 * is defined (once, as pshmem_<name>, with shmem_<name> a weak alias of
 * it), and how an error of a routine without a return code ends the job.
 *
 * The layer calls gasket through the public API (gasket.h); from below it
 * uses only base/ (logging, the size parser) and sync/'s wait on a
 * predicate (.ci/check-layers).
 */
#ifndef GK_SHMEM_INT_H
#define GK_SHMEM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "gasket.h"
#include "pshmem.h"

/*
 * SHMEM_DEFINE(ret, name, params) opens the definition of pshmem_<name>
 * and makes shmem_<name> its weak alias: a program or tool that defines
 * shmem_<name> wins, and may call pshmem_<name>. The library never calls
 * a shmem_ name itself, so interposing one does not change the others.
 */
#define SHMEM_ALIAS(name)                                                      \
    extern __typeof__(pshmem_##name) shmem_##name                              \
        __attribute__((weak, alias("pshmem_" #name)));
#define SHMEM_DEFINE(ret, name, params)                                        \
    SHMEM_ALIAS(name)                                                          \
    ret pshmem_##name params

/*
 * Ends the job for a failed call of a routine that has no return code. The
 * native call has logged what went wrong (PE, address, bounds); this adds
 * which OpenSHMEM routine it was, through gk_abort().
 */
__attribute__((noreturn, cold)) void gk__shmem_fail(const char *routine, int status);

/* Checks a native call's status: nothing to do on the fast path. */
#define SHMEM_CHECK(routine, call)                                             \
    do {                                                                       \
        int shmem_status_ = (call);                                            \
        if (__builtin_expect(shmem_status_ != GK_OK, 0))                       \
            gk__shmem_fail((routine), shmem_status_);                          \
    } while (0)

/* nelems * size in bytes, or the end of the job if it overflows. */
size_t gk__shmem_bytes(const char *routine, size_t nelems, size_t size);

/* The world team is the only one yet: 0, or -1 after a message naming the
 * routine. */
int gk__shmem_team_check(const char *routine, shmem_team_t team);

#endif /* GK_SHMEM_INT_H */

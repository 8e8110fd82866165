/*
 * shmemx.h: gasket's extensions to OpenSHMEM. The native API (gasket.h)
 * is the extension: a program may call gk_* routines beside shmem_* ones,
 * on the same runtime and the same symmetric heap.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "gasket.h"
#include "shmem.h"

/* Wall-clock seconds from a monotonic clock (gk_wtime()). */
#define shmemx_wtime() gk_wtime()

#endif /* SHMEMX_H */

/*
 * memory.c: the symmetric heap (spec "Memory Management Routines") on
 * gk_malloc() and friends, which are collective, agree on their arguments
 * on every PE and end with a barrier, as the specification asks.
 */
#include "shmem/shmem_int.h"

SHMEM_DEFINE(void *, malloc, (size_t size))
{
    return gk_malloc(size);
}

/* gasket's heap is one kind of memory: the hints change nothing. */
SHMEM_DEFINE(void *, malloc_with_hints, (size_t size, long hints))
{
    return gk_malloc(size);
}

SHMEM_DEFINE(void *, calloc, (size_t count, size_t size))
{
    return gk_calloc(count, size);
}

SHMEM_DEFINE(void *, align, (size_t alignment, size_t size))
{
    return gk_align(alignment, size);
}

SHMEM_DEFINE(void *, realloc, (void *ptr, size_t size))
{
    return gk_realloc(ptr, size);
}

SHMEM_DEFINE(void, free, (void *ptr))
{
    gk_free(ptr);
}

void *shmalloc(size_t size)
{
    return gk_malloc(size);
}

void shfree(void *ptr)
{
    gk_free(ptr);
}

void *shmemalign(size_t alignment, size_t size)
{
    return gk_align(alignment, size);
}

void *shrealloc(void *ptr, size_t size)
{
    return gk_realloc(ptr, size);
}

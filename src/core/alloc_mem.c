/*
 * alloc_mem.c: gk_mem_alloc and gk_mem_free (gasket.h), memory allocated
 * by one PE alone with hints about its use, as MPI_Alloc_mem's info keys
 * give them: shared (the local area at the end of the heap's range, which
 * the PEs of this node map and the network has registered: a window over
 * it is accessed directly) or private (malloc: a window over it is
 * emulated), and aligned.
 *
 * The local area has its own allocator, used by this PE only, so it needs
 * no collective call; the symmetric allocator never reaches it. A mutex
 * guards it: allocation is not a fast path.
 */
#include <pthread.h>
#include <stdlib.h>

#include "base/log.h"
#include "core/runtime.h"

static pthread_mutex_t local_lock = PTHREAD_MUTEX_INITIALIZER;

/* The local area's offset of ptr, or 0 with nothing written when ptr
 * does not lie in it. */
static int local_offset(const void *ptr, size_t *offset_p)
{
    size_t sym = gk__rt.heap_span - gk__rt.local_size;
    uintptr_t at = (uintptr_t)ptr, lo = (uintptr_t)gk__rt.heap + sym;
    if (gk__rt.local_size == 0 || at < lo || at - lo >= gk__rt.local_size)
        return 0;
    *offset_p = (size_t)(at - lo);
    return 1;
}

int gk_mem_alloc(size_t size, unsigned hints, size_t alignment, void **ptr_p)
{
    static const char op[] = "gk_mem_alloc";
    if (!gk__rt.initialized)
        return gk__rt_report_pe(op, 0);
    if (ptr_p == NULL) {
        gk__error("%s: ptr_p is NULL", op);
        return GK_ERR_INVALID_ARG;
    }
    unsigned known = GK_MEM_SHARED | GK_MEM_REGISTERED | GK_MEM_PRIVATE;
    if ((hints & ~known) != 0 ||
        ((hints & GK_MEM_PRIVATE) && (hints & (GK_MEM_SHARED | GK_MEM_REGISTERED)))) {
        gk__error("%s: hints 0x%x are not valid (GK_MEM_SHARED, GK_MEM_REGISTERED or "
                  "GK_MEM_PRIVATE; private memory is neither shared nor registered)",
                  op, hints);
        return GK_ERR_INVALID_ARG;
    }
    if (alignment != 0 && ((alignment & (alignment - 1)) != 0 ||
                           alignment > GK__SEG_MAP_ALIGN)) {
        gk__error("%s: alignment %zu is not 0 or a power of two up to %zu", op, alignment,
                  GK__SEG_MAP_ALIGN);
        return GK_ERR_INVALID_ARG;
    }
    if (size == 0) {
        gk__error("%s: size is 0", op);
        return GK_ERR_INVALID_ARG;
    }
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    int status = GK_ERR_NOMEM;
    if (!(hints & GK_MEM_PRIVATE) && gk__rt.local_size > 0) {
        size_t offset = 0;
        pthread_mutex_lock(&local_lock);
        status = gk__heap_alloc_take(&gk__rt.local_alloc, size, alignment, &offset);
        pthread_mutex_unlock(&local_lock);
        char *ptr = gk__rt.heap + (gk__rt.heap_span - gk__rt.local_size) + offset;
        if (status == GK_OK && (uintptr_t)ptr % alignment == 0) {
            *ptr_p = ptr;
            return GK_OK;
        }
        if (status == GK_OK) { /* the area starts on a page: more is luck */
            pthread_mutex_lock(&local_lock);
            gk__heap_alloc_give(&gk__rt.local_alloc, offset);
            pthread_mutex_unlock(&local_lock);
        }
    }
    if (hints & (GK_MEM_SHARED | GK_MEM_REGISTERED)) {
        gk__error("%s: %zu bytes of shared memory are not free: the local area "
                  "(GK_ALLOC_MEM_SIZE, now %zu bytes) has %zu free, in blocks of at most %zu",
                  op, size, gk__rt.local_size,
                  gk__rt.local_size ? gk__heap_alloc_free_bytes(&gk__rt.local_alloc) : 0,
                  gk__rt.local_size ? gk__heap_alloc_largest_free(&gk__rt.local_alloc) : 0);
        return GK_ERR_NOMEM;
    }
    void *ptr = NULL;
    if (posix_memalign(&ptr, alignment, size) != 0) {
        gk__error("%s: out of memory for %zu bytes of private memory", op, size);
        return GK_ERR_NOMEM;
    }
    *ptr_p = ptr;
    return GK_OK;
}

int gk_mem_free(void *ptr)
{
    static const char op[] = "gk_mem_free";
    if (ptr == NULL)
        return GK_OK;
    if (!gk__rt.initialized)
        return gk__rt_report_pe(op, 0);
    size_t offset = 0;
    if (!local_offset(ptr, &offset)) {
        free(ptr);
        return GK_OK;
    }
    pthread_mutex_lock(&local_lock);
    int status = gk__heap_alloc_give(&gk__rt.local_alloc, offset);
    pthread_mutex_unlock(&local_lock);
    if (status != GK_OK)
        gk__error("%s: %p is not a block from gk_mem_alloc", op, ptr);
    return status;
}

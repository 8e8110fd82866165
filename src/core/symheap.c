/*
 * symheap.c: the collective symmetric-heap calls (gk_malloc and friends).
 * Every PE runs the same deterministic allocator (mem/heap_alloc.h) in the
 * same order, so offsets agree without communication; the barrier at the end
 * of each call makes the block usable remotely as soon as the call returns,
 * and the barrier at the start of gk_free keeps a PE from freeing (and later
 * reusing) memory a peer is still writing.
 */
#include <stdint.h>
#include <string.h>

#include "base/log.h"
#include "core/runtime.h"

static void symheap_report_exhausted(const char *op, size_t size)
{
    gk__error("%s: out of symmetric heap: asked for %zu bytes, %zu of %zu bytes "
              "free, largest free block %zu; raise GK_HEAP_SIZE (now %zu)",
              op, size, gk__heap_alloc_free_bytes(&gk__rt.heap_alloc),
              gk__rt.heap_size, gk__heap_alloc_largest_free(&gk__rt.heap_alloc),
              gk__rt.config.heap_size);
}

static void *symheap_take(const char *op, size_t size, size_t alignment)
{
    if (!gk__rt.initialized) {
        gk__rt_report_pe(op, 0);
        return NULL;
    }
    if (size == 0)
        return NULL;
    size_t offset;
    int status = gk__heap_alloc_take(&gk__rt.heap_alloc, size, alignment, &offset);
    if (status == GK_ERR_NOMEM)
        symheap_report_exhausted(op, size);
    else if (status != GK_OK)
        gk__error("%s: cannot allocate %zu bytes aligned to %zu: %s", op, size,
                  alignment, gk_strerror(status));
    /* A failed barrier means the job is ending: report no memory. */
    if (gk_barrier() != GK_OK)
        return NULL;
    return status == GK_OK ? gk__rt.heap + offset : NULL;
}

/* The heap offset of a block pointer, or -1 (logged) when it is not one. */
static int symheap_offset(const char *op, const void *ptr, size_t *offset_p)
{
    size_t offset = (size_t)((uintptr_t)ptr - (uintptr_t)gk__rt.heap);
    size_t size;
    if (offset >= gk__rt.heap_size ||
        gk__heap_alloc_block_size(&gk__rt.heap_alloc, offset, &size) != GK_OK) {
        gk__error("%s: %p is not a block of the symmetric heap", op, ptr);
        return GK_ERR_INVALID_ARG;
    }
    *offset_p = offset;
    return GK_OK;
}

void *gk_malloc(size_t size)
{
    return symheap_take("gk_malloc", size, 0);
}

void *gk_calloc(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        gk__error("gk_calloc: %zu x %zu bytes overflows size_t", count, size);
        return NULL;
    }
    void *ptr = symheap_take("gk_calloc", count * size, 0);
    if (ptr != NULL) {
        memset(ptr, 0, count * size);
        /* Peers may write into the block once we return: zero it first. */
        gk_barrier();
    }
    return ptr;
}

void *gk_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        gk__error("gk_align: alignment %zu is not a power of two", alignment);
        return NULL;
    }
    /* Heaps start on GK__SEG_MAP_ALIGN boundaries, so offsets aligned up to
     * that are addresses aligned on every PE; beyond it they would not be. */
    if (alignment > GK__SEG_MAP_ALIGN) {
        gk__error("gk_align: alignment %zu is above the largest supported, %zu", alignment,
                  GK__SEG_MAP_ALIGN);
        return NULL;
    }
    return symheap_take("gk_align", size, alignment);
}

void gk_free(void *ptr)
{
    if (ptr == NULL || !gk__rt.initialized)
        return;
    size_t offset;
    gk_barrier();
    if (symheap_offset("gk_free", ptr, &offset) == GK_OK)
        gk__heap_alloc_give(&gk__rt.heap_alloc, offset);
}

void *gk_realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return gk_malloc(size);
    if (size == 0) {
        gk_free(ptr);
        return NULL;
    }
    if (!gk__rt.initialized)
        return NULL;
    size_t offset, old_size;
    /* Peers must be done with the old block before it moves or shrinks. */
    gk_barrier();
    if (symheap_offset("gk_realloc", ptr, &offset) != GK_OK) {
        gk_barrier();
        return NULL;
    }
    gk__heap_alloc_block_size(&gk__rt.heap_alloc, offset, &old_size);
    if (gk__heap_alloc_resize(&gk__rt.heap_alloc, offset, size) == GK_OK) {
        gk_barrier();
        return ptr;
    }
    size_t new_offset;
    int status = gk__heap_alloc_take(&gk__rt.heap_alloc, size, 0, &new_offset);
    if (status == GK_OK) {
        memmove(gk__rt.heap + new_offset, gk__rt.heap + offset,
                old_size < size ? old_size : size);
        gk__heap_alloc_give(&gk__rt.heap_alloc, offset);
    } else {
        symheap_report_exhausted("gk_realloc", size);
    }
    gk_barrier();
    return status == GK_OK ? gk__rt.heap + new_offset : NULL;
}

size_t gk_heap_size(void)
{
    return gk__rt.heap_size;
}

size_t gk_heap_free(void)
{
    return gk__rt.initialized ? gk__heap_alloc_free_bytes(&gk__rt.heap_alloc) : 0;
}

void *gk_ptr(const void *addr, int pe)
{
    if (!gk__rt.initialized || (unsigned)pe >= (unsigned)gk__rt.n_pes)
        return NULL;
    size_t offset = (size_t)((uintptr_t)addr - (uintptr_t)gk__rt.heap);
    if (offset >= gk__rt.heap_size || gk__rt.peers[pe].seg_base == NULL)
        return NULL;
    return gk__rt.peers[pe].seg_base + GK__SEG_HEAP_OFFSET + offset;
}

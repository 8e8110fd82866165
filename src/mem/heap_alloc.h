/*
 * heap_alloc.h: the symmetric heap's allocator, as pure bookkeeping over the
 * offsets [0, size): it never touches the heap's memory. Every PE runs the
 * same calls in the same order on its own instance, so every PE gets the same
 * offsets; that is what makes the heap symmetric. Metadata lives in private
 * memory, so a stray remote write into the heap cannot corrupt it.
 *
 * Blocks are first-fit, start on GK__HEAP_ALLOC_GRAIN boundaries (a cache
 * line, so two symmetric objects never share one) and free blocks coalesce.
 *
 * Once teams allocate (gk_team_malloc), the PEs' heaps differ, and a block
 * for several PEs must lie where it is free on each of them: the callers
 * (core/symheap.c) agree on an offset with gk__heap_alloc_fit() (the first
 * fit at or above a candidate) and gk__heap_alloc_take_at() (that offset
 * exactly). Each block carries its owner: 0 for the world's heap calls,
 * a team's number for that team's.
 */
#ifndef GK_MEM_HEAP_ALLOC_H
#define GK_MEM_HEAP_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#define GK__HEAP_ALLOC_GRAIN ((size_t)64)

struct gk__extent {
    size_t offset;
    size_t size;
    uint64_t owner; /* a block's (the free list's extents: 0) */
};

/* A growable array of extents sorted by offset. */
struct gk__extent_list {
    struct gk__extent *items;
    size_t count;
    size_t capacity;
};

struct gk__heap_alloc {
    size_t size;
    size_t free_bytes;
    struct gk__extent_list free_list;  /* free extents, coalesced */
    struct gk__extent_list used_list;  /* allocated blocks */
};

/* An allocator over [0, size); size is rounded down to the grain. */
int gk__heap_alloc_init(struct gk__heap_alloc *heap, size_t size);
void gk__heap_alloc_fini(struct gk__heap_alloc *heap);

/*
 * Allocates `size` bytes (rounded up to the grain; 0 is invalid) at the lowest
 * offset that is a multiple of `alignment` (a power of two; values below the
 * grain mean the grain), for owner 0. GK_ERR_NOMEM when no free extent fits, GK_ERR_INVALID_ARG
 * for a bad size or alignment.
 */
int gk__heap_alloc_take(struct gk__heap_alloc *heap, size_t size,
                        size_t alignment, size_t *offset_p);

/*
 * The lowest offset at or above `from`, a multiple of `alignment`, where
 * `size` bytes (rounded up to the grain) are free; nothing is allocated.
 * GK_ERR_NOMEM when there is none, GK_ERR_INVALID_ARG as for take.
 */
int gk__heap_alloc_fit(const struct gk__heap_alloc *heap, size_t from, size_t size,
                       size_t alignment, size_t *offset_p);

/*
 * Allocates `size` bytes (rounded up to the grain) at `offset` exactly, for
 * `owner`; GK_ERR_NOMEM when that range is not all free, GK_ERR_INVALID_ARG
 * for a size of 0 or an offset off the grain.
 */
int gk__heap_alloc_take_at(struct gk__heap_alloc *heap, size_t offset, size_t size,
                           uint64_t owner);

/* Frees the block at `offset`; GK_ERR_INVALID_ARG if no block starts there. */
int gk__heap_alloc_give(struct gk__heap_alloc *heap, size_t offset);

/* The block at `offset`: its offset, usable size and owner;
 * GK_ERR_INVALID_ARG if none. */
int gk__heap_alloc_block(const struct gk__heap_alloc *heap, size_t offset,
                         struct gk__extent *block_p);

/* The block that holds byte `offset` (anywhere in it); GK_ERR_INVALID_ARG
 * if no allocated block does. */
int gk__heap_alloc_holding(const struct gk__heap_alloc *heap, size_t offset,
                           struct gk__extent *block_p);

/*
 * Grows or shrinks the block at `offset` to `size` without moving it;
 * GK_ERR_NOMEM when the bytes after it are not free.
 */
int gk__heap_alloc_resize(struct gk__heap_alloc *heap, size_t offset,
                          size_t size);

/* Free bytes in total, and the largest single free extent. */
size_t gk__heap_alloc_free_bytes(const struct gk__heap_alloc *heap);
size_t gk__heap_alloc_largest_free(const struct gk__heap_alloc *heap);

#endif /* GK_MEM_HEAP_ALLOC_H */

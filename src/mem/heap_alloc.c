/*
 * heap_alloc.c: first-fit allocation over sorted extent lists. The lists are
 * small (one entry per live block or free hole), so linear scans and
 * memmove-based insertion are simpler than trees and fast enough for an
 * allocator that is only called collectively.
 */
#include "mem/heap_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gasket.h"

static size_t round_up(size_t value, size_t grain)
{
    return (value + grain - 1) & ~(grain - 1);
}

static int extent_list_insert(struct gk__extent_list *list, size_t index,
                              size_t offset, size_t size)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 16;
        struct gk__extent *items = realloc(list->items, capacity * sizeof(*items));
        if (items == NULL)
            return GK_ERR_NOMEM;
        list->items = items;
        list->capacity = capacity;
    }
    memmove(&list->items[index + 1], &list->items[index],
            (list->count - index) * sizeof(list->items[0]));
    list->items[index] = (struct gk__extent){offset, size, 0};
    list->count++;
    return GK_OK;
}

static void extent_list_remove(struct gk__extent_list *list, size_t index)
{
    memmove(&list->items[index], &list->items[index + 1],
            (list->count - index - 1) * sizeof(list->items[0]));
    list->count--;
}

/* The index of the first extent whose offset is >= offset. */
static size_t extent_list_lower_bound(const struct gk__extent_list *list,
                                      size_t offset)
{
    size_t lo = 0, hi = list->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (list->items[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int used_list_find(const struct gk__heap_alloc *heap, size_t offset,
                          size_t *index_p)
{
    size_t index = extent_list_lower_bound(&heap->used_list, offset);
    if (index == heap->used_list.count ||
        heap->used_list.items[index].offset != offset)
        return GK_ERR_INVALID_ARG;
    *index_p = index;
    return GK_OK;
}

int gk__heap_alloc_init(struct gk__heap_alloc *heap, size_t size)
{
    memset(heap, 0, sizeof(*heap));
    heap->size = size & ~(GK__HEAP_ALLOC_GRAIN - 1);
    heap->free_bytes = heap->size;
    if (heap->size == 0)
        return GK_OK;
    return extent_list_insert(&heap->free_list, 0, 0, heap->size);
}

void gk__heap_alloc_fini(struct gk__heap_alloc *heap)
{
    free(heap->free_list.items);
    free(heap->used_list.items);
    memset(heap, 0, sizeof(*heap));
}

/* Returns a free range to the free list, merging with its neighbours. */
static int free_list_add(struct gk__heap_alloc *heap, size_t offset, size_t size)
{
    struct gk__extent_list *list = &heap->free_list;
    size_t index = extent_list_lower_bound(list, offset);
    int merge_prev = index > 0 &&
                     list->items[index - 1].offset + list->items[index - 1].size == offset;
    int merge_next = index < list->count && offset + size == list->items[index].offset;
    if (merge_prev && merge_next) {
        list->items[index - 1].size += size + list->items[index].size;
        extent_list_remove(list, index);
    } else if (merge_prev) {
        list->items[index - 1].size += size;
    } else if (merge_next) {
        list->items[index].offset = offset;
        list->items[index].size += size;
    } else {
        return extent_list_insert(list, index, offset, size);
    }
    return GK_OK;
}

/* A request's size in grains and its alignment (at least the grain), or
 * GK_ERR_INVALID_ARG for a size of 0, one that overflows, or an alignment
 * that is not a power of two. */
static int request_check(size_t *size, size_t *alignment)
{
    if (*size == 0 || *size > SIZE_MAX - GK__HEAP_ALLOC_GRAIN ||
        (*alignment & (*alignment - 1)) != 0)
        return GK_ERR_INVALID_ARG;
    if (*alignment < GK__HEAP_ALLOC_GRAIN)
        *alignment = GK__HEAP_ALLOC_GRAIN;
    *size = round_up(*size, GK__HEAP_ALLOC_GRAIN);
    return GK_OK;
}

int gk__heap_alloc_fit(const struct gk__heap_alloc *heap, size_t from, size_t size,
                       size_t alignment, size_t *offset_p)
{
    int status = request_check(&size, &alignment);
    if (status != GK_OK)
        return status;
    const struct gk__extent_list *list = &heap->free_list;
    /* The hole that holds `from`, if any, is the one before the first hole
     * that starts above it. */
    size_t i = extent_list_lower_bound(list, from);
    if (i > 0 && (i == list->count || list->items[i].offset != from))
        i--;
    for (; i < list->count; i++) {
        struct gk__extent hole = list->items[i];
        size_t lowest = hole.offset > from ? hole.offset : from;
        if (lowest > SIZE_MAX - alignment)
            break;
        size_t start = round_up(lowest, alignment);
        if (start >= hole.offset + hole.size || hole.offset + hole.size - start < size)
            continue;
        *offset_p = start;
        return GK_OK;
    }
    return GK_ERR_NOMEM;
}

int gk__heap_alloc_take_at(struct gk__heap_alloc *heap, size_t offset, size_t size,
                           uint64_t owner)
{
    size_t alignment = 0;
    int status = request_check(&size, &alignment);
    if (status != GK_OK || (offset & (GK__HEAP_ALLOC_GRAIN - 1)) != 0)
        return GK_ERR_INVALID_ARG;
    struct gk__extent_list *list = &heap->free_list;
    size_t i = extent_list_lower_bound(list, offset);
    if (i == list->count || list->items[i].offset != offset) {
        if (i == 0)
            return GK_ERR_NOMEM;
        i--;
    }
    struct gk__extent hole = list->items[i];
    if (offset < hole.offset || offset - hole.offset > hole.size ||
        hole.size - (offset - hole.offset) < size)
        return GK_ERR_NOMEM;
    size_t used_index = extent_list_lower_bound(&heap->used_list, offset);
    status = extent_list_insert(&heap->used_list, used_index, offset, size);
    if (status != GK_OK)
        return status;
    heap->used_list.items[used_index].owner = owner;
    /* Carve [offset, offset+size) out of the hole: keep the lead in place,
     * and the tail after it. */
    size_t lead = offset - hole.offset, tail = hole.size - lead - size;
    if (lead == 0 && tail == 0) {
        extent_list_remove(list, i);
    } else if (lead == 0) {
        list->items[i] = (struct gk__extent){offset + size, tail, 0};
    } else {
        list->items[i].size = lead;
        if (tail != 0) {
            status = extent_list_insert(list, i + 1, offset + size, tail);
            if (status != GK_OK) {
                list->items[i].size = hole.size;
                extent_list_remove(&heap->used_list, used_index);
                return status;
            }
        }
    }
    heap->free_bytes -= size;
    return GK_OK;
}

int gk__heap_alloc_take(struct gk__heap_alloc *heap, size_t size, size_t alignment,
                        size_t *offset_p)
{
    size_t offset;
    int status = gk__heap_alloc_fit(heap, 0, size, alignment, &offset);
    if (status == GK_OK)
        status = gk__heap_alloc_take_at(heap, offset, size, 0);
    if (status == GK_OK)
        *offset_p = offset;
    return status;
}

int gk__heap_alloc_give(struct gk__heap_alloc *heap, size_t offset)
{
    size_t index;
    int status = used_list_find(heap, offset, &index);
    if (status != GK_OK)
        return status;
    struct gk__extent block = heap->used_list.items[index];
    status = free_list_add(heap, block.offset, block.size);
    if (status != GK_OK)
        return status;
    extent_list_remove(&heap->used_list, index);
    heap->free_bytes += block.size;
    return GK_OK;
}

int gk__heap_alloc_block(const struct gk__heap_alloc *heap, size_t offset,
                         struct gk__extent *block_p)
{
    size_t index;
    int status = used_list_find(heap, offset, &index);
    if (status == GK_OK)
        *block_p = heap->used_list.items[index];
    return status;
}

int gk__heap_alloc_holding(const struct gk__heap_alloc *heap, size_t offset,
                           struct gk__extent *block_p)
{
    /* The last block that starts at or below offset: the first one that
     * starts above it, less one. */
    size_t index = extent_list_lower_bound(&heap->used_list, offset + 1);
    if (index == 0)
        return GK_ERR_INVALID_ARG;
    const struct gk__extent *block = &heap->used_list.items[index - 1];
    if (offset - block->offset >= block->size)
        return GK_ERR_INVALID_ARG;
    *block_p = *block;
    return GK_OK;
}

int gk__heap_alloc_resize(struct gk__heap_alloc *heap, size_t offset, size_t size)
{
    size_t index;
    int status = used_list_find(heap, offset, &index);
    if (status != GK_OK)
        return status;
    if (size == 0 || size > SIZE_MAX - GK__HEAP_ALLOC_GRAIN)
        return GK_ERR_INVALID_ARG;
    size = round_up(size, GK__HEAP_ALLOC_GRAIN);
    struct gk__extent *block = &heap->used_list.items[index];
    size_t end = block->offset + block->size;
    if (size <= block->size) {
        size_t released = block->size - size;
        if (released != 0) {
            status = free_list_add(heap, block->offset + size, released);
            if (status != GK_OK)
                return status;
            block->size = size;
            heap->free_bytes += released;
        }
        return GK_OK;
    }
    /* Growing: the hole right after the block must hold the extra bytes. */
    size_t extra = size - block->size;
    struct gk__extent_list *list = &heap->free_list;
    size_t hole = extent_list_lower_bound(list, end);
    if (hole == list->count || list->items[hole].offset != end ||
        list->items[hole].size < extra)
        return GK_ERR_NOMEM;
    list->items[hole].offset += extra;
    list->items[hole].size -= extra;
    if (list->items[hole].size == 0)
        extent_list_remove(list, hole);
    block->size = size;
    heap->free_bytes -= extra;
    return GK_OK;
}

size_t gk__heap_alloc_free_bytes(const struct gk__heap_alloc *heap)
{
    return heap->free_bytes;
}

size_t gk__heap_alloc_largest_free(const struct gk__heap_alloc *heap)
{
    size_t largest = 0;
    for (size_t i = 0; i < heap->free_list.count; i++) {
        if (heap->free_list.items[i].size > largest)
            largest = heap->free_list.items[i].size;
    }
    return largest;
}

/*
 * symheap.h: the placement of symmetric blocks (symheap.c), shared by the
 * world's heap calls (gk_malloc and friends) and a team's (gk_team_malloc,
 * team/team_heap.c).
 *
 * A block for several PEs must lie at one offset that is free on each of
 * them. While every PE made the same heap calls their heaps are identical
 * and each PE's own first fit is that offset; once teams allocate, the
 * heaps of members and non-members differ. So every PE proposes its first
 * fit (taking it at once, tentatively), the call's one vote carries the
 * proposals' extremes, and only when they differ do the PEs agree in
 * further rounds ("agreed first fit", gk__symheap_settle()).
 */
#ifndef GK_CORE_SYMHEAP_H
#define GK_CORE_SYMHEAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/coll_check.h"

/* A proposal of a PE with no room for the block. */
#define GK__SYMHEAP_NONE UINT64_MAX

/* The owner of the world's blocks (a team's are its heap_owner). */
#define GK__SYMHEAP_WORLD 0

/*
 * An all-reduce of maxima over the call's PEs (all PEs, or a team's
 * members): dst[i] = the largest src[i], count 64-bit words; GK_OK, or an
 * error, logged, the same on every PE of the call.
 */
typedef int gk__symheap_max_fn(void *arg, uint64_t *dst, const uint64_t *src, size_t count);

/*
 * This PE's proposal for a block of `size` bytes aligned to `alignment`
 * (0: the allocator's own), for `owner`: its first fit, taken, in
 * *proposal_p, or GK__SYMHEAP_NONE when it has no room. GK_OK, or the
 * allocator's error (logged, naming op).
 */
int gk__symheap_propose(const char *op, size_t size, size_t alignment, uint64_t owner,
                        uint64_t *proposal_p);

/*
 * Settles the block once the PEs have voted on their proposals (this PE's
 * `mine`, their extremes lo and hi): the same offset in *offset_p on every
 * PE, taken for owner, or GK_ERR_NOMEM on every PE (logged on each, naming
 * op and size). Equal proposals end it at once; otherwise each PE gives its
 * proposal back, and in rounds of `max` each proposes its first fit at or
 * above the largest proposal of the round before, until all propose the
 * same. An error of `max` ends it with nothing taken.
 */
int gk__symheap_settle(const char *op, size_t size, size_t alignment, uint64_t owner,
                       uint64_t mine, uint64_t lo, uint64_t hi, gk__symheap_max_fn *max,
                       void *arg, size_t *offset_p);

/* Gives back the block at heap offset `offset` (this PE only). */
void gk__symheap_give(size_t offset);

/*
 * The heap offset of ptr, a block of `owner`; GK_ERR_INVALID_ARG (logged,
 * naming op and ptr) when it is no block, or another owner's.
 */
int gk__symheap_block(const char *op, const void *ptr, uint64_t owner, size_t *offset_p);

/* The argument checks of gk_calloc (count * size overflows) and gk_align
 * (a power of two, at most gk__seg_heap_align() of the heap): GK_OK, or
 * GK_ERR_INVALID_ARG logged naming op and the values. */
int gk__symheap_check_calloc(const char *op, size_t count, size_t size);
int gk__symheap_check_align(const char *op, size_t alignment);

/* gk_malloc, gk_calloc and gk_align (kind says which) under the name op,
 * and gk_free with a status: the world team's forms of the team calls. */
void *gk__symheap_take(const char *op, enum gk__coll_kind kind, size_t size, size_t alignment,
                       int arg_status);
int gk__symheap_free(const char *op, void *ptr);

#endif /* GK_CORE_SYMHEAP_H */

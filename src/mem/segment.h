/*
 * segment.h: a PE's shared-memory segment and its layout. Each PE creates one
 * segment: a header (the runtime's own shared words) and then the symmetric
 * heap. Every PE on the node maps every other PE's segment, so a put to a
 * neighbour is a memcpy into its heap.
 *
 * Creation (docs/ARCHITECTURE.md, "Segments"): an unguessable name (the
 * job key), O_CREAT|O_EXCL, mode 0600, an fstat() check that the object is
 * ours and new, and the creator unlinks it as soon as the node's PEs have
 * mapped it.
 * Every page is reserved at creation (posix_fallocate), so a full /dev/shm
 * fails gk_init with a message instead of a PE with SIGBUS later.
 */
#ifndef GK_MEM_SEGMENT_H
#define GK_MEM_SEGMENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wait.h"

#define GK__SEG_MAGIC 0x676b5345474d4e54ULL /* "gkSEGMNT" */
#define GK__SEG_VERSION 2u
#define GK__SEG_BARRIER_ROUNDS 32 /* enough for 2^32 PEs */
/*
 * Segment layout:
 *   [0, 4 KiB)           struct gk__seg_header
 *   [4 KiB, 36 KiB)      the pool: 512 cells of 64 bytes that this PE hands
 *                        out without collective calls (semaphores)
 *   [64 KiB, 1 MiB)      scratch space of the collectives
 *   [1 MiB, 2 MiB)       the active-message inbox (net/shm_ring.h)
 *   [2 MiB, 4 MiB)       the rendezvous pipeline: senders copy large
 *                        two-sided messages in, this PE copies them out
 *                        (msg/rndv_pipe.h)
 *   [4 MiB, ...)         the symmetric heap
 *
 * Every segment is mapped at an address that is a multiple of
 * GK__SEG_MAP_ALIGN, so every PE's heap starts on such a boundary and a
 * heap offset aligned to at most that much gives an aligned address on
 * every PE (gk_align), and transparent huge pages can back the heap.
 */
#define GK__SEG_MAP_ALIGN ((size_t)2 * 1024 * 1024)
#define GK__SEG_POOL_OFFSET ((size_t)4096)
#define GK__SEG_POOL_CELL_SIZE ((size_t)64)
#define GK__SEG_POOL_CELLS 512
#define GK__SEG_COLL_OFFSET ((size_t)65536)
#define GK__SEG_COLL_SIZE ((size_t)(1024 * 1024 - 65536))
#define GK__SEG_INBOX_OFFSET ((size_t)1024 * 1024)
#define GK__SEG_INBOX_SIZE ((size_t)1024 * 1024)
#define GK__SEG_PIPE_OFFSET ((size_t)2 * 1024 * 1024)
#define GK__SEG_PIPE_SIZE ((size_t)2 * 1024 * 1024)
#define GK__SEG_HEAP_OFFSET ((size_t)4 * 1024 * 1024)

/* A word on a cache line of its own, written by one remote PE. */
struct gk__seg_flag {
    _Alignas(64) _Atomic uint64_t value;
};

#define GK__SEG_COLL_HISTORY 64

struct gk__seg_header {
    uint64_t magic; /* written last, with release, when the header is ready */
    uint32_t version;
    int32_t pe;
    uint64_t heap_size;
    uint64_t total_size;
    /* Woken by peers after they write into this segment (base/wait.h). */
    _Alignas(64) struct gk__wake wake;
    /* Dissemination barrier: round r's flag is written by PE (me - 2^r). */
    struct gk__seg_flag barrier_flag[GK__SEG_BARRIER_ROUNDS];
    /*
     * The collective call this PE is in or made last, published by it at
     * each entry (core/coll_check.h has the word's layout), and the
     * mismatch it found, if any: the other PE + 1 (0: none, written last,
     * with release) and that PE's call. Written by the owner only; read by
     * peers only on the slow path of a wait.
     */
    _Alignas(64) _Atomic uint64_t coll_now;
    _Atomic uint64_t coll_clash_pe;
    _Atomic uint64_t coll_clash;
    /* The kinds of this PE's last GK__SEG_COLL_HISTORY calls, call s at
     * s % GK__SEG_COLL_HISTORY (written by the owner at each entry, before
     * coll_now): how a PE that lags learns what one far ahead called at
     * its number (a broadcast root runs ahead of its children). */
    _Alignas(64) _Atomic uint8_t coll_kinds[GK__SEG_COLL_HISTORY];
};

_Static_assert(sizeof(struct gk__seg_header) <= GK__SEG_POOL_OFFSET,
               "the segment header must fit before the pool");
_Static_assert(GK__SEG_POOL_OFFSET + GK__SEG_POOL_CELLS * GK__SEG_POOL_CELL_SIZE <=
                   GK__SEG_COLL_OFFSET,
               "the pool must fit before the collectives' scratch");
_Static_assert(GK__SEG_COLL_OFFSET + GK__SEG_COLL_SIZE <= GK__SEG_INBOX_OFFSET,
               "the scratch must fit before the inbox");
_Static_assert(GK__SEG_INBOX_OFFSET + GK__SEG_INBOX_SIZE <= GK__SEG_PIPE_OFFSET,
               "the inbox must fit before the pipeline");
_Static_assert(GK__SEG_PIPE_OFFSET + GK__SEG_PIPE_SIZE <= GK__SEG_HEAP_OFFSET,
               "the pipeline must fit before the heap");
_Static_assert(GK__SEG_HEAP_OFFSET % GK__SEG_MAP_ALIGN == 0,
               "the heap starts on a mapping boundary");
_Static_assert(offsetof(struct gk__seg_header, wake) == 64, "layout");

struct gk__seg {
    char *base; /* the mapping; NULL when not mapped */
    size_t size;
    struct gk__seg_header *header;
    char *heap;
};

/* Whether /dev/shm has room for `n_segments` segments with heaps of
 * `heap_size`; if not, logs both sizes and returns GK_ERR_NOMEM. */
int gk__seg_check_space(size_t heap_size, int n_segments);
/* Creates, sizes and maps PE `pe`'s segment with a heap of `heap_size`, its
 * pages reserved in /dev/shm (GK_ERR_NOMEM, logged, when they do not fit). */
int gk__seg_create(const char *job_key, int pe, size_t heap_size, struct gk__seg *seg);
/* Maps PE `pe`'s segment, checking owner, size and header. */
int gk__seg_attach(const char *job_key, int pe, size_t heap_size, struct gk__seg *seg);
/* Removes the name; the mappings stay. ENOENT is not an error. */
int gk__seg_unlink(const char *job_key, int pe);
void gk__seg_detach(struct gk__seg *seg);

/* The segment size for a heap: header area + heap rounded to pages. */
size_t gk__seg_size_for_heap(size_t heap_size);

#endif /* GK_MEM_SEGMENT_H */

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
 * Every page the runtime can touch is reserved at creation
 * (posix_fallocate), so a full /dev/shm fails gk_init with a message
 * instead of a PE with SIGBUS later. The rest of the runtime's area (below
 * the heap) is holes that nothing ever reads or writes, so they take no
 * memory: which parts a job uses depends on its number of PEs
 * (gk__seg_used_ranges).
 */
#ifndef GK_MEM_SEGMENT_H
#define GK_MEM_SEGMENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wait.h"
#include "mem/seg_region.h"

#define GK__SEG_MAGIC 0x676b5345474d4e54ULL /* "gkSEGMNT" */
#define GK__SEG_VERSION 5u
#define GK__SEG_BARRIER_ROUNDS 32 /* enough for 2^32 PEs */
/*
 * Segment layout (each part's size is what it uses; the gaps between the
 * parts are holes):
 *   [0, 4 KiB)           struct gk__seg_header
 *   [1 MiB, 2 MiB)       the active-message inbox: a fixed part, then one
 *                        bit per PE of the job (net/shm_ring.h)
 *   [64 MiB, ...)        the symmetric heap
 * and in the rest below the heap, the regions features declare
 * (mem/seg_region.h): the semaphore pool (sync/sem.c), the teams' scratch
 * slots (team/engine.h) and host buffers (team/host_buf.c), the runtime's
 * own all-reduce's (core/allreduce.h), the rendezvous pipeline
 * (msg/rndv_pipe.h).
 *
 * Every segment is mapped at an address that is a multiple of
 * GK__SEG_MAP_ALIGN, and so that its heap starts on a multiple of
 * gk__seg_heap_align(): a heap offset aligned to at most that much gives
 * an aligned address on every PE (gk_align), for any alignment the heap
 * can hold, and transparent huge pages can back the heap.
 */
#define GK__SEG_MAP_ALIGN ((size_t)2 * 1024 * 1024)
#define GK__SEG_HEADER_SIZE ((size_t)4096)
#define GK__SEG_INBOX_OFFSET ((size_t)1024 * 1024)
#define GK__SEG_INBOX_SIZE ((size_t)1024 * 1024) /* room, holders' bits included */
#define GK__SEG_INBOX_FIXED ((size_t)280 * 1024) /* before the holders' bits */
#define GK__SEG_HEAP_OFFSET ((size_t)64 * 1024 * 1024)

/* The alignment of every heap's start: the largest power of two that is
 * at most the heap's size, and at least GK__SEG_MAP_ALIGN. */
static inline size_t gk__seg_heap_align(size_t heap_size)
{
    size_t align = GK__SEG_MAP_ALIGN;
    while (align <= heap_size / 2)
        align *= 2;
    return align;
}

/* Bytes of the inbox a job of n_pes PEs uses: its holders' bitmap ends it,
 * in 64-bit words, one bit per PE as far as the room allows. */
static inline size_t gk__seg_inbox_used(int n_pes)
{
    size_t bits = (GK__SEG_INBOX_SIZE - GK__SEG_INBOX_FIXED) * 8;
    if ((size_t)n_pes < bits)
        bits = (size_t)n_pes;
    return GK__SEG_INBOX_FIXED + (bits + 63) / 64 * 8;
}

/* A word on a cache line of its own, written by one remote PE. */
struct gk__seg_flag {
    _Alignas(64) _Atomic uint64_t value;
};

#define GK__SEG_COLL_HISTORY 64
/* The teams' scratch slots (team/team.h: GK__TEAM_SLOTS). */
#define GK__SEG_TEAM_SLOTS (GK_TEAM_MAX + 1)

struct gk__seg_header {
    uint64_t magic; /* written last, with release, when the header is ready */
    uint32_t version;
    int32_t pe;
    uint64_t heap_size;
    uint64_t total_size;
    uint64_t data_size; /* the program's globals at the segment's end (0: none) */
    uint64_t layout;    /* gk__seg_layout_digest(): where the regions are */
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
    /* The collective call a blocking wait of this PE's has waited in for a
     * while (core/coll_deadlock.c): (key + 1) << 56 | its number, with bit
     * 55 set where it is gk_finalize's; 0 when none. And how many calls this PE has started on each team's slot.
     * Written by the owner only; read by peers on the slow path of a wait. */
    _Alignas(64) _Atomic uint64_t coll_blocked;
    /* The PE + 1 this PE found waiting for it in such a deadlock (0:
     * none), for that PE to learn of it, and (bits 63..32) the key + 1 of
     * the call this PE waited in; then that PE's coll_blocked as found,
     * so that it learns of this deadlock and of no later wait. */
    _Atomic uint64_t coll_deadlock_with;
    _Atomic uint64_t coll_deadlock_call;
    /* While coll_blocked is set: a member the call waits for that waits
     * itself in another call, PE + 1, below the low 32 bits of the call's
     * number (bits 63..32), which tie it to that coll_blocked. */
    _Atomic uint64_t coll_waits_for;
    _Atomic uint64_t team_calls[GK__SEG_TEAM_SLOTS];
    /* Check mode (base/check.h): how many other PEs have reached
     * gk_finalize, each adding one with an atomic as it enters. A wait of
     * the program's own that finds all of them there cannot end. */
    _Alignas(64) _Atomic uint64_t check_finalized;
};

_Static_assert(sizeof(struct gk__seg_header) <= GK__SEG_HEADER_SIZE,
               "the segment header fits its page");
_Static_assert(GK__SEG_INBOX_FIXED % 8 == 0, "the holders' words are aligned");
_Static_assert(GK__SEG_INBOX_OFFSET + GK__SEG_INBOX_SIZE <= GK__SEG_HEAP_OFFSET,
               "the inbox must fit before the heap");
_Static_assert(GK__SEG_HEAP_OFFSET % GK__SEG_MAP_ALIGN == 0,
               "the heap starts on a mapping boundary");
_Static_assert(offsetof(struct gk__seg_header, wake) == 64, "layout");

struct gk__seg {
    char *base; /* the mapping; NULL when not mapped */
    size_t size;
    struct gk__seg_header *header;
    char *heap;
};

/* A byte range of a segment, [offset, offset + len). */
struct gk__seg_range {
    size_t offset;
    size_t len;
};
/* The header, the inbox and each declared region (mem/seg_region.h). */
#define GK__SEG_RANGES (2 + GK__SEG_REGIONS_MAX)

/*
 * The ranges of the runtime's area (below the heap) that a job of n_pes PEs
 * touches, in order, each a whole number of pages: what a segment reserves
 * besides its heap. Returns how many (at most GK__SEG_RANGES).
 */
int gk__seg_used_ranges(int n_pes, struct gk__seg_range ranges[GK__SEG_RANGES]);
/* Their total: the bytes of /dev/shm a segment takes beyond its heap. */
size_t gk__seg_area_bytes(int n_pes);

/* Takes the pages of [addr, addr + len) of this PE's own segment that the
 * reservation at start-up left as holes (a region's part past its used
 * bytes): GK_OK, or GK_ERR_NOMEM when /dev/shm has no room (an error, not
 * the SIGBUS a touch would get). */
int gk__seg_populate(void *addr, size_t len);

/* Whether /dev/shm has room for `n_segments` segments with heaps of
 * `heap_size` in a job of n_pes PEs; if not, logs both sizes and returns
 * GK_ERR_NOMEM. */
int gk__seg_check_space(size_t heap_size, int n_segments, int n_pes);
/* Creates, sizes and maps PE `pe`'s segment with a heap of `heap_size`, in a
 * job of n_pes PEs, the pages it can touch reserved in /dev/shm
 * (GK_ERR_NOMEM, logged, when they do not fit). */
int gk__seg_create(const char *job_key, int pe, int n_pes, size_t heap_size,
                   struct gk__seg *seg);
/* Maps PE `pe`'s segment, checking owner, size and header. */
int gk__seg_attach(const char *job_key, int pe, size_t heap_size, struct gk__seg *seg);
/* Removes the name; the mappings stay. ENOENT is not an error. */
int gk__seg_unlink(const char *job_key, int pe);
void gk__seg_detach(struct gk__seg *seg);

/* The segment size for a heap: runtime's area + heap rounded to pages
 * (the area's holes included), and the program's globals after it where
 * they are symmetric (below). */
size_t gk__seg_size_for_heap(size_t heap_size);

/*
 * Symmetric globals (GK_SYMMETRIC_DATA): the executable's writable data and
 * bss, whole pages, less what RELRO makes read-only after relocation. With
 * gk__seg_set_data() called before any segment is created or attached, a
 * segment ends with that many bytes after its heap; gk__seg_create() copies
 * the PE's globals there and maps that part of the file over them, so the
 * program's own variables live in the segment, where peers map them.
 */
struct gk__seg_data {
    char *lo;
    size_t size;
};
/* The running executable's range (size 0 when it has none). */
void gk__seg_find_data(struct gk__seg_data *data_p);
void gk__seg_set_data(const struct gk__seg_data *data);

#endif /* GK_MEM_SEGMENT_H */

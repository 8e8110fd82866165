/*
 * rwlock.h: the FIFO reader/writer lock that needs nothing from the lock's
 * owner (the seed passive-rma-locks-ib-atomics). Windows use one per
 * (window, target PE); gk_lock_t uses one, exclusive only. The protocol and
 * its memory ordering are described at the top of rwlock.c.
 */
#ifndef GK_WIN_RWLOCK_H
#define GK_WIN_RWLOCK_H

#include <stddef.h>
#include <stdint.h>

/* The largest PE count the lock word can name (16-bit fields, PE + 1). */
#define GK__RWLOCK_MAX_PES 65535

/*
 * Where one lock lives. Offsets are segment offsets (mem/segment.h) and the
 * node and wait-for offsets are symmetric: every PE's node for this lock is
 * at node_offset in its own segment.
 */
struct gk__rwlock_site {
    const char *op;        /* the public call, for error messages */
    int owner_pe;          /* the PE whose memory holds the lock word */
    size_t word_offset;    /* the 64-bit lock word, on owner_pe */
    size_t node_offset;    /* struct gk__rwlock_node, on every PE */
    size_t waitfor_offset; /* n_pes uint64_t slots on every PE; 0: no readers */
};

/*
 * One requester's queue node for one lock, in the requester's own memory:
 * the only words anybody waits on. `granted` and `next` are written by
 * different PEs at different moments (the predecessor grants, the
 * successor enqueues), so each has a cache line of its own.
 */
struct gk__rwlock_node {
    _Atomic uint64_t granted; /* H << 1 | 1: the lock is mine (written by the granter) */
    uint64_t h_seen;          /* mine only: the lock word's H while I hold it */
    uint64_t pad[6];          /* mine only (gk_lock_t keeps its state here) */
    _Atomic uint64_t next; /* my successor writer: (PE + 1) | readers << 32 */
    uint64_t pad_next[7];
};
/* No _Alignas: a gk_lock_t (8-byte aligned) holds one; nodes are 64-byte
 * aligned where the layout puts them (window control blocks). */
_Static_assert(sizeof(struct gk__rwlock_node) == 128, "two cache lines per node");
_Static_assert(offsetof(struct gk__rwlock_node, next) == 64, "next on a line of its own");

enum gk__rwlock_mode { GK__RWLOCK_SHARED, GK__RWLOCK_EXCLUSIVE };

/* Blocks until the lock is held in `mode` (waits back off, base/wait.h). */
int gk__rwlock_acquire(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode);
/* Takes the lock only if it can be granted at once; *acquired_p 1 or 0. */
int gk__rwlock_try(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                   int *acquired_p);
/* Releases a lock held in `mode`; the caller has completed its RMA to the
 * lock's target (the release orders nothing else). */
int gk__rwlock_release(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode);

#endif /* GK_WIN_RWLOCK_H */

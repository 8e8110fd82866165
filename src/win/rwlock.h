/*
 * rwlock.h: the FIFO reader/writer lock that needs nothing from the lock's
 * owner (the seed passive-rma-locks-ib-atomics). Windows use one per
 * (window, target PE); gk_lock_t uses one, exclusive only. The protocol and
 * its memory ordering are described at the top of rwlock.c.
 */
#ifndef GK_WIN_RWLOCK_H
#define GK_WIN_RWLOCK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/prefetch.h"
#include "core/runtime.h"
#include "core/path.h"

/* The largest PE count the lock word can name (16-bit fields, PE + 1). */
#define GK__RWLOCK_MAX_PES 65535

/*
 * Where one lock lives. Offsets are segment offsets (mem/segment.h) and the
 * node offset is symmetric: every PE's node for this lock is at
 * node_offset in its own segment.
 */
struct gk__rwlock_site {
    const char *op;     /* the public call, for error messages */
    int owner_pe;       /* the PE whose memory holds the lock word */
    size_t word_offset; /* the 64-bit lock word, on owner_pe */
    size_t node_offset; /* struct gk__rwlock_node, on every PE */
};

/*
 * One requester's queue node for one lock, in the requester's own memory:
 * the only words anybody waits on. `granted` is written by the PE ahead of
 * me, the second line's words by the PEs queued right behind me, at
 * different moments, so each side has a cache line of its own. A PE
 * holds one node per lock, whatever the PE count: the lock's memory on
 * every PE grows with the locks, not with the PEs that may queue.
 */
struct gk__rwlock_node {
    /* v << 1 | 1: the lock is mine (written by the granter); v is H for a
     * writer, the last reader of its group + 1 for a reader */
    _Atomic uint64_t granted;
    uint64_t h_seen; /* mine only: the v of my grant (H while I hold it exclusive) */
    uint64_t last_successor;  /* mine only: PE + 1 of the writer I last handed to */
    uint64_t last_predecessor; /* mine only: PE + 1 of the writer my last exclusive
                                  request queued behind; 0: it found no writer */
    /* 1: the writer I queued behind holds the lock, so I am next (a hint
     * for oversubscribed nodes, written by that writer: rwlock.c) */
    _Atomic uint64_t next_in_line;
    uint64_t pad[3];          /* mine only (gk_lock_t keeps its state here) */
    /* Written by the PEs queued right behind me, each once per request. */
    _Atomic uint64_t next;         /* my successor writer: (PE + 1) | G << 32 */
    _Atomic uint64_t first_reader; /* PE + 1 of the first reader of my group */
    _Atomic uint64_t next_reader;  /* PE + 1 of the reader after me in a group */
    uint64_t pad_next[5];
};
/* No _Alignas: a gk_lock_t (8-byte aligned) holds one; nodes are 64-byte
 * aligned where the layout puts them (window control blocks). */
_Static_assert(sizeof(struct gk__rwlock_node) == 128, "two cache lines per node");
_Static_assert(offsetof(struct gk__rwlock_node, next) == 64, "next on a line of its own");

enum gk__rwlock_mode { GK__RWLOCK_SHARED, GK__RWLOCK_EXCLUSIVE };

/* The lock word's fields (rwlock.c's top comment): A active readers, G
 * the last reader queued behind the tail writer + 1, H head writer + 1,
 * T tail writer + 1, 16 bits each. */
#define GK__RWLOCK_FIELD_T 0
#define GK__RWLOCK_FIELD_H 16
#define GK__RWLOCK_FIELD_G 32
#define GK__RWLOCK_FIELD_A 48
#define GK__RWLOCK_FIELD_MASK 0xffffULL
#define GK__RWLOCK_GET(word, field) (((word) >> (field)) & GK__RWLOCK_FIELD_MASK)

/* The slow paths of the inline calls below (rwlock.c). A `seen` word is
 * what the inline path's compare-and-swap found, so the slow path does not
 * ask again; 0 when it made none (a held lock's word is never 0). */
int gk__rwlock_acquire_from(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                            uint64_t seen);
/* The rest of a request whose compare-and-swap found `old` (whoever made
 * it: this PE, or the owner for it, rwlock_lazy.c): granted at once, or
 * queued and waiting for the grant. */
int gk__rwlock_acquire_queued(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                              uint64_t old);
int gk__rwlock_release_exclusive_from(const struct gk__rwlock_site *site, uint64_t seen);
int gk__rwlock_release_shared_after(const struct gk__rwlock_site *site, uint64_t old);
/* Both kinds, for a lock word that is not mapped here. */
int gk__rwlock_release_slow(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode);

/* A request's compare-and-swap: the new word for the old one. */
static inline uint64_t gk__rwlock_request_word(uint64_t word, enum gk__rwlock_mode mode,
                                               uint64_t me)
{
    uint64_t t = GK__RWLOCK_GET(word, GK__RWLOCK_FIELD_T);
    if (mode == GK__RWLOCK_SHARED && t == 0)
        return word + ((uint64_t)1 << GK__RWLOCK_FIELD_A);
    if (mode == GK__RWLOCK_SHARED) /* the last reader of the tail's group: me */
        return (word & ~(GK__RWLOCK_FIELD_MASK << GK__RWLOCK_FIELD_G)) |
               me << GK__RWLOCK_FIELD_G;
    uint64_t a = GK__RWLOCK_GET(word, GK__RWLOCK_FIELD_A) << GK__RWLOCK_FIELD_A;
    uint64_t h = t == 0 ? me : GK__RWLOCK_GET(word, GK__RWLOCK_FIELD_H);
    return a | h << GK__RWLOCK_FIELD_H | me << GK__RWLOCK_FIELD_T;
}

/* Whether a request whose compare-and-swap found `old` holds the lock at
 * once: no writer queued, and for a writer no active readers. */
static inline int gk__rwlock_granted_at_once(uint64_t old, enum gk__rwlock_mode mode)
{
    return GK__RWLOCK_GET(old, GK__RWLOCK_FIELD_T) == 0 &&
           (mode == GK__RWLOCK_SHARED || GK__RWLOCK_GET(old, GK__RWLOCK_FIELD_A) == 0);
}

/* The word while writer `me` holds the lock with nobody queued behind it
 * (h: the value of H it was granted with). */
static inline uint64_t gk__rwlock_sole_writer_word(uint64_t h, uint64_t me)
{
    return h << GK__RWLOCK_FIELD_H | me << GK__RWLOCK_FIELD_T;
}

/* My queue node for this lock, in my own segment. */
static inline struct gk__rwlock_node *gk__rwlock_my_node(const struct gk__rwlock_site *site)
{
    return (struct gk__rwlock_node *)(void *)gk__rt_own(site->node_offset);
}

/* The lock word, where the owner's segment is mapped here; else NULL. */
static inline _Atomic uint64_t *gk__rwlock_word(const struct gk__rwlock_site *site)
{
    return (_Atomic uint64_t *)(void *)gk__path_addr(site->owner_pe, site->word_offset);
}

/*
 * Guessing the other side of a hand-over. A hand-over's two cache misses,
 * the successor's name in my `next` and the line of its `granted` that the
 * grant writes, come one after the other: the name says where to write.
 * Likewise a queued request's compare-and-swap of the lock word and its
 * put into the predecessor's `next`. Under contention the PEs tend to
 * queue in the same order every round (always, between two PEs), so the
 * writer I last handed to and the one I last queued behind are good
 * guesses: a prefetch for writing of the guessed line, issued before the
 * miss that names the real one, overlaps the two (a contended hand-over
 * between 2 PEs: 0.138 -> 0.100 us). A wrong guess costs one stray
 * prefetch. A request that finds the lock free clears its guess. A release
 * that hands the lock to nobody keeps its own: with more PEs than cores
 * that happens whenever the next requester is descheduled, and clearing
 * the guess there made the contended lock slower; a lock whose contention
 * is over pays one stray prefetch per release.
 */
static inline void gk__rwlock_prefetch_node(const struct gk__rwlock_site *site,
                                            uint64_t pe_plus_one, size_t field)
{
    uint64_t pe = pe_plus_one - 1; /* 0 (no guess) becomes ~0 */
    if (pe >= (uint64_t)gk__rt.n_pes)
        return;
    const char *base = gk__path_addr((int)pe, 0);
    if (base != NULL)
        gk__prefetch_for_write(base + site->node_offset + field);
}

/*
 * Blocks until the lock is held in `mode` (waits back off, base/wait.h).
 * Inline, the uncontended case: a free word (0) taken with one
 * compare-and-swap; any other word goes the full way from the value seen.
 */
static inline int gk__rwlock_acquire(const struct gk__rwlock_site *site,
                                     enum gk__rwlock_mode mode)
{
    _Atomic uint64_t *word = gk__rwlock_word(site);
    struct gk__rwlock_node *node = gk__rwlock_my_node(site);
    uint64_t seen = 0;
    if (mode == GK__RWLOCK_EXCLUSIVE)
        gk__rwlock_prefetch_node(site, node->last_predecessor,
                                 offsetof(struct gk__rwlock_node, next));
    if (__builtin_expect(word != NULL, 1)) {
        uint64_t me = (uint64_t)gk__rt.my_pe + 1;
        uint64_t want = gk__rwlock_request_word(0, mode, me);
        if (atomic_compare_exchange_strong_explicit(word, &seen, want, memory_order_seq_cst,
                                                    memory_order_seq_cst)) {
            node->h_seen = me; /* an exclusive request set H = me */
            if (node->last_predecessor != 0) /* (shared: it is 0 anyway) */
                node->last_predecessor = 0;
            gk__race_acquire(site->owner_pe); /* check mode: the last holder's clock */
            return GK_OK;
        }
    }
    int status = gk__rwlock_acquire_from(site, mode, seen);
    gk__race_acquire(site->owner_pe);
    return status;
}
/* Takes the lock only if it can be granted at once; *acquired_p 1 or 0. */
int gk__rwlock_try(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                   int *acquired_p);
/*
 * Releases a lock held in `mode`; the caller has completed its RMA to the
 * lock's target (the release orders nothing else). Inline, the cases that
 * hand the lock to nobody: a writer with no successor and no readers
 * queued behind it (one compare-and-swap to 0), and a reader that is not
 * the last before a waiting writer (one fetch-add).
 */
static inline int gk__rwlock_release(const struct gk__rwlock_site *site,
                                     enum gk__rwlock_mode mode)
{
    _Atomic uint64_t *word = gk__rwlock_word(site);
    if (__builtin_expect(word == NULL, 0))
        return gk__rwlock_release_slow(site, mode);
    if (mode == GK__RWLOCK_SHARED) {
        uint64_t old = atomic_fetch_sub_explicit(word, (uint64_t)1 << GK__RWLOCK_FIELD_A,
                                                 memory_order_seq_cst);
        uint64_t a = GK__RWLOCK_GET(old, GK__RWLOCK_FIELD_A);
        if (__builtin_expect(a > 1 || (a == 1 && GK__RWLOCK_GET(old, GK__RWLOCK_FIELD_H) == 0),
                             1))
            return GK_OK;
        return gk__rwlock_release_shared_after(site, old);
    }
    struct gk__rwlock_node *node = gk__rwlock_my_node(site);
    uint64_t seen = 0;
    gk__rwlock_prefetch_node(site, node->last_successor,
                             offsetof(struct gk__rwlock_node, granted));
    if (atomic_load_explicit(&node->next, memory_order_acquire) == 0) {
        seen = gk__rwlock_sole_writer_word(node->h_seen, (uint64_t)gk__rt.my_pe + 1);
        if (atomic_compare_exchange_strong_explicit(word, &seen, 0, memory_order_seq_cst,
                                                    memory_order_seq_cst))
            return GK_OK; /* (the successor guess stays: see gk__rwlock_prefetch_node) */
    }
    return gk__rwlock_release_exclusive_from(site, seen);
}

/*
 * A lock on a PE across hosts, acquired with the first operation of its
 * epoch (rwlock_lazy.c): one remote operation makes the request at the
 * owner and, granted at once, the get (into buf) or put (from buf) of
 * nbytes at segment offset data_at. Returns once the lock is held;
 * *done_p 1 when the operation was made with it, 0 when the caller must
 * still make it (the lock was queued, or the bytes did not fit). Only
 * where the word is not mapped here and gk__path_rop_max(owner) > 0.
 */
enum gk__rwlock_lazy_kind { GK__RWLOCK_LAZY_LOCK, GK__RWLOCK_LAZY_GET, GK__RWLOCK_LAZY_PUT };
int gk__rwlock_lazy_acquire(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                            enum gk__rwlock_lazy_kind kind, size_t data_at, void *buf,
                            size_t nbytes, int *done_p);

/* Whether a lock on this site may be acquired lazily: its word is behind
 * a transport that runs remote operations. */
static inline int gk__rwlock_lazy_ok(const struct gk__rwlock_site *site)
{
    return gk__rwlock_word(site) == NULL && gk__path_rop_max(site->owner_pe) > 0;
}

#endif /* GK_WIN_RWLOCK_H */

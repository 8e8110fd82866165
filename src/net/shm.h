/*
 * shm.h: the shared-memory transport, for peers whose segment is mapped into
 * this process. Every operation is a copy or a CPU atomic on the mapping,
 * complete on return, followed by a wake-up check on the target
 * (base/wait.h): one fence and one load when nobody sleeps there.
 */
#ifndef GK_NET_SHM_H
#define GK_NET_SHM_H

#include "base/copy.h"
#include "base/wait.h"
#include "net/net.h"

/* Its start-up and shut-down (net.c's registry): this PE and the PEs of
 * its node. */
extern const struct gk__net_module gk__shm_module;
extern const struct gk__net_transport gk__shm_transport;
/* The same on a mapping kept private (GK_NET_INDIRECT, for tests). */
extern const struct gk__net_transport gk__shm_indirect_transport;

/* A segment's header: the first bytes of its mapping. */
static inline struct gk__seg_header *gk__shm_header_at(char *seg_base)
{
    return (struct gk__seg_header *)(void *)seg_base;
}

/* A mapped peer's segment header. */
static inline struct gk__seg_header *gk__shm_header(const struct gk__net_peer *peer)
{
    return gk__shm_header_at(peer->direct);
}

/*
 * The copy alone (small ones inline, base/copy.h). Its wake-up check is the caller's business: a signaling
 * put's signal does it; a plain put leaves it owed (core/xfer.h).
 */
static inline void gk__shm_copy_to(struct gk__net_peer *peer, size_t offset,
                                   const void *src, size_t n)
{
    gk__copy_small(peer->direct + offset, src, n);
}

/* A copy and its wake-up check at once (the transport table's put). */
static inline void gk__shm_put(struct gk__net_peer *peer, size_t offset,
                               const void *src, size_t n)
{
    gk__shm_copy_to(peer, offset, src, n);
    gk__wake_notify(&gk__shm_header(peer)->wake, offset, offset + n);
}

static inline void gk__shm_get(struct gk__net_peer *peer, void *dst, size_t offset,
                               size_t n)
{
    gk__copy_small(dst, peer->direct + offset, n);
}

/*
 * Orders earlier shm stores before later ones (gk_fence): a release fence,
 * which is no instruction at all on x86 (stores are not reordered with
 * stores; glibc's memcpy fences its own non-temporal stores) and a dmb on
 * weaker machines.
 */
static inline void gk__shm_fence(void)
{
    atomic_thread_fence(memory_order_release);
}

/*
 * Completes every earlier shm operation (gk_quiet): a full fence. Copies
 * and CPU atomics are done when they return; the fence makes their stores
 * visible before anything that follows.
 */
static inline void gk__shm_quiet(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

/*
 * 64-bit compare-and-swap and fetch-add on a mapped peer's word, with the
 * wake-up check: the inline forms of the transport's atomic for the
 * protocols that live on such words (the window lock).
 */
static inline uint64_t gk__shm_cas64(struct gk__net_peer *peer, size_t offset,
                                     uint64_t expected, uint64_t desired)
{
    uint64_t *word = (uint64_t *)(peer->direct + offset);
    __atomic_compare_exchange_n(word, &expected, desired, 0, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    gk__wake_notify_after_rmw(&gk__shm_header(peer)->wake, offset, offset + 8);
    return expected; /* the old value, whether or not it matched */
}

static inline uint64_t gk__shm_fadd64(struct gk__net_peer *peer, size_t offset,
                                      uint64_t delta)
{
    uint64_t old = __atomic_fetch_add((uint64_t *)(peer->direct + offset), delta,
                                      __ATOMIC_SEQ_CST);
    gk__wake_notify_after_rmw(&gk__shm_header(peer)->wake, offset, offset + 8);
    return old;
}

/*
 * A mapped peer's published collective call (mem/segment.h: coll_now), and
 * the mismatch it found: non-zero with *pe_p and *call_p set, or 0. For
 * the slow path of a wait; 0 for a peer that is not mapped.
 */
uint64_t gk__shm_peer_coll_now(const struct gk__net_peer *peer);
/* The kind of the peer's call number `seq`, if its history still holds it
 * (mem/segment.h: coll_kinds; the caller checks the peer's coll_now
 * before and after). */
unsigned gk__shm_peer_coll_kind(const struct gk__net_peer *peer, uint64_t seq);
int gk__shm_peer_coll_clash(const struct gk__net_peer *peer, int *pe_p, uint64_t *call_p);


/* Whether the peer's wake-up word says a PE sleeps there (the cheap test
 * before a look at who watches what). */
static inline int gk__shm_sleepers(const struct gk__net_peer *peer)
{
    return atomic_load_explicit(&gk__shm_header(peer)->wake.sleepers, memory_order_acquire) != 0;
}

#endif /* GK_NET_SHM_H */

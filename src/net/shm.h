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

/* Whether the peer's wake-up word says a PE sleeps there (the cheap test
 * before a look at who watches what). */
static inline int gk__shm_sleepers(const struct gk__net_peer *peer)
{
    return atomic_load_explicit(&gk__shm_header(peer)->wake.sleepers, memory_order_acquire) != 0;
}

/*
 * The copy alone (small ones inline, base/copy.h). Its wake-up check is the caller's business: a signaling
 * put's signal does it; a plain put leaves it owed (core/path.h).
 */
static inline void gk__shm_copy_to(struct gk__net_peer *peer, size_t offset,
                                   const void *src, size_t n)
{
    gk__copy_small(peer->direct + offset, src, n);
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

/* The peer's byte at segment offset `offset`, mapped here. */
static inline char *gk__shm_addr(const struct gk__net_peer *peer, size_t offset)
{
    return peer->direct + offset;
}

/* A naturally aligned store of `width` bytes that no reader sees half
 * done (a value put); its wake-up check is the caller's. */
static inline void gk__shm_store(struct gk__net_peer *peer, size_t offset, uint64_t value,
                                 size_t width)
{
    void *word = peer->direct + offset;
    switch (width) {
    case 1: __atomic_store_n((uint8_t *)word, (uint8_t)value, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)word, (uint16_t)value, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)word, (uint32_t)value, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)word, value, __ATOMIC_RELAXED); break;
    }
}

/* The load that matches it (acquire: a poll that sees a flag sees what
 * was written before the flag). */
static inline uint64_t gk__shm_load(const struct gk__net_peer *peer, size_t offset, size_t width)
{
    const void *word = peer->direct + offset;
    switch (width) {
    case 1: return __atomic_load_n((const uint8_t *)word, __ATOMIC_ACQUIRE);
    case 2: return __atomic_load_n((const uint16_t *)word, __ATOMIC_ACQUIRE);
    case 4: return __atomic_load_n((const uint32_t *)word, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((const uint64_t *)word, __ATOMIC_ACQUIRE);
    }
}

#define GK__SHM_RMW(T, word, op, operand, compare, old)                        \
    do {                                                                       \
        T *w_ = (T *)(word);                                                   \
        T v_ = (T)(operand);                                                   \
        switch (op) {                                                          \
        case GK__AMO_FETCH:                                                    \
            old = __atomic_load_n(w_, __ATOMIC_SEQ_CST);                       \
            break;                                                             \
        case GK__AMO_SET:                                                      \
        case GK__AMO_SWAP:                                                     \
            old = __atomic_exchange_n(w_, v_, __ATOMIC_SEQ_CST);               \
            break;                                                             \
        case GK__AMO_CSWAP: {                                                  \
            T expected_ = (T)(compare);                                        \
            __atomic_compare_exchange_n(w_, &expected_, v_, 0,                 \
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
            old = expected_;                                                   \
            break;                                                             \
        }                                                                      \
        case GK__AMO_FETCH_ADD:                                                \
            old = __atomic_fetch_add(w_, v_, __ATOMIC_SEQ_CST);                \
            break;                                                             \
        case GK__AMO_FETCH_AND:                                                \
            old = __atomic_fetch_and(w_, v_, __ATOMIC_SEQ_CST);                \
            break;                                                             \
        case GK__AMO_FETCH_OR:                                                 \
            old = __atomic_fetch_or(w_, v_, __ATOMIC_SEQ_CST);                 \
            break;                                                             \
        case GK__AMO_FETCH_XOR:                                                \
            old = __atomic_fetch_xor(w_, v_, __ATOMIC_SEQ_CST);                \
            break;                                                             \
        }                                                                      \
    } while (0)

/* The CPU atomic alone on a mapped word of 4 or 8 bytes (the caller
 * checked the width): the old value. Its wake-up check is the caller's. */
static inline uint64_t gk__shm_rmw(void *word, enum gk__amo_op op, size_t width,
                                   uint64_t operand, uint64_t compare)
{
    uint64_t old = 0;
    if (width == 4) {
        uint32_t old32 = 0;
        GK__SHM_RMW(uint32_t, word, op, operand, compare, old32);
        old = old32;
    } else {
        GK__SHM_RMW(uint64_t, word, op, operand, compare, old);
    }
    return old;
}

/* The wake-up check after a write to the peer's [lo, hi): a full fence,
 * then a look at its sleepers. */
static inline void gk__shm_notify(struct gk__net_peer *peer, uint64_t lo, uint64_t hi)
{
    gk__wake_notify(&gk__shm_header(peer)->wake, lo, hi);
}

/* The same right after a seq_cst read-modify-write, which is the fence. */
static inline void gk__shm_notify_after_rmw(struct gk__net_peer *peer, uint64_t lo, uint64_t hi)
{
    gk__wake_notify_after_rmw(&gk__shm_header(peer)->wake, lo, hi);
}

/* An owed wake-up paid after a full fence the caller made: the sleepers
 * looked at, and those watching [lo, hi) woken. */
static inline void gk__shm_pay_wake(struct gk__net_peer *peer, uint64_t lo, uint64_t hi)
{
    if (gk__shm_sleepers(peer))
        gk__wake_if_watching(&gk__shm_header(peer)->wake, lo, hi);
}


#endif /* GK_NET_SHM_H */

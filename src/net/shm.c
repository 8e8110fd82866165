/*
 * shm.c: the shared-memory transport's table entries (the out-of-line forms
 * of the inline operations in shm.h) and peer set-up.
 */
#include "net/shm.h"

#include "gasket.h"

static int shm_put(struct gk__net_peer *peer, size_t offset, const void *src, size_t n)
{
    gk__shm_put(peer, offset, src, n);
    return GK_OK;
}

static int shm_get(struct gk__net_peer *peer, void *dst, size_t offset, size_t n)
{
    gk__shm_get(peer, dst, offset, n);
    return GK_OK;
}

#define SHM_AMO(T, word, op, operand, compare, old)                            \
    do {                                                                       \
        T *w_ = (T *)(word);                                                   \
        T v_ = (T)(operand);                                                   \
        switch (op) {                                                          \
        case GK__AMO_FETCH:                                                    \
            old = __atomic_load_n(w_, __ATOMIC_SEQ_CST);                       \
            break;                                                             \
        case GK__AMO_SET:                                                      \
            old = __atomic_exchange_n(w_, v_, __ATOMIC_SEQ_CST);               \
            break;                                                             \
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

static int shm_atomic(struct gk__net_peer *peer, enum gk__amo_op op, size_t width,
                      size_t offset, uint64_t operand, uint64_t compare,
                      uint64_t *result_p)
{
    void *word = peer->seg_base + offset;
    uint64_t old = 0;
    if (width == 4) {
        uint32_t old32 = 0;
        SHM_AMO(uint32_t, word, op, operand, compare, old32);
        old = old32;
    } else if (width == 8) {
        SHM_AMO(uint64_t, word, op, operand, compare, old);
    } else {
        return GK_ERR_INVALID_ARG;
    }
    if (op != GK__AMO_FETCH)
        gk__wake_notify_after_rmw(&peer->header->wake, offset, offset + width);
    if (result_p != NULL)
        *result_p = old;
    return GK_OK;
}

static int shm_fence(void)
{
    gk__shm_quiet();
    return GK_OK;
}

const struct gk__net_transport gk__shm_transport = {
    .name = "shm",
    .put = shm_put,
    .get = shm_get,
    .atomic = shm_atomic,
    .fence = shm_fence,
    .quiet = shm_fence,
};

uint64_t gk__shm_peer_coll_now(const struct gk__net_peer *peer)
{
    if (peer->header == NULL)
        return 0;
    return atomic_load_explicit(&peer->header->coll_now, memory_order_acquire);
}

unsigned gk__shm_peer_coll_kind(const struct gk__net_peer *peer, uint64_t seq)
{
    if (peer->header == NULL)
        return 0;
    return atomic_load_explicit(&peer->header->coll_kinds[seq % GK__SEG_COLL_HISTORY],
                                memory_order_acquire);
}

int gk__shm_peer_coll_clash(const struct gk__net_peer *peer, int *pe_p, uint64_t *call_p)
{
    if (peer->header == NULL)
        return 0;
    const struct gk__seg_header *header = peer->header;
    uint64_t pe = atomic_load_explicit(&header->coll_clash_pe, memory_order_acquire);
    if (pe == 0)
        return 0;
    *pe_p = (int)(pe - 1);
    *call_p = atomic_load_explicit(&header->coll_clash, memory_order_relaxed);
    return 1;
}

int gk__shm_peer_attach(struct gk__net_peer *peer, const char *job_key, int pe,
                        size_t heap_size)
{
    int status = gk__seg_attach(job_key, pe, heap_size, &peer->seg);
    if (status != GK_OK)
        return status;
    peer->seg_base = peer->seg.base;
    peer->header = peer->seg.header;
    peer->transport = &gk__shm_transport;
    return GK_OK;
}

void gk__shm_peer_detach(struct gk__net_peer *peer)
{
    gk__seg_detach(&peer->seg);
    peer->seg_base = NULL;
    peer->header = NULL;
    peer->transport = NULL;
}

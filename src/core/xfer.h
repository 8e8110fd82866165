/*
 * xfer.h: the checked put and get every feature builds on (rma, the
 * signaling put, collectives): argument checks, address translation, then
 * the shm copy inline or the peer's transport.
 */
#ifndef GK_CORE_XFER_H
#define GK_CORE_XFER_H

#include "core/runtime.h"
#include "net/shm.h"

/*
 * A plain put copies and leaves the target's wake-up check owed
 * (gk__rt_defer_wake): the check needs a full fence, and a put is usually
 * followed by something that fences and checks anyway (a flag, a signal,
 * quiet, a barrier). Owed checks are made by gk_quiet, by any later
 * notifying write to the same PE, before this PE blocks or polls a peer
 * (gets, atomic fetches); meanwhile a
 * sleeping target still wakes on its own within GK_SLEEP_MS. OpenSHMEM
 * promises a put's delivery only after quiet, so nothing is lost. A put
 * whose own signal follows says GK__XFER_NO_WAKE: the signal checks.
 */
enum gk__xfer_wake { GK__XFER_DEFER_WAKE, GK__XFER_NO_WAKE };

/* How a put's source may be reused: on return, or after the next quiet. */
enum gk__xfer_src { GK__XFER_SRC_FREE, GK__XFER_SRC_HELD };

/* A put to segment offset `offset` of pe, a range the caller checked
 * (windows: their part's bounds). */
static inline int gk__xfer_put_at(const char *op, int pe, size_t offset, const void *src,
                                  size_t nbytes, enum gk__xfer_wake wake,
                                  enum gk__xfer_src src_use)
{
    int status = gk__rt_check_local(op, "src", src, nbytes);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(nbytes == 0))
        return GK_OK; /* buffers may be NULL; memcpy must not see them */
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->direct != NULL)) {
        gk__shm_copy_to(peer, offset, src, nbytes);
    } else {
        status = src_use == GK__XFER_SRC_HELD ? peer->transport->put_nbi(peer, offset, src, nbytes)
                                              : peer->transport->put(peer, offset, src, nbytes);
        if (GK__UNLIKELY(status != GK_OK))
            return status;
    }
    if (wake == GK__XFER_DEFER_WAKE && nbytes > peer->put_wakes_max)
        gk__rt_defer_wake(pe, offset, offset + nbytes);
    return GK_OK;
}

static inline int gk__xfer_put_src(const char *op, int pe, void *dst, const void *src,
                                   size_t nbytes, enum gk__xfer_wake wake,
                                   enum gk__xfer_src src_use)
{
    size_t offset = 0;
    int status = gk__rt_check_remote(op, pe, dst, nbytes, &offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    return gk__xfer_put_at(op, pe, offset, src, nbytes, wake, src_use);
}

static inline int gk__xfer_put(const char *op, int pe, void *dst, const void *src,
                               size_t nbytes, enum gk__xfer_wake wake)
{
    return gk__xfer_put_src(op, pe, dst, src, nbytes, wake, GK__XFER_SRC_FREE);
}

/* A get complete on return (GK__XFER_DST_NOW) or at the next quiet. */
enum gk__xfer_dst { GK__XFER_DST_NOW, GK__XFER_DST_AT_QUIET };

/* A get from segment offset `offset` of pe, a range the caller checked. */
static inline int gk__xfer_get_at(const char *op, int pe, void *dst, size_t offset,
                                  size_t nbytes, enum gk__xfer_dst dst_use)
{
    int status = gk__rt_check_local(op, "dst", dst, nbytes);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(nbytes == 0))
        return GK_OK;
    /* A PE polling a peer with gets may be waiting for an answer to a put
     * whose wake-up it still owes: pay it now (one branch when none). */
    gk__rt_flush_wakes();
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (GK__LIKELY(peer->direct != NULL)) {
        gk__shm_get(peer, dst, offset, nbytes);
        return GK_OK;
    }
    return dst_use == GK__XFER_DST_AT_QUIET ? peer->transport->get_nbi(peer, dst, offset, nbytes)
                                            : peer->transport->get(peer, dst, offset, nbytes);
}

static inline int gk__xfer_get_dst(const char *op, int pe, void *dst, const void *src,
                                   size_t nbytes, enum gk__xfer_dst dst_use)
{
    size_t offset = 0;
    int status = gk__rt_check_remote(op, pe, src, nbytes, &offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    return gk__xfer_get_at(op, pe, dst, offset, nbytes, dst_use);
}

static inline int gk__xfer_get(const char *op, int pe, void *dst, const void *src,
                               size_t nbytes)
{
    return gk__xfer_get_dst(op, pe, dst, src, nbytes, GK__XFER_DST_NOW);
}

/*
 * An atomic on pe's segment word and pe's wake-up check for it, as one
 * remote operation (net.h) of pe's transport, where the transport's
 * atomic and then its wake-up message would be a round trip and a message
 * (xfer_rop.c): with old_p, one round trip; without, one message posted,
 * owing this PE's quiet what `how` says. For a peer whose transport has
 * rop.
 */
int gk__xfer_atomic_rop(int pe, enum gk__amo_op op, size_t width, size_t seg_offset,
                        uint64_t operand, uint64_t compare, uint64_t *old_p,
                        enum gk__net_post how);
/* Registers the target's side of it (gk_init). */
void gk__xfer_rop_register(void);

/*
 * An atomic of `width` bytes on pe's segment word that may end a wait there
 * (a user's word, a barrier or collective flag, a semaphore count, a lock
 * word), then pe's wake-up check for it: a mapped peer's transport makes
 * the check with the atomic; to another, the atomic goes as one remote
 * operation where the transport has them (without old_p, posted and
 * complete at quiet, as a put), else the transport's atomic gets its
 * wake-up after it. A GK__AMO_FETCH writes nothing: no check.
 */
static inline int gk__xfer_amo(int pe, enum gk__amo_op op, size_t width, size_t seg_offset,
                               uint64_t operand, uint64_t compare, uint64_t *old_p)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (op == GK__AMO_FETCH)
        return peer->transport->atomic(peer, op, width, seg_offset, operand, compare, old_p);
    if (peer->direct == NULL && peer->transport->rop != NULL)
        return gk__xfer_atomic_rop(pe, op, width, seg_offset, operand, compare, old_p,
                                   GK__NET_POST_QUIET);
    int status = peer->transport->atomic(peer, op, width, seg_offset, operand, compare, old_p);
    if (status == GK_OK && peer->direct == NULL)
        status = peer->transport->wake(peer, seg_offset, seg_offset + width);
    gk__rt_wake_done(pe, seg_offset, seg_offset + width);
    return status;
}

/* The same on a 64-bit internal word. */
static inline int gk__xfer_notify64(int pe, enum gk__amo_op op, size_t seg_offset,
                                    uint64_t operand, uint64_t compare, uint64_t *old_p)
{
    return gk__xfer_amo(pe, op, 8, seg_offset, operand, compare, old_p);
}

/*
 * A 64-bit flag of pe's that only pe reads, and waits for before it goes
 * on (a barrier's, a collective's): gk__xfer_notify64 without a result,
 * but to a peer reached through a transport's remote operations it owes
 * this PE's quiet nothing (net.h, GK__NET_POST_AWAITED): one message, and
 * no acknowledgement to wait for or to pay.
 */
static inline int gk__xfer_flag64(int pe, enum gk__amo_op op, size_t seg_offset,
                                  uint64_t value)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (peer->direct == NULL && peer->transport->rop != NULL)
        return gk__xfer_atomic_rop(pe, op, 8, seg_offset, value, 0, NULL,
                                   GK__NET_POST_AWAITED);
    return gk__xfer_amo(pe, op, 8, seg_offset, value, 0, NULL);
}

/* A 64-bit atomic on a word given by its segment offset (internal words:
 * semaphores, collective flags), through the shm mapping or the transport;
 * to a peer not mapped here, with no wake-up: for fetches, and for callers
 * that send their own (a write that may end a wait: gk__xfer_notify64). */
static inline int gk__xfer_atomic64(int pe, enum gk__amo_op op, size_t seg_offset,
                                    uint64_t operand, uint64_t compare,
                                    uint64_t *old_p)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    return peer->transport->atomic(peer, op, 8, seg_offset, operand, compare, old_p);
}

#endif /* GK_CORE_XFER_H */

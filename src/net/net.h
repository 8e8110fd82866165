/*
 * net.h: the transport interface. The runtime chooses a transport for each
 * peer at start-up and keeps it in that peer's struct gk__net_peer; the
 * features (rma, sync) are written once against this interface. Addresses on
 * the peer are offsets into its segment (mem/segment.h), so the interface is
 * the same for a mapped neighbour and for a PE across the network.
 *
 * Today there is one transport, shm (shm.h): the peer's segment is mapped
 * here, so its operations are plain copies and CPU atomics, and they are
 * complete when they return. Its operations are also offered as inline
 * functions that the features call directly when peer->seg_base is set: the
 * fast path pays no indirect call.
 */
#ifndef GK_NET_NET_H
#define GK_NET_NET_H

#include <stddef.h>
#include <stdint.h>

#include "mem/segment.h"

/* Atomic operations a transport performs on a remote word. */
enum gk__amo_op {
    GK__AMO_FETCH,
    GK__AMO_SET,
    GK__AMO_SWAP,
    GK__AMO_CSWAP,
    GK__AMO_FETCH_ADD,
    GK__AMO_FETCH_AND,
    GK__AMO_FETCH_OR,
    GK__AMO_FETCH_XOR
};

struct gk__net_peer;

struct gk__net_transport {
    const char *name;
    /* Copies n bytes to/from the peer's segment at `offset`. */
    int (*put)(struct gk__net_peer *peer, size_t offset, const void *src, size_t n);
    int (*get)(struct gk__net_peer *peer, void *dst, size_t offset, size_t n);
    /*
     * Applies `op` to the 4- or 8-byte word at `offset`: operand is the value
     * (the desired value for CSWAP), compare the expected value for CSWAP.
     * The old value goes to *result_p (NULL for the non-fetching use).
     */
    int (*atomic)(struct gk__net_peer *peer, enum gk__amo_op op, size_t width,
                  size_t offset, uint64_t operand, uint64_t compare,
                  uint64_t *result_p);
    /* Orders earlier operations before later ones to each peer. */
    int (*fence)(void);
    /* Completes every operation issued so far. */
    int (*quiet)(void);
};

struct gk__net_peer {
    /* shm: the peer's segment mapped here (NULL when the peer is off-node). */
    char *seg_base;
    struct gk__seg_header *header;
    const struct gk__net_transport *transport;
    /* Our own mapping record, to undo it. */
    struct gk__seg seg;
};

#endif /* GK_NET_NET_H */

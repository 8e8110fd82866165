/*
 * shm.h: the shared-memory transport, for peers whose segment is mapped into
 * this process. Every operation is a copy or a CPU atomic on the mapping,
 * complete on return, followed by a wake-up check on the target
 * (base/wait.h): one fence and one load when nobody sleeps there.
 */
#ifndef GK_NET_SHM_H
#define GK_NET_SHM_H

#include <string.h>

#include "base/wait.h"
#include "net/net.h"

extern const struct gk__net_transport gk__shm_transport;

/* The copy alone: for a put whose signal follows and does the wake-up. */
static inline void gk__shm_copy_to(struct gk__net_peer *peer, size_t offset,
                                   const void *src, size_t n)
{
    memcpy(peer->seg_base + offset, src, n);
}

static inline void gk__shm_put(struct gk__net_peer *peer, size_t offset,
                               const void *src, size_t n)
{
    gk__shm_copy_to(peer, offset, src, n);
    gk__wake_notify(&peer->header->wake);
}

static inline void gk__shm_get(struct gk__net_peer *peer, void *dst, size_t offset,
                               size_t n)
{
    memcpy(dst, peer->seg_base + offset, n);
}

/* One fence instruction: completes and orders every earlier shm access. */
static inline void gk__shm_quiet(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

/* Maps the segments of the PEs on this node (attach), or unmaps them. */
int gk__shm_peer_attach(struct gk__net_peer *peer, const char *job_key, int pe,
                        size_t heap_size);
void gk__shm_peer_detach(struct gk__net_peer *peer);

#endif /* GK_NET_SHM_H */

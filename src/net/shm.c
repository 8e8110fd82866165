/*
 * shm.c: the shared-memory transport's table entries (the out-of-line forms
 * of the inline operations in shm.h) and peer set-up.
 */
#include "net/shm.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "base/config.h"
#include "boot/boot.h"
#include "gasket.h"
#include "net/shm_ring.h"

/*
 * The table's operations reach the peer through its mapping as kept in
 * their own state (struct shm_peer), not through peer->direct: so they
 * serve a hidden peer (shm_peer_hide) as they serve a mapped one.
 */
struct shm_peer {
    /* Our mapping of the peer's segment, to undo; for this PE itself, the
     * runtime's own mapping (not ours to undo). */
    struct gk__seg seg;
    /* The sender's side of the peer's inbox for messages sent through the
     * table (shm_ring.h's caches). The progress engine keeps its own for
     * its inline sends; both are valid caches of the same ring. */
    _Atomic uint64_t released_seen;
    _Atomic uint64_t next_ticket;
};

static inline char *shm_base(const struct gk__net_peer *peer)
{
    return ((const struct shm_peer *)peer->priv)->seg.base;
}

static inline struct gk__wake *shm_wake_word(const struct gk__net_peer *peer)
{
    return &gk__shm_header_at(shm_base(peer))->wake;
}

/* The copy alone: the indirect form's put, whose wake-up is the caller's
 * (as ucx's is). */
static int shm_copy(struct gk__net_peer *peer, size_t offset, const void *src, size_t n)
{
    gk__copy_small(shm_base(peer) + offset, src, n);
    return GK_OK;
}

static int shm_put(struct gk__net_peer *peer, size_t offset, const void *src, size_t n)
{
    shm_copy(peer, offset, src, n);
    gk__wake_notify(shm_wake_word(peer), offset, offset + n);
    return GK_OK;
}

static int shm_get(struct gk__net_peer *peer, void *dst, size_t offset, size_t n)
{
    gk__copy_small(dst, shm_base(peer) + offset, n);
    return GK_OK;
}

/* The atomic alone: the indirect form's, whose wake-up is the caller's
 * (as ucx's is: a network atomic cannot look at the target's sleepers). */
static int shm_rmw(struct gk__net_peer *peer, enum gk__amo_op op, size_t width,
                   size_t offset, uint64_t operand, uint64_t compare, uint64_t *result_p)
{
    if (width != 4 && width != 8)
        return GK_ERR_INVALID_ARG;
    uint64_t old = gk__shm_rmw(shm_base(peer) + offset, op, width, operand, compare);
    if (result_p != NULL)
        *result_p = old;
    return GK_OK;
}

static int shm_atomic(struct gk__net_peer *peer, enum gk__amo_op op, size_t width,
                      size_t offset, uint64_t operand, uint64_t compare,
                      uint64_t *result_p)
{
    int status = shm_rmw(peer, op, width, offset, operand, compare, result_p);
    if (status == GK_OK && op != GK__AMO_FETCH)
        gk__wake_notify_after_rmw(shm_wake_word(peer), offset, offset + width);
    return status;
}

static int shm_fence(void)
{
    gk__shm_quiet();
    return GK_OK;
}

static int shm_wake(struct gk__net_peer *peer, uint64_t lo, uint64_t hi)
{
    gk__wake_notify(shm_wake_word(peer), lo, hi);
    return GK_OK;
}

static int shm_am_send(struct gk__net_peer *peer, const struct gk__net_am *msg,
                       const uint64_t *args, const void *payload)
{
    struct shm_peer *sp = peer->priv;
    return gk__ring_try_push(sp->seg.base, msg, args, payload, &sp->released_seen,
                             &sp->next_ticket);
}

static int shm_flush(struct gk__net_peer *peer)
{
    (void)peer;
    gk__shm_quiet();
    return GK_OK;
}

/* Cross-memory attach: the kernel copies between this process's `local`
 * and `addr` in process pid, reading or writing (it may stop short: the
 * rest is asked for again). */
static int shm_private_move(uint64_t pid, void *local, uint64_t addr, size_t n, int write)
{
    while (n > 0) {
        struct iovec here = {local, n}, there = {(void *)(uintptr_t)addr, n};
        ssize_t moved = write ? process_vm_writev((pid_t)pid, &here, 1, &there, 1, 0)
                              : process_vm_readv((pid_t)pid, &here, 1, &there, 1, 0);
        if (moved < 0 && errno == EINTR)
            continue;
        if (moved <= 0)
            return moved < 0 && (errno == EPERM || errno == EACCES) ? GK_ERR_UNSUPPORTED
                                                                   : GK_ERR_SYSTEM;
        local = (char *)local + moved;
        addr += (uint64_t)moved;
        n -= (size_t)moved;
    }
    return GK_OK;
}

static int shm_read_private(struct gk__net_peer *peer, void *dst, uint64_t pid, uint64_t addr,
                            size_t n)
{
    (void)peer;
    return shm_private_move(pid, dst, addr, n, 0);
}

static int shm_write_private(struct gk__net_peer *peer, uint64_t pid, uint64_t addr,
                             const void *src, size_t n)
{
    (void)peer;
    return shm_private_move(pid, (void *)(uintptr_t)src, addr, n, 1);
}

const struct gk__net_transport gk__shm_transport = {
    .name = "shm",
    .put = shm_put,
    .put_nbi = shm_put,
    .get = shm_get,
    .get_nbi = shm_get,
    .atomic = shm_atomic,
    .wake = shm_wake,
    .am_send = shm_am_send,
    .read_private = shm_read_private,
    .write_private = shm_write_private,
    .flush = shm_flush,
    .fence = shm_fence,
    .quiet = shm_fence,
    .progress = NULL, /* everything is done on return */
};

/*
 * The indirect form (GK_NET_INDIRECT=1, for tests): the same copies and
 * CPU atomics on the same mapping, kept private, so the features take the
 * paths they take to a peer on another host. It has a progress function,
 * so the runtime treats it as a network transport too.
 */
static int shm_ind_progress(void)
{
    return 0;
}

const struct gk__net_transport gk__shm_indirect_transport = {
    .name = "shm-indirect",
    .put = shm_copy,
    .put_nbi = shm_copy,
    .get = shm_get,
    .get_nbi = shm_get,
    .atomic = shm_rmw,
    .wake = shm_wake,
    .am_send = shm_am_send,
    .flush = shm_flush,
    .fence = shm_fence,
    .quiet = shm_fence,
    .progress = shm_ind_progress,
};

/* Turns an attached peer into one reached only through the transport
 * table (GK_NET_INDIRECT). */
static void shm_peer_hide(struct gk__net_peer *peer)
{
    peer->direct = NULL;
    peer->caps = GK__NET_CAP_CPU_ATOMICS | GK__NET_CAP_DONE_ON_RETURN;
    peer->transport = &gk__shm_indirect_transport;
}

static const unsigned shm_caps =
    GK__NET_CAP_LOAD_STORE | GK__NET_CAP_CPU_ATOMICS | GK__NET_CAP_DONE_ON_RETURN;

/* This PE itself, on the runtime's own segment: each gk_init maps a new
 * one, whose inbox starts empty. */
static struct shm_peer shm_self;

static void shm_peer_self(struct gk__net_peer *peer, struct gk__seg *my_seg)
{
    shm_self = (struct shm_peer){.seg = *my_seg};
    peer->direct = my_seg->base;
    peer->caps = shm_caps;
    peer->transport = &gk__shm_transport;
    peer->priv = &shm_self;
}

/* The node's other PEs' state, one array (a job of many PEs on a node
 * keeps one allocation, not one per peer), filled in attach order. */
static struct shm_peer *shm_peers;
static int shm_peers_used;

/* Maps the segment of a PE on this node into the next free entry. */
static int shm_peer_attach(struct gk__net_peer *peer, const char *job_key, int pe,
                           size_t heap_size)
{
    struct shm_peer *sp = &shm_peers[shm_peers_used];
    *sp = (struct shm_peer){0};
    int status = gk__seg_attach(job_key, pe, heap_size, &sp->seg);
    if (status != GK_OK)
        return status;
    shm_peers_used++;
    peer->direct = sp->seg.base;
    peer->caps = shm_caps;
    peer->transport = &gk__shm_transport;
    peer->priv = sp;
    return GK_OK;
}

static void shm_peer_detach(struct gk__net_peer *peer)
{
    if (peer->transport != &gk__shm_transport && peer->transport != &gk__shm_indirect_transport)
        return;
    struct shm_peer *sp = peer->priv;
    if (sp != NULL)
        gk__seg_detach(&sp->seg);
    peer->direct = NULL;
    peer->caps = 0;
    peer->transport = NULL;
    peer->priv = NULL;
}

/*
 * Claims this PE and every PE of its node, mapping their segments, unless
 * GK_NET_FORCE_UCX leaves them to the network; GK_NET_INDIRECT hides the
 * mappings behind the transport table.
 */
static int shm_open(const struct gk__net_start *start)
{
    struct gk__boot *boot = start->boot;
    const struct gk__config *config = start->config;
    shm_peer_self(&start->peers[boot->rank], start->my_seg);
    free(shm_peers);
    shm_peers_used = 0;
    shm_peers = boot->node_size > 1 ? calloc((size_t)boot->node_size - 1, sizeof(*shm_peers))
                                    : NULL;
    if (boot->node_size > 1 && shm_peers == NULL)
        return GK_ERR_NOMEM;
    for (int pe = 0; pe < boot->size; pe++) {
        if (pe == boot->rank || boot->node_id[pe] != boot->node_id[boot->rank] ||
            config->net_force_ucx)
            continue;
        int status = shm_peer_attach(&start->peers[pe], boot->job_key, pe,
                                     start->my_seg->header->heap_size);
        if (status != GK_OK)
            return status;
        if (config->net_indirect)
            shm_peer_hide(&start->peers[pe]);
    }
    return GK_OK;
}

/* Every PE of the node has mapped our segment (or given up): the name has
 * served its purpose, and a crash from here on leaves nothing in /dev/shm. */
static void shm_opened(const struct gk__net_start *start, int status)
{
    (void)status;
    gk__seg_unlink(start->boot->job_key, start->boot->rank);
}

/* The mappings of the others; our own segment is the runtime's to undo. */
static void shm_release(struct gk__net_peer *peers, int n_pes)
{
    for (int pe = 0; peers != NULL && pe < n_pes; pe++)
        if (peers[pe].priv != &shm_self)
            shm_peer_detach(&peers[pe]);
    free(shm_peers);
    shm_peers = NULL;
    shm_peers_used = 0;
}

const struct gk__net_module gk__shm_module = {
    .name = "shm",
    .open = shm_open,
    .opened = shm_opened,
    .release = shm_release,
};

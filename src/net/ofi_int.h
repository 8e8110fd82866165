/*
 * ofi_int.h: the libfabric transport's own state, shared by its files:
 * ofi.c (start-up, shut-down and the operations), ofi_msg.c (what
 * arrives: gasket's active messages, wake-ups, remote operations and their
 * answers; the completion queue; waits; the progress thread) and
 * ofi_probe.c (finding what a peer's connection lost).
 */
#ifndef GK_NET_OFI_INT_H
#define GK_NET_OFI_INT_H

#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "boot/boot.h"
#include "net/net.h"
#include "net/remote.h"

/* The kinds of gasket's own messages (struct gk__ofi_wire.kind). */
enum gk__ofi_kind {
    GK__OFI_AM = 1,    /* an active message, its medium payload after it */
    GK__OFI_AM_LONG,   /* a long one with its payload (net.h, am_send_long) */
    GK__OFI_WAKE,      /* a wake-up: the range written */
    GK__OFI_ROP,       /* a remote operation, answered */
    GK__OFI_ROP_POST,  /* a remote operation posted */
    GK__OFI_ROP_REPLY, /* the answer of a GK__OFI_ROP */
    GK__OFI_ROP_ACK,   /* the acknowledgement of a posted one that quiet counts */
    GK__OFI_PING,      /* a probe: what did you receive from me? (ofi_probe.c) */
    GK__OFI_PONG,      /* its answer */
};

/* Every message starts with this. */
struct gk__ofi_wire {
    uint16_t kind;
    uint16_t flags; /* GK__OFI_ROP_POST: GK__OFI_ACKED asks for an acknowledgement */
    uint32_t src;   /* the sending PE */
};
#define GK__OFI_ACKED 1

struct gk__ofi_am_msg {
    struct gk__ofi_wire w;
    struct gk__net_am msg;
    uint64_t args[GK__NET_AM_MAX_ARGS]; /* msg.nargs of them, then the payload */
};

struct gk__ofi_wake_msg {
    struct gk__ofi_wire w;
    uint64_t lo, hi;
};

/* `token` names the caller's slot and its use (remote.c), sent back. */
struct gk__ofi_rop_msg {
    struct gk__ofi_wire w;
    uint32_t op;
    uint32_t answer_max; /* the most bytes of data the caller takes */
    uint64_t token;
    uint64_t args[GK__NET_ROP_ARGS]; /* then the payload */
};

struct gk__ofi_reply_msg {
    struct gk__ofi_wire w;
    int32_t status;
    uint32_t unused;
    uint64_t token;
    uint64_t result; /* then the answer's data */
};

/* GK__OFI_PING: `count`, the messages sent to the peer before it;
 * GK__OFI_PONG: `count`, the messages received from the pinging PE before
 * the ping. Probes themselves are not counted. */
struct gk__ofi_probe_msg {
    struct gk__ofi_wire w;
    uint64_t seq;
    uint64_t count;
};

struct gk__ofi_ack_msg {
    struct gk__ofi_wire w;
    int32_t status;
    uint32_t pe; /* the target, which ran the operation */
};

/* The most payload one message carries (a long active message's, a remote
 * operation's and its answer): under tcp;ofi_rxm's eager limit with the
 * header, so that every message arrives whole and in the order sent (a
 * rendezvous message would complete after later eager ones). */
#define GK__OFI_PAYLOAD_MAX ((size_t)8192)
/* A receive buffer: the largest header and that payload. */
#define GK__OFI_RECV_SIZE (sizeof(struct gk__ofi_am_msg) + GK__OFI_PAYLOAD_MAX)
#define GK__OFI_RECV_BUFS 64

/* What a completion's context is. Every context starts with this. */
enum gk__ofi_ctx_kind {
    GK__OFI_CTX_RECV, /* a receive buffer, posted again once handled */
    GK__OFI_CTX_SEND, /* a copied message or put source, freed when sent */
    GK__OFI_CTX_REQ,  /* a caller that waits for this one operation */
    GK__OFI_CTX_NBI,  /* a non-blocking put or get, counted for quiet */
};
struct gk__ofi_ctx {
    enum gk__ofi_ctx_kind kind;
    int pe; /* the peer, for an error's message; -1: none */
};

/* An operation waited for: `done` a futex word. */
struct gk__ofi_req {
    struct gk__ofi_ctx ctx;
    _Atomic uint32_t done;
    _Atomic uint32_t sleeping;
    int status;
};

/* A message (or a put's source) copied to live until its completion;
 * `rma`: a put, counted among the non-blocking ones. The live ones are
 * counted (sends_live), so that closing waits for their completions. */
struct gk__ofi_send {
    struct gk__ofi_ctx ctx;
    int rma;
    size_t len;
    _Alignas(8) char data[];
};

struct gk__ofi_recv {
    struct gk__ofi_ctx ctx;
    _Alignas(8) char data[GK__OFI_RECV_SIZE];
};


/* A message that progress could not send at once (the provider said
 * FI_EAGAIN), sent by a later progress in order. */
struct gk__ofi_deferred {
    struct gk__ofi_deferred *next;
    struct gk__ofi_send *send;
};

/* A peer reached through libfabric (gk__net_peer.priv). */
struct gk__ofi_peer {
    struct gk__ofi_ctx nbi; /* the context of its non-blocking puts and gets */
    fi_addr_t addr;
    uint64_t key;       /* its segment's memory key */
    uint64_t rma_base;  /* the address of its segment's offset 0 in RMA calls */
    int pe;

    /* What the probes compare (ofi_probe.c). Operations: puts, gets and
     * remote operations whose completion, answer or acknowledgement some
     * wait counts on, counted once posted and once ended. */
    _Atomic uint64_t ops_posted;
    _Atomic uint64_t ops_ended;
    _Atomic uint64_t msgs_sent; /* gasket's messages to it, once posted */
    uint64_t msgs_received;     /* and from it, once read (progress_lock) */
    /* The probes' own state, progress_lock: the last ping sent and what it
     * covers, and what the last two answered pings covered. */
    uint64_t ping_seq;
    uint64_t ping_msgs;
    uint64_t ping_ops;
    uint64_t msgs_confirmed;
    uint64_t ops_confirmed;      /* posted before the last answered ping */
    uint64_t ops_confirmed_prev; /* and before the one answered before it */
};

struct gk__ofi {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    int cq_fd;      /* the completion queue's wait descriptor */
    int stop_fd[2]; /* a pipe that ends the progress thread's poll */
    uint64_t write_flags; /* FI_DELIVERY_COMPLETE where the provider has it */
    /* The provider keeps a sender's sends after its writes (FI_ORDER_SAW):
     * a message needs no wait for the writes before it. */
    int send_after_write;
    int send_after_read; /* and after its reads (FI_ORDER_SAR) */
    size_t inject_max; /* messages of at most this many bytes go inline */

    struct gk__boot *boot;
    struct gk__net_peer *peers;
    struct gk__net_peer *self;
    struct gk__wake *my_wake;
    char *seg_base;
    uint64_t seg_size;
    char *heap;
    uint64_t heap_size;
    struct gk__ofi_peer *ofi_peers; /* one per PE */
    struct gk__ofi_recv *recvs;     /* GK__OFI_RECV_BUFS of them */
    int n_pes;
    int my_pe;
    int n_remote;
    int joined;
    uint64_t probe_ns;      /* GK_OFI_PROBE_MS; 0: no probes */
    uint64_t linger_ns;     /* GK_OFI_LINGER_US (ofi_msg.c) */
    uint64_t probe_next_ns; /* the next probe round (progress_lock) */
    _Atomic int closing;

    /* Non-blocking puts and gets (and copied puts) not complete yet, and
     * posted remote operations not acknowledged yet: quiet waits for both
     * to be 0. */
    _Atomic uint32_t rma_out;
    _Atomic uint32_t rma_sleepers;
    _Atomic uint32_t unacked;
    _Atomic uint32_t unacked_sleepers;
    _Atomic int fenced; /* a fence since the last quiet (ofi.c, "Ordering") */
    struct gk__remote_refusals refusals;
    struct gk__remote_inbox inbox; /* where arriving messages land */

    struct gk__remote_rop_table rops;
    struct gk__ofi_req rop_reqs[GK__REMOTE_ROP_SLOTS]; /* by slot */

    /* Held by the thread that reads the completion queue: messages are
     * handled one at a time, in the order they completed. */
    pthread_mutex_t progress_lock;
    struct gk__ofi_deferred *deferred_head, *deferred_tail; /* progress_lock */
    _Atomic uint32_t sends_live; /* copies not yet freed (gk__ofi_send_new) */
    pthread_t thread;
    _Atomic int thread_running;
    _Atomic int thread_stop;
};

extern struct gk__ofi gk__ofi;

/*
 * libfabric's exported functions, found at run time (ofi.c, "Loading"):
 * gasket does not link libfabric, so a job that does not choose it never
 * loads it (nor the libraries it pulls in, which install signal handlers
 * of their own). The rest of its API is inline calls through the objects'
 * tables.
 */
struct gk__ofi_lib {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    uint32_t (*version)(void);
};
extern struct gk__ofi_lib gk__ofi_lib;
#define gk__ofi_strerror(err) gk__ofi_lib.strerror(err)

/* GK_OK, or logs `what` with libfabric's reason and returns an error; a
 * peer that went away ends the job (gk__ofi_peer_failed). */
int gk__ofi_status(ssize_t rc, const char *what, int pe);
/* Reads the completion queue and handles what it gives; one thread at a
 * time (others return 0). Events handled. */
int gk__ofi_progress(void);
/* A retry after FI_EAGAIN: progress, and now and then a look whether the
 * job is still alive (GK_OK: try again). */
int gk__ofi_eagain(unsigned *tries);
void gk__ofi_req_init(struct gk__ofi_req *r, int pe);
void gk__ofi_req_done(struct gk__ofi_req *r, int status);
int gk__ofi_wait_done(struct gk__ofi_req *r);
int gk__ofi_wait_zero(_Atomic uint32_t *count, _Atomic uint32_t *sleepers);
void gk__ofi_count_down(_Atomic uint32_t *count, _Atomic uint32_t *sleepers);
/* Sends `len` bytes of message to pe, inline or from a copy; `payload` of
 * payload_len after the header. From progress (in_progress), a message
 * the provider cannot take now waits in order for a later progress. */
int gk__ofi_send(int pe, const void *header, size_t len, const void *payload,
                 size_t payload_len, int in_progress);
int gk__ofi_post_recvs(void);

/* The probes (ofi_probe.c). An operation posted to pe and one ended
 * (completed, answered, acknowledged, or failed once posted). */
static inline void gk__ofi_op_posted(int pe)
{
    atomic_fetch_add_explicit(&gk__ofi.ofi_peers[pe].ops_posted, 1, memory_order_relaxed);
}
static inline void gk__ofi_op_ended(int pe)
{
    atomic_fetch_add_explicit(&gk__ofi.ofi_peers[pe].ops_ended, 1, memory_order_relaxed);
}
/* Whether the probes count a write (or a read): where the provider keeps
 * a message after it, so that a probe's answer comes after its completion
 * (ofi_probe.c). */
static inline int gk__ofi_rma_probed(int write)
{
    return write ? gk__ofi.send_after_write : gk__ofi.send_after_read;
}
/* A message's kind, from its header. */
static inline unsigned gk__ofi_kind(const void *header)
{
    struct gk__ofi_wire w;
    memcpy(&w, header, sizeof(w));
    return w.kind;
}
/* Counts a message of `kind` the provider took (a probe is not counted). */
void gk__ofi_msg_posted(int pe, unsigned kind);
/* Counts an arriving message from `src`, before it is handled: 0 when it
 * is a probe, which it handles. progress_lock held. */
int gk__ofi_probe_arrived(const char *buf, size_t len, unsigned kind, uint32_t src);
/* The probes' bookkeeping, apart for its unit test. Due: the peer has
 * something unconfirmed, and the next ping's sequence number and what it
 * covers are noted (1), or not (0). Answered: a pong's verdict on what the
 * peer's connection lost, and how many (*n_lost). */
enum gk__ofi_probe_loss {
    GK__OFI_LOST_NOTHING,
    GK__OFI_LOST_MESSAGES,
    GK__OFI_LOST_OPERATIONS,
};
int gk__ofi_probe_due(struct gk__ofi_peer *p);
enum gk__ofi_probe_loss gk__ofi_probe_answered(struct gk__ofi_peer *p, uint64_t seq,
                                               uint64_t count, uint64_t *n_lost);
/* Sends the probes that are due (progress_lock held): the progress
 * thread's poll timeout in milliseconds until the next round, -1: none. */
int gk__ofi_probe_round(void);
void gk__ofi_deferred_free(void);
/* A copy of `len` bytes to pe, counted live; NULL when out of memory. */
struct gk__ofi_send *gk__ofi_send_new(int pe, int rma, size_t len);
/* Freed, no longer live. */
void gk__ofi_send_free(struct gk__ofi_send *s);
int gk__ofi_thread_start(void);
void gk__ofi_thread_stop(void);

#endif /* GK_NET_OFI_INT_H */

/*
 * ucx_int.h: the UCX transport's own state, shared by its files: ucx.c
 * (start-up, shut-down and the operations), ucx_am.c (arriving active
 * messages and wake-ups) and ucx_progress.c (waits for requests, progress,
 * the progress thread).
 */
#ifndef GK_NET_UCX_INT_H
#define GK_NET_UCX_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <ucp/api/ucp.h>

#include "boot/boot.h"
#include "net/net.h"
#include "net/remote.h"

/* UCP active-message ids: gasket's messages, wake-ups, and long messages
 * that carry their payload (net.h, am_send_long). */
#define GK__UCX_AM_MSG 1
#define GK__UCX_AM_WAKE 2
#define GK__UCX_AM_LONG 3
#define GK__UCX_AM_ROP 4       /* a remote operation (net.h) */
#define GK__UCX_AM_ROP_REPLY 5 /* and its reply */
#define GK__UCX_AM_PUT 6       /* a small put, where UCX would emulate it (ucx.c) */
#define GK__UCX_AM_PUT_ACK 7   /* and its acknowledgement */
#define GK__UCX_AM_ROP_POST 8  /* a remote operation posted (ucx.c) */
#define GK__UCX_AM_ROP_ACK 9   /* and its acknowledgement */

/* The largest long payload that travels in its message. Above it, the put
 * and the flush that orders it before the message cost less than the copy
 * into UCX's buffers and UCX's reassembly of a multi-fragment message. */
#define GK__UCX_AM_LONG_MAX ((size_t)64 * 1024)

/* A message's UCP header: the gasket message and its arguments (the
 * medium payload travels as the UCP message's data). */
struct gk__ucx_am_header {
    struct gk__net_am msg;
    uint64_t args[GK__NET_AM_MAX_ARGS];
};

/* A wake-up's UCP header: the target's segment range that was written. */
struct gk__ucx_wake_header {
    uint64_t lo, hi;
};

/* A remote operation's UCP header; its payload is the message's data.
 * `token` names the caller's slot (remote.c), sent back as is;
 * in a posted one (GK__UCX_AM_ROP_POST), GK__UCX_ROP_POST_ACKED asks for
 * an acknowledgement, 0 for none. `answer_max`: the most bytes of data
 * the caller takes in the reply (net.h, struct gk__net_rop_answer). */
#define GK__UCX_ROP_POST_ACKED 1
struct gk__ucx_rop_header {
    uint32_t op;
    uint32_t src; /* the caller's PE */
    uint64_t token;
    uint64_t answer_max;
    uint64_t args[GK__NET_ROP_ARGS];
};

/* A put's UCP header, sent as an active message; its bytes are the
 * message's data. */
struct gk__ucx_put_header {
    uint64_t offset; /* in the target's segment */
    uint32_t src;    /* the putting PE, which the acknowledgement goes to */
    uint32_t unused;
};

/* Its reply's. */
struct gk__ucx_rop_reply {
    uint64_t token;
    int64_t status;
    uint64_t result;
};

/* A posted remote operation's acknowledgement: the operation's status
 * at the target, which the sender's quiet reports if it is an error. */
struct gk__ucx_rop_ack {
    int32_t status;
    uint32_t pe; /* the target, which ran it */
};

/* A peer reached through UCX (gk__net_peer.priv). Its endpoint and remote
 * key are made on first use (gk__ucx_peer_ready), from its blob. */
struct gk__ucx_peer {
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    uint64_t remote_base; /* the peer's segment, in its address space */
    int pe;
    const char *blob;    /* its worker address and packed key, in gk__ucx.blobs */
    _Atomic int ready;   /* ep and rkey made (release); 0 before */
    /*
     * The epoch (ucx.c, "Ordering") of the last operation issued to this
     * peer that may not be complete yet; 0 when none is.
     */
    _Atomic uint64_t pending;
    /* The same for puts and remote operations posted for quiet: an atomic
     * completes them first. */
    _Atomic uint64_t puts_pending;
    /* The same for UCX's own puts, gets and posted atomics (not the
     * puts sent as active messages): they may take other lanes than the
     * messages, so a message that must follow them completes them first
     * (ucx.c, "Messages need less"). */
    _Atomic uint64_t rma_pending;
};

/* Our part of every UCX request (the context's request_size): its
 * completion, set by gk__ucx_req_done, which a waiter may sleep on. */
struct gk__ucx_req {
    _Atomic uint32_t done; /* a futex word */
    _Atomic uint32_t sleeping;
    ucs_status_t status;
};


struct gk__ucx {
    ucp_context_h context;
    ucp_worker_h worker;
    ucp_mem_h memh;
    int efd; /* the worker's event descriptor */
    struct gk__boot *boot;
    struct gk__net_peer *peers;
    struct gk__net_peer *self; /* peers[my_pe]: mapped, its inbox is ours */
    struct gk__wake *my_wake;  /* our segment's wake-up word */
    char *heap;                /* our heap, where long payloads land */
    uint64_t heap_size;
    struct gk__ucx_peer *ucx_peers; /* one per PE; blob NULL for those not ours */
    char *blobs;                    /* every PE's blob, kept for endpoints made later */
    pthread_mutex_t connect_lock;   /* making an endpoint */
    _Atomic int n_connected;        /* endpoints made */
    int n_pes;
    int my_pe;
    int n_remote; /* peers given to UCX */
    int joined;   /* every PE finished ucx_open: close is collective */
    _Atomic int closing; /* connection failures are expected now */

    /* Ordering (ucx.c): the epoch counter and the last epoch a quiet
     * completed. */
    _Atomic uint64_t epoch;
    _Atomic uint64_t completed_upto;
    /* The epoch of the last operation marked on any peer (ucx.c): quiet
     * has nothing to flush while a quiet completed it. */
    _Atomic uint64_t last_issued;

    /* Our segment, where puts sent as active messages land. */
    char *seg_base;
    uint64_t seg_size;
    /* Puts as active messages (ucx.c, "Small puts"): the most bytes one
     * carries (0: none go so). */
    size_t put_am_max;
    /* Those puts and the remote operations posted for quiet (ucx.c) not yet
     * acknowledged, which quiet and flushes wait to see at 0
     * (gk__ucx_wait_zero). */
    _Atomic uint32_t unacked;
    _Atomic uint32_t unacked_sleepers;
    /* Posted remote operations that their targets refused since the
     * last quiet. */
    struct gk__remote_refusals refusals;

    /* Our own inbox, where arriving messages land. */
    struct gk__remote_inbox inbox;

    /* Remote operations waiting for their replies, and which slots are
     * taken (a caller that gives up when the job ends keeps its own). */
    struct gk__remote_rop_table rops;
    struct gk__ucx_req rop_reqs[GK__REMOTE_ROP_SLOTS]; /* by slot */

    /* Held by the thread that drives the worker (ucx_progress.c). */
    pthread_mutex_t progress_lock;
    /* The progress thread. */
    pthread_t thread;
    _Atomic int thread_running; /* then it alone drives the worker */
    _Atomic int thread_stop;
    unsigned linger_us; /* GK_UCX_LINGER_US */
    /* The hand-over between the progress thread and the application
     * (ucx_progress.c, "Hand-over"). */
    unsigned handover_us;          /* GK_UCX_HANDOVER_US */
    unsigned handover_max_us;      /* GK_UCX_HANDOVER_MAX_US */
    unsigned park_us;              /* the next park's length (progress thread) */
    _Atomic int thread_mode;       /* enum gk__ucx_thread_mode */
    _Atomic uint32_t thread_bell;  /* futex a parked progress thread sleeps on */
    _Atomic uint64_t app_drives;   /* bumped by every drive of an application thread */
    _Atomic int app_req_sleepers;  /* application threads asleep on a request */
};

enum gk__ucx_thread_mode {
    GK__UCX_THREAD_BUSY,   /* driving, lingering, or about to decide */
    GK__UCX_THREAD_PARKED, /* the application drives: asleep on thread_bell */
    GK__UCX_THREAD_POLLS,  /* asleep on the worker's event descriptor */
};

extern struct gk__ucx gk__ucx;

/* GK_OK, or logs `what` with UCX's reason and returns an error; a peer
 * that went away ends the job (gk__ucx_peer_failed). */
int gk__ucx_status(ucs_status_t status, const char *what, int pe);
/* Ends the job: the connection to `pe` failed. */
void gk__ucx_peer_failed(int pe, ucs_status_t status) __attribute__((noreturn, cold));
/* Waits for a request UCX returned (NULL: done; an error pointer: failed)
 * and frees it. The operation's callback must be gk__ucx_req_done. */
int gk__ucx_wait(ucs_status_ptr_t request, const char *what, int pe);
/* Waits until r->done, as gk__ucx_wait does for a UCX request: GK_OK, or
 * the job's end (r is then left alone). */
int gk__ucx_wait_done(struct gk__ucx_req *r);
/* The same until *count is 0; whoever brings it to 0 calls
 * gk__ucx_zero_reached with the same `sleepers`. */
int gk__ucx_wait_zero(_Atomic uint32_t *count, _Atomic uint32_t *sleepers);
void gk__ucx_zero_reached(_Atomic uint32_t *count, _Atomic uint32_t *sleepers);
/* Sends `len` bytes of header as UCP active message id over ep, to pe,
 * without waiting: at once, or from a copy that goes once sent. Errors are
 * logged. */
void gk__ucx_send_copy(ucp_ep_h ep, int pe, unsigned id, const void *header, size_t len,
                       const void *data, size_t data_len,
                       const char *what);
/* Makes p's endpoint and remote key (the first use of the peer); a peer
 * that cannot be reached ends the job. */
void gk__ucx_connect(struct gk__ucx_peer *p);
static inline struct gk__ucx_peer *gk__ucx_peer_ready(struct gk__ucx_peer *p)
{
    if (__builtin_expect(!atomic_load_explicit(&p->ready, memory_order_acquire), 0))
        gk__ucx_connect(p);
    return p;
}
void gk__ucx_req_init(void *request);
void gk__ucx_req_done(void *request, ucs_status_t status, void *user_data);
/* Progress: the worker, then the held messages. Events handled. */
int gk__ucx_progress(void);
/* The UCP active-message handlers (ucx_am.c). */
int gk__ucx_am_register(void);
/* The progress thread (ucx_progress.c). */
int gk__ucx_thread_start(void);
void gk__ucx_thread_stop(void);
/* An application thread announced itself as a sleeper and is about to
 * sleep: a parked progress thread takes the worker back. */
void gk__ucx_before_sleep(void);

#endif /* GK_NET_UCX_INT_H */

/*
 * msg.c: two-sided tagged messages on the active-message engine.
 *
 * Protocols. A message of at most gk_msg_eager_limit() bytes travels in one
 * medium AM (EAGER: tag, data; the AM carries the length). A longer one is
 * a rendezvous: the sender announces it (RTS: tag, length, its request,
 * where its buffer is); once a receive matches, the data moves and the
 * receiver tells the sender (FIN), whose request then completes. How it
 * moves:
 *  - a buffer in the sender's symmetric heap: the receiver copies it
 *    straight from the mapped segment, or, from a sender not mapped here
 *    (another host), gets it with the transport's get into the receive
 *    buffer: no copy on the way and nothing asked of the sender;
 *  - from a sender not mapped here, a buffer outside its heap is reached
 *    by nothing but the sender itself: it comes in pieces (below);
 *  - otherwise, from a sender on this node (GK_RNDV): (auto) the
 *    receiver's pipeline (rndv_pipe.h) shares the chunks between both
 *    sides: the sender (GO) copies its chunks into shared memory, or,
 *    where that has been faster, writes them straight
 *    into the receive buffer with process_vm_writev ("direct mode"), while
 *    the receiver copies out or reads chunks itself with process_vm_readv
 *    ("cross-memory attach"), at once in direct mode and otherwise while
 *    the sender does not answer;
 *  - pipe, both: the pipeline, or direct mode, always (for measuring);
 *  - cma: the receiver reads it all with process_vm_readv;
 *  - pieces, or where cross-memory attach is not allowed (a seccomp
 *    profile, say): the receiver pulls the data in medium-sized pieces
 *    (PULL requests answered by CHUNK replies): slower, still correct.
 *    PIECES_IN_FLIGHT of them are asked for at once (one PULL), then one
 *    more as each arrives, so a round trip is paid once per window, not
 *    per piece. Every PULL is sent before the pieces it asks for can
 *    arrive, and later ones only from CHUNK's handler, so the pieces come
 *    in order (the sender answers PULLs in order) and the handlers that
 *    count them run one at a time.
 *
 * Matching. Arrivals are matched against the posted receives in the order
 * they were posted; an arrival that matches none joins the unexpected
 * queue, which a new receive searches first, oldest first. The inbox keeps
 * each sender's messages in order (net/shm_ring.h; a transport keeps them
 * so too, net.h), so MPI's non-overtaking rule holds. The queues are shared by the application thread and the
 * progress thread, under one mutex; handlers run under it too, so a
 * handler never sees a half-posted receive.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/log.h"
#include "base/wait.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "core/path.h"
#include "msg/rndv_pipe.h"

#define H_EAGER (GK__AM_INTERNAL + 0)
#define H_RTS (GK__AM_INTERNAL + 1)
#define H_FIN (GK__AM_INTERNAL + 2)
#define H_PULL (GK__AM_INTERNAL + 3)
#define H_CHUNK (GK__AM_INTERNAL + 4)
#define H_GO (GK__AM_INTERNAL + 5)
#define H_SELF (GK__AM_INTERNAL + 6)

#define REQUEST_MAGIC 0x6d736771u /* "msgq" */

enum request_kind { REQ_SEND, REQ_RECV };

struct gk_request {
    uint32_t magic;
    enum request_kind kind;
    _Atomic int done;
    int source, tag; /* what a receive matches (may be wildcards) */
    void *buf;
    size_t capacity;
    size_t received;  /* rendezvous by pieces: bytes so far */
    size_t requested; /* ... asked for */
    size_t expect;    /* ... and in all */
    uint64_t sender_request;
    int heap_allocated; /* freed by wait/test (isend/irecv) */
    gk_msg_status_t status;
    struct gk_request *next; /* in the posted queue */
};

/* A message that arrived before its receive. */
struct unexpected {
    int source, tag;
    size_t nbytes;
    int is_rts;
    uint64_t sender_request, sender_addr, sender_pid, in_heap;
    void *data; /* eager: a copy of the payload */
    struct unexpected *next;
};

static pthread_mutex_t msg_lock_mutex = PTHREAD_MUTEX_INITIALIZER;

/* The queues need the mutex only when several threads may touch them. */
static void msg_lock(void)
{
    if (gk__rt.threaded)
        pthread_mutex_lock(&msg_lock_mutex);
}

static void msg_unlock(void)
{
    if (gk__rt.threaded)
        pthread_mutex_unlock(&msg_lock_mutex);
}
static struct gk_request *posted_head, *posted_tail;
static struct unexpected *unexpected_head, *unexpected_tail;

/*
 * Field by field, not a compound literal: this is on every message's path,
 * and zeroing the whole struct compiles to a string store (rep stos) whose
 * start-up cost was a tenth of a self-send's time.
 */
static void request_init(struct gk_request *req, enum request_kind kind, int source, int tag,
                         void *buf, size_t capacity)
{
    req->magic = REQUEST_MAGIC;
    req->kind = kind;
    atomic_store_explicit(&req->done, 0, memory_order_relaxed);
    req->source = source;
    req->tag = tag;
    req->buf = buf;
    req->capacity = capacity;
    req->received = 0;
    req->requested = 0;
    req->expect = 0;
    req->sender_request = 0;
    req->heap_allocated = 0;
    req->status = (gk_msg_status_t){0, 0, 0, GK_OK};
    req->next = NULL;
}

/*
 * A request whose address goes to another PE and comes back in a message
 * (RTS then GO or FIN; PULL then CHUNK) may be used by another thread of
 * ours: the progress thread. The other process and the inbox order our
 * writes before its use, but ThreadSanitizer cannot see that path, so the
 * request is also published here (a release on `done`, still 0) and the
 * handlers read it with an acquire first (request_named). Free on x86.
 */
static void request_publish(struct gk_request *req)
{
    atomic_store_explicit(&req->done, 0, memory_order_release);
}

/* The request a peer's message names, if it is a live one of this kind. */
static struct gk_request *request_named(uint64_t id, enum request_kind kind)
{
    struct gk_request *req = (struct gk_request *)(uintptr_t)id;
    if (req == NULL)
        return NULL;
    (void)atomic_load_explicit(&req->done, memory_order_acquire);
    return req->magic == REQUEST_MAGIC && req->kind == kind ? req : NULL;
}

static int matches(int want_source, int want_tag, int source, int tag)
{
    return (want_source == GK_ANY_SOURCE || want_source == source) &&
           (want_tag == GK_ANY_TAG || want_tag == tag);
}

static void request_complete(struct gk_request *req)
{
    atomic_store_explicit(&req->done, 1, memory_order_release);
}

static size_t copy_size(const struct gk_request *req, size_t nbytes)
{
    return nbytes < req->capacity ? nbytes : req->capacity;
}

static void status_set(struct gk_request *req, int source, int tag, size_t nbytes)
{
    req->status.source = source;
    req->status.tag = tag;
    req->status.nbytes = nbytes;
    req->status.error = nbytes > req->capacity ? GK_ERR_TRUNCATE : GK_OK;
}

/* ------------------------------------------------------------------------ */
/* Rendezvous: the receiver copies from the sender                          */
/* ------------------------------------------------------------------------ */

static int send_short(int pe, int handler, const uint64_t *args, int nargs)
{
    struct gk__net_am msg = {.word = gk__net_am_word(0, (unsigned)handler, (unsigned)nargs,
                                                         GK__AM_SHORT)};
    return gk__am_send(pe, &msg, args, NULL);
}

/* rendezvous_copy's answer where no copy was tried: pieces are the way. */
#define RNDV_BY_PIECES (-2)

/*
 * Copies n bytes of the sender's buffer into ours: GK_OK, the errno of a
 * cross-memory attach that is not allowed here, or RNDV_BY_PIECES (the
 * buffer is not reachable from here, or a get failed; logged).
 */
static int rendezvous_copy(int source, void *dst, uint64_t addr, uint64_t pid,
                           uint64_t in_heap, size_t n)
{
    if (n == 0)
        return GK_OK;
    if (in_heap) {
        if (addr > gk__rt.heap_span || n > gk__rt.heap_span - addr) {
            gk__error("two-sided rendezvous: PE %d announced %zu bytes at heap offset 0x%llx, "
                      "outside its heap of %zu bytes; asking for them in pieces",
                      source, n, (unsigned long long)addr, gk__rt.heap_span);
            return RNDV_BY_PIECES;
        }
        int status = gk__path_get_at("two-sided rendezvous", source, dst,
                                     GK__SEG_HEAP_OFFSET + addr, n, GK__PATH_DST_NOW);
        if (status == GK_OK)
            return GK_OK;
        gk__error("two-sided rendezvous: getting %zu bytes from PE %d's heap failed (%s); "
                  "asking for them in pieces",
                  n, source, gk_strerror(status));
        return RNDV_BY_PIECES;
    }
    /* Its pid is another host's, or this one's, but nothing says which. */
    if (!gk__path_mapped(source))
        return RNDV_BY_PIECES;
    if ((pid_t)pid == getpid()) {
        memcpy(dst, (const void *)(uintptr_t)addr, n);
        return GK_OK;
    }
    if (gk__rt.config.rndv == GK__RNDV_PIECES)
        return EPERM; /* as if cross-memory attach were refused: pieces */
    return gk__cma_read(source, (pid_t)pid, dst, addr, n);
}

static int send_go(int source, const uint64_t *args)
{
    return send_short(source, H_GO, args, 1 + GK__PIPE_GO_ARGS);
}

#define PIECES_IN_FLIGHT 8

/* Asks the sender for up to `pieces` more pieces (top comment). */
static void pull_more(struct gk_request *req, size_t pieces)
{
    size_t want = req->expect - req->requested;
    if (want > pieces * GK__NET_AM_MAX_PAYLOAD)
        want = pieces * GK__NET_AM_MAX_PAYLOAD;
    if (want == 0)
        return;
    uint64_t args[4] = {req->sender_request, (uint64_t)(uintptr_t)req, req->requested, want};
    req->requested += want;
    request_publish(req);
    if (send_short(req->status.source, H_PULL, args, 4) != GK_OK)
        gk__error("two-sided rendezvous: asking PE %d for data failed", req->status.source);
}

/*
 * A receive met its rendezvous message: copy (or start pulling), then tell
 * the sender. The request is in no queue (it needs no lock of its own);
 * called from the RTS handler with msg_lock held, or from recv_start
 * without.
 */
static void rendezvous_receive(struct gk_request *req, int source, int tag, size_t nbytes,
                               uint64_t sender_request, uint64_t addr, uint64_t pid,
                               uint64_t in_heap)
{
    status_set(req, source, tag, nbytes);
    size_t n = copy_size(req, nbytes);
    size_t missing_lo = 0, missing_hi = n;
    int err = GK__PIPE_NOT_TAKEN;
    int piped = gk__rt.config.rndv == GK__RNDV_AUTO || gk__rt.config.rndv == GK__RNDV_PIPE ||
                gk__rt.config.rndv == GK__RNDV_BOTH;
    if (piped && !in_heap && gk__path_mapped(source) && (pid_t)pid != getpid()) {
        struct gk__pipe_msg m = {source, req->buf, n, addr, (pid_t)pid, sender_request};
        err = gk__pipe_receive(&m, send_go, &missing_lo, &missing_hi);
    }
    if (err == GK__PIPE_NOT_TAKEN)
        err = rendezvous_copy(source, req->buf, addr, pid, in_heap, n);
    if (err == GK_OK) {
        uint64_t args[1] = {sender_request};
        if (send_short(source, H_FIN, args, 1) != GK_OK)
            gk__error("two-sided rendezvous: telling PE %d its send is done failed", source);
        request_complete(req);
        return;
    }
    static _Atomic int warned;
    if (err > 0 && atomic_fetch_add_explicit(&warned, 1, memory_order_relaxed) == 0 &&
        gk__rt.config.rndv != GK__RNDV_PIECES)
        gk__info("process_vm_readv from PE %d failed (%s): large messages go in pieces",
                 source, strerror(err));
    req->sender_request = sender_request;
    req->received = req->requested = missing_lo;
    req->expect = missing_hi;
    if (missing_lo == missing_hi) {
        uint64_t args[1] = {sender_request};
        send_short(source, H_FIN, args, 1);
        request_complete(req);
        return;
    }
    pull_more(req, PIECES_IN_FLIGHT);
}

/* ------------------------------------------------------------------------ */
/* Handlers (run by the progress engine)                                    */
/* ------------------------------------------------------------------------ */

static struct gk_request *posted_take(int source, int tag)
{
    struct gk_request *prev = NULL;
    for (struct gk_request *r = posted_head; r != NULL; prev = r, r = r->next) {
        if (!matches(r->source, r->tag, source, tag))
            continue;
        if (prev == NULL)
            posted_head = r->next;
        else
            prev->next = r->next;
        if (posted_tail == r)
            posted_tail = prev;
        r->next = NULL;
        return r;
    }
    return NULL;
}

static void unexpected_add(struct unexpected *u)
{
    u->next = NULL;
    if (unexpected_tail == NULL)
        unexpected_head = u;
    else
        unexpected_tail->next = u;
    unexpected_tail = u;
}

static void h_eager(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                    int nargs)
{
    int source = gk_am_token_pe(token), tag = (int)args[0];
    msg_lock();
    struct gk_request *req = posted_take(source, tag);
    if (req != NULL) {
        status_set(req, source, tag, nbytes);
        gk__copy_small(req->buf, payload, copy_size(req, nbytes));
        request_complete(req);
    } else {
        struct unexpected *u = calloc(1, sizeof(*u));
        void *copy = malloc(nbytes > 0 ? nbytes : 1);
        if (u == NULL || copy == NULL) {
            gk__error("two-sided: out of memory keeping an unexpected message of %zu bytes "
                      "from PE %d; it is lost",
                      nbytes, source);
            free(u);
            free(copy);
        } else {
            memcpy(copy, payload, nbytes);
            *u = (struct unexpected){.source = source, .tag = tag, .nbytes = nbytes,
                                     .data = copy};
            unexpected_add(u);
        }
    }
    msg_unlock();
    (void)nargs;
}

/*
 * A message to this PE above the eager limit, which the sender copied
 * (send_start): nobody else could complete a rendezvous with ourselves
 * while our only thread waits in gk_send. The copy is handed over, not
 * copied again, when it waits unexpected.
 */
static void h_self(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    int source = gk_am_token_pe(token), tag = (int)args[0];
    size_t length = (size_t)args[1];
    void *copy = (void *)(uintptr_t)args[2];
    msg_lock();
    struct gk_request *req = posted_take(source, tag);
    struct unexpected *u = NULL;
    if (req != NULL) {
        status_set(req, source, tag, length);
        memcpy(req->buf, copy, copy_size(req, length));
        request_complete(req);
        free(copy);
    } else if ((u = calloc(1, sizeof(*u))) == NULL) {
        gk__error("two-sided: out of memory keeping an unexpected message of %zu bytes "
                  "from PE %d; it is lost",
                  length, source);
        free(copy);
    } else {
        *u = (struct unexpected){.source = source, .tag = tag, .nbytes = length, .data = copy};
        unexpected_add(u);
    }
    msg_unlock();
    (void)payload, (void)nbytes, (void)nargs;
}

static void h_rts(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    int source = gk_am_token_pe(token), tag = (int)args[0];
    msg_lock();
    struct gk_request *req = posted_take(source, tag);
    if (req != NULL) {
        rendezvous_receive(req, source, tag, (size_t)args[1], args[2], args[3], args[4],
                           args[5]);
    } else {
        struct unexpected *u = calloc(1, sizeof(*u));
        if (u == NULL) {
            gk__error("two-sided: out of memory keeping a rendezvous from PE %d", source);
        } else {
            *u = (struct unexpected){.source = source, .tag = tag, .nbytes = (size_t)args[1],
                                     .is_rts = 1, .sender_request = args[2],
                                     .sender_addr = args[3], .sender_pid = args[4],
                                     .in_heap = args[5]};
            unexpected_add(u);
        }
    }
    msg_unlock();
    (void)payload, (void)nbytes, (void)nargs;
}

static struct gk_request *sender_request(uint64_t id)
{
    struct gk_request *req = request_named(id, REQ_SEND);
    if (req == NULL) {
        gk__error("two-sided: a message names send request 0x%llx, which is not one",
                  (unsigned long long)id);
        return NULL;
    }
    return req;
}

static void h_fin(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    struct gk_request *req = sender_request(args[0]);
    if (req != NULL)
        request_complete(req);
    (void)token, (void)payload, (void)nbytes, (void)nargs;
}

/* The receiver asks the sender to copy its message into the pipeline. */
static void h_go(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                 int nargs)
{
    struct gk_request *req = sender_request(args[0]);
    if (req != NULL && nargs == 1 + GK__PIPE_GO_ARGS)
        gk__pipe_serve(gk_am_token_pe(token), req->buf, req->capacity, args + 1);
    (void)payload, (void)nbytes;
}

static int send_medium(int pe, int handler, const void *payload, size_t nbytes,
                       const uint64_t *args, int nargs)
{
    struct gk__net_am msg = {.word = gk__net_am_word(0, (unsigned)handler, (unsigned)nargs,
                                                         GK__AM_MEDIUM),
                               .nbytes = nbytes};
    return gk__am_send(pe, &msg, args, payload);
}

/* The sender answers a request for pieces from its buffer, in order. */
static void h_pull(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    struct gk_request *req = sender_request(args[0]);
    size_t offset = (size_t)args[2], want = (size_t)args[3];
    if (req == NULL || offset > req->capacity || want > req->capacity - offset ||
        want > PIECES_IN_FLIGHT * GK__NET_AM_MAX_PAYLOAD) {
        gk__error("two-sided: a piece request for [%zu, +%zu) does not fit its send", offset,
                  want);
        return;
    }
    for (size_t end = offset + want; offset < end; offset += GK__NET_AM_MAX_PAYLOAD) {
        size_t n = end - offset < GK__NET_AM_MAX_PAYLOAD ? end - offset : GK__NET_AM_MAX_PAYLOAD;
        uint64_t reply[2] = {args[1], offset};
        if (send_medium(gk_am_token_pe(token), H_CHUNK, (const char *)req->buf + offset, n,
                        reply, 2) != GK_OK) {
            gk__error("two-sided: sending a piece to PE %d failed", gk_am_token_pe(token));
            break;
        }
    }
    (void)payload, (void)nbytes, (void)nargs;
}

/* The receiver stores a piece and asks for the next, or finishes. */
static void h_chunk(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                    int nargs)
{
    struct gk_request *req = request_named(args[0], REQ_RECV);
    size_t offset = (size_t)args[1];
    if (req == NULL || offset != req->received || nbytes > req->expect - req->received) {
        gk__error("two-sided: a piece from PE %d does not belong to a receive in progress",
                  gk_am_token_pe(token));
        return;
    }
    memcpy((char *)req->buf + offset, payload, nbytes);
    req->received += nbytes;
    if (req->received < req->expect) {
        pull_more(req, 1);
        return;
    }
    uint64_t fin[1] = {req->sender_request};
    if (send_short(req->status.source, H_FIN, fin, 1) != GK_OK)
        gk__error("two-sided rendezvous: telling PE %d its send is done failed",
                  req->status.source);
    request_complete(req);
    (void)nargs;
}

/* gk__rt_finalize_unreceived: what arrived here and was never received. */
static uint64_t msg_finalize_unreceived(uint64_t *lost_from)
{
    enum { NAMED = 8 }; /* then a count, not a line each */
    uint64_t lost = 0;
    msg_lock();
    struct unexpected *u = unexpected_head;
    unexpected_head = unexpected_tail = NULL;
    msg_unlock();
    while (u != NULL) {
        struct unexpected *next = u->next;
        if (lost < NAMED)
            gk__warn("gk_finalize: a message from PE %d (tag %d, %zu bytes%s) was never "
                     "received",
                     u->source, u->tag, u->nbytes, u->is_rts ? ", its send still waiting" : "");
        lost_from[u->source]++;
        lost++;
        free(u->data);
        free(u);
        u = next;
    }
    if (lost > NAMED)
        gk__warn("gk_finalize: %llu more messages to this PE were never received",
                 (unsigned long long)(lost - NAMED));
    return lost;
}

__attribute__((constructor)) static void msg_register_handlers(void)
{
    gk__am_set_handler(H_EAGER, h_eager);
    gk__am_set_handler(H_RTS, h_rts);
    gk__am_set_handler(H_FIN, h_fin);
    gk__am_set_handler(H_PULL, h_pull);
    gk__am_set_handler(H_CHUNK, h_chunk);
    gk__am_set_handler(H_GO, h_go);
    gk__am_set_handler(H_SELF, h_self);
    gk__rt_finalize_unreceived = msg_finalize_unreceived;
}

/* ------------------------------------------------------------------------ */
/* The public calls                                                         */
/* ------------------------------------------------------------------------ */

size_t gk_msg_eager_limit(void)
{
    return GK__NET_AM_MAX_PAYLOAD;
}

static int check_peer(const char *op, int pe, int any_ok)
{
    if (GK__UNLIKELY(!gk__rt.initialized))
        return gk__rt_report_pe(op, 0);
    if (any_ok && pe == GK_ANY_SOURCE)
        return GK_OK;
    if ((unsigned)pe >= (unsigned)gk__rt.n_pes)
        return gk__rt_report_pe(op, pe);
    return GK_OK;
}

static int check_tag(const char *op, int tag, int any_ok)
{
    if (tag >= 0 || (any_ok && tag == GK_ANY_TAG))
        return GK_OK;
    gk__error("%s: tag %d is negative%s", op, tag, any_ok ? " (and not GK_ANY_TAG)" : "");
    return GK_ERR_INVALID_ARG;
}

/* Starts a send; req (caller's) completes at once (eager) or on FIN. */
static int send_start(const char *op, int pe, int tag, const void *buf, size_t nbytes,
                      struct gk_request *req)
{
    int status = check_peer(op, pe, 0);
    if (status == GK_OK)
        status = check_tag(op, tag, 0);
    if (status == GK_OK)
        status = gk__rt_check_local(op, "buf", buf, nbytes);
    if (status != GK_OK)
        return status;
    request_init(req, REQ_SEND, GK_ANY_SOURCE, tag, (void *)(uintptr_t)buf, nbytes);
    req->status = (gk_msg_status_t){gk__rt.my_pe, tag, nbytes, GK_OK};
    gk__path_flush_wakes();
    if (nbytes <= GK__NET_AM_MAX_PAYLOAD) {
        /* One argument: the slot's first line then holds the header, the
         * tag and 16 bytes of data (a second argument, the length the AM
         * already carries, cost 9- to 16-byte messages a second line). */
        uint64_t args[1] = {(uint64_t)tag};
        status = send_medium(pe, H_EAGER, buf, nbytes, args, 1);
        if (status == GK_OK)
            request_complete(req);
        return status;
    }
    if (pe == gk__rt.my_pe) {
        void *copy = malloc(nbytes);
        if (copy == NULL) {
            gk__error("%s: out of memory for a copy of a %zu-byte message to this PE", op,
                      nbytes);
            return GK_ERR_NOMEM;
        }
        memcpy(copy, buf, nbytes);
        uint64_t args[3] = {(uint64_t)tag, nbytes, (uint64_t)(uintptr_t)copy};
        status = send_short(pe, H_SELF, args, 3);
        if (status == GK_OK)
            request_complete(req);
        else
            free(copy);
        return status;
    }
    size_t offset = (size_t)((uintptr_t)buf - (uintptr_t)gk__rt.heap);
    int in_heap = offset < gk__rt.heap_span && nbytes <= gk__rt.heap_span - offset;
    uint64_t args[6] = {(uint64_t)tag,
                        nbytes,
                        (uint64_t)(uintptr_t)req,
                        in_heap ? offset : (uint64_t)(uintptr_t)buf,
                        (uint64_t)getpid(),
                        (uint64_t)in_heap};
    request_publish(req);
    return send_short(pe, H_RTS, args, 6);
}

/* Posts a receive (req is the caller's); it may complete at once. */
static int recv_start(const char *op, int source, int tag, void *buf, size_t capacity,
                      struct gk_request *req)
{
    int status = check_peer(op, source, 1);
    if (status == GK_OK)
        status = check_tag(op, tag, 1);
    if (status == GK_OK)
        status = gk__rt_check_local(op, "buf", buf, capacity);
    if (status != GK_OK)
        return status;
    request_init(req, REQ_RECV, source, tag, buf, capacity);
    gk__path_flush_wakes();
    gk__progress(); /* what has arrived is matched first, in order */
    msg_lock();
    struct unexpected *prev = NULL, *u;
    for (u = unexpected_head; u != NULL; prev = u, u = u->next)
        if (matches(source, tag, u->source, u->tag))
            break;
    if (u != NULL) {
        if (prev == NULL)
            unexpected_head = u->next;
        else
            prev->next = u->next;
        if (unexpected_tail == u)
            unexpected_tail = prev;
    } else {
        req->next = NULL;
        if (posted_tail == NULL)
            posted_head = req;
        else
            posted_tail->next = req;
        posted_tail = req;
    }
    msg_unlock();
    if (u != NULL) {
        /* Outside the lock: the request is in no queue now, and what the
         * rendezvous sends (GO, FIN) may wait for room in a full inbox while
         * running this thread's own, whose handlers take the lock. */
        if (u->is_rts) {
            rendezvous_receive(req, u->source, u->tag, u->nbytes, u->sender_request,
                               u->sender_addr, u->sender_pid, u->in_heap);
        } else {
            status_set(req, u->source, u->tag, u->nbytes);
            memcpy(buf, u->data, copy_size(req, u->nbytes));
            request_complete(req);
        }
        free(u->data);
        free(u);
    }
    return GK_OK;
}

static int request_done(const void *arg)
{
    const struct gk_request *req = arg;
    return atomic_load_explicit(&req->done, memory_order_acquire);
}

/* A receive is finished by the progress engine: run it on every poll. */
static int request_done_progress(const void *arg)
{
    if (request_done(arg))
        return 1;
    gk__progress();
    return request_done(arg);
}

/* Waits, running the progress engine. Every AM wakes a sleeper, so the
 * word watched is the inbox's. */
static int request_block(const char *op, struct gk_request *req)
{
    /* A handler cannot wait: the progress that would finish the request
     * is the one it runs in (gk_send and gk_recv refuse before they start
     * what they could not finish). */
    if (GK__UNLIKELY(gk__in_handler) && !request_done(req))
        return gk__progress_report_in_handler(op);
    /* The spin phase here, with one inbox poll per round and the check
     * right after it: a ping-pong's receive usually ends in it. */
    for (unsigned i = 0; i < gk__wait_policy.spin_count; i++) {
        if (request_done_progress(req))
            return GK_OK;
        gk__cpu_relax();
    }
    return gk__path_wait_own_spun(GK__SEG_INBOX_OFFSET, request_done_progress, req, 0, 1);
}

static int request_finish(struct gk_request *req, gk_msg_status_t *status_p)
{
    int error = req->kind == REQ_RECV ? req->status.error : GK_OK;
    if (status_p != NULL)
        *status_p = req->status;
    req->magic = 0;
    return error;
}

int gk_send(int pe, int tag, const void *buf, size_t nbytes)
{
    /* From a handler only what completes at once: an eager message, or
     * one to this PE (copied); a rendezvous would wait for its receiver. */
    if (GK__UNLIKELY(gk__in_handler) && nbytes > GK__NET_AM_MAX_PAYLOAD && pe != gk__rt.my_pe)
        return gk__progress_report_in_handler("gk_send");
    struct gk_request req;
    int status = send_start("gk_send", pe, tag, buf, nbytes, &req);
    if (status == GK_OK)
        status = request_block("gk_send", &req);
    if (status == GK_OK)
        status = request_finish(&req, NULL);
    return status;
}

int gk_recv(int source, int tag, void *buf, size_t capacity, gk_msg_status_t *status_p)
{
    if (GK__UNLIKELY(gk__in_handler)) /* before the receive is posted */
        return gk__progress_report_in_handler("gk_recv");
    struct gk_request req;
    int status = recv_start("gk_recv", source, tag, buf, capacity, &req);
    if (status == GK_OK)
        status = request_block("gk_recv", &req);
    if (status == GK_OK)
        status = request_finish(&req, status_p);
    return status;
}

static int request_new(const char *op, gk_request_t **request_p, struct gk_request **req_p)
{
    if (request_p == NULL) {
        gk__error("%s: request_p is NULL", op);
        return GK_ERR_INVALID_ARG;
    }
    *req_p = malloc(sizeof(**req_p));
    if (*req_p == NULL) {
        gk__error("%s: out of memory for a request", op);
        return GK_ERR_NOMEM;
    }
    return GK_OK;
}

int gk_isend(int pe, int tag, const void *buf, size_t nbytes, gk_request_t **request_p)
{
    struct gk_request *req = NULL;
    int status = request_new("gk_isend", request_p, &req);
    if (status != GK_OK)
        return status;
    status = send_start("gk_isend", pe, tag, buf, nbytes, req);
    if (status != GK_OK) {
        free(req);
        return status;
    }
    req->heap_allocated = 1;
    *request_p = req;
    return GK_OK;
}

int gk_irecv(int source, int tag, void *buf, size_t capacity, gk_request_t **request_p)
{
    struct gk_request *req = NULL;
    int status = request_new("gk_irecv", request_p, &req);
    if (status != GK_OK)
        return status;
    status = recv_start("gk_irecv", source, tag, buf, capacity, req);
    if (status != GK_OK) {
        free(req);
        return status;
    }
    req->heap_allocated = 1;
    *request_p = req;
    return GK_OK;
}

static int request_check(const char *op, gk_request_t **request)
{
    if (request == NULL || *request == NULL || (*request)->magic != REQUEST_MAGIC ||
        !(*request)->heap_allocated) {
        gk__error("%s: %p does not hold a live request", op, (void *)request);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

int gk_request_wait(gk_request_t **request, gk_msg_status_t *status_p)
{
    int status = request_check("gk_request_wait", request);
    if (status != GK_OK)
        return status;
    struct gk_request *req = *request;
    status = request_block("gk_request_wait", req);
    if (status != GK_OK)
        return status; /* the job is ending, or called from a handler */
    status = request_finish(req, status_p);
    free(req);
    *request = NULL;
    return status;
}

int gk_request_test(gk_request_t **request, int *done_p, gk_msg_status_t *status_p)
{
    int status = request_check("gk_request_test", request);
    if (status == GK_OK && done_p == NULL) {
        gk__error("gk_request_test: done_p is NULL");
        status = GK_ERR_INVALID_ARG;
    }
    if (status != GK_OK)
        return status;
    gk__path_flush_wakes();
    gk__progress();
    struct gk_request *req = *request;
    *done_p = request_done(req);
    if (!*done_p)
        return GK_OK;
    status = request_finish(req, status_p);
    free(req);
    *request = NULL;
    return status;
}

int gk_request_wait_all(gk_request_t **requests, size_t count, gk_msg_status_t *statuses)
{
    if (count > 0 && requests == NULL) {
        gk__error("gk_request_wait_all: requests is NULL for %zu requests", count);
        return GK_ERR_INVALID_ARG;
    }
    int first = GK_OK;
    for (size_t i = 0; i < count; i++) {
        if (requests[i] == NULL)
            continue; /* completed already */
        int status = gk_request_wait(&requests[i], statuses != NULL ? &statuses[i] : NULL);
        if (status != GK_OK && first == GK_OK)
            first = status;
    }
    return first;
}

/* Looks for a matching arrival without taking it. */
static int probe_once(int source, int tag, gk_msg_status_t *status_p)
{
    int found = 0;
    msg_lock();
    for (struct unexpected *u = unexpected_head; u != NULL; u = u->next) {
        if (matches(source, tag, u->source, u->tag)) {
            if (status_p != NULL)
                *status_p = (gk_msg_status_t){u->source, u->tag, u->nbytes, GK_OK};
            found = 1;
            break;
        }
    }
    msg_unlock();
    return found;
}

struct probe_arg {
    int source, tag;
    gk_msg_status_t *status_p;
};

static int probe_found(const void *arg)
{
    const struct probe_arg *p = arg;
    gk__progress();
    return probe_once(p->source, p->tag, p->status_p);
}

int gk_iprobe(int source, int tag, int *found_p, gk_msg_status_t *status_p)
{
    int status = check_peer("gk_iprobe", source, 1);
    if (status == GK_OK)
        status = check_tag("gk_iprobe", tag, 1);
    if (status == GK_OK && found_p == NULL) {
        gk__error("gk_iprobe: found_p is NULL");
        status = GK_ERR_INVALID_ARG;
    }
    if (status != GK_OK)
        return status;
    gk__path_flush_wakes();
    gk__progress();
    *found_p = probe_once(source, tag, status_p);
    return GK_OK;
}

int gk_probe(int source, int tag, gk_msg_status_t *status_p)
{
    int status = check_peer("gk_probe", source, 1);
    if (status == GK_OK)
        status = check_tag("gk_probe", tag, 1);
    if (status != GK_OK)
        return status;
    gk__path_flush_wakes();
    gk__progress();
    struct probe_arg p = {source, tag, status_p};
    if (probe_found(&p))
        return GK_OK;
    if (GK__UNLIKELY(gk__in_handler))
        return gk__progress_report_in_handler("gk_probe");
    return gk__path_wait_own(GK__SEG_INBOX_OFFSET, probe_found, &p);
}

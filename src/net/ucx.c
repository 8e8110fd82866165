/*
 * ucx.c: the UCX transport's start-up, shut-down and operations (ucx.h).
 *
 * Start-up. Each PE creates a UCP context (atomic mode "cpu") and one
 * worker that any thread may drive, registers its whole segment and packs
 * its remote key. Three exchanges over the bootstrap follow, and every PE
 * takes part in all three whatever happened to it, so a failure anywhere
 * fails ucx_open everywhere instead of leaving PEs waiting: the sizes
 * of each PE's blob (0: I failed), the blobs (worker address, remote key,
 * segment base), and, after each PE has checked them, the verdicts.
 *
 * Endpoints. A PE keeps every peer's blob and makes the endpoint and
 * remote key of a peer when it first sends it something (gk__ucx_connect):
 * a PE that talks to 4 neighbours of 1024 PEs holds 4 endpoints. A request
 * that wants an answer (a remote operation, a small put) asks UCX for the
 * endpoint to answer on (UCP_AM_SEND_FLAG_REPLY), so its target makes none
 * of its own for answers or acknowledgements.
 *
 * Ordering. UCX 1.13's ucp_worker_fence orders operations only within
 * each of UCX's transports, and one endpoint may send its puts, atomics
 * and active messages over different ones (a bandwidth lane for large
 * puts, another for messages). So a fence here orders by completion, and
 * lazily: fence() only opens a new epoch; an operation issued to a peer
 * that still has an operation of an earlier epoch in flight first flushes
 * that peer's endpoint. Each peer keeps the epoch of its last operation
 * that may still be in flight (`pending`), and quiet() records the epoch
 * up to which everything is complete. A fence with nothing in flight to
 * the next operation's peer costs nothing, and a fence followed by more
 * operations to one peer costs one round trip to it, not one to every
 * peer. A wake-up needs the writes before it complete, fence or not: it
 * goes from the completion callback of a flush of its peer when that
 * peer has anything in flight, so the caller does not wait for it.
 *
 * Messages need less. The eager active messages of one endpoint travel
 * on its one active-message lane and their handlers run at the target in
 * the order sent (am_send's order rests on it too). So a message (a small
 * put, a remote operation, a gasket message) completes first only the
 * operations of UCX's own RMA and atomic calls before it (`rma_pending`):
 * a fence between messages costs nothing, and neither does a remote
 * operation after small puts or other remote operations.
 *
 * An atomic is ordered after the earlier puts to its peer, fence or not
 * (gasket.h: the data, then its flag), and UCX's atomics may take another
 * lane than its puts (in the "cpu" atomic mode an RDMA adapter's puts are
 * its own, the atomics software at the target): so an atomic to a peer
 * with puts in flight (`puts_pending`, kept as `pending`) first flushes
 * that peer; an atomic after a get, an atomic or a flush costs nothing
 * more. Atomics after atomics need no flush: UCP sends all of an
 * endpoint's atomics on a key on its one atomic lane, which keeps their
 * order. A non-fetching atomic is only posted: complete at quiet, as a
 * put, and ordered before later puts and gets by fence alone.
 *
 * Puts as messages. Where UCX has no RMA lane to a peer (its TCP
 * transport), it emulates a put with messages that the target's worker
 * handles, and the target's sleepers never learn of it: every put would
 * owe a wake-up message after it (net.h, "Wake-ups"). So there a put goes
 * as gasket's own active messages of at most GK_UCX_PUT_AM_MAX bytes,
 * which the target writes, follows with its wake-up check (the peer's
 * put_wakes_max says so to the layers above) and acknowledges: the same
 * two messages as UCX's emulated put, and no wake-up message. They also
 * stream: UCX 1.13's emulated put of 64 KiB moves about 0.85 GB/s over
 * loopback TCP here, these messages 2.2 GB/s. quiet and a peer's flush
 * wait for the acknowledgements of all of them (the count is the PE's, as
 * a worker flush is). Whether a peer has an RMA lane is read
 * from ucp_ep_print_info, UCX 1.13 having no query for an endpoint's
 * lanes; where that text has no lanes, puts stay UCX's.
 *
 * Posted remote operations (net.h, rop_post). One that quiet must
 * complete (a non-fetching atomic, a signaling put) goes the way of a
 * small put: one message, which the target runs and acknowledges with the
 * operation's status, and which quiet and flushes count among the small
 * puts'; a status other than GK_OK is kept for the next quiet to return.
 * A worker flush alone would not do: it completes a message once UCX has
 * handed it on (over TCP, once it is in the socket), not once the target
 * has run it. A flag that its target waits for (a barrier's) goes alone:
 * no acknowledgement, no count, no mark of the peer; an acknowledgement
 * would double the messages of a barrier, and over TCP each costs the
 * sender a trip through both ends' network stacks.
 */
#include "net/ucx.h"
#include "net/ucx_int.h"

#include <poll.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "gasket.h"

struct gk__ucx gk__ucx = {.efd = -1};

#define UCX_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* What UCX says of an operation whose peer went away (or of a request
 * that an endpoint's failure cancelled). */
static int ucx_peer_gone(ucs_status_t status)
{
    switch (status) {
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_NOT_CONNECTED:
    case UCS_ERR_IO_ERROR:
    case UCS_ERR_CANCELED:
    case UCS_ERR_REJECTED:
        return 1;
    default:
        return 0;
    }
}

int gk__ucx_status(ucs_status_t status, const char *what, int pe)
{
    if (status == UCS_OK)
        return GK_OK;
    if (pe >= 0 && ucx_peer_gone(status) && gk__ucx.joined &&
        !atomic_load_explicit(&gk__ucx.closing, memory_order_acquire))
        gk__ucx_peer_failed(pe, status);
    if (pe >= 0)
        gk__error("%s to PE %d failed: %s", what, pe, ucs_status_string(status));
    else
        gk__error("%s failed: %s", what, ucs_status_string(status));
    return status == UCS_ERR_NO_MEMORY ? GK_ERR_NOMEM : GK_ERR_SYSTEM;
}

const char *gk__ucx_version(void)
{
    return ucp_get_version_string();
}

/* ------------------------------------------------------------------------ */
/* Failures                                                                 */
/* ------------------------------------------------------------------------ */

void gk__ucx_peer_failed(int pe, ucs_status_t status)
{
    gk__remote_peer_failed(gk__ucx.boot, pe, ucs_status_string(status));
}

/* From the closing barrier on, a peer that goes away is only finishing
 * first. */
static void ucx_ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    const struct gk__ucx_peer *peer = arg;
    if (!atomic_load_explicit(&gk__ucx.closing, memory_order_acquire))
        gk__ucx_peer_failed(peer->pe, status);
}

/* ------------------------------------------------------------------------ */
/* Start-up                                                                 */
/* ------------------------------------------------------------------------ */

/* What each PE tells the others: then the worker address and the key. */
struct ucx_blob {
    uint64_t seg_base;
    uint32_t addr_len;
    uint32_t rkey_len;
};

static int ucx_context_create(int n_pes)
{
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK)
        return gk__ucx_status(st, "reading UCX's configuration (ucp_config_read)", -1);
    /* net.h, "Atomicity domain": the runtime updates the same words with
     * its own CPU atomics. */
    st = ucp_config_modify(config, "ATOMIC_MODE", "cpu");
    if (st != UCS_OK) {
        ucp_config_release(config);
        gk__error("UCX refuses its atomic mode \"cpu\" (%s): its remote atomics would not be "
                  "atomic with the CPU atomics gasket uses on the same words",
                  ucs_status_string(st));
        return GK_ERR_UNSUPPORTED;
    }
    /* The worker's lock a mutex, not a spinlock: the progress thread and
     * the application's may share a core, and a spinner would spin out
     * its time slice while the holder waits for the core. */
    if (getenv("UCX_USE_MT_MUTEX") == NULL) {
        st = ucp_config_modify(config, "USE_MT_MUTEX", "y");
        if (st != UCS_OK) {
            ucp_config_release(config);
            return gk__ucx_status(st, "making UCX's worker lock a mutex (USE_MT_MUTEX)", -1);
        }
    }
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                      UCP_PARAM_FIELD_REQUEST_SIZE | UCP_PARAM_FIELD_REQUEST_INIT,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM |
                    UCP_FEATURE_WAKEUP,
        .estimated_num_eps = (size_t)n_pes,
        .request_size = sizeof(struct gk__ucx_req),
        .request_init = gk__ucx_req_init,
    };
    st = ucp_init(&params, config, &gk__ucx.context);
    ucp_config_release(config);
    if (st != UCS_OK) {
        gk__ucx.context = NULL;
        return gk__ucx_status(st, "creating the UCX context (ucp_init)", -1);
    }
    return GK_OK;
}

static int ucx_worker_create(void)
{
    ucp_worker_params_t params = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_MULTI,
    };
    ucs_status_t st = ucp_worker_create(gk__ucx.context, &params, &gk__ucx.worker);
    if (st != UCS_OK) {
        gk__ucx.worker = NULL;
        return gk__ucx_status(st, "creating the UCX worker (ucp_worker_create)", -1);
    }
    ucp_worker_attr_t attr = {
        .field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE | UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER,
    };
    st = ucp_worker_query(gk__ucx.worker, &attr);
    if (st != UCS_OK)
        return gk__ucx_status(st, "querying the UCX worker (ucp_worker_query)", -1);
    /* The progress thread and the application's threads share the worker. */
    if (attr.thread_mode != UCS_THREAD_MODE_MULTI) {
        gk__error("this UCX (%s) cannot make a worker for several threads; gasket's progress "
                  "thread needs one",
                  ucp_get_version_string());
        return GK_ERR_UNSUPPORTED;
    }
    if (attr.max_am_header < sizeof(struct gk__ucx_am_header)) {
        gk__error("UCX's active-message headers hold %zu bytes; gasket's messages need %zu",
                  attr.max_am_header, sizeof(struct gk__ucx_am_header));
        return GK_ERR_UNSUPPORTED;
    }
    st = ucp_worker_get_efd(gk__ucx.worker, &gk__ucx.efd);
    if (st != UCS_OK) {
        gk__ucx.efd = -1;
        return gk__ucx_status(st, "getting the UCX worker's event descriptor", -1);
    }
    return gk__ucx_am_register();
}

/* Registers the segment and builds this PE's blob (*blob_p, malloc'd). */
static int ucx_blob_build(const struct gk__seg *my_seg, void **blob_p, size_t *len_p)
{
    ucp_mem_map_params_t mparams = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = my_seg->base,
        .length = my_seg->size,
    };
    ucs_status_t st = ucp_mem_map(gk__ucx.context, &mparams, &gk__ucx.memh);
    if (st != UCS_OK) {
        gk__ucx.memh = NULL;
        gk__error("registering this PE's segment (%zu bytes at %p) with UCX failed: %s",
                  my_seg->size, (void *)my_seg->base, ucs_status_string(st));
        return GK_ERR_SYSTEM;
    }
    void *rkey = NULL, *addr = NULL;
    size_t rkey_len = 0, addr_len = 0;
    int status = GK_OK;
    st = ucp_rkey_pack(gk__ucx.context, gk__ucx.memh, &rkey, &rkey_len);
    if (st != UCS_OK) {
        status = gk__ucx_status(st, "packing the segment's remote key", -1);
        goto out;
    }
    ucp_address_t *worker_addr;
    st = ucp_worker_get_address(gk__ucx.worker, &worker_addr, &addr_len);
    if (st != UCS_OK) {
        status = gk__ucx_status(st, "getting the UCX worker's address", -1);
        goto out_rkey;
    }
    addr = worker_addr;
    size_t len = sizeof(struct ucx_blob) + addr_len + rkey_len;
    char *blob = malloc(len);
    if (blob == NULL) {
        gk__error("out of memory for this PE's network address (%zu bytes)", len);
        status = GK_ERR_NOMEM;
        goto out_addr;
    }
    struct ucx_blob head = {(uint64_t)(uintptr_t)my_seg->base, (uint32_t)addr_len,
                            (uint32_t)rkey_len};
    memcpy(blob, &head, sizeof(head));
    memcpy(blob + sizeof(head), addr, addr_len);
    memcpy(blob + sizeof(head) + addr_len, rkey, rkey_len);
    *blob_p = blob;
    *len_p = len;
out_addr:
    ucp_worker_release_address(gk__ucx.worker, worker_addr);
out_rkey:
    ucp_rkey_buffer_release(rkey);
out:
    return status;
}

/* Whether UCX emulates RMA to `ep`'s peer with messages: none of its lanes
 * carries RMA ("rma#0", "rma_bw#1" in ucp_ep_print_info's lane lines).
 * 0 when unsure (no lane lines). */
static int ucx_ep_rma_emulated(ucp_ep_h ep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return 0;
    ucp_ep_print_info(ep, f);
    if (fclose(f) != 0 || text == NULL) {
        free(text);
        return 0;
    }
    int lanes = 0, rma = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strstr(line, "lane[") == NULL)
            continue;
        lanes++;
        if (strstr(line, " rma") != NULL)
            rma = 1;
    }
    free(text);
    return lanes > 0 && !rma;
}

/* Takes every peer nobody else reaches, from the PEs' blobs (kept in
 * gk__ucx.blobs): its endpoint comes on first use (gk__ucx_connect). */
static int ucx_assign(char *blobs, size_t stride)
{
    struct gk__ucx *u = &gk__ucx;
    for (int pe = 0; pe < u->n_pes; pe++) {
        if (pe == u->my_pe || u->peers[pe].transport != NULL)
            continue;
        const char *blob = blobs + (size_t)pe * stride;
        struct ucx_blob head;
        memcpy(&head, blob, sizeof(head));
        if (head.addr_len == 0 || sizeof(head) + (size_t)head.addr_len + head.rkey_len > stride) {
            gk__error("PE %d's network address is malformed (%u + %u bytes in %zu)", pe,
                      head.addr_len, head.rkey_len, stride);
            return GK_ERR_UNREACHABLE;
        }
        struct gk__ucx_peer *peer = &u->ucx_peers[pe];
        peer->blob = blob;
        peer->remote_base = head.seg_base;
        u->peers[pe].transport = &gk__ucx_transport;
        u->peers[pe].caps = GK__NET_CAP_CPU_ATOMICS;
        u->peers[pe].direct = NULL;
        u->peers[pe].priv = peer;
        u->peers[pe].put_wakes_max = 0; /* until its endpoint shows its lanes */
        u->n_remote++;
    }
    return GK_OK;
}

void gk__ucx_connect(struct gk__ucx_peer *peer)
{
    struct gk__ucx *u = &gk__ucx;
    pthread_mutex_lock(&u->connect_lock);
    if (atomic_load_explicit(&peer->ready, memory_order_relaxed)) {
        pthread_mutex_unlock(&u->connect_lock);
        return;
    }
    struct ucx_blob head;
    memcpy(&head, peer->blob, sizeof(head));
    ucp_ep_params_t params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = (const ucp_address_t *)(peer->blob + sizeof(head)),
        .err_mode = UCP_ERR_HANDLING_MODE_PEER,
        .err_handler = {.cb = ucx_ep_failed, .arg = peer},
    };
    ucs_status_t st = ucp_ep_create(u->worker, &params, &peer->ep);
    const char *what = "connecting (ucp_ep_create)";
    if (st != UCS_OK) {
        peer->ep = NULL;
    } else {
        what = "unpacking the remote key of its segment";
        st = ucp_ep_rkey_unpack(peer->ep, peer->blob + sizeof(head) + head.addr_len,
                                &peer->rkey);
        if (st != UCS_OK)
            peer->rkey = NULL;
    }
    if (st != UCS_OK) {
        pthread_mutex_unlock(&u->connect_lock);
        gk__error("PE %d: %s failed: %s", peer->pe, what, ucs_status_string(st));
        gk__ucx_peer_failed(peer->pe, st);
    }
    int emulated = ucx_ep_rma_emulated(peer->ep);
    u->peers[peer->pe].put_wakes_max = u->put_am_max > 0 && emulated ? SIZE_MAX : 0;
    if (emulated)
        u->peers[peer->pe].caps |= GK__NET_CAP_RMA_BY_MESSAGES;
    atomic_fetch_add_explicit(&u->n_connected, 1, memory_order_relaxed);
    atomic_store_explicit(&peer->ready, 1, memory_order_release);
    pthread_mutex_unlock(&u->connect_lock);
}

/* Every PE learns the largest of `mine` (0 where a PE failed: then 0). */
static int ucx_exchange_max(uint64_t mine, uint64_t *max_p)
{
    struct gk__ucx *u = &gk__ucx;
    uint64_t *all = calloc((size_t)u->n_pes, sizeof(*all));
    if (all == NULL) /* the others wait for us in the exchange */
        u->boot->ops->abort(u->boot, 1, "out of memory during start-up");
    int status = gk__boot_allgather(u->boot, &mine, all, sizeof(mine));
    uint64_t max = 0;
    for (int pe = 0; status == GK_OK && pe < u->n_pes; pe++) {
        if (all[pe] == 0) {
            if (mine != 0)
                gk__error("the network transport failed to start on PE %d", pe);
            max = 0;
            break;
        }
        max = all[pe] > max ? all[pe] : max;
    }
    free(all);
    *max_p = status == GK_OK ? max : 0;
    return status;
}

/* Undoes whatever part of start-up got done, on this PE alone. */
static void ucx_release(void)
{
    struct gk__ucx *u = &gk__ucx;
    atomic_store_explicit(&u->closing, 1, memory_order_release);
    gk__ucx_thread_stop();
    for (int pe = 0; u->ucx_peers != NULL && pe < u->n_pes; pe++) {
        struct gk__ucx_peer *peer = &u->ucx_peers[pe];
        /* A remote key belongs to its endpoint: it goes first. */
        if (peer->rkey != NULL)
            ucp_rkey_destroy(peer->rkey);
        peer->rkey = NULL;
        if (peer->ep != NULL) {
            ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                         .flags = UCP_EP_CLOSE_FLAG_FORCE};
            ucs_status_ptr_t req = ucp_ep_close_nbx(peer->ep, &param);
            if (req != NULL && !UCS_PTR_IS_ERR(req)) {
                while (ucp_request_check_status(req) == UCS_INPROGRESS)
                    ucp_worker_progress(u->worker);
                ucp_request_free(req);
            }
        }
        peer->ep = NULL;
        atomic_store_explicit(&peer->ready, 0, memory_order_relaxed);
        peer->blob = NULL;
        if (u->peers[pe].priv == peer) {
            u->peers[pe].transport = NULL;
            u->peers[pe].priv = NULL;
            u->peers[pe].caps = 0;
        }
    }
    free(u->ucx_peers);
    u->ucx_peers = NULL;
    free(u->blobs);
    u->blobs = NULL;
    if (u->memh != NULL)
        ucp_mem_unmap(u->context, u->memh);
    u->memh = NULL;
    if (u->worker != NULL)
        ucp_worker_destroy(u->worker);
    u->worker = NULL;
    u->efd = -1;
    if (u->context != NULL)
        ucp_cleanup(u->context);
    u->context = NULL;
    gk__remote_inbox_fini(&u->inbox);
    pthread_mutex_destroy(&u->progress_lock);
    u->joined = 0;
    u->n_remote = 0;
}

/*
 * Collective over all PEs (it uses gk__boot_allgather): creates the UCP
 * context and worker, registers my_seg, exchanges worker addresses and
 * remote keys, and claims every peer no other transport did (peers[my_pe]
 * must be mapped: arriving messages go to its inbox). Starts the progress
 * thread as config->ucx_progress_thread says. A failure on any PE fails it
 * on every PE, each having undone its part.
 */
static int ucx_open(struct gk__boot *boot, const struct gk__seg *my_seg, struct gk__net_peer *peers,
                    int my_pe, const struct gk__config *config)
{
    struct gk__ucx *u = &gk__ucx;
    *u = (struct gk__ucx){.efd = -1, .boot = boot, .peers = peers, .self = &peers[my_pe],
                          .my_wake = &my_seg->header->wake, .heap = my_seg->heap,
                          .heap_size = my_seg->header->heap_size, .seg_base = my_seg->base,
                          .seg_size = my_seg->size, .put_am_max = config->ucx_put_am_max,
                          .n_pes = boot->size, .my_pe = my_pe};
    atomic_init(&u->epoch, 1);
    gk__remote_inbox_init(&u->inbox, peers[my_pe].direct);
    pthread_mutex_init(&u->progress_lock, NULL);
    pthread_mutex_init(&u->connect_lock, NULL);
    u->ucx_peers = calloc((size_t)u->n_pes, sizeof(*u->ucx_peers));
    int status = u->ucx_peers != NULL ? GK_OK : GK_ERR_NOMEM;
    if (status != GK_OK)
        gk__error("out of memory for the network state of %d PEs", u->n_pes);
    if (status == GK_OK && u->put_am_max > GK__UCX_AM_LONG_MAX) {
        gk__error("GK_UCX_PUT_AM_MAX=%zu: at most %zu bytes", u->put_am_max,
                  GK__UCX_AM_LONG_MAX);
        status = GK_ERR_INVALID_ARG;
    }
    for (int pe = 0; status == GK_OK && pe < u->n_pes; pe++)
        u->ucx_peers[pe].pe = pe;
    if (status == GK_OK)
        status = ucx_context_create(u->n_pes);
    if (status == GK_OK)
        status = ucx_worker_create();
    void *blob = NULL;
    size_t blob_len = 0;
    if (status == GK_OK)
        status = ucx_blob_build(my_seg, &blob, &blob_len);

    /* The three exchanges (top comment). */
    uint64_t stride;
    int exchanged = ucx_exchange_max(status == GK_OK ? blob_len : 0, &stride);
    char *blobs = NULL;
    if (exchanged == GK_OK && stride > 0) {
        char *mine = calloc(1, stride);
        blobs = calloc((size_t)u->n_pes, stride);
        if (mine == NULL || blobs == NULL)
            boot->ops->abort(boot, 1, "out of memory for the PEs' network addresses");
        memcpy(mine, blob, blob_len);
        exchanged = gk__boot_allgather(boot, mine, blobs, stride);
        free(mine);
        if (exchanged == GK_OK)
            status = ucx_assign(blobs, stride);
        u->blobs = blobs; /* for the endpoints, made on first use */
        uint64_t verdict;
        if (exchanged == GK_OK)
            exchanged = ucx_exchange_max(status == GK_OK ? 1 : 0, &verdict);
        if (exchanged == GK_OK && verdict == 0 && status == GK_OK)
            status = GK_ERR_UNREACHABLE; /* another PE failed and said why */
    } else if (status == GK_OK) {
        status = GK_ERR_UNREACHABLE;
    }
    free(blob);
    if (status == GK_OK)
        status = exchanged;
    if (status != GK_OK) {
        ucx_release();
        return status;
    }
    u->joined = 1;
    u->linger_us = config->ucx_linger_us;
    u->handover_us = config->ucx_handover_us;
    u->handover_max_us = config->ucx_handover_max_us > config->ucx_handover_us
                             ? config->ucx_handover_max_us
                             : config->ucx_handover_us;
    u->park_us = u->handover_us;
    int want_thread = config->ucx_progress_thread < 0 ? u->n_remote > 0
                                                      : config->ucx_progress_thread;
    if (want_thread && gk__ucx_thread_start() != GK_OK)
        gk__warn("no UCX progress thread: one-sided operations from other PEs progress "
                 "only while this PE calls gasket");
    gk__debug("ucx %s: %d peers, progress thread %s", ucp_get_version_string(), u->n_remote,
              u->thread_running ? "on" : "off");
    return GK_OK;
}

/*
 * After the job's last barrier, on every PE that opened: completes what is
 * in flight, stops the progress thread, and releases everything. Collective
 * (an out-of-band barrier, so that no PE takes another's closing
 * connection for a failure). Harmless when not open.
 */
static void ucx_close(void)
{
    struct gk__ucx *u = &gk__ucx;
    if (u->worker == NULL)
        return;
    /* Complete what is ours in flight, then let every PE stop taking a
     * vanishing peer for a failure before any connection goes. Others'
     * last operations to us (the acknowledgement of a put or an atomic)
     * may still need our worker while we wait in that barrier, which does
     * not drive it: the progress thread does, started for it if it was
     * off. */
    gk__ucx_transport.quiet();
    atomic_store_explicit(&u->closing, 1, memory_order_release);
    if (u->joined) {
        if (!atomic_load_explicit(&u->thread_running, memory_order_relaxed) &&
            gk__ucx_thread_start() != GK_OK)
            gk__warn("closing UCX without its progress thread: a PE still waiting for this "
                     "one may wait until the job's time limit");
        gk__boot_barrier(u->boot);
    }
    gk__ucx_thread_stop();
    /* Wake-ups sent from flush callbacks: their buffers go at completion. */
    gk__ucx_transport.quiet();
    ucx_release();
}

/*
 * The peers no mapping reaches. UCX's start-up is collective, so every PE
 * opens it as soon as any PE has such a peer: the job spans nodes (every
 * PE has the whole node map, so all agree) or GK_NET_FORCE_UCX asks for it.
 */
static int ucx_module_open(const struct gk__net_start *start)
{
    struct gk__boot *boot = start->boot;
    int spans = start->config->net_force_ucx && boot->size > 1;
    for (int pe = 0; pe < boot->size && !spans; pe++)
        spans = boot->node_id[pe] != boot->node_id[0];
    if (!spans)
        return GK_OK;
    return ucx_open(boot, start->my_seg, start->peers, boot->rank, start->config);
}

const struct gk__net_module gk__ucx_module = {
    .name = "ucx",
    .open = ucx_module_open,
    .close = ucx_close,
};

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

/* A peer's state, its endpoint made if this is its first use. */
static inline struct gk__ucx_peer *ucx_peer(const struct gk__net_peer *peer)
{
    return gk__ucx_peer_ready(peer->priv);
}

/* `mark` was read before a flush that completed it: 0 unless another
 * thread issued an operation since. */
static inline void ucx_clear_mark(_Atomic uint64_t *mark, uint64_t seen)
{
    atomic_compare_exchange_strong_explicit(mark, &seen, 0, memory_order_relaxed,
                                            memory_order_relaxed);
}

/* Every put sent as an active message and every remote operation posted
 * for quiet is acknowledged (top comment). */
static int ucx_all_acked(void)
{
    struct gk__ucx *u = &gk__ucx;
    if (atomic_load_explicit(&u->unacked, memory_order_acquire) == 0)
        return GK_OK;
    return gk__ucx_wait_zero(&u->unacked, &u->unacked_sleepers);
}

static int ucx_flush_peer(struct gk__ucx_peer *p)
{
    uint64_t pending = atomic_load_explicit(&p->pending, memory_order_relaxed);
    uint64_t puts = atomic_load_explicit(&p->puts_pending, memory_order_relaxed);
    uint64_t rma = atomic_load_explicit(&p->rma_pending, memory_order_relaxed);
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK, .cb.send = gk__ucx_req_done};
    int status = gk__ucx_wait(ucp_ep_flush_nbx(p->ep, &param), "flush", p->pe);
    if (status == GK_OK)
        status = ucx_all_acked();
    if (status == GK_OK) {
        ucx_clear_mark(&p->pending, pending);
        ucx_clear_mark(&p->puts_pending, puts);
        ucx_clear_mark(&p->rma_pending, rma);
    }
    return status;
}

/* Whether `mark` (pending, rma_pending) names an epoch before the
 * current one whose operations may still be in flight. */
static inline int ucx_mark_before_fence(const _Atomic uint64_t *mark)
{
    uint64_t s = atomic_load_explicit(mark, memory_order_relaxed);
    return s != 0 && s > atomic_load_explicit(&gk__ucx.completed_upto, memory_order_relaxed) &&
           s < atomic_load_explicit(&gk__ucx.epoch, memory_order_relaxed);
}

/* Ordering (top comment): before an operation to p, complete p's
 * operations of epochs before the current one. */
static inline int ucx_order(struct gk__ucx_peer *p)
{
    if (UCX_UNLIKELY(ucx_mark_before_fence(&p->pending)))
        return ucx_flush_peer(p);
    return GK_OK;
}

/* The same before a message, which the messages before it do not need
 * (top comment, "Messages need less"). */
static inline int ucx_order_msg(struct gk__ucx_peer *p)
{
    if (UCX_UNLIKELY(ucx_mark_before_fence(&p->rma_pending)))
        return ucx_flush_peer(p);
    return GK_OK;
}

/* Marks `mark` of a peer with the current epoch, and the worker's too
 * (last_issued: ucx_quiet). */
static inline uint64_t ucx_mark(_Atomic uint64_t *mark)
{
    uint64_t epoch = atomic_load_explicit(&gk__ucx.epoch, memory_order_relaxed);
    atomic_store_explicit(mark, epoch, memory_order_relaxed);
    atomic_store_explicit(&gk__ucx.last_issued, epoch, memory_order_relaxed);
    return epoch;
}

/* An operation to p may be in flight until the next flush or quiet. */
static inline void ucx_issued(struct gk__ucx_peer *p)
{
    ucx_mark(&p->pending);
}

/* The same for a put or a remote operation posted for quiet, which a
 * later atomic must not overtake. */
static inline void ucx_put_issued(struct gk__ucx_peer *p)
{
    uint64_t epoch = ucx_mark(&p->pending);
    atomic_store_explicit(&p->puts_pending, epoch, memory_order_relaxed);
}

/* The same for an operation of UCX's RMA or atomic calls (a put: `put`),
 * which a later message must not overtake either. */
static inline void ucx_rma_issued(struct gk__ucx_peer *p, int put)
{
    uint64_t epoch = ucx_mark(&p->pending);
    if (put)
        atomic_store_explicit(&p->puts_pending, epoch, memory_order_relaxed);
    atomic_store_explicit(&p->rma_pending, epoch, memory_order_relaxed);
}

/* Whether an operation marked in `mark` (pending, puts_pending) may still
 * be in flight: no flush of its peer and no quiet since. */
static inline int ucx_mark_in_flight(const _Atomic uint64_t *mark)
{
    uint64_t s = atomic_load_explicit(mark, memory_order_relaxed);
    return s != 0 && s > atomic_load_explicit(&gk__ucx.completed_upto, memory_order_relaxed);
}

static inline int ucx_in_flight(const struct gk__ucx_peer *p)
{
    return ucx_mark_in_flight(&p->pending);
}

/* A put_nbi or get_nbi just issued to p (marked): it completes at quiet,
 * nobody waits for its request. */
static int ucx_nbi_issued(struct gk__ucx_peer *p, ucs_status_ptr_t req, const char *what)
{
    if (UCS_PTR_IS_ERR(req))
        return gk__ucx_status(UCS_PTR_STATUS(req), what, p->pe);
    if (req != NULL)
        ucp_request_free(req);
    return GK_OK;
}

/* A put as active messages of at most put_am_max bytes each (top comment,
 * "Puts as messages"): returns when they are sent, non-blocking put or
 * not, because UCX 1.13 reads a message's header (here, on this stack)
 * until then and has no flag to copy it out at the call. Where UCX sends
 * at once that is at once; a message that waits in UCX's queue (a burst
 * the socket cannot take) waits here. */
static int ucx_put_am(struct gk__ucx_peer *p, size_t offset, const void *src, size_t n)
{
    struct gk__ucx *u = &gk__ucx;
    const char *from = src;
    ucx_put_issued(p);
    for (size_t done = 0; done < n;) {
        size_t len = n - done < u->put_am_max ? n - done : u->put_am_max;
        struct gk__ucx_put_header h = {.offset = offset + done, .src = (uint32_t)u->my_pe};
        atomic_fetch_add_explicit(&u->unacked, 1, memory_order_relaxed);
        ucp_request_param_t param = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK,
            .flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY, /* acknowledged */
            .cb.send = gk__ucx_req_done,
        };
        ucs_status_ptr_t req =
            ucp_am_send_nbx(p->ep, GK__UCX_AM_PUT, &h, sizeof(h), from + done, len, &param);
        int status = gk__ucx_wait(req, "put", p->pe);
        if (status != GK_OK) { /* never acknowledged */
            atomic_fetch_sub_explicit(&u->unacked, 1, memory_order_relaxed);
            return status;
        }
        done += len;
    }
    return GK_OK;
}

static int ucx_put(struct gk__net_peer *peer, size_t offset, const void *src, size_t n)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    int am = n <= peer->put_wakes_max;
    int status = am ? ucx_order_msg(p) : ucx_order(p);
    if (status != GK_OK || n == 0)
        return status;
    if (am)
        return ucx_put_am(p, offset, src, n);
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK, .cb.send = gk__ucx_req_done};
    ucs_status_ptr_t req = ucp_put_nbx(p->ep, src, n, p->remote_base + offset, p->rkey, &param);
    ucx_rma_issued(p, 1);
    return gk__ucx_wait(req, "put", p->pe);
}

static int ucx_put_nbi(struct gk__net_peer *peer, size_t offset, const void *src, size_t n)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    int am = n <= peer->put_wakes_max;
    int status = am ? ucx_order_msg(p) : ucx_order(p);
    if (status != GK_OK || n == 0)
        return status;
    if (am)
        return ucx_put_am(p, offset, src, n);
    ucp_request_param_t param = {.op_attr_mask = 0};
    ucs_status_ptr_t req = ucp_put_nbx(p->ep, src, n, p->remote_base + offset, p->rkey, &param);
    ucx_rma_issued(p, 1);
    return ucx_nbi_issued(p, req, "put");
}

static int ucx_get(struct gk__net_peer *peer, void *dst, size_t offset, size_t n)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    int status = ucx_order(p);
    if (status != GK_OK || n == 0)
        return status;
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK, .cb.send = gk__ucx_req_done};
    return gk__ucx_wait(ucp_get_nbx(p->ep, dst, n, p->remote_base + offset, p->rkey, &param),
                        "get", p->pe);
}

static int ucx_get_nbi(struct gk__net_peer *peer, void *dst, size_t offset, size_t n)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    int status = ucx_order(p);
    if (status != GK_OK || n == 0)
        return status;
    ucp_request_param_t param = {.op_attr_mask = 0};
    ucs_status_ptr_t req = ucp_get_nbx(p->ep, dst, n, p->remote_base + offset, p->rkey, &param);
    ucx_rma_issued(p, 0);
    return ucx_nbi_issued(p, req, "get");
}

static int ucx_atomic(struct gk__net_peer *peer, enum gk__amo_op op, size_t width, size_t offset,
                      uint64_t operand, uint64_t compare, uint64_t *result_p)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    int status = ucx_order(p);
    if (status == GK_OK && ucx_mark_in_flight(&p->puts_pending))
        status = ucx_flush_peer(p); /* the top comment's "Ordering" */
    if (status != GK_OK)
        return status;
    ucp_atomic_op_t uop;
    int fetch = result_p != NULL;
    switch (op) {
    case GK__AMO_FETCH:
        uop = UCP_ATOMIC_OP_ADD;
        operand = 0;
        fetch = 1;
        break;
    case GK__AMO_SET:
    case GK__AMO_SWAP:
        uop = UCP_ATOMIC_OP_SWAP; /* UCP's swap always fetches */
        fetch = 1;
        break;
    case GK__AMO_CSWAP:
        uop = UCP_ATOMIC_OP_CSWAP;
        fetch = 1;
        break;
    case GK__AMO_FETCH_ADD:
        uop = UCP_ATOMIC_OP_ADD;
        break;
    case GK__AMO_FETCH_AND:
        uop = UCP_ATOMIC_OP_AND;
        break;
    case GK__AMO_FETCH_OR:
        uop = UCP_ATOMIC_OP_OR;
        break;
    case GK__AMO_FETCH_XOR:
        uop = UCP_ATOMIC_OP_XOR;
        break;
    default:
        gk__error("atomic to PE %d: unknown operation %d", p->pe, (int)op);
        return GK_ERR_INVALID_ARG;
    }
    /* X and Z of UCP's table: for CSWAP the buffer holds the expected
     * value and the reply buffer the desired one, replaced by the old. */
    union {
        uint32_t u32;
        uint64_t u64;
    } x, reply;
    if (width == 4) {
        x.u32 = (uint32_t)(op == GK__AMO_CSWAP ? compare : operand);
        reply.u32 = (uint32_t)operand;
    } else {
        x.u64 = op == GK__AMO_CSWAP ? compare : operand;
        reply.u64 = operand;
    }
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK |
                        (fetch ? UCP_OP_ATTR_FIELD_REPLY_BUFFER : 0),
        .cb.send = gk__ucx_req_done,
        .datatype = ucp_dt_make_contig(width),
        .reply_buffer = fetch ? &reply : NULL,
    };
    ucs_status_ptr_t req =
        ucp_atomic_op_nbx(p->ep, uop, &x, 1, p->remote_base + offset, p->rkey, &param);
    if (!fetch)
        ucx_rma_issued(p, 0);
    /* Posted or fetching, the operand (and the reply) live on this stack:
     * a request UCX kept must finish before we return. */
    status = gk__ucx_wait(req, "atomic", p->pe);
    if (status == GK_OK && result_p != NULL)
        *result_p = width == 4 ? reply.u32 : reply.u64;
    return status;
}

/* A wake-up that waits for its peer's flush (ucx_wake). */
struct ucx_wake_req {
    struct gk__ucx_wake_header range;
    struct gk__ucx_peer *peer;
};

static void ucx_wake_flushed(void *request, ucs_status_t status, void *user_data)
{
    struct ucx_wake_req *w = user_data;
    ucp_request_free(request);
    if (status != UCS_OK) { /* the endpoint failed: its handler says so */
        free(w);
        return;
    }
    gk__ucx_send_copy(w->peer->ep, w->peer->pe, GK__UCX_AM_WAKE, &w->range, sizeof(w->range),
                      NULL, 0, "wake-up");
    free(w);
}

static int ucx_wake(struct gk__net_peer *peer, uint64_t lo, uint64_t hi)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    if (!ucx_in_flight(p)) {
        /* Nothing to wait for: straight out, from this stack. */
        struct gk__ucx_wake_header range = {lo, hi};
        ucp_request_param_t param = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK,
            .flags = UCP_AM_SEND_FLAG_EAGER,
            .cb.send = gk__ucx_req_done,
        };
        return gk__ucx_wait(
            ucp_am_send_nbx(p->ep, GK__UCX_AM_WAKE, &range, sizeof(range), NULL, 0, &param),
            "wake-up", p->pe);
    }
    struct ucx_wake_req *w = malloc(sizeof(*w));
    if (w == NULL) {
        gk__error("wake-up to PE %d: out of memory", p->pe);
        return GK_ERR_NOMEM;
    }
    *w = (struct ucx_wake_req){{lo, hi}, p};
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = ucx_wake_flushed,
        .user_data = w,
    };
    ucs_status_ptr_t req = ucp_ep_flush_nbx(p->ep, &param);
    if (UCS_PTR_IS_ERR(req)) {
        free(w);
        return gk__ucx_status(UCS_PTR_STATUS(req), "flush before a wake-up", p->pe);
    }
    if (req == NULL) { /* flushed already: no callback comes */
        gk__ucx_send_copy(p->ep, p->pe, GK__UCX_AM_WAKE, &w->range, sizeof(w->range),
                          NULL, 0, "wake-up");
        free(w);
    }
    return GK_OK;
}

/* A gasket message as a UCP active message `id`, with `data_len` bytes of
 * payload (a medium message's, or a long one's that travels with it). */
static int ucx_am_post(struct gk__net_peer *peer, unsigned id, const struct gk__net_am *msg,
                       const uint64_t *args, const void *payload, size_t data_len)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    int status = ucx_order_msg(p);
    if (status != GK_OK)
        return status;
    struct gk__ucx_am_header header;
    header.msg = *msg;
    unsigned nargs = msg->nargs <= GK__NET_AM_MAX_ARGS ? msg->nargs : GK__NET_AM_MAX_ARGS;
    memcpy(header.args, args, nargs * sizeof(uint64_t));
    size_t header_len = offsetof(struct gk__ucx_am_header, args) + nargs * sizeof(uint64_t);
    /* Eager only: a rendezvous message's data would arrive after later
     * messages, and messages keep their order. */
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK,
        .flags = UCP_AM_SEND_FLAG_EAGER,
        .cb.send = gk__ucx_req_done,
    };
    ucs_status_ptr_t req =
        ucp_am_send_nbx(p->ep, id, &header, header_len, payload, data_len, &param);
    ucx_issued(p);
    /* UCX keeps a message it could not send at once, and it needs our
     * buffers until it does: usually it copied them and returned NULL. */
    status = gk__ucx_wait(req, "active message", p->pe);
    if (status == GK_OK) /* the progress engine's quiescence counts it */
        atomic_fetch_add_explicit(&gk__net_am_sent, 1, memory_order_release);
    return status;
}

static int ucx_am_send(struct gk__net_peer *peer, const struct gk__net_am *msg,
                       const uint64_t *args, const void *payload)
{
    return ucx_am_post(peer, GK__UCX_AM_MSG, msg, args, payload,
                       payload != NULL ? (size_t)msg->nbytes : 0);
}

/* The payload in the message itself: the receiver writes it into its heap
 * before the message lands (ucx_am.c), where a put before the message
 * would need a flush of the peer between the two, a round trip. */
static int ucx_am_send_long(struct gk__net_peer *peer, const struct gk__net_am *msg,
                            const uint64_t *args, const void *payload)
{
    return ucx_am_post(peer, GK__UCX_AM_LONG, msg, args, payload, (size_t)msg->nbytes);
}

/* Before a remote operation to p: ordered after everything before it to
 * p, puts as an atomic is (the top comment), and atomics too: the messages
 * before it by their lane, UCX's own operations, which may take another,
 * by a flush. */
static inline int ucx_rop_order(struct gk__ucx_peer *p)
{
    return ucx_mark_in_flight(&p->rma_pending) ? ucx_flush_peer(p) : GK_OK;
}

/* A remote operation posted (top comment, "Posted remote operations"):
 * one message, and for GK__NET_POST_QUIET its acknowledgement to count;
 * returns once UCX is done with the payload. */
static int ucx_rop_post(struct gk__net_peer *peer, enum gk__net_rop op, const uint64_t *args,
                        const void *payload, size_t nbytes, enum gk__net_post how)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    int status = ucx_rop_order(p);
    if (status != GK_OK)
        return status;
    struct gk__ucx *u = &gk__ucx;
    int acked = how == GK__NET_POST_QUIET;
    struct gk__ucx_rop_header h = {.op = (uint32_t)op,
                                   .src = (uint32_t)u->my_pe,
                                   .token = acked ? GK__UCX_ROP_POST_ACKED : 0};
    memcpy(h.args, args, sizeof(h.args));
    if (acked) {
        atomic_fetch_add_explicit(&u->unacked, 1, memory_order_relaxed);
        ucx_put_issued(p);
    }
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK,
        .flags = UCP_AM_SEND_FLAG_EAGER | (acked ? UCP_AM_SEND_FLAG_REPLY : 0),
        .cb.send = gk__ucx_req_done,
    };
    status = gk__ucx_wait(ucp_am_send_nbx(p->ep, GK__UCX_AM_ROP_POST, &h, sizeof(h), payload,
                                          nbytes, &param),
                          "remote operation", p->pe);
    if (status != GK_OK && acked) /* never acknowledged */
        atomic_fetch_sub_explicit(&u->unacked, 1, memory_order_relaxed);
    return status;
}

/* A remote operation (net.h): one message with its payload, then the
 * reply, which ucx_am.c's handler hands to the waiting slot. */
static int ucx_rop(struct gk__net_peer *peer, enum gk__net_rop op, const uint64_t *args,
                   const void *payload, size_t nbytes, struct gk__net_rop_answer *answer)
{
    struct gk__ucx_peer *p = ucx_peer(peer);
    if (answer->max > GK__UCX_AM_LONG_MAX) {
        gk__error("remote operation %d to PE %d: %zu bytes of answer, more than the %zu a "
                  "reply carries",
                  (int)op, p->pe, answer->max, GK__UCX_AM_LONG_MAX);
        return GK_ERR_INVALID_ARG;
    }
    int status = ucx_rop_order(p);
    if (status != GK_OK)
        return status;
    struct gk__ucx *u = &gk__ucx;
    unsigned slot = gk__remote_rop_take(&u->rops);
    gk__ucx_req_init(&u->rop_reqs[slot]);
    struct gk__ucx_rop_header h = {.op = (uint32_t)op,
                                   .src = (uint32_t)u->my_pe,
                                   .token = gk__remote_rop_arm(&u->rops, slot, answer),
                                   .answer_max = answer->max};
    memcpy(h.args, args, sizeof(h.args));
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK,
        .flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY, /* answered */
        .cb.send = gk__ucx_req_done,
    };
    status = gk__ucx_wait(ucp_am_send_nbx(p->ep, GK__UCX_AM_ROP, &h, sizeof(h), payload,
                                          nbytes, &param),
                          "remote operation", p->pe);
    if (status == GK_OK)
        status = gk__ucx_wait_done(&u->rop_reqs[slot]);
    return gk__remote_rop_end(&u->rops, h.token, status, (int)op, p->pe);
}

static int ucx_flush(struct gk__net_peer *peer)
{
    return ucx_flush_peer(ucx_peer(peer));
}

static int ucx_fence(void)
{
    atomic_fetch_add_explicit(&gk__ucx.epoch, 1, memory_order_relaxed);
    return GK_OK;
}

static int ucx_quiet(void)
{
    struct gk__ucx *u = &gk__ucx;
    uint64_t upto = atomic_fetch_add_explicit(&u->epoch, 1, memory_order_relaxed);
    int status = GK_OK;
    /* Nothing marked since a quiet completed it (a blocking get, a
     * fetching atomic, complete on return): no flush, as a peer's flush
     * skips a peer with nothing marked. The flush walks the worker's
     * endpoints even so. */
    if (ucx_mark_in_flight(&u->last_issued)) {
        ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK,
                                     .cb.send = gk__ucx_req_done};
        status = gk__ucx_wait(ucp_worker_flush_nbx(u->worker, &param), "quiet (worker flush)", -1);
    }
    if (status == GK_OK)
        status = ucx_all_acked();
    if (status != GK_OK)
        return status;
    uint64_t done = atomic_load_explicit(&u->completed_upto, memory_order_relaxed);
    while (done < upto && !atomic_compare_exchange_weak_explicit(
                              &u->completed_upto, &done, upto, memory_order_relaxed,
                              memory_order_relaxed)) {
    }
    return gk__remote_refusals_check(&u->refusals);
}

static int ucx_progress(void)
{
    return gk__ucx_progress();
}

const struct gk__net_transport gk__ucx_transport = {
    .name = "ucx",
    .put = ucx_put,
    .put_nbi = ucx_put_nbi,
    .get = ucx_get,
    .get_nbi = ucx_get_nbi,
    .atomic = ucx_atomic,
    .wake = ucx_wake,
    .am_send = ucx_am_send,
    .am_send_long = ucx_am_send_long,
    .am_long_max = GK__UCX_AM_LONG_MAX,
    .rop = ucx_rop,
    .rop_post = ucx_rop_post,
    .rop_max = GK__UCX_AM_LONG_MAX,
    .flush = ucx_flush,
    .fence = ucx_fence,
    .quiet = ucx_quiet,
    .progress = ucx_progress,
    .before_sleep = gk__ucx_before_sleep,
};

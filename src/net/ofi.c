/*
 * ofi.c: the libfabric transport's start-up, shut-down and operations
 * (ofi.h).
 *
 * Start-up. Each PE asks libfabric for a reliable-datagram endpoint
 * (FI_EP_RDM) with messages and RMA, safe for several threads, whose
 * writes can complete at the target (FI_DELIVERY_COMPLETE: quiet means
 * the data is there) and whose sends arrive in the order sent
 * (FI_ORDER_SAS), from the provider FI_PROVIDER names, or libfabric's
 * first choice; it opens a completion queue with a wait descriptor, an
 * address vector and the endpoint, registers its whole segment, and posts
 * its receive buffers. One exchange over the bootstrap gives every PE each
 * PE's status, endpoint name, segment address and memory key, so a failure
 * anywhere fails the start everywhere.
 *
 * Puts and gets are fi_write and fi_read on the peer's segment. A blocking
 * put of at most GK__OFI_PAYLOAD_MAX bytes goes from a copy, so it returns
 * at once; a larger one waits for its completion. Non-blocking ones are
 * counted (rma_out) and quiet waits for the count to reach 0.
 *
 * Atomics. No provider promises that its fi_atomic is atomic with the
 * target CPU's own atomics on the same word: tcp;ofi_rxm and sockets carry
 * them out in the provider's software at the target, verbs on the adapter.
 * gasket updates those words with CPU atomics too (net.h, "Atomicity
 * domain"), so every atomic goes as a remote operation (GK__NET_ROP_ATOMIC),
 * which the target runs with a CPU atomic when its progress handles the
 * message; fi_atomic is not used.
 *
 * Ordering. The providers keep a sender's messages in order (required),
 * and tcp;ofi_rxm and sockets also keep a message after the writes before
 * it (FI_ORDER_SAW): where they say so, an atomic, a remote operation, an
 * active message or a wake-up after puts needs no wait; elsewhere it waits
 * for the puts to complete. The other way round a fence must wait: a
 * message is run by the target's progress some time after the provider
 * received it, so a put after a fence waits for the acknowledgements of
 * the posted operations before it (fenced, unacked). Flushing one peer is
 * a quiet.
 */
#include "net/ofi.h"
#include "net/ofi_int.h"

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "gasket.h"

struct gk__ofi gk__ofi = {.cq_fd = -1, .stop_fd = {-1, -1}};

#define OFI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ------------------------------------------------------------------------ */
/* Loading                                                                  */
/* ------------------------------------------------------------------------ */

struct gk__ofi_lib gk__ofi_lib;

/* The signals whose handlers libfabric's providers' libraries (PSM's)
 * replace when they load or start, with one that exits with status 1
 * after a backtrace: a PE that crashes must die of its signal, so that
 * the launcher reports it as such. Kept and put back around both. */
static const int ofi_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define OFI_N_SIGNALS (sizeof(ofi_signals) / sizeof(ofi_signals[0]))

static void ofi_signals_save(struct sigaction *saved)
{
    for (size_t i = 0; i < OFI_N_SIGNALS; i++)
        sigaction(ofi_signals[i], NULL, &saved[i]);
}

static void ofi_signals_restore(const struct sigaction *saved)
{
    for (size_t i = 0; i < OFI_N_SIGNALS; i++)
        sigaction(ofi_signals[i], &saved[i], NULL);
}

/* Provider settings whose default does not suit gasket, unless the user
 * set them. The sockets provider's own progress thread spins for
 * FI_SOCKETS_PE_WAITTIME (10 ms) after every operation before it sleeps
 * on its sockets: beside a PE on its core, and gasket's progress thread,
 * that spinning takes the CPU the operation's answer needs (a fetch-add's
 * round trip across 2 simulated hosts on 2 CPUs: 3.5 ms; with 0, 0.19 ms).
 * libfabric reads them when it starts, at the first fi_getinfo. */
static void ofi_defaults(void)
{
    setenv("FI_SOCKETS_PE_WAITTIME", "0", 0);
}

/* Loads libfabric once (ofi_int.h, struct gk__ofi_lib); never unloaded. */
static int ofi_load(void)
{
    static void *handle;
    if (handle != NULL)
        return GK_OK;
    ofi_defaults();
    struct sigaction saved[OFI_N_SIGNALS];
    ofi_signals_save(saved);
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    ofi_signals_restore(saved);
    if (h == NULL) {
        gk__error("GK_NET=ofi: loading libfabric (libfabric.so.1) failed: %s", dlerror());
        return GK_ERR_UNSUPPORTED;
    }
    struct gk__ofi_lib lib;
    *(void **)&lib.getinfo = dlsym(h, "fi_getinfo");
    *(void **)&lib.freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&lib.dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&lib.fabric = dlsym(h, "fi_fabric");
    *(void **)&lib.strerror = dlsym(h, "fi_strerror");
    *(void **)&lib.version = dlsym(h, "fi_version");
    if (lib.getinfo == NULL || lib.freeinfo == NULL || lib.dupinfo == NULL ||
        lib.fabric == NULL || lib.strerror == NULL || lib.version == NULL) {
        gk__error("GK_NET=ofi: libfabric.so.1 lacks fi_getinfo, fi_dupinfo, fi_fabric or "
                  "fi_strerror");
        dlclose(h);
        return GK_ERR_UNSUPPORTED;
    }
    gk__ofi_lib = lib;
    handle = h;
    return GK_OK;
}

const char *gk__ofi_version(void)
{
    static char version[32];
    if (ofi_load() != GK_OK)
        return "(libfabric.so.1 does not load)";
    uint32_t v = gk__ofi_lib.version();
    snprintf(version, sizeof(version), "%u.%u", FI_MAJOR(v), FI_MINOR(v));
    return version;
}

/* ------------------------------------------------------------------------ */
/* Failures                                                                 */
/* ------------------------------------------------------------------------ */

/* What libfabric says of an operation whose peer went away. */
static int ofi_peer_gone(int err)
{
    switch (err) {
    case FI_ECONNRESET:
    case FI_ECONNREFUSED:
    case FI_ECONNABORTED:
    case FI_ENOTCONN:
    case FI_EHOSTUNREACH:
    case FI_ENETUNREACH:
    case FI_EIO:
    case FI_ETIMEDOUT:
        return 1;
    default:
        return 0;
    }
}

int gk__ofi_status(ssize_t rc, const char *what, int pe)
{
    if (rc == 0)
        return GK_OK;
    int err = (int)(rc < 0 ? -rc : rc);
    if (pe >= 0 && ofi_peer_gone(err) && gk__ofi.joined &&
        !atomic_load_explicit(&gk__ofi.closing, memory_order_acquire))
        gk__remote_peer_failed(gk__ofi.boot, pe, gk__ofi_strerror(err));
    if (pe >= 0)
        gk__error("%s to PE %d failed: %s", what, pe, gk__ofi_strerror(err));
    else
        gk__error("%s failed: %s", what, gk__ofi_strerror(err));
    return err == FI_ENOMEM ? GK_ERR_NOMEM : GK_ERR_SYSTEM;
}

/* ------------------------------------------------------------------------ */
/* Start-up                                                                 */
/* ------------------------------------------------------------------------ */

/* What each PE tells the others (one fixed-size allgather). */
#define OFI_ADDR_MAX 64
struct ofi_blob {
    int32_t status; /* GK_OK, or this PE failed */
    uint32_t addr_len;
    uint64_t seg_base;
    uint64_t key;
    char addr[OFI_ADDR_MAX];
};

/* The endpoint's wishes (top comment). */
static struct fi_info *ofi_hints(void)
{
    struct fi_info *hints = gk__ofi_lib.dupinfo(NULL);
    if (hints == NULL)
        return NULL;
    hints->caps = FI_MSG | FI_RMA;
    hints->mode = 0; /* our contexts are ours alone */
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    /* Not FI_MR_LOCAL: our sources and destinations are any memory. */
    hints->domain_attr->mr_mode =
        FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    return hints;
}

/* Providers that cannot reach another node: libfabric's own choice must
 * not be one of them (FI_PROVIDER may still name it). */
static int ofi_node_local(const struct fi_info *info)
{
    const char *name = info->fabric_attr->prov_name;
    return name != NULL && (strcmp(name, "shm") == 0 || strstr(name, "shm;") == name);
}

/* The first provider that fits: FI_PROVIDER's, or libfabric's choice. */
static int ofi_info_get(struct fi_info **info_p)
{
    struct fi_info *hints = ofi_hints(), *list = NULL;
    if (hints == NULL) {
        gk__error("out of memory for libfabric's hints");
        return GK_ERR_NOMEM;
    }
    struct sigaction saved[OFI_N_SIGNALS];
    ofi_signals_save(saved);
    int rc = gk__ofi_lib.getinfo(FI_VERSION(1, 5), NULL, NULL, 0, hints, &list);
    ofi_signals_restore(saved);
    gk__ofi_lib.freeinfo(hints);
    const char *prov = getenv("FI_PROVIDER");
    struct fi_info *pick = NULL;
    for (struct fi_info *i = rc == 0 ? list : NULL; i != NULL && pick == NULL; i = i->next)
        if (prov != NULL || !ofi_node_local(i))
            pick = i;
    if (pick == NULL) {
        if (prov != NULL)
            gk__error("FI_PROVIDER=%s: no libfabric provider of that name gives gasket a "
                      "reliable-datagram endpoint with messages in order, RMA and writes "
                      "complete at the target (fi_info -l lists the providers)",
                      prov);
        else
            gk__error("no libfabric provider gives gasket a reliable-datagram endpoint with "
                      "messages in order, RMA and writes complete at the target (%s); name "
                      "one with FI_PROVIDER",
                      rc != 0 ? gk__ofi_strerror(-rc) : "none found");
        gk__ofi_lib.freeinfo(list);
        return GK_ERR_UNSUPPORTED;
    }
    *info_p = gk__ofi_lib.dupinfo(pick);
    gk__ofi_lib.freeinfo(list);
    if (*info_p == NULL) {
        gk__error("out of memory for libfabric's provider information");
        return GK_ERR_NOMEM;
    }
    return GK_OK;
}

/* A provider whose puts are messages that the target's software copies
 * (net.h, GK__NET_CAP_RMA_BY_MESSAGES). */
static int ofi_rma_by_messages(const struct fi_info *info)
{
    const char *name = info->fabric_attr->prov_name;
    return name != NULL && (strstr(name, "tcp") != NULL || strstr(name, "sockets") != NULL ||
                            strstr(name, "udp") != NULL);
}

#define OFI_CHECK(call, what)                                                                  \
    do {                                                                                       \
        int rc_ = (int)(call);                                                                 \
        if (rc_ != 0)                                                                          \
            return gk__ofi_status(rc_, what, -1);                                              \
    } while (0)

/* Opens the fabric, domain, queue, address vector and endpoint, and
 * registers the segment. */
static int ofi_endpoint_open(const struct gk__seg *my_seg)
{
    struct gk__ofi *o = &gk__ofi;
    struct fi_info *info = o->info;
    /* Delivery completion is asked of writes alone (ofi_rma): a send is
     * done once it is on its way. */
    info->tx_attr->op_flags = 0;
    o->write_flags = FI_DELIVERY_COMPLETE;
    o->send_after_write = (info->tx_attr->msg_order & FI_ORDER_SAW) != 0;
    o->send_after_read = (info->tx_attr->msg_order & FI_ORDER_SAR) != 0;
    o->inject_max = info->tx_attr->inject_size;
    OFI_CHECK(gk__ofi_lib.fabric(info->fabric_attr, &o->fabric, NULL), "opening the fabric (fi_fabric)");
    OFI_CHECK(fi_domain(o->fabric, info, &o->domain, NULL), "opening the domain (fi_domain)");
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_FD,
                                 .size = 4096};
    OFI_CHECK(fi_cq_open(o->domain, &cq_attr, &o->cq, NULL),
              "opening the completion queue with a wait descriptor (fi_cq_open)");
    OFI_CHECK(fi_control(&o->cq->fid, FI_GETWAIT, &o->cq_fd),
              "getting the completion queue's descriptor (FI_GETWAIT)");
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)o->n_pes};
    OFI_CHECK(fi_av_open(o->domain, &av_attr, &o->av, NULL), "opening the address vector");
    OFI_CHECK(fi_endpoint(o->domain, info, &o->ep, NULL), "opening the endpoint (fi_endpoint)");
    OFI_CHECK(fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV),
              "binding the completion queue");
    OFI_CHECK(fi_ep_bind(o->ep, &o->av->fid, 0), "binding the address vector");
    OFI_CHECK(fi_enable(o->ep), "enabling the endpoint (fi_enable)");
    int rc = fi_mr_reg(o->domain, my_seg->base, my_seg->size,
                       FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &o->mr,
                       NULL);
    if (rc != 0) {
        o->mr = NULL;
        gk__error("registering this PE's segment (%zu bytes at %p) with libfabric failed: %s",
                  my_seg->size, (void *)my_seg->base, gk__ofi_strerror(-rc));
        return GK_ERR_SYSTEM;
    }
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        OFI_CHECK(fi_mr_bind(o->mr, &o->ep->fid, 0), "binding the segment's registration");
        OFI_CHECK(fi_mr_enable(o->mr), "enabling the segment's registration");
    }
    o->recvs = calloc(GK__OFI_RECV_BUFS, sizeof(*o->recvs));
    if (o->recvs == NULL) {
        gk__error("out of memory for the network's receive buffers");
        return GK_ERR_NOMEM;
    }
    return gk__ofi_post_recvs();
}

static int ofi_blob_build(const struct gk__seg *my_seg, struct ofi_blob *blob)
{
    struct gk__ofi *o = &gk__ofi;
    size_t len = sizeof(blob->addr);
    int rc = fi_getname(&o->ep->fid, blob->addr, &len);
    if (rc != 0)
        return gk__ofi_status(rc, "getting the endpoint's address (fi_getname)", -1);
    uint64_t key = fi_mr_key(o->mr);
    if (key == FI_KEY_NOTAVAIL) {
        gk__error("the provider %s has memory keys larger than 64 bits (FI_MR_RAW), which "
                  "gasket does not handle",
                  o->info->fabric_attr->prov_name);
        return GK_ERR_UNSUPPORTED;
    }
    blob->addr_len = (uint32_t)len;
    blob->seg_base = (uint64_t)(uintptr_t)my_seg->base;
    blob->key = key;
    return GK_OK;
}

/* Takes every peer nobody else reaches, from the PEs' blobs. */
static int ofi_assign(const struct ofi_blob *blobs)
{
    struct gk__ofi *o = &gk__ofi;
    int virt = (o->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    unsigned caps = GK__NET_CAP_CPU_ATOMICS;
    if (ofi_rma_by_messages(o->info))
        caps |= GK__NET_CAP_RMA_BY_MESSAGES;
    for (int pe = 0; pe < o->n_pes; pe++) {
        if (pe == o->my_pe || o->peers[pe].transport != NULL)
            continue;
        const struct ofi_blob *b = &blobs[pe];
        struct gk__ofi_peer *p = &o->ofi_peers[pe];
        int rc = fi_av_insert(o->av, b->addr, 1, &p->addr, 0, NULL);
        if (rc != 1) {
            gk__error("PE %d: its network address does not go into libfabric's address "
                      "vector (%s)",
                      pe, gk__ofi_strerror(rc < 0 ? -rc : FI_EINVAL));
            return GK_ERR_UNREACHABLE;
        }
        p->key = b->key;
        p->rma_base = virt ? b->seg_base : 0;
        o->peers[pe] = (struct gk__net_peer){.transport = &gk__ofi_transport, .caps = caps,
                                             .priv = p};
        o->n_remote++;
    }
    return GK_OK;
}

/* The copies of messages sent (a reply the progress thread sent just
 * before it stopped) are freed at their completions: reads the queue
 * until none is live, for at most a second (a peer gone may never let
 * them complete), napping between reads. */
static void ofi_sends_settle(void)
{
    struct gk__ofi *o = &gk__ofi;
    for (int ms = 0; o->cq != NULL && ms < 1000 &&
                     atomic_load_explicit(&o->sends_live, memory_order_acquire) != 0;
         ms++) {
        if (gk__ofi_progress() == 0)
            poll(NULL, 0, 1);
    }
}

/* Undoes whatever part of start-up got done, on this PE alone. */
static void ofi_release(void)
{
    struct gk__ofi *o = &gk__ofi;
    atomic_store_explicit(&o->closing, 1, memory_order_release);
    gk__ofi_thread_stop();
    ofi_sends_settle();
    for (int pe = 0; o->ofi_peers != NULL && pe < o->n_pes; pe++) {
        if (o->peers[pe].priv == &o->ofi_peers[pe])
            o->peers[pe] = (struct gk__net_peer){0};
    }
    if (o->ep != NULL)
        fi_close(&o->ep->fid);
    if (o->mr != NULL)
        fi_close(&o->mr->fid);
    if (o->av != NULL)
        fi_close(&o->av->fid);
    if (o->cq != NULL)
        fi_close(&o->cq->fid);
    if (o->domain != NULL)
        fi_close(&o->domain->fid);
    if (o->fabric != NULL)
        fi_close(&o->fabric->fid);
    o->ep = NULL;
    o->mr = NULL;
    o->av = NULL;
    o->cq = NULL;
    o->domain = NULL;
    o->fabric = NULL;
    o->cq_fd = -1;
    if (o->info != NULL)
        gk__ofi_lib.freeinfo(o->info);
    o->info = NULL;
    gk__ofi_deferred_free();
    free(o->recvs);
    o->recvs = NULL;
    free(o->ofi_peers);
    o->ofi_peers = NULL;
    gk__remote_inbox_fini(&o->inbox);
    pthread_mutex_destroy(&o->progress_lock);
    o->joined = 0;
    o->n_remote = 0;
}

/*
 * Collective over all PEs: opens the endpoint, registers the segment,
 * exchanges the PEs' addresses and keys and claims every peer no other
 * transport did; starts the progress thread. A failure on any PE fails it
 * on every PE, each having undone its part.
 */
static int ofi_open(const struct gk__net_start *start)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__boot *boot = start->boot;
    const struct gk__seg *my_seg = start->my_seg;
    *o = (struct gk__ofi){.cq_fd = -1, .stop_fd = {-1, -1}, .boot = boot,
                          .peers = start->peers, .self = &start->peers[boot->rank],
                          .my_wake = &my_seg->header->wake, .seg_base = my_seg->base,
                          .seg_size = my_seg->size, .heap = my_seg->heap,
                          .heap_size = my_seg->header->heap_size, .n_pes = boot->size,
                          .my_pe = boot->rank,
                          .probe_ns = (uint64_t)start->config->ofi_probe_ms * 1000000u,
                          .linger_ns = (uint64_t)start->config->ofi_linger_us * 1000u};
    gk__remote_inbox_init(&o->inbox, start->peers[boot->rank].direct);
    pthread_mutex_init(&o->progress_lock, NULL);
    o->ofi_peers = calloc((size_t)o->n_pes, sizeof(*o->ofi_peers));
    int status = o->ofi_peers != NULL ? GK_OK : GK_ERR_NOMEM;
    if (status != GK_OK)
        gk__error("out of memory for the network state of %d PEs", o->n_pes);
    for (int pe = 0; status == GK_OK && pe < o->n_pes; pe++)
        o->ofi_peers[pe] = (struct gk__ofi_peer){.nbi = {GK__OFI_CTX_NBI, pe}, .pe = pe};
    if (status == GK_OK)
        status = ofi_load();
    if (status == GK_OK)
        status = ofi_info_get(&o->info);
    if (status == GK_OK)
        status = ofi_endpoint_open(my_seg);
    struct ofi_blob mine = {0};
    if (status == GK_OK)
        status = ofi_blob_build(my_seg, &mine);
    mine.status = status;
    struct ofi_blob *blobs = calloc((size_t)o->n_pes, sizeof(*blobs));
    if (blobs == NULL) /* the others wait for us in the exchange */
        boot->ops->abort(boot, 1, "out of memory for the PEs' network addresses");
    int exchanged = gk__boot_allgather(boot, &mine, blobs, sizeof(mine));
    for (int pe = 0; exchanged == GK_OK && status == GK_OK && pe < o->n_pes; pe++) {
        if (blobs[pe].status != GK_OK) {
            gk__error("the libfabric transport failed to start on PE %d", pe);
            status = GK_ERR_UNREACHABLE;
        }
    }
    if (status == GK_OK)
        status = exchanged;
    if (status == GK_OK)
        status = ofi_assign(blobs);
    free(blobs);
    if (status != GK_OK) {
        ofi_release();
        return status;
    }
    o->joined = 1;
    if (o->n_remote > 0 && gk__ofi_thread_start() != GK_OK)
        gk__warn("no libfabric progress thread: one-sided operations from other PEs progress "
                 "only while this PE calls gasket");
    gk__debug("libfabric %s, provider %s on %s: %d peers", gk__ofi_version(),
              o->info->fabric_attr->prov_name, o->info->fabric_attr->name, o->n_remote);
    return GK_OK;
}

static int ofi_quiet(void);

/* After the job's last barrier, on every PE that opened: completes what is
 * in flight, lets every PE stop taking a vanishing peer for a failure (an
 * out-of-band barrier, while the progress thread still serves the others'
 * last operations), then releases everything. */
static void ofi_close(void)
{
    struct gk__ofi *o = &gk__ofi;
    if (o->ep == NULL)
        return;
    ofi_quiet();
    atomic_store_explicit(&o->closing, 1, memory_order_release);
    if (o->joined) {
        if (!atomic_load_explicit(&o->thread_running, memory_order_relaxed) &&
            gk__ofi_thread_start() != GK_OK)
            gk__warn("closing libfabric without its progress thread: a PE still waiting for "
                     "this one may wait until the job's time limit");
        gk__boot_barrier(o->boot);
    }
    ofi_release();
}

/* Opened on every PE as soon as any PE has a peer no mapping reaches (as
 * the UCX transport is), when the job chose this transport (net.c). */
static int ofi_module_open(const struct gk__net_start *start)
{
    struct gk__boot *boot = start->boot;
    int spans = start->config->net_force_ucx && boot->size > 1;
    for (int pe = 0; pe < boot->size && !spans; pe++)
        spans = boot->node_id[pe] != boot->node_id[0];
    if (!spans)
        return GK_OK;
    return ofi_open(start);
}

const struct gk__net_module gk__ofi_module = {
    .name = "ofi",
    .open = ofi_module_open,
    .close = ofi_close,
};

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

static inline struct gk__ofi_peer *ofi_peer(const struct gk__net_peer *peer)
{
    return peer->priv;
}

static int ofi_wait_rma(void)
{
    struct gk__ofi *o = &gk__ofi;
    if (atomic_load_explicit(&o->rma_out, memory_order_acquire) == 0)
        return GK_OK;
    return gk__ofi_wait_zero(&o->rma_out, &o->rma_sleepers);
}

static int ofi_wait_acked(void)
{
    struct gk__ofi *o = &gk__ofi;
    if (atomic_load_explicit(&o->unacked, memory_order_acquire) == 0)
        return GK_OK;
    return gk__ofi_wait_zero(&o->unacked, &o->unacked_sleepers);
}

/* Before a put or a get: the posted operations before a fence are run
 * (top comment, "Ordering"). */
static inline int ofi_order_rma(void)
{
    struct gk__ofi *o = &gk__ofi;
    if (OFI_UNLIKELY(atomic_load_explicit(&o->fenced, memory_order_relaxed))) {
        int status = ofi_wait_acked();
        if (status != GK_OK)
            return status;
        atomic_store_explicit(&o->fenced, 0, memory_order_relaxed);
    }
    return GK_OK;
}

/* Before a message: the writes before it are placed, where the provider
 * does not keep that order itself. */
static inline int ofi_order_msg(void)
{
    return gk__ofi.send_after_write ? GK_OK : ofi_wait_rma();
}

/* One fi_writemsg or fi_readmsg, retried while the provider is busy. */
static int ofi_rma(struct gk__ofi_peer *p, int write, void *local, size_t n, size_t offset,
                   void *context)
{
    struct gk__ofi *o = &gk__ofi;
    struct iovec iov = {.iov_base = local, .iov_len = n};
    struct fi_rma_iov rma = {.addr = p->rma_base + offset, .len = n, .key = p->key};
    struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = p->addr,
                             .rma_iov = &rma, .rma_iov_count = 1, .context = context};
    unsigned tries = 0;
    for (;;) {
        ssize_t rc = write ? fi_writemsg(o->ep, &msg, FI_COMPLETION | o->write_flags)
                           : fi_readmsg(o->ep, &msg, FI_COMPLETION);
        if (rc == 0 && gk__ofi_rma_probed(write))
            gk__ofi_op_posted(p->pe);
        if (rc != -FI_EAGAIN)
            return gk__ofi_status(rc, write ? "put" : "get", p->pe);
        int status = gk__ofi_eagain(&tries);
        if (status != GK_OK)
            return status;
    }
}

/* A non-blocking put or get, counted for quiet. */
static int ofi_rma_nbi(struct gk__ofi_peer *p, int write, void *local, size_t n, size_t offset,
                       void *context)
{
    struct gk__ofi *o = &gk__ofi;
    atomic_fetch_add_explicit(&o->rma_out, 1, memory_order_relaxed);
    int status = ofi_rma(p, write, local, n, offset, context);
    if (status != GK_OK)
        gk__ofi_count_down(&o->rma_out, &o->rma_sleepers);
    return status;
}

/* A blocking put or get: waits for its completion. */
static int ofi_rma_wait(struct gk__ofi_peer *p, int write, void *local, size_t n, size_t offset)
{
    struct gk__ofi_req req;
    gk__ofi_req_init(&req, p->pe);
    int status = ofi_rma(p, write, local, n, offset, &req);
    if (status == GK_OK)
        status = gk__ofi_wait_done(&req);
    if (status == GK_OK)
        status = req.status;
    return status;
}

static int ofi_put_nbi(struct gk__net_peer *peer, size_t offset, const void *src, size_t n)
{
    struct gk__ofi_peer *p = ofi_peer(peer);
    int status = ofi_order_rma();
    if (status != GK_OK || n == 0)
        return status;
    return ofi_rma_nbi(p, 1, (void *)src, n, offset, &p->nbi);
}

static int ofi_put(struct gk__net_peer *peer, size_t offset, const void *src, size_t n)
{
    struct gk__ofi_peer *p = ofi_peer(peer);
    int status = ofi_order_rma();
    if (status != GK_OK || n == 0)
        return status;
    if (n > GK__OFI_PAYLOAD_MAX)
        return ofi_rma_wait(p, 1, (void *)src, n, offset);
    /* From a copy, done with at its completion: the caller goes on now. */
    struct gk__ofi_send *s = gk__ofi_send_new(p->pe, 1, n);
    if (s == NULL)
        return ofi_rma_wait(p, 1, (void *)src, n, offset);
    memcpy(s->data, src, n);
    atomic_fetch_add_explicit(&gk__ofi.rma_out, 1, memory_order_relaxed);
    status = ofi_rma(p, 1, s->data, n, offset, s);
    if (status != GK_OK) {
        gk__ofi_count_down(&gk__ofi.rma_out, &gk__ofi.rma_sleepers);
        gk__ofi_send_free(s);
    }
    return status;
}

static int ofi_get(struct gk__net_peer *peer, void *dst, size_t offset, size_t n)
{
    int status = ofi_order_rma();
    if (status != GK_OK || n == 0)
        return status;
    return ofi_rma_wait(ofi_peer(peer), 0, dst, n, offset);
}

static int ofi_get_nbi(struct gk__net_peer *peer, void *dst, size_t offset, size_t n)
{
    struct gk__ofi_peer *p = ofi_peer(peer);
    int status = ofi_order_rma();
    if (status != GK_OK || n == 0)
        return status;
    return ofi_rma_nbi(p, 0, dst, n, offset, &p->nbi);
}

static int ofi_wake(struct gk__net_peer *peer, uint64_t lo, uint64_t hi)
{
    struct gk__ofi_peer *p = ofi_peer(peer);
    int status = ofi_order_msg();
    if (status != GK_OK)
        return status;
    struct gk__ofi_wake_msg m = {{GK__OFI_WAKE, 0, (uint32_t)gk__ofi.my_pe}, lo, hi};
    return gk__ofi_send(p->pe, &m, sizeof(m), NULL, 0, 0);
}

static int ofi_am_post(struct gk__net_peer *peer, unsigned kind, const struct gk__net_am *msg,
                       const uint64_t *args, const void *payload, size_t data_len)
{
    struct gk__ofi_peer *p = ofi_peer(peer);
    int status = ofi_order_msg();
    if (status != GK_OK)
        return status;
    struct gk__ofi_am_msg m = {.w = {(uint16_t)kind, 0, (uint32_t)gk__ofi.my_pe}, .msg = *msg};
    unsigned nargs = msg->nargs <= GK__NET_AM_MAX_ARGS ? msg->nargs : GK__NET_AM_MAX_ARGS;
    memcpy(m.args, args, nargs * sizeof(uint64_t));
    size_t len = offsetof(struct gk__ofi_am_msg, args) + nargs * sizeof(uint64_t);
    status = gk__ofi_send(p->pe, &m, len, payload, data_len, 0);
    if (status == GK_OK) /* the progress engine's quiescence counts it */
        atomic_fetch_add_explicit(&gk__net_am_sent, 1, memory_order_release);
    return status;
}

static int ofi_am_send(struct gk__net_peer *peer, const struct gk__net_am *msg,
                       const uint64_t *args, const void *payload)
{
    return ofi_am_post(peer, GK__OFI_AM, msg, args, payload,
                       payload != NULL ? (size_t)msg->nbytes : 0);
}

static int ofi_am_send_long(struct gk__net_peer *peer, const struct gk__net_am *msg,
                            const uint64_t *args, const void *payload)
{
    return ofi_am_post(peer, GK__OFI_AM_LONG, msg, args, payload, (size_t)msg->nbytes);
}

static int ofi_rop_post(struct gk__net_peer *peer, enum gk__net_rop op, const uint64_t *args,
                        const void *payload, size_t nbytes, enum gk__net_post how)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__ofi_peer *p = ofi_peer(peer);
    int status = ofi_order_msg();
    if (status != GK_OK)
        return status;
    int acked = how == GK__NET_POST_QUIET;
    struct gk__ofi_rop_msg m = {.w = {GK__OFI_ROP_POST, acked ? GK__OFI_ACKED : 0,
                                      (uint32_t)o->my_pe},
                                .op = (uint32_t)op};
    memcpy(m.args, args, sizeof(m.args));
    if (acked)
        atomic_fetch_add_explicit(&o->unacked, 1, memory_order_relaxed);
    status = gk__ofi_send(p->pe, &m, sizeof(m), payload, nbytes, 0);
    if (status != GK_OK && acked) /* never acknowledged */
        gk__ofi_count_down(&o->unacked, &o->unacked_sleepers);
    else if (acked)
        gk__ofi_op_posted(p->pe);
    return status;
}

static int ofi_rop(struct gk__net_peer *peer, enum gk__net_rop op, const uint64_t *args,
                   const void *payload, size_t nbytes, struct gk__net_rop_answer *answer)
{
    struct gk__ofi *o = &gk__ofi;
    struct gk__ofi_peer *p = ofi_peer(peer);
    if (answer->max > GK__OFI_PAYLOAD_MAX) {
        gk__error("remote operation %d to PE %d: %zu bytes of answer, more than the %zu a "
                  "reply carries",
                  (int)op, p->pe, answer->max, GK__OFI_PAYLOAD_MAX);
        return GK_ERR_INVALID_ARG;
    }
    int status = ofi_order_msg();
    if (status != GK_OK)
        return status;
    unsigned slot = gk__remote_rop_take(&o->rops);
    gk__ofi_req_init(&o->rop_reqs[slot], p->pe);
    struct gk__ofi_rop_msg m = {.w = {GK__OFI_ROP, 0, (uint32_t)o->my_pe},
                                .op = (uint32_t)op,
                                .answer_max = (uint32_t)answer->max,
                                .token = gk__remote_rop_arm(&o->rops, slot, answer)};
    memcpy(m.args, args, sizeof(m.args));
    status = gk__ofi_send(p->pe, &m, sizeof(m), payload, nbytes, 0);
    if (status == GK_OK) {
        gk__ofi_op_posted(p->pe);
        status = gk__ofi_wait_done(&o->rop_reqs[slot]);
    }
    return gk__remote_rop_end(&o->rops, m.token, status, (int)op, p->pe);
}

/* An atomic as the remote operation that runs it with the target's CPU
 * atomics (top comment, "Atomics"); a plain fetch as an OR of nothing. */
static int ofi_atomic(struct gk__net_peer *peer, enum gk__amo_op op, size_t width, size_t offset,
                      uint64_t operand, uint64_t compare, uint64_t *result_p)
{
    if (op == GK__AMO_FETCH) {
        op = GK__AMO_FETCH_OR;
        operand = 0;
    }
    uint64_t args[GK__NET_ROP_ARGS] = {offset, (uint64_t)op | (uint64_t)width << 8, operand,
                                       compare};
    if (result_p == NULL)
        return ofi_rop_post(peer, GK__NET_ROP_ATOMIC, args, NULL, 0, GK__NET_POST_QUIET);
    struct gk__net_rop_answer answer = {0};
    int status = ofi_rop(peer, GK__NET_ROP_ATOMIC, args, NULL, 0, &answer);
    if (status == GK_OK)
        *result_p = answer.result;
    else if (status == GK_ERR_UNSUPPORTED)
        gk__error("atomic to PE %d: it refused the operation (its log says why)",
                  ofi_peer(peer)->pe);
    return status;
}

static int ofi_fence(void)
{
    atomic_store_explicit(&gk__ofi.fenced, 1, memory_order_relaxed);
    return GK_OK;
}

static int ofi_quiet(void)
{
    struct gk__ofi *o = &gk__ofi;
    int status = ofi_wait_rma();
    if (status == GK_OK)
        status = ofi_wait_acked();
    if (status != GK_OK)
        return status;
    atomic_store_explicit(&o->fenced, 0, memory_order_relaxed);
    return gk__remote_refusals_check(&o->refusals);
}

static int ofi_flush(struct gk__net_peer *peer)
{
    (void)peer;
    return ofi_quiet();
}

const struct gk__net_transport gk__ofi_transport = {
    .name = "ofi",
    .put = ofi_put,
    .put_nbi = ofi_put_nbi,
    .get = ofi_get,
    .get_nbi = ofi_get_nbi,
    .atomic = ofi_atomic,
    .wake = ofi_wake,
    .am_send = ofi_am_send,
    .am_send_long = ofi_am_send_long,
    .am_long_max = GK__OFI_PAYLOAD_MAX,
    .rop = ofi_rop,
    .rop_post = ofi_rop_post,
    .rop_max = GK__OFI_PAYLOAD_MAX,
    .flush = ofi_flush,
    .fence = ofi_fence,
    .quiet = ofi_quiet,
    .progress = gk__ofi_progress,
};

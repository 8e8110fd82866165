/*
 * net.c: the registry of transports (net.h, struct gk__net_module), their
 * opening and closing, the set of transports this PE uses, and the
 * operations that go to each of them.
 */
#include "net/net.h"

#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "boot/boot.h"
#include "gasket.h"
#include "net/shm.h"
#ifdef GK_HAVE_UCX
#include "net/ucx.h"
#endif
#ifdef GK_HAVE_OFI
#include "net/ofi.h"
#endif

/*
 * The transports, in the order they claim peers: shm first (this PE
 * itself, and the PEs of this node whose segments it maps), then the
 * network for the rest: the one network transport the job chose
 * (GK_NET). A new transport is a file of src/net/ and one line here.
 */
static const struct gk__net_module *const net_modules[] = {
    &gk__shm_module,
#ifdef GK_HAVE_UCX
    &gk__ucx_module,
#endif
#ifdef GK_HAVE_OFI
    &gk__ofi_module,
#endif
};
#define NET_N_MODULES (sizeof(net_modules) / sizeof(net_modules[0]))

/* The network transports GK_NET may name, built or not, and what each
 * needs at build time. */
static const struct {
    const char *name, *library;
} net_networks[] = {{"ucx", "UCX (libucx-dev)"}, {"ofi", "libfabric (libfabric-dev)"}};

const struct gk__net_transport *gk__net_used[GK__NET_MAX_TRANSPORTS];
int gk__net_n_used;
int gk__net_remote;
_Atomic uint64_t gk__net_am_sent;
_Atomic uint64_t gk__net_am_landed;
_Atomic uint64_t gk__net_am_waiting;
static gk__net_rop_fn net_rops[GK__NET_ROPS];
static unsigned char net_rops_aligned[GK__NET_ROPS]; /* gk__net_rop_set_aligned */
/* For each transport in gk__net_used, the capability bits all of its
 * peers share. */
static unsigned net_used_caps[GK__NET_MAX_TRANSPORTS];
/* Some transport in use has only GK__NET_CAP_DONE_ON_RETURN peers: its
 * fence and quiet are this PE's memory fence. */
static int net_any_done;

static void net_use(const struct gk__net_peer *peer)
{
    int i = 0;
    while (i < gk__net_n_used && gk__net_used[i] != peer->transport)
        i++;
    if (i == gk__net_n_used) {
        if (i == GK__NET_MAX_TRANSPORTS)
            return;
        gk__net_used[gk__net_n_used++] = peer->transport;
        net_used_caps[i] = peer->caps;
    }
    net_used_caps[i] &= peer->caps;
    /* Only a transport whose operations need driving has progress. */
    if (peer->transport->progress != NULL)
        gk__net_remote = 1;
}

static void net_reset(void)
{
    gk__net_n_used = 0;
    gk__net_remote = 0;
    net_any_done = 0;
    atomic_store(&gk__net_am_sent, 0);
    atomic_store(&gk__net_am_landed, 0);
    atomic_store(&gk__net_am_waiting, 0);
}

/*
 * The network transport the job chose (GK_NET): "ucx" or "ofi"; "auto" is
 * UCX where it is built, else libfabric. NULL, said, for a value that
 * names none, or one this gasket was built without.
 */
static const char *net_chosen(const struct gk__config *config)
{
    const char *net = config->net != NULL ? config->net : "auto";
    if (strcmp(net, "auto") == 0) {
#if defined(GK_HAVE_UCX) || !defined(GK_HAVE_OFI)
        return "ucx";
#else
        return "ofi";
#endif
    }
    for (size_t i = 0; i < sizeof(net_networks) / sizeof(net_networks[0]); i++) {
        if (strcmp(net, net_networks[i].name) != 0)
            continue;
        for (size_t m = 0; m < NET_N_MODULES; m++)
            if (strcmp(net_modules[m]->name, net) == 0)
                return net;
        gk__error("GK_NET=%s: this gasket was built without %s", net, net_networks[i].library);
        return NULL;
    }
    gk__error("GK_NET=%s: not a network transport (auto, ucx or ofi)", net);
    return NULL;
}

/* Whether module opens in this job: shm always, a network transport when
 * it is the chosen one. */
static int net_module_used(const struct gk__net_module *module, const char *chosen)
{
    return module == &gk__shm_module || strcmp(module->name, chosen) == 0;
}

/* A peer that no transport claimed: the chosen network transport, where it
 * is built, claims every peer that shm leaves, so only a gasket without it
 * should get here. */
static int net_unreachable(const struct gk__net_start *start, const char *chosen, int pe)
{
    for (size_t m = 0; m < NET_N_MODULES; m++) {
        if (m > 0 && strcmp(net_modules[m]->name, chosen) == 0) {
            gk__error("PE %d: no transport of this gasket reaches it", pe);
            return GK_ERR_UNREACHABLE;
        }
    }
    gk__error("PE %d is %s, and this gasket was built without %s, its network transport", pe,
              start->config->net_force_ucx ? "to be reached through the network "
                                             "(GK_NET_FORCE_UCX)"
                                           : "on another node",
              chosen);
    return GK_ERR_UNREACHABLE;
}

/*
 * Takes the transports of the peers claimed so far into use, refusing one
 * whose atomics are not CPU atomics at the target (net.h, "Atomicity
 * domain"); after the last module, every peer must have been claimed.
 */
static int net_check_peers(const struct gk__net_start *start, const char *chosen, int last)
{
    for (int pe = 0; pe < start->boot->size; pe++) {
        struct gk__net_peer *peer = &start->peers[pe];
        if (peer->transport == NULL) {
            if (last)
                return net_unreachable(start, chosen, pe);
            continue;
        }
        if (!(peer->caps & GK__NET_CAP_CPU_ATOMICS)) {
            gk__error("PE %d: the %s transport's atomics are not CPU atomics at the target, "
                      "so they would not be atomic with the CPU atomics gasket uses on the "
                      "same words",
                      pe, peer->transport->name);
            return GK_ERR_UNSUPPORTED;
        }
        /* The bits that say which optional members the table fills. */
        if (peer->transport->rop != NULL && peer->transport->rop_post != NULL)
            peer->caps |= GK__NET_CAP_REMOTE_OPS;
        if (peer->transport->am_send_long != NULL)
            peer->caps |= GK__NET_CAP_AM_CARRIES_PAYLOAD;
        net_use(peer);
    }
    return GK_OK;
}

int gk__net_open_all(const struct gk__net_start *start, int status)
{
    net_reset();
    const char *chosen = net_chosen(start->config);
    if (chosen == NULL) {
        chosen = "";
        if (status == GK_OK)
            status = GK_ERR_INVALID_ARG;
    }
    size_t last = 0;
    for (size_t i = 0; i < NET_N_MODULES; i++)
        if (net_module_used(net_modules[i], chosen))
            last = i;
    for (size_t i = 0; i < NET_N_MODULES; i++) {
        const struct gk__net_module *module = net_modules[i];
        if (!net_module_used(module, chosen))
            continue;
        if (status == GK_OK)
            status = module->open(start);
        if (status == GK_OK)
            status = net_check_peers(start, chosen, i == last);
        status = start->agree(status);
        if (module->opened != NULL)
            module->opened(start, status);
        if (status != GK_OK)
            break;
    }
    for (int i = 0; i < gk__net_n_used; i++)
        if (net_used_caps[i] & GK__NET_CAP_DONE_ON_RETURN)
            net_any_done = 1;
    return status;
}

void gk__net_close_all(void)
{
    for (size_t i = NET_N_MODULES; i-- > 0;)
        if (net_modules[i]->close != NULL)
            net_modules[i]->close();
}

void gk__net_release_all(struct gk__net_peer *peers, int n_pes)
{
    for (size_t i = NET_N_MODULES; i-- > 0;)
        if (net_modules[i]->release != NULL)
            net_modules[i]->release(peers, n_pes);
}

/*
 * A transport that completes everything on return needs only this PE's
 * memory fence for its fence and quiet (net.h): one serves them all, and
 * only the others are asked.
 */
static int net_complete_all(int quiet)
{
    int status = GK_OK;
    if (net_any_done)
        atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < gk__net_n_used && status == GK_OK; i++)
        if (!(net_used_caps[i] & GK__NET_CAP_DONE_ON_RETURN))
            status = quiet ? gk__net_used[i]->quiet() : gk__net_used[i]->fence();
    return status;
}

int gk__net_fence_all(void)
{
    return net_complete_all(0);
}

int gk__net_quiet_all(void)
{
    return net_complete_all(1);
}

int gk__net_progress_remote(void)
{
    int events = 0;
    for (int i = 0; i < gk__net_n_used; i++) {
        if (gk__net_used[i]->progress == NULL)
            continue;
        int n = gk__net_used[i]->progress();
        if (n < 0)
            return n;
        events += n;
    }
    return events;
}

void gk__net_before_sleep(void)
{
    for (int i = 0; i < gk__net_n_used; i++)
        if (gk__net_used[i]->before_sleep != NULL)
            gk__net_used[i]->before_sleep();
}

void gk__net_rop_set(enum gk__net_rop op, gk__net_rop_fn fn)
{
    net_rops[op] = fn;
}

void gk__net_rop_set_aligned(enum gk__net_rop op, gk__net_rop_fn fn)
{
    net_rops[op] = fn;
    net_rops_aligned[op] = 1;
}

int gk__net_rop_wants_aligned(unsigned op)
{
    return op < GK__NET_ROPS && net_rops_aligned[op];
}

gk__net_rop_fn gk__net_rop(unsigned op)
{
    return op < GK__NET_ROPS ? net_rops[op] : NULL;
}

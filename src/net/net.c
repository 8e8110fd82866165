/*
 * net.c: the set of transports this PE uses (net.h), and the operations
 * that go to each of them.
 */
#include "net/net.h"

#include "gasket.h"

const struct gk__net_transport *gk__net_used[GK__NET_MAX_TRANSPORTS];
int gk__net_n_used;
int gk__net_remote;
_Atomic uint64_t gk__net_am_sent;
_Atomic uint64_t gk__net_am_landed;
_Atomic uint64_t gk__net_am_waiting;
static gk__net_rop_fn net_rops[GK__NET_ROPS];

void gk__net_use(const struct gk__net_transport *transport)
{
    for (int i = 0; i < gk__net_n_used; i++)
        if (gk__net_used[i] == transport)
            return;
    if (gk__net_n_used < GK__NET_MAX_TRANSPORTS)
        gk__net_used[gk__net_n_used++] = transport;
    /* Only a transport whose operations need driving has progress. */
    if (transport->progress != NULL)
        gk__net_remote = 1;
}

void gk__net_reset(void)
{
    gk__net_n_used = 0;
    gk__net_remote = 0;
    atomic_store(&gk__net_am_sent, 0);
    atomic_store(&gk__net_am_landed, 0);
    atomic_store(&gk__net_am_waiting, 0);
}

int gk__net_fence_all(void)
{
    int status = GK_OK;
    for (int i = 0; i < gk__net_n_used && status == GK_OK; i++)
        status = gk__net_used[i]->fence();
    return status;
}

int gk__net_quiet_all(void)
{
    int status = GK_OK;
    for (int i = 0; i < gk__net_n_used && status == GK_OK; i++)
        status = gk__net_used[i]->quiet();
    return status;
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

gk__net_rop_fn gk__net_rop(unsigned op)
{
    return op < GK__NET_ROPS ? net_rops[op] : NULL;
}

/*
 * ucx.h: the UCX transport, for peers whose segment is not mapped here
 * (another host, or every other PE under GK_NET_FORCE_UCX). It speaks
 * UCX's UCP API: puts, gets and atomics on the peer's registered segment
 * (its rkey and base address, exchanged at start-up), and UCP active
 * messages for gasket's active messages and wake-ups, which land in this
 * PE's own inbox (shm_ring.h) as a local sender's would.
 *
 * UCX's atomics are asked to be CPU atomics at the target (its atomic mode
 * "cpu"), so they share one atomicity domain with the runtime's own CPU
 * atomics on the same words (net.h). Where UCX emulates remote memory
 * access in software (its TCP transport) the target's worker must make
 * progress: a progress thread, blocked in the worker's event file
 * descriptor while nothing happens, makes the target passive.
 */
#ifndef GK_NET_UCX_H
#define GK_NET_UCX_H

#include "base/config.h"
#include "boot/boot.h"
#include "mem/segment.h"
#include "net/net.h"

extern const struct gk__net_transport gk__ucx_transport;

/*
 * Collective over all PEs (it uses gk__boot_allgather, and every PE must
 * call it, whether or not it has peers to reach through UCX): creates the
 * UCP context and worker, registers my_seg, exchanges worker addresses and
 * remote keys, and gives every peer whose transport is NULL to UCX
 * (peers[my_pe] must be mapped: arriving messages go to its inbox).
 * Starts the progress thread as config->ucx_progress_thread says. A
 * failure on any PE fails it on every PE, each having undone its part.
 */
int gk__ucx_open(struct gk__boot *boot, const struct gk__seg *my_seg, struct gk__net_peer *peers,
                 int my_pe, const struct gk__config *config);
/*
 * After the job's last barrier, on every PE that opened: completes what is
 * in flight, stops the progress thread, and releases everything. Collective
 * (an out-of-band barrier, so that no PE takes another's closing
 * connection for a failure). Harmless when not open.
 */
void gk__ucx_close(void);
/* UCX's version, "1.13.1" (for gasket-info). */
const char *gk__ucx_version(void);

#endif /* GK_NET_UCX_H */

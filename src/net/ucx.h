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
/* Its start-up and shut-down (net.c's registry): every peer no mapping
 * reaches, opened on every PE as soon as any PE has one. */
extern const struct gk__net_module gk__ucx_module;

/* UCX's version, "1.13.1" (for gasket-info). */
const char *gk__ucx_version(void);

#endif /* GK_NET_UCX_H */

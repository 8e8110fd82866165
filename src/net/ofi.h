/*
 * ofi.h: the libfabric transport, for peers whose segment is not mapped
 * here when the job asks for it (GK_NET=ofi). It speaks libfabric's RDM
 * endpoints through the provider that FI_PROVIDER names (libfabric's own
 * choice without it): puts and gets as fi_write and fi_read on the peer's
 * registered segment, and gasket's own messages for active messages,
 * wake-ups and remote operations, atomics among them, which land in this
 * PE's inbox or run here with CPU atomics (net.h, "Atomicity domain"). A
 * progress thread, asleep on the completion queue's descriptor while
 * nothing happens, moves other PEs' operations on where the provider's
 * progress is manual (tcp;ofi_rxm).
 */
#ifndef GK_NET_OFI_H
#define GK_NET_OFI_H

#include "net/net.h"

extern const struct gk__net_transport gk__ofi_transport;
extern const struct gk__net_module gk__ofi_module;

/* libfabric's version, "1.17.0" (for gasket-info). */
const char *gk__ofi_version(void);

#endif /* GK_NET_OFI_H */

/*
 * bcast.c: gk_broadcast and gk_broadcast_radix, the world team's broadcast
 * (team/coll_api.c): every call has its PEs agree on the root, the size
 * and the radix as part of its first rounds, so PEs that disagree get an
 * error on every PE. The radix is checked and agreed on; the tree is the
 * team engine's (binomial, pipelined), whatever the radix.
 */
#include "core/runtime.h"
#include "team/coll.h"

int gk_broadcast_radix(void *dst, const void *src, size_t nbytes, int root, int radix)
{
    return gk__team_broadcast("gk_broadcast", GK_TEAM_WORLD, dst, src, nbytes, root, radix,
                              NULL);
}

int gk_broadcast(void *dst, const void *src, size_t nbytes, int root)
{
    return gk_broadcast_radix(dst, src, nbytes, root,
                              gk__rt.initialized ? (int)gk__rt.config.bcast_radix : 2);
}

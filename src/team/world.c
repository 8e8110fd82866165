/*
 * world.c: the world forms of the collectives (gk_barrier, gk_broadcast,
 * gk_allreduce, gk_reduce, gk_collect, gk_alltoall) are the world team's
 * (coll_api.c), under their own names. gk_broadcast_radix checks and
 * agrees on its radix; the tree is the engine's.
 */
#include "core/runtime.h"
#include "team/coll.h"

int gk_barrier(void)
{
    return gk__team_barrier("gk_barrier", GK_TEAM_WORLD, NULL);
}

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

int gk_allreduce(void *dst, const void *src, size_t count, gk_dtype_t dtype, gk_op_t op)
{
    return gk__team_reduction("gk_allreduce", GK__TEAM_ALLREDUCE, GK_TEAM_WORLD, dst, src,
                              count, dtype, op, -1, NULL);
}

int gk_reduce(void *dst, const void *src, size_t count, gk_dtype_t dtype, gk_op_t op, int root)
{
    return gk__team_reduction("gk_reduce", GK__TEAM_REDUCE, GK_TEAM_WORLD, dst, src, count,
                              dtype, op, root, NULL);
}

int gk_collect(void *dst, const void *src, size_t nbytes)
{
    return gk__team_fcollect("gk_collect", GK_TEAM_WORLD, dst, src, nbytes, NULL);
}

int gk_alltoall(void *dst, const void *src, size_t nbytes)
{
    return gk__team_alltoall("gk_alltoall", GK__TEAM_ALLTOALL, GK_TEAM_WORLD, dst, src, nbytes,
                             0, 0, 1, 0, NULL);
}

/*
 * coll.c: the world team and the collectives on it (spec "Team Management
 * Routines", "Collective Routines"): barrier_all and sync_all, broadcast,
 * fcollect, alltoall and the reductions, on gasket's collectives over all
 * PEs (gk_barrier, gk_broadcast, gk_collect, gk_alltoall, gk_allreduce).
 * Other teams do not exist yet: a collective given one returns -1 with a
 * message. The complex reductions are not there yet either.
 */
#include "base/log.h"
#include "shmem/shmem_int.h"

/* A team is a set of PEs; the world's is every PE, numbered as they are.
 * Split teams will add their own fields. */
struct shmem_team {
    int is_world;
};

struct shmem_team shmem__team_world = {.is_world = 1};

int gk__shmem_team_check(const char *routine, shmem_team_t team)
{
    if (team == SHMEM_TEAM_WORLD)
        return 0;
    gk__error("%s: team %p is not SHMEM_TEAM_WORLD, the only team gasket supports yet",
              routine, (void *)team);
    return -1;
}

/* A native status as the collectives return it: 0, or non-zero. */
static int coll_status(int status)
{
    return status == GK_OK ? 0 : status;
}

SHMEM_DEFINE(void, barrier_all, (void))
{
    SHMEM_CHECK("shmem_barrier_all", gk_barrier());
}

/* gk_barrier also completes this PE's operations, which sync does not ask
 * for: a stronger sync. */
SHMEM_DEFINE(void, sync_all, (void))
{
    SHMEM_CHECK("shmem_sync_all", gk_barrier());
}

SHMEM_DEFINE(int, team_my_pe, (shmem_team_t team))
{
    return team == SHMEM_TEAM_WORLD ? gk_my_pe() : -1;
}

SHMEM_DEFINE(int, team_n_pes, (shmem_team_t team))
{
    return team == SHMEM_TEAM_WORLD ? gk_n_pes() : -1;
}

SHMEM_DEFINE(int, team_sync, (shmem_team_t team))
{
    if (gk__shmem_team_check("shmem_team_sync", team) != 0)
        return -1;
    return coll_status(gk_barrier());
}

static int coll_broadcast(const char *r, shmem_team_t team, void *dest, const void *source,
                          size_t nelems, size_t size, int root)
{
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return coll_status(gk_broadcast(dest, source, gk__shmem_bytes(r, nelems, size), root));
}

static int coll_fcollect(const char *r, shmem_team_t team, void *dest, const void *source,
                         size_t nelems, size_t size)
{
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return coll_status(gk_collect(dest, source, gk__shmem_bytes(r, nelems, size)));
}

static int coll_alltoall(const char *r, shmem_team_t team, void *dest, const void *source,
                         size_t nelems, size_t size)
{
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return coll_status(gk_alltoall(dest, source, gk__shmem_bytes(r, nelems, size)));
}

SHMEM_DEFINE(int, broadcastmem,
             (shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root))
{
    return coll_broadcast("shmem_broadcastmem", team, dest, source, nelems, 1, PE_root);
}

SHMEM_DEFINE(int, fcollectmem,
             (shmem_team_t team, void *dest, const void *source, size_t nelems))
{
    return coll_fcollect("shmem_fcollectmem", team, dest, source, nelems, 1);
}

SHMEM_DEFINE(int, alltoallmem,
             (shmem_team_t team, void *dest, const void *source, size_t nelems))
{
    return coll_alltoall("shmem_alltoallmem", team, dest, source, nelems, 1);
}

#define COLL_TYPED(T, N)                                                       \
    SHMEM_DEFINE(int, N##_broadcast, (shmem_team_t team, T * dest, const T *source, \
                                      size_t nelems, int PE_root))             \
    {                                                                          \
        return coll_broadcast("shmem_" #N "_broadcast", team, dest, source, nelems, \
                              sizeof(T), PE_root);                             \
    }                                                                          \
    SHMEM_DEFINE(int, N##_fcollect,                                            \
                 (shmem_team_t team, T * dest, const T *source, size_t nelems)) \
    {                                                                          \
        return coll_fcollect("shmem_" #N "_fcollect", team, dest, source, nelems, \
                             sizeof(T));                                       \
    }                                                                          \
    SHMEM_DEFINE(int, N##_alltoall,                                            \
                 (shmem_team_t team, T * dest, const T *source, size_t nelems)) \
    {                                                                          \
        return coll_alltoall("shmem_" #N "_alltoall", team, dest, source, nelems, \
                             sizeof(T));                                       \
    }
SHMEM_RMA_TYPES(COLL_TYPED)

/* gasket's element type for a C type: floating (0.5 survives the cast),
 * signed or not, and its size. */
static gk_dtype_t coll_dtype(int is_float, int is_signed, size_t size)
{
    if (is_float)
        return size == sizeof(float)    ? GK_DTYPE_FLOAT
               : size == sizeof(double) ? GK_DTYPE_DOUBLE
                                        : GK_DTYPE_LONG_DOUBLE;
    switch (size) {
    case 1: return is_signed ? GK_DTYPE_INT8 : GK_DTYPE_UINT8;
    case 2: return is_signed ? GK_DTYPE_INT16 : GK_DTYPE_UINT16;
    case 4: return is_signed ? GK_DTYPE_INT32 : GK_DTYPE_UINT32;
    default: return is_signed ? GK_DTYPE_INT64 : GK_DTYPE_UINT64;
    }
}
#define COLL_DTYPE(T) coll_dtype((T)0.5 != (T)0, (T)-1 < (T)1, sizeof(T))

static int coll_reduce(const char *r, shmem_team_t team, void *dest, const void *source,
                       size_t nreduce, gk_dtype_t dtype, gk_op_t op)
{
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return coll_status(gk_allreduce(dest, source, nreduce, dtype, op));
}

#define COLL_REDUCE(T, N, OP, GKOP)                                            \
    SHMEM_DEFINE(int, N##_##OP##_reduce,                                       \
                 (shmem_team_t team, T * dest, const T *source, size_t nreduce)) \
    {                                                                          \
        return coll_reduce("shmem_" #N "_" #OP "_reduce", team, dest, source, nreduce, \
                           COLL_DTYPE(T), GKOP);                               \
    }
#define COLL_REDUCE_BIT(T, N)                                                  \
    COLL_REDUCE(T, N, and, GK_OP_BAND)                                         \
    COLL_REDUCE(T, N, or, GK_OP_BOR)                                           \
    COLL_REDUCE(T, N, xor, GK_OP_BXOR)
#define COLL_REDUCE_ARITH(T, N)                                                \
    COLL_REDUCE(T, N, max, GK_OP_MAX)                                          \
    COLL_REDUCE(T, N, min, GK_OP_MIN)                                          \
    COLL_REDUCE(T, N, sum, GK_OP_SUM)                                          \
    COLL_REDUCE(T, N, prod, GK_OP_PROD)
SHMEM_REDUCE_BIT_TYPES(COLL_REDUCE_BIT)
SHMEM_REDUCE_ARITH_TYPES(COLL_REDUCE_ARITH)

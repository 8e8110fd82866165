/*
 * coll.c: the collectives (spec "Collective Routines") and the deprecated
 * active-set forms with pSync, as gasket's team collectives: barrier and
 * sync, broadcast, collect and fcollect, alltoall and alltoalls, and the
 * reductions.
 *
 * A team routine is the native call on the team's gk_team_t, the
 * OpenSHMEM type and operation given as gasket's gk_dtype_t and gk_op_t.
 * Where OpenSHMEM's rules differ, the mapping keeps them:
 *  - A routine returns 0 or non-zero. Argument errors every PE shares (the
 *    team SHMEM_TEAM_INVALID or no live team, a root outside the team,
 *    strides below 1) return at once with the layer's message; the others
 *    are gasket's, on every PE of the team.
 *  - collect: dest's room is what the PEs' counts add up to, which only
 *    the call learns (gasket's dst_size is left unbounded).
 *  - The complex reductions: gasket has no complex types. A sum is the sum
 *    of the real and of the imaginary parts, as floating values; a product
 *    mixes them, so the team's sources are gathered (fcollect) and every
 *    PE multiplies them in team order, getting the same bits.
 *  - barrier_all quiets, as gk_team_barrier() does; sync_all and team_sync
 *    do too, which they need not: a stronger sync.
 *
 * An active set (PE_start, 2^logPE_stride, PE_size) is called by its
 * members only, so it is no split of any team: team/ makes it a team of
 * its own for each call, its members agreeing on the call on the caller's
 * pSync (gk__team_aset_open, src/team/team.c "Active sets"); the
 * collective runs on that team, and the call ends with
 * gk__team_aset_close. The active-set barrier and sync have nothing else
 * to run: they are team/'s barrier on pSync alone. The routines have no
 * return code: misuse ends the job.
 */
#include <stdlib.h>

#include "base/log.h"
#include "shmem/shmem_int.h"

_Static_assert(SHMEM_BARRIER_SYNC_SIZE >= 2 * GK__TEAM_ASET_ROUNDS &&
                   SHMEM_BCAST_SYNC_SIZE >= 2 * GK__TEAM_ASET_ROUNDS &&
                   SHMEM_REDUCE_SYNC_SIZE >= 2 * GK__TEAM_ASET_ROUNDS &&
                   SHMEM_COLLECT_SYNC_SIZE >= 2 * GK__TEAM_ASET_ROUNDS &&
                   SHMEM_ALLTOALL_SYNC_SIZE >= 2 * GK__TEAM_ASET_ROUNDS &&
                   SHMEM_ALLTOALLS_SYNC_SIZE >= 2 * GK__TEAM_ASET_ROUNDS &&
                   SHMEM_SYNC_SIZE >= 2 * GK__TEAM_ASET_ROUNDS,
               "a pSync holds the active sets' words");
_Static_assert(SHMEM_SYNC_VALUE == 0, "the active sets' words rest at 0");

/* A native status as the collectives return it: 0, or non-zero. */
static int coll_status(int status)
{
    return status == GK_OK ? 0 : status;
}

/* The native team of a checked handle, or GK_TEAM_INVALID after a
 * message. */
static gk_team_t coll_team(const char *r, shmem_team_t team)
{
    return gk__shmem_team_check(r, team) == 0 ? team->gk : GK_TEAM_INVALID;
}

/* Ends the job when a buffer cannot be had: the other PEs are in the
 * collective and cannot be told otherwise. */
static void *coll_alloc(const char *r, size_t nbytes)
{
    void *p = malloc(nbytes > 0 ? nbytes : 1);
    if (p == NULL) {
        gk__error("%s: no memory for a %zu-byte buffer", r, nbytes);
        gk__shmem_fail(r, GK_ERR_NOMEM);
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Barriers and syncs                                                       */
/* ------------------------------------------------------------------------ */

SHMEM_DEFINE(void, barrier_all, (void))
{
    SHMEM_CHECK("shmem_barrier_all", gk_team_barrier(GK_TEAM_WORLD));
}

SHMEM_DEFINE(void, sync_all, (void))
{
    SHMEM_CHECK("shmem_sync_all", gk_team_barrier(GK_TEAM_WORLD));
}

SHMEM_DEFINE(int, team_sync, (shmem_team_t team))
{
    gk_team_t t = coll_team("shmem_team_sync", team);
    return t == GK_TEAM_INVALID ? -1 : coll_status(gk_team_barrier(t));
}

/* ------------------------------------------------------------------------ */
/* Team collectives                                                         */
/* ------------------------------------------------------------------------ */

static int coll_broadcast(const char *r, shmem_team_t team, void *dest, const void *source,
                          size_t nelems, size_t size, int root)
{
    gk_team_t t = coll_team(r, team);
    if (t == GK_TEAM_INVALID)
        return -1;
    size_t nbytes = gk__shmem_bytes(r, nelems, size);
    int n = gk_team_n_pes(t);
    if (root < 0 || root >= n) {
        gk__error("%s: PE_root %d is not a PE of the team (0 to %d)", r, root, n - 1);
        return -1;
    }
    return coll_status(gk_team_broadcast(t, dest, source, nbytes, root));
}

static int coll_fcollect(const char *r, shmem_team_t team, void *dest, const void *source,
                         size_t nelems, size_t size)
{
    gk_team_t t = coll_team(r, team);
    if (t == GK_TEAM_INVALID)
        return -1;
    return coll_status(gk_team_fcollect(t, dest, source, gk__shmem_bytes(r, nelems, size)));
}

static int coll_collect(const char *r, shmem_team_t team, void *dest, const void *source,
                        size_t nelems, size_t size)
{
    gk_team_t t = coll_team(r, team);
    if (t == GK_TEAM_INVALID)
        return -1;
    return coll_status(gk_team_collect(t, dest, dest != NULL ? SIZE_MAX : 0, source,
                                       gk__shmem_bytes(r, nelems, size), NULL));
}

static int coll_alltoall(const char *r, shmem_team_t team, void *dest, const void *source,
                         size_t nelems, size_t size)
{
    gk_team_t t = coll_team(r, team);
    if (t == GK_TEAM_INVALID)
        return -1;
    return coll_status(gk_team_alltoall(t, dest, source, gk__shmem_bytes(r, nelems, size)));
}

static int coll_strides_check(const char *r, ptrdiff_t dst, ptrdiff_t sst)
{
    if (dst < 1 || sst < 1) {
        gk__error("%s: the strides dst %td and sst %td must be at least 1", r, dst, sst);
        return -1;
    }
    return 0;
}

static int coll_alltoalls(const char *r, shmem_team_t team, void *dest, const void *source,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size)
{
    gk_team_t t = coll_team(r, team);
    if (t == GK_TEAM_INVALID || coll_strides_check(r, dst, sst) != 0)
        return -1;
    return coll_status(
        gk_team_alltoalls(t, dest, source, (size_t)dst, (size_t)sst, size, nelems));
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

SHMEM_DEFINE(int, collectmem, (shmem_team_t team, void *dest, const void *source, size_t nelems))
{
    return coll_collect("shmem_collectmem", team, dest, source, nelems, 1);
}

SHMEM_DEFINE(int, alltoallmem,
             (shmem_team_t team, void *dest, const void *source, size_t nelems))
{
    return coll_alltoall("shmem_alltoallmem", team, dest, source, nelems, 1);
}

SHMEM_DEFINE(int, alltoallsmem, (shmem_team_t team, void *dest, const void *source,
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems))
{
    return coll_alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
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
    SHMEM_DEFINE(int, N##_collect,                                             \
                 (shmem_team_t team, T * dest, const T *source, size_t nelems)) \
    {                                                                          \
        return coll_collect("shmem_" #N "_collect", team, dest, source, nelems, \
                            sizeof(T));                                        \
    }                                                                          \
    SHMEM_DEFINE(int, N##_alltoall,                                            \
                 (shmem_team_t team, T * dest, const T *source, size_t nelems)) \
    {                                                                          \
        return coll_alltoall("shmem_" #N "_alltoall", team, dest, source, nelems, \
                             sizeof(T));                                       \
    }                                                                          \
    SHMEM_DEFINE(int, N##_alltoalls, (shmem_team_t team, T * dest, const T *source, \
                                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems)) \
    {                                                                          \
        return coll_alltoalls("shmem_" #N "_alltoalls", team, dest, source, dst, sst, \
                              nelems, sizeof(T));                              \
    }
SHMEM_RMA_TYPES(COLL_TYPED)

/* ------------------------------------------------------------------------ */
/* Reductions                                                               */
/* ------------------------------------------------------------------------ */

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

#define COLL_GKOP_and GK_OP_BAND
#define COLL_GKOP_or GK_OP_BOR
#define COLL_GKOP_xor GK_OP_BXOR
#define COLL_GKOP_max GK_OP_MAX
#define COLL_GKOP_min GK_OP_MIN
#define COLL_GKOP_sum GK_OP_SUM
#define COLL_GKOP_prod GK_OP_PROD

/*
 * The complex reductions on team t, as the file's comment says: sum on
 * the parts (R, the real type), prod on the gathered sources, combined in
 * team order after the gather, so dest may be source.
 */
#define COLL_COMPLEX(T, N, R)                                                  \
    static int coll_##N##_sum(const char *r, gk_team_t t, T *dest, const T *source, \
                              size_t nreduce)                                  \
    {                                                                          \
        gk__shmem_bytes(r, nreduce, sizeof(T)); /* 2 * nreduce cannot overflow */ \
        return gk_team_allreduce(t, dest, source, 2 * nreduce, COLL_DTYPE(R),  \
                                 GK_OP_SUM);                                   \
    }                                                                          \
    static int coll_##N##_prod(const char *r, gk_team_t t, T *dest, const T *source, \
                               size_t nreduce)                                 \
    {                                                                          \
        int n = gk_team_n_pes(t);                                              \
        size_t nbytes = gk__shmem_bytes(r, nreduce, sizeof(T));                \
        T *all = coll_alloc(r, gk__shmem_bytes(r, nbytes, n > 0 ? (size_t)n : 0)); \
        int status = gk_team_fcollect(t, all, source, nbytes);                 \
        for (size_t i = 0; i < nreduce && status == GK_OK; i++) {              \
            T acc = all[i];                                                    \
            for (int j = 1; j < n; j++)                                        \
                acc *= all[(size_t)j * nreduce + i];                           \
            dest[i] = acc;                                                     \
        }                                                                      \
        free(all);                                                             \
        return status;                                                         \
    }
COLL_COMPLEX(float _Complex, complexf, float)
COLL_COMPLEX(double _Complex, complexd, double)

#define COLL_REDUCE(T, N, OP)                                                  \
    SHMEM_DEFINE(int, N##_##OP##_reduce,                                       \
                 (shmem_team_t team, T * dest, const T *source, size_t nreduce)) \
    {                                                                          \
        static const char r[] = "shmem_" #N "_" #OP "_reduce";                 \
        gk_team_t t = coll_team(r, team);                                      \
        if (t == GK_TEAM_INVALID)                                              \
            return -1;                                                         \
        return coll_status(                                                    \
            gk_team_allreduce(t, dest, source, nreduce, COLL_DTYPE(T), COLL_GKOP_##OP)); \
    }
#define COLL_REDUCE_COMPLEX_OP(T, N, OP)                                       \
    SHMEM_DEFINE(int, N##_##OP##_reduce,                                       \
                 (shmem_team_t team, T * dest, const T *source, size_t nreduce)) \
    {                                                                          \
        static const char r[] = "shmem_" #N "_" #OP "_reduce";                 \
        gk_team_t t = coll_team(r, team);                                      \
        if (t == GK_TEAM_INVALID)                                              \
            return -1;                                                         \
        return coll_status(coll_##N##_##OP(r, t, dest, source, nreduce));      \
    }
#define COLL_REDUCE_BIT(T, N)                                                  \
    COLL_REDUCE(T, N, and) COLL_REDUCE(T, N, or) COLL_REDUCE(T, N, xor)
#define COLL_REDUCE_ARITH(T, N)                                                \
    COLL_REDUCE(T, N, max)                                                     \
    COLL_REDUCE(T, N, min) COLL_REDUCE(T, N, sum) COLL_REDUCE(T, N, prod)
#define COLL_REDUCE_COMPLEX(T, N)                                              \
    COLL_REDUCE_COMPLEX_OP(T, N, sum) COLL_REDUCE_COMPLEX_OP(T, N, prod)
SHMEM_REDUCE_BIT_TYPES(COLL_REDUCE_BIT)
SHMEM_REDUCE_ARITH_TYPES(COLL_REDUCE_ARITH)
SHMEM_REDUCE_COMPLEX_TYPES(COLL_REDUCE_COMPLEX)

/* ------------------------------------------------------------------------ */
/* The deprecated active-set collectives                                    */
/* ------------------------------------------------------------------------ */

/* Checks the active set (PE_start, 2^logPE_stride, PE_size), this PE in
 * it, and pSync; ends the job after a message if any is wrong. */
static void aset_check(const char *r, int start, int log_stride, int size, long *pSync)
{
    int npes = gk_n_pes(), me = gk_my_pe();
    if (size < 1 || start < 0 || log_stride < 0 || log_stride > 30 ||
        (long)start + ((long)(size - 1) << log_stride) >= npes) {
        gk__error("%s: the active set (PE_start %d, logPE_stride %d, PE_size %d) is not "
                  "a set of PEs 0 to %d",
                  r, start, log_stride, size, npes - 1);
        gk__shmem_fail(r, GK_ERR_INVALID_ARG);
    }
    int stride = 1 << log_stride, d = me - start;
    if (d < 0 || d % stride != 0 || d / stride >= size) {
        gk__error("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                  "PE_size %d)",
                  r, me, start, log_stride, size);
        gk__shmem_fail(r, GK_ERR_INVALID_ARG);
    }
    if (pSync == NULL || ((uintptr_t)pSync & 7) != 0 || gk_ptr(pSync, me) == NULL) {
        gk__error("%s: pSync %p is not a symmetric, 8-byte aligned array", r,
                  (void *)pSync);
        gk__shmem_fail(r, GK_ERR_INVALID_ARG);
    }
}

/* The active set's team for one call (checked first). */
static gk_team_t aset_open(const char *r, int start, int log_stride, int size, long *pSync)
{
    gk_team_t t = GK_TEAM_INVALID;
    aset_check(r, start, log_stride, size, pSync);
    SHMEM_CHECK(r, gk__team_aset_open(r, start, 1 << log_stride, size, (uint64_t *)pSync, &t));
    return t;
}

/* Ends the call on the active set's team t, and the job if the collective
 * on it failed. */
static void aset_close(const char *r, gk_team_t t, int status)
{
    gk__team_aset_close(&t);
    SHMEM_CHECK(r, status);
}

/* The active-set barrier also completes this PE's operations. */
SHMEM_DEFINE(void, barrier,
             (int PE_start, int logPE_stride, int PE_size, long *pSync))
{
    static const char r[] = "shmem_barrier";
    aset_check(r, PE_start, logPE_stride, PE_size, pSync);
    SHMEM_CHECK(r, gk_quiet());
    SHMEM_CHECK(r, gk__team_aset_barrier(r, PE_start, 1 << logPE_stride, PE_size,
                                         (uint64_t *)pSync));
}

SHMEM_DEFINE(void, sync, (int PE_start, int logPE_stride, int PE_size, long *pSync))
{
    static const char r[] = "shmem_sync";
    aset_check(r, PE_start, logPE_stride, PE_size, pSync);
    SHMEM_CHECK(r, gk__team_aset_barrier(r, PE_start, 1 << logPE_stride, PE_size,
                                         (uint64_t *)pSync));
}

/* The active-set broadcast leaves the root's dest alone (the team form
 * writes it): the root passes its source as gasket's dst, which gasket
 * then neither copies into nor writes. */
#define ASET_SIZED(B, bytes)                                                   \
    SHMEM_DEFINE(void, broadcast##B,                                           \
                 (void *dest, const void *source, size_t nelems, int PE_root,  \
                  int PE_start, int logPE_stride, int PE_size, long *pSync))   \
    {                                                                          \
        static const char r[] = "shmem_broadcast" #B;                          \
        size_t nbytes = gk__shmem_bytes(r, nelems, bytes);                     \
        gk_team_t t = aset_open(r, PE_start, logPE_stride, PE_size, pSync);    \
        void *to = gk_team_my_pe(t) == PE_root ? (void *)source : dest;        \
        aset_close(r, t, gk_team_broadcast(t, to, source, nbytes, PE_root));   \
    }                                                                          \
    SHMEM_DEFINE(void, collect##B,                                             \
                 (void *dest, const void *source, size_t nelems, int PE_start, \
                  int logPE_stride, int PE_size, long *pSync))                 \
    {                                                                          \
        static const char r[] = "shmem_collect" #B;                            \
        size_t nbytes = gk__shmem_bytes(r, nelems, bytes);                     \
        gk_team_t t = aset_open(r, PE_start, logPE_stride, PE_size, pSync);    \
        aset_close(r, t,                                                       \
                   gk_team_collect(t, dest, dest != NULL ? SIZE_MAX : 0, source, nbytes, \
                                   NULL));                                     \
    }                                                                          \
    SHMEM_DEFINE(void, fcollect##B,                                            \
                 (void *dest, const void *source, size_t nelems, int PE_start, \
                  int logPE_stride, int PE_size, long *pSync))                 \
    {                                                                          \
        static const char r[] = "shmem_fcollect" #B;                           \
        size_t nbytes = gk__shmem_bytes(r, nelems, bytes);                     \
        gk_team_t t = aset_open(r, PE_start, logPE_stride, PE_size, pSync);    \
        aset_close(r, t, gk_team_fcollect(t, dest, source, nbytes));           \
    }                                                                          \
    SHMEM_DEFINE(void, alltoall##B,                                            \
                 (void *dest, const void *source, size_t nelems, int PE_start, \
                  int logPE_stride, int PE_size, long *pSync))                 \
    {                                                                          \
        static const char r[] = "shmem_alltoall" #B;                           \
        size_t nbytes = gk__shmem_bytes(r, nelems, bytes);                     \
        gk_team_t t = aset_open(r, PE_start, logPE_stride, PE_size, pSync);    \
        aset_close(r, t, gk_team_alltoall(t, dest, source, nbytes));           \
    }                                                                          \
    SHMEM_DEFINE(void, alltoalls##B,                                           \
                 (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                  size_t nelems, int PE_start, int logPE_stride, int PE_size,  \
                  long *pSync))                                                \
    {                                                                          \
        static const char r[] = "shmem_alltoalls" #B;                          \
        if (coll_strides_check(r, dst, sst) != 0)                              \
            gk__shmem_fail(r, GK_ERR_INVALID_ARG);                             \
        gk_team_t t = aset_open(r, PE_start, logPE_stride, PE_size, pSync);    \
        aset_close(r, t,                                                       \
                   gk_team_alltoalls(t, dest, source, (size_t)dst, (size_t)sst, bytes, \
                                     nelems));                                 \
    }
ASET_SIZED(32, 4)
ASET_SIZED(64, 8)

/* The to_all reductions; pWrk is not needed (gasket keeps its own). */
#define ASET_REDUCE_CALL(T, N, OP, t, dest, source, nreduce)                   \
    gk_team_allreduce(t, dest, source, nreduce, COLL_DTYPE(T), COLL_GKOP_##OP)
#define ASET_REDUCE(T, N, OP, CALL)                                            \
    SHMEM_DEFINE(void, N##_##OP##_to_all,                                      \
                 (T * dest, const T *source, int nreduce, int PE_start,        \
                  int logPE_stride, int PE_size, T *pWrk, long *pSync))        \
    {                                                                          \
        static const char r[] = "shmem_" #N "_" #OP "_to_all";                 \
        if (nreduce < 0) {                                                     \
            gk__error("%s: nreduce %d is negative", r, nreduce);               \
            gk__shmem_fail(r, GK_ERR_INVALID_ARG);                             \
        }                                                                      \
        gk_team_t t = aset_open(r, PE_start, logPE_stride, PE_size, pSync);    \
        aset_close(r, t, CALL(T, N, OP, t, dest, source, (size_t)nreduce));    \
    }
#define ASET_COMPLEX_CALL(T, N, OP, t, dest, source, nreduce)                  \
    coll_##N##_##OP(r, t, dest, source, nreduce)
#define ASET_REDUCE_BIT(T, N)                                                  \
    ASET_REDUCE(T, N, and, ASET_REDUCE_CALL)                                   \
    ASET_REDUCE(T, N, or, ASET_REDUCE_CALL) ASET_REDUCE(T, N, xor, ASET_REDUCE_CALL)
#define ASET_REDUCE_ARITH(T, N)                                                \
    ASET_REDUCE(T, N, max, ASET_REDUCE_CALL)                                   \
    ASET_REDUCE(T, N, min, ASET_REDUCE_CALL)                                   \
    ASET_REDUCE(T, N, sum, ASET_REDUCE_CALL) ASET_REDUCE(T, N, prod, ASET_REDUCE_CALL)
#define ASET_REDUCE_COMPLEX(T, N)                                              \
    ASET_REDUCE(T, N, sum, ASET_COMPLEX_CALL) ASET_REDUCE(T, N, prod, ASET_COMPLEX_CALL)
SHMEM_TO_ALL_BIT_TYPES(ASET_REDUCE_BIT)
SHMEM_TO_ALL_ARITH_TYPES(ASET_REDUCE_ARITH)
SHMEM_REDUCE_COMPLEX_TYPES(ASET_REDUCE_COMPLEX)

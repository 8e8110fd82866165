/*
 * coll.c: the collectives (spec "Collective Routines") on any team, and
 * the deprecated active-set forms with pSync: barrier and sync, broadcast,
 * collect and fcollect, alltoall and alltoalls, and the reductions.
 *
 * On SHMEM_TEAM_WORLD, what gasket's collectives over all PEs do
 * (gk_barrier, gk_broadcast, gk_collect, gk_alltoall, gk_allreduce) is
 * theirs: they are faster. Every other team, and what the native ones do
 * not cover (collect's per-PE sizes, alltoalls, complex reductions), runs
 * here on gasket's one-sided API, as a barrier, data moved by gets, and a
 * barrier:
 *
 *  - The entry barrier says every PE's source is filled and every PE's
 *    dest is free to write, so each PE gets what it needs from the others'
 *    sources (symmetric, as the specification asks) into its own dest.
 *    Nothing is written remotely, so nothing needs completing but gets,
 *    which are complete when they return.
 *  - The exit barrier says no PE reads this one's source any longer, so
 *    the caller may reuse it, and a reduction in place (dest == source)
 *    writes its dest only then.
 *
 * The barrier is a dissemination barrier on the team's sync words: in
 * round k (while 2^k < n) team PE i adds 1 to word k on PE i + 2^k, waits
 * for word k of its own to be at least 1 (gk_wait_until_u64: spin, yield,
 * sleep) and takes the 1 back with an atomic add of -1. Word k of a PE has
 * one writer, PE i - 2^k, which adds in order, so a count that arrives
 * early (that PE already in the next barrier) is simply there for the next
 * round k, and calls may follow each other with no reset. Every count a PE
 * receives it takes back itself before it returns, so the words are all 0
 * between collectives: a pool slot may serve a new team once the old one
 * is destroyed, and a pSync is left as SHMEM_SYNC_VALUE, as the
 * specification asks. All updates of the words are atomics. A count is a
 * flag that only its target reads, and waits for (sync/flag.h), so to
 * another host it goes as one message that this PE's quiet owes nothing:
 * an active-set barrier's quiet does not wait for the previous barrier's
 * counts.
 *
 * Word layout (TEAM_SYNC_WORDS, the SHMEM_*_SYNC_SIZE of a pSync):
 *   0 .. 31  the barrier's rounds
 *   32       collect: this PE's element count, read by the others
 *   33       a team split: this PE's value to agree on (team.c)
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "shmem/shmem_int.h"
#include "sync/flag.h"

#define SYNC_COUNT 32
#define SYNC_AGREE 33
_Static_assert(SYNC_AGREE < TEAM_SYNC_WORDS, "the sync words hold the rounds and count");
_Static_assert(SHMEM_BARRIER_SYNC_SIZE >= TEAM_SYNC_WORDS &&
                   SHMEM_BCAST_SYNC_SIZE >= TEAM_SYNC_WORDS &&
                   SHMEM_REDUCE_SYNC_SIZE >= TEAM_SYNC_WORDS &&
                   SHMEM_COLLECT_SYNC_SIZE >= TEAM_SYNC_WORDS &&
                   SHMEM_ALLTOALL_SYNC_SIZE >= TEAM_SYNC_WORDS &&
                   SHMEM_ALLTOALLS_SYNC_SIZE >= TEAM_SYNC_WORDS &&
                   SHMEM_SYNC_SIZE >= TEAM_SYNC_WORDS,
               "a pSync holds the sync words");
_Static_assert(SHMEM_SYNC_VALUE == 0, "the sync words rest at 0");

/* Bytes a reduction fetches from one PE at a time: a multiple of every
 * element size (1 to 16). */
#define COLL_CHUNK 65536

/* A native status as the collectives return it: 0, or non-zero. */
static int coll_status(int status)
{
    return status == GK_OK ? 0 : status;
}

static int coll_first(int status, int next)
{
    return status != GK_OK ? status : next;
}

int gk__shmem_team_barrier(const char *routine, struct shmem_team *team)
{
    int status = GK_OK;
    int me_world = gk_my_pe();
    for (long k = 0, d = 1; d < team->n && status == GK_OK; k++, d <<= 1) {
        int to = gk__shmem_team_world_pe(team, (int)((team->me + d) % team->n));
        status = gk__flag_add_u64(routine, to, &team->sync[k], 1);
        if (status == GK_OK)
            status = gk_wait_until_u64(&team->sync[k], GK_CMP_GE, 1);
        if (status == GK_OK)
            status = gk_atomic_add_u64(me_world, &team->sync[k], UINT64_MAX);
    }
    if (status != GK_OK)
        gk__error("%s: the barrier over the team's %d PEs failed: %s", routine, team->n,
                  gk_strerror(status));
    return status;
}

/* The split's agreement, on the parent team's words: its arguments are
 * local variables, where a reduction needs symmetric ones. */
int gk__shmem_team_agree(const char *routine, struct shmem_team *team, gk_op_t op,
                         uint64_t *value_p)
{
    uint64_t result = *value_p;
    __atomic_store_n(&team->sync[SYNC_AGREE], result, __ATOMIC_RELEASE);
    int status = gk__shmem_team_barrier(routine, team);
    for (int j = 0; j < team->n && status == GK_OK; j++) {
        uint64_t v;
        if (j == team->me)
            continue;
        status = gk_get_u64(gk__shmem_team_world_pe(team, j), &team->sync[SYNC_AGREE], &v);
        result = op == GK_OP_BAND ? result & v : result > v ? result : v;
    }
    status = coll_first(status, gk__shmem_team_barrier(routine, team));
    __atomic_store_n(&team->sync[SYNC_AGREE], 0, __ATOMIC_RELAXED);
    if (status == GK_OK)
        *value_p = result;
    return status;
}

/* ------------------------------------------------------------------------ */
/* The team algorithms                                                      */
/* ------------------------------------------------------------------------ */

/* Ends the job when a buffer for the team algorithms cannot be had: the
 * other PEs are in the collective and cannot be told otherwise. */
static void *coll_alloc(const char *r, size_t nbytes)
{
    void *p = malloc(nbytes > 0 ? nbytes : 1);
    if (p == NULL) {
        gk__error("%s: no memory for a %zu-byte buffer", r, nbytes);
        gk__shmem_fail(r, GK_ERR_NOMEM);
    }
    return p;
}

/* update_root: the team form writes dest on the root too; the active-set
 * form does not. */
static int team_broadcast(const char *r, struct shmem_team *t, void *dest, const void *source,
                          size_t nbytes, int root, int update_root)
{
    if (root < 0 || root >= t->n) {
        gk__error("%s: PE_root %d is not a PE of the team (0 to %d)", r, root, t->n - 1);
        return -1;
    }
    int status = gk__shmem_team_barrier(r, t);
    if (status == GK_OK && t->me != root && nbytes > 0)
        status = gk_get(gk__shmem_team_world_pe(t, root), dest, source, nbytes);
    status = coll_first(status, gk__shmem_team_barrier(r, t));
    if (status == GK_OK && t->me == root && update_root && dest != source)
        memmove(dest, source, nbytes);
    return coll_status(status);
}

/* Every PE's block into place j, starting after this PE's own so that the
 * PEs do not all read from PE 0 first. */
static int team_fcollect(const char *r, struct shmem_team *t, void *dest, const void *source,
                         size_t nbytes)
{
    int status = gk__shmem_team_barrier(r, t);
    for (int s = 0; s < t->n && status == GK_OK && nbytes > 0; s++) {
        int j = (t->me + s) % t->n;
        char *to = (char *)dest + (size_t)j * nbytes;
        if (j == t->me)
            memcpy(to, source, nbytes);
        else
            status = gk_get(gk__shmem_team_world_pe(t, j), to, source, nbytes);
    }
    return coll_status(coll_first(status, gk__shmem_team_barrier(r, t)));
}

static int team_collect(const char *r, struct shmem_team *t, void *dest, const void *source,
                        size_t nelems, size_t size)
{
    __atomic_store_n(&t->sync[SYNC_COUNT], (uint64_t)nelems, __ATOMIC_RELEASE);
    int status = gk__shmem_team_barrier(r, t);
    uint64_t *counts = coll_alloc(r, (size_t)t->n * sizeof(uint64_t));
    for (int j = 0; j < t->n && status == GK_OK; j++)
        status = gk_get_u64(gk__shmem_team_world_pe(t, j), &t->sync[SYNC_COUNT], &counts[j]);
    size_t offset = 0;
    for (int j = 0; j < t->n && status == GK_OK; j++) {
        size_t nbytes = gk__shmem_bytes(r, (size_t)counts[j], size);
        char *to = (char *)dest + offset;
        if (j == t->me)
            memcpy(to, source, nbytes);
        else if (nbytes > 0)
            status = gk_get(gk__shmem_team_world_pe(t, j), to, source, nbytes);
        offset += nbytes;
    }
    free(counts);
    status = coll_first(status, gk__shmem_team_barrier(r, t));
    /* No PE reads it any longer (all are past the barrier). */
    __atomic_store_n(&t->sync[SYNC_COUNT], 0, __ATOMIC_RELAXED);
    return coll_status(status);
}

/* Block j of dest is block me of PE j's source. */
static int team_alltoall(const char *r, struct shmem_team *t, void *dest, const void *source,
                         size_t nbytes)
{
    int status = gk__shmem_team_barrier(r, t);
    for (int s = 0; s < t->n && status == GK_OK && nbytes > 0; s++) {
        int j = (t->me + s) % t->n;
        char *to = (char *)dest + (size_t)j * nbytes;
        const char *from = (const char *)source + (size_t)t->me * nbytes;
        if (j == t->me)
            memcpy(to, from, nbytes);
        else
            status = gk_get(gk__shmem_team_world_pe(t, j), to, from, nbytes);
    }
    return coll_status(coll_first(status, gk__shmem_team_barrier(r, t)));
}

/* Element k of block j of dest (at dst * (j * nelems + k)) is element k of
 * block me of PE j's source (at sst * (me * nelems + k)), elements of
 * `size` bytes: one get each. */
static int team_alltoalls(const char *r, struct shmem_team *t, void *dest, const void *source,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size)
{
    if (dst < 1 || sst < 1) {
        gk__error("%s: the strides dst %td and sst %td must be at least 1", r, dst, sst);
        return -1;
    }
    int status = gk__shmem_team_barrier(r, t);
    for (int s = 0; s < t->n && status == GK_OK; s++) {
        int j = (t->me + s) % t->n, pe = gk__shmem_team_world_pe(t, j);
        for (size_t k = 0; k < nelems && status == GK_OK; k++) {
            char *to = (char *)dest + (size_t)dst * ((size_t)j * nelems + k) * size;
            const char *from =
                (const char *)source + (size_t)sst * ((size_t)t->me * nelems + k) * size;
            if (j == t->me)
                memcpy(to, from, size);
            else
                status = gk_get(pe, to, from, size);
        }
    }
    return coll_status(coll_first(status, gk__shmem_team_barrier(r, t)));
}

/* acc[i] = acc[i] op in[i] for n elements. */
typedef void (*coll_combine_fn)(void *acc, const void *in, size_t n);

/*
 * Every PE fetches every source and combines them in team order, PE 0's
 * first, so the result is the same bit for bit on every PE. The result is
 * written to dest after the exit barrier, when no PE reads the sources
 * any longer (dest may be source).
 */
static int team_reduce(const char *r, struct shmem_team *t, void *dest, const void *source,
                       size_t nreduce, size_t size, coll_combine_fn combine)
{
    size_t nbytes = gk__shmem_bytes(r, nreduce, size);
    char *acc = coll_alloc(r, nbytes);
    char *in = coll_alloc(r, nbytes < COLL_CHUNK ? nbytes : COLL_CHUNK);
    int status = gk__shmem_team_barrier(r, t);
    for (int j = 0; j < t->n && status == GK_OK; j++) {
        int pe = gk__shmem_team_world_pe(t, j);
        for (size_t off = 0; off < nbytes && status == GK_OK; off += COLL_CHUNK) {
            size_t len = nbytes - off < COLL_CHUNK ? nbytes - off : COLL_CHUNK;
            const char *from = (const char *)source + off;
            if (j == 0 && j == t->me) {
                memcpy(acc + off, from, len);
            } else if (j == 0) {
                status = gk_get(pe, acc + off, from, len);
            } else if (j == t->me) {
                combine(acc + off, from, len / size);
            } else {
                status = gk_get(pe, in, from, len);
                if (status == GK_OK)
                    combine(acc + off, in, len / size);
            }
        }
    }
    status = coll_first(status, gk__shmem_team_barrier(r, t));
    if (status == GK_OK && nbytes > 0)
        memcpy(dest, acc, nbytes);
    free(in);
    free(acc);
    return coll_status(status);
}

/* ------------------------------------------------------------------------ */
/* Barriers and syncs                                                       */
/* ------------------------------------------------------------------------ */

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

SHMEM_DEFINE(int, team_sync, (shmem_team_t team))
{
    if (team != SHMEM_TEAM_INVALID && team->is_world)
        return coll_status(gk_barrier());
    if (gk__shmem_team_check("shmem_team_sync", team) != 0)
        return -1;
    return coll_status(gk__shmem_team_barrier("shmem_team_sync", team));
}

/* ------------------------------------------------------------------------ */
/* Team collectives                                                         */
/* ------------------------------------------------------------------------ */

/* The world team of a program that has not called shmem_init() (only
 * gk_init()) has the native collectives but no sync words. */
static int coll_native(shmem_team_t team)
{
    return team != SHMEM_TEAM_INVALID && team->is_world;
}

static int coll_broadcast(const char *r, shmem_team_t team, void *dest, const void *source,
                          size_t nelems, size_t size, int root)
{
    size_t nbytes = gk__shmem_bytes(r, nelems, size);
    if (coll_native(team))
        return coll_status(gk_broadcast(dest, source, nbytes, root));
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return team_broadcast(r, team, dest, source, nbytes, root, 1);
}

static int coll_fcollect(const char *r, shmem_team_t team, void *dest, const void *source,
                         size_t nelems, size_t size)
{
    size_t nbytes = gk__shmem_bytes(r, nelems, size);
    if (coll_native(team))
        return coll_status(gk_collect(dest, source, nbytes));
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return team_fcollect(r, team, dest, source, nbytes);
}

static int coll_collect(const char *r, shmem_team_t team, void *dest, const void *source,
                        size_t nelems, size_t size)
{
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return team_collect(r, team, dest, source, nelems, size);
}

static int coll_alltoall(const char *r, shmem_team_t team, void *dest, const void *source,
                         size_t nelems, size_t size)
{
    size_t nbytes = gk__shmem_bytes(r, nelems, size);
    if (coll_native(team))
        return coll_status(gk_alltoall(dest, source, nbytes));
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return team_alltoall(r, team, dest, source, nbytes);
}

static int coll_alltoalls(const char *r, shmem_team_t team, void *dest, const void *source,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size)
{
    if (gk__shmem_team_check(r, team) != 0)
        return -1;
    return team_alltoalls(r, team, dest, source, dst, sst, nelems, size);
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

/*
 * Integer sums and products are taken in unsigned long long and cast back
 * (wrapping, as gk_allreduce's do), so that short * short cannot overflow
 * int; the floating and complex types keep their own arithmetic.
 */
#define COLL_WIDE(x)                                                           \
    _Generic((x),                                                              \
        float: (x),                                                            \
        double: (x),                                                           \
        long double: (x),                                                      \
        float _Complex: (x),                                                   \
        double _Complex: (x),                                                  \
        default: (unsigned long long)(x))

#define COLL_OP_and(T, x, y) (T)((x) & (y))
#define COLL_OP_or(T, x, y) (T)((x) | (y))
#define COLL_OP_xor(T, x, y) (T)((x) ^ (y))
#define COLL_OP_max(T, x, y) ((x) > (y) ? (x) : (y))
#define COLL_OP_min(T, x, y) ((x) < (y) ? (x) : (y))
#define COLL_OP_sum(T, x, y) (T)(COLL_WIDE(x) + COLL_WIDE(y))
#define COLL_OP_prod(T, x, y) (T)(COLL_WIDE(x) * COLL_WIDE(y))

#define COLL_COMBINE(T, N, OP)                                                 \
    static void coll_combine_##N##_##OP(void *acc_, const void *in_, size_t n) \
    {                                                                          \
        T *acc = acc_;                                                         \
        const T *in = in_;                                                     \
        for (size_t i = 0; i < n; i++)                                         \
            acc[i] = COLL_OP_##OP(T, acc[i], in[i]);                           \
    }

/* The team reduction; DT: gasket's type for gk_allreduce, or
 * COLL_NO_DTYPE (the complex types: the team algorithm on every team). */
#define COLL_NO_DTYPE ((gk_dtype_t)-1)
#define COLL_REDUCE(T, N, OP, GKOP, DT)                                        \
    COLL_COMBINE(T, N, OP)                                                     \
    SHMEM_DEFINE(int, N##_##OP##_reduce,                                       \
                 (shmem_team_t team, T * dest, const T *source, size_t nreduce)) \
    {                                                                          \
        static const char r[] = "shmem_" #N "_" #OP "_reduce";                 \
        if ((DT) != COLL_NO_DTYPE && coll_native(team))                        \
            return coll_status(gk_allreduce(dest, source, nreduce, (DT), GKOP)); \
        if (gk__shmem_team_check(r, team) != 0)                                \
            return -1;                                                         \
        return team_reduce(r, team, dest, source, nreduce, sizeof(T),          \
                           coll_combine_##N##_##OP);                           \
    }
#define COLL_REDUCE_BIT(T, N)                                                  \
    COLL_REDUCE(T, N, and, GK_OP_BAND, COLL_DTYPE(T))                                      \
    COLL_REDUCE(T, N, or, GK_OP_BOR, COLL_DTYPE(T))                                        \
    COLL_REDUCE(T, N, xor, GK_OP_BXOR, COLL_DTYPE(T))
#define COLL_REDUCE_ARITH(T, N)                                                \
    COLL_REDUCE(T, N, max, GK_OP_MAX, COLL_DTYPE(T))                                       \
    COLL_REDUCE(T, N, min, GK_OP_MIN, COLL_DTYPE(T))                                       \
    COLL_REDUCE(T, N, sum, GK_OP_SUM, COLL_DTYPE(T))                                       \
    COLL_REDUCE(T, N, prod, GK_OP_PROD, COLL_DTYPE(T))
#define COLL_REDUCE_COMPLEX(T, N)                                              \
    COLL_REDUCE(T, N, sum, GK_OP_SUM, COLL_NO_DTYPE)                                       \
    COLL_REDUCE(T, N, prod, GK_OP_PROD, COLL_NO_DTYPE)
SHMEM_REDUCE_BIT_TYPES(COLL_REDUCE_BIT)
SHMEM_REDUCE_ARITH_TYPES(COLL_REDUCE_ARITH)
SHMEM_REDUCE_COMPLEX_TYPES(COLL_REDUCE_COMPLEX)

/* ------------------------------------------------------------------------ */
/* The deprecated active-set collectives                                    */
/* ------------------------------------------------------------------------ */

/*
 * The active set (PE_start, 2^logPE_stride, PE_size) as a team on the
 * stack, its sync words the caller's pSync. The routines have no return
 * code: misuse ends the job.
 */
static void aset_team(const char *r, struct shmem_team *t, int start, int log_stride,
                      int size, long *pSync)
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
    *t = (struct shmem_team){.n = size,
                             .me = d / stride,
                             .start = start,
                             .stride = stride,
                             .sync = (uint64_t *)pSync,
                             .slot = -1};
}

static void aset_check(const char *r, int status)
{
    if (status != 0)
        gk__shmem_fail(r, status < 0 ? status : GK_ERR_INVALID_ARG);
}

/* The active-set barrier also completes this PE's operations. */
SHMEM_DEFINE(void, barrier,
             (int PE_start, int logPE_stride, int PE_size, long *pSync))
{
    static const char r[] = "shmem_barrier";
    struct shmem_team t;
    aset_team(r, &t, PE_start, logPE_stride, PE_size, pSync);
    SHMEM_CHECK(r, gk_quiet());
    SHMEM_CHECK(r, gk__shmem_team_barrier(r, &t));
}

SHMEM_DEFINE(void, sync, (int PE_start, int logPE_stride, int PE_size, long *pSync))
{
    static const char r[] = "shmem_sync";
    struct shmem_team t;
    aset_team(r, &t, PE_start, logPE_stride, PE_size, pSync);
    SHMEM_CHECK(r, gk__shmem_team_barrier(r, &t));
}

#define ASET_SIZED(B, bytes)                                                   \
    SHMEM_DEFINE(void, broadcast##B,                                           \
                 (void *dest, const void *source, size_t nelems, int PE_root,  \
                  int PE_start, int logPE_stride, int PE_size, long *pSync))   \
    {                                                                          \
        static const char r[] = "shmem_broadcast" #B;                          \
        struct shmem_team t;                                                   \
        aset_team(r, &t, PE_start, logPE_stride, PE_size, pSync);              \
        aset_check(r, team_broadcast(r, &t, dest, source,                      \
                                     gk__shmem_bytes(r, nelems, bytes), PE_root, 0)); \
    }                                                                          \
    SHMEM_DEFINE(void, collect##B,                                             \
                 (void *dest, const void *source, size_t nelems, int PE_start, \
                  int logPE_stride, int PE_size, long *pSync))                 \
    {                                                                          \
        static const char r[] = "shmem_collect" #B;                            \
        struct shmem_team t;                                                   \
        aset_team(r, &t, PE_start, logPE_stride, PE_size, pSync);              \
        aset_check(r, team_collect(r, &t, dest, source, nelems, bytes));       \
    }                                                                          \
    SHMEM_DEFINE(void, fcollect##B,                                            \
                 (void *dest, const void *source, size_t nelems, int PE_start, \
                  int logPE_stride, int PE_size, long *pSync))                 \
    {                                                                          \
        static const char r[] = "shmem_fcollect" #B;                           \
        struct shmem_team t;                                                   \
        aset_team(r, &t, PE_start, logPE_stride, PE_size, pSync);              \
        aset_check(r, team_fcollect(r, &t, dest, source,                       \
                                    gk__shmem_bytes(r, nelems, bytes)));       \
    }                                                                          \
    SHMEM_DEFINE(void, alltoall##B,                                            \
                 (void *dest, const void *source, size_t nelems, int PE_start, \
                  int logPE_stride, int PE_size, long *pSync))                 \
    {                                                                          \
        static const char r[] = "shmem_alltoall" #B;                           \
        struct shmem_team t;                                                   \
        aset_team(r, &t, PE_start, logPE_stride, PE_size, pSync);              \
        aset_check(r, team_alltoall(r, &t, dest, source,                       \
                                    gk__shmem_bytes(r, nelems, bytes)));       \
    }                                                                          \
    SHMEM_DEFINE(void, alltoalls##B,                                           \
                 (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                  size_t nelems, int PE_start, int logPE_stride, int PE_size,  \
                  long *pSync))                                                \
    {                                                                          \
        static const char r[] = "shmem_alltoalls" #B;                          \
        struct shmem_team t;                                                   \
        aset_team(r, &t, PE_start, logPE_stride, PE_size, pSync);              \
        aset_check(r, team_alltoalls(r, &t, dest, source, dst, sst, nelems, bytes)); \
    }
ASET_SIZED(32, 4)
ASET_SIZED(64, 8)

/* The to_all reductions; pWrk is not needed (each PE reduces in a buffer
 * of its own). */
#define ASET_REDUCE(T, N, OP)                                                  \
    SHMEM_DEFINE(void, N##_##OP##_to_all,                                      \
                 (T * dest, const T *source, int nreduce, int PE_start,        \
                  int logPE_stride, int PE_size, T *pWrk, long *pSync))        \
    {                                                                          \
        static const char r[] = "shmem_" #N "_" #OP "_to_all";                 \
        struct shmem_team t;                                                   \
        aset_team(r, &t, PE_start, logPE_stride, PE_size, pSync);              \
        if (nreduce < 0) {                                                     \
            gk__error("%s: nreduce %d is negative", r, nreduce);               \
            gk__shmem_fail(r, GK_ERR_INVALID_ARG);                             \
        }                                                                      \
        aset_check(r, team_reduce(r, &t, dest, source, (size_t)nreduce, sizeof(T), \
                                  coll_combine_##N##_##OP));                   \
    }
/* and/or/xor on the signed types of the active-set table, which the team
 * reductions do not have. */
COLL_COMBINE(short, short, and)
COLL_COMBINE(short, short, or)
COLL_COMBINE(short, short, xor)
COLL_COMBINE(int, int, and)
COLL_COMBINE(int, int, or)
COLL_COMBINE(int, int, xor)
COLL_COMBINE(long, long, and)
COLL_COMBINE(long, long, or)
COLL_COMBINE(long, long, xor)
COLL_COMBINE(long long, longlong, and)
COLL_COMBINE(long long, longlong, or)
COLL_COMBINE(long long, longlong, xor)
#define ASET_REDUCE_BIT(T, N)                                                  \
    ASET_REDUCE(T, N, and) ASET_REDUCE(T, N, or) ASET_REDUCE(T, N, xor)
#define ASET_REDUCE_MINMAX(T, N) ASET_REDUCE(T, N, max) ASET_REDUCE(T, N, min)
#define ASET_REDUCE_SUMPROD(T, N) ASET_REDUCE(T, N, sum) ASET_REDUCE(T, N, prod)
#define ASET_REDUCE_ARITH(T, N) ASET_REDUCE_MINMAX(T, N) ASET_REDUCE_SUMPROD(T, N)
SHMEM_TO_ALL_BIT_TYPES(ASET_REDUCE_BIT)
SHMEM_TO_ALL_ARITH_TYPES(ASET_REDUCE_ARITH)
SHMEM_REDUCE_COMPLEX_TYPES(ASET_REDUCE_SUMPROD)

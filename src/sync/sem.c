/*
 * sem.c: semaphores and the signaling put (the seed signaling-put-upc).
 *
 * A semaphore is one 64-byte cell in its owner's segment: a 64-bit count,
 * a magic word that says the cell is live, and the normalised flags. Cells
 * of gk_sem_alloc() come from the owner's pool (mem/segment.h), so no
 * collective call is needed; those of gk_sem_alloc_all() are one symmetric
 * heap block, so every PE's member sits at the same offset.
 *
 * A handle is a plain 64-bit value: tag (4 bits) | collective (1) | owner PE
 * (19) | generation | cell. A pool cell is its index (9 bits) under a
 * 31-bit generation; a collective one its index in the heap, in 64-byte
 * cells (34 bits: a terabyte), under a 6-bit generation.
 *
 * Generations. A handle that outlives its semaphore must not name the
 * next one allocated in the same cell (gk_sem_free, gk_sem_alloc, then a
 * post through the old handle). So each cell carries a stamp: the magic
 * and the generation while it is live, the generation alone once freed.
 * Freeing a pool cell bumps its generation, which the pool keeps (its
 * cells serve semaphores only); a collective cell lives in the heap, where
 * anything may come after it, so gk_sem_alloc_all numbers its
 * generations itself (every PE alike), and gk_sem_free_all leaves the next
 * number behind. Every operation compares the whole stamp with the magic
 * and the handle's generation: posters read it from the cache line the
 * post updates anyway, so a stale handle, from any PE, costs nothing to
 * catch (a collective cell's generation repeats after 64 reuses). The
 * check and the post are two steps: a post racing the free of its own
 * semaphore (a program error already) can still land in the next one.
 *
 * Ordering. The signaling put copies the payload, then updates the count
 * with a read-modify-write that is at least a release operation (seq_cst,
 * which the wake-up protocol of base/wait.h needs); the consumer takes from
 * the count with acquire. So a consumer that took a signal sees the payload
 * of every put whose signal it took: each wait and try acts as a fence. On
 * the shm transport nothing else is needed: no remote completion round trip,
 * and a FUTEX_WAKE only when the consumer sleeps.
 *
 * An owner whose segment is not mapped here (on another host) is reached
 * through its transport only, with the same protocol on the cell's
 * segment offset: one get reads count, stamp and flags (the stamp check),
 * then a compare-and-swap on the count from the value read, retried with
 * the value it finds until it lands (a BOOLEAN post is a swap to 1), then
 * the transport's wake-up. A signaling put fences between its payload and
 * the post. Every one of these atomics fetches, so the post is complete
 * when it returns, as on shm (it waits for one round trip anyway: the
 * get); the next post's get then sees it, which the overflow check needs.
 * The CAS serves SINGLE_PRODUCER too: a get is no atomic read of the
 * word (the network may copy it in pieces beside the owner's atomics), so
 * its count is a guess, which a CAS may start from and a plain add could
 * not trust.
 *
 * Posting past GK_SEM_VALUE_MAX must leave the value unchanged, so an
 * INTEGER post is a compare-and-swap loop; with SINGLE_PRODUCER the value
 * can only fall between our check and our add (consumers only take), so a
 * plain fetch-add after the check is exact. Taking needs a loop only with
 * several consumers; a single consumer knows the value cannot fall under it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "base/wait.h"
#include "core/coll_check.h"
#include "core/runtime.h"
#include "core/path.h"

#define SEM_TAG 0xaULL
#define SEM_CELL_MAGIC 0x53454d41ULL /* "SEMA" */
#define SEM_STAMP_LIVE (SEM_CELL_MAGIC << 32)
#define SEM_PE_SHIFT 40
#define SEM_PE_BITS 19
/* Pool handles: generation and pool index in the low 40 bits. */
#define SEM_POOL_INDEX_BITS 9
#define SEM_POOL_CELLS 512
#define SEM_POOL_CELL_SIZE ((size_t)64)
#define SEM_POOL_GEN_MASK 0x7fffffffULL
/* Collective handles: generation and heap cell index in the low 40 bits. */
#define SEM_HEAP_INDEX_BITS 34
#define SEM_ALL_GEN_MASK 0x3fULL
#define SEM_KNOWN_FLAGS                                                        \
    (GK_SEM_INTEGER | GK_SEM_BOOLEAN | GK_SEM_SINGLE_PRODUCER |                \
     GK_SEM_MULTI_PRODUCER | GK_SEM_SINGLE_CONSUMER | GK_SEM_MULTI_CONSUMER)
_Static_assert(SEM_POOL_CELLS == 1 << SEM_POOL_INDEX_BITS, "pool index bits");
_Static_assert(SEM_POOL_GEN_MASK >> 31 == 0 && SEM_POOL_INDEX_BITS + 31 <= SEM_PE_SHIFT,
               "pool handle bits");
_Static_assert(SEM_HEAP_INDEX_BITS + 6 <= SEM_PE_SHIFT, "collective handle bits");

struct sem_cell {
    _Atomic uint64_t count;
    /* SEM_STAMP_LIVE | generation while allocated; the generation alone
     * (the next one, for a pool cell) once freed. */
    _Atomic uint64_t stamp;
    uint32_t flags; /* normalised: exactly one flag of each pair */
    unsigned char pad[44];
};
_Static_assert(sizeof(struct sem_cell) == SEM_POOL_CELL_SIZE, "one pool cell");

/* The pool: SEM_POOL_CELLS cells in my segment that gk_sem_alloc hands out
 * without collective calls. */
static GK__SEG_REGION(sem_pool_region, .name = "semaphore pool",
                      .size = SEM_POOL_CELLS * SEM_POOL_CELL_SIZE, .align = 4096);

/* What one get reads of a cell whose owner is not mapped here. */
struct sem_head {
    uint64_t count;
    uint64_t stamp;
    uint32_t flags;
};
_Static_assert(offsetof(struct sem_cell, stamp) == offsetof(struct sem_head, stamp) &&
                   offsetof(struct sem_cell, flags) == offsetof(struct sem_head, flags) &&
                   sizeof(struct sem_head) <= sizeof(struct sem_cell),
               "a get of the cell's head");

/* Callers declare one zeroed ({0}) although the resolver sets every field
 * it returns: -O3's flow analysis cannot see that, and -Werror stops. */
struct sem_ref {
    int pe;
    int collective;
    uint32_t generation;
    size_t offset; /* in the owner's segment */
    /* The cell where the owner's segment is mapped here; else NULL, and
     * `head` holds what the stamp check's get read. */
    struct sem_cell *cell;
    struct sem_head head;
};

/* The generations gk_sem_alloc_all has handed out (the same on every PE). */
static uint64_t sem_all_generations;

static gk_sem_t sem_encode(int pe, size_t offset, int collective, uint32_t generation)
{
    uint64_t low;
    if (collective)
        low = (uint64_t)generation << SEM_HEAP_INDEX_BITS |
              (offset - GK__SEG_HEAP_OFFSET) / SEM_POOL_CELL_SIZE;
    else
        low = (uint64_t)generation << SEM_POOL_INDEX_BITS |
              (offset - sem_pool_region.offset) / SEM_POOL_CELL_SIZE;
    return (gk_sem_t){SEM_TAG << 60 | (uint64_t)collective << 59 |
                      (uint64_t)pe << SEM_PE_SHIFT | low};
}

/* A handle whose cell holds no live semaphore of its generation (cold). */
static int sem_report_stale(const char *op, gk_sem_t sem, const struct sem_ref *ref,
                            uint64_t stamp) __attribute__((cold, noinline));
static int sem_report_stale(const char *op, gk_sem_t sem, const struct sem_ref *ref,
                            uint64_t stamp)
{
    uint64_t mask = ref->collective ? SEM_ALL_GEN_MASK : SEM_POOL_GEN_MASK;
    uint64_t now = stamp & mask;
    int stamped = (stamp & ~SEM_STAMP_LIVE & ~mask) == 0; /* a stamp, not other data */
    if (stamped && now != ref->generation)
        gk__error("%s: semaphore %#llx on PE %d is stale: freed (generation %u, now "
                  "%llu)",
                  op, (unsigned long long)sem.bits, ref->pe, ref->generation,
                  (unsigned long long)now);
    else
        gk__error("%s: semaphore %#llx on PE %d is not allocated (freed, or never "
                  "allocated)",
                  op, (unsigned long long)sem.bits, ref->pe);
    return GK_ERR_INVALID_ARG;
}

/* The handle's fields (no access to the cell): PE, offset, generation. */
static int sem_decode_handle(const char *op, gk_sem_t sem, struct sem_ref *ref)
{
    if (GK__UNLIKELY(!gk__rt.initialized))
        return gk__rt_report_pe(op, 0);
    uint64_t bits = sem.bits;
    int pe = (int)((bits >> SEM_PE_SHIFT) & ((1u << SEM_PE_BITS) - 1));
    int collective = (int)((bits >> 59) & 1);
    size_t offset;
    uint32_t generation;
    if (collective) {
        uint64_t index = bits & (((uint64_t)1 << SEM_HEAP_INDEX_BITS) - 1);
        generation = (uint32_t)((bits >> SEM_HEAP_INDEX_BITS) & SEM_ALL_GEN_MASK);
        offset = GK__SEG_HEAP_OFFSET + (size_t)index * SEM_POOL_CELL_SIZE;
    } else {
        uint64_t index = bits & (SEM_POOL_CELLS - 1);
        generation = (uint32_t)((bits >> SEM_POOL_INDEX_BITS) & SEM_POOL_GEN_MASK);
        offset = sem_pool_region.offset + (size_t)index * SEM_POOL_CELL_SIZE;
    }
    size_t end = offset - GK__SEG_HEAP_OFFSET + sizeof(struct sem_cell);
    if (GK__UNLIKELY(bits >> 60 != SEM_TAG || (collective && end > gk__rt.heap_span))) {
        gk__error("%s: %#llx is not a semaphore handle", op, (unsigned long long)bits);
        return GK_ERR_INVALID_ARG;
    }
    if (GK__UNLIKELY(pe >= gk__rt.n_pes)) {
        gk__error("%s: semaphore %#llx names PE %d, but the job has PEs 0 to %d", op,
                  (unsigned long long)bits, pe, gk__rt.n_pes - 1);
        return GK_ERR_PE;
    }
    ref->pe = pe;
    ref->collective = collective;
    ref->generation = generation;
    ref->offset = offset;
    ref->cell = NULL;
    return GK_OK;
}

/* The stamp check on a mapped owner's cell. */
static int sem_check_mapped(const char *op, gk_sem_t sem, struct sem_ref *ref)
{
    struct sem_cell *cell = (struct sem_cell *)(void *)gk__path_addr(ref->pe, ref->offset);
    ref->cell = cell;
    uint64_t stamp = atomic_load_explicit(&cell->stamp, memory_order_acquire);
    if (GK__UNLIKELY(stamp != (SEM_STAMP_LIVE | ref->generation)))
        return sem_report_stale(op, sem, ref, stamp);
    return GK_OK;
}

/* The stamp check on an owner reached through its transport: one get of
 * the cell's head, kept in ref->head for the caller. */
static int sem_check_remote(const char *op, gk_sem_t sem, struct sem_ref *ref)
    __attribute__((noinline));
static int sem_check_remote(const char *op, gk_sem_t sem, struct sem_ref *ref)
{
    int status =
        gk__path_get_at(op, ref->pe, &ref->head, ref->offset, sizeof(ref->head), GK__PATH_DST_NOW);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(ref->head.stamp != (SEM_STAMP_LIVE | ref->generation)))
        return sem_report_stale(op, sem, ref, ref->head.stamp);
    return GK_OK;
}

/* The handle and its stamp check, wherever the owner is. */
static int sem_decode(const char *op, gk_sem_t sem, struct sem_ref *ref)
{
    int status = sem_decode_handle(op, sem, ref);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(!gk__path_mapped(ref->pe)))
        return sem_check_remote(op, sem, ref);
    return sem_check_mapped(op, sem, ref);
}

static int sem_flags_normalize(const char *op, unsigned flags, uint32_t *flags_p)
{
    static const struct {
        unsigned first, second;
    } pairs[] = {{GK_SEM_INTEGER, GK_SEM_BOOLEAN},
                 {GK_SEM_MULTI_PRODUCER, GK_SEM_SINGLE_PRODUCER},
                 {GK_SEM_MULTI_CONSUMER, GK_SEM_SINGLE_CONSUMER}};
    if (flags & ~SEM_KNOWN_FLAGS) {
        gk__error("%s: flags %#x has unknown bits %#x", op, flags,
                  flags & ~SEM_KNOWN_FLAGS);
        return GK_ERR_INVALID_ARG;
    }
    uint32_t normal = 0;
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        unsigned both = pairs[i].first | pairs[i].second;
        if ((flags & both) == both) {
            gk__error("%s: flags %#x ask for two contradictory kinds (%s and %s)", op,
                      flags, gk__sem_flag_name(pairs[i].first),
                      gk__sem_flag_name(pairs[i].second));
            return GK_ERR_INVALID_ARG;
        }
        normal |= (flags & both) ? (flags & both) : pairs[i].first;
    }
    *flags_p = normal;
    return GK_OK;
}

static void sem_cell_init(struct sem_cell *cell, uint32_t flags, uint32_t generation)
{
    atomic_store_explicit(&cell->count, 0, memory_order_relaxed);
    cell->flags = flags;
    atomic_store_explicit(&cell->stamp, SEM_STAMP_LIVE | generation,
                          memory_order_release);
}

/* The cell is no semaphore any more; handles of this generation are stale. */
static void sem_cell_retire(struct sem_cell *cell, uint64_t next_generation)
{
    atomic_store_explicit(&cell->stamp, next_generation, memory_order_release);
}

/* ---- producer side ---- */

static int sem_room(uint64_t n, uint64_t value)
{
    return n <= GK_SEM_VALUE_MAX && value <= GK_SEM_VALUE_MAX - n;
}

/* Room for n more in an INTEGER semaphore whose value is `value`? Logs. */
static int sem_check_room(const char *op, const struct sem_ref *ref, uint64_t n,
                          uint64_t value)
{
    if (GK__UNLIKELY(!sem_room(n, value))) {
        gk__error("%s: adding %llu to semaphore on PE %d (value %llu) would pass "
                  "GK_SEM_VALUE_MAX (%llu)",
                  op, (unsigned long long)n, ref->pe, (unsigned long long)value,
                  (unsigned long long)GK_SEM_VALUE_MAX);
        return GK_ERR_RANGE;
    }
    return GK_OK;
}

static int sem_check_n(const char *op, uint64_t n)
{
    if (GK__UNLIKELY(n == 0)) {
        gk__error("%s: n must be at least 1", op);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

/* The post itself, with CPU atomics on a cell mapped here, and the
 * owner's wake-up check: GK_OK, or GK_ERR_RANGE with *value_p the value
 * that left no room (the caller explains). */
static int sem_cell_post(int owner, struct sem_cell *cell, size_t offset,
                         uint64_t n, uint64_t *value_p)
{
    if (cell->flags & GK_SEM_BOOLEAN) {
        atomic_exchange_explicit(&cell->count, 1, memory_order_seq_cst);
    } else {
        uint64_t value = atomic_load_explicit(&cell->count, memory_order_relaxed);
        int single = (cell->flags & GK_SEM_SINGLE_PRODUCER) != 0;
        for (;;) {
            if (GK__UNLIKELY(!sem_room(n, value))) {
                *value_p = value;
                return GK_ERR_RANGE;
            }
            if (single) {
                atomic_fetch_add_explicit(&cell->count, n, memory_order_seq_cst);
                break;
            }
            if (atomic_compare_exchange_weak_explicit(&cell->count, &value, value + n,
                                                      memory_order_seq_cst,
                                                      memory_order_relaxed))
                break;
        }
    }
    gk__path_notify_rmw(owner, offset, offset + sizeof(uint64_t));
    return GK_OK;
}

/* A post to a mapped owner: CPU atomics on the cell, its wake-up check. */
static int sem_post_mapped(const char *op, const struct sem_ref *ref, uint64_t n)
{
    int status = sem_check_n(op, n);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    uint64_t value = 0;
    status = sem_cell_post(ref->pe, ref->cell, ref->offset, n, &value);
    if (GK__UNLIKELY(status != GK_OK))
        return sem_check_room(op, ref, n, value);
    return GK_OK;
}

/*
 * The post as a remote operation (net.h), run at the owner for a poster
 * that reaches it through a transport: the stamp check, the room check,
 * the payload of a signaling put, then the post, as on a mapped owner.
 * args: the cell's offset, the generation, n, the payload's offset. An
 * error goes back for the poster to explain: GK_ERR_INVALID_ARG with the
 * stamp found (stale), GK_ERR_RANGE with the value (full).
 */
static int sem_rop_post(const uint64_t *args, const void *payload, size_t nbytes,
                        struct gk__net_rop_answer *answer)
{
    size_t offset = (size_t)args[0], dst = (size_t)args[3];
    if (offset % SEM_POOL_CELL_SIZE != 0 ||
        !gk__rt_own_bytes(sem_pool_region.offset, offset, sizeof(struct sem_cell)) ||
        !gk__rt_own_bytes(GK__SEG_HEAP_OFFSET, dst, nbytes)) {
        gk__error("a semaphore post from the network refused: cell offset %zu or payload "
                  "[%zu, +%zu) lies outside this PE's segment",
                  offset, dst, nbytes);
        return GK_ERR_UNSUPPORTED;
    }
    struct sem_cell *cell = (struct sem_cell *)(void *)gk__rt_own(offset);
    uint64_t stamp = atomic_load_explicit(&cell->stamp, memory_order_acquire);
    if (GK__UNLIKELY(stamp != (SEM_STAMP_LIVE | args[1]))) {
        answer->result = stamp;
        return GK_ERR_INVALID_ARG;
    }
    uint64_t n = args[2];
    if (!(cell->flags & GK_SEM_BOOLEAN)) {
        /* Without room the buffer is left alone, as on a mapped owner. */
        uint64_t value = atomic_load_explicit(&cell->count, memory_order_relaxed);
        if (!sem_room(n, value)) {
            answer->result = value;
            return GK_ERR_RANGE;
        }
    }
    if (nbytes > 0)
        memcpy(gk__rt_own(dst), payload, nbytes);
    return sem_cell_post(gk__rt.my_pe, cell, offset, n, &answer->result);
}

__attribute__((constructor)) static void sem_register_rop(void)
{
    gk__net_rop_set(GK__NET_ROP_SEM_POST, sem_rop_post);
}

/* A post, and a signaling put's payload (nbytes at dst_offset), run at an
 * owner reached through its transport, as one remote operation; its error
 * explained here. */
static int sem_post_by_rop(const char *op, gk_sem_t sem, const struct sem_ref *ref,
                           size_t dst_offset, const void *src, size_t nbytes, uint64_t n)
{
    uint64_t args[GK__NET_ROP_ARGS] = {ref->offset, ref->generation, n, dst_offset};
    struct gk__net_rop_answer answer = {0};
    if (GK__UNLIKELY(gk__race_on) && nbytes > 0)
        gk__path_race_put(op, ref->pe, dst_offset, nbytes); /* the payload, checked here */
    int status = gk__path_rop(ref->pe, GK__NET_ROP_SEM_POST, args, src, nbytes, &answer);
    if (GK__UNLIKELY(status == GK_ERR_INVALID_ARG))
        return sem_report_stale(op, sem, ref, answer.result);
    if (GK__UNLIKELY(status == GK_ERR_RANGE))
        return sem_check_room(op, ref, n, answer.result);
    if (GK__UNLIKELY(status == GK_ERR_UNSUPPORTED))
        gk__error("%s: PE %d refused the post of semaphore %#llx (its log says why)", op,
                  ref->pe, (unsigned long long)sem.bits);
    return status;
}

/*
 * Where a remote INTEGER post starts: the count its get read, or, where
 * that leaves no room, the count itself (an atomic fetch), so that only a
 * semaphore that is full fails. GK_ERR_RANGE is logged.
 */
static int sem_remote_start(const char *op, const struct sem_ref *ref, uint64_t n,
                            uint64_t *value_p)
{
    uint64_t value = ref->head.count;
    if (!sem_room(n, value)) {
        int status = gk__path_atomic64(ref->pe, GK__AMO_FETCH, ref->offset, 0, 0, &value);
        if (status != GK_OK)
            return status;
    }
    int status = sem_check_room(op, ref, n, value);
    if (status == GK_OK)
        *value_p = value;
    return status;
}

/* A post to an owner reached through its transport (see the top), an
 * INTEGER one from `value` (sem_remote_start's). */
static int sem_post_remote(const char *op, const struct sem_ref *ref, uint64_t n,
                           uint64_t value)
{
    uint64_t old = 0;
    int status;
    if (ref->head.flags & GK_SEM_BOOLEAN) {
        status = gk__path_atomic64(ref->pe, GK__AMO_SWAP, ref->offset, 1, 0, &old);
    } else {
        for (;;) {
            status = gk__path_atomic64(ref->pe, GK__AMO_CSWAP, ref->offset, value + n,
                                       value, &old);
            if (status != GK_OK || old == value)
                break;
            value = old; /* another producer or the consumer came first */
            status = sem_check_room(op, ref, n, value);
            if (status != GK_OK)
                return status;
        }
    }
    if (status != GK_OK)
        return status;
    status = gk__path_notify(ref->pe, ref->offset, ref->offset + sizeof(uint64_t));
    gk__path_wake_done(ref->pe, ref->offset, ref->offset + sizeof(uint64_t));
    return status;
}

static int sem_post_remote_checked(const char *op, gk_sem_t sem, struct sem_ref *ref,
                                   uint64_t n) __attribute__((noinline));
static int sem_post_remote_checked(const char *op, gk_sem_t sem, struct sem_ref *ref,
                                   uint64_t n)
{
    if (gk__path_rop_max(ref->pe) != 0) {
        int status = sem_check_n(op, n);
        return status == GK_OK ? sem_post_by_rop(op, sem, ref, GK__SEG_HEAP_OFFSET, NULL, 0, n)
                               : status;
    }
    uint64_t value = 0;
    int status = sem_check_remote(op, sem, ref);
    if (status == GK_OK)
        status = sem_check_n(op, n);
    if (status == GK_OK && !(ref->head.flags & GK_SEM_BOOLEAN))
        status = sem_remote_start(op, ref, n, &value);
    return status == GK_OK ? sem_post_remote(op, ref, n, value) : status;
}

/* A post: the owner's mapping decides the way, once. */
static int sem_post(const char *op, gk_sem_t sem, uint64_t n)
{
    struct sem_ref ref = {0};
    int status = sem_decode_handle(op, sem, &ref);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(!gk__path_mapped(ref.pe)))
        return sem_post_remote_checked(op, sem, &ref, n);
    status = sem_check_mapped(op, sem, &ref);
    return status == GK_OK ? sem_post_mapped(op, &ref, n) : status;
}

int gk_sem_post_n(gk_sem_t sem, uint64_t n)
{
    return sem_post("gk_sem_post_n", sem, n);
}

int gk_sem_post(gk_sem_t sem)
{
    return sem_post("gk_sem_post", sem, 1);
}

/* The signaling put's own checks, after the stamp's. */
static int sem_check_signal(const char *op, const struct sem_ref *ref, int pe, uint64_t n)
{
    if (GK__UNLIKELY(ref->pe != pe)) {
        gk__error("%s: the semaphore belongs to PE %d, not to the target PE %d", op,
                  ref->pe, pe);
        return GK_ERR_INVALID_ARG;
    }
    return sem_check_n(op, n);
}

/* The signaling put to an owner reached through its transport: the
 * payload, a fence, then the post (see the top). */
static int sem_put_signal_remote(const char *op, int pe, void *dst, const void *src,
                                 size_t nbytes, gk_sem_t sem, struct sem_ref *ref,
                                 uint64_t n) __attribute__((noinline));
static int sem_put_signal_remote(const char *op, int pe, void *dst, const void *src,
                                 size_t nbytes, gk_sem_t sem, struct sem_ref *ref,
                                 uint64_t n)
{
    size_t rop_max = gk__path_rop_max(pe);
    if (rop_max != 0 && nbytes <= rop_max) {
        int status = sem_check_signal(op, ref, pe, n);
        size_t offset = 0;
        if (status == GK_OK)
            status = gk__rt_check_remote(op, pe, dst, nbytes, &offset);
        if (status == GK_OK)
            status = gk__rt_check_local(op, "src", src, nbytes);
        return status == GK_OK ? sem_post_by_rop(op, sem, ref, offset, src, nbytes, n) : status;
    }
    uint64_t value = 0;
    int status = sem_check_remote(op, sem, ref);
    if (status == GK_OK)
        status = sem_check_signal(op, ref, pe, n);
    /* Without room the target's buffer is left alone, as on shm. */
    if (status == GK_OK && !(ref->head.flags & GK_SEM_BOOLEAN))
        status = sem_remote_start(op, ref, n, &value);
    if (status == GK_OK)
        status = gk__path_put(op, pe, dst, src, nbytes, GK__PATH_NO_WAKE);
    if (status == GK_OK)
        status = gk__path_fence_peer(pe);
    return status == GK_OK ? sem_post_remote(op, ref, n, value) : status;
}

static int sem_put_signal(const char *op, int pe, void *dst, const void *src,
                          size_t nbytes, gk_sem_t sem, uint64_t n)
{
    struct sem_ref ref = {0};
    int status = sem_decode_handle(op, sem, &ref);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(!gk__path_mapped(ref.pe)))
        return sem_put_signal_remote(op, pe, dst, src, nbytes, sem, &ref, n);
    status = sem_check_mapped(op, sem, &ref);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    status = sem_check_signal(op, &ref, pe, n);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    /* An INTEGER semaphore without room fails before the copy, so the
     * target's buffer is left alone (only another producer's post between
     * this look and ours can still make the post fail after the copy). */
    if (!(ref.cell->flags & GK_SEM_BOOLEAN)) {
        status = sem_check_room(op, &ref, n,
                                atomic_load_explicit(&ref.cell->count, memory_order_relaxed));
        if (GK__UNLIKELY(status != GK_OK))
            return status;
    }
    /* The post's read-modify-write orders the copy before the signal and
     * does the wake-up, so the copy needs no wake-up check of its own. */
    status = gk__path_put(op, pe, dst, src, nbytes, GK__PATH_NO_WAKE);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    return sem_post_mapped(op, &ref, n);
}

int gk_put_sem(int pe, void *dst, const void *src, size_t nbytes, gk_sem_t sem,
               uint64_t n)
{
    return sem_put_signal("gk_put_sem", pe, dst, src, nbytes, sem, n);
}

int gk_put_sem_nbi(int pe, void *dst, const void *src, size_t nbytes, gk_sem_t sem,
                   uint64_t n)
{
    return sem_put_signal("gk_put_sem_nbi", pe, dst, src, nbytes, sem, n);
}

int gk_put_sem_nb(int pe, void *dst, const void *src, size_t nbytes, gk_sem_t sem,
                  uint64_t n, gk_handle_t *handle_p)
{
    if (GK__UNLIKELY(handle_p == NULL))
        return gk__rt_report_null("gk_put_sem_nb", "handle_p", 1);
    int status = sem_put_signal("gk_put_sem_nb", pe, dst, src, nbytes, sem, n);
    if (status == GK_OK)
        *handle_p = GK_HANDLE_NULL; /* complete on return, on every transport */
    return status;
}

/* ---- consumer side ---- */

struct sem_wait_arg {
    struct sem_cell *cell;
    uint64_t n;
};

static int sem_available(const void *arg)
{
    const struct sem_wait_arg *w = arg;
    return atomic_load_explicit(&w->cell->count, memory_order_relaxed) >= w->n;
}

static void sem_describe(const void *arg, char *buf, size_t size)
{
    const struct sem_wait_arg *w = arg;
    snprintf(buf, size, "its semaphore's value is %llu or more (it is %llu)",
             (unsigned long long)w->n,
             (unsigned long long)atomic_load_explicit(&w->cell->count, memory_order_relaxed));
}

/* Takes n if the value allows; 1 if taken. Acquire: see the signalled data. */
static int sem_take(struct sem_cell *cell, uint64_t n)
{
    if (cell->flags & GK_SEM_BOOLEAN) {
        if (atomic_load_explicit(&cell->count, memory_order_relaxed) == 0)
            return 0;
        return atomic_exchange_explicit(&cell->count, 0, memory_order_acquire) != 0;
    }
    uint64_t value = atomic_load_explicit(&cell->count, memory_order_acquire);
    if (cell->flags & GK_SEM_SINGLE_CONSUMER) {
        if (value < n)
            return 0;
        atomic_fetch_sub_explicit(&cell->count, n, memory_order_acquire);
        return 1;
    }
    while (value >= n) {
        if (atomic_compare_exchange_weak_explicit(&cell->count, &value, value - n,
                                                  memory_order_acquire,
                                                  memory_order_relaxed))
            return 1;
    }
    return 0;
}

static int sem_consumer_ref(const char *op, gk_sem_t sem, uint64_t n, struct sem_ref *ref)
{
    int status = sem_decode(op, sem, ref);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(ref->pe != gk__rt.my_pe)) {
        gk__error("%s: the semaphore belongs to PE %d; only its owner may consume", op,
                  ref->pe);
        return GK_ERR_INVALID_ARG;
    }
    uint64_t max = (ref->cell->flags & GK_SEM_BOOLEAN) ? 1 : GK_SEM_VALUE_MAX;
    if (GK__UNLIKELY(n == 0 || n > max)) {
        gk__error("%s: n = %llu is out of range for this %s semaphore (1 to %llu)", op,
                  (unsigned long long)n,
                  (ref->cell->flags & GK_SEM_BOOLEAN) ? "BOOLEAN" : "INTEGER",
                  (unsigned long long)max);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

static int sem_wait(const char *op, gk_sem_t sem, uint64_t n)
{
    struct sem_ref ref = {0};
    int status = sem_consumer_ref(op, sem, n, &ref);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    struct sem_wait_arg arg = {ref.cell, n};
    while (!sem_take(ref.cell, n)) {
        if (GK__UNLIKELY(gk__in_handler)) /* it would wait for its own progress */
            return gk__progress_report_in_handler(op);
        gk__path_flush_wakes(); /* before we block, wake whoever we owe */
        struct gk__path_user_wait w = {op, ref.offset, sem_available, &arg, sem_describe};
        status = gk__path_wait_user(&w, 0);
        if (status != GK_OK)
            return status;
    }
    gk__race_acquire_own(); /* check mode: the posters' clocks */
    return GK_OK;
}

static int sem_try(const char *op, gk_sem_t sem, uint64_t n, int *taken_p)
{
    struct sem_ref ref = {0};
    gk__path_flush_wakes(); /* a try in a loop is a wait */
    if (GK__UNLIKELY(taken_p == NULL))
        return gk__rt_report_null(op, "taken_p", 1);
    int status = sem_consumer_ref(op, sem, n, &ref);
    if (status == GK_OK)
        *taken_p = sem_take(ref.cell, n);
    if (status == GK_OK && *taken_p)
        gk__race_acquire_own(); /* check mode: the posters' clocks */
    return status;
}

int gk_sem_wait(gk_sem_t sem)
{
    return sem_wait("gk_sem_wait", sem, 1);
}

int gk_sem_wait_n(gk_sem_t sem, uint64_t n)
{
    return sem_wait("gk_sem_wait_n", sem, n);
}

int gk_sem_try_wait(gk_sem_t sem, int *taken_p)
{
    return sem_try("gk_sem_try_wait", sem, 1, taken_p);
}

int gk_sem_try_wait_n(gk_sem_t sem, uint64_t n, int *taken_p)
{
    return sem_try("gk_sem_try_wait_n", sem, n, taken_p);
}

int gk_sem_value(gk_sem_t sem, uint64_t *value_p)
{
    struct sem_ref ref = {0};
    if (value_p == NULL)
        return gk__rt_report_null("gk_sem_value", "value_p", 1);
    gk__path_flush_wakes(); /* a value read in a loop is a wait */
    int status = sem_decode("gk_sem_value", sem, &ref);
    if (status != GK_OK)
        return status;
    if (ref.cell == NULL) /* an atomic read of the word, not the get's copy */
        return gk__path_atomic64(ref.pe, GK__AMO_FETCH, ref.offset, 0, 0, value_p);
    *value_p = atomic_load_explicit(&ref.cell->count, memory_order_acquire);
    return GK_OK;
}

int gk_sem_owner(gk_sem_t sem, int *pe_p)
{
    struct sem_ref ref = {0};
    if (pe_p == NULL) {
        gk__error("gk_sem_owner: pe_p is NULL");
        return GK_ERR_INVALID_ARG;
    }
    int status = sem_decode("gk_sem_owner", sem, &ref);
    if (status == GK_OK)
        *pe_p = ref.pe;
    return status;
}

/* ---- allocation ---- */

/* Which cells of my segment's pool are handed out (atomic: threads
 * allocate semaphores concurrently). */
static _Atomic uint64_t sem_pool_used[SEM_POOL_CELLS / 64];

static int sem_pool_init(void)
{
    for (size_t w = 0; w < SEM_POOL_CELLS / 64; w++)
        atomic_store_explicit(&sem_pool_used[w], 0, memory_order_relaxed);
    return GK_OK;
}

/* Check mode: the collective semaphores alive, as their members' segment
 * offsets, in allocation order (the same on every PE). */
static size_t *sem_all_live;
static size_t sem_all_n, sem_all_cap;

static void sem_all_note(size_t offset)
{
    if (sem_all_n == sem_all_cap) {
        size_t cap = sem_all_cap ? 2 * sem_all_cap : 16;
        size_t *grown = realloc(sem_all_live, cap * sizeof(*grown));
        if (grown == NULL)
            return; /* this one goes unchecked */
        sem_all_live = grown;
        sem_all_cap = cap;
    }
    sem_all_live[sem_all_n++] = offset;
}

static void sem_all_forget(size_t offset)
{
    for (size_t i = 0; i < sem_all_n; i++) {
        if (sem_all_live[i] == offset) {
            memmove(&sem_all_live[i], &sem_all_live[i + 1],
                    (sem_all_n - i - 1) * sizeof(*sem_all_live));
            sem_all_n--;
            return;
        }
    }
}

static void sem_report_left(const struct sem_cell *cell, size_t offset, int collective,
                            const char *when)
{
    uint64_t count = atomic_load_explicit(&cell->count, memory_order_acquire);
    uint64_t stamp = atomic_load_explicit(&cell->stamp, memory_order_relaxed);
    if (count == 0 || (stamp & ~(uint64_t)UINT32_MAX) != SEM_STAMP_LIVE)
        return;
    uint32_t generation = (uint32_t)(stamp & (collective ? SEM_ALL_GEN_MASK : SEM_POOL_GEN_MASK));
    gk_sem_t sem = sem_encode(gk__rt.my_pe, offset, collective, generation);
    gk__warn("check: semaphore not balanced: semaphore %#llx (PE %d's, from %s, %s) has "
             "value %llu at %s: the job's posts to it exceed its waits by %llu",
             (unsigned long long)sem.bits, gk__rt.my_pe,
             collective ? "gk_sem_alloc_all" : "gk_sem_alloc",
             (cell->flags & GK_SEM_BOOLEAN) ? "BOOLEAN" : "INTEGER",
             (unsigned long long)count, when, (unsigned long long)count);
}

/*
 * A semaphore's value is what the whole job posted to it less what its
 * owner took, so each owner judges its own: one left above 0 at gk_finalize
 * holds posts no wait took (a signal whose data nobody read). The opposite,
 * a wait no post ends, is a wait that cannot end (core/path_check.c).
 */
static void sem_check_finalize(void)
{
    for (size_t i = 0; i < SEM_POOL_CELLS; i++) {
        uint64_t used = atomic_load_explicit(&sem_pool_used[i / 64], memory_order_acquire);
        if (used & ((uint64_t)1 << (i % 64))) {
            size_t offset = sem_pool_region.offset + i * SEM_POOL_CELL_SIZE;
            sem_report_left((const struct sem_cell *)(gk__rt.my_seg.base + offset), offset, 0,
                            "gk_finalize");
        }
    }
    for (size_t i = 0; i < sem_all_n; i++)
        sem_report_left((const struct sem_cell *)gk__rt_own(sem_all_live[i]), sem_all_live[i],
                        1, "gk_finalize");
}

static void sem_pool_fini(void)
{
    free(sem_all_live);
    sem_all_live = NULL;
    sem_all_n = sem_all_cap = 0;
}

GK__RT_FEATURE(sem_feature, .name = "semaphore pool", .init = sem_pool_init,
               .fini = sem_pool_fini, .check_finalize = sem_check_finalize);

/* Hands out a free pool cell of this PE: its segment offset, or NOMEM.
 * What the cell's last owner wrote before giving it back is visible. */
static int sem_pool_take(size_t *seg_offset_p)
{
    for (size_t word = 0; word < SEM_POOL_CELLS / 64; word++) {
        uint64_t used = atomic_load_explicit(&sem_pool_used[word], memory_order_relaxed);
        while (used != UINT64_MAX) {
            uint64_t bit = (uint64_t)1 << __builtin_ctzll(~used);
            /* Another thread may take the same bit: the CAS decides. It
             * acquires what the cell's last owner left (its generation). */
            if (atomic_compare_exchange_weak_explicit(&sem_pool_used[word], &used,
                                                      used | bit, memory_order_acquire,
                                                      memory_order_relaxed)) {
                *seg_offset_p = sem_pool_region.offset +
                                (word * 64 + (size_t)__builtin_ctzll(bit)) *
                                    SEM_POOL_CELL_SIZE;
                return GK_OK;
            }
        }
    }
    return GK_ERR_NOMEM;
}

/* Returns a cell; GK_ERR_INVALID_ARG if it was not handed out. */
static int sem_pool_give(size_t seg_offset)
{
    size_t cell = (seg_offset - sem_pool_region.offset) / SEM_POOL_CELL_SIZE;
    if (seg_offset < sem_pool_region.offset || cell >= SEM_POOL_CELLS ||
        (seg_offset - sem_pool_region.offset) % SEM_POOL_CELL_SIZE != 0)
        return GK_ERR_INVALID_ARG;
    uint64_t bit = (uint64_t)1 << (cell % 64);
    uint64_t was = atomic_fetch_and_explicit(&sem_pool_used[cell / 64], ~bit,
                                             memory_order_release);
    return (was & bit) != 0 ? GK_OK : GK_ERR_INVALID_ARG;
}

int gk_sem_alloc(unsigned flags, gk_sem_t *sem_p)
{
    uint32_t normal;
    if (!gk__rt.initialized)
        return gk__rt_report_pe("gk_sem_alloc", 0);
    if (sem_p == NULL)
        return gk__rt_report_null("gk_sem_alloc", "sem_p", 1);
    int status = sem_flags_normalize("gk_sem_alloc", flags, &normal);
    if (status != GK_OK)
        return status;
    size_t offset;
    if (sem_pool_take(&offset) != GK_OK) {
        gk__error("gk_sem_alloc: this PE already owns %d semaphores from gk_sem_alloc, "
                  "the most it may; free some, or use gk_sem_alloc_all",
                  SEM_POOL_CELLS);
        return GK_ERR_NOMEM;
    }
    /* A free pool cell's stamp is its next generation. */
    struct sem_cell *cell = (struct sem_cell *)(gk__rt.my_seg.base + offset);
    uint64_t stamp = atomic_load_explicit(&cell->stamp, memory_order_relaxed);
    uint32_t generation = (uint32_t)(stamp & SEM_POOL_GEN_MASK);
    sem_cell_init(cell, normal, generation);
    *sem_p = sem_encode(gk__rt.my_pe, offset, 0, generation);
    return GK_OK;
}

static int sem_check_own(const char *op, gk_sem_t sem, int collective,
                         struct sem_ref *ref)
{
    int status = sem_decode(op, sem, ref);
    if (status != GK_OK)
        return status;
    if (ref->pe != gk__rt.my_pe || ref->collective != collective) {
        gk__error("%s: semaphore %#llx %s", op, (unsigned long long)sem.bits,
                  ref->pe != gk__rt.my_pe ? "belongs to another PE"
                  : collective ? "was not allocated with gk_sem_alloc_all"
                               : "was allocated with gk_sem_alloc_all");
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

int gk_sem_free(gk_sem_t sem)
{
    struct sem_ref ref = {0};
    int status = sem_check_own("gk_sem_free", sem, 0, &ref);
    if (status != GK_OK)
        return status;
    if (gk__check_on)
        sem_report_left(ref.cell, ref.offset, 0, "gk_sem_free");
    sem_cell_retire(ref.cell, (ref.generation + 1) & SEM_POOL_GEN_MASK);
    return sem_pool_give(ref.offset);
}

static int sem_alloc_all(unsigned flags, gk_sem_t *sem_p)
{
    uint32_t normal = 0;
    if (!gk__rt.initialized)
        return gk__rt_report_pe("gk_sem_alloc_all", 0);
    int status = sem_p == NULL ? gk__rt_report_null("gk_sem_alloc_all", "sem_p", 1)
                               : sem_flags_normalize("gk_sem_alloc_all", flags, &normal);
    /* Collective: a bad argument on one PE fails the call on every PE. */
    status = gk__rt_agree("gk_sem_alloc_all", status);
    if (status != GK_OK)
        return status;
    char *block = gk_align(SEM_POOL_CELL_SIZE, sizeof(struct sem_cell));
    if (block == NULL)
        return GK_ERR_NOMEM;
    uint32_t generation = (uint32_t)(sem_all_generations++ & SEM_ALL_GEN_MASK);
    sem_cell_init((struct sem_cell *)block, normal, generation);
    /* Nobody may post to a member before its owner has initialised it. */
    status = gk_barrier();
    if (status != GK_OK)
        return status;
    size_t offset = GK__SEG_HEAP_OFFSET + (size_t)(block - gk__rt.heap);
    if (gk__check_on)
        sem_all_note(offset);
    *sem_p = sem_encode(gk__rt.my_pe, offset, 1, generation);
    return GK_OK;
}

static int sem_free_all(gk_sem_t sem)
{
    struct sem_ref ref = {0};
    int status = sem_check_own("gk_sem_free_all", sem, 1, &ref);
    /* Collective: a bad handle on one PE fails the call on every PE. The
     * all-reduce is also the barrier: every PE has stopped posting before
     * any member is retired. */
    status = gk__rt_agree("gk_sem_free_all", status);
    if (status != GK_OK)
        return status;
    if (gk__check_on) {
        sem_report_left(ref.cell, ref.offset, 1, "gk_sem_free_all");
        sem_all_forget(ref.offset);
    }
    sem_cell_retire(ref.cell, (ref.generation + 1) & SEM_ALL_GEN_MASK);
    gk_free(gk__rt.heap + (ref.offset - GK__SEG_HEAP_OFFSET));
    return status;
}

int gk_sem_alloc_all(unsigned flags, gk_sem_t *sem_p)
{
    GK__COLL_RUN(GK__COLL_SEM_ALLOC_ALL, sem_alloc_all(flags, sem_p));
}

int gk_sem_free_all(gk_sem_t sem)
{
    GK__COLL_RUN(GK__COLL_SEM_FREE_ALL, sem_free_all(sem));
}

int gk_sem_on(gk_sem_t sem, int pe, gk_sem_t *peer_sem_p)
{
    struct sem_ref ref = {0};
    int status = sem_decode("gk_sem_on", sem, &ref);
    if (status != GK_OK)
        return status;
    if (peer_sem_p == NULL)
        return gk__rt_report_null("gk_sem_on", "peer_sem_p", 1);
    if (!ref.collective) {
        gk__error("gk_sem_on: semaphore %#llx was not allocated with gk_sem_alloc_all",
                  (unsigned long long)sem.bits);
        return GK_ERR_INVALID_ARG;
    }
    if ((unsigned)pe >= (unsigned)gk__rt.n_pes)
        return gk__rt_report_pe("gk_sem_on", pe);
    *peer_sem_p = sem_encode(pe, ref.offset, 1, ref.generation);
    return GK_OK;
}

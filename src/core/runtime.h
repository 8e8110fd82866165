/*
 * runtime.h: the runtime object (all mutable state of this PE hangs off it)
 * and the checks every public operation shares: PE number, bounds of the
 * symmetric heap, buffers and alignment. The checks are inline and cheap;
 * their error reports are out of line, in runtime.c.
 */
#ifndef GK_CORE_RUNTIME_H
#define GK_CORE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "boot/boot.h"
#include "mem/heap_alloc.h"
#include "mem/segment.h"
#include "net/net.h"
#include "gasket.h"

#define GK__LIKELY(x) __builtin_expect(!!(x), 1)
#define GK__UNLIKELY(x) __builtin_expect(!!(x), 0)

struct gk__runtime {
    int initialized;
    int finalized; /* once finalized, the launcher socket is gone for good */
    int my_pe;
    int n_pes; /* 0 until initialized: every PE check fails before init */
    struct gk__config config;
    struct gk__boot boot;
    struct gk__seg my_seg;
    char *heap;       /* my symmetric heap */
    size_t heap_span; /* bytes usable in every PE's heap, the local area included */
    /* The local area: the last local_size bytes of the heap's range, which
     * gk_mem_alloc hands out without collective calls (local_alloc, its
     * offsets from the area's start); the symmetric allocator never
     * reaches it. */
    size_t local_size;
    struct gk__heap_alloc local_alloc;
    /* The heap's symmetric bytes, heap_span - local_size, as the bounds
     * check of every remote access sees them; 0 in check mode, which
     * sends every access to the check's slow path (gk__rt_check_block). */
    size_t sym_span;
    /* GK_SYMMETRIC_DATA: the executable's data and bss [data, data +
     * data_size), at segment offset data_seg_offset on every PE (after the
     * heap, mem/segment.h); data_size 0: not symmetric. */
    char *data;
    size_t data_size;
    size_t data_seg_offset;
    struct gk__net_peer *peers; /* n_pes entries; peers[my_pe] maps my_seg */
    struct gk__heap_alloc heap_alloc;
    int thread_level; /* GK_THREAD_*, from gk_init_thread() */
    /* Several threads may run gasket calls at once (GK_THREAD_MULTIPLE or
     * a progress thread): shared state must then be locked. */
    int threaded;
};

/* gk_init() as `op` (gk_init, gk_init_thread) names it in its messages. */
int gk__rt_init(const char *op);

/* The wake-up debt of plain puts (struct gk__wake_debt, gk__debt) is
 * declared in gasket_inline.h: the inline puts keep it too. */

extern struct gk__runtime gk__rt;

/*
 * For collective calls: every PE passes its own argument check's status;
 * all return GK_OK, or all fail (a PE whose own check passed logs that
 * another PE failed and returns that PE's code). Costs one all-reduce.
 */
int gk__rt_agree(const char *op, int local_status);

/*
 * Set by an upper layer with state gk_finalize must refuse to leave behind
 * (win/: a window with an epoch open, whose lock other PEs may be waiting
 * for); gk_finalize returns its error before its barrier, so the job ends
 * with a message instead of hanging there. NULL when there is none.
 */
extern int (*gk__rt_finalize_check)(void);

/*
 * A feature above core with state of its own to set up at gk_init and let
 * go at gk_finalize declares so with GK__RT_FEATURE; core runs every such
 * declaration without naming the feature (core never calls up). init runs
 * once the segments are mapped and the heap is set up, before the first
 * call can be made, and returns GK_OK or an error it has logged (gk_init
 * fails on every PE then); fini runs at gk_finalize and after a gk_init
 * that failed past init, and must cope with an init that never ran or
 * failed. Either may be NULL. A constructor of the feature's file makes
 * the declaration, so a program linked statically declares the features
 * it links in.
 */
struct gk__rt_feature {
    const char *name;
    int (*init)(void);
    void (*fini)(void);
    /* Check mode (base/check.h) at gk_finalize, once every PE has entered
     * it with its operations complete, while collectives still run: warns
     * of what the feature finds left behind. May be NULL. */
    void (*check_finalize)(void);
    struct gk__rt_feature *next; /* the declarations' list (runtime.c) */
};
#define GK__RT_FEATURE(var, ...)                                                         \
    static struct gk__rt_feature var = {__VA_ARGS__};                                    \
    __attribute__((constructor)) static void var##_declare_(void)                        \
    {                                                                                    \
        gk__rt_feature_declare(&var);                                                    \
    }
void gk__rt_feature_declare(struct gk__rt_feature *feature);

/*
 * Set by msg/: at gk_finalize, once every message has arrived, logs each
 * two-sided message that reached this PE and was never received, adds one
 * to lost_from[source] for each, frees them, and returns how many.
 */
extern uint64_t (*gk__rt_finalize_unreceived)(uint64_t *lost_from);

/* Error reports (cold): they log the details and return the code. */
/* The start-up all-gather (the bootstrap's), for a feature's init hook,
 * which runs before the collectives can: every PE's `size` bytes of mine,
 * in PE order, into all. */
int gk__rt_allgather(const void *mine, void *all, size_t size);

int gk__rt_report_pe(const char *op, int pe) __attribute__((cold, noinline));
int gk__rt_report_range(const char *op, int pe, const void *addr, size_t n)
    __attribute__((cold, noinline));
int gk__rt_report_null(const char *op, const char *arg, size_t n)
    __attribute__((cold, noinline));
int gk__rt_report_align(const char *op, int pe, const void *addr, size_t align)
    __attribute__((cold, noinline));
/* Check mode's bounds check (base/check.h): gk__rt_check_remote's, and
 * that the bytes lie in one block allocated on this PE. */
int gk__rt_check_block(const char *op, int pe, const void *addr, size_t n,
                       size_t *seg_offset_p) __attribute__((cold, noinline));

/* Whether [addr, addr + n) lies in the heap's symmetric part: 1 and its
 * segment offset. Unsigned arithmetic makes addresses below the heap wrap
 * to huge offsets, so one comparison covers both ends. */
static inline int gk__rt_in_sym_heap(const void *addr, size_t n, size_t *seg_offset_p)
{
    size_t offset = (size_t)((uintptr_t)addr - (uintptr_t)gk__rt.heap);
    size_t sym = gk__rt.sym_span; /* the local area is no one's symmetric memory */
    if (offset > sym || n > sym - offset)
        return 0;
    *seg_offset_p = GK__SEG_HEAP_OFFSET + offset;
    return 1;
}

/* The same for the program's globals, where they are symmetric
 * (data_size 0 otherwise: nothing passes). */
static inline int gk__rt_in_sym_data(const void *addr, size_t n, size_t *seg_offset_p)
{
    size_t in_data = (size_t)((uintptr_t)addr - (uintptr_t)gk__rt.data);
    if (in_data >= gk__rt.data_size || n > gk__rt.data_size - in_data)
        return 0;
    *seg_offset_p = gk__rt.data_seg_offset + in_data;
    return 1;
}

/*
 * Checks an access of n bytes at symmetric address `addr` on `pe` and gives
 * the offset into the target's segment. A transfer of 0 bytes is valid at
 * any address (NULL included).
 */
static inline int gk__rt_check_remote(const char *op, int pe, const void *addr,
                                      size_t n, size_t *seg_offset_p)
{
    if (GK__UNLIKELY((unsigned)pe >= (unsigned)gk__rt.n_pes))
        return gk__rt_report_pe(op, pe);
    if (GK__LIKELY(gk__rt_in_sym_heap(addr, n, seg_offset_p)))
        return GK_OK;
    /* Moving nothing touches nothing: any address will do. */
    if (n == 0) {
        *seg_offset_p = GK__SEG_HEAP_OFFSET;
        return GK_OK;
    }
    if (gk__rt_in_sym_data(addr, n, seg_offset_p))
        return GK_OK;
    if (gk__rt.sym_span == 0 && gk__rt.heap_span != 0)
        return gk__rt_check_block(op, pe, addr, n, seg_offset_p);
    return gk__rt_report_range(op, pe, addr, n);
}

/* Whether n > 0 bytes at addr are this PE's symmetric memory (the heap's
 * symmetric part, or the program's symmetric globals): 1 and their
 * segment offset in *seg_offset_p, else 0. Says nothing: for callers that
 * choose a way by it. */
static inline int gk__rt_sym_offset(const void *addr, size_t n, size_t *seg_offset_p)
{
    return n > 0 && (gk__rt_in_sym_heap(addr, n, seg_offset_p) ||
                     gk__rt_in_sym_data(addr, n, seg_offset_p));
}

/*
 * Whether n bytes at segment offset `offset` of this PE's own segment lie
 * at or above `from` and inside the segment (which ends with the heap):
 * the check a remote operation (net.h) makes of the offsets it was sent.
 */
static inline int gk__rt_own_bytes(size_t from, size_t offset, size_t n)
{
    size_t end = GK__SEG_HEAP_OFFSET + gk__rt.heap_span;
    if (offset >= from && offset <= end && n <= end - offset)
        return 1;
    /* The program's globals, where they are symmetric (after the heap). */
    size_t in_data = offset - gk__rt.data_seg_offset;
    return gk__rt.data_seg_offset >= from && offset >= gk__rt.data_seg_offset &&
           in_data < gk__rt.data_size && n <= gk__rt.data_size - in_data;
}

/* A local buffer may be NULL only when nothing is transferred. */
static inline int gk__rt_check_local(const char *op, const char *arg,
                                     const void *buf, size_t n)
{
    if (GK__UNLIKELY(buf == NULL && n != 0))
        return gk__rt_report_null(op, arg, n);
    return GK_OK;
}

/* Checks a naturally aligned word of `width` bytes on `pe`. */
static inline int gk__rt_check_word(const char *op, int pe, const void *addr,
                                    size_t width, size_t *seg_offset_p)
{
    int status = gk__rt_check_remote(op, pe, addr, width, seg_offset_p);
    if (GK__LIKELY(status == GK_OK) && GK__UNLIKELY(((uintptr_t)addr & (width - 1)) != 0))
        return gk__rt_report_align(op, pe, addr, width);
    return status;
}

/* Where this PE's own segment has byte `seg_offset` (the target's side of a
 * remote operation, a wait on one's own word). */
static inline char *gk__rt_own(size_t seg_offset)
{
    return gk__rt.my_seg.base + seg_offset;
}

#endif /* GK_CORE_RUNTIME_H */

/*
 * symheap.c: the collective symmetric-heap calls (gk_malloc and friends).
 * Every PE runs the same deterministic allocator (mem/heap_alloc.h) in the
 * same order, so offsets agree without communication.
 *
 * That holds only while every PE passes the same arguments. A size that
 * depends on the PE number, or a block freed on some PEs only, would let
 * the allocators drift apart, and later blocks would silently overlap
 * other objects on some PEs. So each call ends (gk_free and gk_realloc:
 * begin) with a vote, one all-reduce that also serves as the call's
 * barrier: which call this is, its arguments, and whether the local step
 * worked on this PE. Arguments that differ are reported on every PE and
 * the call is undone everywhere; so is a local failure on any PE. The
 * barrier role: a block is usable remotely as soon as the allocating call
 * returns, and no PE frees (and later reuses) memory a peer still writes.
 */
#include <stdint.h>
#include <string.h>

#include "base/log.h"
#include "core/allreduce.h"
#include "core/barrier.h"
#include "core/coll_check.h"
#include "core/runtime.h"
#include "core/path.h"
#include "core/progress.h"

/* Which heap call a vote belongs to: PEs in different calls disagree too
 * (gk_calloc is a call of its own: it ends with a barrier, gk_malloc not). */
enum symheap_call { CALL_ALLOC = 1, CALL_FREE, CALL_REALLOC, CALL_CALLOC };
static const char *const symheap_call_names[] = {
    [CALL_ALLOC] = "gk_malloc/gk_align",
    [CALL_FREE] = "gk_free",
    [CALL_REALLOC] = "gk_realloc",
    [CALL_CALLOC] = "gk_calloc",
};

/* The two arguments a call votes on, named for the messages. */
struct symheap_args {
    enum symheap_call call;
    const char *a_name, *b_name;
    uint64_t a, b;
};

/* Logs one argument that differs between PEs (this PE's value and range). */
static void symheap_report_mismatch(const char *op, const char *name, uint64_t mine,
                                    uint64_t lo, uint64_t hi)
{
    gk__error("%s: the PEs passed different %s (from %llu to %llu; this PE %llu): a "
              "collective heap call needs the same arguments on every PE; nothing was "
              "allocated or freed",
              op, name, (unsigned long long)lo, (unsigned long long)hi,
              (unsigned long long)mine);
}

/*
 * The vote: GK_OK when every PE made the same call with the same arguments
 * and every local step worked (local_ok); GK_ERR_INVALID_ARG for differing
 * arguments (logged here); GK_ERR_NOMEM or another failure code when some
 * PE's local step failed (that PE logged why). Each value goes in with its
 * complement, so one all-reduce of maxima yields every minimum as well.
 */
static int symheap_vote(const char *op, const struct symheap_args *args, int local_status)
{
    enum { N_VALUES = 3 };
    uint64_t mine[N_VALUES] = {(uint64_t)args->call, args->a, args->b};
    uint64_t in[2 * N_VALUES + 1], out[2 * N_VALUES + 1];
    for (int i = 0; i < N_VALUES; i++) {
        in[2 * i] = mine[i];
        in[2 * i + 1] = ~mine[i];
    }
    /* Failure codes are negative: the vote carries the worst as a positive. */
    in[2 * N_VALUES] = (uint64_t)-(int64_t)local_status;
    int status = gk__allreduce_u64(op, out, in, 2 * N_VALUES + 1, GK_OP_MAX);
    if (status != GK_OK)
        return status; /* the job is ending */
    uint64_t lo[N_VALUES], hi[N_VALUES];
    for (int i = 0; i < N_VALUES; i++) {
        hi[i] = out[2 * i];
        lo[i] = ~out[2 * i + 1];
    }
    if (lo[0] != hi[0]) {
        gk__error("%s: the PEs are in different heap calls (%s on some, %s on others): "
                  "every PE must make the same collective calls in the same order",
                  op, symheap_call_names[lo[0]], symheap_call_names[hi[0]]);
        return GK_ERR_INVALID_ARG;
    }
    if (lo[1] != hi[1] || lo[2] != hi[2]) {
        if (lo[1] != hi[1])
            symheap_report_mismatch(op, args->a_name, args->a, lo[1], hi[1]);
        if (lo[2] != hi[2])
            symheap_report_mismatch(op, args->b_name, args->b, lo[2], hi[2]);
        return GK_ERR_INVALID_ARG;
    }
    return out[2 * N_VALUES] != 0 ? -(int)out[2 * N_VALUES] : GK_OK;
}

static void symheap_report_exhausted(const char *op, size_t size)
{
    gk__error("%s: out of symmetric heap: asked for %zu bytes, %zu of %zu bytes "
              "free, largest free block %zu; raise GK_HEAP_SIZE (now %zu)",
              op, size, gk__heap_alloc_free_bytes(&gk__rt.heap_alloc),
              gk__rt.heap_span - gk__rt.local_size, gk__heap_alloc_largest_free(&gk__rt.heap_alloc),
              gk__rt.config.heap_request);
}

/*
 * The allocating calls: a block of `size` bytes (0: none) aligned to
 * `alignment` (0: the allocator's own), or NULL on every PE when any PE
 * failed or the PEs disagree; gk_calloc's zero-filled, with a barrier
 * after. arg_status is the caller's own argument check: a bad argument
 * still votes, so no PE is left waiting.
 */
static void *symheap_take_voted(const char *op, enum gk__coll_kind kind, size_t size,
                                size_t alignment, int arg_status)
{
    size_t offset = 0;
    int status = arg_status;
    if (status == GK_OK && size != 0) {
        status = gk__heap_alloc_take(&gk__rt.heap_alloc, size, alignment, &offset);
        if (status == GK_ERR_NOMEM)
            symheap_report_exhausted(op, size);
        else if (status != GK_OK)
            gk__error("%s: cannot allocate %zu bytes aligned to %zu: %s", op, size,
                      alignment, gk_strerror(status));
    }
    const struct symheap_args args = {kind == GK__COLL_CALLOC ? CALL_CALLOC : CALL_ALLOC,
                                      "sizes", "alignments", size, alignment};
    if (symheap_vote(op, &args, status) != GK_OK) {
        if (status == GK_OK && size != 0)
            gk__heap_alloc_give(&gk__rt.heap_alloc, offset); /* undone everywhere */
        return NULL;
    }
    if (size == 0)
        return NULL;
    if (kind == GK__COLL_CALLOC) {
        memset(gk__rt.heap + offset, 0, size);
        /* Peers may write into the block once we return: zero it first. A
         * barrier that fails (a collective mismatch) fails the call. */
        if (gk__barrier() != GK_OK) {
            gk__heap_alloc_give(&gk__rt.heap_alloc, offset);
            return NULL;
        }
    }
    return gk__rt.heap + offset;
}

static void *symheap_take(const char *op, enum gk__coll_kind kind, size_t size,
                          size_t alignment, int arg_status)
{
    if (!gk__rt.initialized) {
        gk__rt_report_pe(op, 0);
        return NULL;
    }
    if (gk__progress_check_not_in_handler(op) != GK_OK ||
        gk__coll_enter(kind) != GK_OK)
        return NULL;
    void *block = symheap_take_voted(op, kind, size, alignment, arg_status);
    gk__coll_leave();
    return block;
}

/* The heap offset of a block pointer, or -1 (logged) when it is not one. */
static int symheap_offset(const char *op, const void *ptr, size_t *offset_p)
{
    size_t offset = (size_t)((uintptr_t)ptr - (uintptr_t)gk__rt.heap);
    size_t size;
    if (offset >= gk__rt.heap_span ||
        gk__heap_alloc_block_size(&gk__rt.heap_alloc, offset, &size) != GK_OK) {
        gk__error("%s: %p is not a block of the symmetric heap", op, ptr);
        return GK_ERR_INVALID_ARG;
    }
    *offset_p = offset;
    return GK_OK;
}

void *gk_malloc(size_t size)
{
    return symheap_take("gk_malloc", GK__COLL_MALLOC, size, 0, GK_OK);
}

void *gk_calloc(size_t count, size_t size)
{
    int arg_status = GK_OK;
    if (size != 0 && count > SIZE_MAX / size) {
        gk__error("gk_calloc: %zu x %zu bytes overflows size_t", count, size);
        arg_status = GK_ERR_INVALID_ARG;
    }
    return symheap_take("gk_calloc", GK__COLL_CALLOC, count * size, 0, arg_status);
}

void *gk_align(size_t alignment, size_t size)
{
    int arg_status = GK_OK;
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        gk__error("gk_align: alignment %zu is not a power of two", alignment);
        arg_status = GK_ERR_INVALID_ARG;
    } else if (alignment > GK__SEG_MAP_ALIGN) {
        /* Heaps start on GK__SEG_MAP_ALIGN boundaries, so offsets aligned up
         * to that are addresses aligned on every PE; beyond it they would
         * not be. */
        gk__error("gk_align: alignment %zu is above the largest supported, %zu", alignment,
                  GK__SEG_MAP_ALIGN);
        arg_status = GK_ERR_INVALID_ARG;
    }
    return symheap_take("gk_align", GK__COLL_ALIGN, size, alignment, arg_status);
}

/* A block's heap offset for a vote; NULL votes as all ones. */
#define SYMHEAP_NULL_BLOCK UINT64_MAX

void gk_free(void *ptr)
{
    if (!gk__rt.initialized || gk__progress_check_not_in_handler("gk_free") != GK_OK ||
        gk__coll_enter(GK__COLL_FREE) != GK_OK)
        return;
    size_t offset = 0;
    int status = ptr != NULL ? symheap_offset("gk_free", ptr, &offset) : GK_OK;
    const struct symheap_args args = {CALL_FREE, "blocks (heap offsets; NULL is all ones)",
                                      "", ptr != NULL ? offset : SYMHEAP_NULL_BLOCK, 0};
    if (symheap_vote("gk_free", &args, status) == GK_OK && ptr != NULL)
        gk__heap_alloc_give(&gk__rt.heap_alloc, offset);
    gk__coll_leave();
}

static void *symheap_realloc(void *ptr, size_t size)
{
    size_t offset = 0, old_size = 0;
    int status = symheap_offset("gk_realloc", ptr, &offset);
    /* The vote is also the barrier before the block moves or shrinks:
     * peers must be done with the old one. */
    const struct symheap_args args = {CALL_REALLOC, "blocks (heap offsets)", "sizes",
                                      offset, size};
    if (symheap_vote("gk_realloc", &args, status) != GK_OK)
        return NULL; /* the block is unchanged everywhere */
    gk__heap_alloc_block_size(&gk__rt.heap_alloc, offset, &old_size);
    if (gk__heap_alloc_resize(&gk__rt.heap_alloc, offset, size) == GK_OK) {
        gk__barrier();
        return ptr;
    }
    /* Same arguments, same allocator state: every PE moves alike. */
    size_t new_offset;
    status = gk__heap_alloc_take(&gk__rt.heap_alloc, size, 0, &new_offset);
    if (status == GK_OK) {
        memmove(gk__rt.heap + new_offset, gk__rt.heap + offset,
                old_size < size ? old_size : size);
        gk__heap_alloc_give(&gk__rt.heap_alloc, offset);
    } else {
        symheap_report_exhausted("gk_realloc", size);
    }
    gk__barrier();
    return status == GK_OK ? gk__rt.heap + new_offset : NULL;
}

void *gk_realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return gk_malloc(size);
    if (size == 0) {
        gk_free(ptr);
        return NULL;
    }
    if (!gk__rt.initialized || gk__progress_check_not_in_handler("gk_realloc") != GK_OK ||
        gk__coll_enter(GK__COLL_REALLOC) != GK_OK)
        return NULL;
    void *block = symheap_realloc(ptr, size);
    gk__coll_leave();
    return block;
}

size_t gk_heap_size(void)
{
    return gk__rt.heap_span - gk__rt.local_size;
}

size_t gk_heap_free(void)
{
    return gk__rt.initialized ? gk__heap_alloc_free_bytes(&gk__rt.heap_alloc) : 0;
}

void *gk_ptr(const void *addr, int pe)
{
    if (!gk__rt.initialized || (unsigned)pe >= (unsigned)gk__rt.n_pes)
        return NULL;
    if (!gk__path_mapped(pe))
        return NULL;
    size_t offset = (size_t)((uintptr_t)addr - (uintptr_t)gk__rt.heap);
    if (offset < gk__rt.heap_span - gk__rt.local_size) /* not the local area: not symmetric */
        return gk__path_addr(pe, GK__SEG_HEAP_OFFSET + offset);
    size_t in_data = (size_t)((uintptr_t)addr - (uintptr_t)gk__rt.data);
    if (in_data < gk__rt.data_size)
        return gk__path_addr(pe, gk__rt.data_seg_offset + in_data);
    return NULL;
}

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
 * barrier: which call this is, its arguments, whether the local step
 * worked on this PE, and the offset it proposes. Arguments that differ are
 * reported on every PE and the call is undone everywhere; so is a local
 * failure on any PE. The barrier role: a block is usable remotely as soon
 * as the allocating call returns, and no PE frees (and later reuses)
 * memory a peer still writes.
 *
 * Team allocations (gk_team_malloc, team/team_heap.c) change only their
 * members' heaps, so after them the PEs' first fits may differ: the vote's
 * proposals then differ too, and the PEs settle on an offset free on all
 * of them in more rounds (symheap.h, "agreed first fit"). While the heaps
 * are identical, the common case, a call stays one all-reduce.
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
#include "core/symheap.h"

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
 * and every local step worked (local_status); GK_ERR_INVALID_ARG for
 * differing arguments (logged here); GK_ERR_NOMEM or another failure code
 * when some PE's local step failed (that PE logged why). *lo_p and *hi_p
 * get the extremes of the PEs' proposed offsets (`proposal`). Each value
 * goes in with its complement, so one all-reduce of maxima yields every
 * minimum as well.
 */
static int symheap_vote(const char *op, const struct symheap_args *args, int local_status,
                        uint64_t proposal, uint64_t *lo_p, uint64_t *hi_p)
{
    enum { N_VALUES = 4 };
    uint64_t mine[N_VALUES] = {(uint64_t)args->call, args->a, args->b, proposal};
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
    *lo_p = lo[3];
    *hi_p = hi[3];
    return out[2 * N_VALUES] != 0 ? -(int)out[2 * N_VALUES] : GK_OK;
}

/* The world's all-reduce for gk__symheap_settle (arg: the call's name). */
static int symheap_world_max(void *arg, uint64_t *dst, const uint64_t *src, size_t count)
{
    return gk__allreduce_u64(arg, dst, src, count, GK_OP_MAX);
}

static void symheap_report_exhausted(const char *op, size_t size, size_t alignment)
{
    size_t fit;
    if (gk__heap_alloc_fit(&gk__rt.heap_alloc, 0, size, alignment, &fit) == GK_OK)
        gk__error("%s: no range of %zu bytes is free on every PE of the call: this PE has "
                  "room (%zu of %zu bytes free, largest free block %zu), but not at an "
                  "offset free on the others (their heaps differ after team allocations, "
                  "gk_team_malloc, or theirs are full); raise GK_HEAP_SIZE (now %zu)",
                  op, size, gk__heap_alloc_free_bytes(&gk__rt.heap_alloc),
                  gk__rt.heap_span - gk__rt.local_size,
                  gk__heap_alloc_largest_free(&gk__rt.heap_alloc), gk__rt.config.heap_request);
    else
        gk__error("%s: out of symmetric heap: asked for %zu bytes, %zu of %zu bytes "
                  "free, largest free block %zu; raise GK_HEAP_SIZE (now %zu)",
                  op, size, gk__heap_alloc_free_bytes(&gk__rt.heap_alloc),
                  gk__rt.heap_span - gk__rt.local_size,
                  gk__heap_alloc_largest_free(&gk__rt.heap_alloc), gk__rt.config.heap_request);
}

int gk__symheap_propose(const char *op, size_t size, size_t alignment, uint64_t owner,
                        uint64_t *proposal_p)
{
    size_t offset;
    int status = gk__heap_alloc_fit(&gk__rt.heap_alloc, 0, size, alignment, &offset);
    if (status == GK_OK)
        status = gk__heap_alloc_take_at(&gk__rt.heap_alloc, offset, size, owner);
    if (status == GK_OK) {
        *proposal_p = offset;
    } else if (status == GK_ERR_NOMEM) {
        *proposal_p = GK__SYMHEAP_NONE; /* every PE reports it, after the vote */
        status = GK_OK;
    } else {
        gk__error("%s: cannot allocate %zu bytes aligned to %zu: %s", op, size, alignment,
                  gk_strerror(status));
    }
    return status;
}

void gk__symheap_give(size_t offset)
{
    gk__heap_alloc_give(&gk__rt.heap_alloc, offset);
}

/*
 * The agreed first fit. In a round every PE proposes the lowest offset at
 * or above the candidate where the block fits on it (taking the block
 * tentatively when that is the candidate itself), and the round's maxima
 * give the next candidate. When all propose the candidate, every PE has
 * taken it: done. Otherwise the largest proposal is above the candidate
 * (each is at or above it, and they differ, or all name one higher
 * offset), so the candidate only grows and the rounds end, at the latest
 * when a PE finds no room above it: GK__SYMHEAP_NONE, the same verdict on
 * every PE.
 */
int gk__symheap_settle(const char *op, size_t size, size_t alignment, uint64_t owner,
                       uint64_t mine, uint64_t lo, uint64_t hi, gk__symheap_max_fn *max,
                       void *arg, size_t *offset_p)
{
    if (lo == hi && hi != GK__SYMHEAP_NONE) {
        *offset_p = (size_t)mine;
        return GK_OK;
    }
    if (mine != GK__SYMHEAP_NONE)
        gk__symheap_give((size_t)mine);
    uint64_t candidate = hi;
    while (candidate != GK__SYMHEAP_NONE) {
        size_t fit;
        uint64_t proposal = GK__SYMHEAP_NONE;
        int taken = 0;
        if (gk__heap_alloc_fit(&gk__rt.heap_alloc, (size_t)candidate, size, alignment, &fit) ==
            GK_OK)
            proposal = fit;
        if (proposal == candidate) {
            taken = gk__heap_alloc_take_at(&gk__rt.heap_alloc, fit, size, owner) == GK_OK;
            if (!taken)
                proposal = GK__SYMHEAP_NONE;
        }
        uint64_t in[2] = {proposal, ~proposal}, out[2];
        int status = max(arg, out, in, 2);
        if (status == GK_OK && out[0] == ~out[1] && out[0] == candidate) {
            *offset_p = (size_t)candidate;
            return GK_OK;
        }
        if (taken)
            gk__symheap_give((size_t)candidate);
        if (status != GK_OK)
            return status;
        candidate = out[0];
    }
    symheap_report_exhausted(op, size, alignment);
    return GK_ERR_NOMEM;
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
    uint64_t mine = GK__SYMHEAP_NONE, lo = 0, hi = 0;
    int status = arg_status;
    if (status == GK_OK && size != 0)
        status = gk__symheap_propose(op, size, alignment, GK__SYMHEAP_WORLD, &mine);
    const struct symheap_args args = {kind == GK__COLL_CALLOC ? CALL_CALLOC : CALL_ALLOC,
                                      "sizes", "alignments", size, alignment};
    int voted = symheap_vote(op, &args, status, size != 0 ? mine : 0, &lo, &hi);
    if (voted != GK_OK) {
        if (status == GK_OK && size != 0 && mine != GK__SYMHEAP_NONE)
            gk__symheap_give((size_t)mine); /* undone everywhere */
        return NULL;
    }
    if (size == 0)
        return NULL;
    size_t offset;
    if (gk__symheap_settle(op, size, alignment, GK__SYMHEAP_WORLD, mine, lo, hi,
                           symheap_world_max, (void *)op, &offset) != GK_OK)
        return NULL;
    if (kind == GK__COLL_CALLOC) {
        memset(gk__rt.heap + offset, 0, size);
        /* Peers may write into the block once we return: zero it first. A
         * barrier that fails (a collective mismatch) fails the call. */
        if (gk__barrier() != GK_OK) {
            gk__symheap_give(offset);
            return NULL;
        }
    }
    return gk__rt.heap + offset;
}

void *gk__symheap_take(const char *op, enum gk__coll_kind kind, size_t size,
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

int gk__symheap_block(const char *op, const void *ptr, uint64_t owner, size_t *offset_p)
{
    size_t offset = (size_t)((uintptr_t)ptr - (uintptr_t)gk__rt.heap);
    struct gk__extent block;
    if (offset >= gk__rt.heap_span ||
        gk__heap_alloc_block(&gk__rt.heap_alloc, offset, &block) != GK_OK) {
        gk__error("%s: %p is not a block of the symmetric heap", op, ptr);
        return GK_ERR_INVALID_ARG;
    }
    if (block.owner != owner) {
        if (owner == GK__SYMHEAP_WORLD)
            gk__error("%s: %p is a block of a team (gk_team_malloc): free it with "
                      "gk_team_free on that team",
                      op, ptr);
        else
            gk__error("%s: ptr %p is not a block of this team's (from gk_team_malloc on "
                      "this team): it is %s",
                      op, ptr, block.owner == GK__SYMHEAP_WORLD ? "the world's (gk_malloc)"
                                                                : "another team's");
        return GK_ERR_INVALID_ARG;
    }
    *offset_p = offset;
    return GK_OK;
}

void *gk_malloc(size_t size)
{
    return gk__symheap_take("gk_malloc", GK__COLL_MALLOC, size, 0, GK_OK);
}

int gk__symheap_check_calloc(const char *op, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        gk__error("%s: %zu x %zu bytes overflows size_t", op, count, size);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

int gk__symheap_check_align(const char *op, size_t alignment)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        gk__error("%s: alignment %zu is not a power of two", op, alignment);
        return GK_ERR_INVALID_ARG;
    }
    size_t largest = gk__seg_heap_align(gk__rt.heap_span);
    if (alignment > largest) {
        /* Every heap starts on a boundary of `largest` (mem/segment.h), so
         * offsets aligned up to that are addresses aligned on every PE. */
        gk__error("%s: alignment %zu is above the largest the symmetric heap of %zu bytes "
                  "holds, %zu",
                  op, alignment, gk_heap_size(), largest);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

void *gk_calloc(size_t count, size_t size)
{
    int arg_status = gk__symheap_check_calloc("gk_calloc", count, size);
    return gk__symheap_take("gk_calloc", GK__COLL_CALLOC, arg_status == GK_OK ? count * size : 0,
                            0, arg_status);
}

void *gk_align(size_t alignment, size_t size)
{
    int arg_status = gk__symheap_check_align("gk_align", alignment);
    return gk__symheap_take("gk_align", GK__COLL_ALIGN, size, alignment, arg_status);
}

/* A block's heap offset for a vote; NULL votes as all ones. */
#define SYMHEAP_NULL_BLOCK UINT64_MAX

int gk__symheap_free(const char *op, void *ptr)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe(op, 0);
    int status = gk__progress_check_not_in_handler(op);
    if (status == GK_OK)
        status = gk__coll_enter(GK__COLL_FREE);
    if (status != GK_OK)
        return status;
    size_t offset = 0;
    uint64_t lo, hi;
    status = ptr != NULL ? gk__symheap_block(op, ptr, GK__SYMHEAP_WORLD, &offset) : GK_OK;
    const struct symheap_args args = {CALL_FREE, "blocks (heap offsets; NULL is all ones)",
                                      "", ptr != NULL ? offset : SYMHEAP_NULL_BLOCK, 0};
    status = symheap_vote(op, &args, status, 0, &lo, &hi);
    if (status == GK_OK && ptr != NULL)
        gk__symheap_give(offset);
    gk__coll_leave();
    return status;
}

void gk_free(void *ptr)
{
    if (gk__rt.initialized)
        (void)gk__symheap_free("gk_free", ptr);
}

static void *symheap_realloc(void *ptr, size_t size)
{
    static const char op[] = "gk_realloc";
    size_t offset = 0;
    uint64_t lo, hi;
    int status = gk__symheap_block(op, ptr, GK__SYMHEAP_WORLD, &offset);
    /* The vote is also the barrier before the block moves or shrinks:
     * peers must be done with the old one. */
    const struct symheap_args args = {CALL_REALLOC, "blocks (heap offsets)", "sizes",
                                      offset, size};
    if (symheap_vote(op, &args, status, 0, &lo, &hi) != GK_OK)
        return NULL; /* the block is unchanged everywhere */
    struct gk__extent old = {offset, 0, GK__SYMHEAP_WORLD};
    gk__heap_alloc_block(&gk__rt.heap_alloc, offset, &old);
    size_t old_size = old.size;
    /* In place where every PE can: shrinking always, growing where the
     * bytes after the block are free on every PE (after team allocations
     * they may be on some only). The all-reduce is the barrier after. */
    int in_place = gk__heap_alloc_resize(&gk__rt.heap_alloc, offset, size) == GK_OK;
    uint64_t in = !in_place, out = 1;
    status = symheap_world_max((void *)op, &out, &in, 1);
    if (status == GK_OK && out == 0)
        return ptr;
    if (in_place)
        gk__heap_alloc_resize(&gk__rt.heap_alloc, offset, old_size);
    if (status != GK_OK)
        return NULL;
    /* Moved: the new block is placed as gk_malloc's are, while the old one
     * is still taken, then the bytes move. */
    uint64_t mine = GK__SYMHEAP_NONE;
    status = gk__symheap_propose(op, size, 0, GK__SYMHEAP_WORLD, &mine);
    uint64_t vote[3] = {mine, ~mine, (uint64_t)-(int64_t)status}, votes[3];
    size_t new_offset = 0;
    int agreed = symheap_world_max((void *)op, votes, vote, 3);
    if (agreed == GK_OK && votes[2] != 0)
        agreed = -(int)votes[2];
    if (agreed != GK_OK) {
        if (status == GK_OK && mine != GK__SYMHEAP_NONE)
            gk__symheap_give((size_t)mine);
    } else {
        agreed = gk__symheap_settle(op, size, 0, GK__SYMHEAP_WORLD, mine, ~votes[1], votes[0],
                                    symheap_world_max, (void *)op, &new_offset);
    }
    if (agreed == GK_OK) {
        memmove(gk__rt.heap + new_offset, gk__rt.heap + offset,
                old_size < size ? old_size : size);
        gk__symheap_give(offset);
    }
    gk__barrier();
    return agreed == GK_OK ? gk__rt.heap + new_offset : NULL;
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

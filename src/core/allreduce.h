/*
 * allreduce.h: the runtime's own all-reduce (recursive doubling over
 * signaling puts, allreduce.c): the collective steps inside its calls (the
 * votes of gk_malloc and its kind, gk_finalize's counts, a window's
 * creation) with 64-bit sums and maxima. It needs nothing above core; the
 * public collectives run on the team engine (team/).
 */
#ifndef GK_CORE_ALLREDUCE_H
#define GK_CORE_ALLREDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "core/coll_signal.h"
#include "gasket.h"
#include "mem/segment.h"

#define GK__ALLREDUCE_STEPS 34 /* fold-in, fold-out, 32 doubling rounds */
#define GK__ALLREDUCE_CHUNK ((size_t)4096)
/* Its region of the segment (allreduce.c): the signal lines, then each
 * step's slots, both parities, in whole pages. */
#define GK__ALLREDUCE_SLOTS_AT ((size_t)8192)
#define GK__ALLREDUCE_STEP_SIZE ((size_t)8192)
#define GK__ALLREDUCE_SIZE (GK__ALLREDUCE_SLOTS_AT + GK__ALLREDUCE_STEPS * GK__ALLREDUCE_STEP_SIZE)

/* The all-reduce steps a job of n_pes PEs uses: the fold-in and fold-out,
 * and a doubling round for each bit of the largest power of two <= n_pes. */
static inline int gk__allreduce_steps(int n_pes)
{
    int steps = 2;
    for (long long p2 = 2; p2 <= n_pes; p2 *= 2)
        steps++;
    return steps;
}

/*
 * The all-reduce's part of the segment (its region, allreduce.c): a signal line for each step and parity, then a
 * slot for each. The slots go by step, so the steps a job uses
 * (gk__allreduce_steps: the fold steps first, then the rounds) are one
 * prefix, which is all the segment reserves.
 */
struct gk__allreduce_scratch {
    struct gk__coll_line signal[GK__ALLREDUCE_STEPS][2];
    _Alignas(4096) unsigned char slot[GK__ALLREDUCE_STEPS][2][GK__ALLREDUCE_CHUNK];
};
_Static_assert(offsetof(struct gk__allreduce_scratch, slot) == GK__ALLREDUCE_SLOTS_AT,
               "the slots are where the segment reserves them");
_Static_assert(sizeof(((struct gk__allreduce_scratch *)0)->slot[0]) ==
                   GK__ALLREDUCE_STEP_SIZE,
               "a step's slots");
_Static_assert(sizeof(struct gk__allreduce_scratch) == GK__ALLREDUCE_SIZE,
               "the all-reduce's part of the segment");

/*
 * A call's state, carried below the sequence number in each signal word
 * (allreduce.c, "Agreement"): a hash of what the call is, and two bits.
 */
#define GK__ALLREDUCE_FAILED (1u << 23)   /* some PE's own arguments failed */
#define GK__ALLREDUCE_MISMATCH (1u << 22) /* the PEs' hashes differ */
#define GK__ALLREDUCE_WRONG (GK__ALLREDUCE_FAILED | GK__ALLREDUCE_MISMATCH)

/* The root of an all-reduce (every PE keeps the result) for the hash. */
#define GK__ALLREDUCE_ROOT_ALL INT64_MIN

/* The state of a call of count elements of dtype under op to root (or
 * GK__ALLREDUCE_ROOT_ALL): its hash, no bits set. */
uint32_t gk__allreduce_hash(size_t count, gk_dtype_t dtype, gk_op_t op, int64_t root);

/* out[i] = lower[i] op upper[i], lower from the lower-numbered block, so
 * every PE computes the same bits; out may alias either input, and all
 * three are aligned for any element type. */
typedef void gk__allreduce_combine_fn(void *out, const void *lower, const void *upper,
                                      size_t count, const void *arg);

/*
 * One all-reduce, inside a collective call (gk__coll_enter() has numbered
 * it): count elements of `size` bytes from src, combined with
 * combine(arg), the result in dst (NULL: this PE keeps none, a reduce's
 * non-root). *state_p holds this PE's state on entry (a hash, with
 * GK__ALLREDUCE_FAILED when its own arguments failed: then count is 0 and
 * the buffers unused) and the state every PE ends with on return: with
 * GK__ALLREDUCE_WRONG no PE has a result, and the caller says why.
 * Returns GK_OK, or the error of a wait or a transport (a PE died, or the
 * collectives went out of step: logged where found).
 */
int gk__allreduce_run(void *dst, const void *src, size_t count, size_t size,
                      gk__allreduce_combine_fn *combine, const void *arg,
                      uint32_t *state_p);

/*
 * dst = the sum (GK_OP_SUM) or maximum (GK_OP_MAX) over all PEs of src,
 * count 64-bit words: the runtime's own collective steps, inside the
 * collective call `call` (named in messages). GK_OK, or the failure of
 * gk__allreduce_run.
 */
int gk__allreduce_u64(const char *call, uint64_t *dst, const uint64_t *src, size_t count,
                      gk_op_t op);

/* Starts the count of pieces afresh: at gk_init, before the first one. */
void gk__allreduce_reset(void);

#endif /* GK_CORE_ALLREDUCE_H */

/*
 * allreduce.c: all-reduce by recursive doubling over signaling puts.
 *
 * With p2 the largest power of two <= n, PEs p2..n-1 first fold their data
 * into PE (pe - p2) (step FOLD_IN). PEs 0..p2-1 then run log2(p2) rounds: in
 * round r (step ROUND_0 + r), PE i sends its partial result to i XOR 2^r
 * and combines what it gets, always as (lower block) op (upper block), so
 * both partners compute the same bits and every PE ends with
 * bitwise-identical results. Finally PE i < n - p2 sends the result to
 * i + p2 (step FOLD_OUT). The fold steps come first, so a job uses steps
 * 0 .. gk__allreduce_steps(n) - 1 and no other: the segment reserves
 * those slots only.
 *
 * Each message lands in the receiver's slot [step][parity] with a signal
 * word set to the call's sequence number (allreduce_seq; long arrays go
 * in GK__ALLREDUCE_CHUNK pieces, one sequence number each). Two parities
 * are enough: a PE finishes piece k only after every PE has contributed to
 * it, so when anyone writes a slot for piece k+2, its owner is past piece
 * k, the slot's previous use.
 *
 * Agreement. Below the sequence number, the signal word carries the
 * sender's state: a hash of the call (for gk_allreduce its count, dtype
 * and op), a FAILED bit (its own arguments failed their checks) and a
 * MISMATCH bit (it has seen two hashes differ). Each PE ORs in its
 * partner's bits, and sets MISMATCH when the partner's hash is not its
 * own; by induction over the rounds, every PE of a block ends with the
 * same bits, so after a piece all PEs know alike whether the call is wrong
 * somewhere, and all stop there with an error instead of some waiting for
 * pieces others never send. A PE whose arguments fail still takes part in
 * that first piece (with no data).
 *
 * A piece holds whole elements (GK__ALLREDUCE_CHUNK / size of them), and
 * the slots and the accumulator are aligned for any element type, so the
 * combining functions read elements in place.
 */
#include "core/allreduce.h"

#include <assert.h>
#include <string.h>

#include "base/log.h"
#include "core/coll_check.h"
#include "core/path.h"
#include "core/runtime.h"

#define STEP_FOLD_IN 0
#define STEP_FOLD_OUT 1
#define STEP_ROUND_0 2
_Static_assert(STEP_ROUND_0 + 32 == GK__ALLREDUCE_STEPS, "a slot for each step");

/* The signal word: sequence number << STATE_BITS | the sender's state. */
#define STATE_BITS 24u
#define STATE_HASH_MASK (GK__ALLREDUCE_MISMATCH - 1)
_Static_assert(GK__ALLREDUCE_WRONG < (1u << STATE_BITS), "the state fits its bits");

/* The bytes of the region a job of n_pes PEs touches: the steps it uses. */
static size_t allreduce_used(int n_pes)
{
    return GK__ALLREDUCE_SLOTS_AT + (size_t)gk__allreduce_steps(n_pes) * GK__ALLREDUCE_STEP_SIZE;
}
static GK__SEG_REGION(allreduce_region, .name = "all-reduce", .size = GK__ALLREDUCE_SIZE,
                      .align = 4096, .used = allreduce_used);

#define SCRATCH_OFFSET(field)                                                            \
    (allreduce_region.offset + offsetof(struct gk__allreduce_scratch, field))

uint32_t gk__allreduce_hash(size_t count, gk_dtype_t dtype, gk_op_t op, int64_t root)
{
    /* A reduce's root is in the hash, and an all-reduce's ROOT_ALL differs
     * from every int: a PE in gk_reduce and one in gk_allreduce disagree. */
    uint64_t h = (uint64_t)count * 0x9e3779b97f4a7c15ULL ^ (uint64_t)dtype << 48 ^
                 (uint64_t)op << 56;
    h ^= (uint64_t)root * 0xd6e8feb86659fd93ULL;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    return (uint32_t)h & STATE_HASH_MASK;
}

/* Our state after hearing a partner's. */
static uint32_t state_combine(uint32_t mine, uint32_t theirs)
{
    uint32_t bits = (mine | theirs) & GK__ALLREDUCE_WRONG;
    if ((mine & STATE_HASH_MASK) != (theirs & STATE_HASH_MASK))
        bits |= GK__ALLREDUCE_MISMATCH;
    return bits | (mine & STATE_HASH_MASK);
}

static int reduce_send(int pe, unsigned parity, unsigned step, const void *data,
                       size_t bytes, uint64_t seq, uint32_t state)
{
    assert((int)step < gk__allreduce_steps(gk__rt.n_pes)); /* a reserved slot */
    return gk__coll_put_signal(pe, SCRATCH_OFFSET(slot[step][parity]), data, bytes,
                               SCRATCH_OFFSET(signal[step][parity].value),
                               seq << STATE_BITS | state);
}

static int reduce_receive(unsigned parity, unsigned step, uint64_t seq,
                          const unsigned char **data_p, uint32_t *state_p)
{
    struct gk__allreduce_scratch *mine =
        (struct gk__allreduce_scratch *)(gk__rt.my_seg.base + allreduce_region.offset);
    _Atomic uint64_t *signal = &mine->signal[step][parity].value;
    int status = gk__coll_wait_signal(signal, seq << STATE_BITS);
    *data_p = mine->slot[step][parity];
    *state_p = (uint32_t)(atomic_load_explicit(signal, memory_order_acquire) &
                          ((1u << STATE_BITS) - 1));
    return status;
}

/* The all-reduce's pieces so far: every PE counts the same. */
static uint64_t allreduce_seq;

void gk__allreduce_reset(void)
{
    allreduce_seq = 0;
}

/* The combining function and its argument. */
struct reduce_fn {
    gk__allreduce_combine_fn *combine;
    const void *arg;
};

/* One piece of at most GK__ALLREDUCE_CHUNK bytes; *state as above. dst
 * NULL: this PE keeps no result. */
static int reduce_piece(unsigned char *dst, const unsigned char *src, size_t count,
                        size_t bytes, const struct reduce_fn *fn, uint32_t *state)
{
    int n = gk__rt.n_pes, me = gk__rt.my_pe;
    int p2 = 1;
    while (p2 * 2 <= n)
        p2 *= 2;
    uint64_t seq = ++allreduce_seq;
    unsigned parity = (unsigned)(seq & 1);
    _Alignas(64) unsigned char acc[GK__ALLREDUCE_CHUNK];
    const unsigned char *in;
    int status;

    if (me >= p2) {
        status = reduce_send(me - p2, parity, STEP_FOLD_IN, src, bytes, seq, *state);
        if (status == GK_OK)
            status = reduce_receive(parity, STEP_FOLD_OUT, seq, &in, state);
        if (status == GK_OK && dst != NULL && bytes > 0 &&
            !(*state & GK__ALLREDUCE_WRONG))
            memcpy(dst, in, bytes);
        return status;
    }
    if (bytes > 0)
        memcpy(acc, src, bytes);
    uint32_t theirs;
    if (me < n - p2) {
        status = reduce_receive(parity, STEP_FOLD_IN, seq, &in, &theirs);
        if (status != GK_OK)
            return status;
        *state = state_combine(*state, theirs);
        if (!(*state & GK__ALLREDUCE_WRONG))
            fn->combine(acc, acc, in, count, fn->arg);
    }
    unsigned step = STEP_ROUND_0;
    for (int distance = 1; distance < p2; distance <<= 1, step++) {
        int partner = me ^ distance;
        status = reduce_send(partner, parity, step, acc, bytes, seq, *state);
        if (status == GK_OK)
            status = reduce_receive(parity, step, seq, &in, &theirs);
        if (status != GK_OK)
            return status;
        *state = state_combine(*state, theirs);
        if (*state & GK__ALLREDUCE_WRONG)
            continue; /* the exchange goes on, to spread the news */
        if (me < partner)
            fn->combine(acc, acc, in, count, fn->arg);
        else
            fn->combine(acc, in, acc, count, fn->arg);
    }
    if (me < n - p2) {
        status = reduce_send(me + p2, parity, STEP_FOLD_OUT, acc, bytes, seq, *state);
        if (status != GK_OK)
            return status;
    }
    if (dst != NULL && bytes > 0 && !(*state & GK__ALLREDUCE_WRONG))
        memcpy(dst, acc, bytes);
    return GK_OK;
}

int gk__allreduce_run(void *dst, const void *src, size_t count, size_t size,
                      gk__allreduce_combine_fn *combine, const void *arg,
                      uint32_t *state_p)
{
    assert(gk__coll_depth > 0);
    /* After a mismatch no collective step can end; the call that found it
     * has said so (core/coll_check.h). */
    if (GK__UNLIKELY(gk__coll_state.broken))
        return GK_ERR_COLL_MISMATCH;
    if (GK__UNLIKELY(gk__race_on))
        gk__path_race_coll_enter(GK__PATH_RACE_KEY_ALLREDUCE, 0);
    const struct reduce_fn fn = {combine, arg};
    unsigned char *to = dst;
    const unsigned char *from = src;
    /* Every call has at least one piece, even of no elements: the check. */
    size_t per_piece = count > 0 ? GK__ALLREDUCE_CHUNK / size : 1, done = 0;
    int status;
    do {
        size_t piece = count - done < per_piece ? count - done : per_piece;
        status = reduce_piece(to != NULL ? to + done * size : NULL,
                              from != NULL ? from + done * size : NULL, piece,
                              piece * size, &fn, state_p);
        done += piece;
    } while (status == GK_OK && !(*state_p & GK__ALLREDUCE_WRONG) && done < count);
    if (GK__UNLIKELY(gk__race_on) && status == GK_OK)
        gk__path_race_coll_leave(GK__PATH_RACE_KEY_ALLREDUCE, 0, NULL, 0);
    return status;
}

static void allreduce_u64_combine(void *out, const void *lower, const void *upper,
                                  size_t count, const void *arg)
{
    uint64_t *o = out;
    const uint64_t *a = lower, *b = upper;
    if (*(const gk_op_t *)arg == GK_OP_SUM) {
        for (size_t i = 0; i < count; i++)
            o[i] = a[i] + b[i];
    } else {
        for (size_t i = 0; i < count; i++)
            o[i] = a[i] > b[i] ? a[i] : b[i];
    }
}

int gk__allreduce_u64(const char *call, uint64_t *dst, const uint64_t *src, size_t count,
                      gk_op_t op)
{
    assert(op == GK_OP_SUM || op == GK_OP_MAX);
    uint32_t state =
        gk__allreduce_hash(count, GK_DTYPE_UINT64, op, GK__ALLREDUCE_ROOT_ALL);
    int status = gk__allreduce_run(dst, src, count, sizeof(uint64_t),
                                   allreduce_u64_combine, &op, &state);
    if (status == GK_OK && (state & GK__ALLREDUCE_WRONG)) {
        /* The runtime's own steps are alike on every PE in the same call. */
        gk__error("%s: the PEs' internal all-reduces differ (this PE: %zu values); the "
                  "PEs are out of step",
                  call, count);
        status = GK_ERR_COLL_MISMATCH;
    }
    return status;
}

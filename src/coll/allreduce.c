/*
 * allreduce.c: all-reduce by recursive doubling over signaling puts.
 *
 * With p2 the largest power of two <= n, PEs p2..n-1 first fold their data
 * into PE (pe - p2) (step FOLD_IN). PEs 0..p2-1 then run log2(p2) rounds: in
 * round r, PE i sends its partial result to i XOR 2^r and combines what it
 * gets, always as (lower block) op (upper block), so both partners compute
 * the same bits and every PE ends with bitwise-identical results. Finally
 * PE i < n - p2 sends the result to i + p2 (step FOLD_OUT).
 *
 * Each message lands in the receiver's slot [parity][step] with a signal
 * word set to the call's sequence number (gk__rt.reduce_seq; long arrays go
 * in COLL_REDUCE_CHUNK pieces, one sequence number each). Two parities are
 * enough: a PE finishes piece k only after every PE has contributed to it,
 * so when anyone writes a slot for piece k+2, its owner is past piece k,
 * the slot's previous use.
 *
 * Agreement. Below the sequence number, the signal word carries the
 * sender's state: a hash of the call's (count, dtype, op), a FAILED bit (its
 * own arguments failed their checks) and a MISMATCH bit (it has seen two
 * hashes differ). Each PE ORs in its partner's bits, and sets MISMATCH when
 * the partner's hash is not its own; by induction over the rounds, every PE
 * of a block ends with the same bits, so after a piece all PEs know alike
 * whether the call is wrong somewhere, and all stop there with an error
 * instead of some waiting for pieces others never send. A PE whose
 * arguments fail still takes part in that first piece (with no data).
 *
 * gk_reduce is the same exchange with a root in the hash: every PE computes
 * the result (so the root's bits are the all-reduce's), and only the root
 * stores it.
 *
 * A piece holds whole elements (COLL_REDUCE_CHUNK / size of them), and the
 * slots and the accumulator are aligned for any element type, so the
 * kernels read elements in place.
 */
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "coll/coll.h"
#include "core/coll_check.h"
#include "core/progress.h"
#include "coll/reduce_op.h"

#define STEP_FOLD_IN 32
#define STEP_FOLD_OUT 33

/* The signal word: sequence number << STATE_BITS | the sender's state. */
#define STATE_BITS 24u
#define STATE_FAILED (1u << 23)
#define STATE_MISMATCH (1u << 22)
#define STATE_HASH_MASK (STATE_MISMATCH - 1)
#define STATE_WRONG (STATE_FAILED | STATE_MISMATCH)

/* The root of an all-reduce: every PE keeps the result. */
#define ROOT_ALL INT64_MIN

/* A reduce's root is in the hash, and an all-reduce's ROOT_ALL differs from
 * every int: a PE in gk_reduce and one in gk_allreduce disagree. */
static uint32_t call_hash(size_t count, gk_dtype_t dtype, gk_op_t op, int64_t root)
{
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
    uint32_t bits = (mine | theirs) & STATE_WRONG;
    if ((mine & STATE_HASH_MASK) != (theirs & STATE_HASH_MASK))
        bits |= STATE_MISMATCH;
    return bits | (mine & STATE_HASH_MASK);
}

static int reduce_send(int pe, unsigned parity, unsigned step, const void *data,
                       size_t bytes, uint64_t seq, uint32_t state)
{
    return gk__coll_put_signal(pe, GK__COLL_OFFSET(reduce_slot[parity][step]), data, bytes,
                               GK__COLL_OFFSET(reduce_signal[parity][step].value),
                               seq << STATE_BITS | state);
}

static int reduce_receive(unsigned parity, unsigned step, uint64_t seq,
                          const unsigned char **data_p, uint32_t *state_p)
{
    struct gk__coll_scratch *mine = gk__coll_mine();
    _Atomic uint64_t *signal = &mine->reduce_signal[parity][step].value;
    int status = gk__coll_wait_signal(signal, seq << STATE_BITS);
    *data_p = mine->reduce_slot[parity][step];
    *state_p = (uint32_t)(atomic_load_explicit(signal, memory_order_acquire) &
                          ((1u << STATE_BITS) - 1));
    return status;
}

/* One piece of at most COLL_REDUCE_CHUNK bytes; *state as above. dst NULL:
 * this PE keeps no result (a reduce's non-root). */
static int reduce_piece(unsigned char *dst, const unsigned char *src, size_t count,
                        size_t bytes, gk_dtype_t dtype, gk_op_t op, uint32_t *state)
{
    int n = gk__rt.n_pes, me = gk__rt.my_pe;
    int p2 = 1;
    while (p2 * 2 <= n)
        p2 *= 2;
    uint64_t seq = ++gk__rt.reduce_seq;
    unsigned parity = (unsigned)(seq & 1);
    _Alignas(64) unsigned char acc[COLL_REDUCE_CHUNK];
    const unsigned char *in;
    int status;

    if (me >= p2) {
        status = reduce_send(me - p2, parity, STEP_FOLD_IN, src, bytes, seq, *state);
        if (status == GK_OK)
            status = reduce_receive(parity, STEP_FOLD_OUT, seq, &in, state);
        if (status == GK_OK && dst != NULL && bytes > 0 && !(*state & STATE_WRONG))
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
        if (!(*state & STATE_WRONG))
            gk__reduce_apply(acc, acc, in, count, dtype, op);
    }
    unsigned step = 0;
    for (int distance = 1; distance < p2; distance <<= 1, step++) {
        int partner = me ^ distance;
        status = reduce_send(partner, parity, step, acc, bytes, seq, *state);
        if (status == GK_OK)
            status = reduce_receive(parity, step, seq, &in, &theirs);
        if (status != GK_OK)
            return status;
        *state = state_combine(*state, theirs);
        if (*state & STATE_WRONG)
            continue; /* the exchange goes on, to spread the news */
        if (me < partner)
            gk__reduce_apply(acc, acc, in, count, dtype, op);
        else
            gk__reduce_apply(acc, in, acc, count, dtype, op);
    }
    if (me < n - p2) {
        status = reduce_send(me + p2, parity, STEP_FOLD_OUT, acc, bytes, seq, *state);
        if (status != GK_OK)
            return status;
    }
    if (dst != NULL && bytes > 0 && !(*state & STATE_WRONG))
        memcpy(dst, acc, bytes);
    return GK_OK;
}

/*
 * The body of gk_allreduce (root ROOT_ALL) and gk_reduce: the result goes
 * to dst on every PE, or on the root only.
 */
static int reduce_call(const char *name, void *dst, const void *src, size_t count,
                       gk_dtype_t dtype, gk_op_t op, int64_t root)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe(name, 0);
    int in_handler = gk__progress_check_not_in_handler(name);
    if (in_handler != GK_OK)
        return in_handler;
    /* Checked here, but reported to the other PEs through the first piece
     * (see Agreement above) before this PE returns. */
    int status = gk__reduce_check(name, dtype, op);
    size_t size = gk__reduce_dtype_size(dtype);
    if (status == GK_OK && root != ROOT_ALL && (root < 0 || root >= gk__rt.n_pes))
        status = gk__rt_report_pe(name, (int)root);
    if (status == GK_OK && count > SIZE_MAX / size) {
        gk__error("%s: count %zu overflows the address space", name, count);
        status = GK_ERR_INVALID_ARG;
    }
    int keeps = root == ROOT_ALL || root == gk__rt.my_pe;
    if (status == GK_OK && keeps)
        status = gk__rt_check_local(name, "dst", dst, count * size);
    if (status == GK_OK)
        status = gk__rt_check_local(name, "src", src, count * size);
    uint32_t state = call_hash(count, dtype, op, root);
    if (status != GK_OK) {
        state |= STATE_FAILED;
        int comm = reduce_piece(NULL, NULL, 0, 0, dtype, op, &state);
        return comm != GK_OK ? comm : status;
    }
    /* Every call has at least one piece, even of no elements: the check. */
    size_t per_piece = COLL_REDUCE_CHUNK / size, done = 0;
    do {
        size_t piece = count - done < per_piece ? count - done : per_piece;
        status = reduce_piece(keeps ? (unsigned char *)dst + done * size : NULL,
                              (const unsigned char *)src + done * size, piece, piece * size,
                              dtype, op, &state);
        done += piece;
    } while (status == GK_OK && !(state & STATE_WRONG) && done < count);
    if (status != GK_OK)
        return status;
    if (state & STATE_MISMATCH) {
        if (root == ROOT_ALL)
            gk__error("%s: the PEs passed different arguments (this PE: count %zu, "
                      "dtype %s, op %s); no PE has a result",
                      name, count, GK__DTYPE_STR(dtype), GK__OP_STR(op));
        else
            gk__error("%s: the PEs passed different arguments (this PE: count %zu, "
                      "dtype %s, op %s, root %d); no PE has a result",
                      name, count, GK__DTYPE_STR(dtype), GK__OP_STR(op), (int)root);
        return GK_ERR_INVALID_ARG;
    }
    if (state & STATE_FAILED) {
        gk__error("%s: the arguments of another PE failed their checks (it says which); "
                  "no PE has a result",
                  name);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

int gk_allreduce(void *dst, const void *src, size_t count, gk_dtype_t dtype, gk_op_t op)
{
    GK__COLL_RUN(GK__COLL_ALLREDUCE,
                 reduce_call("gk_allreduce", dst, src, count, dtype, op, ROOT_ALL));
}

int gk_reduce(void *dst, const void *src, size_t count, gk_dtype_t dtype, gk_op_t op,
              int root)
{
    GK__COLL_RUN(GK__COLL_REDUCE, reduce_call("gk_reduce", dst, src, count, dtype, op, root));
}

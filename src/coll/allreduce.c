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
 */
#include <string.h>

#include "base/log.h"
#include "coll/coll.h"
#include "core/progress.h"
#include "coll/reduce_op.h"

#define STEP_FOLD_IN 32
#define STEP_FOLD_OUT 33

static int reduce_send(int pe, unsigned parity, unsigned step, const void *data,
                       size_t bytes, uint64_t seq)
{
    return gk__coll_put_signal(pe, GK__COLL_OFFSET(reduce_slot[parity][step]), data, bytes,
                               GK__COLL_OFFSET(reduce_signal[parity][step].value), seq);
}

static int reduce_receive(unsigned parity, unsigned step, uint64_t seq,
                          const unsigned char **data_p)
{
    struct gk__coll_scratch *mine = gk__coll_mine();
    int status = gk__coll_wait_signal(&mine->reduce_signal[parity][step].value, seq);
    *data_p = mine->reduce_slot[parity][step];
    return status;
}

/* One piece of at most COLL_REDUCE_CHUNK bytes. */
static int reduce_piece(unsigned char *dst, const unsigned char *src, size_t count,
                        size_t bytes, gk_dtype_t dtype, gk_op_t op)
{
    int n = gk__rt.n_pes, me = gk__rt.my_pe;
    int p2 = 1;
    while (p2 * 2 <= n)
        p2 *= 2;
    uint64_t seq = ++gk__rt.reduce_seq;
    unsigned parity = (unsigned)(seq & 1);
    unsigned char acc[COLL_REDUCE_CHUNK];
    const unsigned char *in;
    int status;

    if (me >= p2) {
        status = reduce_send(me - p2, parity, STEP_FOLD_IN, src, bytes, seq);
        if (status == GK_OK)
            status = reduce_receive(parity, STEP_FOLD_OUT, seq, &in);
        if (status == GK_OK)
            memcpy(dst, in, bytes);
        return status;
    }
    memcpy(acc, src, bytes);
    if (me < n - p2) {
        status = reduce_receive(parity, STEP_FOLD_IN, seq, &in);
        if (status != GK_OK)
            return status;
        gk__reduce_apply(acc, acc, in, count, dtype, op);
    }
    unsigned step = 0;
    for (int distance = 1; distance < p2; distance <<= 1, step++) {
        int partner = me ^ distance;
        status = reduce_send(partner, parity, step, acc, bytes, seq);
        if (status == GK_OK)
            status = reduce_receive(parity, step, seq, &in);
        if (status != GK_OK)
            return status;
        if (me < partner)
            gk__reduce_apply(acc, acc, in, count, dtype, op);
        else
            gk__reduce_apply(acc, in, acc, count, dtype, op);
    }
    if (me < n - p2) {
        status = reduce_send(me + p2, parity, STEP_FOLD_OUT, acc, bytes, seq);
        if (status != GK_OK)
            return status;
    }
    memcpy(dst, acc, bytes);
    return GK_OK;
}

int gk_allreduce(void *dst, const void *src, size_t count, gk_dtype_t dtype, gk_op_t op)
{
    const char *name = "gk_allreduce";
    if (!gk__rt.initialized)
        return gk__rt_report_pe(name, 0);
    int in_handler = gk__progress_check_not_in_handler(name);
    if (in_handler != GK_OK)
        return in_handler;
    size_t size = gk__reduce_dtype_size(dtype);
    if (size == 0 || (unsigned)op > GK_OP_PROD) {
        gk__error("%s: %s %d is not valid", name, size == 0 ? "dtype" : "op",
                  size == 0 ? (int)dtype : (int)op);
        return GK_ERR_INVALID_ARG;
    }
    if (count > SIZE_MAX / size) {
        gk__error("%s: count %zu overflows the address space", name, count);
        return GK_ERR_INVALID_ARG;
    }
    int status = gk__rt_check_local(name, "dst", dst, count * size);
    if (status == GK_OK)
        status = gk__rt_check_local(name, "src", src, count * size);
    size_t per_piece = COLL_REDUCE_CHUNK / size;
    for (size_t done = 0; status == GK_OK && done < count; done += per_piece) {
        size_t piece = count - done < per_piece ? count - done : per_piece;
        status = reduce_piece((unsigned char *)dst + done * size,
                              (const unsigned char *)src + done * size, piece, piece * size,
                              dtype, op);
    }
    return status;
}

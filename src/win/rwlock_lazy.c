/*
 * rwlock_lazy.c: a window lock on a PE across hosts, acquired together
 * with the first operation of its epoch.
 *
 * Across hosts each step of rwlock.c's protocol is a round trip, and
 * lock + get + unlock costs three: the request's compare-and-swap, the
 * get, the release's compare-and-swap. gk_win_lock on a target reached
 * through a transport with remote operations (net.h) asks for nothing: it
 * records the epoch as pending (win.c). The epoch's first operation on the
 * target, a flush of it, or the unlock if none came first, sends the
 * request as one remote operation, GK__NET_ROP_WIN_LOCK, which the owner's
 * transport runs on its progress thread (the owner's program takes no
 * part, as with any remote atomic):
 *
 *   at the owner   the request's compare-and-swap, exactly as the
 *                  requester would make it (gk__rwlock_request_word, the
 *                  requester's PE + 1 as `me`), on the owner's own CPU;
 *                  then, if that grants the lock at once (T was 0, and A
 *                  was 0 for a writer), the operation: the get's bytes go
 *                  back in the reply, the put's bytes came with the
 *                  request and are copied in. The reply carries the word
 *                  the compare-and-swap found.
 *   the requester  takes the found word as its own compare-and-swap's
 *                  answer and goes on as rwlock.c's request does
 *                  (gk__rwlock_acquire_queued): granted at once, its
 *                  operation is already done; queued, it tells its
 *                  predecessor, waits for its grant in its own node, and
 *                  then makes the operation itself.
 *
 * Nothing else changes, so an on-host PE and an off-host PE contending for
 * one lock word meet in one protocol: every request, whoever makes it,
 * is one compare-and-swap on the word, and the rest (queue nodes, grants,
 * releases) is rwlock.c's, unchanged (verify/rwlock.pml checks it with
 * -DLAZY: a writer across hosts among writers and readers on one). FIFO
 * order is the order the compare-and-swaps hit the word, and the owner
 * serialises its own with the on-host PEs' CPU atomics and with the
 * transport's atomics, which the transports make atomic with the CPU's
 * (UCX in its "cpu" atomic mode: software at the target, as this is).
 *
 * What the operation sees: the owner copies the bytes after its
 * compare-and-swap (sequentially consistent), so after the last holder's
 * release and its writes; the remote operation is ordered after this
 * PE's earlier operations to the owner (net.h), and its reply before any
 * later one.
 *
 * The lock does nothing for operations made outside the window calls
 * (gk_put to the target's heap): those run whenever they are made, even
 * before the epoch's first window operation. An epoch with no operation
 * still takes the lock at gk_win_unlock and releases it: its unlock
 * orders the PE after earlier holders, as an eager lock's does.
 */
#include <string.h>

#include "base/log.h"
#include "core/progress.h"
#include "core/path.h"
#include "win/rwlock.h"

/* args[1]: me (16 bits), the mode above it, the operation above that. */
#define LAZY_MODE_SHIFT 16
#define LAZY_KIND_SHIFT 17

/* At the owner. args: the lock word's segment offset, me | mode | kind,
 * the operation's segment offset, its byte count (a get's; a put's is the
 * payload). Answers the word the compare-and-swap found. Refusals are
 * logged here (the caller explains nothing it cannot see). */
static int lazy_lock_rop(const uint64_t *args, const void *payload, size_t nbytes,
                         struct gk__net_rop_answer *answer)
{
    size_t word_at = (size_t)args[0], data_at = (size_t)args[2];
    uint64_t me = args[1] & GK__RWLOCK_FIELD_MASK;
    enum gk__rwlock_mode mode = (args[1] >> LAZY_MODE_SHIFT) & 1 ? GK__RWLOCK_EXCLUSIVE
                                                                   : GK__RWLOCK_SHARED;
    uint64_t kind = args[1] >> LAZY_KIND_SHIFT;
    size_t n = kind == GK__RWLOCK_LAZY_GET ? (size_t)args[3] : nbytes;
    if (me == 0 || me > (uint64_t)gk__rt.n_pes || kind > GK__RWLOCK_LAZY_PUT ||
        word_at % 8 != 0 || !gk__rt_own_bytes(0, word_at, 8) ||
        (kind == GK__RWLOCK_LAZY_GET && n != answer->max) ||
        (kind != GK__RWLOCK_LAZY_PUT && nbytes != 0) ||
        (kind != GK__RWLOCK_LAZY_LOCK && !gk__rt_own_bytes(0, data_at, n))) {
        gk__error("a window lock request from the network refused: kind %llu, lock word "
                  "at segment offset %zu, %zu bytes at %zu, PE + 1 %llu",
                  (unsigned long long)kind, word_at, n, data_at, (unsigned long long)me);
        return GK_ERR_UNSUPPORTED;
    }
    _Atomic uint64_t *word = (_Atomic uint64_t *)(void *)gk__rt_own(word_at);
    uint64_t old = atomic_load_explicit(word, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(word, &old,
                                                  gk__rwlock_request_word(old, mode, me),
                                                  memory_order_seq_cst, memory_order_seq_cst))
        ;
    answer->result = old;
    answer->len = 0;
    if (!gk__rwlock_granted_at_once(old, mode) || n == 0)
        return GK_OK;
    if (kind == GK__RWLOCK_LAZY_GET) {
        memcpy(answer->data, gk__rt_own(data_at), n);
        answer->len = n;
    } else if (kind == GK__RWLOCK_LAZY_PUT) {
        memcpy(gk__rt_own(data_at), payload, n);
        return gk__path_notify(gk__rt.my_pe, data_at, data_at + n); /* a waiter's wake-up */
    }
    return GK_OK;
}

__attribute__((constructor)) static void lazy_register_rop(void)
{
    gk__net_rop_set(GK__NET_ROP_WIN_LOCK, lazy_lock_rop);
}

int gk__rwlock_lazy_acquire(const struct gk__rwlock_site *site, enum gk__rwlock_mode mode,
                            enum gk__rwlock_lazy_kind kind, size_t data_at, void *buf,
                            size_t nbytes, int *done_p)
{
    int pe = site->owner_pe;
    uint64_t me = (uint64_t)gk__rt.my_pe + 1;
    /* The operation goes on its own, after, where it does not fit, and in
     * check mode, whose race detector must see the lock taken first. */
    if (kind != GK__RWLOCK_LAZY_LOCK &&
        (nbytes == 0 || nbytes > gk__path_rop_max(pe) || gk__race_on || gk__check_on))
        kind = GK__RWLOCK_LAZY_LOCK;
    uint64_t args[GK__NET_ROP_ARGS] = {
        site->word_offset,
        me | (uint64_t)(mode == GK__RWLOCK_EXCLUSIVE) << LAZY_MODE_SHIFT |
            (uint64_t)kind << LAZY_KIND_SHIFT,
        data_at, kind == GK__RWLOCK_LAZY_GET ? nbytes : 0};
    struct gk__net_rop_answer answer = {0};
    if (kind == GK__RWLOCK_LAZY_GET) {
        answer.data = buf;
        answer.max = nbytes;
    }
    gk__path_flush_wakes(); /* as a get's: the answer may wait on one owed */
    int status = gk__path_rop(pe, GK__NET_ROP_WIN_LOCK, args,
                              kind == GK__RWLOCK_LAZY_PUT ? buf : NULL,
                              kind == GK__RWLOCK_LAZY_PUT ? nbytes : 0, &answer);
    if (status == GK_ERR_UNSUPPORTED)
        gk__error("%s: PE %d refused the lock request (its log says why)", site->op, pe);
    if (status != GK_OK)
        return status;
    int granted = gk__rwlock_granted_at_once(answer.result, mode);
    status = gk__rwlock_acquire_queued(site, mode, answer.result);
    gk__race_acquire(pe);
    if (status == GK_OK)
        *done_p = granted && kind != GK__RWLOCK_LAZY_LOCK;
    return status;
}

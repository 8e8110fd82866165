/*
 * signal.c: OpenSHMEM-style signals: a put that then sets or adds to a
 * 64-bit signal word on the target, and the local fetch and wait on such a
 * word. Unlike semaphores, nothing is consumed: the word is the user's.
 *
 * Ordering as the signaling put (sem.c): copy, then a read-modify-write of
 * the signal word (SET is an exchange), which orders the copy before it and
 * does the wake-up; readers load the word with acquire. To a PE not mapped
 * here both run there as one remote operation of its transport (net.h),
 * posted (one message, no reply); a payload too large for one goes as a put, a fence and the
 * atomic, with the wake-up after it. Either way complete at quiet, as a
 * put (gasket.h: "Completion as gk_put()").
 */
#include <string.h>

#include "base/log.h"
#include "core/runtime.h"
#include "core/path.h"
#include "sync/wait_until.h"

/*
 * The signaling put as a remote operation (net.h), run at the target for
 * a PE that reaches it through a transport: the copy, then the signal's
 * read-modify-write and wake-up check, as on a mapped target. args: the
 * payload's offset, the signal word's, the operation (GK__AMO_SET or
 * GK__AMO_FETCH_ADD), the signal. A refusal is logged here: the caller,
 * who posts it, never hears why.
 */
static int signal_rop(const uint64_t *args, const void *payload, size_t nbytes,
                      struct gk__net_rop_answer *answer)
{
    size_t dst = (size_t)args[0], sig = (size_t)args[1];
    if (!gk__rt_own_bytes(GK__SEG_HEAP_OFFSET, dst, nbytes) || sig % sizeof(uint64_t) != 0 ||
        !gk__rt_own_bytes(GK__SEG_HEAP_OFFSET, sig, sizeof(uint64_t)) ||
        (args[2] != GK__AMO_SET && args[2] != GK__AMO_FETCH_ADD)) {
        gk__error("a signaling put from the network refused: payload [%zu, +%zu), signal "
                  "word %zu or operation %llu is not one of this PE's heap",
                  dst, nbytes, sig, (unsigned long long)args[2]);
        return GK_ERR_UNSUPPORTED;
    }
    if (nbytes > 0)
        memcpy(gk__rt_own(dst), payload, nbytes);
    /* Our own mapping's atomic: the read-modify-write and its wake-up check. */
    return gk__path_amo(gk__rt.my_pe, (enum gk__amo_op)args[2], sizeof(uint64_t), sig, args[3],
                        0, &answer->result);
}

__attribute__((constructor)) static void signal_register_rop(void)
{
    gk__net_rop_set(GK__NET_ROP_SIGNAL, signal_rop);
}

/* The signaling put to a PE reached through its transport: one remote
 * operation, posted (a refusal is the next quiet's error); or, for a
 * payload larger than those carry, the payload, a fence, the signal, its
 * wake-up. */
static int signal_put_remote(const char *op, int pe, size_t offset, const void *src,
                             size_t nbytes, enum gk__amo_op amo, size_t sig_offset,
                             uint64_t signal) __attribute__((noinline));
static int signal_put_remote(const char *op, int pe, size_t offset, const void *src,
                             size_t nbytes, enum gk__amo_op amo, size_t sig_offset,
                             uint64_t signal)
{
    size_t rop_max = gk__path_rop_max(pe);
    if (rop_max != 0 && nbytes <= rop_max) {
        uint64_t args[GK__NET_ROP_ARGS] = {offset, sig_offset, amo, signal};
        if (GK__UNLIKELY(gk__race_on) && nbytes > 0)
            gk__path_race_put(op, pe, offset, nbytes); /* the payload, checked here */
        /* The owner's atomic on its signal word is its own: the word's
         * clock gets this PE's here. */
        gk__race_release_at(pe, sig_offset, sizeof(uint64_t));
        return gk__path_rop_post(pe, GK__NET_ROP_SIGNAL, args, src, nbytes, GK__NET_POST_QUIET);
    }
    int status = gk__path_put_at(op, pe, offset, src, nbytes, GK__PATH_NO_WAKE, GK__PATH_SRC_FREE);
    if (status == GK_OK)
        status = gk__path_fence_peer(pe);
    if (status == GK_OK)
        status = gk__path_notify64(pe, amo, sig_offset, signal, 0, NULL);
    return status;
}

static int signal_put(const char *op, int pe, void *dst, const void *src, size_t nbytes,
                      uint64_t *sig_addr, uint64_t signal, gk_signal_op_t sig_op, int nbi)
{
    size_t sig_offset = 0, offset = 0;
    int status = gk__rt_check_word(op, pe, sig_addr, sizeof(uint64_t), &sig_offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(sig_op != GK_SIGNAL_SET && sig_op != GK_SIGNAL_ADD)) {
        gk__error("%s: sig_op %d is neither GK_SIGNAL_SET nor GK_SIGNAL_ADD", op, sig_op);
        return GK_ERR_INVALID_ARG;
    }
    status = gk__rt_check_remote(op, pe, dst, nbytes, &offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    status = gk__rt_check_local(op, "src", src, nbytes);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    enum gk__amo_op amo = sig_op == GK_SIGNAL_SET ? GK__AMO_SET : GK__AMO_FETCH_ADD;
    if (GK__UNLIKELY(!gk__path_mapped(pe)))
        return signal_put_remote(op, pe, offset, src, nbytes, amo, sig_offset, signal);
    if (nbi && GK__UNLIKELY(gk__check_on))
        return gk__path_check_put_signal(op, pe, offset, src, nbytes, amo, sig_offset, signal);
    /* The signal's read-modify-write orders the copy before it and makes
     * the wake-up check, so the copy owes none. */
    status = gk__path_put_at(op, pe, offset, src, nbytes, GK__PATH_NO_WAKE, GK__PATH_SRC_FREE);
    if (GK__LIKELY(status == GK_OK))
        status = gk__path_amo(pe, amo, 8, sig_offset, signal, 0, NULL);
    return status;
}

int gk_put_signal(int pe, void *dst, const void *src, size_t nbytes,
                  uint64_t *sig_addr, uint64_t signal, gk_signal_op_t sig_op)
{
    return signal_put("gk_put_signal", pe, dst, src, nbytes, sig_addr, signal, sig_op, 0);
}

int gk_put_signal_nbi(int pe, void *dst, const void *src, size_t nbytes,
                      uint64_t *sig_addr, uint64_t signal, gk_signal_op_t sig_op)
{
    return signal_put("gk_put_signal_nbi", pe, dst, src, nbytes, sig_addr, signal, sig_op, 1);
}

int gk_signal_fetch(const uint64_t *sig_addr, uint64_t *value_p)
{
    size_t offset = 0;
    gk__path_flush_wakes(); /* a fetch in a loop is a wait */
    int status = gk__rt_check_word("gk_signal_fetch", gk__rt.my_pe, sig_addr,
                                   sizeof(uint64_t), &offset);
    if (status == GK_OK && value_p == NULL)
        status = gk__rt_report_null("gk_signal_fetch", "value_p", 1);
    if (status == GK_OK)
        *value_p = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    return status;
}

int gk_signal_wait_until(uint64_t *sig_addr, gk_cmp_t cmp, uint64_t value,
                         uint64_t *value_p)
{
    return gk__wait_until_u64_seen("gk_signal_wait_until", sig_addr, cmp, value, value_p);
}

/*
 * path_rop.c: an atomic as a remote operation (net.h), fetching, or
 * posted without a result. The target runs the CPU atomic and its wake-up
 * check on its own mapped segment (gk__path_amo), so the caller sends no
 * wake-up after it.
 */
#include "base/log.h"
#include "core/runtime.h"
#include "core/path.h"

/* At the target. args: the word's segment offset, the operation with the
 * width above it (op | width << 8), the operand, the compare value: this
 * PE's own mapped word, so the path layer's CPU atomic and its check. A
 * refusal is logged here: the caller of a posted one never hears why. */
static int path_atomic_run(const uint64_t *args, const void *payload, size_t nbytes,
                           struct gk__net_rop_answer *answer)
{
    size_t offset = (size_t)args[0], width = (size_t)(args[1] >> 8);
    uint64_t op = args[1] & 0xff;
    (void)payload;
    if ((width != 4 && width != 8) || nbytes != 0 || offset % width != 0 ||
        !gk__rt_own_bytes(0, offset, width) || op == GK__AMO_FETCH || op > GK__AMO_FETCH_XOR) {
        gk__error("an atomic from the network refused: operation %llu on %zu bytes at "
                  "segment offset %zu is not one this PE runs",
                  (unsigned long long)op, width, offset);
        return GK_ERR_UNSUPPORTED;
    }
    return gk__path_amo(gk__rt.my_pe, (enum gk__amo_op)op, width, offset, args[2], args[3],
                        &answer->result);
}

void gk__path_rop_register(void)
{
    gk__net_rop_set(GK__NET_ROP_ATOMIC, path_atomic_run);
}

int gk__path_atomic_rop(int pe, enum gk__amo_op op, size_t width, size_t seg_offset,
                        uint64_t operand, uint64_t compare, uint64_t *old_p,
                        enum gk__net_post how)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    uint64_t args[GK__NET_ROP_ARGS] = {seg_offset, (uint64_t)op | (uint64_t)width << 8, operand,
                                       compare};
    int status;
    gk__race_release_at(pe, seg_offset, width); /* as the mapped atomic's (path.h) */
    if (old_p == NULL) {
        status = peer->transport->rop_post(peer, GK__NET_ROP_ATOMIC, args, NULL, 0, how);
    } else {
        struct gk__net_rop_answer answer = {0};
        status = peer->transport->rop(peer, GK__NET_ROP_ATOMIC, args, NULL, 0, &answer);
        *old_p = answer.result;
        if (status == GK_ERR_UNSUPPORTED)
            gk__error("atomic to PE %d: it refused the operation (its log says why)", pe);
    }
    gk__path_wake_done(pe, seg_offset, seg_offset + width);
    return gk__race_after_atomic(pe, seg_offset, width, old_p, status);
}

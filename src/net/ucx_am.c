/*
 * ucx_am.c: what arrives through UCX's active messages: gasket's active
 * messages, which go into this PE's own inbox (shm_ring.h) exactly as a
 * sender on this node would put them there; wake-ups, which look at this
 * PE's sleepers as a local writer's wake-up check does (base/wait.h);
 * small puts (ucx.c, "Small puts"), written, checked for sleepers and
 * acknowledged; and remote operations (net.h), run at once and answered,
 * or, posted, acknowledged with their status where the sender counts
 * them.
 *
 * The handlers run inside ucp_worker_progress, on whichever thread
 * progresses the worker (the progress thread or one that waits for a
 * request), one at a time: the worker is serialized. A handler must not
 * wait, and the inbox may be full (its owner computes), so a message that
 * does not fit is copied to the held queue, and every later message goes
 * behind it until the queue is empty again: the messages of one sender
 * stay in the order sent. A long message that carries its payload writes
 * it into the heap on arrival, held or not, as the put that would have
 * gone before it would have. Progress (ucx_progress.c) moves held messages
 * into the inbox as it frees up. The queue has no bound: UCX has already
 * taken the message off the network, and refusing it would only move the
 * queue into UCX.
 */
#include "net/ucx_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "gasket.h"
#include "net/shm_ring.h"

/* Into the inbox, behind held messages, or held itself if the inbox is
 * full (top comment). */
static void ucx_am_land(const struct gk__ucx_am_header *h, const void *payload, size_t data_len)
{
    gk__remote_inbox_land(&gk__ucx.inbox, &h->msg, h->args, payload, data_len);
}

/* ucx_am_header's answer for a rejection it logged itself. */
static const char ucx_am_said[] = "";

/* Checks a message's UCP header and copies it out to *h (UCX's buffer may
 * be unaligned); NULL, or why it is rejected. */
static const char *ucx_am_header(const void *header, size_t header_len,
                                 const ucp_am_recv_param_t *param, struct gk__ucx_am_header *h)
{
    size_t fixed = offsetof(struct gk__ucx_am_header, args);
    if (header_len < fixed || header_len > sizeof(*h)) {
        gk__error("active message of %zu header bytes from the network rejected: expected %zu "
                  "to %zu",
                  header_len, fixed, sizeof(*h));
        return ucx_am_said;
    }
    memcpy(h, header, header_len);
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
        return "its payload came by rendezvous, not eagerly";
    if (header_len != fixed + h->msg.nargs * sizeof(uint64_t))
        return "its header length does not match its argument count";
    return NULL;
}

/* A rejected message is never run, but its sender counted it as sent:
 * counted as landed, it is done with for the count of messages in flight
 * (net.h), and gk_finalize does not wait for it. */
static void ucx_am_reject(const struct gk__ucx_am_header *h, const char *why)
{
    atomic_fetch_add_explicit(&gk__net_am_landed, 1, memory_order_release);
    if (why != ucx_am_said)
        gk__error("active message from PE %u (handler %u, %u args, %llu bytes) from the "
                  "network rejected: %s",
                  h->msg.src, h->msg.handler, h->msg.nargs, (unsigned long long)h->msg.nbytes,
                  why);
}

static ucs_status_t ucx_am_msg_arrived(void *arg, const void *header, size_t header_len,
                                       void *data, size_t data_len,
                                       const ucp_am_recv_param_t *param)
{
    struct gk__ucx_am_header h;
    const char *why = ucx_am_header(header, header_len, param, &h);
    if (why == NULL && data_len > 0 &&
        (data_len != h.msg.nbytes || data_len > GK__NET_AM_MAX_PAYLOAD))
        why = "its payload length does not match its header";
    if (why != NULL) {
        ucx_am_reject(&h, why);
        return UCS_OK;
    }
    ucx_am_land(&h, data_len > 0 ? data : NULL, data_len);
    return UCS_OK;
}

/* A long message with its payload (net.h, am_send_long): the payload goes
 * into the heap now, before the message can run, as the put that would
 * otherwise have gone before it. Checked first: nothing is written outside
 * the heap. */
static ucs_status_t ucx_am_long_arrived(void *arg, const void *header, size_t header_len,
                                        void *data, size_t data_len,
                                        const ucp_am_recv_param_t *param)
{
    struct gk__ucx_am_header h;
    const char *why = ucx_am_header(header, header_len, param, &h);
    if (why == NULL && (data_len != h.msg.nbytes || data_len > GK__UCX_AM_LONG_MAX))
        why = "its long payload's length does not match its header";
    else if (why == NULL && (h.msg.dst_offset > gk__ucx.heap_size ||
                             data_len > gk__ucx.heap_size - h.msg.dst_offset))
        why = "its long payload lies outside the symmetric heap";
    if (why != NULL) {
        ucx_am_reject(&h, why);
        return UCS_OK;
    }
    if (data_len > 0)
        memcpy(gk__ucx.heap + h.msg.dst_offset, data, data_len);
    ucx_am_land(&h, NULL, 0);
    return UCS_OK;
}

/* Copies a message's fixed-size UCP header out to *out (UCX's buffer may
 * be unaligned): 0, or -1 when its size is not `size` (logged). */
static int ucx_fixed_header(const char *what, const void *header, size_t header_len, void *out,
                            size_t size)
{
    if (header_len != size) {
        gk__error("%s of %zu header bytes from the network rejected: expected %zu", what,
                  header_len, size);
        return -1;
    }
    memcpy(out, header, size);
    return 0;
}

static ucs_status_t ucx_am_wake_arrived(void *arg, const void *header, size_t header_len,
                                        void *data, size_t data_len,
                                        const ucp_am_recv_param_t *param)
{
    struct gk__ucx_wake_header range;
    if (ucx_fixed_header("wake-up", header, header_len, &range, sizeof(range)) != 0)
        return UCS_OK;
    gk__wake_notify(gk__ucx.my_wake, range.lo, range.hi);
    return UCS_OK;
}

/* Whether a message that wants an answer names a sender reached through
 * UCX and came with the endpoint to answer on (its sender asks UCX for it,
 * UCP_AM_SEND_FLAG_REPLY: this PE need not have an endpoint of its own to
 * every PE that sends it requests). Logs why not. */
static int ucx_reply_possible(const char *what, uint32_t src, const ucp_am_recv_param_t *param)
{
    if (src >= (uint32_t)gk__ucx.n_pes || gk__ucx.ucx_peers[src].blob == NULL) {
        gk__error("%s from the network rejected: its sender, PE %u, is not reached through UCX",
                  what, src);
        return 0;
    }
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) || param->reply_ep == NULL) {
        gk__error("%s from PE %u rejected: it came without an endpoint to answer on", what,
                  src);
        return 0;
    }
    return 1;
}

/* A small put (ucx.c, "Small puts"): checked, written, the wake-up check
 * of a local writer made, and acknowledged, refused or not, so that its
 * sender's quiet does not wait for it forever. */
static ucs_status_t ucx_put_arrived(void *arg, const void *header, size_t header_len,
                                    void *data, size_t data_len,
                                    const ucp_am_recv_param_t *param)
{
    struct gk__ucx_put_header h;
    if (ucx_fixed_header("put", header, header_len, &h, sizeof(h)) != 0)
        return UCS_OK;
    if (!ucx_reply_possible("put", h.src, param))
        return UCS_OK;
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        gk__error("put of %zu bytes from PE %u rejected: its payload came by rendezvous",
                  data_len, h.src);
    } else if (h.offset > gk__ucx.seg_size || data_len > gk__ucx.seg_size - h.offset) {
        gk__error("put of %zu bytes at segment offset %llu from PE %u rejected: it lies "
                  "outside this PE's segment (%llu bytes)",
                  data_len, (unsigned long long)h.offset, h.src,
                  (unsigned long long)gk__ucx.seg_size);
    } else if (data_len > 0) {
        memcpy(gk__ucx.seg_base + h.offset, data, data_len);
        gk__wake_notify(gk__ucx.my_wake, h.offset, h.offset + data_len);
    }
    uint64_t acked = 1;
    gk__ucx_send_copy(param->reply_ep, (int)h.src, GK__UCX_AM_PUT_ACK, &acked, sizeof(acked),
                      NULL, 0, "a put's acknowledgement");
    return UCS_OK;
}

/* `acked` of the small puts and posted remote operations counted in
 * gk__ucx.unacked are done; an acknowledgement for more than are counted
 * is rejected (`what`, for `acked` `items`). */
static void ucx_acked(uint64_t acked, const char *what, const char *items)
{
    _Atomic uint32_t *unacked = &gk__ucx.unacked;
    uint32_t now = atomic_load_explicit(unacked, memory_order_relaxed);
    do {
        if (acked > now) {
            gk__error("%s for %llu %s from the network rejected: %u puts and operations are "
                      "unacknowledged",
                      what, (unsigned long long)acked, items, now);
            return;
        }
    } while (!atomic_compare_exchange_weak_explicit(unacked, &now, now - (uint32_t)acked,
                                                    memory_order_seq_cst,
                                                    memory_order_relaxed));
    if (now == acked)
        gk__ucx_zero_reached(unacked, &gk__ucx.unacked_sleepers);
}

static ucs_status_t ucx_put_ack_arrived(void *arg, const void *header, size_t header_len,
                                        void *data, size_t data_len,
                                        const ucp_am_recv_param_t *param)
{
    uint64_t acked;
    if (ucx_fixed_header("put acknowledgement", header, header_len, &acked, sizeof(acked)) == 0)
        ucx_acked(acked, "put acknowledgement", "puts");
    return UCS_OK;
}

/* gk__ucx_send_copy's copy of a buffer, freed once sent. */
static void ucx_copy_sent(void *request, ucs_status_t status, void *user_data)
{
    free(user_data);
    ucp_request_free(request);
}

void gk__ucx_send_copy(ucp_ep_h ep, int pe, unsigned id, const void *header, size_t len,
                       const void *data, size_t data_len, const char *what)
{
    /* Usually UCX sends at once, from our buffer: no copy needed. */
    ucp_request_param_t now = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };
    ucs_status_ptr_t req = ucp_am_send_nbx(ep, id, header, len, data, data_len, &now);
    if (req == NULL)
        return;
    if (!UCS_PTR_IS_ERR(req) || UCS_PTR_STATUS(req) != UCS_ERR_NO_RESOURCE) {
        gk__ucx_status(UCS_PTR_IS_ERR(req) ? UCS_PTR_STATUS(req) : UCS_ERR_IO_ERROR, what, pe);
        return;
    }
    char *copy = malloc(len + data_len);
    if (copy == NULL) {
        gk__error("%s to PE %d: out of memory (%zu bytes); it is lost", what, pe,
                  len + data_len);
        return;
    }
    memcpy(copy, header, len);
    if (data_len > 0)
        memcpy(copy + len, data, data_len);
    ucp_request_param_t param = {
        .op_attr_mask =
            UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .flags = UCP_AM_SEND_FLAG_EAGER,
        .cb.send = ucx_copy_sent,
        .user_data = copy,
    };
    req = ucp_am_send_nbx(ep, id, copy, len, copy + len, data_len, &param);
    if (UCS_PTR_IS_ERR(req))
        gk__ucx_status(UCS_PTR_STATUS(req), what, pe);
    if (req == NULL || UCS_PTR_IS_ERR(req))
        free(copy);
}

/* Why a remote operation that arrived with `param` cannot run, or NULL:
 * a payload that came by rendezvous is not here yet. */
static const char *ucx_rop_refused(const ucp_am_recv_param_t *param)
{
    return param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV ? "its payload came by rendezvous"
                                                         : NULL;
}

/* A remote operation: run here, now, and answered, with the data of one
 * that reads as the reply's payload (at most what the caller takes). */
static ucs_status_t ucx_rop_arrived(void *arg, const void *header, size_t header_len,
                                    void *data, size_t data_len,
                                    const ucp_am_recv_param_t *param)
{
    struct gk__ucx_rop_header h;
    if (ucx_fixed_header("remote operation", header, header_len, &h, sizeof(h)) != 0)
        return UCS_OK;
    if (!ucx_reply_possible("remote operation", h.src, param))
        return UCS_OK;
    struct gk__ucx_rop_reply reply = {.token = h.token};
    struct gk__net_rop_answer answer;
    reply.status = gk__remote_rop_serve(h.op, h.src, h.args, data, data_len,
                                        ucx_rop_refused(param), h.answer_max,
                                        GK__UCX_AM_LONG_MAX, &answer);
    reply.result = answer.result;
    gk__ucx_send_copy(param->reply_ep, (int)h.src, GK__UCX_AM_ROP_REPLY, &reply, sizeof(reply),
                      answer.data, answer.len, "a remote operation's reply");
    free(answer.data);
    return UCS_OK;
}

/* A posted remote operation: run here, now, and, where its sender counts
 * it, acknowledged, refused or not, so that the sender's quiet does not
 * wait for it forever, and learns of a refusal. */
static ucs_status_t ucx_rop_post_arrived(void *arg, const void *header, size_t header_len,
                                         void *data, size_t data_len,
                                         const ucp_am_recv_param_t *param)
{
    struct gk__ucx_rop_header h;
    if (ucx_fixed_header("remote operation", header, header_len, &h, sizeof(h)) != 0)
        return UCS_OK;
    int acked = h.token == GK__UCX_ROP_POST_ACKED;
    if (acked && !ucx_reply_possible("remote operation", h.src, param))
        return UCS_OK;
    struct gk__net_rop_answer answer = {0}; /* nobody takes it */
    struct gk__ucx_rop_ack ack = {.pe = (uint32_t)gk__ucx.my_pe};
    ack.status = gk__remote_rop_run(h.op, h.src, h.args, data, data_len, ucx_rop_refused(param),
                                    &answer);
    if (acked)
        gk__ucx_send_copy(param->reply_ep, (int)h.src, GK__UCX_AM_ROP_ACK, &ack, sizeof(ack),
                          NULL, 0, "a remote operation's acknowledgement");
    return UCS_OK;
}

/* A refusal is kept for the next quiet (ucx.c) before the count drops,
 * so that the quiet that sees the count at 0 sees it too. */
static ucs_status_t ucx_rop_ack_arrived(void *arg, const void *header, size_t header_len,
                                        void *data, size_t data_len,
                                        const ucp_am_recv_param_t *param)
{
    struct gk__ucx_rop_ack ack;
    if (ucx_fixed_header("remote operation acknowledgement", header, header_len, &ack,
                         sizeof(ack)) != 0)
        return UCS_OK;
    if (ack.status != GK_OK)
        gk__remote_refusal_note(&gk__ucx.refusals, ack.pe, ack.status);
    ucx_acked(1, "remote operation acknowledgement", "operations");
    return UCS_OK;
}

static ucs_status_t ucx_rop_reply_arrived(void *arg, const void *header, size_t header_len,
                                          void *data, size_t data_len,
                                          const ucp_am_recv_param_t *param)
{
    struct gk__ucx_rop_reply reply;
    if (ucx_fixed_header("remote operation reply", header, header_len, &reply,
                         sizeof(reply)) != 0)
        return UCS_OK;
    int slot = gk__remote_rop_find(&gk__ucx.rops, reply.token);
    if (slot < 0)
        return UCS_OK;
    gk__remote_rop_fill(&gk__ucx.rops, slot, (int)reply.status, reply.result, data, data_len, -1,
                        param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV ? " by rendezvous" : NULL);
    gk__ucx_req_done(&gk__ucx.rop_reqs[slot], UCS_OK, NULL);
    return UCS_OK;
}

static int ucx_set_handler(unsigned id, ucp_am_recv_callback_t cb)
{
    ucp_am_handler_param_t param = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = id,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
        .cb = cb,
    };
    return gk__ucx_status(ucp_worker_set_am_recv_handler(gk__ucx.worker, &param),
                          "registering a UCX active-message handler", -1);
}

int gk__ucx_am_register(void)
{
    int status = ucx_set_handler(GK__UCX_AM_MSG, ucx_am_msg_arrived);
    if (status == GK_OK)
        status = ucx_set_handler(GK__UCX_AM_LONG, ucx_am_long_arrived);
    if (status == GK_OK)
        status = ucx_set_handler(GK__UCX_AM_WAKE, ucx_am_wake_arrived);
    if (status == GK_OK)
        status = ucx_set_handler(GK__UCX_AM_ROP, ucx_rop_arrived);
    if (status == GK_OK)
        status = ucx_set_handler(GK__UCX_AM_ROP_REPLY, ucx_rop_reply_arrived);
    if (status == GK_OK)
        status = ucx_set_handler(GK__UCX_AM_PUT, ucx_put_arrived);
    if (status == GK_OK)
        status = ucx_set_handler(GK__UCX_AM_PUT_ACK, ucx_put_ack_arrived);
    if (status == GK_OK)
        status = ucx_set_handler(GK__UCX_AM_ROP_POST, ucx_rop_post_arrived);
    if (status == GK_OK)
        status = ucx_set_handler(GK__UCX_AM_ROP_ACK, ucx_rop_ack_arrived);
    return status;
}

/*
 * ucx_rop_forged_test: a remote operation (net.h) that arrives through the
 * UCX transport runs only on words of the target's own segment. Run with
 * GK_NET_FORCE_UCX=1, so PE 0 reaches PE 1 through UCX. PE 0 plays a broken
 * sender: through the transport's own call, past the public checks, it
 * sends a semaphore post whose cell lies past PE 1's segment, a signaling
 * put whose payload would end past its heap, an atomic on a misaligned
 * word, and an operation that does not exist. Each must come back refused
 * (GK_ERR_UNSUPPORTED), with a message at PE 1, and leave PE 1's heap
 * untouched; a valid atomic then runs. Posted (net.h, rop_post), the
 * misaligned atomic is refused at PE 1 with a message too; posted to
 * complete at quiet, PE 0's next quiet, which waits for the
 * acknowledgement, returns the refusal and says so, once; posted as a
 * flag that its target awaits, nothing comes back and quiet says nothing.
 * The valid atomic posted beside each runs. A small put that would end past
 * the segment, which the transport sends as a message of its own over
 * TCP (ucx.c, "Small puts"), is rejected with a message too, and still
 * acknowledged: PE 0's quiet returns. An acknowledgement for puts that
 * PE 1 never sent is rejected with a message, its count untouched; so is a
 * remote operation sent without the endpoint to answer it on. A typed
 * get's chunk whose descriptor is garbage is refused with nothing sent
 * back, and so is an operation that asks for more answer than a reply
 * carries. A typed accumulate's chunk whose element is misaligned is
 * refused before it changes anything.
 */
#include <stdint.h>
#include <string.h>

#include "core/runtime.h"
#include "dtype/desc.h"
#include "dtype/flat.h"
#include "net/ucx_int.h"
#include "pe_check.h"

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe();
    uint64_t *words = gk_calloc(8, sizeof(uint64_t)); /* symmetric */
    CHECK_NOT_NULL(words);
    if (gk_n_pes() < 2) {
        gk_free(words);
        return gk_finalize() == GK_OK ? 77 : 1; /* needs two PEs */
    }
    /* This program links the semaphore, signal and typed-transfer code (a
     * static link would leave it out otherwise), whose remote operations
     * it forges. */
    uint64_t signal = 0;
    CHECK_OK(gk_signal_fetch(&words[2], &signal));
    gk_sem_t sem;
    CHECK_OK(gk_sem_alloc(0, &sem));
    CHECK_OK(gk_sem_free(sem));
    static int (*volatile keep_typed)(int, void *, size_t, gk_type_t, const void *, size_t,
                                      gk_type_t) = gk_get_typed;
    static int (*volatile keep_acc)(int, void *, size_t, gk_type_t, const void *, size_t,
                                    gk_type_t, gk_op_t) = gk_accumulate_typed;
    (void)keep_typed;
    (void)keep_acc;
    if (me == 1)
        gk_capture_begin(); /* the refusals are logged as the operations arrive */
    CHECK_OK(gk_barrier());
    if (me == 0) {
        struct gk__net_peer *peer = &gk__rt.peers[1];
        CHECK_NULL(peer->direct); /* reached through UCX, not mapped */
        CHECK_NOT_NULL(peer->transport->rop);
        size_t heap_end = GK__SEG_HEAP_OFFSET + gk__rt.heap_span;
        size_t words_offset = (size_t)((char *)words - gk__rt.heap) + GK__SEG_HEAP_OFFSET;
        unsigned char payload[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        struct gk__net_rop_answer answer = {0};
        uint64_t sem_past[GK__NET_ROP_ARGS] = {heap_end, 0, 1, GK__SEG_HEAP_OFFSET};
        CHECK_STATUS(peer->transport->rop(peer, GK__NET_ROP_SEM_POST, sem_past, NULL, 0, &answer),
                     GK_ERR_UNSUPPORTED);
        uint64_t signal_past[GK__NET_ROP_ARGS] = {heap_end - 8, words_offset, GK__AMO_SET, 1};
        CHECK_STATUS(peer->transport->rop(peer, GK__NET_ROP_SIGNAL, signal_past, payload,
                                          sizeof(payload), &answer),
                     GK_ERR_UNSUPPORTED);
        uint64_t misaligned[GK__NET_ROP_ARGS] = {words_offset + 4,
                                                 GK__AMO_FETCH_ADD | (uint64_t)8 << 8, 1, 0};
        CHECK_STATUS(peer->transport->rop(peer, GK__NET_ROP_ATOMIC, misaligned, NULL, 0, &answer),
                     GK_ERR_UNSUPPORTED);
        uint64_t none[GK__NET_ROP_ARGS] = {0, 0, 0, 0};
        CHECK_STATUS(peer->transport->rop(peer, GK__NET_ROPS, none, NULL, 0, &answer),
                     GK_ERR_UNSUPPORTED);
        uint64_t add[GK__NET_ROP_ARGS] = {words_offset, GK__AMO_FETCH_ADD | (uint64_t)8 << 8, 5,
                                          0};
        CHECK_OK(peer->transport->rop(peer, GK__NET_ROP_ATOMIC, add, NULL, 0, &answer));
        CHECK_EQ_U64(answer.result, 0);
        /* A typed get's chunk whose descriptor is garbage. */
        unsigned char reply[64];
        struct gk__net_rop_answer data = {.data = reply, .max = sizeof(reply)};
        uint64_t garbage_get[GK__NET_ROP_ARGS] = {words_offset, 1, 0, sizeof(payload)};
        CHECK_STATUS(peer->transport->rop(peer, GK__NET_ROP_DT_GET, garbage_get, payload,
                                          sizeof(payload), &data),
                     GK_ERR_UNSUPPORTED);
        CHECK_EQ(data.len, 0);
        /* A typed accumulate's chunk: one INT64 that would straddle two words. */
        const struct gk__dt_flat *int64 = gk__dt_base_flat(GK_DTYPE_INT64);
        unsigned char acc[256];
        size_t desc_len = gk__dt_encoded_size(int64);
        CHECK_TRUE(desc_len + 8 <= sizeof(acc));
        gk__dt_encode(int64, acc);
        memset(acc + desc_len, 1, 8);
        uint64_t straddle[GK__NET_ROP_ARGS] = {
            words_offset + 4, 1, 0,
            desc_len | (uint64_t)GK_DTYPE_INT64 << 32 | (uint64_t)GK_OP_SUM << 40};
        CHECK_STATUS(peer->transport->rop(peer, GK__NET_ROP_DT_ACC, straddle, acc, desc_len + 8,
                                          &answer),
                     GK_ERR_UNSUPPORTED);
        CHECK_OK(peer->transport->rop_post(peer, GK__NET_ROP_ATOMIC, misaligned, NULL, 0,
                                           GK__NET_POST_QUIET));
        CHECK_OK(peer->transport->rop_post(peer, GK__NET_ROP_ATOMIC, add, NULL, 0,
                                           GK__NET_POST_QUIET));
        CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_quiet(),
                     "1 operation sent without waiting for a reply was refused, the first by "
                     "PE 1");
        CHECK_EQ(atomic_load(&gk__ucx.unacked), 0);
        CHECK_OK_SILENT(gk_quiet()); /* said once */
        CHECK_OK(peer->transport->rop_post(peer, GK__NET_ROP_ATOMIC, misaligned, NULL, 0,
                                           GK__NET_POST_AWAITED));
        CHECK_OK(peer->transport->rop_post(peer, GK__NET_ROP_ATOMIC, add, NULL, 0,
                                           GK__NET_POST_AWAITED));
        CHECK_EQ(atomic_load(&gk__ucx.unacked), 0); /* nothing owed */
        CHECK_OK_SILENT(gk_quiet());
        CHECK_GE(peer->put_wakes_max, sizeof(payload)); /* UCX_TLS=tcp: no RMA lane */
        CHECK_OK(peer->transport->put(peer, heap_end - 8, payload, sizeof(payload)));
        CHECK_OK(gk_quiet());
        uint64_t acked = 5; /* PE 1 has no put in flight to PE 0 */
        ucp_request_param_t now = {.op_attr_mask =
                                       UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK,
                                   .flags = UCP_AM_SEND_FLAG_EAGER,
                                   .cb.send = gk__ucx_req_done};
        ucs_status_ptr_t req = ucp_am_send_nbx(gk__ucx.ucx_peers[1].ep, GK__UCX_AM_PUT_ACK,
                                               &acked, sizeof(acked), NULL, 0, &now);
        CHECK_OK(gk__ucx_wait(req, "forged acknowledgement", 1));
        struct gk__ucx_rop_header no_reply = {.op = GK__NET_ROP_ATOMIC, .src = 0};
        memcpy(no_reply.args, add, sizeof(no_reply.args));
        req = ucp_am_send_nbx(gk__ucx.ucx_peers[1].ep, GK__UCX_AM_ROP, &no_reply,
                              sizeof(no_reply), NULL, 0, &now);
        CHECK_OK(gk__ucx_wait(req, "remote operation without its reply flag", 1));
        struct gk__ucx_rop_header greedy = {.op = GK__NET_ROP_DT_GET, .src = 0,
                                            .answer_max = GK__UCX_AM_LONG_MAX + 1};
        ucp_request_param_t answered = now;
        answered.flags |= UCP_AM_SEND_FLAG_REPLY;
        req = ucp_am_send_nbx(gk__ucx.ucx_peers[1].ep, GK__UCX_AM_ROP, &greedy, sizeof(greedy),
                              NULL, 0, &answered);
        CHECK_OK(gk__ucx_wait(req, "remote operation that asks too much back", 1));
        CHECK_OK(gk_put_u64(1, &words[1], 1)); /* done */
    } else if (me == 1) {
        CHECK_OK(gk_wait_until_u64(&words[1], GK_CMP_EQ, 1));
        const char *text = gk_capture_end();
        gk_capture_echo(text);
        CHECK_EQ(gk_capture_count(text, "refused"), 9);
        CHECK_EQ(gk_capture_count(text, "a typed accumulate's chunk from the network refused: "
                                        "the element at byte 0"),
                 1);
        CHECK_EQ(gk_capture_count(text, "a typed get's chunk from the network refused"), 1);
        CHECK_EQ(gk_capture_count(text, "bytes of answer, more than the"), 1);
        CHECK_EQ(gk_capture_count(text, "a semaphore post from the network refused"), 1);
        CHECK_EQ(gk_capture_count(text, "a signaling put from the network refused"), 1);
        CHECK_EQ(gk_capture_count(text, "an atomic from the network refused"), 3);
        CHECK_EQ(gk_capture_count(text, "no such operation"), 1);
        CHECK_EQ(gk_capture_count(text, "put of 16 bytes at segment offset"), 1);
        CHECK_EQ(gk_capture_count(text, "put acknowledgement for 5 puts from the network "
                                        "rejected"),
                 1);
        CHECK_EQ(atomic_load(&gk__ucx.unacked), 0);
        CHECK_EQ(gk_capture_count(text, "came without an endpoint to answer on"), 1);
        CHECK_EQ_U64(words[0], 15); /* the add without its reply flag did not run */
        const unsigned char *last = (const unsigned char *)gk__rt.heap + gk__rt.heap_span - 8;
        for (int i = 0; i < 8; i++)
            CHECK_EQ(last[i], 0);
    }
    CHECK_OK(gk_barrier());
    gk_free(words);
    return gk_finalize() == GK_OK ? 0 : 1;
}

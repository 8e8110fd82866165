/*
 * ucx_long_forged_test: a long active message that carries its payload
 * through the UCX transport (net.h, am_send_long) is written into the
 * target's heap only if it lies inside it. Run with GK_NET_FORCE_UCX=1, so
 * PE 0 reaches PE 1 through UCX. PE 0 plays a broken sender: through the
 * transport's own call, past the checks of gk_am_request_long, it sends two
 * long messages whose payload would end past PE 1's heap (one starting in
 * its last 8 bytes, one whose offset wraps around), then a valid long
 * message. PE 1 polls until the valid one has run, and checks that both
 * forged ones were rejected with a message and never run, and that the
 * heap's last bytes are untouched.
 */
#include <stdint.h>

#include "core/progress.h"
#include "core/runtime.h"
#include "pe_check.h"

enum { H_BOOM, H_OK };
static volatile int booms, oks;
static unsigned char *area; /* symmetric */

static void h_boom(gk_am_token_t *t, void *p, size_t n, const uint64_t *a, int na)
{
    (void)t, (void)p, (void)n, (void)a, (void)na;
    booms++;
}

static void h_ok(gk_am_token_t *t, void *p, size_t n, const uint64_t *a, int na)
{
    (void)t, (void)na;
    CHECK_TRUE(p == area);
    CHECK_EQ_U64(n, 64);
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(((unsigned char *)p)[i], (unsigned char)(i + a[0]));
    oks++;
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe();
    if (me == 1)
        gk_capture_begin(); /* the rejections are logged as the messages arrive */
    CHECK_OK(gk_am_register(H_BOOM, h_boom));
    CHECK_OK(gk_am_register(H_OK, h_ok));
    area = gk_malloc(64);
    CHECK_NOT_NULL(area);
    if (gk_n_pes() < 2) {
        gk_free(area);
        return gk_finalize() == GK_OK ? 77 : 1; /* needs two PEs */
    }
    CHECK_OK(gk_barrier()); /* handlers registered, PE 1 capturing */
    if (me == 0) {
        struct gk__net_peer *peer = &gk__rt.peers[1];
        CHECK_NULL(peer->direct); /* reached through UCX, not mapped */
        CHECK_NOT_NULL(peer->transport->am_send_long);
        unsigned char payload[64];
        for (size_t i = 0; i < sizeof(payload); i++)
            payload[i] = (unsigned char)(i + 5);
        uint64_t arg = 5;
        uint64_t offsets[2] = {gk__rt.heap_span - 8, UINT64_MAX - 7};
        for (int f = 0; f < 2; f++) {
            struct gk__net_am msg;
            msg.word = gk__net_am_word((uint32_t)me, H_BOOM, 1, GK__AM_LONG);
            msg.nbytes = sizeof(payload);
            msg.dst_offset = offsets[f];
            CHECK_OK(peer->transport->am_send_long(peer, &msg, &arg, payload));
        }
        CHECK_OK(gk_am_request_long(1, H_OK, area, payload, sizeof(payload), &arg, 1));
    } else if (me == 1) {
        while (!oks)
            CHECK_OK(gk_poll());
        const char *text = gk_capture_end();
        gk_capture_echo(text);
        CHECK_EQ(booms, 0);
        CHECK_EQ(oks, 1);
        CHECK_EQ(gk_capture_count(text, "rejected"), 2);
        CHECK_EQ(gk_capture_count(text, "its long payload lies outside the symmetric heap"), 2);
        const unsigned char *last = (const unsigned char *)gk__rt.heap + gk__rt.heap_span - 8;
        for (int i = 0; i < 8; i++)
            CHECK_EQ(last[i], 0);
    }
    CHECK_OK(gk_barrier());
    gk_free(area);
    return gk_finalize() == GK_OK ? 0 : 1;
}

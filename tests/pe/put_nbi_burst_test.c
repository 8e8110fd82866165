/*
 * put_nbi_burst_test: a burst of non-blocking puts, too many for the
 * network to take at once, then one quiet. Every PE puts 4096 pieces of
 * 4 KiB and 4096 of 1 KiB, each with a pattern of its own, into its right
 * neighbour's heap without waiting in between, completes them with
 * gk_quiet() and a barrier, and checks what its left neighbour sent.
 *
 * Over UCX's TCP transport (GK_NET_FORCE_UCX=1 or PEs on other hosts)
 * such puts go as gasket's own active messages, and most of the burst
 * waits in UCX's send queue after gk_put_nbi() returns: the message's
 * header must outlive the call (a header on the caller's stack arrived
 * as garbage and the target rejected the put: its sender "PE 378143152").
 */
#include "pe_check.h"

enum { PIECES = 4096 };

static uint64_t pattern(int from, int size_kib, size_t piece, size_t word)
{
    return ((uint64_t)from << 56) ^ ((uint64_t)size_kib << 48) ^ (piece << 20) ^ word;
}

static void burst(int me, int npes, size_t size)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t words = size / sizeof(uint64_t), total = PIECES * words;
    uint64_t *area = gk_calloc(total, sizeof(uint64_t));
    uint64_t *src = malloc(total * sizeof(uint64_t)); /* held until the quiet */
    CHECK_NOT_NULL(area);
    CHECK_NOT_NULL(src);
    for (size_t p = 0; p < PIECES; p++)
        for (size_t w = 0; w < words; w++)
            src[p * words + w] = pattern(me, (int)(size >> 10), p, w);
    for (size_t p = 0; p < PIECES; p++)
        CHECK_OK(gk_put_nbi(right, area + p * words, src + p * words, size));
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    for (size_t p = 0; p < PIECES; p++)
        for (size_t w = 0; w < words; w++)
            CHECK_EQ_U64(area[p * words + w], pattern(left, (int)(size >> 10), p, w));
    free(src);
    gk_free(area);
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    burst(me, npes, 4096);
    burst(me, npes, 1024);
    CHECK_OK(gk_finalize());
    return 0;
}

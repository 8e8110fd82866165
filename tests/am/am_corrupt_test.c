/*
 * am_corrupt_test: a corrupted message in a PE's inbox is rejected with a
 * message and never run, and the messages after it are delivered. PE 1
 * plays a broken producer on its own inbox (with the ring's own layout
 * from src/net/shm_ring.h; a PE's own segment is mapped in every case,
 * another's only on its node): it takes a ticket and publishes a slot whose
 * check word is wrong, naming a handler that must not run. Then PE 0 sends
 * a valid message, behind it in the ring. PE 1 polls until the valid one
 * arrives, and checks the log line and that nothing else ran.
 */
#include <stdatomic.h>

#include "net/shm_ring.h"
#include "pe_check.h"

enum { H_BOOM, H_OK };
static volatile int booms, oks;

static void h_boom(gk_am_token_t *t, void *p, size_t n, const uint64_t *a, int na)
{
    (void)t, (void)p, (void)n, (void)a, (void)na;
    booms++;
}

static void h_ok(gk_am_token_t *t, void *p, size_t n, const uint64_t *a, int na)
{
    (void)t, (void)p, (void)n, (void)na;
    CHECK_EQ_U64(a[0], 42);
    oks++;
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe();
    /* Capture PE 1's log from the start: the bad slot may be met in any
     * wait after it is written, and nothing before should log. */
    if (me == 1)
        gk_capture_begin();
    CHECK_OK(gk_am_register(H_BOOM, h_boom));
    CHECK_OK(gk_am_register(H_OK, h_ok));
    char *block = gk_malloc(64);
    CHECK_NOT_NULL(block);
    if (gk_n_pes() < 2) {
        gk_free(block);
        return gk_finalize() == GK_OK ? 77 : 1; /* needs two PEs */
    }
    if (me == 1) {
        /* This PE's segment as mapped here: its heap starts
         * GK__SEG_HEAP_OFFSET in, and `block`, the program's first
         * allocation, at the heap's start (the allocator is first-fit; the
         * rejection line checked below would be missing if this address
         * were wrong). */
        char *seg = (char *)gk_ptr(block, me) - GK__SEG_HEAP_OFFSET;
        struct gk__ring_ctl *ctl = (struct gk__ring_ctl *)(seg + GK__SEG_INBOX_OFFSET);
        uint64_t ticket = atomic_fetch_add(&ctl->tail, 1);
        struct gk__ring_slot *slot =
            (struct gk__ring_slot *)(seg + GK__SEG_INBOX_OFFSET + GK__RING_HEADERS_AT +
                                     (ticket % GK__RING_SLOTS) * GK__RING_HEADER_SIZE);
        slot->msg.src = 0;
        slot->msg.handler = H_BOOM;
        slot->msg.nargs = 1;
        slot->msg.flags = 0;
        slot->msg.nbytes = 0;
        slot->msg.dst_offset = 0;
        slot->args[0] = 7;
        slot->check = 0x0123456789abcdefULL; /* wrong */
        atomic_store_explicit(&slot->seq, ticket + 1, memory_order_release);
    }
    CHECK_OK(gk_barrier()); /* the bad slot is in before the good message */
    if (me == 0) {
        uint64_t arg = 42;
        CHECK_OK(gk_am_request_short(1, H_OK, &arg, 1));
    } else if (me == 1) {
        while (!oks)
            gk_poll();
        const char *text = gk_capture_end();
        gk_capture_echo(text);
        CHECK_EQ(booms, 0);
        CHECK_EQ(oks, 1);
        CHECK_EQ(gk_capture_count(text, "rejected"), 1);
        CHECK_EQ(gk_capture_count(text, "header check does not match"), 1);
    }
    CHECK_OK(gk_barrier());
    gk_free(block);
    return gk_finalize() == GK_OK ? 0 : 1;
}

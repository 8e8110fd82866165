/*
 * am_held_test: messages that handlers send to a full inbox are held by
 * the sending PE until it has room (core/progress.c). Two properties:
 *
 *   am_held_test forward   PE 2 floods PE 1, whose handler passes each
 *                          request on to PE 0, which computes for a while
 *                          without calling gasket: what PE 1 holds for PE 0
 *                          stays bounded (PE 2 is held back where it
 *                          floods), and every request reaches PE 0
 *   am_held_test sleep     PE 1's requests make PE 0's handlers send more
 *                          than PE 1's inbox takes, then PE 1 computes: PE
 *                          0, waiting in a barrier while it holds messages
 *                          for PE 1, sleeps instead of spinning (its CPU
 *                          time stays well under the wait's length)
 *   am_held_test wake      the same, but PE 0 then sleeps in a wait that
 *                          only the held messages can end (PE 1 answers
 *                          once it has them all): PE 1 must wake PE 0
 *                          when it makes room, whether PE 0 is mapped
 *                          there or reached through a transport (run with
 *                          a GK_SLEEP_MS longer than the time allowed)
 *   am_held_test full      PE 1 computes while PE 0 sends it more than its
 *                          inbox holds: PE 0, waiting for room outside a
 *                          handler, sleeps instead of spinning (its CPU
 *                          time stays well under the wait's length),
 *                          whether PE 1 is mapped there or reached through
 *                          a transport that says when its inbox is full
 *
 * "Computes" is a sleep standing for work that makes no gasket call; the
 * results do not depend on its length, only on PE 0 (or PE 1) not serving
 * its inbox meanwhile. Reads the inbox's control block from src/.
 */
#include <stdatomic.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/progress.h"
#include "net/shm_inbox.h"
#include "net/shm_ring.h"
#include "pe_check.h"

enum { H_SINK, H_FORWARD, H_REPLY_TWICE };

#define FLOOD 20000
/* What the runtime lets a PE hold before senders wait, with room for what
 * was in flight when the sender stopped (an inbox's slots, twice for
 * slack). A sender that reaches the holder through a transport looks at
 * the count only every so many messages, and may send that many more. */
#define HELD_BOUND_MAPPED (GK__INBOX_HELD_HIGH + 2 * GK__RING_SLOTS)
#define HELD_BOUND_TRANSPORT (HELD_BOUND_MAPPED + GK__INBOX_HELD_CHECK_MAX)

static _Atomic uint64_t sunk, requests_run;
static uint64_t held_most;
static char payload[512];
static void *first_block; /* the program's first heap block: at the heap's start */

/* This PE's count of held messages, from its inbox's control block: its
 * segment as mapped here starts GK__SEG_HEAP_OFFSET before the heap. */
static uint64_t held_now(void)
{
    char *seg = (char *)gk_ptr(first_block, gk_my_pe()) - GK__SEG_HEAP_OFFSET;
    return atomic_load_explicit(&gk__ring_ctl(seg)->held, memory_order_relaxed);
}

static void h_sink(gk_am_token_t *token, void *p, size_t n, const uint64_t *args, int nargs)
{
    (void)token, (void)p, (void)n, (void)args, (void)nargs;
    atomic_fetch_add_explicit(&sunk, 1, memory_order_relaxed);
}

static void h_forward(gk_am_token_t *token, void *p, size_t n, const uint64_t *args, int nargs)
{
    (void)token, (void)p, (void)n, (void)args, (void)nargs;
    CHECK_OK(gk_am_request_medium(0, H_SINK, payload, sizeof(payload), NULL, 0));
    uint64_t held = held_now();
    if (held > held_most)
        held_most = held;
}

static void h_reply_twice(gk_am_token_t *token, void *p, size_t n, const uint64_t *args,
                          int nargs)
{
    (void)p, (void)n, (void)args, (void)nargs;
    CHECK_OK(gk_am_reply_short(token, H_SINK, NULL, 0));
    CHECK_OK(gk_am_request_short(gk_am_token_pe(token), H_SINK, NULL, 0));
    atomic_fetch_add_explicit(&requests_run, 1, memory_order_relaxed);
}

static double cpu_seconds(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

static void forward(void)
{
    int me = gk_my_pe();
    if (me == 2) {
        for (int i = 0; i < FLOOD; i++)
            CHECK_OK(gk_am_request_short(1, H_FORWARD, NULL, 0));
    } else if (me == 0) {
        usleep(500000); /* computes: its inbox stays full */
    }
    CHECK_OK(gk_barrier());
    if (me == 0) {
        while (atomic_load_explicit(&sunk, memory_order_relaxed) < FLOOD)
            CHECK_OK(gk_poll());
        CHECK_EQ_U64(atomic_load_explicit(&sunk, memory_order_relaxed), FLOOD);
    }
    if (me == 1) {
        PE_LOG("most messages held for PE 0 at once: %llu of %d forwarded",
               (unsigned long long)held_most, FLOOD);
        /* Whether PE 2, the sender, maps us: as we map it (both on one
         * node, or both reached through the transport). */
        int mapped = gk_ptr(first_block, 2) != NULL;
        CHECK_LE(held_most, mapped ? HELD_BOUND_MAPPED : HELD_BOUND_TRANSPORT);
    }
}

static void sleep_while_holding(void)
{
    int me = gk_my_pe();
    uint64_t *sent = (uint64_t *)first_block; /* PE 0's: PE 1 has sent its requests */
    if (me == 1) {
        /* 60 requests, each answered twice: more than an inbox holds. */
        for (int i = 0; i < 60; i++)
            CHECK_OK(gk_am_request_short(0, H_REPLY_TWICE, NULL, 0));
        CHECK_OK(gk_put_u64(0, sent, 1));
        usleep(1000000); /* computes: its inbox stays full */
        CHECK_OK(gk_barrier());
    } else {
        /* A plain loop, which runs no handler: they all run below, while
         * PE 1 computes. */
        while (__atomic_load_n(sent, __ATOMIC_ACQUIRE) == 0)
            ;
        while (atomic_load_explicit(&requests_run, memory_order_relaxed) < 60)
            CHECK_OK(gk_poll());
        CHECK_GT(held_now(), 0); /* the case under test */
        double cpu0 = cpu_seconds(), wall0 = gk_wtime();
        CHECK_OK(gk_barrier());
        double cpu = cpu_seconds() - cpu0, wall = gk_wtime() - wall0;
        PE_LOG("barrier while holding messages: %.2f s, %.2f s of CPU", wall, cpu);
        if (!(cpu < 0.5 * wall + 0.05))
            PE_FAIL("a barrier of %.2f s used %.2f s of CPU: it spun", wall, cpu);
    }
}

/* PE 0 holds messages for PE 1 (see sleep_while_holding), then waits for a
 * word PE 1 sets only once every one of them has arrived. */
static void wake_holder(void)
{
    int me = gk_my_pe();
    uint64_t *sent = (uint64_t *)first_block, *all_in = sent + 1; /* PE 0's */
    if (me == 1) {
        for (int i = 0; i < 60; i++)
            CHECK_OK(gk_am_request_short(0, H_REPLY_TWICE, NULL, 0));
        CHECK_OK(gk_put_u64(0, sent, 1));
        usleep(300000); /* computes: its inbox stays full */
        while (atomic_load_explicit(&sunk, memory_order_relaxed) < 120)
            CHECK_OK(gk_poll());
        CHECK_OK(gk_atomic_set_u64(0, all_in, 1));
    } else {
        while (__atomic_load_n(sent, __ATOMIC_ACQUIRE) == 0)
            ;
        while (atomic_load_explicit(&requests_run, memory_order_relaxed) < 60)
            CHECK_OK(gk_poll());
        CHECK_GT(held_now(), 0); /* the case under test */
        double wall0 = gk_wtime();
        CHECK_OK(gk_wait_until_u64(all_in, GK_CMP_NE, 0));
        double wall = gk_wtime() - wall0;
        PE_LOG("wait for the held messages' delivery: %.2f s", wall);
        if (!(wall < 10))
            PE_FAIL("the wait took %.2f s: PE 1 did not wake it when it made room", wall);
    }
}

/* PE 0 sends PE 1, which computes, more than its inbox holds. */
static void send_to_full(void)
{
    enum { SENDS = 3 * 64 }; /* an inbox holds 64 (shm_ring.h) */
    int me = gk_my_pe();
    if (me == 1) {
        usleep(1000000); /* computes: its inbox fills up */
        while (atomic_load_explicit(&sunk, memory_order_relaxed) < SENDS)
            CHECK_OK(gk_poll());
        CHECK_EQ_U64(atomic_load_explicit(&sunk, memory_order_relaxed), SENDS);
    } else if (me == 0) {
        double cpu0 = cpu_seconds(), wall0 = gk_wtime();
        for (int i = 0; i < SENDS; i++)
            CHECK_OK(gk_am_request_short(1, H_SINK, NULL, 0));
        double cpu = cpu_seconds() - cpu0, wall = gk_wtime() - wall0;
        PE_LOG("sends to a full inbox: %.2f s, %.2f s of CPU", wall, cpu);
        if (!(wall > 0.2)) /* the case under test */
            PE_FAIL("%d sends took %.2f s: they never waited for room", SENDS, wall);
        /* Its naps cost about a tenth; a spin, yielding or not, takes what
         * the machine leaves it: a whole CPU on an idle one. */
        if (!(cpu < 0.3 * wall + 0.05))
            PE_FAIL("sends that waited %.2f s for room used %.2f s of CPU: they spun",
                    wall, cpu);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "forward") != 0 && strcmp(argv[1], "sleep") != 0 &&
                      strcmp(argv[1], "wake") != 0 && strcmp(argv[1], "full") != 0)) {
        fprintf(stderr, "usage: %s forward|sleep|wake|full\n", argv[0]);
        return 2;
    }
    CHECK_OK(gk_init());
    first_block = gk_calloc(1, 64);
    CHECK_NOT_NULL(first_block);
    CHECK_OK(gk_am_register(H_SINK, h_sink));
    CHECK_OK(gk_am_register(H_FORWARD, h_forward));
    CHECK_OK(gk_am_register(H_REPLY_TWICE, h_reply_twice));
    CHECK_OK(gk_barrier());
    if (strcmp(argv[1], "forward") == 0 && gk_n_pes() >= 3)
        forward();
    else if (strcmp(argv[1], "sleep") == 0 && gk_n_pes() >= 2)
        sleep_while_holding();
    else if (strcmp(argv[1], "wake") == 0 && gk_n_pes() >= 2)
        wake_holder();
    else if (strcmp(argv[1], "full") == 0 && gk_n_pes() >= 2)
        send_to_full();
    CHECK_OK(gk_barrier());
    gk_free(first_block);
    CHECK_OK(gk_finalize());
    return 0;
}

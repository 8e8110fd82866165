/*
 * Unit tests of the libfabric transport's probes' bookkeeping
 * (src/net/ofi_probe.c): when a peer gets a ping, and what an answer says
 * the peer's connection lost. The sending and the job's end around them
 * need a provider and are covered by fault.hosts2.sockets-stream.
 */
#include "gk_test.h"
#include "net/ofi_int.h"

static void posted(struct gk__ofi_peer *p, uint64_t n)
{
    atomic_fetch_add(&p->ops_posted, n);
}

static void ended(struct gk__ofi_peer *p, uint64_t n)
{
    atomic_fetch_add(&p->ops_ended, n);
}

static void sent(struct gk__ofi_peer *p, uint64_t n)
{
    atomic_fetch_add(&p->msgs_sent, n);
}

/* A ping for p, answered with `received` messages: the verdict. */
static enum gk__ofi_probe_loss round_trip(struct gk__ofi_peer *p, uint64_t received,
                                          uint64_t *n_lost)
{
    if (!gk__ofi_probe_due(p))
        GK_TEST_FAIL("no ping was due");
    return gk__ofi_probe_answered(p, p->ping_seq, received, n_lost);
}

GK_TEST(an_idle_peer_gets_no_ping)
{
    struct gk__ofi_peer p = {0};
    ASSERT_EQ(gk__ofi_probe_due(&p), 0);
    posted(&p, 3);
    ended(&p, 3);
    ASSERT_EQ(gk__ofi_probe_due(&p), 0);
    ASSERT_EQ(p.ping_seq, 0);
}

GK_TEST(messages_are_confirmed_once)
{
    struct gk__ofi_peer p = {0};
    uint64_t n;
    sent(&p, 5);
    ASSERT_EQ(round_trip(&p, 5, &n), GK__OFI_LOST_NOTHING);
    ASSERT_EQ(gk__ofi_probe_due(&p), 0); /* all five confirmed */
    sent(&p, 1);
    ASSERT_EQ(round_trip(&p, 9, &n), GK__OFI_LOST_NOTHING); /* more arrived since: fine */
}

GK_TEST(a_lost_message_shows_at_the_first_answer)
{
    struct gk__ofi_peer p = {0};
    uint64_t n;
    sent(&p, 7);
    ASSERT_EQ(round_trip(&p, 5, &n), GK__OFI_LOST_MESSAGES);
    ASSERT_EQ(n, 2);
}

GK_TEST(an_operation_that_ends_late_is_not_lost)
{
    struct gk__ofi_peer p = {0};
    uint64_t n;
    posted(&p, 2);
    ASSERT_EQ(round_trip(&p, 0, &n), GK__OFI_LOST_NOTHING); /* one round: never a verdict */
    ended(&p, 2);
    ASSERT_EQ(gk__ofi_probe_due(&p), 0);
}

GK_TEST(a_lost_operation_shows_at_the_second_answer)
{
    struct gk__ofi_peer p = {0};
    uint64_t n;
    posted(&p, 3);
    ended(&p, 2);
    ASSERT_EQ(round_trip(&p, 0, &n), GK__OFI_LOST_NOTHING);
    ASSERT_EQ(round_trip(&p, 0, &n), GK__OFI_LOST_OPERATIONS);
    ASSERT_EQ(n, 1);
}

GK_TEST(operations_posted_after_a_ping_get_their_own_rounds)
{
    struct gk__ofi_peer p = {0};
    uint64_t n;
    posted(&p, 1);
    ASSERT_EQ(round_trip(&p, 0, &n), GK__OFI_LOST_NOTHING);
    ended(&p, 1);
    posted(&p, 4); /* after the ping: its answer says nothing of these */
    ASSERT_EQ(round_trip(&p, 0, &n), GK__OFI_LOST_NOTHING);
    ended(&p, 4);
    ASSERT_EQ(gk__ofi_probe_due(&p), 0);
}

GK_TEST(an_earlier_rounds_answer_decides_nothing)
{
    struct gk__ofi_peer p = {0};
    uint64_t n;
    sent(&p, 4);
    posted(&p, 1);
    ASSERT_EQ(gk__ofi_probe_due(&p), 1);
    uint64_t first = p.ping_seq;
    ASSERT_EQ(gk__ofi_probe_due(&p), 1); /* the first ping got no answer in time */
    /* Its answer, late, with too few messages: not this round's. */
    ASSERT_EQ(gk__ofi_probe_answered(&p, first, 0, &n), GK__OFI_LOST_NOTHING);
    ASSERT_EQ(gk__ofi_probe_answered(&p, first, 0, &n), GK__OFI_LOST_NOTHING);
    ASSERT_EQ(gk__ofi_probe_answered(&p, p.ping_seq, 4, &n), GK__OFI_LOST_NOTHING);
    ASSERT_EQ(gk__ofi_probe_answered(&p, first, 4, &n), GK__OFI_LOST_NOTHING);
}

int main(int argc, char **argv)
{
    return gk_test_main(argc, argv);
}

/*
 * am_flood_test: request/reply floods. Every request's handler replies with
 * a message of the same kind, so PEs that flood each other are at once
 * senders of requests and, inside handlers, senders of replies into inboxes
 * that may be full: the case that must never deadlock.
 *
 *   am_flood_test PATTERN TOTAL KIND
 *     PATTERN  self        every PE floods itself
 *              pairwise    PE i and PE i^1 flood each other (an odd one out,
 *                          itself)
 *              all-to-one  every PE floods PE 0 (PE 0 itself too)
 *              all-to-all  every PE floods every PE in turn
 *     TOTAL    requests over the whole job (each PE sends TOTAL / npes)
 *     KIND     short, medium, long, or mixed (the three in turn)
 *
 * Checked: every request and every reply arrives exactly once, in the
 * order sent between each pair; medium payloads arrive intact both ways;
 * long payloads land where they were sent.
 */
#include "pe_check.h"

enum { H_REQUEST, H_REPLY };
enum kind { K_SHORT, K_MEDIUM, K_LONG, K_MIXED };

#define LONG_MAX_BYTES 8192
#define MAX_PES 64

static int me_, npes_;
static enum kind kind_;
static size_t max_medium_;

/* Symmetric: per source PE, where its long requests land, and where our
 * long replies to it land (apart: with the progress thread a request and
 * a reply to oneself are written by two threads); how many requests each
 * PE sent to each target; the count of replies this PE has run (awaited
 * with gk_wait_until). */
static unsigned char *long_area, *long_reply_area;
static uint64_t *sent_to;
static uint64_t *replies_run;

/* Handler state: run on this PE's progress, one handler at a time; main
 * reads it at the end, when the progress thread may still run (atomics). */
static uint64_t requests_seen_from[MAX_PES];
static uint64_t replies_seen_from[MAX_PES];

static enum kind kind_of(uint64_t seq)
{
    return kind_ == K_MIXED ? (enum kind)(seq % 3) : kind_;
}

/* A medium payload's length for message seq: mostly small, now and then the
 * largest, so inboxes fill with both. */
static size_t medium_bytes(uint64_t seq)
{
    return seq % 64 == 63 ? max_medium_ : (size_t)(seq * 37 % 1024);
}

static size_t long_bytes(uint64_t seq)
{
    return (size_t)(seq * 101 % LONG_MAX_BYTES) + 1;
}

/* The words at both ends of a payload say which message it is. */
static void stamp(unsigned char *buf, size_t n, uint64_t seq)
{
    if (n >= 16) {
        memcpy(buf, &seq, 8);
        memcpy(buf + n - 8, &seq, 8);
    } else {
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)(seq + i);
    }
}

static int stamped(const unsigned char *buf, size_t n, uint64_t seq)
{
    unsigned char want[LONG_MAX_BYTES];
    if (n >= 16) {
        uint64_t head, tail;
        memcpy(&head, buf, 8);
        memcpy(&tail, buf + n - 8, 8);
        return head == seq && tail == seq;
    }
    stamp(want, n, seq);
    return memcmp(buf, want, n) == 0;
}

/* args: [seq, nbytes, filler...]: short messages carry 2 to 16 arguments. */
static int nargs_of(uint64_t seq)
{
    return 2 + (int)(seq % 15);
}

static void h_request(gk_am_token_t *token, void *payload, size_t nbytes,
                      const uint64_t *args, int nargs)
{
    int src = gk_am_token_pe(token);
    uint64_t seq = args[0];
    CHECK_EQ_U64(seq, requests_seen_from[src]); /* once each, in order */
    __atomic_store_n(&requests_seen_from[src], seq + 1, __ATOMIC_RELEASE);
    CHECK_EQ(nargs, nargs_of(seq));
    CHECK_EQ_U64(nbytes, args[1]);
    switch (kind_of(seq)) {
    case K_SHORT:
        CHECK_OK(gk_am_reply_short(token, H_REPLY, args, nargs));
        break;
    case K_MEDIUM:
        if (!stamped(payload, nbytes, seq)) {
            uint64_t h = 0;
            if (nbytes >= 8) memcpy(&h, payload, 8);
            PE_FAIL("medium request %llu from PE %d (%zu bytes) arrived as %llu",
                    (unsigned long long)seq, src, nbytes, (unsigned long long)h);
        }
        CHECK_OK(gk_am_reply_medium(token, H_REPLY, payload, nbytes, args, nargs));
        break;
    default: {
        CHECK_TRUE(payload == long_area + (size_t)src * LONG_MAX_BYTES);
        /* The reply's payload: our copy of what the requester sent (it
         * may have been overwritten by its later requests since). */
        unsigned char echo[LONG_MAX_BYTES];
        stamp(echo, nbytes, seq);
        CHECK_OK(gk_am_reply_long(token, H_REPLY,
                                  long_reply_area + (size_t)me_ * LONG_MAX_BYTES, echo,
                                  nbytes, args, nargs));
        break;
    }
    }
}

static void h_reply(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                    int nargs)
{
    int src = gk_am_token_pe(token);
    uint64_t seq = args[0];
    CHECK_EQ_U64(seq, replies_seen_from[src]);
    __atomic_store_n(&replies_seen_from[src], seq + 1, __ATOMIC_RELEASE);
    CHECK_EQ(nargs, nargs_of(seq));
    CHECK_EQ_U64(nbytes, args[1]);
    if (kind_of(seq) == K_MEDIUM)
        CHECK_TRUE(stamped(payload, nbytes, seq));
    else if (kind_of(seq) == K_LONG)
        CHECK_TRUE(payload == long_reply_area + (size_t)src * LONG_MAX_BYTES);
    __atomic_add_fetch(replies_run, 1, __ATOMIC_RELEASE);
}

static int target_of(const char *pattern, uint64_t i)
{
    if (strcmp(pattern, "self") == 0)
        return me_;
    if (strcmp(pattern, "pairwise") == 0)
        return (me_ ^ 1) < npes_ ? me_ ^ 1 : me_;
    if (strcmp(pattern, "all-to-one") == 0)
        return 0;
    return (int)((me_ + i) % (uint64_t)npes_); /* all-to-all */
}

static int send_one(int target, uint64_t seq, unsigned char *buf)
{
    uint64_t args[16] = {seq, 0};
    int nargs = nargs_of(seq);
    for (int a = 2; a < nargs; a++)
        args[a] = seq * 31 + (uint64_t)a;
    switch (kind_of(seq)) {
    case K_SHORT:
        return gk_am_request_short(target, H_REQUEST, args, nargs);
    case K_MEDIUM:
        args[1] = medium_bytes(seq);
        stamp(buf, (size_t)args[1], seq);
        return gk_am_request_medium(target, H_REQUEST, buf, (size_t)args[1], args, nargs);
    default:
        args[1] = long_bytes(seq);
        stamp(buf, (size_t)args[1], seq);
        return gk_am_request_long(target, H_REQUEST,
                                  long_area + (size_t)me_ * LONG_MAX_BYTES, buf,
                                  (size_t)args[1], args, nargs);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s self|pairwise|all-to-one|all-to-all TOTAL "
                        "short|medium|long|mixed\n",
                argv[0]);
        return 2;
    }
    const char *pattern = argv[1];
    uint64_t total = strtoull(argv[2], NULL, 10);
    const char *kinds[] = {"short", "medium", "long", "mixed"};
    kind_ = K_MIXED + 1;
    for (int k = 0; k < 4; k++)
        if (strcmp(argv[3], kinds[k]) == 0)
            kind_ = (enum kind)k;
    if (kind_ > K_MIXED) {
        fprintf(stderr, "%s: unknown kind %s\n", argv[0], argv[3]);
        return 2;
    }
    CHECK_OK(gk_init());
    me_ = gk_my_pe();
    npes_ = gk_n_pes();
    CHECK_LE(npes_, MAX_PES);
    max_medium_ = gk_am_max_medium();
    long_area = gk_calloc((size_t)npes_, LONG_MAX_BYTES);
    long_reply_area = gk_calloc((size_t)npes_, LONG_MAX_BYTES);
    CHECK_NOT_NULL(long_reply_area);
    sent_to = gk_calloc((size_t)npes_, sizeof(uint64_t));
    replies_run = gk_calloc(1, sizeof(uint64_t));
    CHECK_NOT_NULL(long_area);
    CHECK_NOT_NULL(sent_to);
    CHECK_NOT_NULL(replies_run);
    /* Registering publishes these pointers to the progress thread's handlers
     * (a release store the dispatch loads with acquire). */
    CHECK_OK(gk_am_register(H_REQUEST, h_request));
    CHECK_OK(gk_am_register(H_REPLY, h_reply));
    static unsigned char buf[LONG_MAX_BYTES];
    CHECK_LE(max_medium_, sizeof(buf));
    CHECK_OK(gk_barrier()); /* handlers registered everywhere */

    uint64_t mine = total / (uint64_t)npes_ > 0 ? total / (uint64_t)npes_ : 1;
    double t0 = pe_now();
    for (uint64_t i = 0; i < mine; i++) {
        int target = target_of(pattern, i);
        CHECK_OK(send_one(target, sent_to[target], buf));
        sent_to[target]++;
    }
    /* Every request is answered: wait for the replies (run by our own
     * progress, or by the progress thread). */
    CHECK_OK(gk_wait_until_u64(replies_run, GK_CMP_GE, mine));
    CHECK_OK(gk_barrier());
    double elapsed = pe_now() - t0;

    /* What each PE sent to us is what our handler saw, and each reply came. */
    uint64_t got_requests = 0;
    for (int src = 0; src < npes_; src++) {
        uint64_t sent = 0;
        CHECK_OK(gk_get_u64(src, &sent_to[me_], &sent));
        CHECK_EQ_U64(__atomic_load_n(&requests_seen_from[src], __ATOMIC_ACQUIRE), sent);
        CHECK_EQ_U64(__atomic_load_n(&replies_seen_from[src], __ATOMIC_ACQUIRE), sent_to[src]);
        got_requests += sent;
    }
    CHECK_EQ_U64(__atomic_load_n(replies_run, __ATOMIC_ACQUIRE), mine);
    uint64_t all_requests = 0;
    CHECK_OK(gk_allreduce(&all_requests, &got_requests, 1, GK_DTYPE_UINT64, GK_OP_SUM));
    CHECK_EQ_U64(all_requests, mine * (uint64_t)npes_);
    if (me_ == 0)
        PE_LOG("%s %s: %llu requests and as many replies in %.2f s", pattern, argv[3],
               (unsigned long long)all_requests, elapsed);
    CHECK_OK(gk_barrier());
    gk_free(replies_run);
    gk_free(sent_to);
    gk_free(long_reply_area);
    gk_free(long_area);
    CHECK_OK(gk_finalize());
    return 0;
}

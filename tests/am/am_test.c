/*
 * am_test: active messages. Short requests with 0 to 16 arguments and a
 * reply; medium payloads of 0, 1, odd sizes and gk_am_max_medium() bytes,
 * checksummed by the handler; long payloads written into the target's heap
 * before the handler runs (it gets their address there); the order between
 * a pair; a flood from every PE to every other PE of several times the
 * inbox's capacity, in both directions at once; the errors at the
 * sender, with their messages; a heap word set by a reply's handler and
 * awaited with gk_wait_until; and a handler that calls collectives and
 * gk_finalize, each refused with GK_ERR_UNSUPPORTED and a message.
 */
#include "pe_check.h"

enum { H_ARGS, H_REPLY, H_SUM, H_LONG, H_SEQ, H_COLL, H_ECHO, H_SET, H_LOCK };

static volatile uint64_t replies, sums_ok, longs_ok, seq_next, seq_bad;
static int me_, npes_;

static void h_args(gk_am_token_t *token, void *payload, size_t nbytes,
                   const uint64_t *args, int nargs)
{
    uint64_t total = (uint64_t)nargs * 1000;
    for (int i = 0; i < nargs; i++)
        total += args[i];
    CHECK_EQ(nbytes, 0);
    CHECK_NULL(payload);
    CHECK_OK(gk_am_reply_short(token, H_REPLY, &total, 1));
    /* A second reply is an error. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_am_reply_short(token, H_REPLY, &total, 1),
                 "cannot reply");
}

static volatile uint64_t last_reply;
static void h_reply(gk_am_token_t *token, void *payload, size_t nbytes,
                    const uint64_t *args, int nargs)
{
    (void)payload, (void)nbytes, (void)nargs;
    /* A reply cannot reply. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_am_reply_short(token, H_REPLY, args, 1),
                 "cannot reply");
    last_reply = args[0];
    replies++;
}

/* A request echoed back to H_SET, which stores its argument into the
 * requester's heap word `answer`: the pattern of waiting with
 * gk_wait_until for what a handler sets. */
static uint64_t *answer; /* symmetric */
static void h_echo(gk_am_token_t *token, void *payload, size_t nbytes,
                   const uint64_t *args, int nargs)
{
    (void)payload, (void)nbytes, (void)nargs;
    CHECK_OK(gk_am_reply_short(token, H_SET, args, 1));
}
static void h_set(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)nargs;
    __atomic_store_n(answer, args[0], __ATOMIC_RELEASE);
}

static void h_sum(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    (void)token, (void)nargs;
    uint64_t sum = 0;
    for (size_t i = 0; i < nbytes; i++)
        sum += ((const unsigned char *)payload)[i] * (i + 1);
    CHECK_EQ_U64(sum, args[0]);
    CHECK_EQ_U64(nbytes, args[1]);
    sums_ok++;
}

/* Collectives inside a handler are refused (docs/PROGRESS.md), each with
 * one line naming the call; nothing is allocated, nobody waits. */
static volatile uint64_t colls_refused;
static gk_lock_t *mutex; /* symmetric; PE 0 holds it while PE 1's H_LOCK runs */

/* A taken lock would be waited for: refused; a try is fine. */
static void h_lock(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    (void)payload, (void)nbytes, (void)args, (void)nargs;
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_lock_set(mutex), "gk_lock_set", "must not block");
    int acquired = -1;
    CHECK_OK(gk_lock_try_set(mutex, &acquired));
    CHECK_EQ(acquired, 0);
    uint64_t done = 1;
    CHECK_OK(gk_am_reply_short(token, H_SET, &done, 1));
}
static gk_request_t *pending_recv; /* h_coll's receive, refused a wait */
static int pending_word;
static void h_coll(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)args, (void)nargs;
    size_t free_before = gk_heap_free();
    uint64_t x = 1, y = 0;
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_barrier(), "gk_barrier", "active-message handler");
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_allreduce(&y, &x, 1, GK_DTYPE_UINT64, GK_OP_SUM),
                 "gk_allreduce", "handler");
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_broadcast(&y, &x, 8, 0), "gk_broadcast", "handler");
    CHECK_LOGGED_NULL(gk_malloc(64), "gk_malloc", "handler");
    CHECK_LOGGED(GK_OK, (gk_free(NULL), GK_OK), "gk_free", "handler");
    gk_sem_t sem;
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_sem_alloc_all(0, &sem), "gk_sem_alloc_all",
                 "handler");
    gk_win_t *win = NULL;
    void *base = NULL;
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_win_allocate(64, 0, &base, &win), "gk_win_allocate",
                 "handler");
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_finalize(), "gk_finalize", "handler");
    /* Blocking two-sided calls that would wait; an eager send does not. */
    int word = 0;
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_recv(GK_ANY_SOURCE, 999, &word, sizeof(word), NULL),
                 "gk_recv", "must not block");
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_probe(GK_ANY_SOURCE, 999, NULL), "gk_probe",
                 "must not block");
    gk_request_t *req = NULL;
    CHECK_OK(gk_irecv(GK_ANY_SOURCE, 997, &pending_word, sizeof(pending_word), &req));
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_request_wait(&req, NULL), "gk_request_wait",
                 "must not block");
    pending_recv = req; /* still live: main completes it */
    /* Waits that would block: the word and the semaphore are not ready. */
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_wait_until_u64(answer, GK_CMP_EQ, 12345),
                 "gk_wait_until_u64", "must not block");
    gk_sem_t mine;
    CHECK_OK(gk_sem_alloc(0, &mine));
    CHECK_LOGGED(GK_ERR_UNSUPPORTED, gk_sem_wait(mine), "gk_sem_wait", "must not block");
    CHECK_OK(gk_sem_post(mine));
    CHECK_OK(gk_sem_wait(mine)); /* ready: no wait, allowed */
    CHECK_OK(gk_sem_free(mine));
    word = 998;
    CHECK_OK(gk_send(gk_my_pe(), 998, &word, sizeof(word))); /* received in main */
    CHECK_EQ(gk_heap_free(), free_before);
    colls_refused++;
}

static unsigned char *long_area; /* symmetric */
static void h_long(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    (void)token, (void)nargs;
    CHECK_TRUE(nbytes == 0 || payload == long_area + args[1]);
    for (size_t i = 0; i < nbytes; i++)
        CHECK_EQ(((unsigned char *)payload)[i], (unsigned char)(i * 7 + args[0]));
    longs_ok++;
}

static void h_seq(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)nargs;
    if (args[0] != seq_next)
        seq_bad++;
    seq_next = args[0] + 1;
}

static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i] * (i + 1);
    return sum;
}

static void poll_until(volatile uint64_t *counter, uint64_t target)
{
    while (*counter < target)
        CHECK_OK(gk_poll());
}

int main(void)
{
    CHECK_OK(gk_init());
    me_ = gk_my_pe();
    npes_ = gk_n_pes();
    CHECK_OK(gk_am_register(H_ARGS, h_args));
    CHECK_OK(gk_am_register(H_REPLY, h_reply));
    CHECK_OK(gk_am_register(H_SUM, h_sum));
    CHECK_OK(gk_am_register(H_LONG, h_long));
    CHECK_OK(gk_am_register(H_SEQ, h_seq));
    CHECK_OK(gk_am_register(H_COLL, h_coll));
    CHECK_OK(gk_am_register(H_ECHO, h_echo));
    CHECK_OK(gk_am_register(H_SET, h_set));
    CHECK_OK(gk_am_register(H_LOCK, h_lock));
    mutex = gk_calloc(1, sizeof(gk_lock_t));
    CHECK_NOT_NULL(mutex);
    answer = gk_calloc(1, sizeof(*answer));
    CHECK_NOT_NULL(answer);
    size_t max = gk_am_max_medium();
    CHECK_GE(max, 1024);
    long_area = gk_malloc(2 << 20);
    CHECK_NOT_NULL(long_area);
    CHECK_OK(gk_barrier());
    int right = (me_ + 1) % npes_;

    /* Short: 0 .. 16 arguments, each answered. */
    for (int nargs = 0; nargs <= GK_AM_MAX_ARGS; nargs++) {
        uint64_t args[GK_AM_MAX_ARGS], expect = (uint64_t)nargs * 1000;
        for (int i = 0; i < nargs; i++) {
            args[i] = (uint64_t)(i * 3 + me_);
            expect += args[i];
        }
        uint64_t before = replies;
        CHECK_OK(gk_am_request_short(right, H_ARGS, args, nargs));
        poll_until(&replies, before + 1);
        CHECK_EQ_U64(last_reply, expect);
    }
    CHECK_OK(gk_barrier());

    /* A word set by a reply's handler, awaited with gk_wait_until: the
     * wait runs the handler (inline, it hands over to the library as soon
     * as a message is ready). */
    for (uint64_t round = 1; round <= 500; round++) {
        uint64_t token = round * 1000 + (uint64_t)me_;
        CHECK_OK(gk_am_request_short(right, H_ECHO, &token, 1));
        CHECK_OK(gk_wait_until_u64(answer, GK_CMP_EQ, token));
    }
    CHECK_OK(gk_barrier());

    /* Medium: sizes up to the maximum, payload checked by the handler. */
    unsigned char *buf = malloc(max);
    CHECK_NOT_NULL(buf);
    /* 1-16 bytes take every branch of the small copy (net/shm_ring.h). */
    /* 264 is the most that fits a slot's header after two arguments
     * (net/shm_ring.h), 265 the least that takes the slot's block. */
    size_t sizes[] = {0, 1, 3, 4, 7, 8, 13, 16, 17, 64, 200, 255, 264, 265, 1000, max - 1, max};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t i = 0; i < sizes[s]; i++)
            buf[i] = (unsigned char)(i ^ (s * 31) ^ (size_t)me_);
        uint64_t args[2] = {checksum(buf, sizes[s]), sizes[s]};
        CHECK_OK(gk_am_request_medium(right, H_SUM, buf, sizes[s], args, 2));
    }
    CHECK_OK(gk_barrier()); /* handlers run inside it */
    poll_until(&sums_ok, sizeof(sizes) / sizeof(sizes[0]));

    /* Long: into the right neighbour's heap, at an offset per size. Across
     * hosts those up to 64 KiB travel in the message itself, the others
     * are put before it: both sides of that limit. */
    size_t long_sizes[] = {0, 3, 4096, 65536, 65537, 100000, (1 << 20) - 100000};
    uint64_t at = 0;
    for (size_t s = 0; s < sizeof(long_sizes) / sizeof(long_sizes[0]); s++) {
        size_t n = long_sizes[s];
        unsigned char *src = malloc(n + 1);
        CHECK_NOT_NULL(src);
        for (size_t i = 0; i < n; i++)
            src[i] = (unsigned char)(i * 7 + (size_t)me_);
        uint64_t args[2] = {(uint64_t)me_, at};
        CHECK_OK(gk_am_request_long(right, H_LONG, long_area + at, src, n, args, 2));
        free(src);
        CHECK_OK(gk_barrier()); /* one at a time: they share the area */
        poll_until(&longs_ok, s + 1);
        CHECK_OK(gk_barrier());
        at = (at + 100000) % 400000;
    }

    /* Order within a pair, and a flood: everyone to everyone, 5000 each. */
    const uint64_t flood = 5000;
    for (uint64_t i = 0; i < flood; i++)
        CHECK_OK(gk_am_request_short(right, H_SEQ, &i, 1));
    /* Counted from what phase 1 delivered, not read now: the others' flood
     * may already be arriving (we run our inbox while our sends wait). */
    uint64_t sums_before = sizeof(sizes) / sizeof(sizes[0]);
    for (uint64_t i = 0; i < flood / 10; i++) {
        size_t n = (size_t)(i * 37) % 600;
        for (size_t k = 0; k < n; k++)
            buf[k] = (unsigned char)(k + i);
        uint64_t args[2] = {checksum(buf, n), n};
        for (int d = 1; d < npes_ || (npes_ == 1 && d == 1); d++)
            CHECK_OK(gk_am_request_medium((me_ + d) % npes_, H_SUM, buf, n, args, 2));
    }
    poll_until(&seq_next, flood);
    poll_until(&sums_ok, sums_before + (flood / 10) * (uint64_t)(npes_ > 1 ? npes_ - 1 : 1));
    CHECK_EQ_U64(seq_bad, 0);
    CHECK_OK(gk_barrier());

    /* Errors at the sender. */
    uint64_t a[GK_AM_MAX_ARGS + 1] = {0};
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_am_request_short(right, 77, a, 1), "handler 77",
                 "not registered");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_am_request_short(right, -1, a, 1), "handler -1");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_am_request_short(right, H_SEQ, a, GK_AM_MAX_ARGS + 1), "17 arguments");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_am_request_medium(right, H_SUM, buf, max + 1, a, 2),
                 "over the medium maximum");
    CHECK_LOGGED(GK_ERR_RANGE,
                 gk_am_request_long(right, H_LONG, long_area + (1 << 30), buf, 64, a, 2),
                 "outside");
    CHECK_LOGGED(GK_ERR_PE, gk_am_request_short(npes_, H_SEQ, a, 1), "PE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_am_request_medium(right, H_SUM, NULL, 8, a, 2),
                 "payload");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_am_register(GK_AM_MAX_HANDLERS, h_seq), "index");
    free(buf);
    CHECK_OK(gk_barrier());

    /* A handler that calls collectives; the job goes on afterwards. */
    CHECK_OK(gk_am_request_short(right, H_COLL, a, 0));
    poll_until(&colls_refused, 1);
    int word = 0;
    CHECK_OK(gk_recv(gk_my_pe(), 998, &word, sizeof(word), NULL)); /* h_coll's send */
    CHECK_EQ(word, 998);
    word = 997;
    CHECK_OK(gk_send(gk_my_pe(), 997, &word, sizeof(word)));
    word = 0;
    CHECK_NOT_NULL(pending_recv);
    CHECK_OK(gk_request_wait(&pending_recv, NULL));
    CHECK_EQ(pending_word, 997);
    CHECK_OK(gk_barrier());

    /* A handler asking for a lock another PE holds. */
    if (npes_ > 1 && me_ == 0) {
        __atomic_store_n(answer, 0, __ATOMIC_RELAXED);
        CHECK_OK(gk_lock_set(mutex));
        CHECK_OK(gk_am_request_short(1, H_LOCK, a, 0));
        CHECK_OK(gk_wait_until_u64(answer, GK_CMP_EQ, 1));
        CHECK_OK(gk_lock_clear(mutex));
    }
    CHECK_OK(gk_barrier());
    gk_free(mutex);
    gk_free(long_area);
    gk_free(answer);
    return gk_finalize() == GK_OK ? 0 : 1;
}

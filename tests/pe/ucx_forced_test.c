/*
 * ucx_forced_test: the UCX transport on one node, run with
 * GK_NET_FORCE_UCX=1 so that every other PE is reached through UCX
 * (tests/pe/CMakeLists.txt sets it; the test checks that no other PE's
 * segment is mapped here, else it would test shm).
 *
 *  - puts and gets, blocking and non-blocking, from 1 byte to 1 MiB, to the
 *    right neighbour, checked by the neighbour after a barrier and read
 *    back with gets; value puts and gets;
 *  - fence order: data then, after gk_fence, a flag; the target waits for
 *    the flag and must find the data (sizes up to 256 KiB);
 *  - every atomic, 32 and 64 bits, on words of the right neighbour, with
 *    their old values, and a counter on PE 0 that every PE increments;
 *  - active messages: short with arguments and a reply, medium of the
 *    largest payload (checksummed), long; 2000 numbered messages from the
 *    left neighbour that must arrive in order, sent while the target
 *    computes, so that most find its inbox full and wait in the UCX
 *    transport's queue.
 */
#include "pe_check.h"

enum { H_ECHO, H_REPLY, H_SUM, H_LONG, H_SEQ };

static int me, npes, left, right;
static volatile uint64_t replies, last_reply, sums_ok, longs_ok, seq_next, seq_bad;
static unsigned char *long_area; /* symmetric */

static void h_echo(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    uint64_t total = (uint64_t)nargs;
    for (int i = 0; i < nargs; i++)
        total += args[i];
    CHECK_OK(gk_am_reply_short(token, H_REPLY, &total, 1));
}

static void h_reply(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                    int nargs)
{
    last_reply = args[0];
    replies++;
}

static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i] * (i + 1);
    return sum;
}

static void h_sum(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    CHECK_EQ_U64(nbytes, args[1]);
    CHECK_EQ_U64(checksum(payload, nbytes), args[0]);
    sums_ok++;
}

static void h_long(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                   int nargs)
{
    CHECK_TRUE(payload == long_area);
    CHECK_EQ_U64(checksum(payload, nbytes), args[0]);
    longs_ok++;
}

static void h_seq(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    CHECK_EQ(gk_am_token_pe(token), left);
    if (args[0] != seq_next)
        seq_bad++;
    seq_next = args[0] + 1;
}

static void poll_until(volatile uint64_t *counter, uint64_t target)
{
    while (*counter < target)
        CHECK_OK(gk_poll());
}

static unsigned char pattern(size_t i, int pe, size_t size)
{
    return (unsigned char)(i * 13 + (size_t)pe * 7 + size);
}

#define MAX_SIZE ((size_t)1 << 20)

static void test_rma(unsigned char *buf, unsigned char *src, unsigned char *dst)
{
    static const size_t sizes[] = {1, 7, 8, 100, 4096, 4097, 65536, 300000, MAX_SIZE};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        for (int nbi = 0; nbi < 2; nbi++) {
            for (size_t i = 0; i < n; i++)
                src[i] = pattern(i, me, n + (size_t)nbi);
            if (nbi) {
                CHECK_OK(gk_put_nbi(right, buf, src, n));
                CHECK_OK(gk_quiet());
            } else {
                CHECK_OK(gk_put(right, buf, src, n));
            }
            CHECK_OK(gk_barrier());
            for (size_t i = 0; i < n; i++)
                if (buf[i] != pattern(i, left, n + (size_t)nbi))
                    PE_FAIL("put of %zu bytes (%s) from PE %d: byte %zu is %u, expected %u", n,
                            nbi ? "nbi" : "blocking", left, i, buf[i],
                            pattern(i, left, n + (size_t)nbi));
            /* And read it back from where we put it. */
            memset(dst, 0, n);
            if (nbi) {
                CHECK_OK(gk_get_nbi(right, dst, buf, n));
                CHECK_OK(gk_quiet());
            } else {
                CHECK_OK(gk_get(right, dst, buf, n));
            }
            CHECK_EQ(memcmp(dst, src, n), 0);
            CHECK_OK(gk_barrier());
        }
    }
    uint64_t *words = (uint64_t *)(void *)buf;
    CHECK_OK(gk_put_u64(right, &words[3], 0xabcdef0000000000ULL + (uint64_t)me));
    CHECK_OK(gk_quiet());
    uint64_t value = 0;
    CHECK_OK(gk_get_u64(right, &words[3], &value));
    CHECK_EQ_U64(value, 0xabcdef0000000000ULL + (uint64_t)me);
    CHECK_OK(gk_barrier());
}

static void test_fence(unsigned char *buf, unsigned char *src, uint64_t *flag)
{
    static const size_t sizes[] = {8, 4096, 65536, 262144};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        for (uint64_t round = 1; round <= 20; round++) {
            uint64_t mark = k * 1000 + round;
            for (size_t i = 0; i < n; i += 8)
                memcpy(src + i, &mark, 8);
            CHECK_OK(gk_put_nbi(right, buf, src, n));
            CHECK_OK(gk_fence());
            CHECK_OK(gk_put_u64(right, flag, mark));
            CHECK_OK(gk_wait_until_u64(flag, GK_CMP_EQ, mark));
            for (size_t i = 0; i < n; i += 8) {
                uint64_t got;
                memcpy(&got, buf + i, 8);
                if (got != mark)
                    PE_FAIL("fence: flag %llu came before the data (word %zu of %zu bytes is "
                            "%llu)",
                            (unsigned long long)mark, i / 8, n, (unsigned long long)got);
            }
            /* Both of us have seen ours before either overwrites. */
            CHECK_OK(gk_quiet());
            CHECK_OK(gk_barrier());
        }
    }
}

static void test_atomics(void)
{
    uint64_t *w64 = gk_calloc(8, sizeof(uint64_t));
    uint32_t *w32 = gk_calloc(8, sizeof(uint32_t));
    uint64_t *counter = gk_calloc(1, sizeof(uint64_t));
    CHECK_TRUE(w64 != NULL && w32 != NULL && counter != NULL);
    CHECK_OK(gk_barrier());
    uint64_t o64 = 0;
    uint32_t o32 = 0;
    uint64_t base = 0x100000000ULL * (uint64_t)(me + 1);
    /* One sequence per word, each op's old value known. */
    CHECK_OK(gk_atomic_set_u64(right, &w64[0], base));
    CHECK_OK(gk_atomic_fetch_u64(right, &w64[0], &o64));
    CHECK_EQ_U64(o64, base);
    CHECK_OK(gk_atomic_fetch_add_u64(right, &w64[0], 5, &o64));
    CHECK_EQ_U64(o64, base);
    CHECK_OK(gk_atomic_add_u64(right, &w64[0], 10));
    CHECK_OK(gk_atomic_swap_u64(right, &w64[0], 42, &o64));
    CHECK_EQ_U64(o64, base + 15);
    CHECK_OK(gk_atomic_compare_swap_u64(right, &w64[0], 41, 99, &o64)); /* fails */
    CHECK_EQ_U64(o64, 42);
    CHECK_OK(gk_atomic_compare_swap_u64(right, &w64[0], 42, 99, &o64));
    CHECK_EQ_U64(o64, 42);
    CHECK_OK(gk_atomic_fetch_or_u64(right, &w64[0], 0xf00, &o64));
    CHECK_EQ_U64(o64, 99);
    CHECK_OK(gk_atomic_fetch_and_u64(right, &w64[0], 0xff0, &o64));
    CHECK_EQ_U64(o64, 99 | 0xf00);
    CHECK_OK(gk_atomic_fetch_xor_u64(right, &w64[0], 0x0ff, &o64));
    CHECK_EQ_U64(o64, (99 | 0xf00) & 0xff0);
    CHECK_OK(gk_atomic_or_u64(right, &w64[0], 1ULL << 63));
    CHECK_OK(gk_atomic_and_u64(right, &w64[0], ~1ULL));
    CHECK_OK(gk_atomic_xor_u64(right, &w64[0], 3));
    CHECK_OK(gk_atomic_fetch_u64(right, &w64[0], &o64));
    CHECK_EQ_U64(o64, ((((((99 | 0xf00) & 0xff0) ^ 0x0ff) | 1ULL << 63) & ~1ULL) ^ 3));

    /* 32 bits: its neighbours untouched. */
    CHECK_OK(gk_atomic_set_u32(right, &w32[1], 0xfffffff0u));
    CHECK_OK(gk_atomic_fetch_add_u32(right, &w32[1], 0x20, &o32)); /* wraps */
    CHECK_EQ(o32, 0xfffffff0u);
    CHECK_OK(gk_atomic_compare_swap_u32(right, &w32[1], 0x10, 7, &o32));
    CHECK_EQ(o32, 0x10u);
    CHECK_OK(gk_atomic_swap_u32(right, &w32[1], 0x12345678u, &o32));
    CHECK_EQ(o32, 7u);
    CHECK_OK(gk_atomic_xor_u32(right, &w32[1], 0xffu));
    CHECK_OK(gk_atomic_fetch_u32(right, &w32[1], &o32));
    CHECK_EQ(o32, 0x12345678u ^ 0xffu);
    CHECK_OK(gk_barrier());
    CHECK_EQ(w32[0], 0u);
    CHECK_EQ(w32[2], 0u);

    /* Everybody increments PE 0's counter. */
    const int incs = 500;
    for (int i = 0; i < incs; i++) {
        if (i % 2)
            CHECK_OK(gk_atomic_add_u64(0, counter, 1));
        else
            CHECK_OK(gk_atomic_fetch_add_u64(0, counter, 1, &o64));
    }
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    if (me == 0)
        CHECK_EQ_U64(*counter, (uint64_t)npes * incs);
    CHECK_OK(gk_barrier());
    gk_free(counter);
    gk_free(w32);
    gk_free(w64);
}

static void test_am(void)
{
    /* Short, 0 to 16 arguments, each answered. */
    for (int nargs = 0; nargs <= GK_AM_MAX_ARGS; nargs++) {
        uint64_t args[GK_AM_MAX_ARGS], expect = (uint64_t)nargs;
        for (int i = 0; i < nargs; i++) {
            args[i] = (uint64_t)(me * 100 + i);
            expect += args[i];
        }
        uint64_t before = replies;
        CHECK_OK(gk_am_request_short(right, H_ECHO, args, nargs));
        poll_until(&replies, before + 1);
        CHECK_EQ_U64(last_reply, expect);
    }
    /* Medium, up to the largest payload. */
    size_t max = gk_am_max_medium();
    unsigned char *payload = malloc(max);
    CHECK_NOT_NULL(payload);
    static const size_t sizes[] = {0, 1, 100, 320, 1000};
    for (size_t k = 0; k <= sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = k < sizeof(sizes) / sizeof(sizes[0]) ? sizes[k] : max;
        for (size_t i = 0; i < n; i++)
            payload[i] = pattern(i, me, n);
        uint64_t args[2] = {checksum(payload, n), n};
        CHECK_OK(gk_am_request_medium(right, H_SUM, payload, n, args, 2));
    }
    /* Long, into the neighbour's heap. */
    unsigned char *src = malloc(65536);
    CHECK_NOT_NULL(src);
    for (size_t i = 0; i < 65536; i++)
        src[i] = pattern(i, me, 1);
    uint64_t sum = checksum(src, 65536);
    CHECK_OK(gk_am_request_long(right, H_LONG, long_area, src, 65536, &sum, 1));
    poll_until(&sums_ok, sizeof(sizes) / sizeof(sizes[0]) + 1);
    poll_until(&longs_ok, 1);
    CHECK_OK(gk_barrier());

    /* Order, through a full inbox: we compute while the left neighbour
     * sends. The result does not depend on how long we compute. */
    const uint64_t n_seq = 2000;
    for (uint64_t i = 0; i < n_seq; i++)
        CHECK_OK(gk_am_request_short(right, H_SEQ, &i, 1));
    double until = gk_wtime() + 0.3;
    volatile double x = 1;
    while (gk_wtime() < until)
        x = x * 1.0000001;
    poll_until(&seq_next, n_seq);
    CHECK_EQ_U64(seq_bad, 0);
    CHECK_OK(gk_barrier());
    free(src);
    free(payload);
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    left = (me + npes - 1) % npes;
    right = (me + 1) % npes;
    CHECK_OK(gk_am_register(H_ECHO, h_echo));
    CHECK_OK(gk_am_register(H_REPLY, h_reply));
    CHECK_OK(gk_am_register(H_SUM, h_sum));
    CHECK_OK(gk_am_register(H_LONG, h_long));
    CHECK_OK(gk_am_register(H_SEQ, h_seq));
    unsigned char *buf = gk_malloc(MAX_SIZE);
    uint64_t *flag = gk_calloc(1, sizeof(uint64_t));
    long_area = gk_malloc(65536);
    unsigned char *src = malloc(MAX_SIZE), *dst = malloc(MAX_SIZE);
    CHECK_TRUE(buf != NULL && flag != NULL && long_area != NULL && src != NULL && dst != NULL);
    /* Every other PE through the network: nothing of theirs mapped here. */
    for (int pe = 0; pe < npes; pe++) {
        if (pe == me)
            CHECK_NOT_NULL(gk_ptr(buf, pe));
        else
            CHECK_NULL(gk_ptr(buf, pe));
    }
    CHECK_OK(gk_barrier());
    test_rma(buf, src, dst);
    test_fence(buf, src, flag);
    test_atomics();
    test_am();
    free(dst);
    free(src);
    gk_free(long_area);
    gk_free(flag);
    gk_free(buf);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("ucx_forced_test: %d PEs ok\n", npes);
    return 0;
}

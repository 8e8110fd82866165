/*
 * shmem_ctx_test.c: communication contexts. Creation and destruction
 * (options, SHMEM_CTX_INVALID, the limit on contexts and creating again
 * after it), shmem_ctx_get_team and shmem_team_create_ctx; RMA, AMOs and
 * signaling puts through a context, typed, sized, mem and C11 generic
 * (with and without a context), with every result checked; contexts of
 * split teams and of SHMEM_TEAM_SHARED, whose routines take the team's PE
 * numbers, and which destroying the team destroys; and
 * shmem_ctx_quiet and shmem_ctx_fence ordering a context's puts before a
 * flag. Each PE writes to its right neighbour and reads from its left.
 */
#include <pshmem.h>
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "pe_check.h"
#include "shmem_ring.h"

#define N 32
#define ROUNDS 200


static void test_create_destroy(void)
{
    const long opts[] = {0,
                         SHMEM_CTX_SERIALIZED,
                         SHMEM_CTX_PRIVATE,
                         SHMEM_CTX_NOSTORE,
                         SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        CHECK_EQ(shmem_ctx_create(opts[i], &ctx), 0);
        CHECK_TRUE(ctx != SHMEM_CTX_INVALID);
        CHECK_TRUE(ctx != SHMEM_CTX_DEFAULT);
        shmem_team_t team = SHMEM_TEAM_INVALID;
        CHECK_EQ(shmem_ctx_get_team(ctx, &team), 0);
        CHECK_TRUE(team == SHMEM_TEAM_WORLD);
        shmem_ctx_quiet(ctx);
        shmem_ctx_fence(ctx);
        shmem_ctx_destroy(ctx);
    }
    /* Destroying, quieting and fencing SHMEM_CTX_INVALID do nothing, as
     * the specification says: no message, the job goes on. */
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);

    shmem_team_t team = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team), 0);
    CHECK_TRUE(team == SHMEM_TEAM_WORLD);
    team = SHMEM_TEAM_WORLD;
    CHECK_NE(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team), 0);
    CHECK_TRUE(team == SHMEM_TEAM_INVALID);

    /* A context of the world team. */
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK_EQ(shmem_team_create_ctx(SHMEM_TEAM_WORLD, SHMEM_CTX_PRIVATE, &ctx), 0);
    CHECK_EQ(shmem_ctx_get_team(ctx, &team), 0);
    CHECK_TRUE(team == SHMEM_TEAM_WORLD);
    shmem_ctx_destroy(ctx);
    /* SHMEM_TEAM_INVALID: non-zero and SHMEM_CTX_INVALID, no message. */
    ctx = SHMEM_CTX_DEFAULT;
    gk_capture_begin();
    int status = shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx);
    const char *text = gk_capture_end();
    CHECK_NE(status, 0);
    CHECK_NULL(strstr(text, "] error"));
    CHECK_TRUE(ctx == SHMEM_CTX_INVALID);

    /* Misuse that has a return code: non-zero, one message, no context. */
    ctx = SHMEM_CTX_DEFAULT;
    CHECK_LOGGED(-1, shmem_ctx_create(1L << 20, &ctx), "shmem_ctx_create", "unknown bits");
    CHECK_TRUE(ctx == SHMEM_CTX_INVALID);
    CHECK_LOGGED(-1, shmem_ctx_create(0, NULL), "shmem_ctx_create", "NULL");
    CHECK_LOGGED(-1, shmem_ctx_get_team(SHMEM_CTX_DEFAULT, NULL), "shmem_ctx_get_team");
    /* A handle that is no live team (here a team destroyed already). */
    shmem_team_t gone = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &gone), 0);
    shmem_team_destroy(gone);
    ctx = SHMEM_CTX_DEFAULT;
    CHECK_LOGGED(-1, shmem_team_create_ctx(gone, 0, &ctx), "shmem_team_create_ctx",
                 "not a live team");
    CHECK_TRUE(ctx == SHMEM_CTX_INVALID);
    /* A destroyed context has no team. */
    CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
    shmem_ctx_destroy(ctx);
    CHECK_LOGGED(-1, shmem_ctx_get_team(ctx, &team), "shmem_ctx_get_team",
                 "not a live context");
    CHECK_TRUE(team == SHMEM_TEAM_INVALID);
}

/*
 * A context of a split team (the even PEs, or the odd ones) numbers its
 * target PEs in the team: a put to team PE r + 1 reaches the world PE
 * two to the right, an AMO on team PE 0 counts every member once.
 * Destroying the team destroys the context.
 */
static void test_team_ctx(void)
{
    shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0,
                                      &evens),
             0);
    if (npes > 1)
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odds),
                 0);
    shmem_team_t mine = me % 2 == 0 ? evens : odds;
    CHECK_TRUE(mine != SHMEM_TEAM_INVALID);
    int tme = shmem_team_my_pe(mine), tn = shmem_team_n_pes(mine);
    CHECK_EQ(tme, me / 2);

    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK_EQ(shmem_team_create_ctx(mine, SHMEM_CTX_PRIVATE, &ctx), 0);
    shmem_team_t got = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_ctx_get_team(ctx, &got), 0);
    CHECK_TRUE(got == mine);

    long *slot = shmem_calloc(2, sizeof(long));
    shmem_barrier_all();
    long mark = 1000 + me;
    shmem_ctx_long_put(ctx, slot, &mark, 1, (tme + 1) % tn);
    shmem_ctx_long_atomic_add(ctx, slot + 1, 1, 0);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(mine);
    int tleft = (tme + tn - 1) % tn;
    CHECK_EQ(slot[0], 1000 + shmem_team_translate_pe(mine, tleft, SHMEM_TEAM_WORLD));
    CHECK_EQ(slot[0], 1000 + (me % 2 + 2 * tleft));
    CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, slot + 1, 0), tn);
    CHECK_EQ(shmem_ctx_long_g(ctx, slot, tleft), 1000 + (me % 2 + 2 * ((tleft + tn - 1) % tn)));

    /* The team goes, and its context with it. */
    shmem_barrier_all();
    shmem_team_destroy(evens);
    shmem_team_destroy(odds);
    CHECK_LOGGED(-1, shmem_ctx_get_team(ctx, &got), "shmem_ctx_get_team",
                 "not a live context");

    /* SHMEM_TEAM_SHARED, the PEs this one maps: each adds 1 on its team
     * PE 0, which counts them all. */
    CHECK_EQ(shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &ctx), 0);
    slot[0] = 0;
    shmem_barrier_all();
    shmem_ctx_long_atomic_add(ctx, slot, 1, 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (shmem_team_my_pe(SHMEM_TEAM_SHARED) == 0)
        CHECK_EQ(slot[0], shmem_team_n_pes(SHMEM_TEAM_SHARED));
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_free(slot);
}

/* Contexts until none can be made: then non-zero and SHMEM_CTX_INVALID
 * without an error (an info line at GK_LOG=info), and one can be made again after one is destroyed. */
static void test_limit(void)
{
    enum { MAX = 4096 };
    static shmem_ctx_t ctxs[MAX];
    int n = 0;
    while (n < MAX) {
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
        gk_capture_begin();
        int status = shmem_ctx_create(0, &ctx);
        const char *text = gk_capture_end();
        CHECK_NULL(strstr(text, "] error"));
        CHECK_NULL(strstr(text, "] warn"));
        if (status != 0) {
            CHECK_TRUE(ctx == SHMEM_CTX_INVALID);
            break;
        }
        ctxs[n++] = ctx;
    }
    CHECK_GT(n, 64);
    CHECK_LT(n, MAX);
    shmem_ctx_destroy(ctxs[n / 2]);
    CHECK_EQ(shmem_ctx_create(0, &ctxs[n / 2]), 0);
    /* Distinct handles, all usable. */
    for (int i = 0; i < n; i++) {
        CHECK_TRUE(ctxs[i] != SHMEM_CTX_INVALID);
        shmem_ctx_quiet(ctxs[i]);
    }
    for (int i = 0; i < n; i++)
        shmem_ctx_destroy(ctxs[i]);
}

/* The value PE p puts as element i of type kind k. */
#define VAL(p, i, k) ((p) * 1000 + (i) * 3 + (k))

/* Every RMA form of one type through ctx. */
#define TEST_CTX_TYPE(ctx, T, NAME, K)                                         \
    do {                                                                       \
        T *dst = shmem_calloc(4 * N, sizeof(T));                               \
        T *src = shmem_malloc(N * sizeof(T));                                  \
        T loc[3 * N];                                                          \
        for (int i = 0; i < N; i++)                                            \
            src[i] = (T)VAL(me, i, K);                                         \
        shmem_barrier_all();                                                   \
        shmem_ctx_##NAME##_put(ctx, dst, src, N, right);                       \
        shmem_ctx_##NAME##_put_nbi(ctx, dst + N, src, N, right);               \
        shmem_ctx_##NAME##_p(ctx, dst + 2 * N, (T)VAL(me, 7, K), right);       \
        shmem_ctx_##NAME##_iput(ctx, dst + 3 * N, src, 2, 3, N / 4, right);    \
        shmem_ctx_quiet(ctx);                                                  \
        shmem_barrier_all();                                                   \
        for (int i = 0; i < N; i++) {                                          \
            CHECK_TRUE(dst[i] == (T)VAL(left, i, K));                          \
            CHECK_TRUE(dst[N + i] == (T)VAL(left, i, K));                      \
        }                                                                      \
        CHECK_TRUE(dst[2 * N] == (T)VAL(left, 7, K));                          \
        for (int i = 0; i < N / 4; i++)                                        \
            CHECK_TRUE(dst[3 * N + 2 * i] == (T)VAL(left, 3 * i, K));          \
        memset(loc, 0, sizeof(loc));                                           \
        shmem_ctx_##NAME##_get(ctx, loc, src, N, left);                        \
        shmem_ctx_##NAME##_get_nbi(ctx, loc + N, src, N, left);                \
        shmem_ctx_quiet(ctx);                                                  \
        shmem_ctx_##NAME##_iget(ctx, loc + 2 * N, src, 3, 2, N / 4, left);     \
        for (int i = 0; i < N; i++) {                                          \
            CHECK_TRUE(loc[i] == (T)VAL(left, i, K));                          \
            CHECK_TRUE(loc[N + i] == (T)VAL(left, i, K));                      \
        }                                                                      \
        for (int i = 0; i < N / 4; i++)                                        \
            CHECK_TRUE(loc[2 * N + 3 * i] == (T)VAL(left, 2 * i, K));          \
        CHECK_TRUE(shmem_ctx_##NAME##_g(ctx, src + 5, left) == (T)VAL(left, 5, K)); \
        shmem_barrier_all();                                                   \
        shmem_free(src);                                                       \
        shmem_free(dst);                                                       \
    } while (0)

static void test_rma(shmem_ctx_t ctx)
{
    TEST_CTX_TYPE(ctx, char, char, 1);
    TEST_CTX_TYPE(ctx, short, short, 2);
    TEST_CTX_TYPE(ctx, int, int, 3);
    TEST_CTX_TYPE(ctx, long, long, 4);
    TEST_CTX_TYPE(ctx, double, double, 5);
    TEST_CTX_TYPE(ctx, long double, longdouble, 6);
    TEST_CTX_TYPE(ctx, uint64_t, uint64, 7);

    /* The sized and mem forms. */
    uint64_t *dst = shmem_calloc(8 * N, sizeof(uint64_t));
    uint64_t *src = shmem_malloc(2 * N * sizeof(uint64_t));
    for (int i = 0; i < 2 * N; i++)
        src[i] = (uint64_t)VAL(me, i, 0);
    shmem_barrier_all();
    shmem_ctx_put64(ctx, dst, src, N, right);
    shmem_ctx_put32_nbi(ctx, dst + N, src, 2 * N, right);
    shmem_ctx_put128(ctx, dst + 2 * N, src, N / 2, right);
    shmem_ctx_putmem(ctx, dst + 3 * N, src, N * sizeof(uint64_t), right);
    shmem_ctx_putmem_nbi(ctx, dst + 4 * N, src, N * sizeof(uint64_t), right);
    shmem_ctx_iput64(ctx, dst + 5 * N, src, 2, 1, N / 2, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int b = 0; b < 5; b++)
        for (int i = 0; i < N; i++)
            CHECK_EQ_U64(dst[b * N + i], (uint64_t)VAL(left, i, 0));
    for (int i = 0; i < N / 2; i++)
        CHECK_EQ_U64(dst[5 * N + 2 * i], (uint64_t)VAL(left, i, 0));
    uint64_t loc[4 * N];
    memset(loc, 0, sizeof(loc));
    shmem_ctx_get64(ctx, loc, src, N, left);
    shmem_ctx_getmem_nbi(ctx, loc + N, src, N * sizeof(uint64_t), left);
    shmem_ctx_get16_nbi(ctx, loc + 2 * N, src, 4 * N, left);
    shmem_ctx_quiet(ctx);
    shmem_ctx_iget64(ctx, loc + 3 * N, src, 1, 2, N / 2, left);
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < N; i++)
            CHECK_EQ_U64(loc[b * N + i], (uint64_t)VAL(left, i, 0));
    for (int i = 0; i < N / 2; i++)
        CHECK_EQ_U64(loc[3 * N + i], (uint64_t)VAL(left, 2 * i, 0));
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
}

/* Every AMO through ctx: PE p's neighbour sees each operation once. */
static void test_amo(shmem_ctx_t ctx)
{
    long *l = shmem_calloc(4, sizeof(long));
    unsigned int *u = shmem_calloc(4, sizeof(unsigned int));
    double *d = shmem_calloc(2, sizeof(double));
    shmem_barrier_all();
    CHECK_EQ(shmem_ctx_long_atomic_fetch_add(ctx, &l[0], 5, right), 0);
    shmem_ctx_long_atomic_add(ctx, &l[0], 2, right);
    shmem_ctx_long_atomic_inc(ctx, &l[0], right);
    CHECK_EQ(shmem_ctx_long_atomic_fetch_inc(ctx, &l[0], right), 8);
    CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, &l[0], right), 9);
    CHECK_EQ(shmem_ctx_long_atomic_compare_swap(ctx, &l[0], 9, 100, right), 9);
    CHECK_EQ(shmem_ctx_long_atomic_compare_swap(ctx, &l[0], 9, 200, right), 100);
    CHECK_EQ(shmem_ctx_long_atomic_swap(ctx, &l[0], 300, right), 100);
    shmem_ctx_long_atomic_set(ctx, &l[1], -7, right);
    long f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0;
    shmem_ctx_long_atomic_fetch_nbi(ctx, &f1, &l[0], right);
    shmem_ctx_long_atomic_swap_nbi(ctx, &f2, &l[0], 400, right);
    shmem_ctx_long_atomic_compare_swap_nbi(ctx, &f3, &l[0], 400, 500, right);
    shmem_ctx_long_atomic_fetch_inc_nbi(ctx, &f4, &l[0], right);
    shmem_ctx_long_atomic_fetch_add_nbi(ctx, &f5, &l[0], 10, right);
    shmem_ctx_quiet(ctx);
    CHECK_EQ(f1, 300);
    CHECK_EQ(f2, 300);
    CHECK_EQ(f3, 400);
    CHECK_EQ(f4, 500);
    CHECK_EQ(f5, 501);
    CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, &l[1], right), -7);

    /* Bitwise. */
    shmem_ctx_uint_atomic_or(ctx, &u[0], 0xf0u, right);
    shmem_ctx_uint_atomic_and(ctx, &u[0], 0x30u, right);
    shmem_ctx_uint_atomic_xor(ctx, &u[0], 0x01u, right);
    CHECK_EQ(shmem_ctx_uint_atomic_fetch_or(ctx, &u[0], 0x100u, right), 0x31u);
    CHECK_EQ(shmem_ctx_uint_atomic_fetch_and(ctx, &u[0], 0x1f0u, right), 0x131u);
    CHECK_EQ(shmem_ctx_uint_atomic_fetch_xor(ctx, &u[0], 0x3u, right), 0x130u);
    unsigned int g1 = 0, g2 = 0, g3 = 0;
    shmem_ctx_uint_atomic_fetch_or_nbi(ctx, &g1, &u[0], 0x8u, right);
    shmem_ctx_uint_atomic_fetch_and_nbi(ctx, &g2, &u[0], 0xfu, right);
    shmem_ctx_uint_atomic_fetch_xor_nbi(ctx, &g3, &u[0], 0xfu, right);
    shmem_ctx_quiet(ctx);
    CHECK_EQ(g1, 0x133u);
    CHECK_EQ(g2, 0x13bu);
    CHECK_EQ(g3, 0xbu);

    /* Extended types. */
    shmem_ctx_double_atomic_set(ctx, &d[0], 2.5, right);
    CHECK_TRUE(shmem_ctx_double_atomic_swap(ctx, &d[0], -1.25, right) == 2.5);
    CHECK_TRUE(shmem_ctx_double_atomic_fetch(ctx, &d[0], right) == -1.25);
    double df = 0;
    shmem_ctx_double_atomic_fetch_nbi(ctx, &df, &d[0], right);
    shmem_ctx_quiet(ctx);
    CHECK_TRUE(df == -1.25);

    shmem_barrier_all();
    CHECK_EQ(l[0], 511);
    CHECK_EQ(l[1], -7);
    CHECK_EQ(u[0], 0x4u);
    CHECK_TRUE(d[0] == -1.25);
    shmem_barrier_all();
    shmem_free(d);
    shmem_free(u);
    shmem_free(l);
}

/* Signaling puts through ctx: typed, sized and mem, blocking and _nbi. */
static void test_signal(shmem_ctx_t ctx)
{
    long *data = shmem_calloc(4 * N, sizeof(long));
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
    long src[N];
    for (int i = 0; i < N; i++)
        src[i] = VAL(me, i, 0);
    shmem_barrier_all();
    shmem_ctx_long_put_signal(ctx, data, src, N, &sig[0], 7, SHMEM_SIGNAL_SET, right);
    shmem_ctx_long_put_signal_nbi(ctx, data + N, src, N, &sig[1], 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_put64_signal(ctx, data + 2 * N, src, N, &sig[2], 3, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_putmem_signal_nbi(ctx, data + 3 * N, src, N * sizeof(long), &sig[3], 9,
                                SHMEM_SIGNAL_SET, right);
    shmem_ctx_quiet(ctx);
    CHECK_EQ_U64(shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 7), 7);
    CHECK_EQ_U64(shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, 1), 1);
    CHECK_EQ_U64(shmem_signal_wait_until(&sig[2], SHMEM_CMP_EQ, 3), 3);
    CHECK_EQ_U64(shmem_signal_wait_until(&sig[3], SHMEM_CMP_EQ, 9), 9);
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < N; i++)
            CHECK_EQ(data[b * N + i], VAL(left, i, 0));
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(data);
}

/*
 * A context's quiet (and fence) orders its puts before a flag: each
 * round, data goes to the right neighbour on `data_ctx` (non-blocking),
 * then shmem_ctx_quiet(data_ctx), then the flag on another context; the
 * neighbour waits for the flag and must see the round's data. A second
 * pass puts data and flag on one context with shmem_ctx_fence between.
 */
static void test_quiet_flag(shmem_ctx_t data_ctx, shmem_ctx_t flag_ctx)
{
    long *data = shmem_calloc(N, sizeof(long));
    long *flag = shmem_calloc(1, sizeof(long));
    long *ack = shmem_calloc(1, sizeof(long));
    long src[N];
    shmem_barrier_all();
    for (long r = 1; r <= 2 * ROUNDS; r++) {
        int fenced = r > ROUNDS;
        for (int i = 0; i < N; i++)
            src[i] = r * 100000 + me * 100 + i;
        shmem_ctx_long_put_nbi(data_ctx, data, src, N, right);
        if (fenced) {
            shmem_ctx_fence(data_ctx);
            shmem_ctx_long_p(data_ctx, flag, r, right);
        } else {
            shmem_ctx_quiet(data_ctx);
            shmem_ctx_long_p(flag_ctx, flag, r, right);
        }
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, r);
        for (int i = 0; i < N; i++)
            CHECK_EQ(data[i], r * 100000 + left * 100 + i);
        /* The left neighbour may overwrite data only after this check. */
        shmem_ctx_long_p(flag_ctx, ack, r, left);
        shmem_long_wait_until(ack, SHMEM_CMP_EQ, r);
        /* src is reused next round: the nbi put must be complete. */
        shmem_ctx_quiet(data_ctx);
    }
    shmem_barrier_all();
    shmem_free(ack);
    shmem_free(flag);
    shmem_free(data);
}

/* The C11 generic names, with and without a context. */
static void test_generic(shmem_ctx_t ctx)
{
    long *l = shmem_calloc(2 * N, sizeof(long));
    int *iv = shmem_calloc(N, sizeof(int));
    unsigned long *ul = shmem_calloc(1, sizeof(unsigned long));
    float *fl = shmem_calloc(1, sizeof(float));
    uint64_t *sig = shmem_calloc(2, sizeof(uint64_t));
    long src[N];
    for (int i = 0; i < N; i++)
        src[i] = VAL(me, i, 1);
    shmem_barrier_all();
    shmem_put(ctx, l, src, N, right);
    shmem_put(l + N, src, N, right);
    shmem_p(ctx, iv, me + 1, right);
    shmem_p(SHMEM_CTX_DEFAULT, iv + 1, me + 2, right);
    shmem_p(iv + 2, me + 3, right);
    const int spread[5] = {5, 0, 6, 0, 7};
    shmem_iput(ctx, iv + 4, spread, 1, 2, 3, right);
    shmem_atomic_add(ctx, ul, 3UL, right);
    shmem_atomic_add(ul, 4UL, right);
    shmem_atomic_set(ctx, fl, 1.5f, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK_EQ(l[i], VAL(left, i, 1));
        CHECK_EQ(l[N + i], VAL(left, i, 1));
    }
    CHECK_EQ(iv[0], left + 1);
    CHECK_EQ(iv[1], left + 2);
    CHECK_EQ(iv[2], left + 3);
    CHECK_EQ(iv[4], 5);
    CHECK_EQ(iv[5], 6);
    CHECK_EQ(iv[6], 7);
    CHECK_EQ(*ul, 7UL);
    CHECK_TRUE(*fl == 1.5f);
    /* The left neighbour's words were written by its own left neighbour. */
    CHECK_EQ(shmem_g(ctx, &l[3], left), VAL((left + npes - 1) % npes, 3, 1));
    CHECK_EQ(shmem_g(&iv[0], left), (left + npes - 1) % npes + 1);
    long loc[N];
    memset(loc, 0, sizeof(loc));
    shmem_get(ctx, loc, l, N, me);
    shmem_get_nbi(SHMEM_CTX_DEFAULT, loc, l, 1, me);
    shmem_quiet();
    CHECK_EQ(loc[N - 1], VAL(left, N - 1, 1));
    int ig[3] = {0, 0, 0};
    shmem_iget(ctx, ig, iv + 4, 1, 1, 3, me);
    CHECK_EQ(ig[0], 5);
    CHECK_EQ(ig[1], 6);
    CHECK_EQ(ig[2], 7);
    CHECK_EQ(shmem_atomic_fetch(ctx, ul, me), 7UL);
    CHECK_EQ(shmem_atomic_fetch_add(ctx, ul, 1UL, me), 7UL);
    CHECK_EQ(shmem_atomic_fetch_inc(ul, me), 8UL);
    CHECK_EQ(shmem_atomic_compare_swap(ctx, ul, 9UL, 20UL, me), 9UL);
    CHECK_EQ(shmem_atomic_swap(ctx, ul, 21UL, me), 20UL);
    CHECK_EQ(shmem_atomic_fetch_xor(ctx, ul, 1UL, me), 21UL);
    unsigned long uf = 0;
    shmem_atomic_fetch_nbi(ctx, &uf, ul, me);
    shmem_ctx_quiet(ctx);
    CHECK_EQ(uf, 20UL);
    shmem_atomic_fetch_add_nbi(ctx, &uf, ul, 2UL, me);
    shmem_ctx_quiet(ctx);
    CHECK_EQ(uf, 20UL);
    shmem_atomic_fetch_or_nbi(&uf, ul, 1UL, me);
    shmem_quiet();
    CHECK_EQ(uf, 22UL);
    CHECK_TRUE(shmem_atomic_fetch(ctx, fl, me) == 1.5f);
    shmem_barrier_all();
    shmem_put_signal(ctx, l, src, 2, &sig[0], 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(l + 2, src + 2, 2, &sig[1], 5, SHMEM_SIGNAL_SET, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK_EQ_U64(shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 1), 1);
    CHECK_EQ_U64(shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, 5), 5);
    CHECK_EQ(l[3], VAL(left, 3, 1));
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(fl);
    shmem_free(ul);
    shmem_free(iv);
    shmem_free(l);
}

int main(void)
{
    shmem_init();
    shmem_ring_init();

    test_create_destroy();
    test_limit();
    test_team_ctx();

    shmem_ctx_t ctx = SHMEM_CTX_INVALID, ctx2 = SHMEM_CTX_INVALID;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &ctx), 0);
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx2), 0);
    test_rma(ctx);
    test_rma(SHMEM_CTX_DEFAULT);
    test_amo(ctx2);
    test_amo(SHMEM_CTX_DEFAULT);
    test_signal(ctx);
    test_quiet_flag(ctx, ctx2);
    test_quiet_flag(ctx2, SHMEM_CTX_DEFAULT);
    test_generic(ctx);
    /* The profiling names exist for the context forms. */
    long *x = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();
    pshmem_ctx_long_atomic_add(ctx, x, 1, right);
    pshmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK_EQ(*x, 1);
    shmem_free(x);
    shmem_ctx_destroy(ctx2);
    shmem_ctx_destroy(ctx);
    /* A context left alive is freed by shmem_finalize(). */
    CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
    shmem_finalize();
    return 0;
}

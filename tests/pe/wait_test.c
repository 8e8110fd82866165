/*
 * wait_test: gk_wait_until_T and gk_test_T for i32, u32, i64 and u64 and
 * each of the six comparisons, woken by a peer's value put, bulk put +
 * quiet, atomic set/swap or compare-and-swap; then producer/consumer chains
 * around the ring.
 *
 * Each wait really blocks: the waiter tells its left neighbour it is about
 * to wait, and only then does the neighbour write (see announce_wait). Before the real
 * update, the waker writes a decoy: a value that does not satisfy the comparison, but
 * would if the comparison were done with the wrong signedness or the wrong operator; the
 * waiter must sleep through it and see the update when it returns. gk_test_T says 0
 * before and 1 after.
 *
 * Every wait is timed: with GK_SPIN_COUNT=0 GK_YIELD_COUNT=0 GK_SLEEP_MS=4000
 * (the "sleeping" variant in CMakeLists.txt) every wait sleeps at once and
 * a lost wake-up would cost 4 s, so any wait over 2 s fails the test.
 */
#include <limits.h>
#include <stdlib.h>

#include "pe_turns.h"

enum wake { WAKE_VALUE_PUT, WAKE_PUT_QUIET, WAKE_SWAP, WAKE_CSWAP, WAKES };
static const gk_cmp_t cmps[6] = {GK_CMP_EQ, GK_CMP_NE, GK_CMP_GT,
                                 GK_CMP_GE, GK_CMP_LT, GK_CMP_LE};
static const char *const cmp_name[6] = {"EQ", "NE", "GT", "GE", "LT", "LE"};

/* Value puts by width, with the bits of a signed or unsigned value. */
static int put_value(int pe, void *dst, uint64_t bits, size_t width)
{
    return width == 4 ? gk_put_u32(pe, dst, (uint32_t)bits) : gk_put_u64(pe, dst, bits);
}

/*
 * init: fails the comparison, and is its boundary where there is one (equal
 * to the target for GT, LT and NE, one off for GE and LE), so a wait that
 * confuses > with >= returns at once with the wrong value; target: the
 * comparison's operand; decoy: a later value that still fails, but would
 * pass with the wrong signedness where one exists; update: satisfies it.
 */
struct wait_case {
    uint64_t init, target, decoy, update;
};

#define WAIT_TEST(T, ctype, utype, is_signed)                                            \
    /* Waits on my copy of `word` and checks what woke it. */                            \
    static void wait_one_##T(ctype *word, const struct wait_case *k, int c, int how)     \
    {                                                                                    \
        ctype target = (ctype)(utype)k->target;                                          \
        double t0 = pe_now();                                                            \
        CHECK_OK(gk_wait_until_##T(word, cmps[c], target));                              \
        note_wait(t0, #T);                                                               \
        if ((utype) * word != (utype)k->update)                                          \
            PE_FAIL(#T " %s (wake-up %d): woke with %llu, expected %llu", cmp_name[c],   \
                    how, (unsigned long long)(utype) * word,                             \
                    (unsigned long long)(utype)k->update);                               \
        int ok = -1;                                                                     \
        CHECK_OK(gk_test_##T(word, cmps[c], target, &ok));                               \
        CHECK_EQ(ok, 1);                                                                 \
    }                                                                                    \
    /* Writes the decoy, then the update, into the right neighbour's word. */            \
    static void wake_one_##T(ctype *word, const struct wait_case *k, int how)            \
    {                                                                                    \
        ctype decoy = (ctype)(utype)k->decoy;                                            \
        ctype update = (ctype)(utype)k->update;                                          \
        ctype old = (ctype)0;                                                            \
        switch ((enum wake)how) {                                                        \
        case WAKE_VALUE_PUT:                                                             \
            CHECK_OK(put_value(right, word, (uint64_t)(utype)decoy, sizeof(ctype)));     \
            CHECK_OK(put_value(right, word, (uint64_t)(utype)update, sizeof(ctype)));    \
            break;                                                                       \
        case WAKE_PUT_QUIET:                                                             \
            CHECK_OK(gk_put(right, word, &decoy, sizeof(ctype)));                        \
            CHECK_OK(gk_quiet());                                                        \
            CHECK_OK(gk_put(right, word, &update, sizeof(ctype)));                       \
            CHECK_OK(gk_quiet());                                                        \
            break;                                                                       \
        case WAKE_SWAP:                                                                  \
            CHECK_OK(gk_atomic_set_##T(right, word, decoy));                             \
            CHECK_OK(gk_atomic_swap_##T(right, word, update, &old));                     \
            CHECK_EQ(old, decoy);                                                        \
            break;                                                                       \
        default:                                                                         \
            CHECK_OK(gk_atomic_swap_##T(right, word, decoy, &old));                      \
            CHECK_EQ(old, (ctype)(utype)k->init);                                        \
            CHECK_OK(gk_atomic_compare_swap_##T(right, word, decoy, update, &old));      \
            CHECK_EQ(old, decoy);                                                        \
            break;                                                                       \
        }                                                                                \
    }                                                                                    \
    static void test_##T(void)                                                           \
    {                                                                                    \
        const utype H = (utype)1 << (8 * sizeof(ctype) - 1); /* sign bit */              \
        const utype MAX = (utype) - 1;                                                   \
        const ctype SMIN = (ctype)H;                                                     \
        struct wait_case cases[6];                                                       \
        if (is_signed) {                                                                 \
            cases[0] = (struct wait_case){(utype)(ctype)10, (utype)(ctype) - 5,          \
                                          (utype)(ctype) - 4, (utype)(ctype) - 5};       \
            cases[1] = (struct wait_case){(utype)(ctype) - 7, (utype)(ctype) - 7,        \
                                          (utype)(ctype) - 7, (utype)(ctype)7};          \
            cases[2] = (struct wait_case){(utype)(ctype)5, (utype)(ctype)5,              \
                                          (utype)(ctype) - 1, (utype)(ctype)6};          \
            cases[3] = (struct wait_case){(utype)(ctype)1, (utype)(ctype)2,              \
                                          (utype)(ctype) - 1, (utype)(ctype)2};          \
            cases[4] = (struct wait_case){(utype)(ctype)0, (utype)(ctype)0,              \
                                          (utype)(ctype)1, (utype)(ctype) - 1};          \
            cases[5] = (struct wait_case){(utype)(ctype)0, (utype)(ctype) - 1,           \
                                          (utype)(ctype)0, (utype)SMIN};                 \
        } else {                                                                         \
            cases[0] = (struct wait_case){10, H + 5, H + 4, H + 5};                      \
            cases[1] = (struct wait_case){H, H, H, H + 1};                               \
            cases[2] = (struct wait_case){H, H, H - 1, MAX - 15};                        \
            cases[3] = (struct wait_case){H - 1, H, 5, H};                               \
            cases[4] = (struct wait_case){H, H, H + 1, H - 1};                           \
            cases[5] = (struct wait_case){H + 17, H + 16, MAX, H + 16};                  \
        }                                                                                \
        /* One word per (comparison, kind of wake-up), on a line of its own              \
         * (8 words apart), so the waits do not see each other's writes. */              \
        enum { N = 6 * WAKES, STRIDE = 64 / sizeof(ctype) };                             \
        ctype *w = gk_calloc(N * STRIDE, sizeof(ctype));                                 \
        CHECK_NOT_NULL(w);                                                               \
        for (int i = 0; i < N; i++) {                                                    \
            const struct wait_case *k = &cases[i % 6];                                   \
            w[i * STRIDE] = (ctype)(utype)k->init;                                       \
            int ok = -1;                                                                 \
            CHECK_OK(                                                                    \
                gk_test_##T(&w[i * STRIDE], cmps[i % 6], (ctype)(utype)k->target, &ok)); \
            if (ok != 0)                                                                 \
                PE_FAIL(#T " %s: gk_test_" #T " says 1 before any update",               \
                        cmp_name[i % 6]);                                                \
        }                                                                                \
        CHECK_OK(gk_barrier());                                                          \
        /* Each word in turn, in up to three phases (see phase_of): the                  \
         * waiters of a phase announce that they are about to wait, then wait;           \
         * their left neighbours see the announcement, then wake them. */                \
        for (int i = 0; i < N; i++) {                                                    \
            if (npes == 1) {                                                             \
                wake_one_##T(&w[i * STRIDE], &cases[i % 6], i / 6);                      \
                wait_one_##T(&w[i * STRIDE], &cases[i % 6], i % 6, i / 6);               \
                continue;                                                                \
            }                                                                            \
            for (int phase = 0; phase < 3; phase++) {                                    \
                if (phase_of(me) == phase) {                                             \
                    announce_wait();                                                     \
                    wait_one_##T(&w[i * STRIDE], &cases[i % 6], i % 6, i / 6);           \
                } else if (phase_of(right) == phase) {                                   \
                    await_announcement();                                                \
                    wake_one_##T(&w[i * STRIDE], &cases[i % 6], i / 6);                  \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        CHECK_OK(gk_barrier());                                                          \
        gk_free(w);                                                                      \
    }

WAIT_TEST(i32, int32_t, uint32_t, 1)
WAIT_TEST(u32, uint32_t, uint32_t, 0)
WAIT_TEST(i64, int64_t, uint64_t, 1)
WAIT_TEST(u64, uint64_t, uint64_t, 0)

/*
 * gk_test_T against C's own comparison, for every comparison, at and
 * around interesting values (zero, the sign bit, the extremes) on both
 * sides, so each operator's boundary and each type's signedness is pinned.
 */
#define TRUTH_TABLE(T, ctype, utype)                                                     \
    static void truth_##T(void)                                                          \
    {                                                                                    \
        const utype H = (utype)1 << (8 * sizeof(ctype) - 1);                             \
        const utype points[] = {0, 1,     2,           H - 2,      H - 1,                \
                                H, H + 1, (utype) - 2, (utype) - 1};                     \
        const int np = (int)(sizeof(points) / sizeof(points[0]));                        \
        ctype *word = gk_calloc(1, sizeof(ctype));                                       \
        CHECK_NOT_NULL(word);                                                            \
        for (int a = 0; a < np; a++) {                                                   \
            *word = (ctype)points[a];                                                    \
            for (int b = 0; b < np; b++) {                                               \
                ctype x = (ctype)points[a], y = (ctype)points[b];                        \
                const int expect[6] = {x == y, x != y, x > y, x >= y, x < y, x <= y};    \
                for (int c = 0; c < 6; c++) {                                            \
                    int ok = -1;                                                         \
                    CHECK_OK(gk_test_##T(word, cmps[c], y, &ok));                        \
                    if (ok != expect[c])                                                 \
                        PE_FAIL("gk_test_" #T "(%lld %s %lld) says %d", (long long)x,    \
                                cmp_name[c], (long long)y, ok);                          \
                    if (expect[c]) /* satisfied: returns at once */                      \
                        CHECK_OK(gk_wait_until_##T(word, cmps[c], y));                   \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        CHECK_OK(gk_barrier());                                                          \
        gk_free(word);                                                                   \
    }

TRUTH_TABLE(i32, int32_t, uint32_t)
TRUTH_TABLE(u32, uint32_t, uint32_t)
TRUTH_TABLE(i64, int64_t, uint64_t)
TRUTH_TABLE(u64, uint64_t, uint64_t)

/* A satisfied wait returns at once; signedness as the type says. */
static void test_immediate(void)
{
    int64_t *s = gk_calloc(2, sizeof(int64_t));
    int32_t *s32 = gk_calloc(2, sizeof(int32_t));
    CHECK_TRUE(s && s32);
    *s = -1;
    *s32 = -1;
    int ok = -1;
    CHECK_OK(gk_wait_until_i64(s, GK_CMP_LT, 0));
    CHECK_OK(gk_wait_until_u64((uint64_t *)s, GK_CMP_GT, 0));
    CHECK_OK(gk_wait_until_i32(s32, GK_CMP_LE, -1));
    CHECK_OK(gk_wait_until_u32((uint32_t *)s32, GK_CMP_EQ, UINT32_MAX));
    CHECK_OK(gk_test_i64(s, GK_CMP_LT, 0, &ok));
    CHECK_EQ(ok, 1);
    CHECK_OK(gk_test_u64((uint64_t *)s, GK_CMP_LT, 0, &ok));
    CHECK_EQ(ok, 0);
    CHECK_OK(gk_test_i32(s32, GK_CMP_GE, 0, &ok));
    CHECK_EQ(ok, 0);
    CHECK_OK(gk_test_u32((uint32_t *)s32, GK_CMP_GE, 0, &ok));
    CHECK_EQ(ok, 1);
    CHECK_OK(gk_barrier());
    gk_free(s32);
    gk_free(s);
}

/* A token passed around the ring LAPS times, by value puts and atomics. */
static void test_token_ring(void)
{
    enum { LAPS = 500 };
    uint64_t *token = gk_calloc(1, sizeof(uint64_t));
    CHECK_NOT_NULL(token);
    double t0 = pe_now();
    for (uint64_t lap = 0; lap < LAPS; lap++) {
        uint64_t base = lap * (uint64_t)npes;
        if (me == 0)
            CHECK_OK(gk_put_u64(right, token, base + 1));
        uint64_t want = me == 0 ? base + (uint64_t)npes : base + (uint64_t)me;
        double w0 = pe_now();
        CHECK_OK(gk_wait_until_u64(token, GK_CMP_GE, want));
        note_wait(w0, "token ring");
        CHECK_EQ(*token, want);
        if (me != 0) {
            /* My right neighbour's token holds what I gave it last lap. */
            if (lap & 1)
                CHECK_OK(gk_atomic_add_u64(right, token, (uint64_t)npes));
            else
                CHECK_OK(gk_atomic_set_u64(right, token, want + 1));
        }
    }
    double took = pe_now() - t0;
    if (me == 0)
        PE_LOG("token ring: %d laps of %d PEs in %.3f s (%.1f us per hop)", LAPS, npes,
               took, 1e6 * took / LAPS / npes);
    CHECK_OK(gk_barrier());
    gk_free(token);
}

/*
 * A pipeline around the ring: every PE produces ITEMS items into a ring
 * buffer of SLOTS slots on its right neighbour and consumes the items its
 * left neighbour produces into its own buffer. Producers wait for free
 * slots (credits), consumers for full ones: at 8 PEs on 2 cores this only
 * runs well if waiting PEs give their core away.
 */
static void test_pipeline(void)
{
    enum { ITEMS = 3000, SLOTS = 4, WORDS = 8 };
    uint64_t *slot_data = gk_calloc(SLOTS * WORDS, sizeof(uint64_t));
    uint64_t *slot_seq = gk_calloc(SLOTS * 8, sizeof(uint64_t)); /* a line each */
    uint64_t *consumed = gk_calloc(1, sizeof(uint64_t)); /* by my right neighbour */
    CHECK_TRUE(slot_data && slot_seq && consumed);
    double t0 = pe_now();
    for (uint64_t n = 0; n < ITEMS; n++) {
        int s = (int)(n % SLOTS);
        /* Produce item n for the right neighbour once slot s is free. */
        if (n >= SLOTS) {
            double w0 = pe_now();
            CHECK_OK(gk_wait_until_u64(consumed, GK_CMP_GE, n - SLOTS + 1));
            note_wait(w0, "producer");
        }
        uint64_t item[WORDS];
        for (int i = 0; i < WORDS; i++)
            item[i] = n * 1000 + (uint64_t)me * 10 + (uint64_t)i;
        CHECK_OK(gk_put_nbi(right, &slot_data[s * WORDS], item, sizeof(item)));
        CHECK_OK(gk_fence());
        CHECK_OK(gk_put_u64(right, &slot_seq[s * 8], n + 1));
        /* Consume item n from the left neighbour. */
        double w0 = pe_now();
        CHECK_OK(gk_wait_until_u64(&slot_seq[s * 8], GK_CMP_EQ, n + 1));
        note_wait(w0, "consumer");
        for (int i = 0; i < WORDS; i++)
            if (slot_data[s * WORDS + i] != n * 1000 + (uint64_t)left * 10 + (uint64_t)i)
                PE_FAIL("item %llu from PE %d: word %d is %llu", (unsigned long long)n,
                        left, i, (unsigned long long)slot_data[s * WORDS + i]);
        CHECK_OK(gk_put_u64(left, consumed, n + 1));
    }
    CHECK_OK(gk_quiet());
    double took = pe_now() - t0;
    if (me == 0)
        PE_LOG("pipeline: %d items per PE through %d slots in %.3f s (%.1f us per item)",
               ITEMS, SLOTS, took, 1e6 * took / ITEMS);
    CHECK_OK(gk_barrier());
    gk_free(consumed);
    gk_free(slot_seq);
    gk_free(slot_data);
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    ready = gk_calloc(1, sizeof(uint64_t));
    CHECK_NOT_NULL(ready);
    double t0 = pe_now();
    test_i32();
    test_u32();
    test_i64();
    test_u64();
    if (me == 0)
        PE_LOG("waits, 4 types x 6 comparisons x 4 wake-ups: %.3f s", pe_now() - t0);
    truth_i32();
    truth_u32();
    truth_i64();
    truth_u64();
    test_immediate();
    test_token_ring();
    test_pipeline();
    if (me == 0)
        PE_LOG("longest wait: %.3f s", longest_wait);
    CHECK_EQ(*ready, awaited);
    gk_free(ready);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("wait_test: %d PEs ok\n", npes);
    return 0;
}

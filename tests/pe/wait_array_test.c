/*
 * wait_array_test: gk_wait_until_{all,any,some}_T and gk_test_{all,any,some}_T
 * for i32, u32, i64 and u64, and gk_wtime.
 *
 * Each PE waits on an array of its own words that its left neighbour
 * writes (value puts and atomics), in the phases of wait_test.c so that a
 * wait really blocks: the waiter announces it is about to wait, and only
 * then does the neighbour write. Before the words that satisfy the wait,
 * the writer sets decoys: a word left out by `status` to a value that
 * satisfies the comparison (the wait must ignore it), and a word left in
 * to one that would satisfy it with the wrong signedness. Two
 * comparisons per type (GE and LT, across the sign bit).
 *
 *   any   one word left in is set: the index returned is that word's;
 *   some  two words are set: the wait returns some of them, in order,
 *         and a test afterwards (once both are seen) returns both;
 *   all   every word left in is set, one at a time in reverse order, with
 *         decoys between; after the wait every one holds, and the words
 *         left out still hold their first value.
 *
 * Also: n == 0 (NULL ivars), every word left out, status NULL, and the
 * errors (misaligned, outside the heap, bad comparison, NULL outputs, a
 * count that overflows). Every wait is timed: with GK_SPIN_COUNT=0
 * GK_YIELD_COUNT=0 GK_SLEEP_MS=4000 (the sleeping variant) a lost wake-up
 * would cost 4 s, and a wait over 2 s fails the test.
 */
#include <stdlib.h>

#include "pe_turns.h"

#define N_WORDS 6
static const int left_out[N_WORDS] = {0, 1, 0, 0, 1, 0};
static const size_t in_words[] = {0, 2, 3, 5};
#define N_IN 4

enum kind { ANY, SOME, ALL, KINDS };

/*
 * A comparison case: words start at init; target is the operand; decoy
 * fails the comparison but would pass it with the wrong signedness;
 * update passes it.
 */
struct array_case {
    gk_cmp_t cmp;
    uint64_t init, target, decoy, update;
};

#define ARRAY_TEST(T, ctype, utype, is_signed)                                           \
    static void put_##T(ctype *word, uint64_t bits, int atomic)                          \
    {                                                                                    \
        if (atomic)                                                                      \
            CHECK_OK(gk_atomic_set_##T(right, word, (ctype)(utype)bits));                \
        else if (sizeof(ctype) == 4)                                                     \
            CHECK_OK(gk_put_u32(right, (uint32_t *)word, (uint32_t)bits));               \
        else                                                                             \
            CHECK_OK(gk_put_u64(right, (uint64_t *)word, (uint64_t)bits));               \
    }                                                                                    \
    /* The writer's side of one round: writes into the right neighbour's words. */      \
    static void write_##T(ctype *w, const struct array_case *k, enum kind kind, int round) \
    {                                                                                    \
        int atomic = round % 2;                                                          \
        size_t a = in_words[round % N_IN], b = in_words[(round + 1) % N_IN];             \
        put_##T(&w[1], k->update, atomic); /* left out: must not count */                \
        switch (kind) {                                                                  \
        case ANY:                                                                        \
            put_##T(&w[in_words[(round + 2) % N_IN]], k->decoy, atomic);                 \
            put_##T(&w[a], k->update, atomic);                                           \
            break;                                                                       \
        case SOME:                                                                       \
            put_##T(&w[in_words[(round + 2) % N_IN]], k->decoy, atomic);                 \
            put_##T(&w[a], k->update, atomic);                                           \
            put_##T(&w[b], k->update, atomic);                                           \
            break;                                                                       \
        default:                                                                         \
            for (int j = N_IN - 1; j >= 0; j--) {                                        \
                put_##T(&w[in_words[j]], k->update, atomic);                             \
                if (j > 0)                                                               \
                    put_##T(&w[in_words[j - 1]], k->decoy, atomic);                      \
            }                                                                            \
            break;                                                                       \
        }                                                                                \
    }                                                                                    \
    /* The waiter's side: waits on my words and checks what woke it. */                  \
    static void wait_##T(ctype *w, const struct array_case *k, enum kind kind, int round) \
    {                                                                                    \
        ctype target = (ctype)(utype)k->target, update = (ctype)(utype)k->update;        \
        size_t a = in_words[round % N_IN], b = in_words[(round + 1) % N_IN];             \
        double t0 = gk_wtime();                                                          \
        size_t index = 99, indices[N_WORDS], count = 99;                                 \
        int all = -1;                                                                    \
        switch (kind) {                                                                  \
        case ANY:                                                                        \
            CHECK_OK(gk_wait_until_any_##T(w, N_WORDS, left_out, k->cmp, target, &index)); \
            note_wait(t0, "wait_until_any_" #T);                                         \
            CHECK_EQ(index, a);                                                          \
            CHECK_EQ((utype)w[a], (utype)update);                                        \
            CHECK_OK(gk_test_any_##T(w, N_WORDS, left_out, k->cmp, target, &index));     \
            CHECK_EQ(index, a);                                                          \
            break;                                                                       \
        case SOME:                                                                       \
            CHECK_OK(gk_wait_until_some_##T(w, N_WORDS, left_out, k->cmp, target,        \
                                            indices, &count));                           \
            note_wait(t0, "wait_until_some_" #T);                                        \
            CHECK_GE(count, 1);                                                          \
            CHECK_LE(count, 2);                                                          \
            for (size_t i = 0; i < count; i++) {                                         \
                CHECK_TRUE(indices[i] == a || indices[i] == b);                          \
                CHECK_EQ((utype)w[indices[i]], (utype)update);                           \
                if (i > 0)                                                               \
                    CHECK_LT(indices[i - 1], indices[i]);                                \
            }                                                                            \
            { /* both, then a test sees both */                                          \
                int only[N_WORDS] = {1, 1, 1, 1, 1, 1};                                  \
                only[a] = only[b] = 0;                                                   \
                CHECK_OK(gk_wait_until_all_##T(w, N_WORDS, only, k->cmp, target));       \
                CHECK_OK(gk_test_some_##T(w, N_WORDS, left_out, k->cmp, target, indices, \
                                          &count));                                      \
                CHECK_EQ(count, 2);                                                      \
                CHECK_EQ(indices[0], a < b ? a : b);                                     \
                CHECK_EQ(indices[1], a < b ? b : a);                                     \
            }                                                                            \
            break;                                                                       \
        default:                                                                         \
            CHECK_OK(gk_wait_until_all_##T(w, N_WORDS, left_out, k->cmp, target));       \
            note_wait(t0, "wait_until_all_" #T);                                         \
            for (size_t j = 0; j < N_IN; j++)                                            \
                CHECK_EQ((utype)w[in_words[j]], (utype)update);                          \
            CHECK_EQ((utype)w[4], (utype)k->init); /* left out, never written */         \
            CHECK_OK(gk_test_all_##T(w, N_WORDS, left_out, k->cmp, target, &all));       \
            CHECK_EQ(all, 1);                                                            \
            break;                                                                       \
        }                                                                                \
    }                                                                                    \
    static void test_##T(void)                                                           \
    {                                                                                    \
        const utype H = (utype)1 << (8 * sizeof(ctype) - 1); /* the sign bit */          \
        struct array_case cases[2];                                                      \
        if (is_signed) {                                                                 \
            cases[0] = (struct array_case){GK_CMP_GE, 1, 2, (utype)(ctype) - 1, 2};      \
            cases[1] = (struct array_case){GK_CMP_LT, 0, 0, 1, (utype)(ctype) - 1};      \
        } else {                                                                         \
            cases[0] = (struct array_case){GK_CMP_GE, H - 1, H, 5, H};                   \
            cases[1] = (struct array_case){GK_CMP_LT, H, H, H + 1, H - 1};               \
        }                                                                                \
        ctype *w = gk_calloc(N_WORDS, sizeof(ctype));                                    \
        CHECK_NOT_NULL(w);                                                               \
        for (int c = 0; c < 2; c++) {                                                    \
            const struct array_case *k = &cases[c];                                      \
            for (int round = 0; round < KINDS * N_IN; round++) {                         \
                enum kind kind = (enum kind)(round % KINDS);                             \
                for (int i = 0; i < N_WORDS; i++) /* mine, before I announce */          \
                    w[i] = (ctype)(utype)k->init;                                        \
                size_t index = 0, count = 9, indices[N_WORDS];                           \
                int all = -1;                                                            \
                CHECK_OK(gk_test_any_##T(w, N_WORDS, NULL, k->cmp, (ctype)(utype)k->target, \
                                         &index));                                       \
                CHECK_EQ(index, SIZE_MAX);                                               \
                CHECK_OK(gk_test_some_##T(w, N_WORDS, NULL, k->cmp,                      \
                                          (ctype)(utype)k->target, indices, &count));    \
                CHECK_EQ(count, 0);                                                      \
                CHECK_OK(gk_test_all_##T(w, N_WORDS, NULL, k->cmp, (ctype)(utype)k->target, \
                                         &all));                                         \
                CHECK_EQ(all, 0);                                                        \
                CHECK_OK(gk_barrier());                                                  \
                if (npes == 1) {                                                         \
                    write_##T(w, k, kind, round);                                        \
                    wait_##T(w, k, kind, round);                                         \
                    continue;                                                            \
                }                                                                        \
                for (int phase = 0; phase < 3; phase++) {                                \
                    if (phase_of(me) == phase) {                                         \
                        announce_wait();                                                 \
                        wait_##T(w, k, kind, round);                                     \
                    } else if (phase_of(right) == phase) {                               \
                        await_announcement();                                            \
                        write_##T(w, k, kind, round);                                    \
                    }                                                                    \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        CHECK_OK(gk_barrier());                                                          \
        /* Nothing to wait for: return at once. */                                       \
        size_t index = 0, count = 9, indices[N_WORDS];                                   \
        int none[N_WORDS] = {1, 1, 1, 1, 1, 1}, all = -1;                                \
        CHECK_OK(gk_wait_until_all_##T(NULL, 0, NULL, GK_CMP_EQ, 1));                    \
        CHECK_OK(gk_wait_until_any_##T(NULL, 0, NULL, GK_CMP_EQ, 1, &index));            \
        CHECK_EQ(index, SIZE_MAX);                                                       \
        CHECK_OK(gk_wait_until_some_##T(NULL, 0, NULL, GK_CMP_EQ, 1, NULL, &count));     \
        CHECK_EQ(count, 0);                                                              \
        CHECK_OK(gk_test_all_##T(NULL, 0, NULL, GK_CMP_EQ, 1, &all));                    \
        CHECK_EQ(all, 1);                                                                \
        index = 0;                                                                       \
        CHECK_OK(gk_wait_until_any_##T(w, N_WORDS, none, GK_CMP_NE, w[0], &index));      \
        CHECK_EQ(index, SIZE_MAX);                                                       \
        count = 9;                                                                       \
        CHECK_OK(gk_wait_until_some_##T(w, N_WORDS, none, GK_CMP_NE, w[0], indices, &count)); \
        CHECK_EQ(count, 0);                                                              \
        CHECK_OK(gk_wait_until_all_##T(w, N_WORDS, none, GK_CMP_NE, w[0]));              \
        all = -1;                                                                        \
        CHECK_OK(gk_test_all_##T(w, N_WORDS, none, GK_CMP_NE, w[0], &all));              \
        CHECK_EQ(all, 1);                                                                \
        /* status NULL: every word counts. */                                            \
        w[4] = (ctype)(w[4] + 1);                                                        \
        CHECK_OK(gk_wait_until_any_##T(w, N_WORDS, NULL, GK_CMP_NE, w[0], &index));      \
        CHECK_EQ(index, 4);                                                              \
        CHECK_OK(gk_wait_until_some_##T(w, N_WORDS, NULL, GK_CMP_NE, w[0], indices, &count)); \
        CHECK_EQ(count, 1);                                                              \
        CHECK_EQ(indices[0], 4);                                                         \
        CHECK_OK(gk_barrier());                                                          \
        gk_free(w);                                                                      \
    }

ARRAY_TEST(i32, int32_t, uint32_t, 1)
ARRAY_TEST(u32, uint32_t, uint32_t, 0)
ARRAY_TEST(i64, int64_t, uint64_t, 1)
ARRAY_TEST(u64, uint64_t, uint64_t, 0)

static void test_errors(void)
{
    uint64_t *w = gk_calloc(8, sizeof(uint64_t));
    CHECK_NOT_NULL(w);
    uint64_t outside[2] = {0, 0};
    size_t index = 7, indices[8], count = 7;
    int satisfied = 7;
    uint32_t *odd = (uint32_t *)((char *)w + 2);
    CHECK_LOGGED(GK_ERR_ALIGN, gk_wait_until_any_u32(odd, 2, NULL, GK_CMP_EQ, 0, &index),
                 "gk_wait_until_any_u32", "not aligned to 4 bytes");
    CHECK_LOGGED(GK_ERR_RANGE, gk_wait_until_all_u64(outside, 2, NULL, GK_CMP_EQ, 0),
                 "gk_wait_until_all_u64", "out of bounds", "16 bytes");
    CHECK_LOGGED(GK_ERR_RANGE, gk_test_some_i64((int64_t *)w, (size_t)1 << 40, NULL,
                                                GK_CMP_EQ, 0, indices, &count),
                 "gk_test_some_i64", "out of bounds");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_test_any_u64(w, SIZE_MAX / 4, NULL, GK_CMP_EQ, 0, &index),
                 "gk_test_any_u64", "overflows");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_wait_until_some_i32((int32_t *)w, 4, NULL, (gk_cmp_t)6, 0, indices, &count),
                 "gk_wait_until_some_i32", "comparison 6");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_wait_until_any_u64(w, 8, NULL, GK_CMP_EQ, 0, NULL),
                 "gk_wait_until_any_u64", "index_p is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_wait_until_some_u64(w, 8, NULL, GK_CMP_EQ, 0, NULL, &count),
                 "gk_wait_until_some_u64", "indices is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_test_some_u64(w, 8, NULL, GK_CMP_EQ, 0, indices, NULL), "gk_test_some_u64",
                 "count_p is NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_test_all_i64((int64_t *)w, 8, NULL, GK_CMP_EQ, 0, NULL),
                 "gk_test_all_i64", "satisfied_p is NULL");
    /* Outputs untouched by the failures. */
    CHECK_EQ(index, 7);
    CHECK_EQ(count, 7);
    CHECK_EQ(satisfied, 7);
    gk_free(w);
}

/* The clock: monotonic, in seconds, the CLOCK_MONOTONIC of everyone else. */
static void test_wtime(void)
{
    double a = gk_wtime(), now = pe_now(), b = gk_wtime();
    CHECK_TRUE(a > 0);
    CHECK_TRUE(b >= a);
    CHECK_TRUE(now >= a - 1e-6 && now <= b + 1e-6);
    double prev = gk_wtime();
    for (int i = 0; i < 100000; i++) {
        double t = gk_wtime();
        if (t < prev)
            PE_FAIL("gk_wtime went back from %.9f to %.9f", prev, t);
        prev = t;
    }
    /* A sleep of 20 ms reads as about that. */
    struct timespec nap = {0, 20 * 1000 * 1000};
    double t0 = gk_wtime();
    nanosleep(&nap, NULL);
    double slept = gk_wtime() - t0;
    if (slept < 0.019 || slept > 2.0)
        PE_FAIL("a 20 ms sleep read as %.6f s", slept);
}

int main(void)
{
    test_wtime(); /* before gk_init too */
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    ready = gk_calloc(1, sizeof(uint64_t));
    CHECK_NOT_NULL(ready);
    test_i32();
    test_u32();
    test_i64();
    test_u64();
    test_errors();
    test_wtime();
    CHECK_OK(gk_barrier());
    gk_free(ready);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * atomic_test: every atomic operation on i32, u32, i64 and u64, from every
 * PE at once, results checked on every PE.
 *
 *  - fetch_add / add: all PEs add to PE 0's counter many times; the total
 *    is exact, and the old values fetch_add returned are all distinct (each
 *    PE marks its olds in a bitmap on PE 0 with fetch_or and must find the
 *    bit clear: two PEs seeing the same old value means a lost update).
 *  - compare_swap: all PEs increment one counter by CAS loops (failures
 *    return the current value, which is not the expected one); the total is
 *    exact. A failing CAS leaves the word alone.
 *  - swap: every PE swaps its number into one word; the old values and the
 *    final value are exactly {initial, 0 .. n-1}.
 *  - and/or/xor, fetching and not: each PE sets, flips and clears its own
 *    bit of shared words concurrently; the final masks are exact and each
 *    fetched old value shows the PE's own bit as it must be.
 *  - fetch / set to every PE; unsigned wrap-around, signed negative values
 *    and signed overflow (arithmetic wraps); and the words next to a 32-bit
 *    atomic are never touched.
 *
 *   atomic_test [ADDS]   ADDS: adds per PE (default 90000)
 */
#include <limits.h>
#include <stdlib.h>

#include "pe_args.h"
#include "pe_check.h"

/* Per PE: adds to one counter, and compare_swap increments (a ninth of
 * that). Enough that the PEs' loops overlap in time even when 8 PEs share
 * 2 cores (a lost update needs two PEs in the loop at once). Across hosts,
 * where every one of them is a network round trip, the loops overlap with
 * far fewer, and the test's argument sets fewer. */
static int n_adds = 90000;
static int n_cas = 10000;

static int me, npes;

/* Each PE's bit: spread over the word so high bits are exercised. */
static unsigned bit_of(int pe, unsigned width)
{
    return width == 32 ? (unsigned)(pe * 3 + 1) % 32 : (unsigned)(pe * 7 + 5) % 64;
}

/* The bitmap of seen old values lives on PE 0: n_pes * n_adds bits. */
static uint64_t *seen_bits;

static void mark_seen(uint64_t old, const char *type)
{
    uint64_t total = (uint64_t)npes * n_adds;
    if (old >= total)
        PE_FAIL("%s fetch_add returned %llu, more than the %llu adds so far", type,
                (unsigned long long)old, (unsigned long long)total);
    uint64_t before = 0;
    CHECK_OK(gk_atomic_fetch_or_u64(0, &seen_bits[old / 64], (uint64_t)1 << (old % 64),
                                    &before));
    if (before & ((uint64_t)1 << (old % 64)))
        PE_FAIL("%s fetch_add returned %llu twice (a lost update)", type,
                (unsigned long long)old);
}

#define ATOMIC_TEST(T, ctype, utype, is_signed)                                          \
    static void test_##T(void)                                                           \
    {                                                                                    \
        const unsigned width = 8 * sizeof(ctype);                                        \
        /* w[0] counter, w[1] cas counter, w[2] or/and mask, w[3] xor mask,              \
         * w[4] swap word, w[8 ...] per-PE words (guarded). */                           \
        ctype *w = gk_calloc(8 + 4 * (size_t)npes, sizeof(ctype));                       \
        ctype *olds = gk_calloc((size_t)npes, sizeof(ctype));                            \
        CHECK_TRUE(w != NULL && olds != NULL);                                           \
        memset(seen_bits, 0, ((size_t)npes * n_adds + 63) / 64 * 8);                     \
        w[4] = (ctype)(is_signed ? -1 : 1000);                                           \
        CHECK_OK(gk_barrier());                                                          \
                                                                                         \
        /* fetch_add and add, concurrently, to PE 0. */                                  \
        for (int i = 0; i < n_adds; i++) {                                               \
            ctype old = (ctype)0;                                                        \
            if (i % 3 == 2) {                                                            \
                CHECK_OK(gk_atomic_add_##T(0, &w[0], (ctype)1));                         \
                continue;                                                                \
            }                                                                            \
            CHECK_OK(gk_atomic_fetch_add_##T(0, &w[0], (ctype)1, &old));                 \
            mark_seen((uint64_t)(utype)old, #T);                                         \
        }                                                                                \
        /* compare_swap increments of PE 0's w[1]. */                                    \
        for (int i = 0; i < n_cas; i++) {                                                \
            ctype cur = (ctype)0, old = (ctype)0;                                        \
            CHECK_OK(gk_atomic_fetch_##T(0, &w[1], &cur));                               \
            for (;;) {                                                                   \
                CHECK_OK(                                                                \
                    gk_atomic_compare_swap_##T(0, &w[1], cur, (ctype)(cur + 1), &old));  \
                if (old == cur)                                                          \
                    break;                                                               \
                cur = old; /* failed: old is the value that was there */                 \
            }                                                                            \
        }                                                                                \
        /* swap my number into PE 0's w[4]. */                                           \
        ctype prev = (ctype)0;                                                           \
        CHECK_OK(gk_atomic_swap_##T(0, &w[4], (ctype)me, &prev));                        \
        CHECK_OK(gk_put(0, &olds[me], &prev, sizeof(prev)));                             \
        /* or and xor: my bit, once with the fetching form, once without. */             \
        ctype bit = (ctype)((utype)1 << bit_of(me, width));                              \
        ctype before = (ctype)0;                                                         \
        CHECK_OK(gk_atomic_fetch_or_##T(0, &w[2], bit, &before));                        \
        CHECK_EQ((utype)before & (utype)bit, 0);                                         \
        CHECK_OK(gk_atomic_or_##T(0, &w[2], bit)); /* idempotent */                      \
        CHECK_OK(gk_atomic_fetch_xor_##T(0, &w[3], bit, &before));                       \
        CHECK_EQ((utype)before & (utype)bit, 0);                                         \
        CHECK_OK(gk_atomic_xor_##T(0, &w[3], bit));                                      \
        CHECK_OK(gk_atomic_xor_##T(0, &w[3], bit)); /* set again */                      \
        CHECK_OK(gk_barrier());                                                          \
                                                                                         \
        utype all = 0;                                                                   \
        for (int pe = 0; pe < npes; pe++)                                                \
            all |= (utype)1 << bit_of(pe, width);                                        \
        if (me == 0) {                                                                   \
            CHECK_EQ(w[0], (ctype)((utype)npes * n_adds));                               \
            CHECK_EQ(w[1], (ctype)((utype)npes * n_cas));                                \
            CHECK_EQ((utype)w[2], all);                                                  \
            CHECK_EQ((utype)w[3], all);                                                  \
            /* swap: olds and the final value are {initial, 0..n-1}. */                  \
            int count[65] = {0};                                                         \
            ctype init = (ctype)(is_signed ? -1 : 1000);                                 \
            for (int pe = 0; pe <= npes; pe++) {                                         \
                ctype x = pe < npes ? olds[pe] : w[4];                                   \
                int idx = x == init ? npes : (int)x;                                     \
                if (idx < 0 || idx > npes)                                               \
                    PE_FAIL(#T " swap produced %lld", (long long)x);                     \
                count[idx]++;                                                            \
            }                                                                            \
            for (int i = 0; i <= npes; i++)                                              \
                if (count[i] != 1)                                                       \
                    PE_FAIL(#T " swap: value %d seen %d times", i, count[i]);            \
        }                                                                                \
        CHECK_OK(gk_barrier());                                                          \
                                                                                         \
        /* and: everyone clears their bit of w[2], half with fetch_and. */               \
        ctype mask = (ctype) ~(utype)bit;                                                \
        if (me & 1) {                                                                    \
            CHECK_OK(gk_atomic_and_##T(0, &w[2], mask));                                 \
        } else {                                                                         \
            CHECK_OK(gk_atomic_fetch_and_##T(0, &w[2], mask, &before));                  \
            CHECK_EQ((utype)before & (utype)bit, (utype)bit);                            \
        }                                                                                \
        /* xor: clear my bit of w[3] again. */                                           \
        CHECK_OK(gk_atomic_fetch_xor_##T(0, &w[3], bit, &before));                       \
        CHECK_EQ((utype)before & (utype)bit, (utype)bit);                                \
        CHECK_OK(gk_barrier());                                                          \
        if (me == 0) {                                                                   \
            CHECK_EQ(w[2], 0);                                                           \
            CHECK_EQ(w[3], 0);                                                           \
        }                                                                                \
        CHECK_OK(gk_barrier());                                                          \
                                                                                         \
        /* Each PE works on its own word (w[8 + 4 * me + 1]) on every PE;                \
         * the words beside it are guards. */                                            \
        for (int step = 0; step < npes; step++) {                                        \
            int pe = (me + step) % npes;                                                 \
            ctype *mine = &w[8 + 4 * me + 1];                                            \
            ctype v = (ctype)0, old = (ctype)0;                                          \
            CHECK_OK(gk_atomic_set_##T(pe, mine, (ctype) - 5));                          \
            CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                                 \
            CHECK_EQ(v, (ctype) - 5);                                                    \
            CHECK_OK(gk_atomic_swap_##T(pe, mine, (ctype)42, &old));                     \
            CHECK_EQ(old, (ctype) - 5);                                                  \
            /* compare_swap that fails: the word stays. */                               \
            CHECK_OK(gk_atomic_compare_swap_##T(pe, mine, (ctype)41, (ctype)7, &old));   \
            CHECK_EQ(old, (ctype)42);                                                    \
            CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                                 \
            CHECK_EQ(v, (ctype)42);                                                      \
            /* ... and one that succeeds. */                                             \
            CHECK_OK(gk_atomic_compare_swap_##T(pe, mine, (ctype)42, (ctype)7, &old));   \
            CHECK_EQ(old, (ctype)42);                                                    \
            CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                                 \
            CHECK_EQ(v, (ctype)7);                                                       \
            if (is_signed) {                                                             \
                /* Negative operands, negative results, overflow wraps. */               \
                CHECK_OK(gk_atomic_fetch_add_##T(pe, mine, (ctype) - 10, &old));         \
                CHECK_EQ(old, (ctype)7);                                                 \
                CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                             \
                CHECK_EQ(v, (ctype) - 3);                                                \
                CHECK_OK(gk_atomic_compare_swap_##T(pe, mine, (ctype) - 3,               \
                                                    (ctype) - 100, &old));               \
                CHECK_EQ(old, (ctype) - 3);                                              \
                CHECK_OK(gk_atomic_add_##T(pe, mine, (ctype) - 1));                      \
                CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                             \
                CHECK_EQ(v, (ctype) - 101);                                              \
                ctype max = (ctype)((utype) - 1 >> 1), min = (ctype)(-max - 1);          \
                CHECK_OK(gk_atomic_set_##T(pe, mine, max));                              \
                CHECK_OK(gk_atomic_fetch_add_##T(pe, mine, (ctype)1, &old));             \
                CHECK_EQ(old, max);                                                      \
                CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                             \
                CHECK_EQ(v, min);                                                        \
                CHECK_OK(gk_atomic_xor_##T(pe, mine, (ctype) - 1));                      \
                CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                             \
                CHECK_EQ(v, max);                                                        \
            } else {                                                                     \
                /* Wrap-around both ways. */                                             \
                CHECK_OK(gk_atomic_set_##T(pe, mine, (ctype)((utype)0 - 1)));            \
                CHECK_OK(gk_atomic_fetch_add_##T(pe, mine, (ctype)2, &old));             \
                CHECK_EQ(old, (ctype)((utype)0 - 1));                                    \
                CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                             \
                CHECK_EQ(v, 1);                                                          \
                CHECK_OK(gk_atomic_add_##T(pe, mine, (ctype)((utype)0 - 3)));            \
                CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                             \
                CHECK_EQ(v, (ctype)((utype)0 - 2));                                      \
                CHECK_OK(gk_atomic_fetch_and_##T(pe, mine, (ctype)0xf0, &old));          \
                CHECK_EQ(old, (ctype)((utype)0 - 2));                                    \
                CHECK_OK(gk_atomic_fetch_or_##T(pe, mine, (ctype)0x0f, &old));           \
                CHECK_EQ(old, (ctype)0xf0);                                              \
                CHECK_OK(gk_atomic_fetch_##T(pe, mine, &v));                             \
                CHECK_EQ(v, (ctype)0xff);                                                \
            }                                                                            \
        }                                                                                \
        CHECK_OK(gk_barrier());                                                          \
        /* The guards beside every PE's word were never touched. */                      \
        for (int pe = 0; pe < npes; pe++) {                                              \
            CHECK_EQ(w[8 + 4 * pe], 0);                                                  \
            CHECK_EQ(w[8 + 4 * pe + 2], 0);                                              \
        }                                                                                \
        CHECK_OK(gk_barrier());                                                          \
        gk_free(olds);                                                                   \
        gk_free(w);                                                                      \
    }

ATOMIC_TEST(i32, int32_t, uint32_t, 1)
ATOMIC_TEST(u32, uint32_t, uint32_t, 0)
ATOMIC_TEST(i64, int64_t, uint64_t, 1)
ATOMIC_TEST(u64, uint64_t, uint64_t, 0)

/* The fetch_add old values, all PEs together: exactly the 2/3 of 0..total-1
 * that were fetched, none twice (checked as they were marked). */
static void check_seen_count(void)
{
    CHECK_OK(gk_barrier());
    if (me == 0) {
        uint64_t total = (uint64_t)npes * n_adds, marked = 0;
        for (uint64_t i = 0; i < (total + 63) / 64; i++)
            marked += (uint64_t)__builtin_popcountll(seen_bits[i]);
        CHECK_EQ(marked, (uint64_t)npes * (n_adds - n_adds / 3));
    }
    CHECK_OK(gk_barrier());
}

int main(int argc, char **argv)
{
    n_adds = (int)pe_count_arg(argc, argv, "ADDS", "adds per PE", n_adds, 9, 1000000);
    n_cas = n_adds / 9;
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    seen_bits = gk_calloc(((size_t)npes * n_adds + 63) / 64, sizeof(uint64_t));
    CHECK_NOT_NULL(seen_bits);
    double t0 = pe_now();
    test_i32();
    check_seen_count();
    test_u32();
    check_seen_count();
    test_i64();
    check_seen_count();
    test_u64();
    check_seen_count();
    if (me == 0)
        PE_LOG("atomics: %.3f s", pe_now() - t0);
    gk_free(seen_bits);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("atomic_test: %d PEs ok\n", npes);
    return 0;
}

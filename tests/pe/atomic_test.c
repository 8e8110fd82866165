/*
 * atomic_test: every atomic operation on i32, u32, i64 and u64: concurrent
 * adds from all PEs to PE 0's counter, concurrent or/xor/and of each PE's
 * own bit, fetch, set, swap, compare-and-swap that succeeds and one that
 * fails, unsigned wrap-around and negative signed values.
 */
#include "pe_check.h"

#define ROUNDS 2000

#define ATOMIC_CHECKS(T, ctype)                                                \
    do {                                                                       \
        ctype *w = gk_calloc(8, sizeof(ctype));                                \
        ctype old = 0, v = 0;                                                  \
        /* add / fetch_add: everyone adds to PE 0. */                          \
        for (int i = 0; i < ROUNDS; i++) {                                     \
            if (i & 1)                                                         \
                CHECK_OK(gk_atomic_add_##T(0, &w[0], (ctype)1));               \
            else                                                               \
                CHECK_OK(gk_atomic_fetch_add_##T(0, &w[0], (ctype)1, &old));   \
        }                                                                      \
        /* or/xor/and on PE 0's words, one bit per PE (<= 31 PEs). */          \
        if (me < 31) {                                                         \
            ctype bit = (ctype)((ctype)1 << me);                               \
            if (me & 1)                                                        \
                CHECK_OK(gk_atomic_or_##T(0, &w[1], bit));                     \
            else                                                               \
                CHECK_OK(gk_atomic_fetch_or_##T(0, &w[1], bit, &old));         \
            if (me & 1)                                                        \
                CHECK_OK(gk_atomic_xor_##T(0, &w[2], bit));                    \
            else                                                               \
                CHECK_OK(gk_atomic_fetch_xor_##T(0, &w[2], bit, &old));        \
        }                                                                      \
        CHECK_OK(gk_barrier());                                                \
        if (me < 31) {                                                         \
            ctype mask = (ctype)~((ctype)1 << me);                             \
            if (me & 1)                                                        \
                CHECK_OK(gk_atomic_and_##T(0, &w[1], mask));                   \
            else                                                               \
                CHECK_OK(gk_atomic_fetch_and_##T(0, &w[1], mask, &old));       \
        }                                                                      \
        CHECK_OK(gk_barrier());                                                \
        if (me == 0) {                                                         \
            CHECK_EQ_U64(w[0], (ctype)(npes * ROUNDS));                        \
            ctype all = npes >= 31 ? (ctype)0x7fffffff : (ctype)((1u << npes) - 1); \
            CHECK_EQ_U64(w[2], all);                                           \
            CHECK_EQ_U64(w[1], 0);                                             \
        }                                                                      \
        CHECK_OK(gk_barrier());                                                \
        /* Each PE on its right neighbour's w[3 + 0..]: set, fetch, swap, cswap. */ \
        int right = (me + 1) % npes;                                           \
        CHECK_OK(gk_atomic_set_##T(right, &w[3], (ctype)-5));                  \
        CHECK_OK(gk_atomic_fetch_##T(right, &w[3], &v));                       \
        CHECK_EQ_U64(v, (ctype)-5);                                            \
        CHECK_OK(gk_atomic_swap_##T(right, &w[3], (ctype)42, &old));           \
        CHECK_EQ_U64(old, (ctype)-5);                                          \
        CHECK_OK(gk_atomic_compare_swap_##T(right, &w[3], (ctype)41, (ctype)7, &old)); \
        CHECK_EQ_U64(old, 42); /* failed: value stays */                       \
        CHECK_OK(gk_atomic_compare_swap_##T(right, &w[3], (ctype)42, (ctype)7, &old)); \
        CHECK_EQ_U64(old, 42);                                                 \
        CHECK_OK(gk_atomic_fetch_##T(right, &w[3], &v));                       \
        CHECK_EQ_U64(v, 7);                                                    \
        /* Wrap-around and negatives. */                                       \
        CHECK_OK(gk_atomic_set_##T(right, &w[4], (ctype)((ctype)0 - 1)));      \
        CHECK_OK(gk_atomic_fetch_add_##T(right, &w[4], (ctype)2, &old));       \
        CHECK_EQ_U64(old, (ctype)((ctype)0 - 1));                              \
        CHECK_OK(gk_atomic_fetch_##T(right, &w[4], &v));                       \
        CHECK_EQ_U64(v, 1);                                                    \
        CHECK_OK(gk_atomic_add_##T(right, &w[5], (ctype)-3));                  \
        CHECK_OK(gk_atomic_fetch_##T(right, &w[5], &v));                       \
        CHECK_TRUE(v == (ctype)-3);                                            \
        CHECK_OK(gk_barrier());                                                \
        gk_free(w);                                                            \
    } while (0)

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    ATOMIC_CHECKS(i32, int32_t);
    ATOMIC_CHECKS(u32, uint32_t);
    ATOMIC_CHECKS(i64, int64_t);
    ATOMIC_CHECKS(u64, uint64_t);
    CHECK_OK(gk_finalize());
    return 0;
}

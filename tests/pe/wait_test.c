/*
 * wait_test: gk_wait_until and gk_test for every type and every
 * comparison, woken by a neighbour's value put or atomic; then a token
 * passed many times around the ring (at 8 PEs on 2 cores this is the
 * oversubscribed path: waits must yield and sleep, not spin).
 */
#include "pe_check.h"

#define WAIT_CHECKS(T, ctype)                                                  \
    do {                                                                       \
        ctype *w = gk_calloc(6, sizeof(ctype));                                \
        /* For each comparison, a target value that the initial 10 fails   \
         * and the neighbour's update satisfies. */                            \
        const gk_cmp_t cmps[6] = {GK_CMP_EQ, GK_CMP_NE, GK_CMP_GT,             \
                                  GK_CMP_GE, GK_CMP_LT, GK_CMP_LE};            \
        const ctype target[6] = {20, 10, 15, 20, 5, 0};                        \
        const ctype update[6] = {20, 11, 16, 20, 4, 0};                        \
        for (int c = 0; c < 6; c++)                                            \
            w[c] = 10;                                                         \
        CHECK_OK(gk_barrier());                                                \
        for (int c = 0; c < 6; c++) {                                          \
            int ok = -1;                                                       \
            CHECK_OK(gk_test_##T(&w[c], cmps[c], target[c], &ok));             \
            CHECK_EQ_U64(ok, 0);                                               \
        }                                                                      \
        CHECK_OK(gk_barrier());                                                \
        for (int c = 0; c < 6; c++) {                                          \
            if (c & 1)                                                         \
                CHECK_OK(gk_atomic_set_##T(right, &w[c], update[c]));          \
            else                                                               \
                CHECK_OK(gk_put(right, &w[c], &update[c], sizeof(ctype)));     \
        }                                                                      \
        for (int c = 0; c < 6; c++) {                                          \
            int ok = -1;                                                       \
            CHECK_OK(gk_wait_until_##T(&w[c], cmps[c], target[c]));           \
            CHECK_OK(gk_test_##T(&w[c], cmps[c], target[c], &ok));             \
            CHECK_EQ_U64(ok, 1);                                               \
        }                                                                      \
        CHECK_OK(gk_barrier());                                                \
        gk_free(w);                                                            \
    } while (0)

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int right = (me + 1) % npes;
    WAIT_CHECKS(i32, int32_t);
    WAIT_CHECKS(u32, uint32_t);
    WAIT_CHECKS(i64, int64_t);
    WAIT_CHECKS(u64, uint64_t);

    /* Signed comparison: -1 < 0 for i64, but not for u64. */
    int64_t *s = gk_calloc(1, sizeof(int64_t));
    *s = -1;
    int ok = 0;
    CHECK_OK(gk_test_i64(s, GK_CMP_LT, 0, &ok));
    CHECK_EQ_U64(ok, 1);
    CHECK_OK(gk_test_u64((uint64_t *)s, GK_CMP_LT, 0, &ok));
    CHECK_EQ_U64(ok, 0);
    CHECK_OK(gk_barrier());
    gk_free(s);

    /* The token goes around the ring LAPS times. */
    enum { LAPS = 300 };
    uint64_t *token = gk_calloc(1, sizeof(uint64_t));
    for (uint64_t lap = 0; lap < LAPS; lap++) {
        uint64_t base = lap * (uint64_t)npes;
        if (me == 0) {
            CHECK_OK(gk_put_u64(right, token, base + 1));
            CHECK_OK(gk_wait_until_u64(token, GK_CMP_GE, base + (uint64_t)npes));
        } else {
            CHECK_OK(gk_wait_until_u64(token, GK_CMP_GE, base + (uint64_t)me));
            CHECK_OK(gk_atomic_set_u64(right, token, base + (uint64_t)me + 1));
        }
    }
    if (me == 0)
        CHECK_EQ_U64(*token, (uint64_t)LAPS * (uint64_t)npes);
    CHECK_OK(gk_barrier());
    gk_free(token);
    CHECK_OK(gk_finalize());
    return 0;
}

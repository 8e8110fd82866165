/*
 * shmem_amo_lock_test.c: each AMO on a few types (every PE on PE 0's words, so
 * the totals say that they were atomic), the _nbi fetching forms, the C11
 * generic names, float and double fetch/set/swap; then the lock: mutual
 * exclusion of a non-atomic read-modify-write of a counter on PE 0, with
 * shmem_set_lock and with shmem_test_lock.
 */
#include <shmem.h>
#include <sched.h>
#include <stdint.h>

#include "pe_check.h"

#define ROUNDS 200

static int me, npes;

#define TEST_AMO(T, NAME)                                                      \
    do {                                                                       \
        T *w = shmem_calloc(8, sizeof(T));                                     \
        T f = 0;                                                               \
        for (int i = 0; i < ROUNDS; i++) {                                     \
            shmem_##NAME##_atomic_inc(&w[0], 0);                               \
            (void)shmem_##NAME##_atomic_fetch_inc(&w[0], 0);                   \
            shmem_##NAME##_atomic_add(&w[1], (T)3, 0);                         \
            T old = shmem_##NAME##_atomic_fetch_add(&w[1], (T)2, 0);           \
            CHECK_TRUE(old <= (T)(5 * ROUNDS * npes));                         \
        }                                                                      \
        shmem_##NAME##_atomic_fetch_inc_nbi(&f, &w[2], 0);                     \
        shmem_##NAME##_atomic_fetch_add_nbi(&f, &w[2], (T)1, 0);               \
        shmem_quiet();                                                         \
        CHECK_TRUE(f < (T)(2 * npes));                                         \
        /* compare_swap: exactly one PE wins each of the words 3.. */          \
        T won = shmem_##NAME##_atomic_compare_swap(&w[3], (T)0, (T)(me + 1), 0); \
        shmem_##NAME##_atomic_compare_swap_nbi(&f, &w[4], (T)0, (T)(me + 1), 0); \
        shmem_quiet();                                                         \
        shmem_##NAME##_atomic_add(&w[5], (T)(won == 0), 0);                    \
        shmem_##NAME##_atomic_add(&w[6], (T)(f == 0), 0);                      \
        (void)shmem_##NAME##_atomic_swap(&w[7], (T)(me + 1), 0);               \
        shmem_barrier_all();                                                   \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[0], 0) == (T)(2 * ROUNDS * npes)); \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[1], 0) == (T)(5 * ROUNDS * npes)); \
        CHECK_TRUE(shmem_atomic_fetch(&w[2], 0) == (T)(2 * npes));             \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[5], 0) == (T)1);             \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[6], 0) == (T)1);             \
        T last = shmem_atomic_fetch(&w[7], 0);                                 \
        CHECK_TRUE(last >= (T)1 && last <= (T)npes);                           \
        shmem_##NAME##_atomic_fetch_nbi(&f, &w[3], 0);                         \
        shmem_quiet();                                                         \
        CHECK_TRUE(f >= (T)1 && f <= (T)npes);                                 \
        shmem_barrier_all();                                                   \
        /* set, and the generic names. */                                      \
        if (me == 0)                                                           \
            shmem_atomic_set(&w[0], (T)5, npes - 1);                           \
        shmem_barrier_all();                                                   \
        if (me == npes - 1) {                                                  \
            CHECK_TRUE(w[0] == (T)5);                                          \
            CHECK_TRUE(shmem_atomic_swap(&w[0], (T)6, me) == (T)5);            \
            CHECK_TRUE(shmem_atomic_compare_swap(&w[0], (T)6, (T)7, me) == (T)6); \
            shmem_atomic_add(&w[0], (T)1, me);                                 \
            shmem_atomic_inc(&w[0], me);                                       \
            CHECK_TRUE(shmem_atomic_fetch_add(&w[0], (T)1, me) == (T)9);       \
            CHECK_TRUE(shmem_atomic_fetch_inc(&w[0], me) == (T)10);            \
            CHECK_TRUE(w[0] == (T)11);                                         \
        }                                                                      \
        shmem_barrier_all();                                                   \
        shmem_free(w);                                                         \
    } while (0)

#define TEST_BIT(T, NAME)                                                      \
    do {                                                                       \
        T *w = shmem_calloc(4, sizeof(T));                                     \
        if (me == 0)                                                           \
            w[1] = w[3] = (T)~(T)0;                                            \
        shmem_barrier_all();                                                   \
        T bit = (T)1 << (me % 32), f = 0;                                      \
        shmem_##NAME##_atomic_or(&w[0], bit, 0);                               \
        (void)shmem_##NAME##_atomic_fetch_and(&w[1], (T)~bit, 0);              \
        shmem_##NAME##_atomic_fetch_xor_nbi(&f, &w[2], bit, 0);                \
        shmem_atomic_and(&w[3], (T)~bit, 0);                                   \
        shmem_quiet();                                                         \
        shmem_barrier_all();                                                   \
        T all = 0;                                                             \
        for (int p = 0; p < npes; p++)                                         \
            all |= (T)1 << (p % 32);                                           \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[0], 0) == all);              \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[1], 0) == (T)~all);          \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[2], 0) == all);              \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[3], 0) == (T)~all);          \
        shmem_barrier_all();                                                   \
        (void)shmem_##NAME##_atomic_fetch_or(&w[0], bit, 0);                   \
        shmem_##NAME##_atomic_xor(&w[2], bit, 0);                              \
        shmem_##NAME##_atomic_fetch_or_nbi(&f, &w[0], 0, 0);                   \
        shmem_##NAME##_atomic_fetch_and_nbi(&f, &w[0], (T)~(T)0, 0);           \
        (void)shmem_atomic_fetch_xor(&w[2], 0, 0);                             \
        shmem_barrier_all();                                                   \
        CHECK_TRUE(shmem_##NAME##_atomic_fetch(&w[2], 0) == (T)0);             \
        shmem_barrier_all();                                                   \
        shmem_free(w);                                                         \
    } while (0)

static void test_float(void)
{
    double *d = shmem_calloc(1, sizeof(double));
    float *f = shmem_calloc(1, sizeof(float));
    if (me == 0) {
        shmem_double_atomic_set(d, 2.5, npes - 1);
        shmem_float_atomic_set(f, 1.25f, npes - 1);
    }
    shmem_barrier_all();
    if (me == npes - 1) {
        CHECK_TRUE(shmem_double_atomic_fetch(d, me) == 2.5);
        CHECK_TRUE(shmem_atomic_swap(d, 4.0, me) == 2.5);
        CHECK_TRUE(shmem_float_atomic_swap(f, 3.0f, me) == 1.25f);
        float old = 0;
        shmem_float_atomic_swap_nbi(&old, f, 5.0f, me);
        shmem_quiet();
        CHECK_TRUE(old == 3.0f);
        CHECK_TRUE(*d == 4.0 && *f == 5.0f);
    }
    shmem_barrier_all();
    shmem_free(f);
    shmem_free(d);
}

static void test_lock(void)
{
    long *lock = shmem_calloc(2, sizeof(long));
    long *counter = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();
    for (int i = 0; i < ROUNDS; i++) {
        shmem_set_lock(&lock[0]);
        /* Not atomic: a get and a put; only the lock keeps them apart. */
        long v = shmem_long_g(counter, 0);
        shmem_long_p(counter, v + 1, 0);
        shmem_clear_lock(&lock[0]);
    }
    /* Both loops update the same counter under different locks. */
    shmem_barrier_all();
    for (int i = 0; i < ROUNDS / 4; i++) {
        while (shmem_test_lock(&lock[1]) != 0)
            sched_yield(); /* the holder may need this CPU */
        long v = shmem_long_g(counter, 0);
        shmem_long_p(counter, v + 1, 0);
        shmem_clear_lock(&lock[1]);
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_long_g(counter, 0), (long)(ROUNDS + ROUNDS / 4) * npes);
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(lock);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    TEST_AMO(int, int);
    TEST_AMO(long, long);
    TEST_AMO(unsigned long long, ulonglong);
    TEST_AMO(int32_t, int32);
    TEST_AMO(uint64_t, uint64);
    TEST_AMO(size_t, size);
    TEST_BIT(unsigned int, uint);
    TEST_BIT(uint64_t, uint64);
    TEST_BIT(unsigned long, ulong);
    test_float();
    test_lock();
    shmem_finalize();
    return 0;
}

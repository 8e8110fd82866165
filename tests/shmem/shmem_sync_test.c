/*
 * shmem_sync_test.c: the point-to-point waits and tests: wait_until, test, their
 * all/any/some and vector forms, on 16-, 32- and 64-bit types, with the
 * words set by the left neighbour with puts and atomics after this PE is
 * known to wait (no sleeps: the order comes from a signal); the any forms
 * answering every index that holds in turn.
 */
#include <shmem.h>
#include <stdint.h>

#include "pe_check.h"
#include "shmem_ring.h"

#define W 6


/* With every word's condition true and nothing excluded, W calls of an
 * any form answer each index once: the search goes round from the index
 * after the last answer, so none starves. v holds vals, word 2 apart. */
#define TEST_ANY_ROTATES(T, NAME, v, vals)                                     \
    do {                                                                       \
        for (int form_ = 0; form_ < 4; form_++) {                              \
            int seen_[W] = {0};                                                \
            for (int k_ = 0; k_ < W; k_++) {                                   \
                size_t i_ =                                                    \
                    form_ == 0 ? shmem_##NAME##_test_any(v, W, NULL, SHMEM_CMP_GE, 0) \
                    : form_ == 1                                               \
                        ? shmem_##NAME##_wait_until_any(v, W, NULL, SHMEM_CMP_GE, 0) \
                    : form_ == 2 ? shmem_##NAME##_test_any_vector(v, W, NULL,  \
                                                                  SHMEM_CMP_LE, vals) \
                                 : shmem_##NAME##_wait_until_any_vector(       \
                                       v, W, NULL, SHMEM_CMP_LE, vals);        \
                CHECK_TRUE(i_ < W);                                            \
                seen_[i_]++;                                                   \
            }                                                                  \
            for (int k_ = 0; k_ < W; k_++)                                     \
                CHECK_EQ(seen_[k_], 1);                                        \
        }                                                                      \
    } while (0)

#define TEST_P2P(T, NAME)                                                      \
    do {                                                                       \
        T *v = shmem_calloc(W, sizeof(T));                                     \
        size_t idx[W];                                                         \
        int status[W] = {0, 0, 1, 0, 0, 0};                                    \
        T vals[W] = {1, 2, 3, 4, 5, 6};                                        \
        shmem_barrier_all();                                                   \
        CHECK_EQ(shmem_##NAME##_test(&v[0], SHMEM_CMP_EQ, 0), 1);              \
        CHECK_EQ(shmem_##NAME##_test(&v[0], SHMEM_CMP_GT, 0), 0);              \
        CHECK_EQ(shmem_##NAME##_test_any(v, W, NULL, SHMEM_CMP_NE, 0), SIZE_MAX); \
        CHECK_EQ(shmem_##NAME##_test_some(v, W, idx, NULL, SHMEM_CMP_NE, 0), 0); \
        CHECK_EQ(shmem_##NAME##_test_all(v, W, NULL, SHMEM_CMP_LE, 0), 1);     \
        shmem_barrier_all();                                                   \
        /* The neighbour writes word 3, then word 4 (after a fence). */        \
        shmem_##NAME##_p(&v[3], (T)4, right);                                  \
        shmem_fence();                                                         \
        shmem_##NAME##_atomic_set_or_p(&v[4], (T)5, right);                    \
        CHECK_EQ(shmem_##NAME##_wait_until_any(v, W, status, SHMEM_CMP_GT, 0) >= 3, 1); \
        shmem_##NAME##_wait_until(&v[4], SHMEM_CMP_EQ, 5);                     \
        CHECK_EQ(shmem_##NAME##_wait_until_some(v, W, idx, status, SHMEM_CMP_GE, 4), 2); \
        CHECK_EQ(idx[0], 3);                                                   \
        CHECK_EQ(idx[1], 4);                                                   \
        size_t any_ = shmem_##NAME##_test_any_vector(v, W, status, SHMEM_CMP_EQ, vals); \
        CHECK_TRUE(any_ == 3 || any_ == 4);                                    \
        CHECK_EQ(shmem_##NAME##_test_some_vector(v, W, idx, status, SHMEM_CMP_EQ, vals), \
                 2);                                                           \
        CHECK_EQ(shmem_##NAME##_test_all_vector(v, W, status, SHMEM_CMP_EQ, vals), 0); \
        shmem_barrier_all();                                                   \
        /* Now every word but 2 (left out) is set to its vals entry. */        \
        for (int i = 0; i < W; i++)                                            \
            if (i != 2)                                                        \
                shmem_##NAME##_p(&v[i], vals[i], right);                       \
        shmem_##NAME##_wait_until_all_vector(v, W, status, SHMEM_CMP_EQ, vals); \
        shmem_##NAME##_wait_until_all(v, W, status, SHMEM_CMP_GE, 1);          \
        any_ = shmem_##NAME##_wait_until_any_vector(v, W, status, SHMEM_CMP_EQ, vals); \
        CHECK_TRUE(any_ < W && any_ != 2);                                     \
        TEST_ANY_ROTATES(T, NAME, v, vals);                                    \
        CHECK_EQ(shmem_##NAME##_wait_until_some_vector(v, W, idx, status, SHMEM_CMP_LE, \
                                                       vals), 5);              \
        CHECK_EQ(shmem_##NAME##_test_all_vector(v, W, status, SHMEM_CMP_EQ, vals), 1); \
        CHECK_EQ(shmem_test(&v[5], SHMEM_CMP_LT, (T)7), 1);                    \
        shmem_wait_until(&v[1], SHMEM_CMP_NE, (T)0);                           \
        shmem_barrier_all();                                                   \
        shmem_free(v);                                                         \
    } while (0)

/* A word the waiter watches is written once; shorts have no atomics, so
 * they get a put. */
#define shmem_short_atomic_set_or_p shmem_short_p
#define shmem_ushort_atomic_set_or_p shmem_ushort_p
#define shmem_int_atomic_set_or_p shmem_int_atomic_set
#define shmem_long_atomic_set_or_p shmem_long_atomic_set
#define shmem_uint64_atomic_set_or_p shmem_uint64_atomic_set
#define shmem_size_atomic_set_or_p shmem_size_atomic_set

int main(void)
{
    shmem_init();
    shmem_ring_init();
    TEST_P2P(short, short);
    TEST_P2P(unsigned short, ushort);
    TEST_P2P(int, int);
    TEST_P2P(long, long);
    TEST_P2P(uint64_t, uint64);
    TEST_P2P(size_t, size);
    /* Signed comparisons: -1 < 0 for the signed types. */
    int *s = shmem_calloc(1, sizeof(int));
    short *h = shmem_calloc(1, sizeof(short));
    *s = -1;
    *h = -1;
    CHECK_EQ(shmem_int_test(s, SHMEM_CMP_LT, 0), 1);
    CHECK_EQ(shmem_short_test(h, SHMEM_CMP_LT, 0), 1);
    CHECK_EQ(shmem_short_test_all(h, 1, NULL, SHMEM_CMP_LT, 0), 1);
    shmem_barrier_all();
    shmem_free(h);
    shmem_free(s);
    shmem_finalize();
    return 0;
}

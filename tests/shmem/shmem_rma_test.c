/*
 * shmem_rma_test.c: every form of the RMA routines (put, get, p, g, iput, iget,
 * put_nbi, get_nbi) for a sample of the types, through the typed names and
 * the C11 generic ones, the sized forms 8 to 128 and the mem forms, and the
 * signaling puts (typed, sized, mem; blocking and _nbi; SET and ADD).
 * Each PE writes to its right neighbour and reads from its left.
 */
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "pe_check.h"
#include "shmem_ring.h"

#define N 64


/* The value PE p puts as element i of type kind k. */
#define VAL(p, i, k) ((p) * 1000 + (i) * 3 + (k))

#define TEST_TYPE(T, NAME, K)                                                  \
    do {                                                                       \
        T *dst = shmem_calloc(4 * N, sizeof(T));                               \
        T *src = shmem_malloc(N * sizeof(T));                                  \
        T loc[4 * N];                                                          \
        for (int i = 0; i < N; i++)                                            \
            src[i] = (T)VAL(me, i, K);                                         \
        shmem_barrier_all();                                                   \
        shmem_##NAME##_put(dst, src, N, right);                                \
        shmem_##NAME##_put_nbi(dst + N, src, N, right);                        \
        shmem_##NAME##_p(dst + 2 * N, (T)VAL(me, 7, K), right);                \
        shmem_##NAME##_iput(dst + 3 * N, src, 2, 3, N / 4, right);             \
        shmem_quiet();                                                         \
        shmem_barrier_all();                                                   \
        for (int i = 0; i < N; i++) {                                          \
            CHECK_TRUE(dst[i] == (T)VAL(left, i, K));                          \
            CHECK_TRUE(dst[N + i] == (T)VAL(left, i, K));                      \
        }                                                                      \
        CHECK_TRUE(dst[2 * N] == (T)VAL(left, 7, K));                          \
        for (int i = 0; i < N / 4; i++)                                        \
            CHECK_TRUE(dst[3 * N + 2 * i] == (T)VAL(left, 3 * i, K));          \
        memset(loc, 0, sizeof(loc));                                           \
        shmem_##NAME##_get(loc, src, N, left);                                 \
        shmem_##NAME##_get_nbi(loc + N, src, N, left);                         \
        shmem_quiet();                                                         \
        shmem_##NAME##_iget(loc + 2 * N, src, 3, 2, N / 4, left);              \
        for (int i = 0; i < N; i++) {                                          \
            CHECK_TRUE(loc[i] == (T)VAL(left, i, K));                          \
            CHECK_TRUE(loc[N + i] == (T)VAL(left, i, K));                      \
        }                                                                      \
        for (int i = 0; i < N / 4; i++)                                        \
            CHECK_TRUE(loc[2 * N + 3 * i] == (T)VAL(left, 2 * i, K));          \
        CHECK_TRUE(shmem_##NAME##_g(src + 5, left) == (T)VAL(left, 5, K));     \
        /* The generic names pick the same routines. */                        \
        shmem_barrier_all();                                                   \
        shmem_p(dst, (T)VAL(me, 9, K), right);                                 \
        shmem_put(dst + 1, src + 1, 2, right);                                 \
        shmem_barrier_all();                                                   \
        CHECK_TRUE(dst[0] == (T)VAL(left, 9, K));                              \
        CHECK_TRUE(dst[2] == (T)VAL(left, 2, K));                              \
        CHECK_TRUE(shmem_g(src + 3, left) == (T)VAL(left, 3, K));              \
        shmem_get(loc, src, 4, left);                                          \
        CHECK_TRUE(loc[3] == (T)VAL(left, 3, K));                              \
        shmem_free(src);                                                       \
        shmem_free(dst);                                                       \
    } while (0)

static void test_sized(void)
{
    enum { B = 16 * 64 };
    unsigned char *dst = shmem_calloc(B, 1), *src = shmem_malloc(B), loc[B];
    for (int i = 0; i < B; i++)
        src[i] = (unsigned char)(me * 31 + i);
    shmem_barrier_all();
#define SIZED(BITS, BYTES)                                                     \
    memset(loc, 0, B);                                                         \
    shmem_barrier_all();                                                       \
    memset(dst, 0, B);                                                         \
    shmem_barrier_all();                                                       \
    shmem_put##BITS(dst, src, 8, right);                                       \
    shmem_put##BITS##_nbi(dst + 8 * BYTES, src + 8 * BYTES, 8, right);        \
    shmem_iput##BITS(dst + 32 * BYTES, src, 2, 1, 4, right);                   \
    shmem_quiet();                                                             \
    shmem_barrier_all();                                                       \
    for (int i = 0; i < 16 * BYTES; i++)                                       \
        CHECK_EQ(dst[i], (unsigned char)(left * 31 + i));                      \
    for (int e = 0; e < 4; e++)                                                \
        for (int j = 0; j < BYTES; j++)                                        \
            CHECK_EQ(dst[(32 + 2 * e) * BYTES + j],                            \
                     (unsigned char)(left * 31 + e * BYTES + j));              \
    shmem_get##BITS(loc, src, 4, left);                                        \
    shmem_get##BITS##_nbi(loc + 4 * BYTES, src + 4 * BYTES, 4, left);         \
    shmem_quiet();                                                             \
    shmem_iget##BITS(loc + 16 * BYTES, src, 1, 2, 4, left);                    \
    for (int i = 0; i < 8 * BYTES; i++)                                        \
        CHECK_EQ(loc[i], (unsigned char)(left * 31 + i));                      \
    CHECK_EQ(loc[16 * BYTES + BYTES], (unsigned char)(left * 31 + 2 * BYTES));
    SHMEM_RMA_SIZES(SIZED)
    shmem_barrier_all();
    shmem_putmem(dst, src, 100, right);
    shmem_putmem_nbi(dst + 100, src, 3, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK_EQ(dst[99], (unsigned char)(left * 31 + 99));
    CHECK_EQ(dst[102], (unsigned char)(left * 31 + 2));
    shmem_getmem(loc, src, 50, left);
    shmem_getmem_nbi(loc + 50, src, 50, left);
    shmem_quiet();
    CHECK_EQ(loc[49], (unsigned char)(left * 31 + 49));
    CHECK_EQ(loc[99], (unsigned char)(left * 31 + 49));
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
}

static void test_signal(void)
{
    long *data = shmem_calloc(N, sizeof(long));
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
    long src[N];
    for (int i = 0; i < N; i++)
        src[i] = VAL(me, i, 1);
    shmem_barrier_all();
    shmem_long_put_signal(data, src, N, &sig[0], 7, SHMEM_SIGNAL_SET, right);
    CHECK_EQ(shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 7), 7);
    for (int i = 0; i < N; i++)
        CHECK_EQ(data[i], VAL(left, i, 1));
    shmem_barrier_all(); /* everyone has checked the data before it changes */
    /* ADD from every PE onto PE 0's word, each with its data. */
    shmem_putmem_signal_nbi(&data[me % N], &src[0], sizeof(long), &sig[1], 1,
                            SHMEM_SIGNAL_ADD, 0);
    shmem_quiet();
    if (me == 0) {
        CHECK_EQ(shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, (uint64_t)npes),
                 (uint64_t)npes);
        CHECK_EQ(shmem_signal_fetch(&sig[1]), (uint64_t)npes);
    }
    shmem_barrier_all();
    shmem_put64_signal(data, src, 2, &sig[2], 3, SHMEM_SIGNAL_ADD, right);
    shmem_put(data + 2, src, 1, right); /* keeps data in flight beside */
    shmem_long_put_signal_nbi(data + 4, src + 4, 2, &sig[3], 9, SHMEM_SIGNAL_SET, right);
    shmem_put(data + 2, src, 1, right);
    shmem_put_signal(data + 8, src + 8, 1, &sig[3], 11, SHMEM_SIGNAL_SET, right);
    CHECK_EQ(shmem_signal_wait_until(&sig[2], SHMEM_CMP_EQ, 3), 3);
    CHECK_EQ(shmem_signal_wait_until(&sig[3], SHMEM_CMP_EQ, 11), 11);
    CHECK_EQ(data[1], VAL(left, 1, 1));
    CHECK_EQ(data[8], VAL(left, 8, 1));
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(data);
}

int main(void)
{
    shmem_init();
    shmem_ring_init();
    TEST_TYPE(int, int, 0);
    TEST_TYPE(long, long, 1);
    TEST_TYPE(double, double, 2);
    TEST_TYPE(short, short, 3);
    TEST_TYPE(char, char, 4);
    TEST_TYPE(long double, longdouble, 5);
    TEST_TYPE(unsigned long long, ulonglong, 6);
    TEST_TYPE(float, float, 7);
    test_sized();
    test_signal();
    shmem_finalize();
    return 0;
}

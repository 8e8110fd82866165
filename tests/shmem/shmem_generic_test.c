/*
 * shmem_generic_test.c: the C11 generic names take every type the
 * specification's tables list for them, the exact-width, size_t and
 * ptrdiff_t typedefs included, whichever C type each is here: the
 * bitwise AMOs (plain, _nbi, with a context) on the bitwise AMO types,
 * fetch and add on the standard ones, the bitwise reductions on int8_t
 * to uint64_t, size_t and the unsigned types, max and sum on the rest.
 * Each call's result is checked; a type missing from a _Generic list is
 * a compile error.
 */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

#include "pe_check.h"
#include "shmem_ring.h"

/* The bitwise AMOs on one type: the right neighbour's word goes from all
 * ones through and, or and xor, in fetching and plain forms. */
#define TEST_AMO_BIT(T)                                                        \
    do {                                                                       \
        T *w = shmem_malloc(sizeof(T));                                        \
        T fetched = 0;                                                         \
        *w = (T)~(T)0;                                                         \
        shmem_barrier_all();                                                   \
        CHECK_TRUE(shmem_atomic_fetch_and(w, (T)0x0f, right) == (T)~(T)0);     \
        shmem_atomic_or(w, (T)0x30, right);                                    \
        CHECK_TRUE(shmem_atomic_fetch_xor(SHMEM_CTX_DEFAULT, w, (T)0x01, right) == \
                   (T)0x3f);                                                   \
        shmem_atomic_and(SHMEM_CTX_DEFAULT, w, (T)0x3c, right);               \
        shmem_atomic_xor(w, (T)0x04, right);                                   \
        shmem_atomic_fetch_or_nbi(&fetched, w, (T)0x40, right);                \
        shmem_quiet();                                                         \
        CHECK_TRUE(fetched == (T)0x38);                                        \
        shmem_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &fetched, w, (T)0x70, right); \
        shmem_quiet();                                                         \
        CHECK_TRUE(fetched == (T)0x78);                                        \
        shmem_atomic_fetch_xor_nbi(&fetched, w, (T)0x70, right);               \
        shmem_barrier_all();                                                   \
        CHECK_TRUE(fetched == (T)0x70);                                        \
        CHECK_TRUE(*w == (T)0);                                                \
        shmem_free(w);                                                         \
    } while (0)

/* fetch_add and fetch on a standard AMO type. */
#define TEST_AMO_STD(T)                                                        \
    do {                                                                       \
        T *w = shmem_calloc(1, sizeof(T));                                     \
        shmem_barrier_all();                                                   \
        CHECK_TRUE(shmem_atomic_fetch_add(w, (T)3, right) == (T)0);            \
        shmem_atomic_inc(SHMEM_CTX_DEFAULT, w, right);                         \
        CHECK_TRUE(shmem_atomic_compare_swap(w, (T)4, (T)9, right) == (T)4);   \
        shmem_barrier_all();                                                   \
        CHECK_TRUE(shmem_atomic_fetch(w, me) == (T)9);                         \
        shmem_wait_until(w, SHMEM_CMP_EQ, (T)9);                               \
        shmem_free(w);                                                         \
    } while (0)

/* A bitwise reduction (each PE's bit, and all ones) and max and sum. */
#define TEST_REDUCE_BIT(T)                                                     \
    do {                                                                       \
        T *src = shmem_malloc(2 * sizeof(T)), *dst = shmem_malloc(2 * sizeof(T)); \
        src[0] = (T)(1u << (me % 7));                                          \
        src[1] = (T)0x7f;                                                      \
        shmem_barrier_all();                                                   \
        T all = 0;                                                             \
        for (int p = 0; p < npes; p++)                                         \
            all = (T)(all | (T)(1u << (p % 7)));                               \
        CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, dst, src, 2), 0);           \
        CHECK_TRUE(dst[0] == all && dst[1] == (T)0x7f);                        \
        CHECK_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, dst, src, 2), 0);          \
        CHECK_TRUE(dst[0] == (T)(npes == 1 ? 1 : 0) && dst[1] == (T)0x7f);     \
        CHECK_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, dst, src, 2), 0);          \
        CHECK_TRUE(dst[1] == (T)(npes % 2 ? 0x7f : 0));                        \
        TEST_REDUCE_ARITH_ON(T, src, dst);                                     \
        shmem_free(dst);                                                       \
        shmem_free(src);                                                       \
    } while (0)
#define TEST_REDUCE_ARITH_ON(T, src, dst)                                      \
    do {                                                                       \
        src[0] = (T)(me + 1);                                                  \
        src[1] = (T)1;                                                         \
        shmem_barrier_all();                                                   \
        CHECK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, 2), 0);          \
        CHECK_TRUE(dst[0] == (T)npes);                                         \
        CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 2), 0);          \
        CHECK_TRUE(dst[0] == (T)(npes * (npes + 1) / 2) && dst[1] == (T)npes); \
    } while (0)
#define TEST_REDUCE_ARITH(T)                                                   \
    do {                                                                       \
        T *src = shmem_malloc(2 * sizeof(T)), *dst = shmem_malloc(2 * sizeof(T)); \
        TEST_REDUCE_ARITH_ON(T, src, dst);                                     \
        shmem_free(dst);                                                       \
        shmem_free(src);                                                       \
    } while (0)

int main(void)
{
    shmem_init();
    shmem_ring_init();

    /* The bitwise AMO types (spec table "Bitwise AMO Types"). */
    TEST_AMO_BIT(unsigned int);
    TEST_AMO_BIT(unsigned long);
    TEST_AMO_BIT(unsigned long long);
    TEST_AMO_BIT(int32_t);
    TEST_AMO_BIT(int64_t);
    TEST_AMO_BIT(uint32_t);
    TEST_AMO_BIT(uint64_t);

    /* The standard AMO types. */
    TEST_AMO_STD(int);
    TEST_AMO_STD(long);
    TEST_AMO_STD(long long);
    TEST_AMO_STD(unsigned int);
    TEST_AMO_STD(unsigned long);
    TEST_AMO_STD(unsigned long long);
    TEST_AMO_STD(int32_t);
    TEST_AMO_STD(int64_t);
    TEST_AMO_STD(uint32_t);
    TEST_AMO_STD(uint64_t);
    TEST_AMO_STD(size_t);
    TEST_AMO_STD(ptrdiff_t);

    /* The team reductions' types: and, or, xor (and max, sum) ... */
    TEST_REDUCE_BIT(unsigned char);
    TEST_REDUCE_BIT(unsigned short);
    TEST_REDUCE_BIT(unsigned int);
    TEST_REDUCE_BIT(unsigned long);
    TEST_REDUCE_BIT(unsigned long long);
    TEST_REDUCE_BIT(int8_t);
    TEST_REDUCE_BIT(int16_t);
    TEST_REDUCE_BIT(int32_t);
    TEST_REDUCE_BIT(int64_t);
    TEST_REDUCE_BIT(uint8_t);
    TEST_REDUCE_BIT(uint16_t);
    TEST_REDUCE_BIT(uint32_t);
    TEST_REDUCE_BIT(uint64_t);
    TEST_REDUCE_BIT(size_t);
    /* ... and max, min, sum, prod only. */
    TEST_REDUCE_ARITH(char);
    TEST_REDUCE_ARITH(signed char);
    TEST_REDUCE_ARITH(short);
    TEST_REDUCE_ARITH(int);
    TEST_REDUCE_ARITH(long);
    TEST_REDUCE_ARITH(long long);
    TEST_REDUCE_ARITH(ptrdiff_t);
    TEST_REDUCE_ARITH(float);
    TEST_REDUCE_ARITH(double);
    TEST_REDUCE_ARITH(long double);

    shmem_finalize();
    return 0;
}

/*
 * shmem_generic_types.c: every C11 generic name of OpenSHMEM 1.5 called
 * with every type of its table (the standard RMA types, the standard,
 * extended and bitwise AMO types, the point-to-point types and the team
 * reductions' types), with and without a context where the name takes
 * one. Compiled only, by check_generic_types.sh, with -Werror: a type
 * missing from a _Generic list selects a routine that takes no argument,
 * and one that selects a routine of another type passes a pointer of the
 * wrong type; either fails the build. With -DGK_NOT_IN_TABLE=n it
 * compiles case n of the calls that must not compile instead.
 */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

/* The specification's tables, as X-macros of (type, suffix). */
#define RMA_TYPES(X)                                                           \
    X(float, f) X(double, d) X(long double, ld) X(char, c) X(signed char, sc)  \
    X(short, s) X(int, i) X(long, l) X(long long, ll) X(unsigned char, uc)     \
    X(unsigned short, us) X(unsigned int, ui) X(unsigned long, ul)             \
    X(unsigned long long, ull) X(int8_t, i8) X(int16_t, i16) X(int32_t, i32)   \
    X(int64_t, i64) X(uint8_t, u8) X(uint16_t, u16) X(uint32_t, u32)           \
    X(uint64_t, u64) X(size_t, sz) X(ptrdiff_t, pd)
#define AMO_STD_TYPES(X)                                                       \
    X(int, i) X(long, l) X(long long, ll) X(unsigned int, ui)                  \
    X(unsigned long, ul) X(unsigned long long, ull) X(int32_t, i32)            \
    X(int64_t, i64) X(uint32_t, u32) X(uint64_t, u64) X(size_t, sz)            \
    X(ptrdiff_t, pd)
#define AMO_EXT_TYPES(X) X(float, f) X(double, d) AMO_STD_TYPES(X)
#define AMO_BIT_TYPES(X)                                                       \
    X(unsigned int, ui) X(unsigned long, ul) X(unsigned long long, ull)        \
    X(int32_t, i32) X(int64_t, i64) X(uint32_t, u32) X(uint64_t, u64)
#define P2P_TYPES(X) X(short, s) X(unsigned short, us) AMO_STD_TYPES(X)
#define RED_BIT_TYPES(X)                                                       \
    X(unsigned char, uc) X(unsigned short, us) X(unsigned int, ui)             \
    X(unsigned long, ul) X(unsigned long long, ull) X(int8_t, i8)              \
    X(int16_t, i16) X(int32_t, i32) X(int64_t, i64) X(uint8_t, u8)             \
    X(uint16_t, u16) X(uint32_t, u32) X(uint64_t, u64) X(size_t, sz)
#define RED_MINMAX_TYPES(X)                                                    \
    X(char, c) X(signed char, sc) X(short, s) X(int, i) X(long, l)             \
    X(long long, ll) X(ptrdiff_t, pd) X(float, f) X(double, d)                 \
    X(long double, ld) RED_BIT_TYPES(X)
#define RED_SUMPROD_TYPES(X)                                                   \
    RED_MINMAX_TYPES(X) X(double _Complex, cd) X(float _Complex, cf)

#ifndef GK_NOT_IN_TABLE

#define RMA(T, s)                                                              \
    void rma_##s(shmem_ctx_t ctx, T *d, const T *src, uint64_t *sig, int pe)   \
    {                                                                          \
        shmem_put(d, src, 1, pe);                                              \
        shmem_put(ctx, d, src, 1, pe);                                         \
        shmem_get(d, src, 1, pe);                                              \
        shmem_get(ctx, d, src, 1, pe);                                         \
        shmem_put_nbi(d, src, 1, pe);                                          \
        shmem_put_nbi(ctx, d, src, 1, pe);                                     \
        shmem_get_nbi(d, src, 1, pe);                                          \
        shmem_get_nbi(ctx, d, src, 1, pe);                                     \
        shmem_p(d, *src, pe);                                                  \
        shmem_p(ctx, d, *src, pe);                                             \
        *d = shmem_g(src, pe);                                                 \
        *d = shmem_g(ctx, src, pe);                                            \
        shmem_iput(d, src, 2, 2, 1, pe);                                       \
        shmem_iput(ctx, d, src, 2, 2, 1, pe);                                  \
        shmem_iget(d, src, 2, 2, 1, pe);                                       \
        shmem_iget(ctx, d, src, 2, 2, 1, pe);                                  \
        shmem_put_signal(d, src, 1, sig, 1, SHMEM_SIGNAL_SET, pe);             \
        shmem_put_signal(ctx, d, src, 1, sig, 1, SHMEM_SIGNAL_ADD, pe);        \
        shmem_put_signal_nbi(d, src, 1, sig, 1, SHMEM_SIGNAL_SET, pe);         \
        shmem_put_signal_nbi(ctx, d, src, 1, sig, 1, SHMEM_SIGNAL_ADD, pe);    \
        shmem_broadcast(SHMEM_TEAM_WORLD, d, src, 1, 0);                       \
        shmem_collect(SHMEM_TEAM_WORLD, d, src, 1);                            \
        shmem_fcollect(SHMEM_TEAM_WORLD, d, src, 1);                           \
        shmem_alltoall(SHMEM_TEAM_WORLD, d, src, 1);                           \
        shmem_alltoalls(SHMEM_TEAM_WORLD, d, src, 1, 1, 1);                    \
    }
RMA_TYPES(RMA)

#define AMO_STD(T, s)                                                          \
    void amo_std_##s(shmem_ctx_t ctx, T *d, T *f, T v, int pe)                 \
    {                                                                          \
        *f = shmem_atomic_compare_swap(d, v, v, pe);                           \
        *f = shmem_atomic_compare_swap(ctx, d, v, v, pe);                      \
        *f = shmem_atomic_fetch_inc(d, pe);                                    \
        *f = shmem_atomic_fetch_inc(ctx, d, pe);                               \
        shmem_atomic_inc(d, pe);                                               \
        shmem_atomic_inc(ctx, d, pe);                                          \
        *f = shmem_atomic_fetch_add(d, v, pe);                                 \
        *f = shmem_atomic_fetch_add(ctx, d, v, pe);                            \
        shmem_atomic_add(d, v, pe);                                            \
        shmem_atomic_add(ctx, d, v, pe);                                       \
        shmem_atomic_compare_swap_nbi(f, d, v, v, pe);                         \
        shmem_atomic_compare_swap_nbi(ctx, f, d, v, v, pe);                    \
        shmem_atomic_fetch_inc_nbi(f, d, pe);                                  \
        shmem_atomic_fetch_inc_nbi(ctx, f, d, pe);                             \
        shmem_atomic_fetch_add_nbi(f, d, v, pe);                               \
        shmem_atomic_fetch_add_nbi(ctx, f, d, v, pe);                          \
    }
AMO_STD_TYPES(AMO_STD)

#define AMO_EXT(T, s)                                                          \
    void amo_ext_##s(shmem_ctx_t ctx, T *d, T *f, T v, int pe)                 \
    {                                                                          \
        *f = shmem_atomic_fetch(d, pe);                                        \
        *f = shmem_atomic_fetch(ctx, d, pe);                                   \
        shmem_atomic_set(d, v, pe);                                            \
        shmem_atomic_set(ctx, d, v, pe);                                       \
        *f = shmem_atomic_swap(d, v, pe);                                      \
        *f = shmem_atomic_swap(ctx, d, v, pe);                                 \
        shmem_atomic_fetch_nbi(f, d, pe);                                      \
        shmem_atomic_fetch_nbi(ctx, f, d, pe);                                 \
        shmem_atomic_swap_nbi(f, d, v, pe);                                    \
        shmem_atomic_swap_nbi(ctx, f, d, v, pe);                               \
    }
AMO_EXT_TYPES(AMO_EXT)

#define AMO_BIT(T, s)                                                          \
    void amo_bit_##s(shmem_ctx_t ctx, T *d, T *f, T v, int pe)                 \
    {                                                                          \
        *f = shmem_atomic_fetch_and(d, v, pe);                                 \
        *f = shmem_atomic_fetch_and(ctx, d, v, pe);                            \
        *f = shmem_atomic_fetch_or(d, v, pe);                                  \
        *f = shmem_atomic_fetch_or(ctx, d, v, pe);                             \
        *f = shmem_atomic_fetch_xor(d, v, pe);                                 \
        *f = shmem_atomic_fetch_xor(ctx, d, v, pe);                            \
        shmem_atomic_and(d, v, pe);                                            \
        shmem_atomic_and(ctx, d, v, pe);                                       \
        shmem_atomic_or(d, v, pe);                                             \
        shmem_atomic_or(ctx, d, v, pe);                                        \
        shmem_atomic_xor(d, v, pe);                                            \
        shmem_atomic_xor(ctx, d, v, pe);                                       \
        shmem_atomic_fetch_and_nbi(f, d, v, pe);                               \
        shmem_atomic_fetch_and_nbi(ctx, f, d, v, pe);                          \
        shmem_atomic_fetch_or_nbi(f, d, v, pe);                                \
        shmem_atomic_fetch_or_nbi(ctx, f, d, v, pe);                           \
        shmem_atomic_fetch_xor_nbi(f, d, v, pe);                               \
        shmem_atomic_fetch_xor_nbi(ctx, f, d, v, pe);                          \
    }
AMO_BIT_TYPES(AMO_BIT)

#define P2P(T, s)                                                              \
    size_t p2p_##s(T *ivars, T *vals, int *status, size_t *idx, T v)           \
    {                                                                          \
        size_t n = 0;                                                          \
        shmem_wait_until(ivars, SHMEM_CMP_EQ, v);                              \
        shmem_wait_until_all(ivars, 2, status, SHMEM_CMP_EQ, v);               \
        n += shmem_wait_until_any(ivars, 2, status, SHMEM_CMP_EQ, v);          \
        n += shmem_wait_until_some(ivars, 2, idx, status, SHMEM_CMP_EQ, v);    \
        shmem_wait_until_all_vector(ivars, 2, status, SHMEM_CMP_EQ, vals);     \
        n += shmem_wait_until_any_vector(ivars, 2, status, SHMEM_CMP_EQ, vals); \
        n += shmem_wait_until_some_vector(ivars, 2, idx, status, SHMEM_CMP_EQ, vals); \
        n += (size_t)shmem_test(ivars, SHMEM_CMP_EQ, v);                       \
        n += (size_t)shmem_test_all(ivars, 2, status, SHMEM_CMP_EQ, v);       \
        n += shmem_test_any(ivars, 2, status, SHMEM_CMP_EQ, v);                \
        n += shmem_test_some(ivars, 2, idx, status, SHMEM_CMP_EQ, v);          \
        n += (size_t)shmem_test_all_vector(ivars, 2, status, SHMEM_CMP_EQ, vals); \
        n += shmem_test_any_vector(ivars, 2, status, SHMEM_CMP_EQ, vals);      \
        n += shmem_test_some_vector(ivars, 2, idx, status, SHMEM_CMP_EQ, vals); \
        return n;                                                              \
    }
P2P_TYPES(P2P)

#define RED_BIT(T, s)                                                          \
    int red_bit_##s(T *d, const T *src)                                        \
    {                                                                          \
        return shmem_and_reduce(SHMEM_TEAM_WORLD, d, src, 1) +                 \
               shmem_or_reduce(SHMEM_TEAM_WORLD, d, src, 1) +                  \
               shmem_xor_reduce(SHMEM_TEAM_WORLD, d, src, 1);                  \
    }
RED_BIT_TYPES(RED_BIT)

#define RED_MINMAX(T, s)                                                       \
    int red_minmax_##s(T *d, const T *src)                                     \
    {                                                                          \
        return shmem_max_reduce(SHMEM_TEAM_WORLD, d, src, 1) +                 \
               shmem_min_reduce(SHMEM_TEAM_WORLD, d, src, 1);                  \
    }
RED_MINMAX_TYPES(RED_MINMAX)

#define RED_SUMPROD(T, s)                                                      \
    int red_sumprod_##s(T *d, const T *src)                                    \
    {                                                                          \
        return shmem_sum_reduce(SHMEM_TEAM_WORLD, d, src, 1) +                 \
               shmem_prod_reduce(SHMEM_TEAM_WORLD, d, src, 1);                 \
    }
RED_SUMPROD_TYPES(RED_SUMPROD)

#else /* GK_NOT_IN_TABLE: one call that must not compile */

struct two_ints {
    int a, b;
};

void not_in_table(void)
{
    static float f;
    static double d;
    static short s;
    static struct two_ints st;
    static double _Complex z;
#if GK_NOT_IN_TABLE == 1
    shmem_atomic_and(&f, f, 0); /* bitwise AMO on a real type */
#elif GK_NOT_IN_TABLE == 2
    shmem_atomic_or(&s, s, 0); /* short is not a bitwise AMO type */
#elif GK_NOT_IN_TABLE == 3
    shmem_atomic_add(&d, d, 0); /* add is for the standard AMO types */
#elif GK_NOT_IN_TABLE == 4
    shmem_and_reduce(SHMEM_TEAM_WORLD, &d, &d, 1); /* bitwise reduction on double */
#elif GK_NOT_IN_TABLE == 5
    shmem_max_reduce(SHMEM_TEAM_WORLD, &z, &z, 1); /* max of complex */
#elif GK_NOT_IN_TABLE == 6
    shmem_wait_until(&f, SHMEM_CMP_EQ, f); /* waits are on integers */
#elif GK_NOT_IN_TABLE == 7
    shmem_put(&st, &st, 1, 0); /* no struct type in the RMA table */
#endif
    (void)f, (void)d, (void)s, (void)st, (void)z;
}

#endif

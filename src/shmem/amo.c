/*
 * amo.c: atomic memory operations (spec "Atomic Memory Operations") for
 * the standard, extended and bitwise AMO types, blocking and the 1.5
 * non-blocking fetching forms, generated from shmem.h's type tables.
 *
 * Every type is a 32- or 64-bit word (float and double by their bits), so
 * every operation is one of gasket's gk_atomic_*_u32/u64: atomic with
 * respect to each other from every PE, whichever transport reaches the
 * target, as the specification asks of the AMOs of one type. Arithmetic
 * on the signed types is the same two's-complement operation as on the
 * unsigned ones.
 *
 * The _nbi forms are the blocking ones: the value is in *fetch when they
 * return, which is a complete non-blocking operation (shmem_quiet has
 * nothing left to do for them). In check mode (base/check.h) *fetch is
 * poisoned at the call and gets the value at the completion point, as
 * across a network, so that a read before shmem_quiet shows.
 *
 * Each routine and its shmem_ctx_ form are one body (SHMEM_CTX_DEFINE),
 * on gasket's context forms gk_ctx_atomic_*: an AMO on a context is
 * ordered and completed with that context's puts.
 */
#include <string.h>

#include "base/check.h"
#include "shmem/shmem_int.h"

enum amo_op {
    AMO_FETCH,
    AMO_SET,
    AMO_SWAP,
    AMO_CSWAP,
    AMO_FETCH_ADD,
    AMO_ADD,
    AMO_FETCH_AND,
    AMO_FETCH_OR,
    AMO_FETCH_XOR,
    AMO_AND,
    AMO_OR,
    AMO_XOR
};

/* One operation on the `size`-byte word at dest on PE pe: value and cond
 * are read from their addresses, the old value written to *old_p (when
 * the operation fetches). */
static inline void amo_run(gk_ctx_t *gkc, const char *routine, enum amo_op op, size_t size,
                           int pe, void *dest, const void *value, const void *cond,
                           void *old_p)
{
    int status = GK_ERR_INVALID_ARG;
    if (size == 4) {
        uint32_t v = 0, c = 0, old = 0;
        if (value != NULL)
            memcpy(&v, value, 4);
        if (cond != NULL)
            memcpy(&c, cond, 4);
        uint32_t *d = dest;
        switch (op) {
        case AMO_FETCH: status = SHMEM_GK(gkc, atomic_fetch_u32, pe, d, &old); break;
        case AMO_SET: status = SHMEM_GK(gkc, atomic_set_u32, pe, d, v); break;
        case AMO_SWAP: status = SHMEM_GK(gkc, atomic_swap_u32, pe, d, v, &old); break;
        case AMO_CSWAP: status = SHMEM_GK(gkc, atomic_compare_swap_u32, pe, d, c, v, &old); break;
        case AMO_FETCH_ADD: status = SHMEM_GK(gkc, atomic_fetch_add_u32, pe, d, v, &old); break;
        case AMO_ADD: status = SHMEM_GK(gkc, atomic_add_u32, pe, d, v); break;
        case AMO_FETCH_AND: status = SHMEM_GK(gkc, atomic_fetch_and_u32, pe, d, v, &old); break;
        case AMO_FETCH_OR: status = SHMEM_GK(gkc, atomic_fetch_or_u32, pe, d, v, &old); break;
        case AMO_FETCH_XOR: status = SHMEM_GK(gkc, atomic_fetch_xor_u32, pe, d, v, &old); break;
        case AMO_AND: status = SHMEM_GK(gkc, atomic_and_u32, pe, d, v); break;
        case AMO_OR: status = SHMEM_GK(gkc, atomic_or_u32, pe, d, v); break;
        case AMO_XOR: status = SHMEM_GK(gkc, atomic_xor_u32, pe, d, v); break;
        }
        SHMEM_CHECK(routine, status);
        if (old_p != NULL)
            memcpy(old_p, &old, 4);
    } else {
        _Static_assert(sizeof(long long) == 8 && sizeof(double) == 8,
                       "the AMO types are 4 or 8 bytes");
        uint64_t v = 0, c = 0, old = 0;
        if (value != NULL)
            memcpy(&v, value, 8);
        if (cond != NULL)
            memcpy(&c, cond, 8);
        uint64_t *d = dest;
        switch (op) {
        case AMO_FETCH: status = SHMEM_GK(gkc, atomic_fetch_u64, pe, d, &old); break;
        case AMO_SET: status = SHMEM_GK(gkc, atomic_set_u64, pe, d, v); break;
        case AMO_SWAP: status = SHMEM_GK(gkc, atomic_swap_u64, pe, d, v, &old); break;
        case AMO_CSWAP: status = SHMEM_GK(gkc, atomic_compare_swap_u64, pe, d, c, v, &old); break;
        case AMO_FETCH_ADD: status = SHMEM_GK(gkc, atomic_fetch_add_u64, pe, d, v, &old); break;
        case AMO_ADD: status = SHMEM_GK(gkc, atomic_add_u64, pe, d, v); break;
        case AMO_FETCH_AND: status = SHMEM_GK(gkc, atomic_fetch_and_u64, pe, d, v, &old); break;
        case AMO_FETCH_OR: status = SHMEM_GK(gkc, atomic_fetch_or_u64, pe, d, v, &old); break;
        case AMO_FETCH_XOR: status = SHMEM_GK(gkc, atomic_fetch_xor_u64, pe, d, v, &old); break;
        case AMO_AND: status = SHMEM_GK(gkc, atomic_and_u64, pe, d, v); break;
        case AMO_OR: status = SHMEM_GK(gkc, atomic_or_u64, pe, d, v); break;
        case AMO_XOR: status = SHMEM_GK(gkc, atomic_xor_u64, pe, d, v); break;
        }
        SHMEM_CHECK(routine, status);
        if (old_p != NULL)
            memcpy(old_p, &old, 8);
    }
}

/* The _nbi form of an operation that fetches: its value reaches *fetch at
 * the completion point in check mode. */
static inline void amo_run_nbi(gk_ctx_t *gkc, const char *routine, enum amo_op op,
                               size_t size, int pe, void *dest, const void *value,
                               const void *cond, void *fetch)
{
    uint64_t old = 0;
    amo_run(gkc, routine, op, size, pe, dest, value, cond, &old);
    if (fetch == NULL)
        return;
    if (__builtin_expect(gk__check_on, 0))
        gk__check_defer_write(routine, fetch, &old, size);
    else
        memcpy(fetch, &old, size);
}

/* A fetching operation with a value: the blocking and the _nbi form. */
#define AMO_FETCHING(T, N, OP, ENUM)                                           \
    SHMEM_CTX_DEFINE(T, N##_atomic_##OP, (T * dest, T value, int pe), (dest, value, pe)) \
    {                                                                          \
        T old;                                                                 \
        amo_run(gk_ctx, routine, ENUM, sizeof(T), pe, dest, &value, NULL, &old); \
        return old;                                                            \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(N##_atomic_##OP##_nbi, (T * fetch, T * dest, T value, int pe), \
                          (fetch, dest, value, pe))                            \
    {                                                                          \
        amo_run_nbi(gk_ctx, routine, ENUM, sizeof(T), pe, dest, &value, NULL, fetch); \
    }
#define AMO_STORING(T, N, OP, ENUM)                                            \
    SHMEM_CTX_DEFINE_VOID(N##_atomic_##OP, (T * dest, T value, int pe), (dest, value, pe)) \
    {                                                                          \
        amo_run(gk_ctx, routine, ENUM, sizeof(T), pe, dest, &value, NULL, NULL); \
    }

#define AMO_EXT(T, N)                                                          \
    SHMEM_CTX_DEFINE(T, N##_atomic_fetch, (const T *source, int pe), (source, pe)) \
    {                                                                          \
        T old;                                                                 \
        amo_run(gk_ctx, routine, AMO_FETCH, sizeof(T), pe, (void *)source, NULL, NULL, \
                &old);                                                         \
        return old;                                                            \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(N##_atomic_fetch_nbi, (T * fetch, const T *source, int pe), \
                          (fetch, source, pe))                                 \
    {                                                                          \
        amo_run_nbi(gk_ctx, routine, AMO_FETCH, sizeof(T), pe, (void *)source, NULL, \
                    NULL, fetch);                                              \
    }                                                                          \
    AMO_STORING(T, N, set, AMO_SET)                                            \
    AMO_FETCHING(T, N, swap, AMO_SWAP)

#define AMO_STD(T, N)                                                          \
    AMO_EXT(T, N)                                                              \
    SHMEM_CTX_DEFINE(T, N##_atomic_compare_swap, (T * dest, T cond, T value, int pe), \
                     (dest, cond, value, pe))                                  \
    {                                                                          \
        T old;                                                                 \
        amo_run(gk_ctx, routine, AMO_CSWAP, sizeof(T), pe, dest, &value, &cond, &old); \
        return old;                                                            \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(N##_atomic_compare_swap_nbi,                         \
                          (T * fetch, T * dest, T cond, T value, int pe),      \
                          (fetch, dest, cond, value, pe))                      \
    {                                                                          \
        amo_run_nbi(gk_ctx, routine, AMO_CSWAP, sizeof(T), pe, dest, &value, &cond, fetch); \
    }                                                                          \
    SHMEM_CTX_DEFINE(T, N##_atomic_fetch_inc, (T * dest, int pe), (dest, pe))  \
    {                                                                          \
        T one = 1, old;                                                        \
        amo_run(gk_ctx, routine, AMO_FETCH_ADD, sizeof(T), pe, dest, &one, NULL, &old); \
        return old;                                                            \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(N##_atomic_fetch_inc_nbi, (T * fetch, T * dest, int pe), \
                          (fetch, dest, pe))                                   \
    {                                                                          \
        T one = 1;                                                             \
        amo_run_nbi(gk_ctx, routine, AMO_FETCH_ADD, sizeof(T), pe, dest, &one, NULL, fetch); \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(N##_atomic_inc, (T * dest, int pe), (dest, pe))      \
    {                                                                          \
        T one = 1;                                                             \
        amo_run(gk_ctx, routine, AMO_ADD, sizeof(T), pe, dest, &one, NULL, NULL); \
    }                                                                          \
    AMO_FETCHING(T, N, fetch_add, AMO_FETCH_ADD)                               \
    AMO_STORING(T, N, add, AMO_ADD)

#define AMO_BIT(T, N)                                                          \
    AMO_FETCHING(T, N, fetch_and, AMO_FETCH_AND)                               \
    AMO_FETCHING(T, N, fetch_or, AMO_FETCH_OR)                                 \
    AMO_FETCHING(T, N, fetch_xor, AMO_FETCH_XOR)                               \
    AMO_STORING(T, N, and, AMO_AND)                                            \
    AMO_STORING(T, N, or, AMO_OR)                                              \
    AMO_STORING(T, N, xor, AMO_XOR)

SHMEM_AMO_STD_TYPES(AMO_STD)
SHMEM_AMO_EXT_ONLY_TYPES(AMO_EXT)
SHMEM_AMO_BIT_TYPES(AMO_BIT)

/* The deprecated names of OpenSHMEM 1.3 (finc, fadd, cswap, ...), which
 * older programs and the OSU benchmarks call: the same operations. */
#define AMO_DEPR_EXT(T, N)                                                     \
    SHMEM_DEFINE(T, N##_fetch, (const T *source, int pe))                      \
    {                                                                          \
        return pshmem_##N##_atomic_fetch(source, pe);                          \
    }                                                                          \
    SHMEM_DEFINE(void, N##_set, (T * dest, T value, int pe))                   \
    {                                                                          \
        pshmem_##N##_atomic_set(dest, value, pe);                              \
    }                                                                          \
    SHMEM_DEFINE(T, N##_swap, (T * dest, T value, int pe))                     \
    {                                                                          \
        return pshmem_##N##_atomic_swap(dest, value, pe);                      \
    }
#define AMO_DEPR(T, N)                                                         \
    AMO_DEPR_EXT(T, N)                                                         \
    SHMEM_DEFINE(T, N##_finc, (T * dest, int pe))                              \
    {                                                                          \
        return pshmem_##N##_atomic_fetch_inc(dest, pe);                        \
    }                                                                          \
    SHMEM_DEFINE(void, N##_inc, (T * dest, int pe))                            \
    {                                                                          \
        pshmem_##N##_atomic_inc(dest, pe);                                     \
    }                                                                          \
    SHMEM_DEFINE(T, N##_fadd, (T * dest, T value, int pe))                     \
    {                                                                          \
        return pshmem_##N##_atomic_fetch_add(dest, value, pe);                 \
    }                                                                          \
    SHMEM_DEFINE(void, N##_add, (T * dest, T value, int pe))                   \
    {                                                                          \
        pshmem_##N##_atomic_add(dest, value, pe);                              \
    }                                                                          \
    SHMEM_DEFINE(T, N##_cswap, (T * dest, T cond, T value, int pe))            \
    {                                                                          \
        return pshmem_##N##_atomic_compare_swap(dest, cond, value, pe);        \
    }
SHMEM_DEPR_AMO_TYPES(AMO_DEPR)
SHMEM_DEPR_AMO_EXT_ONLY_TYPES(AMO_DEPR_EXT)

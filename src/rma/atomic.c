/*
 * atomic.c: the atomic memory operations of gasket.h, for i32, u32, i64 and
 * u64. Each public function checks its arguments and hands the word's
 * segment offset to gk__path_amo (core/path.h), which picks the transport's
 * way; signed types travel as their two's-complement bits.
 */
#include "core/runtime.h"
#include "core/path.h"

static inline int atomic_apply(const char *op_name, int pe, const void *addr,
                               size_t width, enum gk__amo_op op, uint64_t operand,
                               uint64_t compare, uint64_t *old_p)
{
    size_t offset = 0;
    int status = gk__rt_check_word(op_name, pe, addr, width, &offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    gk__path_flush_wakes(); /* an atomic may be a poll: see gk__path_get */
    return gk__path_amo(pe, op, width, offset, operand, compare, old_p);
}

/* A fetching operation: the old value goes to *old_p. */
#define ATOMIC_FETCHING(T, ctype, utype, name, amo)                            \
    int gk_atomic_##name##_##T(int pe, ctype *dst, ctype value, ctype *old_p)  \
    {                                                                          \
        if (GK__UNLIKELY(old_p == NULL))                                       \
            return gk__rt_report_null("gk_atomic_" #name "_" #T, "old_p", 1);  \
        uint64_t old;                                                          \
        int status = atomic_apply("gk_atomic_" #name "_" #T, pe, dst,          \
                                  sizeof(ctype), amo, (utype)value, 0, &old);  \
        if (status == GK_OK)                                                   \
            *old_p = (ctype)(utype)old;                                        \
        return status;                                                         \
    }

/* A non-fetching operation: the result is discarded. */
#define ATOMIC_PLAIN(T, ctype, utype, name, amo)                               \
    int gk_atomic_##name##_##T(int pe, ctype *dst, ctype value)                \
    {                                                                          \
        return atomic_apply("gk_atomic_" #name "_" #T, pe, dst, sizeof(ctype), \
                            amo, (utype)value, 0, NULL);                       \
    }

#define ATOMIC_DEFINE(T, ctype, utype)                                         \
    int gk_atomic_fetch_##T(int pe, const ctype *src, ctype *value_p)          \
    {                                                                          \
        if (GK__UNLIKELY(value_p == NULL))                                     \
            return gk__rt_report_null("gk_atomic_fetch_" #T, "value_p", 1);    \
        uint64_t old;                                                          \
        int status = atomic_apply("gk_atomic_fetch_" #T, pe, src,              \
                                  sizeof(ctype), GK__AMO_FETCH, 0, 0, &old);   \
        if (status == GK_OK)                                                   \
            *value_p = (ctype)(utype)old;                                      \
        return status;                                                         \
    }                                                                          \
    int gk_atomic_compare_swap_##T(int pe, ctype *dst, ctype expected,         \
                                   ctype desired, ctype *old_p)                \
    {                                                                          \
        if (GK__UNLIKELY(old_p == NULL))                                       \
            return gk__rt_report_null("gk_atomic_compare_swap_" #T, "old_p",   \
                                      1);                                      \
        uint64_t old;                                                          \
        int status = atomic_apply("gk_atomic_compare_swap_" #T, pe, dst,       \
                                  sizeof(ctype), GK__AMO_CSWAP,                \
                                  (utype)desired, (utype)expected, &old);      \
        if (status == GK_OK)                                                   \
            *old_p = (ctype)(utype)old;                                        \
        return status;                                                         \
    }                                                                          \
    ATOMIC_PLAIN(T, ctype, utype, set, GK__AMO_SET)                            \
    ATOMIC_FETCHING(T, ctype, utype, swap, GK__AMO_SWAP)                       \
    ATOMIC_FETCHING(T, ctype, utype, fetch_add, GK__AMO_FETCH_ADD)             \
    ATOMIC_PLAIN(T, ctype, utype, add, GK__AMO_FETCH_ADD)                      \
    ATOMIC_FETCHING(T, ctype, utype, fetch_and, GK__AMO_FETCH_AND)             \
    ATOMIC_FETCHING(T, ctype, utype, fetch_or, GK__AMO_FETCH_OR)               \
    ATOMIC_FETCHING(T, ctype, utype, fetch_xor, GK__AMO_FETCH_XOR)             \
    ATOMIC_PLAIN(T, ctype, utype, and, GK__AMO_FETCH_AND)                      \
    ATOMIC_PLAIN(T, ctype, utype, or, GK__AMO_FETCH_OR)                        \
    ATOMIC_PLAIN(T, ctype, utype, xor, GK__AMO_FETCH_XOR)

ATOMIC_DEFINE(i32, int32_t, uint32_t)
ATOMIC_DEFINE(u32, uint32_t, uint32_t)
ATOMIC_DEFINE(i64, int64_t, uint64_t)
ATOMIC_DEFINE(u64, uint64_t, uint64_t)

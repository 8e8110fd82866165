/*
 * gk_check_value.h: the value model shared by the unit-test assertions
 * (gk_test.h) and the multi-PE checks (pe_check.h). An operand of any
 * integer or pointer type becomes a struct gk_check_value that remembers
 * whether it was signed, so that a failed comparison prints each side as
 * its own type ("-1", "4294967295 (0xffffffff)", "0x7f12...") and equality
 * is mathematical: -1 never equals UINT64_MAX, 5 == 5u holds, and no
 * -Wsign-compare warning is needed to get there.
 */
#ifndef GK_TESTS_GK_CHECK_VALUE_H
#define GK_TESTS_GK_CHECK_VALUE_H

#include <stdint.h>
#include <stdio.h>

enum gk_check_kind { GK_CHECK_SIGNED, GK_CHECK_UNSIGNED, GK_CHECK_POINTER };

struct gk_check_value {
    enum gk_check_kind kind;
    long long s;
    unsigned long long u;
    const void *p;
};

static inline struct gk_check_value gk_check_from_signed(long long v)
{
    return (struct gk_check_value){GK_CHECK_SIGNED, v, (unsigned long long)v, NULL};
}

static inline struct gk_check_value gk_check_from_unsigned(unsigned long long v)
{
    return (struct gk_check_value){GK_CHECK_UNSIGNED, (long long)v, v, NULL};
}

/* Only the address matters: tell GCC the pointee is never read (else it
 * warns about pointers to uninitialized objects). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10
__attribute__((access(none, 1)))
#endif
static inline struct gk_check_value gk_check_from_pointer(const void *p)
{
    return (struct gk_check_value){GK_CHECK_POINTER, 0, (unsigned long long)(uintptr_t)p,
                                   p};
}

/* Every integer type by name (enums are compatible with one of them);
 * anything else must be a pointer. */
#define GK_CHECK_VALUE(x)                                                                \
    _Generic((x),                                                                        \
        _Bool: gk_check_from_unsigned,                                                   \
        char: gk_check_from_signed,                                                      \
        signed char: gk_check_from_signed,                                               \
        short: gk_check_from_signed,                                                     \
        int: gk_check_from_signed,                                                       \
        long: gk_check_from_signed,                                                      \
        long long: gk_check_from_signed,                                                 \
        unsigned char: gk_check_from_unsigned,                                           \
        unsigned short: gk_check_from_unsigned,                                          \
        unsigned int: gk_check_from_unsigned,                                            \
        unsigned long: gk_check_from_unsigned,                                           \
        unsigned long long: gk_check_from_unsigned,                                      \
        default: gk_check_from_pointer)(x)

/* Mathematical comparison: -1, 0 or 1. Pointers compare as addresses. */
static inline int gk_check_cmp(struct gk_check_value a, struct gk_check_value b)
{
    if (a.kind == GK_CHECK_SIGNED && b.kind == GK_CHECK_SIGNED)
        return (a.s > b.s) - (a.s < b.s);
    if (a.kind == GK_CHECK_SIGNED && a.s < 0)
        return -1; /* negative < any unsigned or address */
    if (b.kind == GK_CHECK_SIGNED && b.s < 0)
        return 1;
    return (a.u > b.u) - (a.u < b.u);
}

/* Formats a value as its kind: "-5", "7", "4096 (0x1000)", "0x7f00...". */
static inline const char *gk_check_format(struct gk_check_value v, char *buf, size_t len)
{
    if (v.kind == GK_CHECK_POINTER)
        snprintf(buf, len, "%p", v.p);
    else if (v.kind == GK_CHECK_SIGNED && v.s < 0)
        snprintf(buf, len, "%lld (0x%llx)", v.s, v.u);
    else if (v.u < 256)
        snprintf(buf, len, "%llu", v.u);
    else
        snprintf(buf, len, "%llu (0x%llx)", v.u, v.u);
    return buf;
}

#endif /* GK_TESTS_GK_CHECK_VALUE_H */

/*
 * copy.h: copies for the fast paths, where sizes are small and known only
 * at run time. A variable-length memcpy becomes a call or a string
 * instruction (rep movs) whose start-up costs more than an 8-byte copy:
 * word-sized and small copies are done inline here, longer ones by memcpy.
 */
#ifndef GK_BASE_COPY_H
#define GK_BASE_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Up to 2 * W bytes from W <= n, as two overlapping W-byte copies. */
#define GK__COPY_TWO(d, s, n, W)                                               \
    do {                                                                       \
        unsigned char a_[W], b_[W];                                            \
        __builtin_memcpy(a_, (s), W);                                          \
        __builtin_memcpy(b_, (s) + (n) - (W), W);                              \
        __builtin_memcpy((d), a_, W);                                          \
        __builtin_memcpy((d) + (n) - (W), b_, W);                              \
    } while (0)

/* n bytes; up to 64 inline (two overlapping copies of the largest power
 * of two <= n), longer ones by memcpy. */
static inline void gk__copy_small(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n == 8) { /* the commonest: one word */
        __builtin_memcpy(d, s, 8);
    } else if (n >= 8 && n <= 16) {
        uint64_t a, b;
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + n - 8, 8);
        __builtin_memcpy(d, &a, 8);
        __builtin_memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        __builtin_memcpy(&a, s, 4);
        __builtin_memcpy(&b, s + n - 4, 4);
        __builtin_memcpy(d, &a, 4);
        __builtin_memcpy(d + n - 4, &b, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else if (n <= 32) {
        GK__COPY_TWO(d, s, n, 16);
    } else if (n <= 64) {
        GK__COPY_TWO(d, s, n, 32);
    } else {
        memcpy(d, s, n);
    }
}

/* n words (an active message's arguments). The empty asm keeps the
 * compiler from turning the loop back into a memcpy. */
static inline void gk__copy_args(uint64_t *dst, const uint64_t *src, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        dst[i] = src[i];
        __asm__ __volatile__("");
    }
}

#endif /* GK_BASE_COPY_H */

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

#include "gasket.h"

/* The copy itself is the public header's (gasket_inline.h), so that the
 * inline puts and the library's mapped puts are one copy. */
static inline void gk__copy_small(void *dst, const void *src, size_t n)
{
    gk__inline_copy(dst, src, n);
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

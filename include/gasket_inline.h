/*
 * gasket_inline.h: inline fast paths of the calls on a fine-grained
 * program's critical path (gk_put, gk_put_nbi, the value puts, gk_fence,
 * gk_quiet, gk_wait_until_*), included by gasket.h. Not an API of its own:
 * what is here may change with every release, and a program compiled
 * against one release's header runs only with that release's library
 * (the loader enforces it: see gk__inline_v2 below).
 *
 * Why: on PEs of one node a small put is a bounds check, a copy and a note
 * of the wake-up check it owes, a few nanoseconds of work; a call into the
 * shared library (PLT, saved registers, the same checks again) costs as
 * much again. In an 8-byte flag ping-pong, where every instruction between
 * a flag's arrival and the answer is latency, the calls made gasket 1.4-1.6x
 * a raw store/flag loop, and inline 1.0-1.3x, the inline poll of the waits
 * doing most of it (docs/DESIGN-NOTES.md).
 *
 * Contract: an inline path does exactly what the library's function does
 * on its common path, and only when every check passes and the target's
 * segment is mapped here; in every other case (a bad argument, before
 * gk_init or after gk_finalize, an off-node peer, a size over
 * GK__INLINE_PUT_MAX, a wake-up check owed to another PE) it calls the
 * library function, which reports the error or takes the long way. So
 * results and error messages do not depend on the header.
 *
 * Define GK_NO_INLINE before including gasket.h to call the library
 * always (to interpose gk_ functions, or to debug). Taking a function's
 * address still gives the library function: the macros below take
 * arguments, so a name not followed by '(' is not replaced.
 */
#ifndef GASKET_INLINE_H
#define GASKET_INLINE_H

#ifndef GASKET_H
#error "include gasket.h, which includes this file"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* The library state the fast paths read (written by gk_init/gk_finalize)   */
/* ------------------------------------------------------------------------ */

/*
 * The state's symbol names the version of the contract between this header
 * and the library: the structures below and what the library promises the
 * inline paths (the wake-up rule, the inbox's layout). A program built
 * against another release's header then stops at start-up ("undefined
 * symbol: gk__inline_v2") instead of misreading the state. Bump the number
 * with any such change.
 */
#define gk__inline gk__inline_v2

/* One PE as this PE reaches it. */
struct gk__inline_peer {
    char *seg_base;            /* its segment mapped here, or NULL */
    const uint32_t *sleepers;  /* its wake-up word: non-zero while a PE sleeps */
};

struct gk__inline_state {
    uintptr_t heap;            /* this PE's symmetric heap */
    size_t sym_size;          /* bytes in every PE's heap */
    size_t heap_seg_offset;    /* where a heap starts in its segment */
    unsigned n_pes;            /* 0 outside gk_init..gk_finalize */
    int direct;                /* every peer mapped: operations complete on return */
    unsigned spin_polls;       /* polls an inline wait makes before the library's */
    const struct gk__inline_peer *peers; /* n_pes entries */
    /* This PE's inbox of active messages, for the waits' look at it: the
     * next ticket to run, and where ticket t's slot keeps its sequence
     * word (inbox_seq + (t & inbox_mask) * inbox_stride), which reads
     * t + 1 once that message is ready. */
    const uint64_t *inbox_head;
    const char *inbox_seq;
    uint64_t inbox_mask;
    size_t inbox_stride;
};

/*
 * The wake-up check a plain put owes its target (src/core/path.h): pe is
 * -1 for none, a PE number, or -2 for several; [lo, hi) the owed segment
 * range. Per thread, so threads and their contexts share nothing.
 */
struct gk__wake_debt {
    int pe;
    uint64_t lo, hi;
};

#if defined(__GNUC__)
extern struct gk__inline_state gk__inline __attribute__((visibility("default")));
extern __thread struct gk__wake_debt gk__debt
    __attribute__((visibility("default"), tls_model("initial-exec")));
/* Wakes PE pe if it sleeps watching a word of its segment range [lo, hi). */
void gk__wake_peer(int pe, uint64_t lo, uint64_t hi)
    __attribute__((visibility("default"), cold, noinline));
/* Notes the wake-up check a put of [lo, hi) owes PE pe (src/core/path.h's rule);
 * the library's puts use it too (gk__path_defer_wake). */
static inline void gk__inline_defer_wake(int pe, uint64_t lo, uint64_t hi)
{
    struct gk__wake_debt *debt = &gk__debt;
    if (debt->pe == pe) {
        if (lo < debt->lo)
            debt->lo = lo;
        if (hi > debt->hi)
            debt->hi = hi;
    } else if (debt->pe == -1) {
        debt->pe = pe;
        debt->lo = lo;
        debt->hi = hi;
    } else {
        debt->pe = -2;
    }
}

/* Up to 2 * W bytes from W <= n, as two overlapping W-byte copies. */
#define GK__INLINE_COPY_TWO(d, s, n, W)                                               \
    do {                                                                       \
        unsigned char a_[W], b_[W];                                            \
        __builtin_memcpy(a_, (s), W);                                          \
        __builtin_memcpy(b_, (s) + (n) - (W), W);                              \
        __builtin_memcpy((d), a_, W);                                          \
        __builtin_memcpy((d) + (n) - (W), b_, W);                              \
    } while (0)

/*
 * The copy of the fast paths, the library's (base/copy.h) and the inline
 * puts' below, where sizes are small and known only at run time: a
 * variable-length memcpy becomes a call or a string instruction whose
 * start-up costs more than an 8-byte copy. n bytes; up to 64 inline (two
 * overlapping copies of the largest power of two <= n), longer ones by
 * memcpy.
 */
static inline void gk__inline_copy(void *dst, const void *src, size_t n)
{
    unsigned char *d = (unsigned char *)dst; /* casts: C++ includes this too */
    const unsigned char *s = (const unsigned char *)src;
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
        GK__INLINE_COPY_TWO(d, s, n, 16);
    } else if (n <= 64) {
        GK__INLINE_COPY_TWO(d, s, n, 32);
    } else {
        __builtin_memcpy(d, s, n);
    }
}

/* Non-zero when an active message waits to run here (only while
 * initialized): a hint, the library takes the message with its own checks.
 * The library's progress engine looks here too (core/progress.h). */
static inline int gk__inline_inbox_ready(void)
{
    const struct gk__inline_state *s = &gk__inline;
    uint64_t head = __atomic_load_n(s->inbox_head, __ATOMIC_RELAXED);
    const uint64_t *seq =
        (const uint64_t *)(const void *)(s->inbox_seq + (head & s->inbox_mask) * s->inbox_stride);
    return __atomic_load_n(seq, __ATOMIC_RELAXED) == head + 1;
}

/* Folds what is owed to PE pe, if pe is the PE owed, into the wake-up
 * check of its [*lo_p, *hi_p) about to be made (a flag after its payload):
 * the range widens, and nothing stays owed. The inline value puts and the
 * library's (src/core/path.h) both pay a debt so. */
static inline void gk__inline_take_debt(int pe, uint64_t *lo_p, uint64_t *hi_p)
{
    struct gk__wake_debt *debt = &gk__debt;
    if (debt->pe == pe) {
        if (debt->lo < *lo_p)
            *lo_p = debt->lo;
        if (debt->hi > *hi_p)
            *hi_p = debt->hi;
        debt->pe = -1;
    }
}

/* The pause of a spin loop; base/wait.h's gk__cpu_relax is this one. */
static inline void gk__inline_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

#endif

#if defined(__GNUC__) && !defined(GK_NO_INLINE) && !defined(GK__BUILDING_LIBRARY)

/* Puts up to this size copy inline; larger ones take the library's copy. */
#define GK__INLINE_PUT_MAX 256

#define GK__INLINE_LIKELY(x) __builtin_expect(!!(x), 1)

/* ThreadSanitizer rejects fences (GCC: -Wtsan) and does not model them:
 * under it the calls that fence (value puts, gk_fence, gk_quiet) go to
 * the library, whose fences it is built to accept; the rest stay inline. */
#if defined(__SANITIZE_THREAD__)
#define GK__INLINE_NO_FENCES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GK__INLINE_NO_FENCES 1
#endif
#endif

/* A put done inline: 1, or 0 when the library must do it. */
static inline int gk__inline_put(int pe, void *dst, const void *src, size_t nbytes)
{
    const struct gk__inline_state *s = &gk__inline;
    size_t off = (size_t)((uintptr_t)dst - s->heap);
    /* n_pes is 0 outside init, so the sym_size arithmetic is never
     * reached then; nbytes - 1 wraps for 0, which the library handles. */
    if (GK__INLINE_LIKELY((unsigned)pe < s->n_pes && nbytes - 1 < GK__INLINE_PUT_MAX &&
                          off <= s->sym_size - nbytes && src != NULL)) {
        char *base = s->peers[pe].seg_base;
        if (GK__INLINE_LIKELY(base != NULL)) {
            /* The library's mapped put (src/core/path.h) is these two
             * steps, the same copy and the same owed wake-up. */
            uint64_t lo = s->heap_seg_offset + off;
            gk__inline_copy(base + lo, src, nbytes);
            gk__inline_defer_wake(pe, lo, lo + nbytes);
            return 1;
        }
    }
    return 0;
}

static inline int gk__put_inline(int pe, void *dst, const void *src, size_t nbytes)
{
    return gk__inline_put(pe, dst, src, nbytes) ? 0 : (gk_put)(pe, dst, src, nbytes);
}

static inline int gk__put_nbi_inline(int pe, void *dst, const void *src, size_t nbytes)
{
    return gk__inline_put(pe, dst, src, nbytes) ? 0 : (gk_put_nbi)(pe, dst, src, nbytes);
}

#ifndef GK__INLINE_NO_FENCES

/*
 * Value puts: one naturally aligned store, then the wake-up check, which
 * also pays what earlier puts to the same PE owe (the payload-then-flag
 * pattern): one full fence and one load of the target's sleeper count.
 * A debt owed to another PE goes to the library, which pays both.
 */
#define GK__INLINE_VALUE_PUT(bits)                                             \
    static inline int gk__put_u##bits##_inline(int pe, uint##bits##_t *dst,    \
                                               uint##bits##_t value)          \
    {                                                                          \
        const struct gk__inline_state *s = &gk__inline;                        \
        size_t off = (size_t)((uintptr_t)dst - s->heap);                       \
        int owed = gk__debt.pe;                                                \
        if (GK__INLINE_LIKELY((unsigned)pe < s->n_pes &&                       \
                              off <= s->sym_size - sizeof(value) &&            \
                              ((uintptr_t)dst & (sizeof(value) - 1)) == 0 &&   \
                              (owed == -1 || owed == pe) &&                    \
                              s->peers[pe].seg_base != NULL)) {                \
            uint64_t lo = s->heap_seg_offset + off, hi = lo + sizeof(value);   \
            __atomic_store_n((uint##bits##_t *)(void *)(s->peers[pe].seg_base + lo), \
                             value, __ATOMIC_RELAXED);                         \
            gk__inline_take_debt(pe, &lo, &hi);                                \
            __atomic_thread_fence(__ATOMIC_SEQ_CST);                           \
            if (__builtin_expect(                                              \
                    __atomic_load_n(s->peers[pe].sleepers, __ATOMIC_ACQUIRE) != 0, 0)) \
                gk__wake_peer(pe, lo, hi);                                     \
            return 0;                                                          \
        }                                                                      \
        return (gk_put_u##bits)(pe, dst, value);                               \
    }

GK__INLINE_VALUE_PUT(8)
GK__INLINE_VALUE_PUT(16)
GK__INLINE_VALUE_PUT(32)
GK__INLINE_VALUE_PUT(64)
#undef GK__INLINE_VALUE_PUT

/* Ordering between puts to one PE: on mapped peers a release fence (no
 * instruction on x86: stores are not reordered with stores). */
static inline int gk__fence_inline(void)
{
    if (GK__INLINE_LIKELY(gk__inline.direct)) {
        __atomic_thread_fence(__ATOMIC_RELEASE);
        return 0;
    }
    return (gk_fence)();
}

/* Completion: on mapped peers one full fence, when no wake-up check is owed. */
static inline int gk__quiet_inline(void)
{
    if (GK__INLINE_LIKELY(gk__inline.direct && gk__debt.pe == -1)) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return 0;
    }
    return (gk_quiet)();
}

#endif /* GK__INLINE_NO_FENCES */

/*
 * Point-to-point waits: the first polls are inline, a ping-pong's wait is
 * usually over within them and every instruction between the flag's
 * arrival and the return is latency. At most spin_polls polls (a few
 * hundred nanoseconds, none on an oversubscribed node, where the PE waited
 * for may need this CPU), then the library waits (spin, yield, sleep,
 * serving active messages). An active message that arrives meanwhile
 * sends the wait to the library at once, which runs it first: the word
 * waited for may be one its handler sets. A condition met inline blocks
 * nothing, so wake-up checks this PE owes wait for its next blocking call,
 * as after any call that does not block.
 */
#define GK__INLINE_WAIT(T, ctype)                                              \
    static inline int gk__wait_until_##T##_inline(ctype *ivar, gk_cmp_t cmp,   \
                                                  ctype value)                 \
    {                                                                          \
        const struct gk__inline_state *s = &gk__inline;                        \
        size_t off = (size_t)((uintptr_t)ivar - s->heap);                      \
        if (GK__INLINE_LIKELY(s->n_pes != 0 && off <= s->sym_size - sizeof(value) && \
                              ((uintptr_t)ivar & (sizeof(value) - 1)) == 0 &&  \
                              (unsigned)cmp <= GK_CMP_LE)) {                   \
            unsigned polls = s->spin_polls;                                    \
            for (unsigned i = 0;; i++) {                                       \
                ctype now = __atomic_load_n(ivar, __ATOMIC_ACQUIRE);           \
                if (cmp == GK_CMP_EQ ? now == value                            \
                    : cmp == GK_CMP_NE ? now != value                          \
                    : cmp == GK_CMP_GT ? now > value                           \
                    : cmp == GK_CMP_GE ? now >= value                          \
                    : cmp == GK_CMP_LT ? now < value                           \
                    : now <= value)                                            \
                    return 0;                                                  \
                if (i >= polls || gk__inline_inbox_ready())                    \
                    break;                                                     \
                gk__inline_relax();                                            \
            }                                                                  \
        }                                                                      \
        return (gk_wait_until_##T)(ivar, cmp, value);                          \
    }

GK__INLINE_WAIT(i32, int32_t)
GK__INLINE_WAIT(u32, uint32_t)
GK__INLINE_WAIT(i64, int64_t)
GK__INLINE_WAIT(u64, uint64_t)
#undef GK__INLINE_WAIT

#define gk_put(pe, dst, src, nbytes) gk__put_inline(pe, dst, src, nbytes)
#define gk_put_nbi(pe, dst, src, nbytes) gk__put_nbi_inline(pe, dst, src, nbytes)
#ifndef GK__INLINE_NO_FENCES
#define gk_put_u8(pe, dst, value) gk__put_u8_inline(pe, dst, value)
#define gk_put_u16(pe, dst, value) gk__put_u16_inline(pe, dst, value)
#define gk_put_u32(pe, dst, value) gk__put_u32_inline(pe, dst, value)
#define gk_put_u64(pe, dst, value) gk__put_u64_inline(pe, dst, value)
#define gk_fence() gk__fence_inline()
#define gk_quiet() gk__quiet_inline()
#endif
#define gk_wait_until_i32(ivar, cmp, value) gk__wait_until_i32_inline(ivar, cmp, value)
#define gk_wait_until_u32(ivar, cmp, value) gk__wait_until_u32_inline(ivar, cmp, value)
#define gk_wait_until_i64(ivar, cmp, value) gk__wait_until_i64_inline(ivar, cmp, value)
#define gk_wait_until_u64(ivar, cmp, value) gk__wait_until_u64_inline(ivar, cmp, value)

#endif /* inline fast paths */

#ifdef __cplusplus
}
#endif

#endif /* GASKET_INLINE_H */

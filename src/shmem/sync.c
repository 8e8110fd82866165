/*
 * sync.c: point-to-point synchronization (spec "Point-To-Point
 * Synchronization Routines": wait_until, test and their all/any/some and
 * vector forms) and the signal routines' waits (shmem_signal_fetch,
 * shmem_signal_wait_until).
 *
 * The single-word waits and tests on 32- and 64-bit types are gasket's
 * gk_wait_until_T and gk_test_T. The rest (16-bit words, arrays, one value
 * per word) is one generic condition over the words, waited for by
 * sync/'s gk__wait_until_pred(): the same policy as every gasket wait
 * (spin, yield, then sleep until another PE writes to this one), never a
 * bare spin. The words are checked first by the native test of the
 * aligned 32- or 64-bit word that holds each of them, so a word outside
 * the heap or a bad comparison gets gasket's own message.
 */
#include <stdint.h>

#include "base/log.h"
#include "shmem/shmem_int.h"
#include "sync/wait_until.h"

struct p2p {
    const char *routine;
    const char *ivars;  /* nelems words of `width` bytes */
    size_t n;
    size_t width;       /* 2, 4 or 8 */
    int is_signed;
    const int *status;  /* non-zero status[i]: word i left out; may be NULL */
    int cmp;
    const void *value;  /* one value for every word ... */
    const char *values; /* ... or one per word (the vector forms) */
    /* What the last look found (written by the predicates). */
    size_t *indices;    /* the some forms: where to list the words that hold */
    size_t found;       /* any: the index found; some: how many */
    size_t start;       /* any: the index to look at first */
};

/*
 * The any forms look first just past the index they answered last for
 * the same ivars (in this thread, whichever any form), so that a program
 * that loops on test_any or wait_until_any without excluding what it has
 * seen is given every index that holds in turn, not the lowest one for
 * ever. The cursor is kept per array: with one cursor for all, a loop
 * that polls two arrays in turn would be answered only the even indices
 * of one and the odd ones of the other. A thread keeps the cursors of the
 * last P2P_ANY_ARRAYS arrays it polled; a forgotten array starts at 0.
 */
#define P2P_ANY_ARRAYS 8
static _Thread_local struct {
    const char *ivars;
    size_t next;
} p2p_any_cursor[P2P_ANY_ARRAYS];
static _Thread_local unsigned p2p_any_victim;

static size_t *p2p_any_next(const char *ivars)
{
    for (int i = 0; i < P2P_ANY_ARRAYS; i++)
        if (p2p_any_cursor[i].ivars == ivars)
            return &p2p_any_cursor[i].next;
    unsigned v = p2p_any_victim++ % P2P_ANY_ARRAYS;
    p2p_any_cursor[v].ivars = ivars;
    p2p_any_cursor[v].next = 0;
    return &p2p_any_cursor[v].next;
}

static int p2p_left_in(const struct p2p *w, size_t i)
{
    return w->status == NULL || w->status[i] == 0;
}

static int64_t p2p_load_signed(const void *p, size_t width)
{
    switch (width) {
    case 2: return __atomic_load_n((const int16_t *)p, __ATOMIC_ACQUIRE);
    case 4: return __atomic_load_n((const int32_t *)p, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((const int64_t *)p, __ATOMIC_ACQUIRE);
    }
}

static uint64_t p2p_load_unsigned(const void *p, size_t width)
{
    switch (width) {
    case 2: return __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
    case 4: return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

#define P2P_COMPARE(a, cmp, b)                                                 \
    ((cmp) == SHMEM_CMP_EQ   ? (a) == (b)                                      \
     : (cmp) == SHMEM_CMP_NE ? (a) != (b)                                      \
     : (cmp) == SHMEM_CMP_GT ? (a) > (b)                                       \
     : (cmp) == SHMEM_CMP_GE ? (a) >= (b)                                      \
     : (cmp) == SHMEM_CMP_LT ? (a) < (b)                                       \
                             : (a) <= (b))

static int p2p_holds(const struct p2p *w, size_t i)
{
    const void *word = w->ivars + i * w->width;
    const void *value = w->values != NULL ? w->values + i * w->width : w->value;
    if (w->is_signed) {
        int64_t a = p2p_load_signed(word, w->width);
        int64_t b = p2p_load_signed(value, w->width);
        return P2P_COMPARE(a, w->cmp, b);
    }
    uint64_t a = p2p_load_unsigned(word, w->width);
    uint64_t b = p2p_load_unsigned(value, w->width);
    return P2P_COMPARE(a, w->cmp, b);
}

/* The native checks of each word left in: inside this PE's heap, aligned,
 * and a valid comparison. */
static void p2p_check(const struct p2p *w)
{
    for (size_t i = 0; i < w->n; i++) {
        if (!p2p_left_in(w, i))
            continue;
        uintptr_t addr = (uintptr_t)(w->ivars + i * w->width);
        int satisfied, status;
        if (addr % w->width != 0) {
            gk__error("%s: ivars[%zu] at %p is not aligned to its %zu bytes", w->routine,
                      i, (void *)addr, w->width);
            gk__shmem_fail(w->routine, GK_ERR_ALIGN);
        }
        if (w->width == 8)
            status = gk_test_u64((uint64_t *)addr, (gk_cmp_t)w->cmp, 0, &satisfied);
        else
            status = gk_test_u32((uint32_t *)(addr & ~(uintptr_t)3), (gk_cmp_t)w->cmp, 0,
                                 &satisfied);
        SHMEM_CHECK(w->routine, status);
    }
}

/* For check mode's report of a wait that cannot end: the first word the
 * wait still waits for. */
static void p2p_describe(const void *arg, char *buf, size_t size)
{
    const struct p2p *w = arg;
    for (size_t i = 0; i < w->n; i++) {
        if (p2p_left_in(w, i) && !p2p_holds(w, i)) {
            const char *value = w->values != NULL ? w->values + i * w->width : w->value;
            uint64_t v = w->is_signed ? (uint64_t)p2p_load_signed(value, w->width)
                                      : p2p_load_unsigned(value, w->width);
            gk__wait_describe(buf, size, w->ivars + i * w->width, w->cmp, v,
                              (unsigned)w->width, w->is_signed);
            return;
        }
    }
}

static int p2p_one_holds(const void *arg)
{
    const struct p2p *w = arg;
    return p2p_holds(w, w->found);
}

static int p2p_any_holds(const void *arg)
{
    struct p2p *w = (struct p2p *)arg;
    for (size_t k = 0, i = w->start; k < w->n; k++, i = i + 1 < w->n ? i + 1 : 0) {
        if (p2p_left_in(w, i) && p2p_holds(w, i)) {
            w->found = i;
            *p2p_any_next(w->ivars) = i + 1;
            return 1;
        }
    }
    return 0;
}

static int p2p_some_hold(const void *arg)
{
    struct p2p *w = (struct p2p *)arg;
    size_t count = 0;
    for (size_t i = 0; i < w->n; i++)
        if (p2p_left_in(w, i) && p2p_holds(w, i))
            w->indices[count++] = i;
    w->found = count;
    return count > 0;
}

static size_t p2p_count_left_in(const struct p2p *w)
{
    size_t left = 0;
    for (size_t i = 0; i < w->n; i++)
        left += p2p_left_in(w, i) != 0;
    return left;
}

static void p2p_wait_all(struct p2p *w)
{
    p2p_check(w);
    for (size_t i = 0; i < w->n; i++) {
        if (!p2p_left_in(w, i))
            continue;
        w->found = i;
        SHMEM_CHECK(w->routine, gk__wait_until_pred(w->routine, p2p_one_holds, w, p2p_describe));
    }
}

static size_t p2p_wait_any(struct p2p *w)
{
    p2p_check(w);
    if (p2p_count_left_in(w) == 0)
        return SIZE_MAX;
    size_t next = *p2p_any_next(w->ivars);
    w->start = next < w->n ? next : 0;
    SHMEM_CHECK(w->routine, gk__wait_until_pred(w->routine, p2p_any_holds, w, p2p_describe));
    return w->found;
}

static size_t p2p_wait_some(struct p2p *w)
{
    p2p_check(w);
    if (p2p_count_left_in(w) == 0)
        return 0;
    SHMEM_CHECK(w->routine, gk__wait_until_pred(w->routine, p2p_some_hold, w, p2p_describe));
    return w->found;
}

static int p2p_test_all(struct p2p *w)
{
    p2p_check(w);
    gk__wait_test_settle();
    for (size_t i = 0; i < w->n; i++)
        if (p2p_left_in(w, i) && !p2p_holds(w, i))
            return 0;
    return 1;
}

static size_t p2p_test_any(struct p2p *w)
{
    p2p_check(w);
    gk__wait_test_settle();
    size_t next = *p2p_any_next(w->ivars);
    w->start = next < w->n ? next : 0;
    return p2p_any_holds(w) ? w->found : SIZE_MAX;
}

static size_t p2p_test_some(struct p2p *w)
{
    p2p_check(w);
    gk__wait_test_settle();
    p2p_some_hold(w);
    return w->found;
}

/* The single-word forms of the 32- and 64-bit types go to gasket's own. */
#define P2P_NATIVE(W, S)                                                       \
    (W == 4 ? (S ? 0 : 1) : W == 8 ? (S ? 2 : 3) : -1)
static void p2p_wait_native(const char *routine, int kind, void *ivar, int cmp,
                            const void *value)
{
    int status;
    switch (kind) {
    case 0: status = gk_wait_until_i32(ivar, (gk_cmp_t)cmp, *(const int32_t *)value); break;
    case 1: status = gk_wait_until_u32(ivar, (gk_cmp_t)cmp, *(const uint32_t *)value); break;
    case 2: status = gk_wait_until_i64(ivar, (gk_cmp_t)cmp, *(const int64_t *)value); break;
    default: status = gk_wait_until_u64(ivar, (gk_cmp_t)cmp, *(const uint64_t *)value); break;
    }
    SHMEM_CHECK(routine, status);
}

static int p2p_test_native(const char *routine, int kind, void *ivar, int cmp,
                           const void *value)
{
    int status, satisfied = 0;
    switch (kind) {
    case 0:
        status = gk_test_i32(ivar, (gk_cmp_t)cmp, *(const int32_t *)value, &satisfied);
        break;
    case 1:
        status = gk_test_u32(ivar, (gk_cmp_t)cmp, *(const uint32_t *)value, &satisfied);
        break;
    case 2:
        status = gk_test_i64(ivar, (gk_cmp_t)cmp, *(const int64_t *)value, &satisfied);
        break;
    default:
        status = gk_test_u64(ivar, (gk_cmp_t)cmp, *(const uint64_t *)value, &satisfied);
        break;
    }
    SHMEM_CHECK(routine, status);
    return satisfied;
}

#define P2P_SIGNED(T) ((T)-1 < (T)1) /* not "< 0": -Wtype-limits */
#define P2P_INIT(NAME, T, IVARS, N, STATUS, CMP, VALUE, VALUES, INDICES)       \
    {.routine = NAME, .ivars = (const char *)(IVARS), .n = (N), .width = sizeof(T), \
     .is_signed = P2P_SIGNED(T), .status = (STATUS), .cmp = (CMP), .value = (VALUE), \
     .values = (const char *)(VALUES), .indices = (INDICES)}

#define P2P_DEFINE(T, N)                                                       \
    _Static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,         \
                   "point-to-point types are 2, 4 or 8 bytes");                \
    SHMEM_DEFINE(void, N##_wait_until, (T * ivar, int cmp, T cmp_value))       \
    {                                                                          \
        const char *r = "shmem_" #N "_wait_until";                             \
        int kind = P2P_NATIVE(sizeof(T), P2P_SIGNED(T));                       \
        if (kind >= 0) {                                                       \
            p2p_wait_native(r, kind, ivar, cmp, &cmp_value);                   \
        } else {                                                               \
            struct p2p w = P2P_INIT(r, T, ivar, 1, NULL, cmp, &cmp_value, NULL, NULL); \
            p2p_wait_all(&w);                                                  \
        }                                                                      \
    }                                                                          \
    SHMEM_DEFINE(int, N##_test, (T * ivar, int cmp, T cmp_value))              \
    {                                                                          \
        const char *r = "shmem_" #N "_test";                                   \
        int kind = P2P_NATIVE(sizeof(T), P2P_SIGNED(T));                       \
        if (kind >= 0)                                                         \
            return p2p_test_native(r, kind, ivar, cmp, &cmp_value);            \
        struct p2p w = P2P_INIT(r, T, ivar, 1, NULL, cmp, &cmp_value, NULL, NULL); \
        return p2p_test_all(&w);                                               \
    }                                                                          \
    SHMEM_DEFINE(void, N##_wait_until_all,                                     \
                 (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value)) \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_wait_until_all", T, ivars, nelems, status, \
                                cmp, &cmp_value, NULL, NULL);                  \
        p2p_wait_all(&w);                                                      \
    }                                                                          \
    SHMEM_DEFINE(size_t, N##_wait_until_any,                                   \
                 (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value)) \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_wait_until_any", T, ivars, nelems, status, \
                                cmp, &cmp_value, NULL, NULL);                  \
        return p2p_wait_any(&w);                                               \
    }                                                                          \
    SHMEM_DEFINE(size_t, N##_wait_until_some,                                  \
                 (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                  T cmp_value))                                                \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_wait_until_some", T, ivars, nelems,       \
                                status, cmp, &cmp_value, NULL, indices);       \
        return p2p_wait_some(&w);                                              \
    }                                                                          \
    SHMEM_DEFINE(void, N##_wait_until_all_vector,                              \
                 (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values)) \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_wait_until_all_vector", T, ivars, nelems, \
                                status, cmp, NULL, cmp_values, NULL);          \
        p2p_wait_all(&w);                                                      \
    }                                                                          \
    SHMEM_DEFINE(size_t, N##_wait_until_any_vector,                            \
                 (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values)) \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_wait_until_any_vector", T, ivars, nelems, \
                                status, cmp, NULL, cmp_values, NULL);          \
        return p2p_wait_any(&w);                                               \
    }                                                                          \
    SHMEM_DEFINE(size_t, N##_wait_until_some_vector,                           \
                 (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                  T *cmp_values))                                              \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_wait_until_some_vector", T, ivars,        \
                                nelems, status, cmp, NULL, cmp_values, indices); \
        return p2p_wait_some(&w);                                              \
    }                                                                          \
    SHMEM_DEFINE(int, N##_test_all,                                            \
                 (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value)) \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_test_all", T, ivars, nelems, status, cmp, \
                                &cmp_value, NULL, NULL);                       \
        return p2p_test_all(&w);                                               \
    }                                                                          \
    SHMEM_DEFINE(size_t, N##_test_any,                                         \
                 (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value)) \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_test_any", T, ivars, nelems, status, cmp, \
                                &cmp_value, NULL, NULL);                       \
        return p2p_test_any(&w);                                               \
    }                                                                          \
    SHMEM_DEFINE(size_t, N##_test_some,                                        \
                 (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                  T cmp_value))                                                \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_test_some", T, ivars, nelems, status, cmp, \
                                &cmp_value, NULL, indices);                    \
        return p2p_test_some(&w);                                              \
    }                                                                          \
    SHMEM_DEFINE(int, N##_test_all_vector,                                     \
                 (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values)) \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_test_all_vector", T, ivars, nelems, status, \
                                cmp, NULL, cmp_values, NULL);                  \
        return p2p_test_all(&w);                                               \
    }                                                                          \
    SHMEM_DEFINE(size_t, N##_test_any_vector,                                  \
                 (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values)) \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_test_any_vector", T, ivars, nelems, status, \
                                cmp, NULL, cmp_values, NULL);                  \
        return p2p_test_any(&w);                                               \
    }                                                                          \
    SHMEM_DEFINE(size_t, N##_test_some_vector,                                 \
                 (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                  T *cmp_values))                                              \
    {                                                                          \
        struct p2p w = P2P_INIT("shmem_" #N "_test_some_vector", T, ivars, nelems,      \
                                status, cmp, NULL, cmp_values, indices);       \
        return p2p_test_some(&w);                                              \
    }
SHMEM_P2P_TYPES(P2P_DEFINE)

SHMEM_DEFINE(uint64_t, signal_fetch, (const uint64_t *sig_addr))
{
    uint64_t value;
    SHMEM_CHECK("shmem_signal_fetch", gk_signal_fetch(sig_addr, &value));
    return value;
}

SHMEM_DEFINE(uint64_t, signal_wait_until, (uint64_t *sig_addr, int cmp, uint64_t cmp_value))
{
    uint64_t value;
    SHMEM_CHECK("shmem_signal_wait_until",
                gk_signal_wait_until(sig_addr, (gk_cmp_t)cmp, cmp_value, &value));
    return value;
}

/* The deprecated waits (OpenSHMEM 1.4): shmem_TYPENAME_wait and shmem_wait
 * wait until the word is no longer cmp_value; shmem_wait_until is the long
 * form (in C11, shmem.h's generic shmem_wait_until takes its place). */
#define P2P_DEPR_WAIT(T, N)                                                    \
    SHMEM_DEFINE(void, N##_wait, (T * ivar, T cmp_value))                      \
    {                                                                          \
        pshmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                \
    }
SHMEM_DEPR_WAIT_TYPES(P2P_DEPR_WAIT)

SHMEM_DEFINE(void, wait, (long *ivar, long cmp_value))
{
    pshmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value);
}

SHMEM_DEFINE(void, wait_until, (long *ivar, int cmp, long cmp_value))
{
    pshmem_long_wait_until(ivar, cmp, cmp_value);
}

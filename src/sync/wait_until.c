/*
 * wait_until.c: point-to-point waits on a local heap word (gk_wait_until_T,
 * gk_test_T) and on arrays of them (the _all, _any and _some forms). The
 * condition is checked inline first; only an unsatisfied wait goes to
 * base/wait.c's spin-yield-sleep loop, woken by the wake-up check every
 * remote write makes.
 */
#include "sync/wait_until.h"

#include <stdio.h>

#include "base/log.h"
#include "base/wait.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "core/path.h"

struct wait_cond {
    const void *ivar;
    uint64_t value;
    gk_cmp_t cmp;
    unsigned width;
    int is_signed;
    uint64_t *seen; /* where to keep the value that satisfied, or NULL */
};

static int wait_compare(int64_t sdiff_sign, gk_cmp_t cmp)
{
    switch (cmp) {
    case GK_CMP_EQ:
        return sdiff_sign == 0;
    case GK_CMP_NE:
        return sdiff_sign != 0;
    case GK_CMP_GT:
        return sdiff_sign > 0;
    case GK_CMP_GE:
        return sdiff_sign >= 0;
    case GK_CMP_LT:
        return sdiff_sign < 0;
    case GK_CMP_LE:
        return sdiff_sign <= 0;
    }
    return 0;
}

/* Loads the word with acquire (data written before it is visible after)
 * and compares: -1, 0, 1 as the word is below, equal to, above the value;
 * *seen_p (may be NULL) gets the word. */
static int word_order(const void *ivar, unsigned width, int is_signed, uint64_t value,
                      uint64_t *seen_p)
{
    int order;
    if (width == 4) {
        uint32_t v = __atomic_load_n((const uint32_t *)ivar, __ATOMIC_ACQUIRE);
        if (is_signed)
            order = ((int32_t)v > (int32_t)value) - ((int32_t)v < (int32_t)value);
        else
            order = (v > (uint32_t)value) - (v < (uint32_t)value);
        if (seen_p != NULL)
            *seen_p = v;
    } else {
        uint64_t v = __atomic_load_n((const uint64_t *)ivar, __ATOMIC_ACQUIRE);
        if (is_signed)
            order = ((int64_t)v > (int64_t)value) - ((int64_t)v < (int64_t)value);
        else
            order = (v > value) - (v < value);
        if (seen_p != NULL)
            *seen_p = v;
    }
    return order;
}

/* Check mode: a wait or test that saw its word joins the clocks of
 * whoever wrote it (core/path_race.c); one on a predicate, of whoever
 * wrote to this PE. */
static int wait_seen(int holds)
{
    if (holds)
        gk__race_acquire_own();
    return holds;
}

static int wait_seen_word(int holds, const void *word, size_t width)
{
    if (holds)
        gk__race_acquire_own_word(word, width);
    return holds;
}

static int wait_cond_holds(const void *arg)
{
    const struct wait_cond *c = arg;
    return wait_seen_word(wait_compare(word_order(c->ivar, c->width, c->is_signed, c->value,
                                                  c->seen),
                                       c->cmp),
                          c->ivar, c->width);
}

void gk__wait_describe(char *buf, size_t size, const void *word, int cmp, uint64_t value,
                       unsigned width, int is_signed)
{
    static const char *const names[] = {"==", "!=", ">", ">=", "<", "<="};
    uint64_t now = width == 2   ? __atomic_load_n((const uint16_t *)word, __ATOMIC_ACQUIRE)
                   : width == 4 ? __atomic_load_n((const uint32_t *)word, __ATOMIC_ACQUIRE)
                                : __atomic_load_n((const uint64_t *)word, __ATOMIC_ACQUIRE);
    uint64_t mask = width >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * width)) - 1;
    now &= mask;
    /* A signed word's value as it is read: sign-extend from its width. */
    uint64_t sign = (uint64_t)1 << (8 * width - 1);
    if (is_signed)
        snprintf(buf, size, "the word at %p %s %lld (it holds %lld)", word,
                 (unsigned)cmp <= 5 ? names[cmp] : "?",
                 (long long)(int64_t)(((value & mask) ^ sign) - sign),
                 (long long)(int64_t)((now ^ sign) - sign));
    else
        snprintf(buf, size, "the word at %p %s %llu (it holds %llu)", word,
                 (unsigned)cmp <= 5 ? names[cmp] : "?", (unsigned long long)(value & mask),
                 (unsigned long long)now);
}

static void wait_cond_describe(const void *arg, char *buf, size_t size)
{
    const struct wait_cond *c = arg;
    gk__wait_describe(buf, size, c->ivar, c->cmp, c->value, c->width, c->is_signed);
}

/* The program's wait on c's word at segment offset `offset`. */
static int wait_cond_wait(const char *op, const struct wait_cond *c, size_t offset, int spun)
{
    struct gk__path_user_wait w = {op, offset, wait_cond_holds, c, wait_cond_describe};
    return gk__path_wait_user(&w, spun);
}

static int wait_check(const char *op, const struct wait_cond *c, size_t *offset_p)
{
    size_t offset = 0;
    int status = gk__rt_check_word(op, gk__rt.my_pe, c->ivar, c->width, &offset);
    *offset_p = offset;
    if (status == GK_OK && (unsigned)c->cmp > GK_CMP_LE) {
        gk__error("%s: comparison %d is not one of GK_CMP_EQ .. GK_CMP_LE", op,
                  (int)c->cmp);
        status = GK_ERR_INVALID_ARG;
    }
    return status;
}

static int wait_until(const char *op, const struct wait_cond *c)
{
    size_t offset;
    int status = wait_check(op, c, &offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (wait_cond_holds(c))
        return GK_OK;
    if (GK__UNLIKELY(gk__in_handler)) /* it would wait for its own progress */
        return gk__progress_report_in_handler(op);
    gk__path_flush_wakes(); /* before we block, wake whoever we owe */
    return wait_cond_wait(op, c, offset, 0);
}

static int wait_test(const char *op, const struct wait_cond *c, int *satisfied_p)
{
    size_t offset;
    gk__path_flush_wakes(); /* a test in a loop is a wait: pay owed wake-ups */
    gk__wait_progress();  /* and serve active messages, as a wait does */
    int status = wait_check(op, c, &offset);
    if (status == GK_OK && satisfied_p == NULL)
        status = gk__rt_report_null(op, "satisfied_p", 1);
    if (status == GK_OK)
        *satisfied_p = wait_cond_holds(c);
    return status;
}

/*
 * The spin phase, typed and with the comparison chosen once outside the
 * loop: a ping-pong's wait is usually over within it, and then every
 * instruction between the store arriving and our return is latency.
 * Every poll serves the inbox if a message is ready (the word may be
 * one a handler sets).
 */
#define WAIT_SPIN(ctype, op)                                                   \
    for (unsigned i_ = 0; i_ < spins; i_++) {                                  \
        if (__atomic_load_n(ivar, __ATOMIC_ACQUIRE) op value)                  \
            return (void)wait_seen_word(1, ivar, sizeof(*ivar)), GK_OK;        \
        if (gk__progress_if_ready() > 0)                                       \
            continue; /* the handler may have set it: look before pausing */   \
        gk__cpu_relax();                                                       \
    }                                                                          \
    break;

#define WAIT_DEFINE(T, ctype, utype, signedness)                               \
    int gk_wait_until_##T(ctype *ivar, gk_cmp_t cmp, ctype value)              \
    {                                                                          \
        struct wait_cond c = {ivar, (uint64_t)(utype)value, cmp,               \
                              sizeof(ctype), signedness, NULL};                \
        size_t offset;                                                         \
        int status = wait_check("gk_wait_until_" #T, &c, &offset);             \
        if (GK__UNLIKELY(status != GK_OK))                                     \
            return status;                                                     \
        gk__path_flush_wakes(); /* we may block: wake whoever we owe first */    \
        unsigned spins = gk__wait_policy.spin_count;                           \
        switch (cmp) {                                                         \
        case GK_CMP_EQ: WAIT_SPIN(ctype, ==)                                   \
        case GK_CMP_NE: WAIT_SPIN(ctype, !=)                                   \
        case GK_CMP_GT: WAIT_SPIN(ctype, >)                                    \
        case GK_CMP_GE: WAIT_SPIN(ctype, >=)                                   \
        case GK_CMP_LT: WAIT_SPIN(ctype, <)                                    \
        case GK_CMP_LE: WAIT_SPIN(ctype, <=)                                   \
        }                                                                      \
        if (GK__UNLIKELY(gk__in_handler))                                      \
            return gk__progress_report_in_handler("gk_wait_until_" #T);        \
        return wait_cond_wait("gk_wait_until_" #T, &c, offset, 1);            \
    }                                                                          \
    int gk_test_##T(ctype *ivar, gk_cmp_t cmp, ctype value, int *satisfied_p)  \
    {                                                                          \
        struct wait_cond c = {ivar, (uint64_t)(utype)value, cmp,               \
                              sizeof(ctype), signedness, NULL};                \
        return wait_test("gk_test_" #T, &c, satisfied_p);                      \
    }

WAIT_DEFINE(i32, int32_t, uint32_t, 1)
WAIT_DEFINE(u32, uint32_t, uint32_t, 0)
WAIT_DEFINE(i64, int64_t, uint64_t, 1)
WAIT_DEFINE(u64, uint64_t, uint64_t, 0)

int gk__wait_until_u64_seen(const char *op, uint64_t *ivar, gk_cmp_t cmp,
                            uint64_t value, uint64_t *seen_p)
{
    uint64_t seen = 0;
    struct wait_cond c = {ivar, value, cmp, sizeof(uint64_t), 0, &seen};
    int status = wait_until(op, &c);
    if (status == GK_OK && seen_p != NULL)
        *seen_p = seen;
    return status;
}

/*
 * The array forms. Each word is compared as above; status[i] != 0 leaves
 * word i out. "all" waits for each word in turn with the one-word wait (a
 * sleeper then watches exactly the word it needs); "any" and "some" look
 * at every word on each poll, and a sleeper among several words watches
 * them all (GK__WAKE_WATCH_ANY: one watch word per PE), so any write to
 * this PE wakes it to look again.
 */
struct wait_array {
    const char *ivars;
    size_t n;
    const int *excluded;
    uint64_t value;
    gk_cmp_t cmp;
    unsigned width;
    int is_signed;
    size_t *indices; /* "some": where the satisfied indices go */
    size_t *found;   /* "any": the index found; "some": how many */
};

static int array_word_holds(const struct wait_array *a, size_t i)
{
    const char *word = a->ivars + i * a->width;
    return wait_seen_word(
        wait_compare(word_order(word, a->width, a->is_signed, a->value, NULL), a->cmp), word,
        a->width);
}

static int array_left_in(const struct wait_array *a, size_t i)
{
    return a->excluded == NULL || a->excluded[i] == 0;
}

/* "any": the lowest satisfied index into *found. */
static int array_any_holds(const void *arg)
{
    const struct wait_array *a = arg;
    for (size_t i = 0; i < a->n; i++) {
        if (array_left_in(a, i) && array_word_holds(a, i)) {
            *a->found = i;
            return 1;
        }
    }
    return 0;
}

/* "some": every satisfied index, in order; written only when there is one,
 * so a look that finds none leaves the caller's array as it was. */
static int array_some_holds(const void *arg)
{
    const struct wait_array *a = arg;
    size_t count = 0;
    for (size_t i = 0; i < a->n; i++)
        if (array_left_in(a, i) && array_word_holds(a, i))
            a->indices[count++] = i;
    *a->found = count;
    return count != 0;
}

/*
 * Checks the arguments; *offset_p gets the first word's segment offset.
 * out is the output parameter (named out_name), which must not be NULL;
 * some: the indices array is needed too.
 */
static int array_check(const char *op, const struct wait_array *a, const void *out,
                       const char *out_name, int some, size_t *offset_p)
{
    int status = GK_OK;
    size_t offset = 0;
    if (a->n > SIZE_MAX / a->width) {
        gk__error("%s: n %zu words overflows the address space", op, a->n);
        status = GK_ERR_INVALID_ARG;
    }
    if (status == GK_OK)
        status = gk__rt_check_remote(op, gk__rt.my_pe, a->ivars, a->n * a->width, &offset);
    if (status == GK_OK && a->n != 0 && ((uintptr_t)a->ivars & (a->width - 1)) != 0)
        status = gk__rt_report_align(op, gk__rt.my_pe, a->ivars, a->width);
    if (status == GK_OK && (unsigned)a->cmp > GK_CMP_LE) {
        gk__error("%s: comparison %d is not one of GK_CMP_EQ .. GK_CMP_LE", op, (int)a->cmp);
        status = GK_ERR_INVALID_ARG;
    }
    if (status == GK_OK && out_name != NULL && out == NULL) {
        gk__error("%s: %s is NULL", op, out_name);
        status = GK_ERR_INVALID_ARG;
    }
    if (status == GK_OK && some && a->indices == NULL && a->n != 0) {
        gk__error("%s: indices is NULL with n %zu words", op, a->n);
        status = GK_ERR_INVALID_ARG;
    }
    *offset_p = offset;
    return status;
}

static int array_wait_all(const char *op, const struct wait_array *a)
{
    size_t offset;
    int status = array_check(op, a, NULL, NULL, 0, &offset);
    for (size_t i = 0; status == GK_OK && i < a->n; i++) {
        if (!array_left_in(a, i))
            continue;
        struct wait_cond c = {a->ivars + i * a->width, a->value, a->cmp, a->width,
                              a->is_signed, NULL};
        if (wait_cond_holds(&c))
            continue;
        if (GK__UNLIKELY(gk__in_handler))
            return gk__progress_report_in_handler(op);
        gk__path_flush_wakes(); /* before we block, wake whoever we owe */
        status = wait_cond_wait(op, &c, offset + i * a->width, 0);
    }
    return status;
}

static void array_describe(const void *arg, char *buf, size_t size)
{
    const struct wait_array *a = arg;
    for (size_t i = 0; i < a->n; i++) {
        if (array_left_in(a, i)) {
            gk__wait_describe(buf, size, a->ivars + i * a->width, a->cmp, a->value, a->width,
                              a->is_signed);
            break;
        }
    }
}

/* any and some: a word at a time they would miss one that changes back. */
static int array_wait_one_of(const char *op, const struct wait_array *a, const void *out,
                             const char *out_name, int some, gk__wait_pred_fn holds)
{
    size_t offset;
    int status = array_check(op, a, out, out_name, some, &offset);
    if (status != GK_OK || holds(a))
        return status;
    /* One word left in: watch it; several: any write may be the one. */
    uint64_t watch = GK__WAKE_WATCH_ANY;
    size_t left = 0;
    for (size_t i = 0; i < a->n && left < 2; i++) {
        if (array_left_in(a, i)) {
            left++;
            watch = offset + i * a->width;
        }
    }
    if (left == 0)
        return GK_OK; /* nothing to wait for: the caller's "none" */
    if (left > 1)
        watch = GK__WAKE_WATCH_ANY;
    if (GK__UNLIKELY(gk__in_handler))
        return gk__progress_report_in_handler(op);
    gk__path_flush_wakes();
    struct gk__path_user_wait w = {op, watch, holds, a, array_describe};
    return gk__path_wait_user(&w, 0);
}

/* The test forms: one look, after what a wait's first poll does. */
static int array_test(const char *op, const struct wait_array *a, const void *out,
                      const char *out_name, int some)
{
    size_t offset;
    gk__path_flush_wakes(); /* a test in a loop is a wait: pay owed wake-ups */
    gk__wait_progress();  /* and serve active messages, as a wait does */
    return array_check(op, a, out, out_name, some, &offset);
}

static int array_all_hold(const struct wait_array *a)
{
    for (size_t i = 0; i < a->n; i++)
        if (array_left_in(a, i) && !array_word_holds(a, i))
            return 0;
    return 1;
}

#define WAIT_ARRAY_DEFINE(T, ctype, utype, signedness)                         \
    int gk_wait_until_all_##T(ctype *ivars, size_t n, const int *status,       \
                              gk_cmp_t cmp, ctype value)                       \
    {                                                                          \
        struct wait_array a = {(const char *)ivars, n, status, (uint64_t)(utype)value, \
                               cmp, sizeof(ctype), signedness, NULL, NULL};    \
        return array_wait_all("gk_wait_until_all_" #T, &a);                    \
    }                                                                          \
    int gk_wait_until_any_##T(ctype *ivars, size_t n, const int *status,       \
                              gk_cmp_t cmp, ctype value, size_t *index_p)      \
    {                                                                          \
        size_t found = SIZE_MAX;                                               \
        struct wait_array a = {(const char *)ivars, n, status, (uint64_t)(utype)value, \
                               cmp, sizeof(ctype), signedness, NULL, &found};  \
        int rc = array_wait_one_of("gk_wait_until_any_" #T, &a, index_p, "index_p", 0, \
                                   array_any_holds);                           \
        if (rc == GK_OK)                                                       \
            *index_p = found;                                                  \
        return rc;                                                             \
    }                                                                          \
    int gk_wait_until_some_##T(ctype *ivars, size_t n, const int *status,      \
                               gk_cmp_t cmp, ctype value, size_t *indices,     \
                               size_t *count_p)                                \
    {                                                                          \
        size_t found = 0;                                                      \
        struct wait_array a = {(const char *)ivars, n, status, (uint64_t)(utype)value, \
                               cmp, sizeof(ctype), signedness, indices, &found}; \
        int rc = array_wait_one_of("gk_wait_until_some_" #T, &a, count_p, "count_p", 1, \
                                   array_some_holds);                          \
        if (rc == GK_OK)                                                       \
            *count_p = found;                                                  \
        return rc;                                                             \
    }                                                                          \
    int gk_test_all_##T(ctype *ivars, size_t n, const int *status, gk_cmp_t cmp, \
                        ctype value, int *satisfied_p)                         \
    {                                                                          \
        struct wait_array a = {(const char *)ivars, n, status, (uint64_t)(utype)value, \
                               cmp, sizeof(ctype), signedness, NULL, NULL};    \
        int rc = array_test("gk_test_all_" #T, &a, satisfied_p, "satisfied_p", 0); \
        if (rc == GK_OK)                                                       \
            *satisfied_p = array_all_hold(&a);                                 \
        return rc;                                                             \
    }                                                                          \
    int gk_test_any_##T(ctype *ivars, size_t n, const int *status, gk_cmp_t cmp, \
                        ctype value, size_t *index_p)                          \
    {                                                                          \
        size_t found = SIZE_MAX;                                               \
        struct wait_array a = {(const char *)ivars, n, status, (uint64_t)(utype)value, \
                               cmp, sizeof(ctype), signedness, NULL, &found};  \
        int rc = array_test("gk_test_any_" #T, &a, index_p, "index_p", 0);     \
        if (rc == GK_OK) {                                                     \
            array_any_holds(&a);                                               \
            *index_p = found;                                                  \
        }                                                                      \
        return rc;                                                             \
    }                                                                          \
    int gk_test_some_##T(ctype *ivars, size_t n, const int *status, gk_cmp_t cmp, \
                         ctype value, size_t *indices, size_t *count_p)        \
    {                                                                          \
        size_t found = 0;                                                      \
        struct wait_array a = {(const char *)ivars, n, status, (uint64_t)(utype)value, \
                               cmp, sizeof(ctype), signedness, indices, &found}; \
        int rc = array_test("gk_test_some_" #T, &a, count_p, "count_p", 1);    \
        if (rc == GK_OK) {                                                     \
            array_some_holds(&a);                                              \
            *count_p = found;                                                  \
        }                                                                      \
        return rc;                                                             \
    }

WAIT_ARRAY_DEFINE(i32, int32_t, uint32_t, 1)
WAIT_ARRAY_DEFINE(u32, uint32_t, uint32_t, 0)
WAIT_ARRAY_DEFINE(i64, int64_t, uint64_t, 1)
WAIT_ARRAY_DEFINE(u64, uint64_t, uint64_t, 0)

int gk__wait_until_pred(const char *op, gk__wait_pred_fn pred, const void *arg,
                        void (*describe)(const void *arg, char *buf, size_t size))
{
    if (wait_seen(pred(arg)))
        return GK_OK;
    if (GK__UNLIKELY(gk__in_handler))
        return gk__progress_report_in_handler(op);
    gk__path_flush_wakes();
    struct gk__path_user_wait w = {op, GK__WAKE_WATCH_ANY, pred, arg, describe};
    return gk__path_wait_user(&w, 0);
}

void gk__wait_test_settle(void)
{
    gk__path_flush_wakes();
    gk__wait_progress();
}

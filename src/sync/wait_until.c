/*
 * wait_until.c: point-to-point waits on a local heap word (gk_wait_until_T,
 * gk_test_T). The condition is checked inline first; only an unsatisfied
 * wait goes to base/wait.c's spin-yield-sleep loop, woken by the wake-up
 * check every remote write makes.
 */
#include "sync/wait_until.h"

#include "base/log.h"
#include "base/wait.h"
#include "core/progress.h"
#include "core/runtime.h"

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
 * and compares: -1, 0, 1 as the word is below, equal to, above the value. */
static int wait_cond_holds(const void *arg)
{
    const struct wait_cond *c = arg;
    int order;
    if (c->width == 4) {
        uint32_t v = __atomic_load_n((const uint32_t *)c->ivar, __ATOMIC_ACQUIRE);
        if (c->is_signed)
            order = ((int32_t)v > (int32_t)c->value) - ((int32_t)v < (int32_t)c->value);
        else
            order = (v > (uint32_t)c->value) - (v < (uint32_t)c->value);
    } else {
        uint64_t v = __atomic_load_n((const uint64_t *)c->ivar, __ATOMIC_ACQUIRE);
        if (c->is_signed)
            order = ((int64_t)v > (int64_t)c->value) - ((int64_t)v < (int64_t)c->value);
        else
            order = (v > c->value) - (v < c->value);
        if (c->seen != NULL)
            *c->seen = v;
    }
    return wait_compare(order, c->cmp);
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
    gk__rt_flush_wakes(); /* before we block, wake whoever we owe */
    return gk__wait_for(&gk__rt.my_seg.header->wake, offset, wait_cond_holds, c);
}

static int wait_test(const char *op, const struct wait_cond *c, int *satisfied_p)
{
    size_t offset;
    gk__rt_flush_wakes(); /* a test in a loop is a wait: pay owed wake-ups */
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
            return GK_OK;                                                      \
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
        gk__rt_flush_wakes(); /* we may block: wake whoever we owe first */    \
        unsigned spins = gk__wait_policy.spin_count;                           \
        switch (cmp) {                                                         \
        case GK_CMP_EQ: WAIT_SPIN(ctype, ==)                                   \
        case GK_CMP_NE: WAIT_SPIN(ctype, !=)                                   \
        case GK_CMP_GT: WAIT_SPIN(ctype, >)                                    \
        case GK_CMP_GE: WAIT_SPIN(ctype, >=)                                   \
        case GK_CMP_LT: WAIT_SPIN(ctype, <)                                    \
        case GK_CMP_LE: WAIT_SPIN(ctype, <=)                                   \
        }                                                                      \
        return gk__wait_for_spun(&gk__rt.my_seg.header->wake, offset,          \
                                 wait_cond_holds, &c, 0, 1);                   \
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

/*
 * pe_check.h: assertions for multi-PE tests (programs run by gasket-run).
 * A failure prints "FAIL PE n file:line: ..." with both values, then ends
 * the whole job through gk_abort(), so the launcher stops every PE and the
 * test fails at once instead of hanging in the next barrier. Before
 * gk_init() (or after gk_finalize()) a failure exits with status 1.
 *
 *   CHECK_OK(gk_put(...));                   the call returned GK_OK
 *   CHECK_STATUS(gk_put(...), GK_ERR_PE);    it returned this code
 *   CHECK_EQ(a, b), CHECK_NE, CHECK_LT ...   any integers or pointers
 *   CHECK_EQ_U64(a, b)                       compared as uint64_t
 *   CHECK_TRUE(cond), CHECK_NULL(p), CHECK_NOT_NULL(p)
 *   CHECK_OK_SILENT(call), CHECK_SILENT(expr)   no log line at all
 *   CHECK_LOGGED(GK_ERR_RANGE, gk_put(...), "needle", ...)
 *       the call returned the code and logged exactly one line, an error
 *       from this PE, containing every needle (see gk_capture.h)
 */
#ifndef GK_TESTS_PE_CHECK_H
#define GK_TESTS_PE_CHECK_H

#include <gasket.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gk_capture.h"
#include "gk_check_value.h"

/* One write per failure line, so lines from several PEs do not interleave. */
static inline void pe_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static inline void pe_fail_at(const char *file, int line, const char *fmt, ...)
{
    char buf[2048];
    int len = snprintf(buf, sizeof(buf), "FAIL PE %d %s:%d: ", gk_my_pe(), file, line);
    va_list ap;
    va_start(ap, fmt);
    if (len >= 0 && len < (int)sizeof(buf))
        len += vsnprintf(buf + len, sizeof(buf) - (size_t)len, fmt, ap);
    va_end(ap);
    if (len < 0 || len > (int)sizeof(buf) - 2)
        len = (int)sizeof(buf) - 2;
    buf[len++] = '\n';
    fflush(stdout);
    ssize_t unused = write(2, buf, (size_t)len);
    (void)unused;
    if (gk_initialized())
        gk_abort(1, "test assertion failed");
    exit(1);
}

#define PE_FAIL(...) pe_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* Progress and timings, on stdout, naming the PE. */
#define PE_LOG(...)                                                                      \
    do {                                                                                 \
        printf("[PE %d] ", gk_my_pe());                                                  \
        printf(__VA_ARGS__);                                                             \
        printf("\n");                                                                    \
        fflush(stdout);                                                                  \
    } while (0)

#define CHECK_OK(call)                                                                   \
    do {                                                                                 \
        int status_ = (call);                                                            \
        if (status_ != GK_OK)                                                            \
            PE_FAIL("%s returned %d (%s)", #call, status_, gk_strerror(status_));        \
    } while (0)

#define CHECK_STATUS(call, expected)                                                     \
    do {                                                                                 \
        int status_ = (call);                                                            \
        int expected_ = (expected);                                                      \
        if (status_ != expected_)                                                        \
            PE_FAIL("%s returned %d (%s), expected %d (%s)", #call, status_,             \
                    gk_strerror(status_), expected_, gk_strerror(expected_));            \
    } while (0)

#define CHECK_CMP_(actual, expected, op, opname)                                         \
    do {                                                                                 \
        struct gk_check_value a_ = GK_CHECK_VALUE(actual);                               \
        struct gk_check_value e_ = GK_CHECK_VALUE(expected);                             \
        if (!(gk_check_cmp(a_, e_) op 0)) {                                              \
            char abuf_[64], ebuf_[64];                                                   \
            PE_FAIL(opname "(%s, %s) failed: %s is %s, %s is %s", #actual, #expected,    \
                    #actual, gk_check_format(a_, abuf_, 64), #expected,                  \
                    gk_check_format(e_, ebuf_, 64));                                     \
        }                                                                                \
    } while (0)

#define CHECK_EQ(actual, expected) CHECK_CMP_(actual, expected, ==, "CHECK_EQ")
#define CHECK_NE(actual, expected) CHECK_CMP_(actual, expected, !=, "CHECK_NE")
#define CHECK_LT(actual, expected) CHECK_CMP_(actual, expected, <, "CHECK_LT")
#define CHECK_LE(actual, expected) CHECK_CMP_(actual, expected, <=, "CHECK_LE")
#define CHECK_GT(actual, expected) CHECK_CMP_(actual, expected, >, "CHECK_GT")
#define CHECK_GE(actual, expected) CHECK_CMP_(actual, expected, >=, "CHECK_GE")

#define CHECK_EQ_U64(actual, expected)                                                   \
    do {                                                                                 \
        unsigned long long a_ = (unsigned long long)(uint64_t)(actual);                  \
        unsigned long long e_ = (unsigned long long)(uint64_t)(expected);                \
        if (a_ != e_)                                                                    \
            PE_FAIL("%s == %llu (0x%llx), expected %s == %llu (0x%llx)", #actual, a_,    \
                    a_, #expected, e_, e_);                                              \
    } while (0)

#define CHECK_TRUE(cond)                                                                 \
    do {                                                                                 \
        if (!(cond))                                                                     \
            PE_FAIL("%s is false", #cond);                                               \
    } while (0)

#define CHECK_NULL(ptr)                                                                  \
    do {                                                                                 \
        const void *p_ = (ptr);                                                          \
        if (p_ != NULL)                                                                  \
            PE_FAIL("%s is %p, expected NULL", #ptr, p_);                                \
    } while (0)

#define CHECK_NOT_NULL(ptr)                                                              \
    do {                                                                                 \
        if ((ptr) == NULL)                                                               \
            PE_FAIL("%s is NULL", #ptr);                                                 \
    } while (0)

/* printf into one of 32 rotating buffers: for needles of CHECK_LOGGED. */
static inline const char *pe_fmt(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline const char *pe_fmt(const char *fmt, ...)
{
    static char bufs[32][256];
    static unsigned next;
    char *buf = bufs[next++ % 32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(bufs[0]), fmt, ap);
    va_end(ap);
    return buf;
}

/*
 * Checks one captured report: exactly one line, "gasket[PE me] error: ",
 * containing every needle (a NULL-terminated list). Returns NULL when it
 * holds, else what is wrong.
 */
static inline const char *pe_check_report(const char *text, const char *const *needles)
{
    static char why[512];
    int lines = 0;
    for (const char *p = text; *p != '\0'; p++)
        lines += *p == '\n';
    if (lines != 1) {
        snprintf(why, sizeof(why), "%d log lines, expected exactly 1", lines);
        return why;
    }
    /* The line names this PE. Outside gk_init..gk_finalize the library
     * still knows it (from the launcher's GK_RANK), or prints "PE ?". */
    char prefix[64];
    const char *rank = getenv("GK_RANK");
    if (gk_my_pe() >= 0)
        snprintf(prefix, sizeof(prefix), "gasket[PE %d] error: ", gk_my_pe());
    else if (rank != NULL)
        snprintf(prefix, sizeof(prefix), "gasket[PE %d] error: ", atoi(rank));
    else
        snprintf(prefix, sizeof(prefix), "gasket[PE ");
    if (strncmp(text, prefix, strlen(prefix)) != 0 || strstr(text, "] error: ") == NULL) {
        snprintf(why, sizeof(why), "the line does not start with \"%s\"", prefix);
        return why;
    }
    for (const char *const *n = needles; *n != NULL; n++) {
        if (strstr(text, *n) == NULL) {
            snprintf(why, sizeof(why), "the line does not contain \"%s\"", *n);
            return why;
        }
    }
    return NULL;
}

#define CHECK_LOGGED(expected, call, ...)                                                \
    do {                                                                                 \
        gk_capture_begin();                                                              \
        int status_ = (call);                                                            \
        const char *text_ = gk_capture_end();                                            \
        int expected_ = (expected);                                                      \
        if (status_ != expected_) {                                                      \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("%s returned %d (%s), expected %d (%s)", #call, status_,             \
                    gk_strerror(status_), expected_, gk_strerror(expected_));            \
        }                                                                                \
        const char *const needles_[] = {__VA_ARGS__, NULL};                              \
        const char *why_ = pe_check_report(text_, needles_);                             \
        if (why_ != NULL) {                                                              \
            fprintf(stderr, "--- what %s logged:\n", #call);                             \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("the report of %s: %s", #call, why_);                                \
        }                                                                                \
    } while (0)

/* As CHECK_LOGGED for calls that return a pointer (NULL expected). */
#define CHECK_LOGGED_NULL(call, ...)                                                     \
    do {                                                                                 \
        gk_capture_begin();                                                              \
        const void *ptr_ = (call);                                                       \
        const char *text_ = gk_capture_end();                                            \
        if (ptr_ != NULL) {                                                              \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("%s returned %p, expected NULL", #call, ptr_);                       \
        }                                                                                \
        const char *const needles_[] = {__VA_ARGS__, NULL};                              \
        const char *why_ = pe_check_report(text_, needles_);                             \
        if (why_ != NULL) {                                                              \
            fprintf(stderr, "--- what %s logged:\n", #call);                             \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("the report of %s: %s", #call, why_);                                \
        }                                                                                \
    } while (0)

/* The call logs nothing at all (a valid call, or a documented silent case). */
#define CHECK_SILENT(call)                                                               \
    do {                                                                                 \
        gk_capture_begin();                                                              \
        (void)(call);                                                                    \
        const char *text_ = gk_capture_end();                                            \
        if (text_[0] != '\0') {                                                          \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("%s logged something, expected nothing", #call);                     \
        }                                                                                \
    } while (0)

/* The call returns GK_OK and logs nothing. */
#define CHECK_OK_SILENT(call)                                                            \
    do {                                                                                 \
        int silent_status_ = -1;                                                         \
        CHECK_SILENT(silent_status_ = (call));                                           \
        CHECK_OK(silent_status_);                                                        \
    } while (0)

static inline double pe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Computes for `seconds` without calling gasket (a PE that is busy). */
static inline void pe_busy(double seconds)
{
    volatile uint64_t sink = 0;
    double until = pe_now() + seconds;
    while (pe_now() < until)
        sink++;
}

#endif /* GK_TESTS_PE_CHECK_H */

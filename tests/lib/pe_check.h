/*
 * pe_check.h: assertions for multi-PE tests: a failure prints the PE, the
 * place and both values, then ends the job through gk_abort (so the
 * launcher reports it and the test fails).
 */
#ifndef GK_TESTS_PE_CHECK_H
#define GK_TESTS_PE_CHECK_H

#include <gasket.h>
#include <stdio.h>

#define PE_FAIL(...)                                                           \
    do {                                                                       \
        fprintf(stderr, "FAIL PE %d %s:%d: ", gk_my_pe(), __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        gk_abort(1, "test assertion failed");                                  \
    } while (0)

#define CHECK_OK(call)                                                         \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != GK_OK)                                                  \
            PE_FAIL("%s returned %d (%s)", #call, status_, gk_strerror(status_)); \
    } while (0)

#define CHECK_STATUS(call, expected)                                           \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != (expected))                                             \
            PE_FAIL("%s returned %d (%s), expected %d (%s)", #call, status_,    \
                    gk_strerror(status_), (expected), gk_strerror(expected));  \
    } while (0)

#define CHECK_EQ_U64(actual, expected)                                         \
    do {                                                                       \
        unsigned long long a_ = (unsigned long long)(actual);                  \
        unsigned long long e_ = (unsigned long long)(expected);                \
        if (a_ != e_)                                                          \
            PE_FAIL("%s == %llu, expected %s == %llu", #actual, a_, #expected, e_); \
    } while (0)

#define CHECK_TRUE(cond)                                                       \
    do {                                                                       \
        if (!(cond))                                                           \
            PE_FAIL("%s is false", #cond);                                     \
    } while (0)

#endif /* GK_TESTS_PE_CHECK_H */

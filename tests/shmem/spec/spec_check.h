/*
 * spec_check.h: what the specification-example tests share: SPEC_CHECK,
 * which names the PE, the line and both values of a wrong result and ends
 * the job with status 1 (the examples print; these assert).
 */
#ifndef GK_TESTS_SPEC_CHECK_H
#define GK_TESTS_SPEC_CHECK_H

#include <shmem.h>
#include <stdio.h>

#define SPEC_CHECK(actual, expected)                                           \
    do {                                                                       \
        long long a_ = (long long)(actual), e_ = (long long)(expected);        \
        if (a_ != e_) {                                                        \
            fprintf(stderr, "FAIL PE %d %s:%d: %s is %lld, expected %lld\n",   \
                    shmem_my_pe(), __FILE__, __LINE__, #actual, a_, e_);       \
            fflush(stderr);                                                    \
            shmem_global_exit(1);                                              \
        }                                                                      \
    } while (0)

#endif

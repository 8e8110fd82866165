/* time.h: a monotonic clock in nanoseconds. */
#ifndef GK_BASE_TIME_H
#define GK_BASE_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t gk__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* GK_BASE_TIME_H */

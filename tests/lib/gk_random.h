/*
 * gk_random.h: a small, fast, reproducible random sequence for tests
 * (Marsaglia's xorshift64): each test keeps its own state, seeded per PE,
 * so a failing run can be replayed.
 */
#ifndef GK_TESTS_GK_RANDOM_H
#define GK_TESTS_GK_RANDOM_H

#include <stdint.h>

/* The next number of the sequence in *state (never 0: seed it non-zero). */
static inline uint64_t gk_test_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif /* GK_TESTS_GK_RANDOM_H */

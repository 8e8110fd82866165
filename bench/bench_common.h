/*
 * bench_common.h: what gk-bench and the peer programs share so their
 * tables line up: the clock, iteration counts by size, OSU-style output
 * (`#` header lines, then `size value` rows), and the size sweep.
 */
#ifndef GK_BENCH_COMMON_H
#define GK_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Iterations for a latency measurement of `size` bytes: many for small
 * messages, fewer as the copy time grows, so each size takes ~10-50 ms. */
static inline long bench_iters(size_t size, long base)
{
    if (size <= 4096)
        return base;
    long iters = (long)((double)base * 4096.0 / (double)size);
    return iters < 20 ? 20 : iters;
}

static inline void bench_header(const char *name, const char *impl, int npes,
                                const char *unit)
{
    printf("# %s (%s), %d PEs\n# %-10s %s\n", name, impl, npes, "size", unit);
}

static inline void bench_row(size_t size, double value)
{
    printf("%-12zu %.3f\n", size, value);
    fflush(stdout);
}

/* Windows of `window` transfers of `size` bytes for a bandwidth run: about
 * 1 GiB in all (tens of milliseconds), at least 5 and at most 20000. */
static inline long bench_bw_loops(size_t size, int window)
{
    double loops = (double)(1u << 30) / ((double)size * window);
    return loops < 5 ? 5 : loops > 20000 ? 20000 : (long)loops;
}

/*
 * Powers of two from lo to hi inclusive, stopping early at BENCH_MAX_SIZE
 * when it is set: compare.py runs one size of ours and of the peer back to
 * back, tens of milliseconds apart, so both see the machine in one state.
 */
static inline size_t bench_size_limit(size_t hi)
{
    const char *text = getenv("BENCH_MAX_SIZE");
    size_t limit = text ? (size_t)strtoull(text, NULL, 10) : 0;
    return limit != 0 && limit < hi ? limit : hi;
}
#define BENCH_FOR_SIZES(size, lo, hi)                                          \
    for (size_t size = (lo), size##_hi_ = bench_size_limit(hi); size <= size##_hi_; size *= 2)

#endif /* GK_BENCH_COMMON_H */

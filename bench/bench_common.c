/*
 * bench_common.c: the clock, command line, iteration counts and table
 * output shared by gk-bench and its peers (see bench_common.h).
 */
#include "bench_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int parse_number(const char *text, unsigned long long *value_p)
{
    char *end;
    errno = 0;
    if (text == NULL || text[0] == '\0' || text[0] == '-')
        return -1;
    unsigned long long value = strtoull(text, &end, 0);
    /* Sizes may carry a binary suffix: 64K, 4M. */
    if (*end == 'k' || *end == 'K') {
        value <<= 10;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        value <<= 20;
        end++;
    }
    if (errno != 0 || *end != '\0')
        return -1;
    *value_p = value;
    return 0;
}

/* "8,64K,1M" into a bit per size (bit k: 2^k); each must be a power of two. */
static int parse_sizes(const char *text, unsigned long long *mask_p)
{
    char item[32];
    unsigned long long mask = 0;
    while (text != NULL && *text != '\0') {
        const char *comma = strchr(text, ',');
        size_t len = comma != NULL ? (size_t)(comma - text) : strlen(text);
        unsigned long long value;
        if (len == 0 || len >= sizeof(item))
            return -1;
        memcpy(item, text, len);
        item[len] = '\0';
        if (parse_number(item, &value) != 0 || value == 0 || (value & (value - 1)) != 0)
            return -1;
        mask |= value;
        text = comma != NULL ? comma + 1 : NULL;
    }
    if (mask == 0)
        return -1;
    *mask_p = mask;
    return 0;
}

int bench_parse(int argc, char **argv, const char *usage, struct bench_opts *opts_p)
{
    struct bench_opts opts = {.name = NULL, .iters = 0, .warmup = -1, .min_size = 0,
                              .max_size = 0, .digits = 2, .sizes = 0, .poll = 0,
                              .n_args = 0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        unsigned long long value;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            exit(0);
        }
        if (strcmp(arg, "--iters") == 0 || strcmp(arg, "--warmup") == 0 ||
            strcmp(arg, "--min-size") == 0 || strcmp(arg, "--max-size") == 0 ||
            strcmp(arg, "--digits") == 0) {
            if (i + 1 >= argc || parse_number(argv[i + 1], &value) != 0) {
                fprintf(stderr, "%s: %s needs a number\n", argv[0], arg);
                goto err_usage;
            }
            i++;
            if (strcmp(arg, "--iters") == 0) {
                if (value < 1 || value > 1000000000ull) {
                    fprintf(stderr, "%s: --iters must be 1 to 10^9\n", argv[0]);
                    goto err_usage;
                }
                opts.iters = (long)value;
            } else if (strcmp(arg, "--warmup") == 0) {
                if (value > 1000000000ull) {
                    fprintf(stderr, "%s: --warmup must be 0 to 10^9\n", argv[0]);
                    goto err_usage;
                }
                opts.warmup = (long)value;
            } else if (strcmp(arg, "--min-size") == 0) {
                opts.min_size = (size_t)value;
            } else if (strcmp(arg, "--max-size") == 0) {
                if (value < 1) {
                    fprintf(stderr, "%s: --max-size must be at least 1\n", argv[0]);
                    goto err_usage;
                }
                opts.max_size = (size_t)value;
            } else {
                if (value > 9) {
                    fprintf(stderr, "%s: --digits must be 0 to 9\n", argv[0]);
                    goto err_usage;
                }
                opts.digits = (int)value;
            }
            continue;
        }
        if (strcmp(arg, "--poll") == 0) {
            opts.poll = 1;
            continue;
        }
        if (strcmp(arg, "--sizes") == 0) {
            if (i + 1 >= argc || parse_sizes(argv[i + 1], &opts.sizes) != 0) {
                fprintf(stderr, "%s: --sizes needs a list of powers of two (8,64K,1M)\n",
                        argv[0]);
                goto err_usage;
            }
            i++;
            continue;
        }
        if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], arg);
            goto err_usage;
        }
        if (opts.name == NULL) {
            opts.name = arg;
        } else if (opts.n_args < BENCH_MAX_ARGS) {
            opts.args[opts.n_args++] = arg;
        } else {
            fprintf(stderr, "%s: too many arguments\n", argv[0]);
            goto err_usage;
        }
    }
    if (opts.name == NULL) {
        fprintf(stderr, "%s: no benchmark named\n", argv[0]);
        goto err_usage;
    }
    *opts_p = opts;
    return 0;

err_usage:
    fputs(usage, stderr);
    return 2;
}

/* The entry named by the `len` characters at `name`, or -1. */
static int find_entry(const struct bench_entry *table, size_t n, const char *name, size_t len)
{
    for (size_t b = 0; b < n; b++)
        if (strlen(table[b].name) == len && strncmp(name, table[b].name, len) == 0)
            return (int)b;
    return -1;
}

int bench_select(const char *prog, const char *usage, const struct bench_opts *opts,
                 const struct bench_entry *table, size_t n, int all, int quiet)
{
    const char *bad = opts->name;
    size_t bad_len = strlen(bad);
    int found = all && strcmp(opts->name, "all") == 0 ? BENCH_ALL : BENCH_REFUSED;
    if (found == BENCH_REFUSED && strchr(opts->name, ',') != NULL) {
        found = BENCH_LIST;
        for (const char *p = opts->name; found == BENCH_LIST;) {
            const char *comma = strchr(p, ',');
            size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
            if (find_entry(table, n, p, len) < 0) {
                found = BENCH_REFUSED;
                bad = p;
                bad_len = len;
            }
            if (comma == NULL)
                break;
            p = comma + 1;
        }
    } else if (found == BENCH_REFUSED) {
        found = find_entry(table, n, opts->name, bad_len);
        if (found < 0)
            found = BENCH_REFUSED;
    }
    if (found != BENCH_REFUSED && opts->n_args == 0)
        return found;
    if (!quiet) {
        if (found == BENCH_REFUSED)
            fprintf(stderr, "%s: unknown benchmark %.*s\n%s", prog, (int)bad_len, bad, usage);
        else
            fprintf(stderr, "%s: unexpected argument %s\n%s", prog, opts->args[0], usage);
    }
    return BENCH_REFUSED;
}

int bench_listed(const struct bench_opts *opts, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = opts->name; p != NULL;) {
        const char *comma = strchr(p, ',');
        size_t plen = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (plen == len && strncmp(p, name, len) == 0)
            return 1;
        p = comma != NULL ? comma + 1 : NULL;
    }
    return 0;
}

double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, long n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* n for messages up to 4 KiB, then n * 4096 / size, at least `floor` (or n). */
static long scale(long n, size_t size, long floor)
{
    if (size <= 4096)
        return n;
    long scaled = (long)((double)n * 4096.0 / (double)size);
    if (floor > n)
        floor = n;
    return scaled < floor ? floor : scaled;
}

long bench_iters(const struct bench_opts *opts, size_t size, long base)
{
    return scale(opts->iters > 0 ? opts->iters : base, size, 20);
}

long bench_warmup(const struct bench_opts *opts, size_t size, long base)
{
    long n = opts->warmup >= 0 ? opts->warmup : (opts->iters > 0 ? opts->iters : base) / 10;
    return scale(n, size, 2);
}

long bench_bw_loops(const struct bench_opts *opts, size_t size)
{
    if (opts->iters > 0)
        return scale(opts->iters, size, 5);
    double loops = (double)(1u << 30) / ((double)size * BENCH_BW_WINDOW);
    return loops < 5 ? 5 : loops > 20000 ? 20000 : (long)loops;
}

long bench_bw_warmup(const struct bench_opts *opts, long loops)
{
    if (opts->warmup < 0)
        return 2;
    return opts->warmup < loops ? opts->warmup : loops;
}

/* 1 when --sizes lists `size` (or lists nothing). */
static int size_listed(const struct bench_opts *opts, size_t size)
{
    return opts->sizes == 0 || (size != 0 && (size & (size - 1)) == 0 &&
                                (opts->sizes & (unsigned long long)size) != 0);
}

size_t bench_next_size(const struct bench_opts *opts, size_t size, size_t last)
{
    size *= 2;
    while (size != 0 && size <= last && !size_listed(opts, size))
        size *= 2;
    return size != 0 || opts->sizes == 0 ? size : last + 1;
}

size_t bench_last_size(const struct bench_opts *opts, size_t lo, size_t hi)
{
    size_t last = hi;
    if (opts->max_size != 0 && opts->max_size < last)
        last = opts->max_size;
    return last < lo ? lo : last;
}

size_t bench_first_size(const struct bench_opts *opts, size_t lo, size_t hi)
{
    size_t first = lo, last = bench_last_size(opts, lo, hi);
    if (first < opts->min_size) {
        first = lo != 0 ? lo : 1;
        while (first < opts->min_size && first * 2 <= last)
            first *= 2;
    }
    if (opts->sizes != 0) {
        if (first == 0)
            first = 1;
        if (!size_listed(opts, first))
            first = bench_next_size(opts, first, last);
    }
    return first;
}

void bench_header(const char *name, const char *impl, int npes, const char *note,
                  const char *unit)
{
    printf("# %s (%s), %d PEs\n", name, impl, npes);
    if (note != NULL)
        printf("# %s\n", note);
    printf("# %-10s %s\n", "size", unit);
    fflush(stdout);
}

void bench_row_lat(const struct bench_opts *opts, size_t size, double us)
{
    printf("%-12zu %.*f\n", size, opts->digits, us);
    fflush(stdout);
}

void bench_row_bw(size_t size, double mb_per_s)
{
    printf("%-12zu %.2f\n", size, mb_per_s);
    fflush(stdout);
}

void bench_row_bw_windows(size_t size, long loops, double us)
{
    bench_row_bw(size, (double)size * BENCH_BW_WINDOW * (double)loops / us);
}

int bench_two_or_skip(int me, int npes, const char *name, const char *units)
{
    if (npes >= 2)
        return 1;
    if (me == 0) {
        printf("# %s needs 2 %s; skipped\n", name, units);
        fflush(stdout);
    }
    return 0;
}

/* A dependent chain of floating-point operations: no vectorising, no
 * folding (no -ffast-math), about 8 cycles a round. On x86 an lfence at
 * each end keeps the out-of-order core from running the chain beside the
 * instructions of the lock, transfer and unlock around it (without, a
 * 50 ns epoch was "40-90% hidden" behind a 50 ns computation: instruction
 * overlap, not a transfer progressing on its own). */
static volatile double compute_sink = 1.0;

static inline void compute_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("lfence" ::: "memory");
#endif
}

void bench_compute(long rounds)
{
    compute_fence();
    double x = compute_sink;
    for (long i = 0; i < rounds; i++)
        x = x * 0.9999999 + 1e-7;
    compute_sink = x;
    compute_fence();
}

/* Rounds of bench_compute() per microsecond: the fastest of 5 timings. */
static double compute_rate(void)
{
    static double rate;
    if (rate > 0)
        return rate;
    for (int t = 0; t < 5; t++) {
        double t0 = bench_now_us();
        bench_compute(200000);
        double r = 200000.0 / (bench_now_us() - t0);
        if (r > rate)
            rate = r;
    }
    return rate;
}


#define OVERLAP_TRIALS 5

double bench_overlap_measure(void (*epoch)(void *ctx, long rounds), void *ctx, long iters)
{
    long n = iters / OVERLAP_TRIALS < 2 ? 2 : iters / OVERLAP_TRIALS;
    double rate = compute_rate();
    /* Warm-up, and the transfer's time for the calibration. */
    for (long i = 0; i < n; i++)
        epoch(ctx, 0);
    double t0 = bench_now_us();
    for (long i = 0; i < n; i++)
        epoch(ctx, 0);
    long rounds = (long)((bench_now_us() - t0) / (double)n * rate);
    if (rounds < 1)
        rounds = 1;
    double hidden[OVERLAP_TRIALS];
    for (int t = 0; t < OVERLAP_TRIALS; t++) {
        t0 = bench_now_us();
        for (long i = 0; i < n; i++)
            epoch(ctx, 0);
        double t1 = bench_now_us();
        for (long i = 0; i < n; i++)
            bench_compute(rounds);
        double t2 = bench_now_us();
        for (long i = 0; i < n; i++)
            epoch(ctx, rounds);
        double t3 = bench_now_us();
        double comm = t1 - t0, comp = t2 - t1, total = t3 - t2;
        double h = 100.0 * (comm + comp - total) / comm;
        hidden[t] = h < 0 ? 0 : h > 100 ? 100 : h;
    }
    qsort(hidden, OVERLAP_TRIALS, sizeof(hidden[0]), cmp_double);
    return hidden[OVERLAP_TRIALS / 2];
}

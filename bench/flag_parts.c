/*
 * gk-flag-parts: where the time of the 8-byte flag ping-pong goes. It runs
 * the ping-pong of gk-bench flag_pingpong with each half swapped, one piece
 * at a time, for the raw operation the raw floor uses (memcpy through
 * gk_ptr(), a release store of the flag, a spin on an acquire load):
 *
 *   gasket-run -n 2 --bind build/bench/gk-flag-parts [--iters N] [--rounds R]
 *
 * One round runs every variant for N round trips (default 5000, about a
 * millisecond), back to back; R rounds (default 300). On a VM whose two
 * vCPUs are sometimes hyperthreads of one core and sometimes two cores, a
 * round is short enough to see one state, so each variant is compared with
 * the all-raw variant of the same round (a paired difference), and rounds
 * are split by state: "fast" when the all-raw one-way time is below
 * --fast-ns (default 100 ns), "slow" otherwise. Prints per state and
 * variant the median one-way time and the median paired difference.
 *
 * First it prints what each call costs PE 0 alone, in a loop, while PE 1
 * sleeps in a barrier: the CPU time of the calls, without the ping-pong.
 */
#include <gasket.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

enum variant {
    V_RAW,         /* memcpy + release store / acquire spin: the floor's loop */
    V_PUT,         /* gk_put instead of memcpy */
    V_PUT_FENCE,   /* gk_put + gk_fence */
    V_PUT_U64,     /* gk_put_u64 instead of the release store */
    V_MFENCE,      /* raw, plus the full fence gk_put_u64 makes after its store */
    V_SEND_API,    /* gk_put + gk_fence + gk_put_u64, raw spin */
    V_WAIT_API,    /* raw send, gk_wait_until_u64 */
    V_ALL_API,     /* gk-bench flag_pingpong */
    N_VARIANTS
};

static const char *const variant_names[N_VARIANTS] = {
    "raw: memcpy + store / spin",
    "gk_put + store / spin",
    "gk_put + gk_fence + store / spin",
    "memcpy + gk_put_u64 / spin",
    "memcpy + store + mfence / spin",
    "gk_put + gk_fence + gk_put_u64 / spin",
    "memcpy + store / gk_wait_until_u64",
    "all gasket (flag_pingpong)",
};

static const char usage[] =
    "usage: gasket-run -n 2 --bind gk-flag-parts [--iters N] [--rounds R] [--fast-ns T]\n";

static void check(int status, const char *what)
{
    if (status != GK_OK) {
        fprintf(stderr, "gk-flag-parts: %s failed: %s\n", what, gk_strerror(status));
        gk_abort(1, what);
    }
}

struct side {
    int me, peer;
    unsigned char *inbox;        /* symmetric */
    unsigned char *peer_inbox;   /* the peer's inbox, through gk_ptr() */
    uint64_t *flag, *peer_flag;  /* symmetric */
    _Atomic uint64_t *raw_flag;  /* my flag */
    _Atomic uint64_t *raw_peer_flag;
    const unsigned char *src;
};

static inline __attribute__((always_inline)) void
send(enum variant v, const struct side *s, size_t size, uint64_t seq)
{
    switch (v) {
    case V_RAW:
    case V_WAIT_API:
        memcpy(s->peer_inbox, s->src, size);
        atomic_store_explicit(s->raw_peer_flag, seq, memory_order_release);
        break;
    case V_PUT:
        check(gk_put(s->peer, s->inbox, s->src, size), "gk_put");
        atomic_store_explicit(s->raw_peer_flag, seq, memory_order_release);
        break;
    case V_PUT_FENCE:
        check(gk_put(s->peer, s->inbox, s->src, size), "gk_put");
        check(gk_fence(), "gk_fence");
        atomic_store_explicit(s->raw_peer_flag, seq, memory_order_release);
        break;
    case V_PUT_U64:
        memcpy(s->peer_inbox, s->src, size);
        check(gk_put_u64(s->peer, s->peer_flag, seq), "gk_put_u64");
        break;
    case V_MFENCE:
        memcpy(s->peer_inbox, s->src, size);
        atomic_store_explicit(s->raw_peer_flag, seq, memory_order_release);
        atomic_thread_fence(memory_order_seq_cst);
        break;
    case V_SEND_API:
    case V_ALL_API:
        check(gk_put(s->peer, s->inbox, s->src, size), "gk_put");
        check(gk_fence(), "gk_fence");
        check(gk_put_u64(s->peer, s->peer_flag, seq), "gk_put_u64");
        break;
    case N_VARIANTS:
        break;
    }
}

static inline __attribute__((always_inline)) void
receive(enum variant v, const struct side *s, uint64_t seq)
{
    if (v == V_WAIT_API || v == V_ALL_API) {
        check(gk_wait_until_u64(s->flag, GK_CMP_GE, seq), "gk_wait_until_u64");
        return;
    }
    while (atomic_load_explicit(s->raw_flag, memory_order_acquire) < seq)
        __builtin_ia32_pause();
}

/* The loop of raw-floor's flag_pingpong, with this variant's halves. */
static inline __attribute__((always_inline)) void
loop(enum variant v, const struct side *s, size_t size, long iters, uint64_t *seq)
{
    uint64_t q = *seq;
    for (long i = 0; i < iters; i++) {
        for (int turn = 0; turn < 2; turn++) {
            ++q;
            if (turn == s->me)
                send(v, s, size, q);
            else
                receive(v, s, q);
        }
    }
    *seq = q;
}

static void run_variant(enum variant v, const struct side *s, size_t size, long iters,
                        uint64_t *seq)
{
    switch (v) {
#define CASE(x)                                                                \
    case x:                                                                    \
        loop(x, s, size, iters, seq);                                          \
        break;
        CASE(V_RAW)
        CASE(V_PUT)
        CASE(V_PUT_FENCE)
        CASE(V_PUT_U64)
        CASE(V_MFENCE)
        CASE(V_SEND_API)
        CASE(V_WAIT_API)
        CASE(V_ALL_API)
#undef CASE
    case N_VARIANTS:
        break;
    }
}

/* Best of 5 loops of n calls: ns per call. */
#define CALL_COST(label, body)                                                 \
    do {                                                                       \
        double best = 1e30;                                                    \
        for (int rep_ = 0; rep_ < 5; rep_++) {                                 \
            double t0_ = bench_now_us();                                       \
            for (long i_ = 0; i_ < n; i_++) {                                  \
                body;                                                          \
            }                                                                  \
            double ns_ = (bench_now_us() - t0_) * 1e3 / (double)n;             \
            best = ns_ < best ? ns_ : best;                                    \
        }                                                                      \
        printf("  %-40s %10.2f\n", label, best);                               \
    } while (0)

static void call_costs(const struct side *s)
{
    const long n = 2000000;
    uint64_t v = 0, old;
    /* Our own flag is set, so the wait returns at its first look. */
    atomic_store_explicit(s->raw_flag, 1, memory_order_relaxed);
    printf("# CPU cost per call, PE 0 alone (PE 1 asleep in a barrier)\n");
    printf("# %-40s %10s\n", "operation", "ns");
    CALL_COST("empty loop", __asm__ __volatile__("" ::: "memory"));
    CALL_COST("gk_put 8 B", check(gk_put(s->peer, s->inbox, s->src, 8), "gk_put"));
    CALL_COST("gk_fence", check(gk_fence(), "gk_fence"));
    CALL_COST("gk_quiet, nothing owed", check(gk_quiet(), "gk_quiet"));
    CALL_COST("gk_put 8 B + gk_quiet", (check(gk_put(s->peer, s->inbox, s->src, 8), "gk_put"),
                                        check(gk_quiet(), "gk_quiet")));
    CALL_COST("gk_put_u64", check(gk_put_u64(s->peer, s->peer_flag, ++v), "gk_put_u64"));
    CALL_COST("gk_put + gk_fence + gk_put_u64", send(V_SEND_API, s, 8, ++v));
    CALL_COST("raw: memcpy 8 B + release store", send(V_RAW, s, 8, ++v));
    CALL_COST("raw: the same + mfence", send(V_MFENCE, s, 8, ++v));
    CALL_COST("gk_wait_until_u64, already true",
              check(gk_wait_until_u64(s->flag, GK_CMP_GE, 1), "gk_wait_until_u64"));
    CALL_COST("raw: acquire load of the flag",
              (void)atomic_load_explicit(s->raw_flag, memory_order_acquire));
    CALL_COST("gk_atomic_fetch_add_u64",
              check(gk_atomic_fetch_add_u64(s->peer, s->peer_flag, 1, &old), "fetch_add"));
    CALL_COST("raw: atomic_fetch_add (lock xadd)",
              (void)atomic_fetch_add_explicit(s->raw_peer_flag, 1, memory_order_seq_cst));
    atomic_store_explicit(s->raw_flag, 0, memory_order_relaxed);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof(double), compare_doubles);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    long iters = 5000, rounds = 300;
    double fast_ns = 100;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--iters") == 0)
            iters = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0)
            rounds = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--fast-ns") == 0)
            fast_ns = atof(argv[++i]);
        else {
            fputs(usage, stderr);
            return 2;
        }
    }
    if (iters < 1 || rounds < 1) {
        fputs(usage, stderr);
        return 2;
    }
    check(gk_init(), "gk_init");
    int me = gk_my_pe(), npes = gk_n_pes();
    if (npes != 2) {
        if (me == 0)
            fprintf(stderr, "gk-flag-parts: needs exactly 2 PEs\n");
        check(gk_finalize(), "gk_finalize");
        return 2;
    }
    /* gk-bench's layout: payload at the start, the flags on the last two
     * lines of the block. */
    const size_t block = 1 << 20, size = 8;
    unsigned char *sym = gk_malloc(block);
    static unsigned char src[64];
    memset(src, 1, sizeof(src));
    if (sym == NULL)
        gk_abort(1, "gk-flag-parts: gk_malloc failed");
    uint64_t *flags = (uint64_t *)(void *)(sym + block - 128);
    struct side s = {
        .me = me,
        .peer = 1 - me,
        .inbox = sym,
        .peer_inbox = gk_ptr(sym, 1 - me),
        .flag = &flags[me * 8],
        .peer_flag = &flags[(1 - me) * 8],
        .raw_flag = (_Atomic uint64_t *)(void *)&flags[me * 8],
        .raw_peer_flag = gk_ptr(&flags[(1 - me) * 8], 1 - me),
        .src = src,
    };
    if (s.peer_inbox == NULL || s.raw_peer_flag == NULL)
        gk_abort(1, "gk-flag-parts: the peer's heap is not mapped here (gk_ptr)");
    flags[0] = flags[8] = 0;
    check(gk_barrier(), "gk_barrier");
    if (me == 0)
        call_costs(&s);
    check(gk_barrier(), "gk_barrier");
    flags[0] = flags[8] = 0;
    check(gk_barrier(), "gk_barrier");

    double *one_way = calloc((size_t)rounds * N_VARIANTS, sizeof(double));
    double *scratch = calloc((size_t)rounds, sizeof(double));
    if (one_way == NULL || scratch == NULL)
        gk_abort(1, "gk-flag-parts: out of memory");
    uint64_t seq = 0;
    for (long r = 0; r < rounds; r++) {
        for (int v = 0; v < N_VARIANTS; v++) {
            check(gk_barrier(), "gk_barrier");
            run_variant((enum variant)v, &s, size, iters / 5 + 1, &seq); /* warm-up */
            double t0 = bench_now_us();
            run_variant((enum variant)v, &s, size, iters, &seq);
            one_way[r * N_VARIANTS + v] = (bench_now_us() - t0) * 1e3 / (double)iters / 2;
        }
    }

    if (me == 0) {
        printf("# flag ping-pong parts, 8 B, %ld rounds of %ld round trips per variant\n",
               rounds, iters);
        for (int state = 0; state < 2; state++) {
            int n = 0;
            for (long r = 0; r < rounds; r++)
                n += (one_way[r * N_VARIANTS + V_RAW] < fast_ns) == (state == 0);
            printf("# %s state (raw one-way %s %.0f ns): %d rounds\n", state ? "slow" : "fast",
                   state ? ">=" : "<", fast_ns, n);
            if (n == 0)
                continue;
            printf("# %-40s %10s %18s\n", "variant", "one-way ns", "minus raw, paired");
            for (int v = 0; v < N_VARIANTS; v++) {
                int k = 0;
                for (long r = 0; r < rounds; r++)
                    if ((one_way[r * N_VARIANTS + V_RAW] < fast_ns) == (state == 0))
                        scratch[k++] = one_way[r * N_VARIANTS + v];
                double med = median(scratch, k);
                k = 0;
                for (long r = 0; r < rounds; r++)
                    if ((one_way[r * N_VARIANTS + V_RAW] < fast_ns) == (state == 0))
                        scratch[k++] = one_way[r * N_VARIANTS + v] - one_way[r * N_VARIANTS];
                printf("  %-40s %10.1f %+18.1f\n", variant_names[v], med, median(scratch, k));
            }
        }
    }
    free(one_way);
    free(scratch);
    check(gk_barrier(), "gk_barrier");
    gk_free(sym);
    check(gk_finalize(), "gk_finalize");
    return 0;
}

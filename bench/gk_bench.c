/*
 * gk-bench: gasket's micro-benchmarks, OSU style. Run on 2 PEs (bandwidth,
 * latency, ping-pongs) or any number (barrier, bcast, allreduce):
 *
 *   gasket-run -n 2 --bind build/bench/gk-bench NAME
 *
 * NAME: put_lat get_lat put_bw get_bw fadd_lat cswap_lat barrier_lat
 * flag_pingpong signal_pingpong nbi_flag_pingpong barrier_pingpong
 * bcast_lat allreduce_lat, or all. Latencies are microseconds per
 * operation (one-way for the ping-pongs), bandwidths MB/s (10^6 bytes).
 */
#include <gasket.h>

#include "bench_common.h"

#define MAX_MSG ((size_t)4 << 20)
#define BW_WINDOW 64

static int me, npes;
static unsigned char *sym;  /* symmetric: MAX_MSG * 2 */
static unsigned char *priv; /* private source/destination */

static void check(int status, const char *what)
{
    if (status != GK_OK) {
        fprintf(stderr, "gk-bench: %s failed: %s\n", what, gk_strerror(status));
        gk_abort(1, what);
    }
}

static int need_two(const char *name)
{
    if (npes < 2) {
        if (me == 0)
            printf("# %s needs 2 PEs\n", name);
        return 0;
    }
    return 1;
}

/* put_lat / get_lat: PE 0 does one operation and completes it (quiet for
 * puts), iters times; PE 1 waits in the barrier. */
static void rma_lat(const char *name, int is_put)
{
    if (!need_two(name))
        return;
    if (me == 0)
        bench_header(name, "gasket", npes, is_put ? "us per put + quiet" : "us per get");
    BENCH_FOR_SIZES(size, 1, MAX_MSG) {
        long iters = bench_iters(size, 20000);
        check(gk_barrier(), "gk_barrier");
        if (me == 0) {
            for (long i = 0; i < iters / 10; i++) /* warm-up */
                check(is_put ? gk_put(1, sym, priv, size) : gk_get(1, priv, sym, size), name);
            double t0 = bench_now_us();
            for (long i = 0; i < iters; i++) {
                if (is_put) {
                    check(gk_put(1, sym, priv, size), "gk_put");
                    check(gk_quiet(), "gk_quiet");
                } else {
                    check(gk_get(1, priv, sym, size), "gk_get");
                }
            }
            bench_row(size, (bench_now_us() - t0) / (double)iters);
        }
    }
}

/* put_bw / get_bw: windows of non-blocking operations, then quiet. */
static void rma_bw(const char *name, int is_put)
{
    if (!need_two(name))
        return;
    if (me == 0)
        bench_header(name, "gasket", npes, "MB/s");
    BENCH_FOR_SIZES(size, 1, MAX_MSG) {
        long loops = bench_bw_loops(size, BW_WINDOW);
        check(gk_barrier(), "gk_barrier");
        if (me == 0) {
            double t0 = 0;
            for (long l = -2; l < loops; l++) { /* two warm-up windows */
                if (l == 0)
                    t0 = bench_now_us();
                for (int w = 0; w < BW_WINDOW; w++)
                    check(is_put ? gk_put_nbi(1, sym, priv, size)
                                 : gk_get_nbi(1, priv, sym, size),
                          name);
                check(gk_quiet(), "gk_quiet");
            }
            double us = bench_now_us() - t0;
            bench_row(size, (double)size * BW_WINDOW * (double)loops / us);
        }
    }
}

static void amo_lat(const char *name, int is_fadd)
{
    if (!need_two(name))
        return;
    uint64_t *word = (uint64_t *)(void *)sym, old;
    long iters = 200000;
    check(gk_barrier(), "gk_barrier");
    if (me == 0) {
        bench_header(name, "gasket", npes, "us per operation");
        for (long i = 0; i < 1000; i++)
            check(gk_atomic_fetch_add_u64(1, word, 1, &old), name);
        double t0 = bench_now_us();
        for (long i = 0; i < iters; i++) {
            if (is_fadd)
                check(gk_atomic_fetch_add_u64(1, word, 1, &old), name);
            else
                check(gk_atomic_compare_swap_u64(1, word, old, old + 1, &old), name);
        }
        bench_row(8, (bench_now_us() - t0) / (double)iters);
    }
    check(gk_barrier(), "gk_barrier");
}

static void barrier_lat(void)
{
    long iters = npes > 4 ? 20000 : 100000;
    if (me == 0)
        bench_header("barrier_lat", "gasket", npes, "us per barrier (size is the PE count)");
    for (long i = 0; i < 1000; i++)
        check(gk_barrier(), "gk_barrier");
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++)
        check(gk_barrier(), "gk_barrier");
    double us = (bench_now_us() - t0) / (double)iters;
    if (me == 0)
        bench_row((size_t)npes, us);
}

/*
 * The ping-pongs: PE 0 sends `size` bytes to PE 1, PE 1 answers the same
 * way; one-way time is half the round trip. The mechanisms:
 *   flag:     put payload, fence, put flag; wait on the flag
 *   nbi_flag: put_nbi payload, quiet, put flag; wait on the flag
 *   signal:   put_signal payload + semaphore; sem_wait
 *   barrier:  put payload, barrier (both sides)
 */
enum pingpong_kind { PP_FLAG, PP_NBI_FLAG, PP_SIGNAL, PP_BARRIER };

static void pingpong(const char *name, enum pingpong_kind kind, size_t lo, size_t hi)
{
    if (!need_two(name))
        return;
    /* Two flag lines, as in the raw floor: PE r waits on line r and writes
     * line 1-r of its peer. With one shared slot, a PE's store to the
     * peer's flag and its load of its own would sit at the same page
     * offset, and the CPU's 4 KiB alias check can stall that load. */
    uint64_t *flags = (uint64_t *)(void *)(sym + 2 * MAX_MSG - 128);
    uint64_t *flag = me < 2 ? &flags[me * 8] : &flags[0];
    uint64_t *peer_flag = me < 2 ? &flags[(1 - me) * 8] : &flags[0];
    unsigned char *inbox = sym;
    int peer = 1 - me;
    gk_sem_t sem, peer_sem;
    check(gk_sem_alloc_all(GK_SEM_SINGLE_PRODUCER | GK_SEM_SINGLE_CONSUMER, &sem), "sem");
    check(gk_sem_on(sem, me < 2 ? peer : 0, &peer_sem), "gk_sem_on");
    flags[0] = flags[8] = 0;
    uint64_t seq = 0;
    if (me == 0)
        bench_header(name, "gasket", npes, "us one-way");
    BENCH_FOR_SIZES(size, lo, hi) {
        long iters = bench_iters(size, 100000);
        check(gk_barrier(), "gk_barrier");
        double t0 = 0;
        for (long i = -iters / 10; i < iters; i++) {
            if (i == 0)
                t0 = bench_now_us();
            for (int turn = 0; turn < 2; turn++) {
                int sender = turn; /* PE 0 sends first, then PE 1 answers */
                seq++;
                if (me >= 2) { /* bystanders only take part in barriers */
                    if (kind == PP_BARRIER)
                        check(gk_barrier(), "gk_barrier");
                    continue;
                }
                if (me == sender) {
                    switch (kind) {
                    case PP_FLAG:
                        check(gk_put(peer, inbox, priv, size), "gk_put");
                        check(gk_fence(), "gk_fence");
                        check(gk_put_u64(peer, peer_flag, seq), "gk_put_u64");
                        break;
                    case PP_NBI_FLAG:
                        check(gk_put_nbi(peer, inbox, priv, size), "gk_put_nbi");
                        check(gk_quiet(), "gk_quiet");
                        check(gk_put_u64(peer, peer_flag, seq), "gk_put_u64");
                        break;
                    case PP_SIGNAL:
                        check(gk_put_signal(peer, inbox, priv, size, peer_sem, 1), "put_signal");
                        break;
                    case PP_BARRIER:
                        check(gk_put(peer, inbox, priv, size), "gk_put");
                        check(gk_barrier(), "gk_barrier");
                        break;
                    }
                } else {
                    switch (kind) {
                    case PP_FLAG:
                    case PP_NBI_FLAG:
                        check(gk_wait_until_u64(flag, GK_CMP_GE, seq), "gk_wait_until");
                        break;
                    case PP_SIGNAL:
                        check(gk_sem_wait(sem), "gk_sem_wait");
                        break;
                    case PP_BARRIER:
                        check(gk_barrier(), "gk_barrier");
                        break;
                    }
                }
            }
        }
        if (me == 0)
            bench_row(size, (bench_now_us() - t0) / (double)iters / 2.0);
    }
    check(gk_barrier(), "gk_barrier");
    check(gk_sem_free_all(sem), "gk_sem_free_all");
}

/* One broadcast from PE 0, or one all-reduce (sum) of size/8 doubles. */
static void one_bcast(size_t size)
{
    check(gk_broadcast(priv, priv + MAX_MSG, size, 0), "gk_broadcast");
}

static void one_allreduce(size_t size)
{
    check(gk_allreduce(priv, priv + MAX_MSG, size / 8, GK_DTYPE_DOUBLE, GK_OP_SUM),
          "gk_allreduce");
}

/* Back-to-back collectives, then a barrier so the time is until everyone
 * is done (a broadcast's root finishes first). */
static void collective_lat(const char *name, const char *unit, void (*one)(size_t))
{
    if (me == 0)
        bench_header(name, "gasket", npes, unit);
    BENCH_FOR_SIZES(size, 8, 65536) {
        long iters = bench_iters(size, 20000);
        check(gk_barrier(), "gk_barrier");
        double t0 = 0;
        for (long i = -iters / 10; i < iters; i++) {
            if (i == 0)
                t0 = bench_now_us();
            one(size);
        }
        check(gk_barrier(), "gk_barrier");
        if (me == 0)
            bench_row(size, (bench_now_us() - t0) / (double)iters);
    }
}

static int run(const char *name)
{
    int all = strcmp(name, "all") == 0, ran = 0;
#define BENCH(n, call)                                                         \
    if (all || strcmp(name, n) == 0) {                                         \
        call;                                                                  \
        ran = 1;                                                               \
    }
    BENCH("put_lat", rma_lat("put_lat", 1));
    BENCH("get_lat", rma_lat("get_lat", 0));
    BENCH("put_bw", rma_bw("put_bw", 1));
    BENCH("get_bw", rma_bw("get_bw", 0));
    BENCH("fadd_lat", amo_lat("fadd_lat", 1));
    BENCH("cswap_lat", amo_lat("cswap_lat", 0));
    BENCH("barrier_lat", barrier_lat());
    BENCH("flag_pingpong", pingpong("flag_pingpong", PP_FLAG, 8, 65536));
    BENCH("signal_pingpong", pingpong("signal_pingpong", PP_SIGNAL, 1, 16384));
    BENCH("nbi_flag_pingpong", pingpong("nbi_flag_pingpong", PP_NBI_FLAG, 1, 16384));
    BENCH("barrier_pingpong", pingpong("barrier_pingpong", PP_BARRIER, 1, 16384));
    BENCH("bcast_lat", collective_lat("bcast_lat", "us per broadcast from PE 0", one_bcast));
    BENCH("allreduce_lat", collective_lat("allreduce_lat", "us per all-reduce of doubles (sum)",
                                          one_allreduce));
#undef BENCH
    return ran;
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: gasket-run -n 2 gk-bench NAME (see the source's header)\n");
        return 2;
    }
    check(gk_init(), "gk_init");
    me = gk_my_pe();
    npes = gk_n_pes();
    sym = gk_malloc(2 * MAX_MSG);
    /* Page-aligned like the heap, so copies are not slowed by a relative
     * misalignment that memcpy's floor would not have. */
    if (posix_memalign((void **)&priv, 4096, 2 * MAX_MSG) != 0)
        priv = NULL;
    if (sym == NULL || priv == NULL)
        gk_abort(1, "gk-bench: no memory for the buffers (raise GK_HEAP_SIZE)");
    memset(priv, 1, 2 * MAX_MSG);
    memset(sym, 0, 2 * MAX_MSG);
    check(gk_barrier(), "gk_barrier");
    int ran = run(argv[1]);
    if (!ran && me == 0)
        fprintf(stderr, "gk-bench: unknown benchmark %s\n", argv[1]);
    gk_free(sym);
    free(priv);
    check(gk_finalize(), "gk_finalize");
    return ran ? 0 : 2;
}

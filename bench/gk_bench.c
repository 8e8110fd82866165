/*
 * gk-bench: gasket's micro-benchmarks, OSU style, one driver for all:
 *
 *   gasket-run -n 2 --bind build/bench/gk-bench NAME [--iters N] [--warmup N]
 *                            [--min-size BYTES] [--max-size BYTES] [--digits D]
 *
 * Point-to-point benchmarks run between PEs 0 and 1 (other PEs wait in the
 * barriers); barrier and the collectives use every PE. Latencies are
 * microseconds per operation (one-way for the ping-pongs), bandwidths MB/s
 * (10^6 bytes per second). Tables: `#` header lines, then `size value`
 * rows; compare.py reads them beside the peers' (bench/peers/).
 */
#include <gasket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "gk_bench.h"

static const char usage[] =
    "usage: gasket-run -n 2 [--bind] gk-bench NAME[,NAME...] [--iters N] [--warmup N]\n"
    "                    [--min-size BYTES] [--max-size BYTES] [--sizes LIST]\n"
    "                    [--digits D] [--poll]\n"
    "  put_lat        gk_put + gk_quiet, 1 B to 4 MiB (us)\n"
    "  get_lat        gk_get + gk_quiet, 1 B to 4 MiB (us)\n"
    "  put_bw         windows of 64 gk_put_nbi, then gk_quiet (MB/s)\n"
    "  get_bw         windows of 64 gk_get_nbi, then gk_quiet (MB/s)\n"
    "  fadd_lat       gk_atomic_fetch_add_u64 (us)\n"
    "  cswap_lat      gk_atomic_compare_swap_u64 (us)\n"
    "  add_lat        gk_atomic_add_u64, issued back to back, then gk_quiet (us per add)\n"
    "  put_fadd_lat   gk_put, then gk_atomic_fetch_add_u64 to the same PE, 8 B to\n"
    "                 64 KiB (us per pair)\n"
    "  barrier_lat    gk_barrier over all PEs (us; size is the PE count)\n"
    "  flag_pingpong  put, gk_fence, gk_put_u64 flag; gk_wait_until_u64, 8 B to\n"
    "                 64 KiB (us one-way)\n"
    "  all            every benchmark above, then the ones below\n"
    "  signal_pingpong, nbi_flag_pingpong, barrier_pingpong: the ping-pong with\n"
    "                 gk_put_sem + gk_sem_wait, put_nbi + quiet + flag, or\n"
    "                 put + barrier, 1 B to 16 KiB\n"
    "  amo_flag_pingpong  the ping-pong with put, then gk_atomic_add_u64 on the\n"
    "                 flag (no fence), 8 B to 64 KiB\n"
    "  bcast_lat, allreduce_lat: gk_broadcast from PE 0, gk_allreduce of\n"
    "                 doubles (sum), 8 B to 64 KiB (us)\n"
    "  am_lat         short (size 0) or medium AM request + short reply (us round trip)\n"
    "  am_wait_lat    the same short round trip, awaited with gk_wait_until_u64 on a\n"
    "                 heap word the reply's handler sets\n"
    "  am_rate        short AM requests per second, windows of 64\n"
    "  sendrecv_lat   gk_send/gk_recv ping-pong, 1 B to 4 MiB (us one-way)\n"
    "  sendrecv_bw    windows of 64 gk_isend + ack (MB/s)\n"
    "  mt_put_lat     gk_ctx_put + gk_ctx_quiet, 1/2/4 threads on own contexts (us;\n"
    "                 not part of `all`: it needs GK_THREAD_MULTIPLE)\n"
    "  lock_put_lat, lock_get_lat, lock_get8_lat, lock_all_get_lat: window lock,\n"
    "                 one put / one get / eight gets, unlock, 8 B to 64 KiB (us)\n"
    "  lock_xget_lat  exclusive window lock, one get, unlock, 8 B to 64 KiB (us)\n"
    "  lock_contended every PE: PE 0's exclusive lock, update, unlock (us per\n"
    "                 acquisition; # longest wait)\n"
    "  overlap        % of a locked put / get hidden behind computation\n"
    "  passive_busy   lock + put + unlock and lock + get + unlock, 8 B and 1 MiB,\n"
    "                 while PE 1 waits in a barrier (_idle) and while it computes\n"
    "                 50 ms without calling gasket (_busy) (us)\n"
    "  team_barrier_lat, team_bcast_lat, team_allreduce_lat, team_reduce_lat,\n"
    "  team_fcollect_lat, team_alltoall_lat: gk_team_barrier, gk_team_broadcast\n"
    "                 from PE 0, gk_team_allreduce and gk_team_reduce of doubles\n"
    "                 (sum), gk_team_fcollect (size from each PE), gk_team_alltoall\n"
    "                 (size to each PE) over GK_TEAM_WORLD, 8 B to 1 MiB (us)\n"
    "  team_alltoall_sym_lat, team_fcollect_sym_lat: the same into a dst from\n"
    "                 gk_malloc (us)\n"
    "  team_overlap   1 MiB gk_team_allreduce_nb and gk_team_alltoall_nb behind\n"
    "                 50 ms of computation (us: computation, collective, both)\n"
    "  team_overlap_sym  the same into a dst from gk_malloc\n"
    "--iters N sets the iteration count for messages up to 4 KiB (larger ones\n"
    "scale down with the size); --min-size and --max-size bound the sizes;\n"
    "--sizes 8,64K,1M keeps only those sizes; --digits the decimals of latencies\n"
    "(2); --poll: team_overlap calls gk_poll about every 1 ms while it computes.\n"
    "A comma-separated list of names runs each (in the order above).\n";

int bench_me, bench_npes;
unsigned char *bench_sym, *bench_priv;
/* The short names this file has always used for the shared state. */
#define me bench_me
#define npes bench_npes
#define sym bench_sym
#define priv bench_priv

void bench_fail(int status, const char *what)
{
    char why[256];
    snprintf(why, sizeof(why), "gk-bench: %s failed: %s (%d)", what, gk_strerror(status),
             status);
    fprintf(stderr, "%s\n", why);
    gk_abort(1, why);
}

int bench_need_two(const char *name)
{
    return bench_two_or_skip(me, npes, name, "PEs");
}

/*
 * put_lat / get_lat: PE 0 does one blocking put (get) of `size` bytes to
 * PE 1 and gk_quiet(), iters times; PE 1 waits in the next barrier.
 */
static void rma_lat(const struct bench_opts *opts, const char *name, int is_put)
{
    if (!bench_need_two(name))
        return;
    if (me == 0)
        bench_header(name, "gasket", npes, NULL,
                     is_put ? "us per gk_put + gk_quiet" : "us per gk_get + gk_quiet");
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long iters = bench_iters(opts, size, 200000);
        long warmup = bench_warmup(opts, size, 200000);
        bench_check(gk_barrier(), "gk_barrier");
        if (me != 0)
            continue;
        double t0 = 0;
        BENCH_TIMED_LOOP(i, warmup, iters, t0) {
            if (is_put)
                bench_check(gk_put(1, sym, priv, size), "gk_put");
            else
                bench_check(gk_get(1, priv, sym, size), "gk_get");
            bench_check(gk_quiet(), "gk_quiet");
        }
        bench_row_lat(opts, size, (bench_now_us() - t0) / (double)iters);
    }
    bench_check(gk_barrier(), "gk_barrier");
}

/* put_bw / get_bw: windows of non-blocking operations, each closed by quiet. */
static void rma_bw(const struct bench_opts *opts, const char *name, int is_put)
{
    if (!bench_need_two(name))
        return;
    if (me == 0)
        bench_header(name, "gasket", npes, "windows of 64 non-blocking operations, then gk_quiet",
                     "MB/s");
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long loops = bench_bw_loops(opts, size), warmup = bench_bw_warmup(opts, loops);
        bench_check(gk_barrier(), "gk_barrier");
        if (me != 0)
            continue;
        double t0 = 0;
        BENCH_TIMED_LOOP(l, warmup, loops, t0) {
            for (int w = 0; w < BENCH_BW_WINDOW; w++) {
                if (is_put)
                    bench_check(gk_put_nbi(1, sym, priv, size), "gk_put_nbi");
                else
                    bench_check(gk_get_nbi(1, priv, sym, size), "gk_get_nbi");
            }
            bench_check(gk_quiet(), "gk_quiet");
        }
        bench_row_bw_windows(size, loops, bench_now_us() - t0);
    }
    bench_check(gk_barrier(), "gk_barrier");
}

/* add_lat: PE 0 adds to one word on PE 1, back to back; the quiet that
 * completes them counts. */
static void add_lat(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    uint64_t *word = (uint64_t *)(void *)(sym + BENCH_MAX_MSG);
    long iters = bench_iters(opts, 8, 1000000);
    long warmup = bench_warmup(opts, 8, 1000000);
    bench_check(gk_barrier(), "gk_barrier");
    if (me == 0) {
        bench_header(name, "gasket", npes, NULL, "us per gk_atomic_add_u64");
        double t0 = 0;
        BENCH_TIMED_LOOP(i, warmup, iters, t0) {
            bench_check(gk_atomic_add_u64(1, word, 1), "gk_atomic_add_u64");
        }
        bench_check(gk_quiet(), "gk_quiet");
        bench_row_lat(opts, 8, (bench_now_us() - t0) / (double)iters);
    }
    bench_check(gk_barrier(), "gk_barrier");
}

/* put_fadd_lat: PE 0 puts `size` bytes to PE 1, then fetch-adds a word
 * there: the atomic is ordered after the put. */
static void put_fadd_lat(const struct bench_opts *opts, const char *name)
{
    if (!bench_need_two(name))
        return;
    uint64_t *word = (uint64_t *)(void *)(sym + BENCH_MAX_MSG);
    bench_check(gk_barrier(), "gk_barrier");
    if (me == 0)
        bench_header(name, "gasket", npes, NULL, "us per gk_put + gk_atomic_fetch_add_u64");
    BENCH_FOR_SIZES(opts, size, 8, 65536) {
        long iters = bench_iters(opts, size, 100000);
        long warmup = bench_warmup(opts, size, 100000);
        if (me == 0) {
            uint64_t old = 0;
            double t0 = 0;
            BENCH_TIMED_LOOP(i, warmup, iters, t0) {
                bench_check(gk_put(1, sym, priv, size), "gk_put");
                bench_check(gk_atomic_fetch_add_u64(1, word, 1, &old), "gk_atomic_fetch_add_u64");
            }
            bench_row_lat(opts, size, (bench_now_us() - t0) / (double)iters);
        }
        bench_check(gk_barrier(), "gk_barrier");
    }
}

/* fadd_lat / cswap_lat: PE 0 updates one word on PE 1; every compare-and-swap
 * succeeds (it expects the value the previous one left). */
static void amo_lat(const struct bench_opts *opts, const char *name, int is_fadd)
{
    if (!bench_need_two(name))
        return;
    uint64_t *word = (uint64_t *)(void *)(sym + BENCH_MAX_MSG);
    uint64_t old = 0;
    long iters = bench_iters(opts, 8, 1000000);
    long warmup = bench_warmup(opts, 8, 1000000);
    bench_check(gk_barrier(), "gk_barrier");
    if (me == 0) {
        bench_header(name, "gasket", npes, NULL,
                     is_fadd ? "us per gk_atomic_fetch_add_u64"
                             : "us per gk_atomic_compare_swap_u64");
        bench_check(gk_atomic_fetch_u64(1, word, &old), "gk_atomic_fetch_u64");
        double t0 = 0;
        BENCH_TIMED_LOOP(i, warmup, iters, t0) {
            if (is_fadd) {
                bench_check(gk_atomic_fetch_add_u64(1, word, 1, &old), "gk_atomic_fetch_add_u64");
            } else {
                uint64_t seen;
                bench_check(gk_atomic_compare_swap_u64(1, word, old, old + 1, &seen),
                      "gk_atomic_compare_swap_u64");
                if (seen != old) {
                    fprintf(stderr, "gk-bench: compare-and-swap saw %llu, expected %llu\n",
                            (unsigned long long)seen, (unsigned long long)old);
                    gk_abort(1, "gk-bench: compare-and-swap failed");
                }
                old = seen + 1;
            }
        }
        bench_row_lat(opts, 8, (bench_now_us() - t0) / (double)iters);
    }
    bench_check(gk_barrier(), "gk_barrier");
}

static void barrier_lat(const struct bench_opts *opts, const char *name)
{
    /* More PEs than cores: each barrier round may wait for a time slice. */
    long base = npes > 4 ? 20000 : 200000;
    long iters = bench_iters(opts, 8, base), warmup = bench_warmup(opts, 8, base);
    if (me == 0)
        bench_header(name, "gasket", npes, "size is the number of PEs", "us per gk_barrier");
    bench_check(gk_barrier(), "gk_barrier");
    double t0 = 0;
    BENCH_TIMED_LOOP(i, warmup, iters, t0) {
        bench_check(gk_barrier(), "gk_barrier");
    }
    double us = (bench_now_us() - t0) / (double)iters;
    if (me == 0)
        bench_row_lat(opts, (size_t)npes, us);
}

/*
 * The ping-pongs: PE 0 sends `size` bytes to PE 1, PE 1 answers the same
 * way; one-way time is half the round trip. The mechanisms:
 *   flag:     gk_put payload, gk_fence, gk_put_u64 flag; gk_wait_until_u64
 *   nbi_flag: gk_put_nbi payload, gk_quiet, gk_put_u64 flag; the same wait
 *   signal:   gk_put_sem payload + semaphore; gk_sem_wait
 *   barrier:  gk_put payload, gk_barrier (both sides)
 *   amo_flag: gk_put payload, gk_atomic_add_u64 flag; gk_wait_until_u64
 * The flag carries a sequence number that grows by one per message, so no
 * one resets it. The loop has the raw floor's shape (bench/peers/
 * raw_floor.c), and is compiled once per mechanism, so that only the
 * communication calls differ between the two.
 */
enum pingpong_kind { PP_FLAG, PP_NBI_FLAG, PP_SIGNAL, PP_BARRIER, PP_AMO_FLAG };

struct pingpong {
    int peer;
    unsigned char *inbox;          /* symmetric: where the peer's payload lands */
    uint64_t *flag, *peer_flag;    /* symmetric: mine to wait on, the peer's */
    gk_sem_t sem, peer_sem;        /* PP_SIGNAL: mine, and the peer's */
};

static inline __attribute__((always_inline)) void
pingpong_send(enum pingpong_kind kind, const struct pingpong *pp, size_t size, uint64_t seq)
{
    switch (kind) {
    case PP_FLAG:
        bench_check(gk_put(pp->peer, pp->inbox, priv, size), "gk_put");
        bench_check(gk_fence(), "gk_fence");
        bench_check(gk_put_u64(pp->peer, pp->peer_flag, seq), "gk_put_u64");
        break;
    case PP_NBI_FLAG:
        bench_check(gk_put_nbi(pp->peer, pp->inbox, priv, size), "gk_put_nbi");
        bench_check(gk_quiet(), "gk_quiet");
        bench_check(gk_put_u64(pp->peer, pp->peer_flag, seq), "gk_put_u64");
        break;
    case PP_SIGNAL:
        bench_check(gk_put_sem(pp->peer, pp->inbox, priv, size, pp->peer_sem, 1), "gk_put_sem");
        break;
    case PP_BARRIER:
        bench_check(gk_put(pp->peer, pp->inbox, priv, size), "gk_put");
        bench_check(gk_barrier(), "gk_barrier");
        break;
    case PP_AMO_FLAG:
        bench_check(gk_put(pp->peer, pp->inbox, priv, size), "gk_put");
        bench_check(gk_atomic_add_u64(pp->peer, pp->peer_flag, 1), "gk_atomic_add_u64");
        break;
    }
}

static inline __attribute__((always_inline)) void
pingpong_receive(enum pingpong_kind kind, const struct pingpong *pp, uint64_t seq)
{
    switch (kind) {
    case PP_FLAG:
    case PP_NBI_FLAG:
        bench_check(gk_wait_until_u64(pp->flag, GK_CMP_GE, seq), "gk_wait_until_u64");
        break;
    case PP_SIGNAL:
        bench_check(gk_sem_wait(pp->sem), "gk_sem_wait");
        break;
    case PP_BARRIER:
        bench_check(gk_barrier(), "gk_barrier");
        break;
    case PP_AMO_FLAG: /* each PE gets every other message: seq 1 and 2 are the first */
        bench_check(gk_wait_until_u64(pp->flag, GK_CMP_GE, (seq + 1) / 2), "gk_wait_until_u64");
        break;
    }
}

/* `iters` round trips; *seq counts the messages (both PEs count alike). */
static inline __attribute__((always_inline)) void
pingpong_loop(enum pingpong_kind kind, const struct pingpong *pp, size_t size, long iters,
              uint64_t *seq)
{
    uint64_t s = *seq;
    if (me >= 2) { /* bystanders take part in barriers only */
        for (long i = 0; kind == PP_BARRIER && i < 2 * iters; i++)
            bench_check(gk_barrier(), "gk_barrier");
        *seq = s + 2 * (uint64_t)iters;
        return;
    }
    for (long i = 0; i < iters; i++) {
        for (int turn = 0; turn < 2; turn++) { /* PE 0 sends, then PE 1 */
            ++s;
            if (turn == me)
                pingpong_send(kind, pp, size, s);
            else
                pingpong_receive(kind, pp, s);
        }
    }
    *seq = s;
}

static void pingpong_run(enum pingpong_kind kind, const struct pingpong *pp, size_t size,
                         long iters, uint64_t *seq)
{
    switch (kind) {
    case PP_FLAG:
        pingpong_loop(PP_FLAG, pp, size, iters, seq);
        break;
    case PP_NBI_FLAG:
        pingpong_loop(PP_NBI_FLAG, pp, size, iters, seq);
        break;
    case PP_SIGNAL:
        pingpong_loop(PP_SIGNAL, pp, size, iters, seq);
        break;
    case PP_BARRIER:
        pingpong_loop(PP_BARRIER, pp, size, iters, seq);
        break;
    case PP_AMO_FLAG:
        pingpong_loop(PP_AMO_FLAG, pp, size, iters, seq);
        break;
    }
}

static void pingpong(const struct bench_opts *opts, const char *name, enum pingpong_kind kind,
                     size_t lo, size_t hi)
{
    if (!bench_need_two(name))
        return;
    /* Two flag lines, as in the raw floor: PE r waits on line r and writes
     * line 1-r of its peer. With one shared slot, a PE's store to the
     * peer's flag and its load of its own would sit at the same page
     * offset, and the CPU's 4 KiB alias check can stall that load. */
    uint64_t *flags = (uint64_t *)(void *)(sym + 2 * BENCH_MAX_MSG - 128);
    struct pingpong pp = {
        .peer = me < 2 ? 1 - me : 0,
        .inbox = sym,
        .flag = me < 2 ? &flags[me * 8] : &flags[0],
        .peer_flag = me < 2 ? &flags[(1 - me) * 8] : &flags[0],
        .sem = GK_SEM_NULL,
        .peer_sem = GK_SEM_NULL,
    };
    if (kind == PP_SIGNAL) {
        bench_check(gk_sem_alloc_all(GK_SEM_SINGLE_PRODUCER | GK_SEM_SINGLE_CONSUMER, &pp.sem),
              "gk_sem_alloc_all");
        bench_check(gk_sem_on(pp.sem, pp.peer, &pp.peer_sem), "gk_sem_on");
    }
    flags[0] = flags[8] = 0;
    bench_check(gk_barrier(), "gk_barrier");
    uint64_t seq = 0;
    if (me == 0)
        bench_header(name, "gasket", npes, NULL, "us one-way");
    BENCH_FOR_SIZES(opts, size, lo, hi) {
        long iters = bench_iters(opts, size, 100000);
        long warmup = bench_warmup(opts, size, 100000);
        bench_check(gk_barrier(), "gk_barrier");
        pingpong_run(kind, &pp, size, warmup, &seq);
        double t0 = bench_now_us();
        pingpong_run(kind, &pp, size, iters, &seq);
        double us = bench_now_us() - t0;
        if (me == 0)
            bench_row_lat(opts, size, us / (double)iters / 2.0);
    }
    bench_check(gk_barrier(), "gk_barrier");
    if (kind == PP_SIGNAL)
        bench_check(gk_sem_free_all(pp.sem), "gk_sem_free_all");
}

/* Back-to-back collectives, then a barrier, so the time runs until every PE
 * is done (a broadcast's root finishes first). */
static void collective_lat(const struct bench_opts *opts, const char *name, int is_bcast)
{
    if (me == 0)
        bench_header(name, "gasket", npes, NULL,
                     is_bcast ? "us per gk_broadcast from PE 0"
                              : "us per gk_allreduce of doubles (sum)");
    BENCH_FOR_SIZES(opts, size, 8, 65536) {
        long iters = bench_iters(opts, size, 20000);
        long warmup = bench_warmup(opts, size, 20000);
        bench_check(gk_barrier(), "gk_barrier");
        double t0 = 0;
        BENCH_TIMED_LOOP(i, warmup, iters, t0) {
            if (is_bcast)
                bench_check(gk_broadcast(priv, priv + BENCH_MAX_MSG, size, 0), "gk_broadcast");
            else
                bench_check(gk_allreduce(priv, priv + BENCH_MAX_MSG, size / 8, GK_DTYPE_DOUBLE,
                                   GK_OP_SUM),
                      "gk_allreduce");
        }
        bench_check(gk_barrier(), "gk_barrier");
        if (me == 0)
            bench_row_lat(opts, size, (bench_now_us() - t0) / (double)iters);
    }
}

static void run_put_lat(const struct bench_opts *o, const char *n) { rma_lat(o, n, 1); }
static void run_get_lat(const struct bench_opts *o, const char *n) { rma_lat(o, n, 0); }
static void run_put_bw(const struct bench_opts *o, const char *n) { rma_bw(o, n, 1); }
static void run_get_bw(const struct bench_opts *o, const char *n) { rma_bw(o, n, 0); }
static void run_fadd(const struct bench_opts *o, const char *n) { amo_lat(o, n, 1); }
static void run_cswap(const struct bench_opts *o, const char *n) { amo_lat(o, n, 0); }
static void run_flag(const struct bench_opts *o, const char *n)
{
    pingpong(o, n, PP_FLAG, 8, 65536);
}
static void run_signal(const struct bench_opts *o, const char *n)
{
    pingpong(o, n, PP_SIGNAL, 1, 16384);
}
static void run_nbi_flag(const struct bench_opts *o, const char *n)
{
    pingpong(o, n, PP_NBI_FLAG, 1, 16384);
}
static void run_barrier_pp(const struct bench_opts *o, const char *n)
{
    pingpong(o, n, PP_BARRIER, 1, 16384);
}
static void run_amo_flag(const struct bench_opts *o, const char *n)
{
    pingpong(o, n, PP_AMO_FLAG, 8, 65536);
}
static void run_bcast(const struct bench_opts *o, const char *n) { collective_lat(o, n, 1); }
static void run_allreduce(const struct bench_opts *o, const char *n) { collective_lat(o, n, 0); }

static const struct bench_entry benches[] = {
    {"put_lat", run_put_lat},
    {"get_lat", run_get_lat},
    {"put_bw", run_put_bw},
    {"get_bw", run_get_bw},
    {"fadd_lat", run_fadd},
    {"cswap_lat", run_cswap},
    {"add_lat", add_lat},
    {"put_fadd_lat", put_fadd_lat},
    {"barrier_lat", barrier_lat},
    {"flag_pingpong", run_flag},
    {"signal_pingpong", run_signal},
    {"nbi_flag_pingpong", run_nbi_flag},
    {"barrier_pingpong", run_barrier_pp},
    {"amo_flag_pingpong", run_amo_flag},
    {"bcast_lat", run_bcast},
    {"allreduce_lat", run_allreduce},
    {"am_lat", bench_am_lat},
    {"am_wait_lat", bench_am_wait_lat},
    {"am_rate", bench_am_rate},
    {"sendrecv_lat", bench_sendrecv_lat},
    {"sendrecv_bw", bench_sendrecv_bw},
    {"mt_put_lat", bench_mt_put_lat},
    {"lock_put_lat", bench_lock_put_lat},
    {"lock_get_lat", bench_lock_get_lat},
    {"lock_get8_lat", bench_lock_get8_lat},
    {"lock_all_get_lat", bench_lock_all_get_lat},
    {"lock_xget_lat", bench_lock_xget_lat},
    {"lock_contended", bench_lock_contended},
    {"overlap", bench_overlap},
    {"passive_busy", bench_passive_busy},
    {"vector_put_lat", bench_vector_put_lat},
    {"vector_get_lat", bench_vector_get_lat},
    {"subarray_put_lat", bench_subarray_put_lat},
    {"subarray_get_lat", bench_subarray_get_lat},
    {"subarray_acc_lat", bench_subarray_acc_lat},
    {"team_barrier_lat", bench_team_barrier_lat},
    {"team_bcast_lat", bench_team_bcast_lat},
    {"team_allreduce_lat", bench_team_allreduce_lat},
    {"team_reduce_lat", bench_team_reduce_lat},
    {"team_fcollect_lat", bench_team_fcollect_lat},
    {"team_alltoall_lat", bench_team_alltoall_lat},
    {"team_alltoall_sym_lat", bench_team_alltoall_sym_lat},
    {"team_fcollect_sym_lat", bench_team_fcollect_sym_lat},
    {"team_overlap", bench_team_overlap},
    {"team_overlap_sym", bench_team_overlap_sym},
};

int main(int argc, char **argv)
{
    struct bench_opts opts;
    if (bench_parse(argc, argv, usage, &opts) != 0)
        return 2;
    /* Checked before gk_init, so that every PE exits alike; PE 0 says why
     * (gasket-run sets GK_RANK). */
    const char *rank = getenv("GK_RANK");
    int found = bench_select("gk-bench", usage, &opts, benches, BENCH_COUNT(benches), 1,
                             rank != NULL && strcmp(rank, "0") != 0);
    if (found == BENCH_REFUSED)
        return 2;

    /* Only the threaded benchmark asks for threads: the others measure the
     * single-threaded paths, as a typical program uses them. */
    gk_thread_level_t provided = GK_THREAD_SINGLE;
    if (strcmp(opts.name, "mt_put_lat") == 0)
        bench_check(gk_init_thread(GK_THREAD_MULTIPLE, &provided), "gk_init_thread");
    else
        bench_check(gk_init(), "gk_init");
    me = gk_my_pe();
    npes = gk_n_pes();
    sym = gk_malloc(2 * BENCH_MAX_MSG);
    /* Page-aligned like the heap, so copies are not slowed by a relative
     * misalignment that memcpy's floor would not have. */
    if (posix_memalign((void **)&priv, 4096, 2 * BENCH_MAX_MSG) != 0)
        priv = NULL;
    if (sym == NULL || priv == NULL)
        gk_abort(1, "gk-bench: no memory for the buffers (raise GK_HEAP_SIZE)");
    memset(priv, 1, 2 * BENCH_MAX_MSG);
    memset(sym, 0, 2 * BENCH_MAX_MSG);
    bench_check(gk_barrier(), "gk_barrier");

    for (size_t b = 0; b < BENCH_COUNT(benches); b++) {
        if (found == BENCH_ALL || found == (int)b ||
            (found == BENCH_LIST && bench_listed(&opts, benches[b].name))) {
            benches[b].run(&opts, benches[b].name);
            bench_check(gk_barrier(), "gk_barrier");
        }
    }

    gk_free(sym);
    free(priv);
    bench_check(gk_finalize(), "gk_finalize");
    return 0;
}

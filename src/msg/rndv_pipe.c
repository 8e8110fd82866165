/*
 * rndv_pipe.c: the rendezvous pipeline (protocol in rndv_pipe.h).
 */
#include "msg/rndv_pipe.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/time.h"
#include "base/wait.h"
#include "core/runtime.h"
#include "core/path.h"

/* The pipeline's control block and slots, at the start of its region. A
 * new segment is zeros: generation 0, which no message uses. */
struct pipe_ctl {
    _Alignas(64) _Atomic uint64_t claims; /* gen | lo | hi (pipe_pack) */
    _Alignas(64) _Atomic uint64_t drained; /* slots the receiver has copied out */
    struct {
        _Alignas(64) _Atomic uint64_t tag; /* (gen, j + 1) once the j-th fill is in */
        uint64_t chunk;                    /* which chunk it holds */
    } slot[GK__PIPE_SLOTS];
};

/* The slots start on the page after the control block: the segment
 * reserves exactly the control page and the slots (pipe_region). */
#define PIPE_DATA_AT ((size_t)4096)
_Static_assert(sizeof(struct pipe_ctl) <= PIPE_DATA_AT, "pipeline control block");
#define PIPE_REGION_SIZE ((size_t)(4096 + 3 * 256 * 1024))
_Static_assert(PIPE_DATA_AT + GK__PIPE_SLOTS * GK__PIPE_CHUNK_MAX == PIPE_REGION_SIZE,
               "the pipeline's slots are its part of the segment");
/* The pipeline in every segment. Aligned to 2 MiB: the layout's rule
 * (mem/seg_region.h) then puts it at 2 MiB, after the inbox, where it has
 * always been. */
static GK__SEG_REGION(pipe_region, .name = "rendezvous pipeline", .size = PIPE_REGION_SIZE,
                      .align = (size_t)2 * 1024 * 1024);

/* The claim word: a 24-bit generation, then lo and hi in 20 bits each. */
#define PIPE_GEN_BITS 24u
#define PIPE_INDEX_BITS 20u
#define PIPE_INDEX_MASK ((UINT64_C(1) << PIPE_INDEX_BITS) - 1)
#define PIPE_MAX_CHUNKS PIPE_INDEX_MASK

static uint64_t pipe_pack(uint64_t gen, uint64_t lo, uint64_t hi)
{
    return gen << (2 * PIPE_INDEX_BITS) | lo << PIPE_INDEX_BITS | hi;
}
static uint64_t pipe_gen_of(uint64_t w) { return w >> (2 * PIPE_INDEX_BITS); }
static uint64_t pipe_lo(uint64_t w) { return (w >> PIPE_INDEX_BITS) & PIPE_INDEX_MASK; }
static uint64_t pipe_hi(uint64_t w) { return w & PIPE_INDEX_MASK; }
/* A slot's chunk with this bit: the sender wrote the chunk straight into
 * the receiver's buffer (process_vm_writev); the slot holds no data. */
#define PIPE_DIRECT (UINT64_C(1) << 63)
/* A slot's tag: generation above, fill number (from 1) below. */
#define PIPE_FILL_BITS 40u
static uint64_t pipe_tag(uint64_t gen, uint64_t fill) { return gen << PIPE_FILL_BITS | fill; }

/* How long a receiver waits for the sender's first chunk before it starts
 * reading chunks itself: a sender that is polling answers GO within a
 * microsecond or so; one that is busy or asleep (a futex wake-up takes
 * 10-50 us) is not waited for. */
#define PIPE_GRACE_NS 3000u

static struct pipe_ctl *pipe_ctl(char *seg_base)
{
    return (struct pipe_ctl *)(seg_base + pipe_region.offset);
}

static char *pipe_slot_data(char *seg_base, uint64_t slot)
{
    return seg_base + pipe_region.offset + PIPE_DATA_AT + slot * GK__PIPE_CHUNK_MAX;
}

/* Chunks of about a quarter of the message, whole pages, within bounds:
 * at 1 MiB, 256 KiB chunks ran at 23-24 GB/s where 128 KiB ones ran at 11
 * (GK_RNDV=pipe, the VM's fast state). */
static size_t pipe_chunk_size(size_t nbytes)
{
    size_t chunk = (nbytes / 4 + 4095) & ~(size_t)4095;
    if (chunk < GK__PIPE_CHUNK_MIN)
        chunk = GK__PIPE_CHUNK_MIN;
    if (chunk > GK__PIPE_CHUNK_MAX)
        chunk = GK__PIPE_CHUNK_MAX;
    return chunk;
}

static size_t pipe_chunk_len(uint64_t c, size_t chunk, size_t nbytes)
{
    size_t at = (size_t)c * chunk;
    return nbytes - at < chunk ? nbytes - at : chunk;
}

/* The other side is copying a chunk (microseconds): spin, then yield. */
static void pipe_backoff(unsigned *idle)
{
    if ((*idle)++ < 256)
        gk__cpu_relax();
    else
        sched_yield();
}

/* Held by the receive that uses this PE's pipeline (there is one). */
static atomic_flag pipe_in_use = ATOMIC_FLAG_INIT;

static int pipe_fits(size_t nbytes)
{
    return nbytes > 0 && (nbytes - 1) / GK__PIPE_CHUNK_MAX < PIPE_MAX_CHUNKS;
}

/* A status of the path layer's cross-memory attach as the errno this
 * file's callers report: 0, EPERM (the kernel refused), EIO. */
static int cma_errno(int status)
{
    return status == GK_OK ? 0 : status == GK_ERR_UNSUPPORTED ? EPERM : EIO;
}

int gk__cma_read(int pe, pid_t pid, void *dst, uint64_t addr, size_t n)
{
    if (!gk__path_reads_private(pe))
        return EPERM;
    return cma_errno(gk__path_read_private(pe, dst, (uint64_t)pid, addr, n));
}

static int cma_write(int pe, pid_t pid, uint64_t addr, const void *src, size_t n)
{
    if (!gk__path_reads_private(pe))
        return EPERM;
    return cma_errno(gk__path_write_private(pe, (uint64_t)pid, addr, src, n));
}

/*
 * Which way is faster here. The pipeline moves every byte through the
 * sender's cache into ours; kernel copies (direct mode, both sides at
 * once) pin pages but read them where they are. Which wins depends on the
 * machine and its state (on this VM the pipeline is about as fast most of
 * the time, and 5-10x slower while cross-core transfers are slow). For
 * each size class (a power of two) the receiver keeps the throughput it
 * saw each way (moving averages, bytes per ns, 0 until seen): the first
 * message of a class goes by the pipeline, the second in direct mode, and
 * from then on the faster is used and the other tried now and then to
 * notice a change, at a rate that costs about 3% of the time (every 33 x
 * slower/faster messages, 8 to 1024). A fixed every-8th probe of a way
 * five times slower had cost a third of the bandwidth. Touched only under
 * pipe_in_use.
 */
#define PIPE_RATE_CLASSES 64
#define PIPE_PROBE_COST 0.03
#define PIPE_PROBE_MIN 8u
#define PIPE_PROBE_MAX 1024u
static struct {
    double pipe, direct_mode;
    unsigned count;       /* messages of the class (for the report) */
    unsigned since_probe; /* messages since the other way was last tried */
} rates[PIPE_RATE_CLASSES];

static unsigned rate_class(size_t nbytes)
{
    return (unsigned)(63 - __builtin_clzll((unsigned long long)nbytes | 1));
}

static void rate_note(double *rate, size_t bytes, uint64_t ns)
{
    double seen = (double)bytes / (double)(ns > 0 ? ns : 1);
    *rate = *rate == 0 ? seen : 0.75 * *rate + 0.25 * seen;
}

/* How many messages go the faster way between two tries of the other. */
static unsigned rate_probe_every(double pipe, double cma)
{
    double slower = pipe > cma ? pipe / cma : cma / pipe;
    double every = slower / PIPE_PROBE_COST;
    return every >= PIPE_PROBE_MAX ? PIPE_PROBE_MAX
           : every <= PIPE_PROBE_MIN ? PIPE_PROBE_MIN
                                      : (unsigned)every;
}

static int rate_prefer_direct(size_t nbytes)
{
    unsigned c = rate_class(nbytes);
    rates[c].count++;
    if (rates[c].pipe == 0 || rates[c].direct_mode == 0)
        return rates[c].pipe != 0; /* learn both first */
    int prefer_direct = rates[c].direct_mode > 1.1 * rates[c].pipe;
    int probe = ++rates[c].since_probe >= rate_probe_every(rates[c].pipe, rates[c].direct_mode);
    if (probe)
        rates[c].since_probe = 0;
    return prefer_direct != probe;
}

/* How the messages went, for GK_LOG=debug's summary at exit. */
enum { WAY_PIPE, WAY_MIXED, WAY_RECEIVER, WAY_DIRECT, N_WAYS };
static struct {
    uint64_t messages, bytes, ns;
} ways[N_WAYS];

/* Chunks this PE, as a sender, wrote into receive buffers itself. */
static _Atomic uint64_t chunks_written;

static void way_note(int way, size_t bytes, uint64_t ns)
{
    ways[way].messages++;
    ways[way].bytes += bytes;
    ways[way].ns += ns;
}

__attribute__((destructor)) static void pipe_report(void)
{
    static const char *const names[N_WAYS] = {
        "the pipeline", "the pipeline and the receiver's own reads",
        "the receiver's own reads (the sender did not answer)",
        "cross-memory attach from both sides"};
    for (int w = 0; w < N_WAYS; w++)
        if (ways[w].messages > 0)
            gk__debug("two-sided rendezvous by %s: %llu messages, %.1f MB, %.2f GB/s", names[w],
                      (unsigned long long)ways[w].messages, (double)ways[w].bytes / 1e6,
                      (double)ways[w].bytes / (double)(ways[w].ns > 0 ? ways[w].ns : 1));
    uint64_t written = atomic_load_explicit(&chunks_written, memory_order_relaxed);
    if (written > 0)
        gk__debug("two-sided rendezvous: as the sender, wrote %llu chunks straight into "
                  "receive buffers",
                  (unsigned long long)written);
    for (unsigned c = 0; c < PIPE_RATE_CLASSES; c++)
        if (rates[c].count > 0)
            gk__debug("two-sided rendezvous of %llu KiB and more: the pipeline %.1f GB/s, "
                      "cross-memory attach from both sides %.1f GB/s (latest averages)",
                      (1ull << c) >> 10, rates[c].pipe, rates[c].direct_mode);
}

/* The chunks a receiver reads itself in one message, and how that went. */
struct pipe_own {
    uint64_t chunks;
    int err; /* the first failed read's errno; then chunks are only given up */
};

/*
 * Claims the highest unclaimed chunk and reads it from the sender, or,
 * after a failed read, only claims it (the missing range grows down, as
 * claims do). Returns 0 when the sender claimed meanwhile (try again).
 */
static int pipe_read_own(const struct gk__pipe_msg *m, struct pipe_ctl *ctl, uint64_t w,
                         size_t chunk, struct pipe_own *own, size_t *missing_lo,
                         size_t *missing_hi)
{
    uint64_t lo = pipe_lo(w), hi = pipe_hi(w);
    if (!atomic_compare_exchange_strong_explicit(&ctl->claims, &w,
                                                 pipe_pack(pipe_gen_of(w), lo, hi - 1),
                                                 memory_order_relaxed, memory_order_relaxed))
        return 0;
    size_t at = (size_t)(hi - 1) * chunk, len = pipe_chunk_len(hi - 1, chunk, m->nbytes);
    if (own->err == 0) {
        own->err = gk__cma_read(m->source, m->sender_pid, (char *)m->dst + at,
                                 m->sender_addr + at, len);
        if (own->err != 0)
            *missing_hi = at + len;
    }
    if (own->err != 0)
        *missing_lo = at;
    own->chunks++;
    return 1;
}

/*
 * One message through the pipeline. `direct`: both sides copy by
 * cross-memory attach, the sender writing its chunks straight into our
 * buffer while we read ours, from the other end, at once (no grace
 * period: there is no second copy to save us).
 */
static int pipe_run(const struct gk__pipe_msg *m,
                    int (*send_go)(int source, const uint64_t *args), int direct,
                    size_t *missing_lo, size_t *missing_hi)
{
    static uint64_t last_gen;
    char *seg_base = gk__rt.my_seg.base;
    struct pipe_ctl *ctl = pipe_ctl(seg_base);
    size_t chunk = pipe_chunk_size(m->nbytes);
    uint64_t k = (m->nbytes + chunk - 1) / chunk;
    uint64_t gen = last_gen = (last_gen + 1) & ((UINT64_C(1) << PIPE_GEN_BITS) - 1);
    if (gen == 0)
        gen = last_gen = 1;

    atomic_store_explicit(&ctl->drained, 0, memory_order_relaxed);
    atomic_store_explicit(&ctl->claims, pipe_pack(gen, 0, k), memory_order_release);
    uint64_t go[1 + GK__PIPE_GO_ARGS] = {m->sender_request,
                                         gen,
                                         m->nbytes,
                                         chunk,
                                         direct ? (uint64_t)(uintptr_t)m->dst : 0,
                                         direct ? (uint64_t)getpid() : 0};
    int sender_asked = send_go(m->source, go) == 0;
    uint64_t start = gk__now_ns(), grace_end = start + PIPE_GRACE_NS;

    struct pipe_own own = {0, 0};
    uint64_t drained = 0;
    unsigned idle = 0;
    while (own.chunks + drained < k) {
        unsigned s = (unsigned)(drained % GK__PIPE_SLOTS);
        if (atomic_load_explicit(&ctl->slot[s].tag, memory_order_acquire) ==
            pipe_tag(gen, drained + 1)) {
            uint64_t raw = ctl->slot[s].chunk, c = raw & ~PIPE_DIRECT;
            int in_place = (raw & PIPE_DIRECT) != 0; /* the sender wrote it into m->dst */
            if (c >= k || (in_place && !direct))
                gk__error("two-sided pipeline: PE %d filled a slot with chunk %llu of %llu%s; "
                          "ignored",
                          m->source, (unsigned long long)c, (unsigned long long)k,
                          in_place ? ", marked as written in place in a message not in "
                                     "direct mode"
                                   : "");
            else if (!in_place)
                memcpy((char *)m->dst + c * chunk, pipe_slot_data(seg_base, s),
                       pipe_chunk_len(c, chunk, m->nbytes));
            atomic_store_explicit(&ctl->drained, ++drained, memory_order_release);
            idle = 0;
            continue;
        }
        /* Read a chunk ourselves while the sender has not started (after
         * the grace period), or, after a failed read, give up the rest. */
        uint64_t w = atomic_load_explicit(&ctl->claims, memory_order_relaxed);
        int take = pipe_lo(w) < pipe_hi(w) &&
                   (own.err != 0 || direct ||
                    (pipe_lo(w) == 0 && (!sender_asked || gk__now_ns() >= grace_end)));
        if (!take || !pipe_read_own(m, ctl, w, chunk, &own, missing_lo, missing_hi))
            pipe_backoff(&idle);
    }
    /* A direct message says how fast that way is, however the work was
     * shared; a pipelined one the sender took no part in says nothing of
     * the pipeline. */
    uint64_t ns = gk__now_ns() - start;
    if (direct) {
        if (own.err == 0)
            rate_note(&rates[rate_class(m->nbytes)].direct_mode, m->nbytes, ns);
        way_note(WAY_DIRECT, m->nbytes, ns);
        return own.err;
    }
    if (own.err == 0 && own.chunks == 0)
        rate_note(&rates[rate_class(m->nbytes)].pipe, m->nbytes, ns);
    way_note(own.chunks == 0 ? WAY_PIPE : own.chunks == k ? WAY_RECEIVER : WAY_MIXED,
             m->nbytes, ns);
    return own.err;
}

int gk__pipe_receive(const struct gk__pipe_msg *m,
                     int (*send_go)(int source, const uint64_t *args),
                     size_t *missing_lo, size_t *missing_hi)
{
    if (!pipe_fits(m->nbytes) ||
        atomic_flag_test_and_set_explicit(&pipe_in_use, memory_order_acquire))
        return GK__PIPE_NOT_TAKEN;
    int direct = gk__rt.config.rndv == GK__RNDV_BOTH ||
                 (gk__rt.config.rndv == GK__RNDV_AUTO && rate_prefer_direct(m->nbytes));
    int err = pipe_run(m, send_go, direct, missing_lo, missing_hi);
    atomic_flag_clear_explicit(&pipe_in_use, memory_order_release);
    return err;
}

int gk__pipe_serve(int receiver, const void *src, size_t src_bytes, const uint64_t *go)
{
    uint64_t gen = go[0];
    size_t nbytes = (size_t)go[1], chunk = (size_t)go[2];
    uint64_t direct_to = go[3];
    pid_t direct_pid = (pid_t)go[4];
    /* After a failed write (cross-memory attach not allowed here) this
     * process copies through the slots only. */
    static _Atomic int direct_refused;
    if (nbytes > src_bytes || chunk < GK__PIPE_CHUNK_MIN || chunk > GK__PIPE_CHUNK_MAX ||
        !pipe_fits(nbytes)) {
        gk__error("two-sided pipeline: PE %d asked for %zu bytes in chunks of %zu of a send "
                  "of %zu bytes; ignored",
                  receiver, nbytes, chunk, src_bytes);
        return -1;
    }
    char *seg_base = gk__path_addr(receiver, 0);
    if (seg_base == NULL)
        return -1; /* not on this node: msg.c never asks then */
    struct pipe_ctl *ctl = pipe_ctl(seg_base);
    for (uint64_t fill = 0;; fill++) {
        uint64_t w = atomic_load_explicit(&ctl->claims, memory_order_acquire);
        do {
            if (pipe_gen_of(w) != gen || pipe_lo(w) >= pipe_hi(w))
                return 0; /* all claimed, or a message that is over */
        } while (!atomic_compare_exchange_weak_explicit(
            &ctl->claims, &w, pipe_pack(gen, pipe_lo(w) + 1, pipe_hi(w)),
            memory_order_acquire, memory_order_acquire));
        uint64_t c = pipe_lo(w);
        unsigned s = (unsigned)(fill % GK__PIPE_SLOTS), idle = 0;
        while (fill - atomic_load_explicit(&ctl->drained, memory_order_acquire) >=
               GK__PIPE_SLOTS)
            pipe_backoff(&idle);
        const char *from = (const char *)src + c * chunk;
        size_t len = pipe_chunk_len(c, chunk, nbytes);
        int direct = direct_to != 0 && !atomic_load_explicit(&direct_refused, memory_order_relaxed);
        if (direct && cma_write(receiver, direct_pid, direct_to + c * chunk, from, len) != 0) {
            atomic_store_explicit(&direct_refused, 1, memory_order_relaxed);
            direct = 0;
        }
        if (direct) {
            ctl->slot[s].chunk = c | PIPE_DIRECT;
            atomic_fetch_add_explicit(&chunks_written, 1, memory_order_relaxed);
        } else {
            memcpy(pipe_slot_data(seg_base, s), from, len);
            ctl->slot[s].chunk = c;
        }
        atomic_store_explicit(&ctl->slot[s].tag, pipe_tag(gen, fill + 1), memory_order_release);
    }
}

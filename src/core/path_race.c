/*
 * path_race.c: check mode's race detector (GK_CHECK=1, docs/CHECK.md):
 * puts and gets of the symmetric memory that no synchronisation orders,
 * found with vector clocks.
 *
 * Clocks. Every PE keeps a vector clock, one counter per PE (vc). Its own
 * counter is the number of its interval: it moves on after every
 * operation that may synchronise (a release). A put or get is logged with
 * the accessor's own counter then, its epoch; an earlier access E by
 * another PE happens before a new access A when A's accessor had seen E's
 * epoch: E.epoch <= A.vc[E.pe]. Two accesses of overlapping bytes, one of
 * them a write, neither before the other, are a race.
 *
 * How clocks travel: through the words that carry them. A write to the
 * program's memory of PE o (a put, value store, atomic or signal) joins
 * the writer's clock into the clocks of the words it writes, at o, before
 * it lands; a read that may be a poll of a flag (a value load or get of
 * one word, an atomic that returns what it saw) joins the clocks of the
 * words it read. Bulk gets carry nothing: a get of other bytes after a
 * racing put must not look ordered after it. Word clocks are kept in
 * RACE_WORD_CLOCKS buckets, a word's chosen by a hash of its address: two
 * words of one bucket share their clock, which may hide a race but never
 * invents one. Everything else that synchronises does it PE-wide: a write
 * to the runtime's own words (a window lock's queue, a message's inbox)
 * joins o's sync clock S, and a synchronisation that waited on o (a lock
 * granted, a semaphore waited, a wait on this PE's own word returned, an
 * active message run) joins S and every word clock of o. A read of the
 * runtime's own words joins nothing: the runtime's collectives carry
 * their own clocks, below, and their polls must not pick up what the
 * program wrote meanwhile. A collective joins its members' clocks as they were
 * when each entered it: each member writes its clock to a slot of its own
 * region at the start (one slot per team and call parity: a member cannot
 * start the call after next before every member finished this one, so a
 * slot is not rewritten while it is read), and reads the others' slots
 * once the call is over. Joining more than was seen is always safe; the
 * rules above err that way only.
 *
 * Where the log is. The accesses to a PE's memory are logged at that PE,
 * in a region of its segment that only check mode touches: its spin lock,
 * S, the word clocks, the collective slots, then the log. A peer of this node works on the
 * region in place under its lock; a peer on another host sends the same
 * work as a remote operation (GK__NET_ROP_CHECK) that the owner runs on
 * its own region, and the owner reports what it finds. At a collective of
 * every PE, the owner drops the entries every PE's clock has passed; when
 * the log is full, the oldest half goes (races with them are missed).
 */
#include <execinfo.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/check.h"
#include "base/log.h"
#include "core/path.h"
#include "core/progress.h"
#include "mem/seg_region.h"

int gk__race_on;

#define RACE_MAGIC 0x52414345u /* "RACE" */
#define RACE_LOG_MAX 4096u
#define RACE_REGION_SIZE ((size_t)4 * 1024 * 1024)
#define RACE_SITE_LEN 96
#define RACE_CALL_LEN 32
#define RACE_WORD_CLOCKS_LOG2 7
#define RACE_WORD_CLOCKS (1u << RACE_WORD_CLOCKS_LOG2)

enum race_kind { RACE_READ, RACE_WRITE };

/* The region's header: a cache line, the lock first. */
struct race_hdr {
    _Alignas(64) _Atomic uint32_t lock;
    uint32_t magic;
    uint32_t n_log;
    uint32_t pad;
    uint64_t dropped;
    uint64_t pad2[5];
};
_Static_assert(sizeof(struct race_hdr) == 64, "the header is a line");

/* An access, as logged at the owner of the bytes. */
struct race_entry {
    uint64_t epoch;
    uint64_t lo, hi; /* segment offsets, [lo, hi) */
    int32_t pe;
    uint32_t kind;
    char call[RACE_CALL_LEN];
    char site[RACE_SITE_LEN];
};
_Static_assert(sizeof(struct race_entry) % 8 == 0, "entries stay aligned");

/* The remote operation's kinds (args[0]). */
enum race_rop { RACE_ROP_ACCESS, RACE_ROP_RELEASE, RACE_ROP_ACQUIRE, RACE_ROP_SLOT };

static int race_n, race_me;
static uint64_t *race_vc;       /* this PE's clock; under race_lock */
static uint64_t race_calls[GK__PATH_RACE_KEYS]; /* collectives entered, by key */
static char *race_pending;      /* network gets whose acquire waits for quiet */
static int race_n_pending;
static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;

/* Sites symbolized, and pairs reported (a loop reports once). */
#define RACE_SITES 64
static struct {
    void *addr;
    char name[RACE_SITE_LEN];
} race_sites[RACE_SITES];
#define RACE_PAIRS 64
static uint64_t race_pairs[RACE_PAIRS];
static unsigned race_n_pairs;

static size_t race_words_at(int n)
{
    return sizeof(struct race_hdr) + (size_t)n * sizeof(uint64_t);
}

static size_t race_slots_at(int n)
{
    return race_words_at(n) + (size_t)RACE_WORD_CLOCKS * (size_t)n * sizeof(uint64_t);
}

static size_t race_log_at(int n)
{
    return race_slots_at(n) + (size_t)GK__PATH_RACE_KEYS * 2 * (size_t)n * sizeof(uint64_t);
}

static size_t race_bytes(int n)
{
    return race_log_at(n) + RACE_LOG_MAX * sizeof(struct race_entry);
}

static size_t race_region_used(int n_pes)
{
    if (!gk__check_on || race_bytes(n_pes) > RACE_REGION_SIZE)
        return 0;
    return race_bytes(n_pes);
}

static GK__SEG_REGION(race_region, .name = "race detector", .size = RACE_REGION_SIZE,
                      .align = 4096, .used = race_region_used);

/* ---- A region, mine or a mapped peer's ---- */

static struct race_hdr *race_hdr_of(char *region)
{
    return (struct race_hdr *)(void *)region;
}

static uint64_t *race_sync_of(char *region)
{
    return (uint64_t *)(void *)(region + sizeof(struct race_hdr));
}

static uint64_t *race_word_clock_of(char *region, unsigned bucket)
{
    return (uint64_t *)(void *)(region + race_words_at(race_n)) + (size_t)bucket * (size_t)race_n;
}

/* The bucket of the word at segment offset `offset` (Fibonacci hashing:
 * neighbouring words and words a power of two apart spread out). */
static unsigned race_bucket(uint64_t offset)
{
    return (unsigned)(((offset >> 3) * 0x9e3779b97f4a7c15ull) >> (64 - RACE_WORD_CLOCKS_LOG2));
}

static uint64_t *race_slot_of(char *region, int key, unsigned parity)
{
    return (uint64_t *)(void *)(region + race_slots_at(race_n)) +
           ((size_t)key * 2 + parity) * (size_t)race_n;
}

static struct race_entry *race_log_of(char *region)
{
    return (struct race_entry *)(void *)(region + race_log_at(race_n));
}

static void region_lock(char *region)
{
    struct race_hdr *h = race_hdr_of(region);
    /* Held for a scan of the log: on a node with more PEs than CPUs the
     * holder may be waiting for a CPU, so a waiter soon gives its own. */
    while (atomic_exchange_explicit(&h->lock, 1, memory_order_acquire) != 0)
        for (unsigned spins = 0; atomic_load_explicit(&h->lock, memory_order_relaxed) != 0;)
            if (++spins < 64)
                gk__cpu_relax();
            else
                sched_yield();
}

static void region_unlock(char *region)
{
    atomic_store_explicit(&race_hdr_of(region)->lock, 0, memory_order_release);
}

/* pe's region here, where its segment is mapped; NULL where it is not. */
static char *race_region_at(int pe)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    if (peer->caps & GK__NET_CAP_LOAD_STORE)
        return gk__shm_addr(peer, race_region.offset);
    return NULL;
}

static void race_join(uint64_t *into, const uint64_t *from)
{
    for (int i = 0; i < race_n; i++)
        if (from[i] > into[i])
            into[i] = from[i];
}

/* Joins vc into the clocks of the words of [lo, hi); caller holds the
 * region's lock. */
static void race_words_release(char *region, const uint64_t *vc, uint64_t lo, uint64_t hi)
{
    uint64_t words = hi > lo ? ((hi - 1) >> 3) - (lo >> 3) + 1 : 0;
    if (words >= RACE_WORD_CLOCKS) {
        for (unsigned b = 0; b < RACE_WORD_CLOCKS; b++)
            race_join(race_word_clock_of(region, b), vc);
        return;
    }
    for (uint64_t w = lo >> 3; w < (lo >> 3) + words; w++)
        race_join(race_word_clock_of(region, race_bucket(w << 3)), vc);
}

/* ---- Reports ---- */

static const char *race_where(uint64_t lo, uint64_t *sym_p)
{
    if (lo >= gk__rt.data_seg_offset && gk__rt.data_size > 0 &&
        lo < gk__rt.data_seg_offset + gk__rt.data_size) {
        *sym_p = lo - gk__rt.data_seg_offset;
        return "symmetric data";
    }
    *sym_p = lo - GK__SEG_HEAP_OFFSET;
    return "symmetric heap";
}

static uint64_t race_hash(const char *s, uint64_t h)
{
    while (*s != '\0')
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
    return h;
}

/* Whether the pair of call sites was reported already; notes it if not. */
static int race_pair_seen(const struct race_entry *a, const struct race_entry *b)
{
    uint64_t ha = race_hash(a->site, 0xcbf29ce484222325ull);
    uint64_t hb = race_hash(b->site, 0xcbf29ce484222325ull);
    uint64_t key = ha < hb ? ha * 31 + hb : hb * 31 + ha; /* either order */
    int seen = 0;
    pthread_mutex_lock(&race_lock);
    for (unsigned i = 0; i < race_n_pairs && !seen; i++)
        seen = race_pairs[i] == key;
    if (!seen && race_n_pairs < RACE_PAIRS)
        race_pairs[race_n_pairs++] = key;
    pthread_mutex_unlock(&race_lock);
    return seen;
}

/* One block per conflict: a, the new access, against e, the logged one;
 * a's accessor had seen e's PE up to interval `seen`. */
static void race_report(int owner, const struct race_entry *a, const struct race_entry *e,
                        uint64_t seen)
{
    if (race_pair_seen(a, e))
        return;
    int writes = a->kind == RACE_WRITE && e->kind == RACE_WRITE;
    uint64_t lo = a->lo > e->lo ? a->lo : e->lo, hi = a->hi < e->hi ? a->hi : e->hi;
    uint64_t sym = 0;
    const char *where = race_where(lo, &sym);
    const struct race_entry *first = e, *second = a;
    gk__warn("check: race on PE %d's memory: %s\n"
             "  PE %d: %s of %llu bytes at %s, in its interval %llu\n"
             "  PE %d: %s of %llu bytes at %s, in its interval %llu (it had seen PE %d's "
             "intervals up to %llu only)\n"
             "  the bytes: %llu at %s offset 0x%llx on PE %d",
             owner,
             writes ? "two PEs wrote the same bytes in one interval"
                    : "a get read bytes another PE wrote in the same interval",
             first->pe, first->call, (unsigned long long)(first->hi - first->lo), first->site,
             (unsigned long long)first->epoch, second->pe, second->call,
             (unsigned long long)(second->hi - second->lo), second->site,
             (unsigned long long)second->epoch, first->pe, (unsigned long long)seen,
             (unsigned long long)(hi - lo), where, (unsigned long long)sym, owner);
}

/* ---- The owner's side: the same on a mapped region or on one's own ---- */

/* Keeps entry i of a log being compacted, as the kept-th. */
static void race_keep(struct race_entry *log, uint32_t *kept_p, uint32_t i)
{
    if (*kept_p != i)
        log[*kept_p] = log[i];
    (*kept_p)++;
}

/* Checks access a (its accessor's clock vc) against region's log, logs
 * it, and for a write joins vc into the region's S, all under the lock;
 * reports after. */
static void race_region_access(char *region, int owner, const struct race_entry *a,
                               const uint64_t *vc)
{
    enum { FOUND_MAX = 4 };
    struct race_entry found[FOUND_MAX];
    uint64_t seen[FOUND_MAX];
    int n_found = 0;
    struct race_hdr *h = race_hdr_of(region);
    struct race_entry *log = race_log_of(region);
    region_lock(region);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < h->n_log; i++) {
        const struct race_entry *e = &log[i];
        if (e->pe == a->pe) {
            /* The same PE's earlier access of bytes a covers, of a's kind or
             * a read under a's write, conflicts with nothing a will not:
             * a takes its place (a loop over the same words keeps one). */
            if (!(a->lo <= e->lo && e->hi <= a->hi &&
                  (a->kind == RACE_WRITE || e->kind == a->kind)))
                race_keep(log, &kept, i);
            continue;
        }
        race_keep(log, &kept, i);
        if (e->lo >= a->hi || a->lo >= e->hi || n_found == FOUND_MAX)
            continue;
        if (e->kind != RACE_WRITE && a->kind != RACE_WRITE)
            continue;
        if ((unsigned)e->pe < (unsigned)race_n && e->epoch > vc[e->pe]) {
            seen[n_found] = vc[e->pe];
            found[n_found++] = *e;
        }
    }
    h->n_log = kept;
    if (h->n_log == RACE_LOG_MAX) { /* full: the oldest half goes */
        memmove(log, log + RACE_LOG_MAX / 2, (RACE_LOG_MAX / 2) * sizeof(*log));
        h->n_log = RACE_LOG_MAX / 2;
        h->dropped += RACE_LOG_MAX / 2;
    }
    log[h->n_log++] = *a;
    if (a->kind == RACE_WRITE)
        race_words_release(region, vc, a->lo, a->hi);
    region_unlock(region);
    for (int i = 0; i < n_found; i++)
        race_report(owner, a, &found[i], seen[i]);
}

/* A release into the region: to the words of [lo, hi), or (lo == hi)
 * PE-wide, to S. */
static void race_region_release(char *region, const uint64_t *vc, uint64_t lo, uint64_t hi)
{
    region_lock(region);
    if (lo < hi)
        race_words_release(region, vc, lo, hi);
    else
        race_join(race_sync_of(region), vc);
    region_unlock(region);
}

/* An acquire from the region into `into`: the clocks of the words of
 * [lo, hi), or (lo == hi) PE-wide, S and every word clock. */
static void race_region_acquire(char *region, uint64_t *into, uint64_t lo, uint64_t hi)
{
    region_lock(region);
    if (lo < hi) {
        memcpy(into, race_word_clock_of(region, race_bucket(lo)),
               (size_t)race_n * sizeof(uint64_t));
        for (uint64_t w = (lo >> 3) + 1; w <= (hi - 1) >> 3; w++)
            race_join(into, race_word_clock_of(region, race_bucket(w << 3)));
    } else {
        memcpy(into, race_sync_of(region), (size_t)race_n * sizeof(uint64_t));
        for (unsigned b = 0; b < RACE_WORD_CLOCKS; b++)
            race_join(into, race_word_clock_of(region, b));
    }
    region_unlock(region);
}

/* Drops the entries every PE's clock has passed (`all`: a clock every PE
 * holds at least). */
static void race_region_prune(char *region, const uint64_t *all)
{
    struct race_hdr *h = race_hdr_of(region);
    struct race_entry *log = race_log_of(region);
    region_lock(region);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < h->n_log; i++)
        if ((unsigned)log[i].pe >= (unsigned)race_n || log[i].epoch > all[log[i].pe])
            race_keep(log, &kept, i);
    h->n_log = kept;
    region_unlock(region);
}

/* An access and its accessor's clock, which follows it 8-byte aligned. */
static int race_rop_access(char *mine, const void *payload)
{
    _Static_assert(sizeof(struct race_entry) % sizeof(uint64_t) == 0,
                   "the clock after an access must stay aligned");
    struct race_entry a;
    memcpy(&a, payload, sizeof(a));
    a.call[RACE_CALL_LEN - 1] = a.site[RACE_SITE_LEN - 1] = '\0';
    race_region_access(mine, race_me, &a, (const uint64_t *)((const char *)payload + sizeof(a)));
    return GK_OK;
}

/* The remote operation, at the owner. args: the kind; for a release or
 * an acquire, the words' [lo, hi) (equal: PE-wide); for a slot, the key
 * and parity. Payload: an access and its accessor's clock, or a clock. */
static int race_rop(const uint64_t *args, const void *payload, size_t nbytes,
                    struct gk__net_rop_answer *answer)
{
    if (!gk__race_on)
        return GK_OK; /* finalizing: nothing more is checked */
    char *mine = gk__rt_own(race_region.offset);
    size_t clock = (size_t)race_n * sizeof(uint64_t);
    switch (args[0]) {
    case RACE_ROP_ACCESS:
        if (nbytes != sizeof(struct race_entry) + clock)
            break;
        return race_rop_access(mine, payload);
    case RACE_ROP_RELEASE:
        if (nbytes != clock)
            break;
        race_region_release(mine, payload, args[1], args[2]);
        return GK_OK;
    case RACE_ROP_ACQUIRE:
        if (answer->max < clock || (args[2] > args[1] && args[2] - args[1] > 8))
            break;
        race_region_acquire(mine, answer->data, args[1], args[2]);
        answer->len = clock;
        return GK_OK;
    case RACE_ROP_SLOT:
        if (answer->max < clock || args[1] >= GK__PATH_RACE_KEYS || args[2] > 1)
            break;
        memcpy(answer->data, race_slot_of(mine, (int)args[1], (unsigned)args[2]), clock);
        answer->len = clock;
        return GK_OK;
    default:
        break;
    }
    gk__error("check: a race detector operation refused: kind %llu with %zu bytes",
              (unsigned long long)args[0], nbytes);
    return GK_ERR_UNSUPPORTED;
}

/* ---- This PE's side ---- */

/* The remote operation to pe, straight to its transport: the path layer's
 * own forms release and acquire, which is what this does. */
static int race_call(int pe, const uint64_t *args, const void *payload, size_t nbytes,
                     struct gk__net_rop_answer *answer)
{
    struct gk__net_peer *peer = &gk__rt.peers[pe];
    /* An active message's handler must not wait for a round trip: what it
     * does to other hosts goes unchecked and carries no clock. */
    if (gk__in_handler)
        return GK_ERR_UNSUPPORTED;
    return peer->transport->rop(peer, GK__NET_ROP_CHECK, args, payload, nbytes, answer);
}

/* A clock's room: `local` (RACE_LOCAL_PES counters on the caller's
 * stack) where the job is that small, else the heap; race_clock_free
 * gives it back. */
#define RACE_LOCAL_PES 64
static uint64_t *race_clock_new(uint64_t *local)
{
    if (race_n <= RACE_LOCAL_PES)
        return local;
    uint64_t *vc = malloc((size_t)race_n * sizeof(uint64_t));
    if (vc == NULL)
        gk__error("check: out of memory for a vector clock of %d PEs", race_n);
    return vc;
}

static void race_clock_free(uint64_t *vc, const uint64_t *local)
{
    if (vc != local)
        free(vc);
}

/* A copy of this PE's clock, and its own counter (the epoch) then. */
static uint64_t race_snapshot(uint64_t *vc)
{
    pthread_mutex_lock(&race_lock);
    memcpy(vc, race_vc, (size_t)race_n * sizeof(uint64_t));
    pthread_mutex_unlock(&race_lock);
    return vc[race_me];
}

static void race_tick(void)
{
    pthread_mutex_lock(&race_lock);
    race_vc[race_me]++;
    pthread_mutex_unlock(&race_lock);
}

static void race_join_mine(const uint64_t *from)
{
    pthread_mutex_lock(&race_lock);
    race_join(race_vc, from);
    pthread_mutex_unlock(&race_lock);
}

/* Whether bytes [lo, hi) of a segment are the program's symmetric memory
 * (the heap, its local area, the symmetric data): the runtime's own
 * regions below the heap are not checked. */
static int race_user_bytes(uint64_t lo, uint64_t hi)
{
    if (lo >= GK__SEG_HEAP_OFFSET && hi <= GK__SEG_HEAP_OFFSET + gk__rt.heap_span)
        return 1;
    return gk__rt.data_size > 0 && lo >= gk__rt.data_seg_offset &&
           hi <= gk__rt.data_seg_offset + gk__rt.data_size;
}

static void race_site(const char *op, struct race_entry *a)
{
    const char *call = op;
    void *site = gk__check_caller(&call);
    snprintf(a->call, sizeof(a->call), "%s", call != NULL ? call : "an access");
    unsigned slot = (unsigned)(((uintptr_t)site >> 2) % RACE_SITES);
    pthread_mutex_lock(&race_lock);
    if (site != NULL && race_sites[slot].addr == site) {
        memcpy(a->site, race_sites[slot].name, sizeof(a->site));
        pthread_mutex_unlock(&race_lock);
        return;
    }
    pthread_mutex_unlock(&race_lock);
    /* "prog(main+0x4c) [0x5581...]": the symbol where the program exports
     * it, the address for addr2line always. */
    char **names = site != NULL ? backtrace_symbols(&site, 1) : NULL;
    snprintf(a->site, sizeof(a->site), "%s", names != NULL ? names[0] : "an unknown call site");
    free(names);
    pthread_mutex_lock(&race_lock);
    race_sites[slot].addr = site;
    memcpy(race_sites[slot].name, a->site, sizeof(a->site));
    pthread_mutex_unlock(&race_lock);
}

/* An access by this PE to pe's bytes [offset, offset + n), checked and
 * logged at pe (a write also releases to pe there). */
static void race_access(const char *op, int pe, size_t offset, size_t n, enum race_kind kind)
{
    uint64_t vc_local[RACE_LOCAL_PES];
    uint64_t *vc = race_clock_new(vc_local);
    if (vc == NULL)
        return;
    struct race_entry a;
    memset(&a, 0, sizeof(a));
    a.epoch = race_snapshot(vc);
    a.lo = offset;
    a.hi = offset + n;
    a.pe = race_me;
    a.kind = kind;
    race_site(op, &a);
    char *region = race_region_at(pe);
    if (region != NULL) {
        race_region_access(region, pe, &a, vc);
    } else {
        size_t clock = (size_t)race_n * sizeof(uint64_t);
        char *payload = malloc(sizeof(a) + clock);
        if (payload != NULL) {
            memcpy(payload, &a, sizeof(a));
            memcpy(payload + sizeof(a), vc, clock);
            uint64_t args[GK__NET_ROP_ARGS] = {RACE_ROP_ACCESS, 0, 0, 0};
            struct gk__net_rop_answer answer = {0};
            (void)race_call(pe, args, payload, sizeof(a) + clock,
                               &answer);
            free(payload);
        }
    }
    race_clock_free(vc, vc_local);
}

/* A release to pe's words [lo, hi), or (lo == hi) PE-wide. */
static void race_release(int pe, uint64_t lo, uint64_t hi)
{
    uint64_t vc_local[RACE_LOCAL_PES];
    uint64_t *vc = race_clock_new(vc_local);
    if (vc == NULL)
        return;
    race_snapshot(vc);
    char *region = race_region_at(pe);
    if (region != NULL) {
        race_region_release(region, vc, lo, hi);
    } else {
        /* A round trip, not a posted message: the clock must be at the
         * owner before the write it goes with can be seen there. */
        uint64_t args[GK__NET_ROP_ARGS] = {RACE_ROP_RELEASE, lo, hi, 0};
        struct gk__net_rop_answer answer = {0};
        (void)race_call(pe, args, vc, (size_t)race_n * sizeof(uint64_t), &answer);
    }
    race_clock_free(vc, vc_local);
    race_tick();
}

/* An acquire from pe's words [lo, hi), or (lo == hi) PE-wide. */
static void race_acquire(int pe, uint64_t lo, uint64_t hi)
{
    uint64_t s_local[RACE_LOCAL_PES];
    uint64_t *s = race_clock_new(s_local);
    if (s == NULL)
        return;
    char *region = race_region_at(pe);
    if (region != NULL) {
        race_region_acquire(region, s, lo, hi);
    } else {
        uint64_t args[GK__NET_ROP_ARGS] = {RACE_ROP_ACQUIRE, lo, hi, 0};
        struct gk__net_rop_answer answer = {.data = s, .max = (size_t)race_n * sizeof(uint64_t)};
        if (race_call(pe, args, NULL, 0, &answer) != GK_OK || answer.len != answer.max) {
            race_clock_free(s, s_local);
            return;
        }
    }
    race_join_mine(s);
    race_clock_free(s, s_local);
}

void gk__path_race_release(int pe)
{
    race_release(pe, 0, 0);
}

void gk__path_race_acquire(int pe)
{
    race_acquire(pe, 0, 0);
}

void gk__path_race_release_at(int pe, size_t offset, size_t n)
{
    if (race_user_bytes(offset, offset + n) && n > 0)
        race_release(pe, offset, offset + n);
    else
        race_release(pe, 0, 0); /* the runtime's own word: PE-wide */
}

void gk__path_race_acquire_at(int pe, size_t offset, size_t n)
{
    /* A word of the program's that may be a flag; the runtime's own words
     * and bulk reads carry nothing (the top of this file). */
    if (n > 0 && n <= sizeof(uint64_t) && race_user_bytes(offset, offset + n))
        race_acquire(pe, offset, offset + n);
}

void gk__path_race_put(const char *op, int pe, size_t offset, size_t n)
{
    if (race_user_bytes(offset, offset + n))
        race_access(op, pe, offset, n, RACE_WRITE); /* the release with it */
    else
        gk__path_race_release(pe);
    race_tick();
}

void gk__path_race_get(const char *op, int pe, size_t offset, size_t n)
{
    if (race_user_bytes(offset, offset + n))
        race_access(op, pe, offset, n, RACE_READ);
}

void gk__path_race_acquire_own_word(const void *word, size_t width)
{
    uintptr_t base = (uintptr_t)gk__rt.my_seg.base, at = (uintptr_t)word;
    size_t offset = (size_t)(at - base);
    if (at >= base && width <= sizeof(uint64_t) && race_user_bytes(offset, offset + width) &&
        width > 0)
        race_acquire(race_me, offset, offset + width);
    else
        race_acquire(race_me, 0, 0); /* not a word of the segment's: PE-wide */
}

void gk__path_race_got_later(int pe, size_t offset, size_t n)
{
    if (n == 0 || n > sizeof(uint64_t) || !race_user_bytes(offset, offset + n))
        return; /* a bulk read or the runtime's own: it acquires nothing */
    pthread_mutex_lock(&race_lock);
    if (!race_pending[pe]) {
        race_pending[pe] = 1;
        race_n_pending++;
    }
    pthread_mutex_unlock(&race_lock);
}

void gk__path_race_quiet(void)
{
    for (int pe = 0; pe < race_n; pe++) {
        pthread_mutex_lock(&race_lock);
        int owed = race_pending[pe];
        if (owed) {
            race_pending[pe] = 0;
            race_n_pending--;
        }
        pthread_mutex_unlock(&race_lock);
        if (owed)
            gk__path_race_acquire(pe);
    }
}

int gk__path_race_pending(void)
{
    return race_n_pending != 0;
}

void gk__path_race_coll_enter(int key, uint64_t call)
{
    if (key < 0 || key >= GK__PATH_RACE_KEYS)
        return;
    pthread_mutex_lock(&race_lock);
    unsigned parity = (unsigned)((call != 0 ? call : ++race_calls[key]) & 1);
    memcpy(race_slot_of(gk__rt_own(race_region.offset), key, parity), race_vc,
           (size_t)race_n * sizeof(uint64_t));
    pthread_mutex_unlock(&race_lock);
}

void gk__path_race_coll_leave(int key, uint64_t call, const int *pes, int n)
{
    if (key < 0 || key >= GK__PATH_RACE_KEYS)
        return;
    uint64_t all_local[RACE_LOCAL_PES], theirs_local[RACE_LOCAL_PES];
    uint64_t *all = race_clock_new(all_local), *theirs = race_clock_new(theirs_local);
    if (all == NULL || theirs == NULL)
        goto out;
    pthread_mutex_lock(&race_lock);
    unsigned parity = (unsigned)((call != 0 ? call : race_calls[key]) & 1);
    memcpy(all, race_slot_of(gk__rt_own(race_region.offset), key, parity),
           (size_t)race_n * sizeof(uint64_t));
    pthread_mutex_unlock(&race_lock);
    if (pes == NULL)
        n = race_n;
    for (int i = 0; i < n; i++) {
        int pe = pes != NULL ? pes[i] : i;
        if (pe == race_me)
            continue;
        char *region = race_region_at(pe);
        if (region != NULL) {
            /* Written at the member's start of this call, before anything
             * that let this PE finish it: no lock needed. */
            memcpy(theirs, race_slot_of(region, key, parity), (size_t)race_n * sizeof(uint64_t));
        } else {
            uint64_t args[GK__NET_ROP_ARGS] = {RACE_ROP_SLOT, (uint64_t)key, parity, 0};
            struct gk__net_rop_answer answer = {.data = theirs,
                                                .max = (size_t)race_n * sizeof(uint64_t)};
            if (race_call(pe, args, NULL, 0, &answer) != GK_OK ||
                answer.len != answer.max)
                continue;
        }
        race_join(all, theirs);
    }
    race_join_mine(all);
    /* Every PE ends this call with at least `all`: what it covers is
     * before everything any PE does next. */
    if (n == race_n)
        race_region_prune(gk__rt_own(race_region.offset), all);
    race_tick();
out:
    if (all != NULL)
        race_clock_free(all, all_local);
    if (theirs != NULL)
        race_clock_free(theirs, theirs_local);
}

/* ---- Start and end ---- */

static int race_init(void)
{
    gk__race_on = 0;
    if (!gk__check_on)
        return GK_OK;
    race_n = gk__rt.boot.size;
    race_me = gk__rt.boot.rank;
    if (race_region_used(race_n) == 0) {
        gk__info("check: no race detection: %d PEs need more than the %zu bytes reserved",
                 race_n, RACE_REGION_SIZE);
        return GK_OK;
    }
    for (int pe = 0; pe < race_n; pe++) {
        uint64_t caps = gk__rt.peers[pe].caps;
        if (!(caps & GK__NET_CAP_LOAD_STORE) &&
            (!(caps & GK__NET_CAP_REMOTE_OPS) ||
             gk__rt.peers[pe].transport->rop_max <
                 sizeof(struct race_entry) + (size_t)race_n * sizeof(uint64_t))) {
            gk__info("check: no race detection: PE %d is reached by a transport without "
                     "remote operations", pe);
            return GK_OK;
        }
    }
    race_vc = calloc((size_t)race_n, sizeof(uint64_t));
    race_pending = calloc((size_t)race_n, 1);
    if (race_vc == NULL || race_pending == NULL) {
        gk__error("check: out of memory for the race detector's clock of %d PEs", race_n);
        free(race_vc);
        free(race_pending);
        race_vc = NULL;
        race_pending = NULL;
        return GK_ERR_NOMEM;
    }
    race_vc[race_me] = 1; /* epoch 0: never */
    memset(race_calls, 0, sizeof(race_calls));
    race_n_pending = 0;
    race_n_pairs = 0;
    struct race_hdr *h = race_hdr_of(gk__rt_own(race_region.offset));
    h->magic = RACE_MAGIC;
    gk__net_rop_set_aligned(GK__NET_ROP_CHECK, race_rop); /* it reads clocks */
    gk__race_on = 1;
    return GK_OK;
}

static void race_fini(void)
{
    gk__race_on = 0;
    free(race_vc);
    free(race_pending);
    race_vc = NULL;
    race_pending = NULL;
}

GK__RT_FEATURE(race_feature, .name = "race detector", .init = race_init, .fini = race_fini);

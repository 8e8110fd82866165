/*
 * coll_check.c: the slow half of the collective-call check (the protocol
 * is described in coll_check.h): comparing calls, reading the peers' words
 * after a wait has slept, and the reports.
 */
#include "core/coll_check.h"

#include <stddef.h>
#include <stdio.h>

#include "base/log.h"
#include "base/time.h"
#include "base/wait.h"
#include "core/path.h"

_Thread_local unsigned gk__coll_depth;
struct gk__coll_check_state gk__coll_state;

void gk__coll_check_reset(void)
{
    gk__coll_state = (struct gk__coll_check_state){0};
}

static const char *const coll_names[GK__COLL_KINDS] = {
    [GK__COLL_NONE] = "no collective",
#define GK__COLL_KIND_NAME(name, text) [GK__COLL_##name] = text,
    GK__COLL_KIND_TABLE(GK__COLL_KIND_NAME)
#undef GK__COLL_KIND_NAME
};

const char *gk__coll_name(unsigned kind)
{
    return kind < GK__COLL_KINDS ? coll_names[kind] : "an unknown collective";
}

/* The heap calls fit each other: their vote sorts out which call is which. */
static unsigned coll_class(unsigned kind)
{
    return kind >= GK__COLL_MALLOC && kind <= GK__COLL_FREE ? GK__COLL_MALLOC : kind;
}

/* A call number from its low `bits` bits (8 or 32): the one nearest ours. */
static uint64_t coll_full_seq(uint64_t low, unsigned bits)
{
    uint64_t mine = gk__coll_state.seq, mask = ((uint64_t)1 << bits) - 1;
    uint64_t ahead = (low - mine) & mask;
    return ahead <= mask / 2 ? mine + ahead : mine - (mask + 1 - ahead);
}

uint64_t gk__coll_word_seq(uint64_t word)
{
    return coll_full_seq(word >> 32, 32);
}

/* One call in the call word's form: number and kind, no history. */
static uint64_t coll_call(uint64_t seq, unsigned kind)
{
    return seq << 32 | kind;
}

static unsigned long long coll_seq_of(uint64_t call)
{
    return (unsigned long long)gk__coll_word_seq(call);
}

/*
 * Remembers the first mismatch (PE finder in call finder_call, PE other in
 * other_call); the finder also publishes it, for PEs that wait behind it
 * and see no mismatching peer themselves.
 */
static void coll_record(int finder, uint64_t finder_call, int other, uint64_t other_call)
{
    gk__coll_state.broken = 1;
    gk__coll_state.clash_pe[0] = finder;
    gk__coll_state.clash_call[0] = finder_call & GK__COLL_CALL_MASK;
    gk__coll_state.clash_pe[1] = other;
    gk__coll_state.clash_call[1] = other_call & GK__COLL_CALL_MASK;
    if (finder != gk__rt.my_pe)
        return;
    struct gk__seg_header *header = gk__rt.my_seg.header;
    atomic_store_explicit(&header->coll_clash, other_call & GK__COLL_CALL_MASK,
                          memory_order_relaxed);
    atomic_store_explicit(&header->coll_clash_pe, (uint64_t)other + 1,
                          memory_order_release);
}

/*
 * This PE's call and PE pe's `theirs` (number and kind) do not fit. `now`
 * is pe's current call number when `theirs` is one it made before (from
 * its history), else 0.
 */
static int coll_mismatch(int pe, uint64_t theirs, uint64_t now)
{
    uint64_t mine = gk__coll_state.word;
    unsigned kind = (unsigned)(theirs & 0xff);
    if (now != 0)
        gk__error("collective mismatch: this PE is in %s (collective #%llu) while PE %d "
                  "called %s as its collective #%llu (it is in collective #%llu now)",
                  gk__coll_name(mine & 0xff), (unsigned long long)gk__coll_state.seq, pe,
                  gk__coll_name(kind), coll_seq_of(theirs), (unsigned long long)now);
    else
        gk__error("collective mismatch: this PE is in %s (collective #%llu) while PE %d "
                  "is in %s (collective #%llu)",
                  gk__coll_name(mine & 0xff), (unsigned long long)gk__coll_state.seq, pe,
                  gk__coll_name(kind), coll_seq_of(theirs));
    coll_record(gk__rt.my_pe, mine, pe, theirs);
    return GK_ERR_COLL_MISMATCH;
}

int gk__coll_record_found(int pe, uint64_t theirs)
{
    coll_record(gk__rt.my_pe, gk__coll_state.word, pe, theirs);
    return GK_ERR_COLL_MISMATCH;
}

/* PE pe sent call (seq, kind) into this PE's current collective. */
static int coll_check_call(int pe, uint64_t seq, unsigned kind)
{
    if (seq == gk__coll_state.seq && coll_class(kind) == coll_class(gk__coll_state.word & 0xff))
        return GK_OK;
    return coll_mismatch(pe, coll_call(seq, kind), 0);
}

int gk__coll_check_tag16(int pe, uint64_t tag16)
{
    return coll_check_call(pe, coll_full_seq(tag16 >> 8, 8), (unsigned)(tag16 & 0xff));
}

int gk__coll_check_word(int pe, uint64_t word)
{
    return coll_check_call(pe, gk__coll_word_seq(word), (unsigned)(word & 0xff));
}

int gk__coll_report_broken(const char *call_name, enum gk__coll_kind kind)
{
    if (gk__coll_depth > 0)
        return GK_ERR_COLL_MISMATCH; /* the outermost call has said it */
    uint64_t *call = gk__coll_state.clash_call;
    int *pe = gk__coll_state.clash_pe;
    char other[32] = "another PE";
    if (pe[1] >= 0)
        snprintf(other, sizeof(other), "PE %d", pe[1]);
    gk__error("%s: not run: the PEs' collective calls went out of step earlier (PE %d in "
              "%s, collective #%llu; %s in %s, collective #%llu), so every collective "
              "fails%s",
              call_name, pe[0], gk__coll_name(call[0] & 0xff), coll_seq_of(call[0]), other,
              gk__coll_name(call[1] & 0xff), coll_seq_of(call[1]),
              kind == GK__COLL_FINALIZE ? "; this PE's resources are released without "
                                          "the final barrier"
                                        : "");
    return GK_ERR_COLL_MISMATCH;
}

int gk__coll_enter_broken(enum gk__coll_kind kind)
{
    return gk__coll_report_broken(gk__coll_name(kind), kind);
}

void gk__coll_note_mismatch(unsigned other_kind)
{
    if (!gk__coll_state.broken)
        coll_record(gk__rt.my_pe, gk__coll_state.word, -1,
                    (gk__coll_state.word & ~(uint64_t)0xff) | (other_kind & 0xff));
}

/*
 * A peer's published words (mem/segment.h). A mapped peer's are loads; a
 * peer on another host is read through its transport: atomic fetches of
 * the 64-bit words, a get of a history byte. Reading remote memory here is
 * sound: this runs on the slow path of a wait inside a collective, after
 * a sleep, never in a handler (waits refuse there), so a round trip per
 * peer is small beside the sleep, and the transport may be driven; and it
 * is needed, as two calls whose steps never meet (a gk_malloc's all-reduce
 * against a gk_barrier) carry nothing in band, and without the look each
 * side would wait for ever. A failed read is the transport's error to
 * return: the job is ending.
 */
int gk__coll_peer_word(int pe, size_t offset, uint64_t *word_p)
{
    return gk__path_atomic64(pe, GK__AMO_FETCH, offset, 0, 0, word_p);
}

static int coll_peer_now(int pe, uint64_t *word_p)
{
    return gk__coll_peer_word(pe, GK__COLL_HEADER_OFFSET(coll_now), word_p);
}

static int coll_peer_kind(int pe, uint64_t seq, unsigned *kind_p)
{
    uint64_t kind = 0;
    int status =
        gk__path_load(pe, GK__COLL_HEADER_OFFSET(coll_kinds) + seq % GK__SEG_COLL_HISTORY, 1, &kind);
    if (status == GK_OK)
        *kind_p = (unsigned)kind;
    return status;
}

/* Whether the peer has published a mismatch it found (1, with *pe_p and
 * *call_p), or 0; or a negative status. */
static int coll_peer_clash(int pe, int *pe_p, uint64_t *call_p)
{
    uint64_t other = 0;
    int status = gk__coll_peer_word(pe, GK__COLL_HEADER_OFFSET(coll_clash_pe), &other);
    if (status != GK_OK || other == 0)
        return status;
    /* coll_clash_pe is written last: the call beside it is there. */
    status = gk__coll_peer_word(pe, GK__COLL_HEADER_OFFSET(coll_clash), call_p);
    if (status != GK_OK)
        return status;
    *pe_p = (int)(other - 1);
    return 1;
}

/*
 * A peer at our call number in a call that does not fit ours, or one ahead
 * of us (by less than its history holds) that made such a call at our
 * number: see the header.
 */
static int coll_check_peer(int pe, uint64_t word)
{
    uint64_t seq = gk__coll_word_seq(word), mine = gk__coll_state.seq;
    if (word == 0 || seq < mine || seq - mine >= GK__SEG_COLL_HISTORY)
        return GK_OK;
    unsigned kind = (unsigned)(word & 0xff);
    if (seq != mine) {
        uint64_t now = 0;
        int status = coll_peer_kind(pe, mine, &kind);
        if (status == GK_OK)
            status = coll_peer_now(pe, &now);
        if (status != GK_OK)
            return status;
        /* Still ours: the peer has not moved a whole history on since. */
        if (gk__coll_word_seq(now) - mine >= GK__SEG_COLL_HISTORY)
            return GK_OK;
    }
    if (kind == GK__COLL_NONE || coll_class(kind) == coll_class(gk__coll_state.word & 0xff))
        return GK_OK;
    return coll_mismatch(pe, coll_call(mine, kind), seq == mine ? 0 : seq);
}

/*
 * A PE that published a mismatch it found (coll_peer_clash) has made it
 * ours: report it as the finder saw it and record it. GK_ERR_COLL_MISMATCH,
 * or the error of a transport that read the finder.
 */
static int coll_learn_clash(int pe, int other, uint64_t theirs)
{
    uint64_t finder = 0;
    int status = coll_peer_now(pe, &finder);
    if (status != GK_OK)
        return status;
    int deadlock = other == gk__rt.my_pe ? gk__coll_deadlock_learn(pe) : 0;
    if (deadlock < 0)
        return deadlock;
    if (deadlock == 0 && other == gk__rt.my_pe)
        gk__error("collective mismatch found by PE %d: it is in %s (collective "
                  "#%llu) while this PE is in %s (collective #%llu)",
                  pe, gk__coll_name(finder & 0xff), coll_seq_of(finder),
                  gk__coll_name(gk__coll_state.word & 0xff),
                  (unsigned long long)gk__coll_state.seq);
    else if (deadlock == 0)
        gk__error("collective mismatch found by PE %d: it is in %s (collective "
                  "#%llu) while PE %d is in %s (collective #%llu); this PE is in %s "
                  "(collective #%llu)",
                  pe, gk__coll_name(finder & 0xff), coll_seq_of(finder), other,
                  gk__coll_name(theirs & 0xff), coll_seq_of(theirs),
                  gk__coll_name(gk__coll_state.word & 0xff),
                  (unsigned long long)gk__coll_state.seq);
    coll_record(pe, finder, other, theirs);
    return GK_ERR_COLL_MISMATCH;
}

/*
 * How often the slow path looks. It only has to turn a hang into an error
 * in reasonable time, while a look costs a PE a round trip or two per
 * peer across hosts, and on a node the first touch of each peer's header:
 * a fault and a page-table page per peer, for peers it may never talk to.
 * So a call looks only once it has waited a while: its first look starts
 * its clock, and the peers are read once COLL_LOOK_SLEEPS sleeps' worth
 * (at most GK__COLL_LOOK_DELAY_MS) have passed since, which a collective that
 * merely waits for slow peers, as a job's first barrier does, seldom
 * reaches. Each look then reads a batch of GK__COLL_LOOK_BATCH peers, the
 * nearest after this PE first, and the next look the next batch: a full
 * sweep takes n / GK__COLL_LOOK_BATCH looks. A PE that cannot see the
 * mismatch itself meets the clash word of a PE that found it within a
 * sweep.
 */
#define COLL_LOOK_SLEEPS 3

/* Whether this call has waited long enough to read its peers (above).
 * Slow path only: the clock is read after a sleep, never on entry. */
static int coll_look_due(void)
{
    uint64_t now = gk__now_ns();
    if (gk__coll_state.check_seq != gk__coll_state.seq) {
        gk__coll_state.check_seq = gk__coll_state.seq;
        gk__coll_state.check_since = now;
        return 0;
    }
    uint64_t delay_ms = (uint64_t)gk__wait_policy.sleep_ms * COLL_LOOK_SLEEPS;
    if (delay_ms > GK__COLL_LOOK_DELAY_MS)
        delay_ms = GK__COLL_LOOK_DELAY_MS;
    return now - gk__coll_state.check_since >= delay_ms * 1000000u;
}

int gk__coll_check_peers(void)
{
    if (gk__coll_state.broken)
        return GK_ERR_COLL_MISMATCH;
    int n = gk__rt.n_pes, me = gk__rt.my_pe;
    if (n < 2 || !coll_look_due())
        return GK_OK;
    /* Batch entry i is PE me + 1 + (first + i) mod (n - 1): every other PE. */
    int others = n - 1, first = gk__coll_state.check_next;
    int count = others < GK__COLL_LOOK_BATCH ? others : GK__COLL_LOOK_BATCH;
    for (int i = 0; i < count; i++) {
        int pe = (me + 1 + (first + i) % others) % n;
        uint64_t word = 0;
        int status = coll_peer_now(pe, &word);
        if (status == GK_OK)
            status = coll_check_peer(pe, word);
        if (status != GK_OK)
            return status;
    }
    /* Nobody in this batch mismatches us: has one of them found a mismatch
     * elsewhere? */
    for (int i = 0; i < count; i++) {
        int pe = (me + 1 + (first + i) % others) % n;
        int other = 0;
        uint64_t theirs = 0;
        int found = coll_peer_clash(pe, &other, &theirs);
        if (found < 0)
            return found;
        if (found > 0)
            return coll_learn_clash(pe, other, theirs);
    }
    gk__coll_state.check_next = (first + count) % others;
    return GK_OK;
}

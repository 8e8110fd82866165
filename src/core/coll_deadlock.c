/*
 * coll_deadlock.c: a wait in one team's collective call for a member that
 * waits in another team's, which this PE has not made (coll_check.h has
 * the rule). Two such PEs wait for each other for ever; with nothing in
 * band to tell (their calls never exchange a message), each finds the
 * other on the slow path of its wait, from the words the other published
 * (mem/segment.h: coll_blocked, team_calls), and both report it.
 *
 * The look reads, for a member q that this PE waits for: what q waits in,
 * (U, m); how many calls q started on this PE's team T; then q's blocked
 * word again. If q waited in U's call m all along, has not started T's
 * call, and this PE is a member of U that has not started U's call m,
 * neither call can end: q cannot start T's call before U's ends, and U's
 * cannot end without this PE. A false report would need q to have left
 * U's call m between the two reads of its word, which would have changed
 * it (calls are numbered upwards, and a wait withdraws its word before it
 * returns).
 *
 * The PE that finds it first returns an error, and its partner may then
 * never see its word again; so the finder also leaves the partner's
 * number and its own call's key (coll_deadlock_with) beside the partner's
 * blocked word as found (coll_deadlock_call), which the partner's look
 * reads first: it concerns the partner while that word is still its own. Both calls' teams are then out of step for good on
 * both PEs (each is a member of both), so neither call can be made later
 * to fit a half of the other; where one of the calls is a job-wide one,
 * the job's collectives are, recorded as coll_check.c's mismatches are,
 * which the other PEs waiting there learn of.
 */
#include <stddef.h>
#include <stdio.h>

#include "base/log.h"
#include "base/time.h"
#include "base/wait.h"
#include "core/coll_check.h"
#include "core/path.h"

_Thread_local const struct gk__coll_wait *gk__coll_waiting;
_Thread_local int gk__coll_blocked_published;
struct gk__coll_slots gk__coll_slots;

#define BLOCKED_CALL_MASK (((uint64_t)1 << 55) - 1)
/* In coll_blocked: the call is gk_finalize's (gk__coll_publish_final). */
#define BLOCKED_FINAL ((uint64_t)1 << 55)
/* In coll_deadlock_with: the finder waited in gk_finalize. */
#define DEADLOCK_WITH_FINAL ((uint64_t)1 << 63)
/* coll_blocked holds key + 1 in its top byte (0: not blocked). */
_Static_assert(GK__COLL_KEY_WORLD + 1 <= 0xff && GK__COLL_KEY_WORLD >= GK__SEG_TEAM_SLOTS,
               "a collective's key must fit coll_blocked's top byte, apart from every slot");

static _Thread_local struct {
    int key;
    uint64_t call;
    uint64_t since;
    int next;
} look;

/* How many calls PE pe (a member of this PE's team at `key`) started
 * there. */
static int peer_started(int pe, int key, uint64_t *started_p)
{
    uint64_t word = 0;
    int status;
    if (key == GK__COLL_KEY_WORLD) {
        status = gk__coll_peer_word(pe, GK__COLL_HEADER_OFFSET(coll_now), &word);
        word = gk__coll_word_seq(word);
    } else {
        status = gk__coll_peer_word(
            pe, GK__COLL_HEADER_OFFSET(team_calls) + (size_t)key * sizeof(uint64_t), &word);
    }
    *started_p = word;
    return status;
}

/* How many calls this PE started at `key`. */
static uint64_t my_started(int key)
{
    if (key == GK__COLL_KEY_WORLD)
        return gk__coll_state.seq;
    return atomic_load_explicit(&gk__rt.my_seg.header->team_calls[key], memory_order_relaxed);
}

static void describe(char *buf, size_t size, int key, uint64_t call, const char *name)
{
    if (key == GK__COLL_KEY_WORLD)
        snprintf(buf, size, "%s (collective #%llu of every PE)", name,
                 (unsigned long long)call);
    else
        snprintf(buf, size, "%s (call #%llu on a team of %d PEs)", name,
                 (unsigned long long)call,
                 gk__coll_slots.size != NULL ? gk__coll_slots.size(key) : 0);
}

static int key_of(uint64_t blocked)
{
    return (int)(blocked >> 56) - 1;
}

static uint64_t call_of(uint64_t blocked)
{
    return blocked & BLOCKED_CALL_MASK;
}

/* coll_blocked's word for a wait in (key, call); final: gk_finalize's. */
static uint64_t blocked_word(int key, uint64_t call, int final)
{
    return (uint64_t)(key + 1) << 56 | (final ? BLOCKED_FINAL : 0) | (call & BLOCKED_CALL_MASK);
}

/* Whether w is this PE's wait in gk_finalize. */
static int waits_in_final(const struct gk__coll_wait *w)
{
    return w->key == GK__COLL_KEY_WORLD && (gk__coll_state.word & 0xff) == GK__COLL_FINALIZE;
}

/* Whether this PE is a member of the call at `key` that PE pe waits in:
 * the job's, or a team of this PE's in that slot that holds pe. */
static int shares(int key, int pe)
{
    if (key == GK__COLL_KEY_WORLD)
        return 1;
    return key >= 0 && key < GK__SEG_TEAM_SLOTS && gk__coll_slots.holds != NULL &&
           gk__coll_slots.holds(key, pe);
}

/* describe() for a call PE pe waits in, which may be of a team this PE
 * is not in (its slot here may hold another team). */
static void describe_theirs(char *buf, size_t size, uint64_t blocked, int pe)
{
    int key = key_of(blocked);
    uint64_t call = call_of(blocked);
    if (shares(key, pe))
        describe(buf, size, key, call, blocked & BLOCKED_FINAL ? "gk_finalize" : "a collective");
    else
        snprintf(buf, size, "a collective (call #%llu of a team this PE is not in)",
                 (unsigned long long)call);
}

/* Whether PE pe has found a deadlock with this PE in the wait this PE has
 * published: 1 (2 where pe waited in gk_finalize), with the key of the
 * call pe waited in in *key_p; 0; or a transport's error. */
static int found_by(int pe, int *key_p)
{
    uint64_t with = 0, with_call = 0;
    int status = gk__coll_peer_word(pe, GK__COLL_HEADER_OFFSET(coll_deadlock_with), &with);
    if (status != GK_OK || (with & 0xffffffffu) != (uint64_t)gk__rt.my_pe + 1)
        return status;
    status = gk__coll_peer_word(pe, GK__COLL_HEADER_OFFSET(coll_deadlock_call), &with_call);
    if (status != GK_OK)
        return status;
    if (with_call != atomic_load_explicit(&gk__rt.my_seg.header->coll_blocked,
                                          memory_order_relaxed))
        return 0;
    *key_p = (int)((with & ~DEADLOCK_WITH_FINAL) >> 32) - 1;
    return with & DEADLOCK_WITH_FINAL ? 2 : 1;
}

/* found: found_by's 1, or 2 where pe waited in gk_finalize. */
static void report_found_by(int pe, const char *mine, int found)
{
    gk__error("collective deadlock found by PE %d: this PE waits in %s for it, and it "
              "waited in %s",
              pe, mine,
              found == 2 ? "gk_finalize, which this PE has not called"
                         : "a collective that this PE has not made");
}

int gk__coll_deadlock_learn(int pe)
{
    int key = 0;
    int found = found_by(pe, &key);
    if (found <= 0)
        return found;
    char mine[128];
    describe(mine, sizeof(mine), GK__COLL_KEY_WORLD, gk__coll_state.seq,
             gk__coll_name(gk__coll_state.word & 0xff));
    report_found_by(pe, mine, found);
    return 1;
}

/*
 * A cycle of three PEs or more: this PE waits in w for PE pe, which waits
 * in another call (blocked); from pe the walk follows the member each PE
 * on it says it waits for (coll_waits_for), checking each step as
 * look_at checks a pair: the next PE has not started the call the last
 * waits in, and waits itself in another. A walk that comes back to this
 * PE, from a PE that waits in a call this PE is a member of and has not
 * started, with every PE on it still in the call first read (read again
 * at the end), has found calls none of which can end: 1, the report, and
 * the last PE, and its call, in *with_p, *key_p, *call_p, *blocked_p
 * (for found_with). At most CYCLE_MAX PEs; 0 where the walk ends
 * elsewhere.
 */
#define CYCLE_MAX 16

/* The line of look_along's find: this PE waits in w for pes[0], which
 * waits in words[0] for pes[1], ..., the last for this PE. */
static void report_cycle(const struct gk__coll_wait *w, const int *pes, const uint64_t *words,
                         int n)
{
    char line[1024], call[128];
    describe(call, sizeof(call), w->key, w->call, w->name);
    size_t len = (size_t)snprintf(line, sizeof(line), "this PE waits in %s", call);
    for (int i = 0; i < n && len < sizeof(line); i++) {
        describe_theirs(call, sizeof(call), words[i], pes[i]);
        len += (size_t)snprintf(line + len, sizeof(line) - len, " for PE %d, which waits in %s",
                                pes[i], call);
    }
    gk__error("collective deadlock in a cycle of %d PEs: %s for this PE; this PE has not made "
              "the last of these calls, so none of them can end (every PE must make the "
              "collectives of the teams it shares with others in an order that lets all go on)",
              n + 1, line);
}

static int look_along(const struct gk__coll_wait *w, int pe, uint64_t blocked, int *with_p,
                      int *key_p, uint64_t *call_p, uint64_t *blocked_p)
{
    int pes[CYCLE_MAX];
    uint64_t words[CYCLE_MAX];
    int n = 0;
    pes[n] = pe;
    words[n++] = blocked;
    for (;;) {
        int at = pes[n - 1], key = key_of(words[n - 1]);
        uint64_t call = call_of(words[n - 1]), waits_for = 0, next_word = 0, started = 0;
        int status = gk__coll_peer_word(at, GK__COLL_HEADER_OFFSET(coll_waits_for), &waits_for);
        if (status != GK_OK || waits_for == 0 || (waits_for >> 32) != (call & 0xffffffffu))
            return status; /* it has said of no wait of this call */
        int next = (int)(waits_for & 0xffffffffu) - 1;
        if (next == gk__rt.my_pe) {
            if (n < 2 || !shares(key, at) || my_started(key) >= call)
                return GK_OK; /* a pair is look_at's; or it can end */
            break;
        }
        if (n == CYCLE_MAX || next < 0 || next >= gk__rt.n_pes)
            return GK_OK;
        for (int i = 0; i < n; i++)
            if (pes[i] == next)
                return GK_OK; /* a cycle this PE is not on */
        status = gk__coll_peer_word(next, GK__COLL_HEADER_OFFSET(coll_blocked), &next_word);
        if (status != GK_OK || next_word == 0 || key_of(next_word) == key)
            return status;
        status = peer_started(next, key, &started);
        if (status != GK_OK || started >= call)
            return status;
        pes[n] = next;
        words[n++] = next_word;
    }
    for (int i = 0; i < n; i++) {
        uint64_t again = 0;
        int status = gk__coll_peer_word(pes[i], GK__COLL_HEADER_OFFSET(coll_blocked), &again);
        if (status != GK_OK || again != words[i])
            return status;
    }
    report_cycle(w, pes, words, n);
    *with_p = pes[n - 1];
    *key_p = key_of(words[n - 1]);
    *call_p = call_of(words[n - 1]);
    *blocked_p = words[n - 1];
    return 1;
}

/* Whether member pe waits for this PE in a call it has not made (w is this
 * PE's wait), directly or through others (look_along), or found that this
 * PE does: 1, the report, the PE that waits for this PE in *with_p, and
 * its call's key, number and blocked word in *key_p, *call_p, *blocked_p
 * (where pe found it: the key of the call pe waited in, 0, 0); 0; or a
 * transport's error. */
static int look_at(const struct gk__coll_wait *w, int pe, int *with_p, int *key_p,
                   uint64_t *call_p, uint64_t *blocked_p)
{
    *with_p = pe;
    uint64_t blocked = 0, again = 0, started = 0;
    int status = found_by(pe, key_p);
    if (status < 0)
        return status;
    if (status > 0) {
        char mine[128];
        describe(mine, sizeof(mine), w->key, w->call, w->name);
        report_found_by(pe, mine, status);
        *call_p = 0;
        *blocked_p = 0;
        return 1;
    }
    status = gk__coll_peer_word(pe, GK__COLL_HEADER_OFFSET(coll_blocked), &blocked);
    if (status != GK_OK || blocked == 0)
        return status;
    int key = key_of(blocked);
    uint64_t call = call_of(blocked);
    if (key == w->key)
        return GK_OK; /* the same team: its own checks say */
    status = peer_started(pe, w->key, &started);
    if (status != GK_OK || started >= w->call)
        return status; /* it has made ours: it is not waiting for us */
    /* This PE waits for pe, which waits elsewhere: say so, for the walks
     * of longer cycles (look_along). */
    atomic_store_explicit(&gk__rt.my_seg.header->coll_waits_for,
                          (w->call & 0xffffffffu) << 32 | ((uint64_t)pe + 1),
                          memory_order_release);
    if (!shares(key, pe) || my_started(key) >= call)
        return look_along(w, pe, blocked, with_p, key_p, call_p, blocked_p);
    status = gk__coll_peer_word(pe, GK__COLL_HEADER_OFFSET(coll_blocked), &again);
    if (status != GK_OK || again != blocked)
        return status;
    char mine[128], theirs[128];
    describe(mine, sizeof(mine), w->key, w->call, w->name);
    describe(theirs, sizeof(theirs), key, call,
             blocked & BLOCKED_FINAL ? "gk_finalize" : "a collective");
    gk__error("collective deadlock: this PE waits in %s for PE %d, which waits in %s that "
              "this PE has not made: neither call can end (every PE must make the "
              "collectives of the teams it shares with another in an order that lets "
              "both go on)",
              mine, pe, theirs);
    *key_p = key;
    *call_p = call;
    *blocked_p = blocked;
    return 1;
}

/* This PE waits in w for PE pe, which waits in (key, call) for it (call 0:
 * pe found it): both calls' teams are out of step for good (the top). */
static int found_with(const struct gk__coll_wait *w, int pe, int key, uint64_t call,
                      uint64_t blocked)
{
    struct gk__seg_header *header = gk__rt.my_seg.header;
    atomic_store_explicit(&header->coll_deadlock_call, blocked, memory_order_relaxed);
    atomic_store_explicit(&header->coll_deadlock_with,
                          (waits_in_final(w) ? DEADLOCK_WITH_FINAL : 0) |
                              (uint64_t)(w->key + 1) << 32 | ((uint64_t)pe + 1),
                          memory_order_release);
    gk__coll_unblock();
    /* This PE's own call's team breaks as its wait returns the error. */
    if (key >= 0 && key < GK__SEG_TEAM_SLOTS && gk__coll_slots.set_broken != NULL)
        gk__coll_slots.set_broken(key);
    if (w->key == GK__COLL_KEY_WORLD || key == GK__COLL_KEY_WORLD)
        return gk__coll_record_found(pe, call << 32 | GK__COLL_TEAM_CALL);
    return GK_ERR_COLL_MISMATCH;
}

int gk__coll_check_deadlock(void)
{
    struct gk__coll_wait world;
    const struct gk__coll_wait *w = gk__coll_waiting;
    if (w == NULL) {
        if (gk__coll_depth == 0)
            return GK_OK;
        world = (struct gk__coll_wait){gk__coll_name(gk__coll_state.word & 0xff),
                                       GK__COLL_KEY_WORLD, gk__coll_state.seq, NULL,
                                       gk__rt.n_pes};
        w = &world;
    }
    uint64_t now = gk__now_ns();
    if (look.key != w->key || look.call != w->call) {
        look.key = w->key;
        look.call = w->call;
        look.since = now;
        look.next = 0;
        return GK_OK;
    }
    if (now - look.since < (uint64_t)GK__COLL_LOOK_DELAY_MS * 1000000u)
        return GK_OK;
    uint64_t word = blocked_word(w->key, w->call, waits_in_final(w));
    struct gk__seg_header *header = gk__rt.my_seg.header;
    if (atomic_load_explicit(&header->coll_blocked, memory_order_relaxed) != word) {
        atomic_store_explicit(&header->coll_blocked, word, memory_order_release);
        gk__coll_blocked_published = 1;
    }
    int count = w->n < GK__COLL_LOOK_BATCH ? w->n : GK__COLL_LOOK_BATCH;
    for (int i = 0; i < count; i++) {
        int at = (look.next + i) % w->n;
        int pe = w->pes != NULL ? w->pes[at] : at;
        if (pe == gk__rt.my_pe)
            continue;
        uint64_t their_call = 0, their_blocked = 0;
        int their_key = 0, with = pe;
        int found = look_at(w, pe, &with, &their_key, &their_call, &their_blocked);
        if (found < 0)
            return found;
        if (found > 0)
            return found_with(w, with, their_key, their_call, their_blocked);
    }
    look.next = (look.next + count) % w->n;
    return GK_OK;
}

void gk__coll_publish_final(int entered)
{
    /* The finalize call's number: the broken world's next, had it been made. */
    uint64_t call = gk__coll_state.seq + (entered ? 0 : 1);
    gk__coll_blocked_published = 0; /* stays, for as long as peers can read it */
    atomic_store_explicit(&gk__rt.my_seg.header->coll_blocked,
                          blocked_word(GK__COLL_KEY_WORLD, call, 1), memory_order_release);
}

void gk__coll_unblock(void)
{
    gk__coll_blocked_published = 0;
    atomic_store_explicit(&gk__rt.my_seg.header->coll_blocked, 0, memory_order_release);
}

/*
 * team_common.h: what the team tests share. A team as the test defines it
 * (its members' world numbers in team order, worked out from the split's
 * arguments, never asked of the library), checks of the library's view of
 * it against that definition, byte patterns named after their sender, and
 * a check of an error report that accepts either of two codes.
 *
 *   struct team_def t;
 *   team_def_strided(&t, "even", &world, 0, 2, (npes + 1) / 2);
 *   CHECK_OK(gk_team_split_strided(GK_TEAM_WORLD, 0, 2, (npes + 1) / 2, &t.team));
 *   team_def_check(&t);       n_pes, my_pe and translate_pe agree with t
 */
#ifndef GK_TESTS_TEAM_COMMON_H
#define GK_TESTS_TEAM_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "pe_args.h"
#include "pe_check.h"

/* A team: n members, members[i] the world number of team PE i, me this
 * PE's number in it (-1: not a member, and team is then GK_TEAM_INVALID
 * once the split has run). */
struct team_def {
    char name[96];
    gk_team_t team;
    int n;
    int me;
    int *members;
    unsigned rounds; /* the test's own count, the same on every member */
};

static inline void team_def_init(struct team_def *t, const char *name, int n)
{
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->team = GK_TEAM_INVALID;
    t->n = n;
    t->me = -1;
    t->rounds = 0;
    t->members = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    CHECK_NOT_NULL(t->members);
}

static inline void team_def_free(struct team_def *t)
{
    free(t->members);
    t->members = NULL;
    t->n = 0;
}

/* The index of world PE `pe` in t, or -1. */
static inline int team_def_index(const struct team_def *t, int pe)
{
    for (int i = 0; i < t->n; i++)
        if (t->members[i] == pe)
            return i;
    return -1;
}

static inline void team_def_finish(struct team_def *t)
{
    t->me = team_def_index(t, gk_my_pe());
}

static inline void team_def_world(struct team_def *t)
{
    team_def_init(t, "world", gk_n_pes());
    for (int i = 0; i < t->n; i++)
        t->members[i] = i;
    t->team = GK_TEAM_WORLD;
    team_def_finish(t);
}

/* GK_TEAM_NODE: the PEs whose memory this PE maps, found with gk_ptr() on
 * a symmetric block (`sym`, from gk_malloc), in world order. */
static inline void team_def_node(struct team_def *t, const void *sym)
{
    int npes = gk_n_pes(), n = 0;
    team_def_init(t, "node", npes);
    for (int pe = 0; pe < npes; pe++)
        if (gk_ptr(sym, pe) != NULL)
            t->members[n++] = pe;
    t->n = n;
    t->team = GK_TEAM_NODE;
    team_def_finish(t);
}

/* parent's PEs start, start + stride, ... (size of them). */
static inline void team_def_strided(struct team_def *t, const char *name,
                                    const struct team_def *parent, int start, int stride,
                                    int size)
{
    team_def_init(t, name, size);
    for (int i = 0; i < size; i++)
        t->members[i] = parent->members[start + i * stride];
    team_def_finish(t);
}

/* The row (x team) and the column (y team) of parent PE p in a grid of
 * xrange columns. */
static inline void team_def_2d(struct team_def *row, struct team_def *col,
                               const struct team_def *parent, int xrange, int p)
{
    int x = p % xrange, y = p / xrange, n = 0;
    char name[96];
    snprintf(name, sizeof(name), "row %d of 2d(%d) of %.40s", y, xrange, parent->name);
    team_def_init(row, name, xrange);
    for (int i = y * xrange; i < (y + 1) * xrange && i < parent->n; i++)
        row->members[n++] = parent->members[i];
    row->n = n;
    team_def_finish(row);
    snprintf(name, sizeof(name), "column %d of 2d(%d) of %.40s", x, xrange, parent->name);
    team_def_init(col, name, parent->n);
    n = 0;
    for (int i = x; i < parent->n; i += xrange)
        col->members[n++] = parent->members[i];
    col->n = n;
    team_def_finish(col);
}

/* MPI_Comm_split: the parent PEs whose colour is `color`, ordered by key,
 * ties by parent number. colors[i] and keys[i] are parent PE i's. */
static inline void team_def_split(struct team_def *t, const char *name,
                                  const struct team_def *parent, const int *colors,
                                  const int *keys, int color)
{
    team_def_init(t, name, parent->n);
    int n = 0;
    if (color != GK_TEAM_UNDEFINED) {
        for (int i = 0; i < parent->n; i++)
            if (colors[i] == color)
                t->members[n++] = i; /* parent numbers for now */
        /* Insertion sort by (key, parent number): stable on the number. */
        for (int a = 1; a < n; a++) {
            int v = t->members[a], b = a;
            while (b > 0 && keys[t->members[b - 1]] > keys[v]) {
                t->members[b] = t->members[b - 1];
                b--;
            }
            t->members[b] = v;
        }
        for (int i = 0; i < n; i++)
            t->members[i] = parent->members[t->members[i]];
    }
    t->n = n;
    team_def_finish(t);
}

/* A query of a handle that is not a team of this PE returns -1; it may say
 * so in one error line, but no more. */
#define CHECK_QUERY_INVALID(call)                                                        \
    do {                                                                                 \
        gk_capture_begin();                                                              \
        int value_ = (call);                                                             \
        const char *text_ = gk_capture_end();                                            \
        if (value_ != -1 || gk_capture_count(text_, "gasket[") > 1) {                    \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("%s returned %d, expected -1 (with at most one line)", #call,        \
                    value_);                                                             \
        }                                                                                \
    } while (0)

/*
 * The library's view of t (if this PE holds it) agrees with t: its size, this
 * PE's number, every member's world number both ways, -1 for every PE that
 * is not a member and for numbers out of range. Queries log nothing.
 */
static inline void team_def_check(const struct team_def *t)
{
    int npes = gk_n_pes();
    if (t->me < 0) {
        if (t->team != GK_TEAM_INVALID)
            PE_FAIL("team %s: this PE is not a member, but its handle is %p, not "
                    "GK_TEAM_INVALID",
                    t->name, (void *)t->team);
        return;
    }
    if (t->team == GK_TEAM_INVALID)
        PE_FAIL("team %s: this PE is member %d, but its handle is GK_TEAM_INVALID", t->name,
                t->me);
    int got = 0;
    CHECK_SILENT(got = gk_team_n_pes(t->team));
    if (got != t->n)
        PE_FAIL("team %s: gk_team_n_pes is %d, expected %d", t->name, got, t->n);
    CHECK_SILENT(got = gk_team_my_pe(t->team));
    if (got != t->me)
        PE_FAIL("team %s: gk_team_my_pe is %d, expected %d", t->name, got, t->me);
    for (int i = 0; i < t->n; i++) {
        CHECK_SILENT(got = gk_team_translate_pe(t->team, i, GK_TEAM_WORLD));
        if (got != t->members[i])
            PE_FAIL("team %s: team PE %d translates to world PE %d, expected %d", t->name, i,
                    got, t->members[i]);
    }
    for (int pe = 0; pe < npes; pe++) {
        CHECK_SILENT(got = gk_team_translate_pe(GK_TEAM_WORLD, pe, t->team));
        int want = team_def_index(t, pe);
        if (got != want)
            PE_FAIL("team %s: world PE %d translates to team PE %d, expected %d", t->name, pe,
                    got, want);
    }
    CHECK_SILENT(got = gk_team_translate_pe(t->team, t->me, t->team));
    CHECK_EQ(got, t->me);
    CHECK_QUERY_INVALID(gk_team_translate_pe(t->team, -1, GK_TEAM_WORLD));
    CHECK_QUERY_INVALID(gk_team_translate_pe(t->team, t->n, GK_TEAM_WORLD));
    CHECK_QUERY_INVALID(gk_team_translate_pe(GK_TEAM_WORLD, npes, t->team));
    CHECK_QUERY_INVALID(gk_team_translate_pe(t->team, 0, GK_TEAM_INVALID));
    CHECK_QUERY_INVALID(gk_team_translate_pe(GK_TEAM_INVALID, 0, t->team));
}

/* Translation from a to b, for every PE of a, against the definitions (both
 * held by this PE), and back again for the PEs in both. */
static inline void team_def_check_pair(const struct team_def *a, const struct team_def *b)
{
    if (a->me < 0 || b->me < 0)
        return;
    for (int i = 0; i < a->n; i++) {
        int got = 0, want = team_def_index(b, a->members[i]);
        CHECK_SILENT(got = gk_team_translate_pe(a->team, i, b->team));
        if (got != want)
            PE_FAIL("team %s PE %d (world %d) translates to %d in team %s, expected %d",
                    a->name, i, a->members[i], got, b->name, want);
        if (want >= 0) {
            int back = 0;
            CHECK_SILENT(back = gk_team_translate_pe(b->team, got, a->team));
            if (back != i)
                PE_FAIL("team %s PE %d translates back to %d in team %s, expected %d",
                        b->name, got, back, a->name, i);
        }
    }
}

/* Byte i of what world PE `pe` contributes under `seed`. */
static inline unsigned char team_pattern(int pe, unsigned seed, size_t i)
{
    return (unsigned char)(pe * 29 + seed * 7 + i * 13 + (i >> 8) + 1);
}

static inline void team_fill(void *buf, int pe, unsigned seed, size_t nbytes)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < nbytes; i++)
        p[i] = team_pattern(pe, seed, i);
}

/* The first byte of got that differs from expected, as a failure that says
 * what was being checked (a printf format and its arguments). */
#define CHECK_BYTES(got, expected, nbytes, ...)                                          \
    do {                                                                                 \
        const unsigned char *g_ = (const void *)(got);                                   \
        const unsigned char *e_ = (const void *)(expected);                              \
        size_t n_ = (nbytes);                                                            \
        if (n_ != 0 && memcmp(g_, e_, n_) != 0) {                                        \
            size_t at_ = 0;                                                              \
            while (g_[at_] == e_[at_])                                                   \
                at_++;                                                                   \
            char what_[256];                                                             \
            snprintf(what_, sizeof(what_), __VA_ARGS__);                                 \
            PE_FAIL("%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what_, at_, n_,    \
                    g_[at_], e_[at_]);                                                   \
        }                                                                                \
    } while (0)

/* Every byte of buf is `value` (a guard, or memory nothing may write). */
#define CHECK_UNTOUCHED(buf, value, nbytes, ...)                                         \
    do {                                                                                 \
        const unsigned char *b_ = (const void *)(buf);                                   \
        size_t n_ = (nbytes);                                                            \
        for (size_t at_ = 0; at_ < n_; at_++)                                            \
            if (b_[at_] != (unsigned char)(value)) {                                     \
                char what_[256];                                                         \
                snprintf(what_, sizeof(what_), __VA_ARGS__);                             \
                PE_FAIL("%s: byte %zu of %zu was written (0x%02x, expected 0x%02x)",     \
                        what_, at_, n_, b_[at_], (unsigned char)(value));                \
            }                                                                            \
    } while (0)

/* As CHECK_LOGGED, where the header leaves the code open between two
 * (GK_ERR_INVALID_ARG or GK_ERR_PE for a PE number out of range). */
#define CHECK_LOGGED_EITHER(code_a, code_b, call, ...)                                   \
    do {                                                                                 \
        gk_capture_begin();                                                              \
        int status_ = (call);                                                            \
        const char *text_ = gk_capture_end();                                            \
        int a_ = (code_a), b_ = (code_b);                                                \
        if (status_ != a_ && status_ != b_) {                                            \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("%s returned %d (%s), expected %d (%s) or %d (%s)", #call, status_,  \
                    gk_strerror(status_), a_, gk_strerror(a_), b_, gk_strerror(b_));     \
        }                                                                                \
        const char *const needles_[] = {__VA_ARGS__, NULL};                              \
        const char *why_ = pe_check_report(text_, needles_);                             \
        if (why_ != NULL) {                                                              \
            fprintf(stderr, "--- what %s logged:\n", #call);                             \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("the report of %s: %s", #call, why_);                                \
        }                                                                                \
    } while (0)

/* A call the header leaves free to succeed (silently) or to fail with
 * `code` and one error line containing the needles. */
#define CHECK_OK_OR_LOGGED(code, call, ...)                                              \
    do {                                                                                 \
        gk_capture_begin();                                                              \
        int status_ = (call);                                                            \
        const char *text_ = gk_capture_end();                                            \
        int code_ = (code);                                                              \
        const char *const needles_[] = {__VA_ARGS__, NULL};                              \
        const char *why_ = NULL;                                                         \
        if (status_ == GK_OK && text_[0] != '\0')                                        \
            why_ = "it returned GK_OK but logged something";                             \
        else if (status_ != GK_OK && status_ != code_)                                   \
            why_ = gk_strerror(status_);                                                 \
        else if (status_ != GK_OK)                                                       \
            why_ = pe_check_report(text_, needles_);                                     \
        if (why_ != NULL) {                                                              \
            fprintf(stderr, "--- what %s logged:\n", #call);                             \
            gk_capture_echo(text_);                                                      \
            PE_FAIL("%s returned %d, expected GK_OK or %d (%s) with one line: %s",       \
                    #call, status_, code_, gk_strerror(code_), why_);                    \
        }                                                                                \
    } while (0)

#endif /* GK_TESTS_TEAM_COMMON_H */

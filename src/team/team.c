/*
 * team.c: teams (gasket.h, "Teams and their collectives"): the predefined
 * ones, the splits, translation, destroy, and the scratch slots.
 *
 * Slots. Each team's messages travel through one of GK_TEAM_MAX slots of
 * every member's segment (engine.h); the world's is 0, the node's 1. A
 * split gathers every parent PE's free slots and picks, for each new team,
 * the lowest slot free on every parent PE, so all members pick the same;
 * teams that are disjoint may share a slot index (the words are each PE's
 * own). Call numbers go on from the slot's last team (the largest any
 * parent PE has seen there), so no stale message of an earlier team ever
 * looks new: a slot never needs clearing.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "core/path.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "team/coll.h"

static struct gk_team team_world_obj, team_node_obj;
static struct gk_team *slot_team[GK_TEAM_MAX];
/* The last call number used in each slot by any team of this PE. */
static uint64_t slot_calls[GK_TEAM_MAX];

struct gk_team *gk__team_in_slot(int slot)
{
    return slot_team[slot];
}

struct gk_team *gk__team_world(void)
{
    return &team_world_obj;
}

/* The host of world PE pe: its node, unless node PEs reach each other
 * through the network (then each PE is a host of its own). */
static int host_key(int pe)
{
    if (gk__rt.config.net_indirect || gk__rt.boot.node_id == NULL)
        return pe;
    return gk__rt.boot.node_id[pe];
}

static void team_free_arrays(struct gk_team *t)
{
    free(t->pes);
    free(t->host_of);
    free(t->host_first);
    free(t->host_members);
    free(t->host_rank);
    free(t->leaders);
}

/* Fills t from its members (world PEs, team order) and my number. */
static int team_build(struct gk_team *t, const int *pes, int n, int me, int slot,
                      uint64_t calls)
{
    memset(t, 0, sizeof(*t));
    t->magic = GK__TEAM_MAGIC;
    t->slot = slot;
    t->n = n;
    t->me = me;
    t->calls = calls;
    t->pes = malloc((size_t)n * sizeof(int));
    t->host_of = malloc((size_t)n * sizeof(int));
    t->host_first = malloc(((size_t)n + 1) * sizeof(int));
    t->host_members = malloc((size_t)n * sizeof(int));
    t->host_rank = malloc((size_t)n * sizeof(int));
    t->leaders = malloc((size_t)n * sizeof(int));
    int *key = malloc((size_t)n * sizeof(int));
    int *count = calloc((size_t)n + 1, sizeof(int));
    if (!t->pes || !t->host_of || !t->host_first || !t->host_members || !t->host_rank ||
        !t->leaders || !key || !count) {
        free(key);
        free(count);
        team_free_arrays(t);
        gk__error("no memory for a team of %d PEs", n);
        return GK_ERR_NOMEM;
    }
    memcpy(t->pes, pes, (size_t)n * sizeof(int));
    /* Hosts in the order of their first member. */
    for (int i = 0; i < n; i++) {
        int k = host_key(pes[i]), h = 0;
        while (h < t->n_hosts && key[h] != k)
            h++;
        if (h == t->n_hosts)
            key[t->n_hosts++] = k;
        t->host_of[i] = h;
        t->host_rank[i] = count[h]++;
    }
    t->host_first[0] = 0;
    for (int h = 0; h < t->n_hosts; h++)
        t->host_first[h + 1] = t->host_first[h] + count[h];
    for (int i = 0; i < n; i++)
        t->host_members[t->host_first[t->host_of[i]] + t->host_rank[i]] = i;
    for (int h = 0; h < t->n_hosts; h++)
        t->leaders[h] = t->host_members[t->host_first[h]];
    t->my_host = t->host_of[me];
    t->local_me = t->host_rank[me];
    free(key);
    free(count);
    return GK_OK;
}

static int team_init(void)
{
    int status = gk__team_tuning_init();
    if (status != GK_OK)
        return status;
    /* Before gk_init returns, the boot information holds the numbers. */
    int n = gk__rt.boot.size, me = gk__rt.boot.rank;
    int *pes = malloc((size_t)n * sizeof(int));
    if (pes == NULL) {
        gk__error("no memory for the world team's %d PEs", n);
        return GK_ERR_NOMEM;
    }
    memset(slot_calls, 0, sizeof(slot_calls));
    memset(slot_team, 0, sizeof(slot_team));
    for (int i = 0; i < n; i++)
        pes[i] = i;
    status = team_build(&team_world_obj, pes, n, me, 0, 0);
    int nn = 0, node_me = 0;
    for (int i = 0; i < n; i++)
        if (host_key(i) == host_key(me)) {
            if (i == me)
                node_me = nn;
            pes[nn++] = i;
        }
    if (status == GK_OK)
        status = team_build(&team_node_obj, pes, nn, node_me, 1, 0);
    free(pes);
    if (status != GK_OK)
        return status;
    team_world_obj.predefined = team_node_obj.predefined = 1;
    slot_team[0] = &team_world_obj;
    slot_team[1] = &team_node_obj;
    return GK_OK;
}

static void team_fini(void)
{
    for (int s = 0; s < GK_TEAM_MAX; s++) {
        struct gk_team *t = slot_team[s];
        if (t == NULL)
            continue;
        team_free_arrays(t);
        t->magic = 0;
        if (!t->predefined)
            free(t);
        slot_team[s] = NULL;
    }
}

GK__RT_FEATURE(team_feature, .name = "teams", .init = team_init, .fini = team_fini);

static struct gk_team *team_lookup(gk_team_t team)
{
    if (team == GK_TEAM_WORLD)
        return slot_team[0];
    if (team == GK_TEAM_NODE)
        return slot_team[1];
    for (int s = 2; s < GK_TEAM_MAX; s++)
        if (slot_team[s] == team && team != NULL)
            return slot_team[s];
    return NULL;
}

struct gk_team *gk__team_get(const char *op, gk_team_t team)
{
    struct gk_team *t = gk__rt.initialized ? team_lookup(team) : NULL;
    if (t == NULL) {
        if (team == GK_TEAM_INVALID)
            gk__error("%s: the team is GK_TEAM_INVALID", op);
        else
            gk__error("%s: team %p is not a team of this PE (destroyed, or never made here)",
                      op, (void *)team);
    }
    return t;
}

int gk_team_n_pes(gk_team_t team)
{
    struct gk_team *t = gk__rt.initialized ? team_lookup(team) : NULL;
    return t != NULL ? t->n : -1;
}

int gk_team_my_pe(gk_team_t team)
{
    struct gk_team *t = gk__rt.initialized ? team_lookup(team) : NULL;
    return t != NULL ? t->me : -1;
}

int gk_team_translate_pe(gk_team_t from, int pe, gk_team_t to)
{
    struct gk_team *f = gk__rt.initialized ? team_lookup(from) : NULL;
    struct gk_team *d = gk__rt.initialized ? team_lookup(to) : NULL;
    if (f == NULL || d == NULL || pe < 0 || pe >= f->n)
        return -1;
    int world = f->pes[pe];
    for (int i = 0; i < d->n; i++)
        if (d->pes[i] == world)
            return i;
    return -1;
}

/* ---- Splits ---- */

/* What each parent PE tells the others in a split. */
struct split_record {
    int64_t color, key;
    uint64_t free_mask;
    uint64_t calls[GK_TEAM_MAX];
};

static uint64_t free_mask_mine(void)
{
    uint64_t mask = 0;
    for (int s = 0; s < GK_TEAM_MAX; s++)
        if (slot_team[s] == NULL)
            mask |= (uint64_t)1 << s;
    return mask;
}

/* Gathers the parent's records (a call of kind SPLIT whose fields are
 * `fields`), the slots free everywhere and each slot's last call. */
static int split_gather(const char *name, struct gk_team *parent, int64_t color, int64_t key,
                        const uint64_t fields[3], int status, struct split_record **all_p,
                        uint64_t *mask_p, uint64_t calls[GK_TEAM_MAX])
{
    struct split_record mine = {color, key, free_mask_mine(), {0}};
    memcpy(mine.calls, slot_calls, sizeof(mine.calls));
    struct split_record *all = malloc((size_t)parent->n * sizeof(*all));
    if (all == NULL) {
        gk__error("%s: no memory for the parent's %d records", name, parent->n);
        status = GK_ERR_NOMEM; /* still takes part, so the others hear */
        static struct split_record spare[1];
        int r = gk__team_gather(name, GK__TEAM_SPLIT, parent, spare, &mine, 0, fields, status);
        return r != GK_OK ? r : status;
    }
    int r = gk__team_gather(name, GK__TEAM_SPLIT, parent, all, &mine, sizeof(mine), fields,
                            status);
    if (r != GK_OK) {
        free(all);
        return r;
    }
    uint64_t mask = ~(uint64_t)0;
    memset(calls, 0, GK_TEAM_MAX * sizeof(uint64_t));
    for (int i = 0; i < parent->n; i++) {
        mask &= all[i].free_mask;
        for (int s = 0; s < GK_TEAM_MAX; s++)
            if (all[i].calls[s] > calls[s])
                calls[s] = all[i].calls[s];
    }
    *all_p = all;
    *mask_p = mask;
    return GK_OK;
}

/* The lowest slot in mask (taking it out of mask), or -1. */
static int slot_take(uint64_t *mask)
{
    for (int s = 2; s < GK_TEAM_MAX; s++)
        if (*mask & ((uint64_t)1 << s)) {
            *mask &= ~((uint64_t)1 << s);
            return s;
        }
    return -1;
}

/* A new team of the parent's members `members` (parent numbers), if this
 * PE is one of them; *team_p GK_TEAM_INVALID otherwise. */
static int team_make(const char *name, struct gk_team *parent, const int *members, int n,
                     int slot, uint64_t calls, gk_team_t *team_p)
{
    int me = -1;
    for (int i = 0; i < n; i++)
        if (members[i] == parent->me)
            me = i;
    *team_p = GK_TEAM_INVALID;
    if (me < 0)
        return GK_OK;
    int *pes = malloc((size_t)n * sizeof(int));
    struct gk_team *t = malloc(sizeof(*t));
    if (pes == NULL || t == NULL) {
        free(pes);
        free(t);
        gk__error("%s: no memory for a team of %d PEs", name, n);
        return GK_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++)
        pes[i] = parent->pes[members[i]];
    int status = team_build(t, pes, n, me, slot, calls + 2);
    free(pes);
    if (status != GK_OK) {
        free(t);
        return status;
    }
    slot_team[slot] = t;
    *team_p = t;
    return GK_OK;
}

static int no_slot(const char *name)
{
    gk__error("%s: every one of the GK_TEAM_MAX (%d) teams is in use on some PE of the "
              "parent; destroy a team first",
              name, GK_TEAM_MAX);
    return GK_ERR_NOMEM;
}

int gk_team_split_strided(gk_team_t parent, int start, int stride, int size, gk_team_t *team_p)
{
    static const char name[] = "gk_team_split_strided";
    if (team_p == NULL)
        return gk__rt_report_null(name, "team_p", 1);
    *team_p = GK_TEAM_INVALID;
    struct gk_team *p = gk__team_get(name, parent);
    if (p == NULL)
        return GK_ERR_INVALID_ARG;
    int status = gk__progress_check_not_in_handler(name);
    if (status != GK_OK)
        return status;
    long last = (long)start + (long)stride * (size - 1);
    if (stride == 0) {
        gk__error("%s: stride 0 is not allowed", name);
        status = GK_ERR_INVALID_ARG;
    } else if (size < 1 || size > p->n) {
        gk__error("%s: size %d is out of range (1 to the parent's %d PEs)", name, size, p->n);
        status = GK_ERR_INVALID_ARG;
    } else if (start < 0 || start >= p->n) {
        gk__error("%s: start %d is not a PE of the parent (0 to %d)", name, start, p->n - 1);
        status = GK_ERR_INVALID_ARG;
    } else if (last < 0 || last >= p->n) {
        gk__error("%s: start %d, stride %d and size %d reach PE %ld, outside the parent "
                  "(0 to %d)",
                  name, start, stride, size, last, p->n - 1);
        status = GK_ERR_INVALID_ARG;
    }
    const uint64_t fields[3] = {(uint64_t)(uint32_t)start, (uint64_t)(uint32_t)size,
                                (uint64_t)(uint32_t)stride};
    struct split_record *all = NULL;
    uint64_t mask, calls[GK_TEAM_MAX];
    int r = split_gather(name, p, 0, 0, fields, status, &all, &mask, calls);
    if (r != GK_OK)
        return r;
    free(all);
    int slot = slot_take(&mask);
    if (slot < 0)
        return no_slot(name);
    int *members = malloc((size_t)size * sizeof(int));
    if (members == NULL) {
        gk__error("%s: no memory for %d members", name, size);
        return GK_ERR_NOMEM;
    }
    for (int i = 0; i < size; i++)
        members[i] = start + stride * i;
    r = team_make(name, p, members, size, slot, calls[slot], team_p);
    free(members);
    return r;
}

int gk_team_split_2d(gk_team_t parent, int xrange, gk_team_t *xteam_p, gk_team_t *yteam_p)
{
    static const char name[] = "gk_team_split_2d";
    if (xteam_p == NULL)
        return gk__rt_report_null(name, "xteam_p", 1);
    if (yteam_p == NULL)
        return gk__rt_report_null(name, "yteam_p", 1);
    *xteam_p = *yteam_p = GK_TEAM_INVALID;
    struct gk_team *p = gk__team_get(name, parent);
    if (p == NULL)
        return GK_ERR_INVALID_ARG;
    int status = gk__progress_check_not_in_handler(name);
    if (status != GK_OK)
        return status;
    if (xrange < 1) {
        gk__error("%s: xrange %d is not positive", name, xrange);
        status = GK_ERR_INVALID_ARG;
    }
    if (xrange > p->n)
        xrange = p->n; /* OpenSHMEM's rule: one row */
    const uint64_t fields[3] = {0, (uint64_t)(uint32_t)xrange, 2};
    struct split_record *all = NULL;
    uint64_t mask, calls[GK_TEAM_MAX];
    int r = split_gather(name, p, 0, 0, fields, status, &all, &mask, calls);
    if (r != GK_OK)
        return r;
    free(all);
    int xslot = slot_take(&mask), yslot = slot_take(&mask);
    if (xslot < 0 || yslot < 0)
        return no_slot(name);
    int n = p->n, me = p->me, x = me % xrange, y = me / xrange;
    int *members = malloc((size_t)n * sizeof(int));
    if (members == NULL) {
        gk__error("%s: no memory for %d members", name, n);
        return GK_ERR_NOMEM;
    }
    int k = 0;
    for (int i = y * xrange; i < n && i < (y + 1) * xrange; i++)
        members[k++] = i;
    r = team_make(name, p, members, k, xslot, calls[xslot], xteam_p);
    k = 0;
    for (int i = x; i < n; i += xrange)
        members[k++] = i;
    if (r == GK_OK)
        r = team_make(name, p, members, k, yslot, calls[yslot], yteam_p);
    free(members);
    return r;
}

struct color_member {
    int64_t key;
    int index;
};

static int color_member_cmp(const void *a, const void *b)
{
    const struct color_member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index - y->index;
}

int gk_team_split(gk_team_t parent, int color, int key, gk_team_t *team_p)
{
    static const char name[] = "gk_team_split";
    if (team_p == NULL)
        return gk__rt_report_null(name, "team_p", 1);
    *team_p = GK_TEAM_INVALID;
    struct gk_team *p = gk__team_get(name, parent);
    if (p == NULL)
        return GK_ERR_INVALID_ARG;
    int status = gk__progress_check_not_in_handler(name);
    if (status != GK_OK)
        return status;
    if (color < 0 && color != GK_TEAM_UNDEFINED) {
        gk__error("%s: colour %d is negative (GK_TEAM_UNDEFINED joins no team)", name, color);
        status = GK_ERR_INVALID_ARG;
    }
    const uint64_t fields[3] = {0, 0, 3};
    struct split_record *all = NULL;
    uint64_t mask, calls[GK_TEAM_MAX];
    int r = split_gather(name, p, color, key, fields, status, &all, &mask, calls);
    if (r != GK_OK)
        return r;
    int slot = slot_take(&mask);
    if (slot < 0) {
        free(all);
        return no_slot(name);
    }
    if (color == GK_TEAM_UNDEFINED) {
        free(all);
        return GK_OK;
    }
    struct color_member *cm = malloc((size_t)p->n * sizeof(*cm));
    int *members = malloc((size_t)p->n * sizeof(int));
    if (cm == NULL || members == NULL) {
        free(all);
        free(cm);
        free(members);
        gk__error("%s: no memory for %d members", name, p->n);
        return GK_ERR_NOMEM;
    }
    int n = 0;
    for (int i = 0; i < p->n; i++)
        if (all[i].color == color)
            cm[n++] = (struct color_member){all[i].key, i};
    qsort(cm, (size_t)n, sizeof(*cm), color_member_cmp);
    for (int i = 0; i < n; i++)
        members[i] = cm[i].index;
    r = team_make(name, p, members, n, slot, calls[slot], team_p);
    free(all);
    free(cm);
    free(members);
    return r;
}

int gk_team_destroy(gk_team_t *team_p)
{
    static const char name[] = "gk_team_destroy";
    if (team_p == NULL)
        return gk__rt_report_null(name, "team_p", 1);
    struct gk_team *t = gk__team_get(name, *team_p);
    if (t == NULL)
        return GK_ERR_INVALID_ARG;
    if (t->predefined) {
        gk__error("%s: %s is predefined and cannot be destroyed", name,
                  t->slot == 0 ? "GK_TEAM_WORLD" : "GK_TEAM_NODE");
        return GK_ERR_INVALID_ARG;
    }
    int status = gk__progress_check_not_in_handler(name);
    if (status != GK_OK)
        return status;
    if (t->queue_head != NULL) {
        gk__error("%s: the team has non-blocking collectives not yet complete; wait for "
                  "them first",
                  name);
        status = GK_ERR_INVALID_ARG; /* the others hear of it, and keep the team */
    }
    const uint64_t fields[3] = {0, 0, 0};
    uint64_t dummy = 0, *all = malloc((size_t)t->n * sizeof(uint64_t));
    int r = all == NULL ? GK_ERR_NOMEM
                        : gk__team_gather(name, GK__TEAM_DESTROY, t, all, &dummy, sizeof(dummy),
                                          fields, status);
    free(all);
    if (r != GK_OK)
        return r;
    /* Our messages to the members have landed before the slot is reused. */
    r = gk__path_quiet();
    slot_calls[t->slot] = t->calls;
    slot_team[t->slot] = NULL;
    team_free_arrays(t);
    t->magic = 0;
    free(t);
    *team_p = GK_TEAM_INVALID;
    return r;
}

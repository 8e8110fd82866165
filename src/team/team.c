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
 * looks new: a slot never needs clearing. One more slot, past those,
 * serves OpenSHMEM's active sets (below).
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "core/coll_check.h"
#include "core/ctx.h"
#include "core/path.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "core/symheap.h"
#include "mem/segment.h"
#include "team/coll.h"

static struct gk_team team_world_obj, team_node_obj;
static struct gk_team *slot_team[GK__TEAM_SLOTS];
/* The last call number used in each slot by any team of this PE. */
static uint64_t slot_calls[GK__TEAM_SLOTS];
/* Whether slot s's pages are this PE's (taken at the first split that
 * offered it, or the first active set; the predefined teams' at start-up). */
static int slot_ready[GK__TEAM_SLOTS];

struct gk_team *gk__team_in_slot(int slot)
{
    return slot_team[slot];
}

/* For the look at deadlocks across teams (core/coll_check.h). */
static int slot_holds(int slot, int pe)
{
    const struct gk_team *t = slot_team[slot];
    if (t == NULL || slot == GK__TEAM_ASET_SLOT)
        return 0; /* an active set is this PE's own view: it may differ */
    for (int i = 0; i < t->n; i++)
        if (t->pes[i] == pe)
            return 1;
    return 0;
}

static int slot_size(int slot)
{
    return slot_team[slot] != NULL ? slot_team[slot]->n : 0;
}

static void slot_set_broken(int slot)
{
    if (slot_team[slot] != NULL && slot != GK__TEAM_ASET_SLOT)
        slot_team[slot]->broken = 1;
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
    /* The world's blocks are owner 0 (core/symheap.h); every other team
     * this PE builds gets a number of its own. */
    static uint64_t heap_owners;
    memset(t, 0, sizeof(*t));
    t->magic = GK__TEAM_MAGIC;
    t->heap_owner = ++heap_owners;
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
    gk__team_layout_for(gk__rt.boot.size, gk__rt.config.team_window, &gk__team_layout);
    /* Before gk_init returns, the boot information holds the numbers. */
    int n = gk__rt.boot.size, me = gk__rt.boot.rank;
    int *pes = malloc((size_t)n * sizeof(int));
    if (pes == NULL) {
        gk__error("no memory for the world team's %d PEs", n);
        return GK_ERR_NOMEM;
    }
    memset(slot_calls, 0, sizeof(slot_calls));
    memset(slot_team, 0, sizeof(slot_team));
    memset(slot_ready, 0, sizeof(slot_ready));
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
    team_world_obj.heap_owner = GK__SYMHEAP_WORLD; /* its calls are gk_malloc's */
    gk__team_slot_set(&slot_team[0], &team_world_obj);
    gk__team_slot_set(&slot_team[1], &team_node_obj);
    gk__coll_slots = (struct gk__coll_slots){slot_holds, slot_size, slot_set_broken};
    return GK_OK;
}

static void aset_forget(void);

static void team_fini(void)
{
    aset_forget();
    for (int s = 0; s < GK_TEAM_MAX; s++) {
        struct gk_team *t = slot_team[s];
        if (t == NULL)
            continue;
        gk__team_slot_set(&slot_team[s], NULL);
        gk__team_queue_drop(t);
        team_free_arrays(t);
        t->magic = 0;
        if (!t->predefined)
            free(t);
    }
}

GK__RT_FEATURE(team_feature, .name = "teams", .init = team_init, .fini = team_fini);

static struct gk_team *team_lookup(gk_team_t team)
{
    if (team == GK_TEAM_WORLD)
        return slot_team[0];
    if (team == GK_TEAM_NODE)
        return slot_team[1];
    for (int s = 2; s < GK__TEAM_SLOTS; s++)
        if (slot_team[s] == team && team != NULL)
            return slot_team[s];
    return NULL;
}

struct gk_team *gk__team_get_arg(const char *op, const char *arg, gk_team_t team)
{
    struct gk_team *t = gk__rt.initialized ? team_lookup(team) : NULL;
    if (t == NULL) {
        if (!gk__rt.initialized)
            gk__error("%s called before gk_init()", op);
        else if (team == GK_TEAM_INVALID)
            gk__error("%s: %s is GK_TEAM_INVALID", op, arg);
        else
            gk__error("%s: %s %p is not a team of this PE (destroyed, or never made here)",
                      op, arg, (void *)team);
    }
    return t;
}

struct gk_team *gk__team_get(const char *op, gk_team_t team)
{
    return gk__team_get_arg(op, "team", team);
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

int gk_team_ctx_create(gk_team_t team, unsigned options, gk_ctx_t **ctx_p)
{
    static const char name[] = "gk_team_ctx_create";
    struct gk_team *t = gk__team_get(name, team);
    if (t == NULL)
        return GK_ERR_INVALID_ARG;
    return gk__ctx_create_on(name, options, t->pes, t->n, ctx_p);
}

/* ---- Splits ---- */

/* A split's parent, or NULL with *status_p (logged): an invalid parent,
 * or a call from an active-message handler. */
static struct gk_team *split_parent(const char *name, gk_team_t parent, int *status_p)
{
    struct gk_team *p = gk__team_get_arg(name, "parent", parent);
    *status_p = p == NULL ? GK_ERR_INVALID_ARG : gk__progress_check_not_in_handler(name);
    return *status_p == GK_OK ? p : NULL;
}

/* What each parent PE tells the others in a split. */
struct split_record {
    int64_t color, key;
    uint64_t free_mask;
    uint64_t calls[GK_TEAM_MAX];
};

/* The slots this PE can give a new team: free, and with their pages. */
static uint64_t free_mask_mine(void)
{
    uint64_t mask = 0;
    for (int s = 2; s < GK_TEAM_MAX; s++) {
        if (slot_team[s] != NULL)
            continue;
        if (!slot_ready[s])
            slot_ready[s] = gk__seg_populate(gk__team_scratch_mine(s),
                                             gk__team_scratch_size()) == GK_OK &&
                            gk__hb_populate(s) == GK_OK;
        if (slot_ready[s])
            mask |= (uint64_t)1 << s;
    }
    return mask;
}

/* Gathers the parent's records (a call of kind SPLIT whose fields are
 * `fields`), the slots free everywhere and each slot's last call. */
static int split_gather(const char *name, struct gk_team *parent, int64_t color, int64_t key,
                        const uint64_t fields[3], const char *const what[3], int status,
                        struct split_record **all_p,
                        uint64_t *mask_p, uint64_t calls[GK_TEAM_MAX])
{
    struct split_record mine = {color, key, free_mask_mine(), {0}};
    memcpy(mine.calls, slot_calls, sizeof(mine.calls));
    struct split_record *all = malloc((size_t)parent->n * sizeof(*all));
    if (all == NULL) {
        gk__error("%s: no memory for the parent's %d records", name, parent->n);
        status = GK_ERR_NOMEM; /* still takes part, so the others hear */
        static struct split_record spare[1];
        int r = gk__team_gather(name, GK__TEAM_SPLIT, parent, spare, &mine, 0, fields, what,
                                status);
        return r != GK_OK ? r : status;
    }
    int r = gk__team_gather(name, GK__TEAM_SPLIT, parent, all, &mine, sizeof(mine), fields,
                            what, status);
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
    gk__team_slot_set(&slot_team[slot], t);
    *team_p = t;
    return GK_OK;
}

static int no_slot(const char *name)
{
    gk__error("%s: no team slot is free on every PE of the parent (GK_TEAM_MAX is %d, "
              "the predefined teams included; or /dev/shm had no room for one); destroy "
              "a team first",
              name, GK_TEAM_MAX);
    return GK_ERR_NOMEM;
}

int gk_team_split_strided(gk_team_t parent, int start, int stride, int size, gk_team_t *team_p)
{
    static const char name[] = "gk_team_split_strided";
    if (team_p == NULL)
        return gk__rt_report_null(name, "team_p", 1);
    int status;
    struct gk_team *p = split_parent(name, parent, &status);
    if (p == NULL)
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
    static const char *const what[3] = {"starts", "sizes", "strides"};
    int r = split_gather(name, p, 0, 0, fields, what, status, &all, &mask, calls);
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
    gk_team_t made;
    r = team_make(name, p, members, size, slot, calls[slot], &made);
    free(members);
    if (r == GK_OK)
        *team_p = made;
    return r;
}

int gk_team_split_2d(gk_team_t parent, int xrange, gk_team_t *xteam_p, gk_team_t *yteam_p)
{
    static const char name[] = "gk_team_split_2d";
    if (xteam_p == NULL)
        return gk__rt_report_null(name, "xteam_p", 1);
    if (yteam_p == NULL)
        return gk__rt_report_null(name, "yteam_p", 1);
    int status;
    struct gk_team *p = split_parent(name, parent, &status);
    if (p == NULL)
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
    static const char *const what[3] = {NULL, "x ranges", "kinds of split"};
    int r = split_gather(name, p, 0, 0, fields, what, status, &all, &mask, calls);
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
    gk_team_t xt = GK_TEAM_INVALID, yt = GK_TEAM_INVALID;
    for (int i = y * xrange; i < n && i < (y + 1) * xrange; i++)
        members[k++] = i;
    r = team_make(name, p, members, k, xslot, calls[xslot], &xt);
    k = 0;
    for (int i = x; i < n; i += xrange)
        members[k++] = i;
    if (r == GK_OK)
        r = team_make(name, p, members, k, yslot, calls[yslot], &yt);
    free(members);
    if (r == GK_OK) {
        *xteam_p = xt;
        *yteam_p = yt;
    } else if (xt != GK_TEAM_INVALID) {
        gk_team_t undo = xt; /* the row made, the column not: no half result */
        gk__team_slot_set(&slot_team[xslot], NULL);
        team_free_arrays(undo);
        free(undo);
    }
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
    int status;
    struct gk_team *p = split_parent(name, parent, &status);
    if (p == NULL)
        return status;
    if (color < 0 && color != GK_TEAM_UNDEFINED) {
        gk__error("%s: colour %d is negative (GK_TEAM_UNDEFINED joins no team)", name, color);
        status = GK_ERR_INVALID_ARG;
    }
    const uint64_t fields[3] = {0, 0, 3};
    struct split_record *all = NULL;
    uint64_t mask, calls[GK_TEAM_MAX];
    static const char *const what[3] = {NULL, NULL, "kinds of split"};
    int r = split_gather(name, p, color, key, fields, what, status, &all, &mask, calls);
    if (r != GK_OK)
        return r;
    int slot = slot_take(&mask);
    if (slot < 0) {
        free(all);
        return no_slot(name);
    }
    if (color == GK_TEAM_UNDEFINED) {
        free(all);
        *team_p = GK_TEAM_INVALID;
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
    gk_team_t made;
    r = team_make(name, p, members, n, slot, calls[slot], &made);
    free(all);
    free(cm);
    free(members);
    if (r == GK_OK)
        *team_p = made;
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
    /* Its blocks would outlive the only call that frees them: refused, on
     * every member alike (the blocks are the same on each). */
    if (t->heap_blocks != 0) {
        gk__error("%s: the team still holds %zu symmetric block%s from gk_team_malloc: "
                  "free them with gk_team_free first; the team is left as it was",
                  name, t->heap_blocks, t->heap_blocks == 1 ? "" : "s");
        status = GK_ERR_INVALID_ARG;
    }
    /* Calls still in flight run first: the destroy's own gather queues
     * behind them, and their handles stay valid (a finished call's state
     * holds no pointer its handle follows to the team). */
    const uint64_t fields[3] = {0, 0, 0};
    uint64_t dummy = 0, *all = malloc((size_t)t->n * sizeof(uint64_t));
    int r = all == NULL ? GK_ERR_NOMEM
                        : gk__team_gather(name, GK__TEAM_DESTROY, t, all, &dummy, sizeof(dummy),
                                          fields, NULL, status);
    free(all);
    if (r != GK_OK)
        return r;
    /* Our messages to the members have landed before the slot is reused. */
    r = gk__path_quiet();
    slot_calls[t->slot] = t->calls;
    gk__team_slot_set(&slot_team[t->slot], NULL);
    team_free_arrays(t);
    t->magic = 0;
    free(t);
    *team_p = GK_TEAM_INVALID;
    return r;
}

/* ---- Active sets ---- */

/*
 * An active set of OpenSHMEM's deprecated collectives (PE_start,
 * 2^logPE_stride, PE_size, pSync) is called by its members only, so it
 * cannot be split from a parent: each member builds the team alone, from
 * the triplet they share, on GK__TEAM_ASET_SLOT, the slot every active
 * set uses and no split takes. What a split learns from its parent's
 * gather, the call number to go on from (engine.h: on a slot the numbers
 * must only grow for its members, or a stale stamp looks new), the
 * members agree on as each call opens, on the caller's pSync:
 *
 *   open: a dissemination over the members (in round k member i sends to
 *   member i + 2^k what it has heard of) of the largest call number each
 *   has used on the slot; the team's calls go on from the largest of all,
 *   so they grow on every member, whichever sets it was in before. And as
 *   a member leaves the rounds only once every member has entered them,
 *   no message of the call reaches a member that is still in an earlier
 *   call on the slot (with another set): the engine's rule that a box is
 *   read before it is used again holds across sets too.
 *   close: the member keeps the team's last call number.
 *
 * Round k's word is sync[GK__TEAM_ASET_ROUNDS + k]: its sender sets it to
 * the number + 1 (never 0); its receiver waits for it, reads it and sets
 * it back to 0. A word has one sender, whose next value for it cannot
 * come before the receiver cleared it: each open is followed by a
 * collective on the team, whose agreement rounds end on the sender only
 * once every member has started it, so has left the open.
 *
 * gk__team_aset_barrier() is a barrier on the other words, sync[k], with
 * nothing to agree on: in round k member i adds 1 to sync[k] on member
 * i + 2^k, waits for its own sync[k] to reach 1 and takes the 1 back. Word
 * k has one writer, which adds in order, so a count that comes early (its
 * writer in its next barrier already) waits there for that barrier.
 * Either way the words end at 0, as OpenSHMEM asks of a pSync.
 */
static struct gk_team aset_team;     /* the last set built, kept for its next call */
static int aset_start, aset_stride; /* its triplet (aset_size 0: none built) */
static int aset_size;
static uint64_t aset_calls; /* the largest call number this PE used on the slot */

static void aset_forget(void)
{
    gk__team_slot_set(&slot_team[GK__TEAM_ASET_SLOT], NULL);
    if (aset_size > 0)
        team_free_arrays(&aset_team);
    memset(&aset_team, 0, sizeof(aset_team));
    aset_size = 0;
    aset_calls = 0;
}

/* This PE's number in the set, or -1 after a message. */
static int aset_me(const char *name, int start, int stride, int size)
{
    long last = (long)start + (long)stride * (size - 1);
    int d = gk__rt.my_pe - start;
    if (size < 1 || size > 1 << GK__TEAM_ASET_ROUNDS || stride < 1 || start < 0 ||
        last >= gk__rt.n_pes) {
        gk__error("%s: the active set (start %d, stride %d, size %d) is not a set of at "
                  "most %d of PEs 0 to %d",
                  name, start, stride, size, 1 << GK__TEAM_ASET_ROUNDS, gk__rt.n_pes - 1);
        return -1;
    }
    if (d < 0 || d % stride != 0 || d / stride >= size) {
        gk__error("%s: PE %d is not in the active set (start %d, stride %d, size %d)", name,
                  gk__rt.my_pe, start, stride, size);
        return -1;
    }
    return d / stride;
}

static int aset_word_set(const void *arg)
{
    return __atomic_load_n((const uint64_t *)arg, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Round k of a dissemination over the set on `word` of the caller's sync:
 * `op` of `value` on the member 2^k places ahead, then a wait for this
 * PE's own word to be non-zero; *got_p is what it holds then, *my_off_p
 * its segment offset.
 */
static int aset_round(const char *name, int me, int n, int start, int stride, int k,
                      uint64_t *word, enum gk__amo_op op, uint64_t value, size_t *my_off_p,
                      uint64_t *got_p)
{
    int to = start + stride * (int)((me + (1L << k)) % n);
    size_t off = 0;
    int status = gk__rt_check_word(name, to, word, sizeof(*word), &off);
    if (status == GK_OK)
        status = gk__rt_check_word(name, gk__rt.my_pe, word, sizeof(*word), my_off_p);
    if (status != GK_OK)
        return status;
    gk__path_flush_wakes();
    status = gk__path_flag64(to, op, off, value);
    if (status == GK_OK && !aset_word_set(word))
        status = gk__path_wait_own(*my_off_p, aset_word_set, word);
    if (status == GK_OK)
        *got_p = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    return status;
}

/* What an active-set routine may not do: run before gk_init or in an
 * active-message handler, or name a set this PE is not in. */
static int aset_check(const char *name, int start, int stride, int size, int *me_p)
{
    int status = gk__rt.initialized ? gk__progress_check_not_in_handler(name)
                                    : gk__rt_report_pe(name, 0);
    if (status != GK_OK)
        return status;
    *me_p = aset_me(name, start, stride, size);
    return *me_p < 0 ? GK_ERR_INVALID_ARG : GK_OK;
}

int gk__team_aset_barrier(const char *name, int start, int stride, int size, uint64_t *sync)
{
    int me = 0;
    int status = aset_check(name, start, stride, size, &me);
    for (int k = 0; status == GK_OK && (1L << k) < size; k++) {
        size_t my_off;
        uint64_t got;
        status = aset_round(name, me, size, start, stride, k, &sync[k], GK__AMO_FETCH_ADD, 1,
                            &my_off, &got);
        if (status == GK_OK)
            status = gk__path_atomic64(gk__rt.my_pe, GK__AMO_FETCH_ADD, my_off, UINT64_MAX, 0,
                                       NULL);
    }
    if (status != GK_OK)
        gk__error("%s: the barrier over the active set's %d PEs failed: %s", name, size,
                  gk_strerror(status));
    return status;
}

int gk__team_aset_open(const char *name, int start, int stride, int size, uint64_t *sync,
                       gk_team_t *team_p)
{
    *team_p = GK_TEAM_INVALID;
    int me = 0;
    int status = aset_check(name, start, stride, size, &me);
    if (status != GK_OK)
        return status;
    if (aset_size == 0 || aset_start != start || aset_stride != stride || aset_size != size) {
        int *pes = malloc((size_t)size * sizeof(int));
        if (pes == NULL) {
            gk__error("%s: no memory for an active set of %d PEs", name, size);
            return GK_ERR_NOMEM;
        }
        for (int i = 0; i < size; i++)
            pes[i] = start + stride * i;
        if (aset_size > 0)
            team_free_arrays(&aset_team);
        aset_size = 0;
        status = team_build(&aset_team, pes, size, me, GK__TEAM_ASET_SLOT, 0);
        free(pes);
        if (status != GK_OK)
            return status;
        aset_start = start;
        aset_stride = stride;
        aset_size = size;
    }
    /* The slot's pages, before any member may write to them (a member
     * that cannot take them ends the job; the others wait for it). */
    if (!slot_ready[GK__TEAM_ASET_SLOT]) {
        if (gk__seg_populate(gk__team_scratch_mine(GK__TEAM_ASET_SLOT),
                             gk__team_scratch_size()) != GK_OK) {
            gk__error("%s: no room in /dev/shm for the active sets' team slot (%zu bytes)",
                      name, gk__team_scratch_size());
            return GK_ERR_NOMEM;
        }
        slot_ready[GK__TEAM_ASET_SLOT] = 1;
    }
    /* The call number: the largest any member has used, by dissemination. */
    uint64_t calls = aset_calls;
    for (int k = 0; status == GK_OK && (1L << k) < size; k++) {
        size_t my_off;
        uint64_t got = 0;
        status = aset_round(name, me, size, start, stride, k,
                            &sync[GK__TEAM_ASET_ROUNDS + k], GK__AMO_SET, calls + 1, &my_off,
                            &got);
        if (status == GK_OK)
            status = gk__path_atomic64(gk__rt.my_pe, GK__AMO_SET, my_off, 0, 0, NULL);
        if (status == GK_OK && got - 1 > calls)
            calls = got - 1;
    }
    if (status != GK_OK) {
        gk__error("%s: the active set's %d PEs could not agree on a call number: %s", name,
                  size, gk_strerror(status));
        return status;
    }
    aset_team.calls = calls;
    aset_team.broken = 0;
    gk__team_slot_set(&slot_team[GK__TEAM_ASET_SLOT], &aset_team);
    *team_p = &aset_team;
    return GK_OK;
}

void gk__team_aset_close(gk_team_t *team_p)
{
    if (*team_p == &aset_team) {
        if (aset_team.calls > aset_calls)
            aset_calls = aset_team.calls;
        gk__team_slot_set(&slot_team[GK__TEAM_ASET_SLOT], NULL);
    }
    *team_p = GK_TEAM_INVALID;
}

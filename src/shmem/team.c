/*
 * team.c: teams (spec "Team Management Routines"): SHMEM_TEAM_WORLD,
 * SHMEM_TEAM_SHARED, split_strided, split_2d, translate_pe, my_pe, n_pes,
 * get_config, destroy and team_ptr, and the pool of symmetric sync words
 * the teams' collectives run on.
 *
 * The pool: TEAM_SLOTS slots of TEAM_SYNC_WORDS words, allocated by
 * shmem_init() with gk_calloc() (collective over every PE, which a split
 * over a parent team cannot be). Slot 0 is the world's, slot 1 the shared
 * team's. Each PE keeps a mask of the slots its teams do not use; a split
 * AND-reduces the masks over the parent team, so every parent PE sees the
 * same mask and picks the same lowest free slot(s) for the new team(s).
 * Teams that are disjoint may share a slot index: the words are each
 * PE's own. A slot is clean again once a team's last collective returns
 * (coll.c: every count a PE receives, it takes back itself), so destroy
 * only returns it to the mask.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "shmem/shmem_int.h"

#define TEAM_SLOTS 64
#define TEAM_SLOT_WORLD 0
#define TEAM_SLOT_SHARED 1

struct shmem_team shmem__team_world = {.is_world = 1, .slot = -1};
struct shmem_team shmem__team_shared = {.slot = -1};

static uint64_t *team_pool;     /* TEAM_SLOTS * TEAM_SYNC_WORDS, symmetric */
static uint64_t team_free_mask; /* bit s: slot s is free on this PE */
/* This PE's split team in each slot: a handle is looked up here before it
 * is followed, so a destroyed or stray one is reported, not read. */
static struct shmem_team *team_in_slot[TEAM_SLOTS];

/* Whether team is a live team of this PE (predefined, or split and not
 * destroyed): compares the handle only. */
static int team_is_live(shmem_team_t team)
{
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        return 1;
    for (int s = 0; s < TEAM_SLOTS; s++)
        if (team_in_slot[s] == team && team != NULL)
            return 1;
    return 0;
}

static uint64_t *team_slot_words(int slot)
{
    return team_pool + (size_t)slot * TEAM_SYNC_WORDS;
}

/*
 * SHMEM_TEAM_SHARED is the PEs whose heaps this PE maps (gk_ptr() gives a
 * pointer): the PEs of this node, or this PE alone where the node's PEs
 * are reached through the network (GK_NET_INDIRECT=1).
 */
static void team_shared_init(const char *routine)
{
    int npes = gk_n_pes(), me = gk_my_pe(), n = 0;
    int *pes = malloc((size_t)npes * sizeof(int));
    if (pes == NULL) {
        gk__error("%s: no memory for SHMEM_TEAM_SHARED's %d PEs", routine, npes);
        gk__shmem_fail(routine, GK_ERR_NOMEM);
    }
    for (int pe = 0; pe < npes; pe++) {
        if (pe == me || gk_ptr(team_pool, pe) != NULL) {
            if (pe == me)
                shmem__team_shared.me = n;
            pes[n++] = pe;
        }
    }
    shmem__team_shared.pes = pes;
    shmem__team_shared.n = n;
    shmem__team_shared.slot = TEAM_SLOT_SHARED;
    shmem__team_shared.sync = team_slot_words(TEAM_SLOT_SHARED);
}

void gk__shmem_teams_init(const char *routine)
{
    if (team_pool != NULL)
        return; /* shmem_init() again, or after start_pes() */
    team_pool = gk_calloc((size_t)TEAM_SLOTS * TEAM_SYNC_WORDS, sizeof(uint64_t));
    if (team_pool == NULL)
        gk__shmem_fail(routine, GK_ERR_NOMEM);
    team_free_mask = ~(uint64_t)0 & ~((uint64_t)1 << TEAM_SLOT_WORLD) &
                     ~((uint64_t)1 << TEAM_SLOT_SHARED);
    shmem__team_world.n = gk_n_pes();
    shmem__team_world.me = gk_my_pe();
    shmem__team_world.start = 0;
    shmem__team_world.stride = 1;
    shmem__team_world.slot = TEAM_SLOT_WORLD;
    shmem__team_world.sync = team_slot_words(TEAM_SLOT_WORLD);
    team_shared_init(routine);
}

/*
 * Teams the program did not destroy stay allocated: their handles are
 * invalid after shmem_finalize() all the same. The pool goes with the heap
 * in gk_finalize(): freeing it here would be one more collective call at
 * exit (shmem_finalize runs from atexit too).
 */
void gk__shmem_teams_fini(void)
{
    if (team_pool == NULL)
        return;
    free(shmem__team_shared.pes);
    shmem__team_shared = (struct shmem_team){.slot = -1};
    shmem__team_world = (struct shmem_team){.is_world = 1, .slot = -1};
    team_pool = NULL;
}

int gk__shmem_team_check(const char *routine, shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID) {
        gk__error("%s: the team is SHMEM_TEAM_INVALID", routine);
        return -1;
    }
    if (!team_is_live(team)) {
        gk__error("%s: team %p is not a live team (destroyed, or never made by a split)",
                  routine, (void *)team);
        return -1;
    }
    if (team->n <= 0 || team->sync == NULL) {
        gk__error("%s: team %p is not valid (was shmem_init() called?)", routine,
                  (void *)team);
        return -1;
    }
    return 0;
}

/* Team PE number of world PE `pe` in `team`, or -1. */
static int team_index_of(const struct shmem_team *team, int pe)
{
    if (team->pes != NULL) {
        for (int i = 0; i < team->n; i++)
            if (team->pes[i] == pe)
                return i;
        return -1;
    }
    int d = pe - team->start;
    if (team->stride == 0)
        return d == 0 ? 0 : -1;
    if (d % team->stride != 0 || d / team->stride < 0 || d / team->stride >= team->n)
        return -1;
    return d / team->stride;
}

SHMEM_DEFINE(int, team_my_pe, (shmem_team_t team))
{
    if (!team_is_live(team))
        return -1;
    if (team->is_world && team->n == 0)
        return gk_my_pe(); /* a gk_init() program before shmem_init() */
    return team->n > 0 ? team->me : -1;
}

SHMEM_DEFINE(int, team_n_pes, (shmem_team_t team))
{
    if (!team_is_live(team))
        return -1;
    if (team->is_world && team->n == 0)
        return gk_n_pes();
    return team->n > 0 ? team->n : -1;
}

SHMEM_DEFINE(int, team_translate_pe, (shmem_team_t src_team, int src_pe, shmem_team_t dest_team))
{
    if (!team_is_live(src_team) || !team_is_live(dest_team) || src_team->n <= 0 ||
        dest_team->n <= 0 || src_pe < 0 || src_pe >= src_team->n)
        return -1;
    return team_index_of(dest_team, gk__shmem_team_world_pe(src_team, src_pe));
}

SHMEM_DEFINE(int, team_get_config, (shmem_team_t team, long config_mask,
                                    shmem_team_config_t *config))
{
    if (!team_is_live(team))
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->num_contexts;
    return 0;
}

SHMEM_DEFINE(void *, team_ptr, (shmem_team_t team, const void *dest, int pe))
{
    if (!team_is_live(team) || team->n <= 0 || pe < 0 || pe >= team->n)
        return NULL;
    return gk_ptr(dest, gk__shmem_team_world_pe(team, pe));
}

/* The slots free on every PE of the parent team (the same mask on each),
 * or 0 after a message. */
static uint64_t team_agree_free(const char *routine, shmem_team_t parent)
{
    uint64_t mask = team_free_mask;
    if (gk__shmem_team_agree(routine, parent, GK_OP_BAND, &mask) != GK_OK) {
        gk__error("%s: the parent team's PEs could not agree on a free team slot", routine);
        return 0;
    }
    return mask;
}

/* Whether a PE of the parent team failed (ran out of memory). */
static int team_any_failed(const char *routine, shmem_team_t parent, int failed)
{
    uint64_t any = (uint64_t)failed;
    if (gk__shmem_team_agree(routine, parent, GK_OP_MAX, &any) != GK_OK)
        return 1;
    return any != 0;
}

/* The team of parent PEs start + i * stride, i < size, if this PE is one
 * of them (else *team_p = SHMEM_TEAM_INVALID); a native status. */
static int team_make(const char *routine, shmem_team_t parent, int start, int stride,
                     int size, int slot, const shmem_team_config_t *config, long mask,
                     shmem_team_t *team_p)
{
    *team_p = SHMEM_TEAM_INVALID;
    int me = -1;
    for (int i = 0; i < size; i++)
        if (start + i * stride == parent->me)
            me = i;
    if (me < 0)
        return GK_OK;
    struct shmem_team *team = calloc(1, sizeof(*team));
    if (team == NULL)
        goto err;
    team->n = size;
    team->me = me;
    team->slot = slot;
    team->sync = team_slot_words(slot);
    if (config != NULL && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        team->num_contexts = config->num_contexts;
    if (parent->pes == NULL) {
        team->start = gk__shmem_team_world_pe(parent, start);
        team->stride = stride * parent->stride;
    } else {
        team->pes = malloc((size_t)size * sizeof(int));
        if (team->pes == NULL)
            goto err_free_team;
        for (int i = 0; i < size; i++)
            team->pes[i] = parent->pes[start + i * stride];
    }
    team_free_mask &= ~((uint64_t)1 << slot);
    team_in_slot[slot] = team;
    *team_p = team;
    return GK_OK;

err_free_team:
    free(team);
err:
    gk__error("%s: no memory for a team of %d PEs", routine, size);
    return GK_ERR_NOMEM;
}

static int team_lowest_slot(uint64_t mask)
{
    return mask == 0 ? -1 : __builtin_ctzll(mask);
}

static int team_parent_check(const char *routine, shmem_team_t parent)
{
    if (parent == SHMEM_TEAM_INVALID) {
        gk__error("%s: the parent team is SHMEM_TEAM_INVALID", routine);
        return -1;
    }
    return gk__shmem_team_check(routine, parent);
}

SHMEM_DEFINE(int, team_split_strided,
             (shmem_team_t parent_team, int start, int stride, int size,
              const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team))
{
    static const char r[] = "shmem_team_split_strided";
    *new_team = SHMEM_TEAM_INVALID;
    if (team_parent_check(r, parent_team) != 0)
        return -1;
    int n = parent_team->n;
    /* Every parent PE passes the same triplet, so every one of them takes
     * the same way out here, before any communication. */
    long last = (long)start + (long)stride * (size - 1);
    if (size < 1 || start < 0 || start >= n || last < 0 || last >= n ||
        (stride == 0 && size != 1)) {
        gk__error("%s: (start %d, stride %d, size %d) is not a set of PEs of the "
                  "parent team (PEs 0 to %d)",
                  r, start, stride, size, n - 1);
        return -1;
    }
    int slot = team_lowest_slot(team_agree_free(r, parent_team));
    if (slot < 0) {
        gk__error("%s: all %d team slots are in use (destroy teams no longer needed)", r,
                  TEAM_SLOTS);
        return -1;
    }
    int status = team_make(r, parent_team, start, stride, size, slot, config, config_mask,
                           new_team);
    /* One PE out of memory: every parent PE must see the failure. */
    if (team_any_failed(r, parent_team, status != GK_OK)) {
        pshmem_team_destroy(*new_team);
        *new_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    return 0;
}

/*
 * Parent PE p is at (x, y) = (p % xrange, p / xrange): the x-axis team is
 * this PE's row (parent PEs y*xrange .. y*xrange + xrange - 1, the last
 * row possibly shorter), the y-axis team its column (x, x + xrange, ...).
 * Rows are disjoint, and so are columns: all rows share one slot, all
 * columns another.
 */
SHMEM_DEFINE(int, team_split_2d,
             (shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
              long xaxis_mask, shmem_team_t *xaxis_team,
              const shmem_team_config_t *yaxis_config, long yaxis_mask,
              shmem_team_t *yaxis_team))
{
    static const char r[] = "shmem_team_split_2d";
    *xaxis_team = SHMEM_TEAM_INVALID;
    *yaxis_team = SHMEM_TEAM_INVALID;
    if (team_parent_check(r, parent_team) != 0)
        return -1;
    if (xrange < 1) {
        gk__error("%s: xrange %d is not positive", r, xrange);
        return -1;
    }
    int n = parent_team->n;
    if (xrange > n)
        xrange = n;
    uint64_t mask = team_agree_free(r, parent_team);
    int xslot = team_lowest_slot(mask);
    int yslot = xslot < 0 ? -1 : team_lowest_slot(mask & ~((uint64_t)1 << xslot));
    if (yslot < 0) {
        gk__error("%s: fewer than 2 of the %d team slots are free (destroy teams no "
                  "longer needed)",
                  r, TEAM_SLOTS);
        return -1;
    }
    int x = parent_team->me % xrange, y = parent_team->me / xrange;
    int row = y * xrange;
    int row_size = n - row < xrange ? n - row : xrange;
    int col_size = (n - 1 - x) / xrange + 1;
    int status = team_make(r, parent_team, row, 1, row_size, xslot, xaxis_config,
                           xaxis_mask, xaxis_team);
    if (status == GK_OK)
        status = team_make(r, parent_team, x, xrange, col_size, yslot, yaxis_config,
                           yaxis_mask, yaxis_team);
    if (team_any_failed(r, parent_team, status != GK_OK)) {
        pshmem_team_destroy(*xaxis_team);
        pshmem_team_destroy(*yaxis_team);
        *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    return 0;
}

/* Collective, but nothing to agree on: this PE's sync words are clean once
 * its last collective on the team returned (see above). */
SHMEM_DEFINE(void, team_destroy, (shmem_team_t team))
{
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED) {
        gk__error("shmem_team_destroy: a predefined team cannot be destroyed");
        gk__shmem_fail("shmem_team_destroy", GK_ERR_INVALID_ARG);
    }
    if (!team_is_live(team)) {
        gk__error("shmem_team_destroy: team %p is not a live team (destroyed already, or "
                  "never made by a split)",
                  (void *)team);
        gk__shmem_fail("shmem_team_destroy", GK_ERR_INVALID_ARG);
    }
    gk__shmem_ctx_destroy_team(team);
    team_in_slot[team->slot] = NULL;
    team_free_mask |= (uint64_t)1 << team->slot;
    free(team->pes);
    free(team);
}

/*
 * team.c: teams (spec "Team Management Routines") on gasket's teams:
 * SHMEM_TEAM_WORLD is GK_TEAM_WORLD, SHMEM_TEAM_SHARED GK_TEAM_NODE (the
 * PEs whose heaps this PE maps: those of its node, or itself alone where
 * they are reached through the network, GK_NET_INDIRECT=1), and
 * shmem_team_split_strided and _split_2d are gk_team_split_strided and
 * gk_team_split_2d. A handle wraps the native team with what the routines
 * read without a call (shmem_int.h): size, this PE's number, the world PE
 * of each team PE, and the config.
 *
 * What differs from the native calls: OpenSHMEM's messages and return
 * values (-1, SHMEM_TEAM_INVALID), a stride of 0 for a team of one PE,
 * and handles checked against this PE's live teams before they are
 * followed, so that a destroyed or stray one is reported, not read.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "shmem/shmem_int.h"

struct shmem_team shmem__team_world = {.gk = GK_TEAM_WORLD};
struct shmem_team shmem__team_shared = {.gk = GK_TEAM_NODE};

/* This PE's split teams: at most GK_TEAM_MAX teams exist on a PE. */
static struct shmem_team *team_live[GK_TEAM_MAX];

/* Whether team is a live team of this PE (predefined, or split and not
 * destroyed): compares the handle only. */
static int team_is_live(shmem_team_t team)
{
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        return 1;
    for (int i = 0; i < GK_TEAM_MAX; i++)
        if (team_live[i] == team && team != NULL)
            return 1;
    return 0;
}

/* A predefined team's fields wait for shmem_init(); a program that called
 * only gk_init() has the native team already. */
static int team_n(shmem_team_t team)
{
    return team->n > 0 ? team->n : gk_team_n_pes(team->gk);
}

static int team_me(shmem_team_t team)
{
    return team->n > 0 ? team->me : gk_team_my_pe(team->gk);
}

static int team_world_pe(shmem_team_t team, int i)
{
    return team->n > 0 ? gk__shmem_team_world_pe(team, i)
                       : gk_team_translate_pe(team->gk, i, GK_TEAM_WORLD);
}

void gk__shmem_teams_init(const char *routine)
{
    if (shmem__team_shared.n > 0)
        return; /* shmem_init() again, or after start_pes() */
    int n = gk_team_n_pes(GK_TEAM_NODE);
    int *pes = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (pes == NULL) {
        gk__error("%s: no memory for SHMEM_TEAM_SHARED's %d PEs", routine, n);
        gk__shmem_fail(routine, GK_ERR_NOMEM);
    }
    for (int i = 0; i < n; i++)
        pes[i] = gk_team_translate_pe(GK_TEAM_NODE, i, GK_TEAM_WORLD);
    shmem__team_world.n = gk_n_pes();
    shmem__team_world.me = gk_my_pe();
    shmem__team_shared.pes = pes;
    shmem__team_shared.me = gk_team_my_pe(GK_TEAM_NODE);
    shmem__team_shared.n = n;
}

/*
 * The split teams the program did not destroy are freed with their
 * handles (invalid after shmem_finalize() all the same); gk_finalize()
 * frees their native teams.
 */
void gk__shmem_teams_fini(void)
{
    for (int i = 0; i < GK_TEAM_MAX; i++) {
        if (team_live[i] != NULL) {
            free(team_live[i]->pes);
            free(team_live[i]);
            team_live[i] = NULL;
        }
    }
    free(shmem__team_shared.pes);
    shmem__team_shared = (struct shmem_team){.gk = GK_TEAM_NODE};
    shmem__team_world = (struct shmem_team){.gk = GK_TEAM_WORLD};
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
    return 0;
}

SHMEM_DEFINE(int, team_my_pe, (shmem_team_t team))
{
    return team_is_live(team) ? team_me(team) : -1;
}

SHMEM_DEFINE(int, team_n_pes, (shmem_team_t team))
{
    return team_is_live(team) ? team_n(team) : -1;
}

SHMEM_DEFINE(int, team_translate_pe, (shmem_team_t src_team, int src_pe, shmem_team_t dest_team))
{
    if (!team_is_live(src_team) || !team_is_live(dest_team))
        return -1;
    return gk_team_translate_pe(src_team->gk, src_pe, dest_team->gk);
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
    if (!team_is_live(team) || pe < 0 || pe >= team_n(team))
        return NULL;
    return pshmem_ptr(dest, team_world_pe(team, pe));
}

/* A team of n PEs, before the split that makes it: every PE of the parent
 * is in the split by then, and cannot be told of a failure here, so no
 * memory ends the job. */
static struct shmem_team *team_alloc(const char *routine, int n)
{
    struct shmem_team *team = calloc(1, sizeof(*team));
    int *pes = malloc((size_t)n * sizeof(int));
    if (team == NULL || pes == NULL) {
        gk__error("%s: no memory for a team of %d PEs", routine, n);
        gk__shmem_fail(routine, GK_ERR_NOMEM);
    }
    team->pes = pes;
    return team;
}

static void team_free(struct shmem_team *team)
{
    free(team->pes);
    free(team);
}

/*
 * Fills in team, made of the parent's PEs start + i * stride, as the
 * native team gk (GK_TEAM_INVALID: this PE is not in it; team is freed
 * and *team_p stays SHMEM_TEAM_INVALID).
 */
static void team_made(shmem_team_t parent, struct shmem_team *team, gk_team_t gk, int start,
                      int stride, int n, const shmem_team_config_t *config, long mask,
                      shmem_team_t *team_p)
{
    if (gk == GK_TEAM_INVALID) {
        team_free(team);
        return;
    }
    team->gk = gk;
    team->n = n;
    team->me = gk_team_my_pe(gk);
    for (int i = 0; i < n; i++)
        team->pes[i] = team_world_pe(parent, start + i * stride);
    if (config != NULL && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        team->num_contexts = config->num_contexts;
    for (int i = 0; i < GK_TEAM_MAX; i++) {
        if (team_live[i] == NULL) {
            team_live[i] = team;
            break;
        }
    }
    *team_p = team;
}

/* A split of SHMEM_TEAM_INVALID is no misuse: the specification says it
 * makes no team and leaves the new handles SHMEM_TEAM_INVALID (a PE left
 * out of one split may pass its handle on to the next), so it returns
 * non-zero without a message. */
static int team_parent_check(const char *routine, shmem_team_t parent)
{
    if (parent == SHMEM_TEAM_INVALID)
        return -1;
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
    int n = team_n(parent_team);
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
    if (stride == 0)
        stride = 1; /* one PE: OpenSHMEM lets the stride be anything */
    struct shmem_team *team = team_alloc(r, size);
    gk_team_t gk = GK_TEAM_INVALID;
    if (gk_team_split_strided(parent_team->gk, start, stride, size, &gk) != GK_OK) {
        team_free(team);
        return -1; /* on every parent PE, which gasket has told why */
    }
    team_made(parent_team, team, gk, start, stride, size, config, config_mask, new_team);
    return 0;
}

/*
 * Parent PE p is at (x, y) = (p % xrange, p / xrange): the x-axis team is
 * this PE's row (parent PEs y*xrange .. y*xrange + xrange - 1, the last
 * row possibly shorter), the y-axis team its column (x, x + xrange, ...).
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
    int n = team_n(parent_team), me = team_me(parent_team);
    if (xrange > n)
        xrange = n;
    int x = me % xrange, row = me / xrange * xrange;
    int row_size = n - row < xrange ? n - row : xrange;
    int col_size = (n - 1 - x) / xrange + 1;
    struct shmem_team *xt = team_alloc(r, row_size), *yt = team_alloc(r, col_size);
    gk_team_t xgk = GK_TEAM_INVALID, ygk = GK_TEAM_INVALID;
    if (gk_team_split_2d(parent_team->gk, xrange, &xgk, &ygk) != GK_OK) {
        team_free(xt);
        team_free(yt);
        return -1;
    }
    team_made(parent_team, xt, xgk, row, 1, row_size, xaxis_config, xaxis_mask, xaxis_team);
    team_made(parent_team, yt, ygk, x, xrange, col_size, yaxis_config, yaxis_mask,
              yaxis_team);
    return 0;
}

/* Collective over the team, as gk_team_destroy() is. */
SHMEM_DEFINE(void, team_destroy, (shmem_team_t team))
{
    static const char r[] = "shmem_team_destroy";
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED) {
        gk__error("%s: a predefined team cannot be destroyed", r);
        gk__shmem_fail(r, GK_ERR_INVALID_ARG);
    }
    if (!team_is_live(team)) {
        gk__error("%s: team %p is not a live team (destroyed already, or never made by a "
                  "split)",
                  r, (void *)team);
        gk__shmem_fail(r, GK_ERR_INVALID_ARG);
    }
    gk__shmem_ctx_destroy_team(team);
    SHMEM_CHECK(r, gk_team_destroy(&team->gk));
    for (int i = 0; i < GK_TEAM_MAX; i++)
        if (team_live[i] == team)
            team_live[i] = NULL;
    team_free(team);
}

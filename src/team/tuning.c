/*
 * tuning.c: the environment variables that force an algorithm of the team
 * collectives (docs/COLLECTIVES.md), read once at gk_init, and the choices
 * between the flat algorithms and the hierarchical ones.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/log.h"
#include "core/path.h"
#include "core/runtime.h"
#include "team/coll.h"

struct gk__team_tuning gk__team_tuning;

struct algo_name {
    const char *name;
    int value;
};

/* Reads variable `var` (its value `text`) into *value_p from `names`
 * (NULL-terminated); unset or "auto" leaves the automatic choice. */
static int tuning_read(const char *var, const char *text, const struct algo_name *names,
                       int *value_p)
{
    *value_p = 0;
    if (text == NULL || *text == '\0' || strcasecmp(text, "auto") == 0)
        return GK_OK;
    for (const struct algo_name *a = names; a->name != NULL; a++)
        if (strcasecmp(text, a->name) == 0) {
            *value_p = a->value;
            return GK_OK;
        }
    char list[160] = "auto";
    for (const struct algo_name *a = names; a->name != NULL; a++) {
        strncat(list, ", ", sizeof(list) - strlen(list) - 1);
        strncat(list, a->name, sizeof(list) - strlen(list) - 1);
    }
    gk__error("%s=%s names no algorithm (%s)", var, text, list);
    return GK_ERR_INVALID_ARG;
}

/*
 * The algorithms a call runs, and the slots' layout, follow these
 * settings, so every PE must see the same: a job whose PEs differ fails
 * gk_init on every PE, naming the variable, rather than running calls
 * whose PEs disagree on who sends what where. The features start before
 * the collectives can run: the start-up all-gather carries each PE's
 * values and status.
 */
static int tuning_agree(const int v[6], int status)
{
    static const char *const vars[] = {"GK_TEAM_LEVELS",         "GK_TEAM_ALGO_BCAST",
                                       "GK_TEAM_ALGO_ALLREDUCE", "GK_TEAM_ALGO_FCOLLECT",
                                       "GK_TEAM_ALGO_ALLTOALL",  "GK_TEAM_ALGO_SCAN",
                                       "GK_TEAM_WINDOW",         "GK_TEAM_RING_MAX"};
    enum { N = 8 };
    uint64_t mine[N + 1];
    for (int i = 0; i < N; i++)
        mine[i] = i < 6    ? (status == GK_OK ? (uint64_t)v[i] : 0)
                  : i == 6 ? (uint64_t)gk__rt.config.team_window
                           : (uint64_t)gk__rt.config.team_ring_max;
    mine[N] = status == GK_OK ? 0 : 1;
    int n = gk__rt.boot.size;
    uint64_t(*all)[N + 1] = calloc((size_t)n, sizeof(*all));
    if (all == NULL) {
        gk__error("gk_init: no memory to compare the team settings of %d PEs", n);
        return GK_ERR_NOMEM;
    }
    int r = gk__rt_allgather(mine, all, sizeof(mine));
    for (int pe = 0; r == GK_OK && status == GK_OK && pe < n; pe++) {
        if (all[pe][N] != 0) {
            gk__error("gk_init: PE %d's team settings (GK_TEAM_*) are not valid", pe);
            r = GK_ERR_CONFIG;
        }
        for (int i = 0; r == GK_OK && i < N; i++) {
            if (all[pe][i] != mine[i]) {
                gk__error("gk_init: the PEs see different %s (PE %d's differs from this "
                          "PE's; every PE of the job must see the same team settings)",
                          vars[i], pe);
                r = GK_ERR_CONFIG;
            }
        }
    }
    free(all);
    return status != GK_OK ? status : r;
}

/* What a PE reads of a neighbour's private memory to learn whether the
 * kernel lets it (tuning_direct_probe). */
static const uint64_t direct_probe_word = 0x676b2d636d612dULL;

/*
 * Whether every PE may read its host's other PEs' private memory (net.h,
 * read_private: the all-to-all's "direct" algorithm). The kernel's ptrace
 * rules decide (Yama's ptrace_scope, containers), and every PE must make
 * the same choice, so each reads the probe word of the next PE of its
 * host that it maps, and the PEs compare: one refusal anywhere, and no PE
 * uses it. A PE alone on its host has nothing to try and no say; where
 * no PE maps another, nobody may.
 */
static int tuning_direct_probe(int *ok_p)
{
    /* During gk_init: the boot information holds the numbers. */
    int n = gk__rt.boot.size, me = gk__rt.boot.rank;
    uint64_t mine[2] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)&direct_probe_word};
    uint64_t(*all)[2] = calloc((size_t)n, sizeof(*all));
    int32_t *verdicts = calloc((size_t)n, sizeof(*verdicts));
    if (all == NULL || verdicts == NULL) {
        free(all);
        free(verdicts);
        gk__error("gk_init: no memory to compare the PEs' processes (%d PEs)", n);
        return GK_ERR_NOMEM;
    }
    int r = gk__rt_allgather(mine, all, sizeof(mine));
    int32_t verdict = 1; /* 2: read, 1: nothing to try, 0: refused */
    for (int k = 1; r == GK_OK && k < n; k++) {
        int pe = (me + k) % n;
        if (!gk__path_reads_private(pe))
            continue;
        uint64_t got = 0;
        verdict = gk__path_read_private(pe, &got, all[pe][0], all[pe][1], sizeof(got)) == GK_OK &&
                          got == direct_probe_word
                      ? 2
                      : 0;
        break;
    }
    if (r == GK_OK)
        r = gk__rt_allgather(&verdict, verdicts, sizeof(verdict));
    /* No refusal, and some PE read (none does where no PE maps another:
     * GK_NET_INDIRECT, GK_NET_FORCE_UCX). */
    int ok = r == GK_OK, read = 0;
    for (int pe = 0; ok && pe < n; pe++) {
        ok = verdicts[pe] != 0;
        read |= verdicts[pe] == 2;
    }
    ok = ok && read;
    free(all);
    free(verdicts);
    *ok_p = ok;
    return r;
}

int gk__team_tuning_init(void)
{
    static const struct algo_name levels[] = {
        {"flat", GK__LEVELS_FLAT}, {"hier", GK__LEVELS_HIER}, {NULL, 0}};
    static const struct algo_name bcast[] = {
        {"small", GK__ALGO_SMALL}, {"tree", GK__ALGO_TREE}, {"hier", GK__ALGO_HIER}, {NULL, 0}};
    static const struct algo_name allreduce[] = {
        {"gather", GK__ALGO_SMALL}, {"ring", GK__ALGO_RING}, {"hier", GK__ALGO_HIER},
        {"rabenseifner", GK__ALGO_RABENSEIFNER}, {NULL, 0}};
    static const struct algo_name fcollect[] = {
        {"bruck", GK__ALGO_SMALL}, {"ring", GK__ALGO_RING}, {"put", GK__ALGO_PUT}, {NULL, 0}};
    static const struct algo_name alltoall[] = {
        {"small", GK__ALGO_SMALL}, {"pairwise", GK__ALGO_PAIRWISE}, {"bruck", GK__ALGO_BRUCK},
        {"direct", GK__ALGO_DIRECT}, {"put", GK__ALGO_PUT}, {NULL, 0}};
    static const struct algo_name scan[] = {
        {"gather", GK__ALGO_SMALL}, {"chain", GK__ALGO_CHAIN}, {NULL, 0}};
    int v[6], status = GK_OK;
    if (status == GK_OK)
        status = tuning_read("GK_TEAM_LEVELS", gk__rt.config.team_levels, levels, &v[0]);
    if (status == GK_OK)
        status = tuning_read("GK_TEAM_ALGO_BCAST", gk__rt.config.team_algo_bcast, bcast, &v[1]);
    if (status == GK_OK)
        status = tuning_read("GK_TEAM_ALGO_ALLREDUCE", gk__rt.config.team_algo_allreduce, allreduce, &v[2]);
    if (status == GK_OK)
        status = tuning_read("GK_TEAM_ALGO_FCOLLECT", gk__rt.config.team_algo_fcollect, fcollect, &v[3]);
    if (status == GK_OK)
        status = tuning_read("GK_TEAM_ALGO_ALLTOALL", gk__rt.config.team_algo_alltoall, alltoall, &v[4]);
    if (status == GK_OK)
        status = tuning_read("GK_TEAM_ALGO_SCAN", gk__rt.config.team_algo_scan, scan, &v[5]);
    status = tuning_agree(v, status);
    if (status != GK_OK)
        return status;
    gk__team_tuning.levels = (enum gk__team_levels)v[0];
    gk__team_tuning.bcast = (enum gk__team_algo)v[1];
    gk__team_tuning.allreduce = (enum gk__team_algo)v[2];
    gk__team_tuning.fcollect = (enum gk__team_algo)v[3];
    gk__team_tuning.alltoall = (enum gk__team_algo)v[4];
    gk__team_tuning.scan = (enum gk__team_algo)v[5];
    gk__team_tuning.ring_max = (int)(gk__rt.config.team_ring_max > INT32_MAX
                                         ? INT32_MAX
                                         : gk__rt.config.team_ring_max);
    return tuning_direct_probe(&gk__team_tuning.direct_ok);
}

/* Where a team spans hosts with several of its members on one, hier takes
 * the place of the flat bulk algorithms (the tree, the ring): it beat them
 * from the smallest size they run at, and the agreement's payloads beat
 * it below. Asked for where it cannot run, the flat choice. */
enum gk__team_algo gk__team_choose_bcast(const struct gk_team *t, size_t nbytes)
{
    enum gk__team_algo flat = nbytes <= GK__TEAM_BCAST_SMALL_MAX ? GK__ALGO_SMALL : GK__ALGO_TREE;
    switch (gk__team_tuning.bcast) {
    case GK__ALGO_AUTO:
        return flat == GK__ALGO_TREE && gk__hb_usable(t, nbytes) && gk__hb_shares(t)
                   ? GK__ALGO_HIER
                   : flat;
    case GK__ALGO_HIER:
        return gk__hb_usable(t, nbytes) ? GK__ALGO_HIER : flat;
    default:
        return gk__team_tuning.bcast;
    }
}

enum gk__team_algo gk__team_choose_allreduce(const struct gk_team *t, size_t bytes,
                                             int gather_fits)
{
    enum gk__team_algo flat = gather_fits             ? GK__ALGO_SMALL
                              : gk__team_ring_fits(t->n) ? GK__ALGO_RING
                                                         : GK__ALGO_RABENSEIFNER;
    switch (gk__team_tuning.allreduce) {
    case GK__ALGO_AUTO:
        return flat != GK__ALGO_SMALL && gk__hb_usable(t, bytes) && gk__hb_shares(t)
                   ? GK__ALGO_HIER
                   : flat;
    case GK__ALGO_HIER:
        return gk__hb_usable(t, bytes) ? GK__ALGO_HIER : flat;
    default:
        return gk__team_tuning.allreduce;
    }
}

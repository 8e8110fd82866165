/*
 * p1.c: the agreement rounds every team collective begins with (engine.h,
 * "Agreement"), and the small payloads they carry.
 *
 * Levels. Over a team on one host, or with one PE per host, the rounds are
 * one dissemination over the team: in round r member i sends to i + 2^r
 * and hears from i - 2^r, so after ceil(log2 n) rounds every member has
 * heard from every member. Over a team that spans hosts with several of
 * its PEs on one, three levels: a dissemination over each host's members
 * (through shared memory), one over the hosts' leaders (the first member
 * of each host: the only messages between hosts), and one over each host
 * again, from its leader. Either way every member hears from every member.
 *
 * Payloads:
 *   BCAST   the root's bytes: a member sends them in a round when it has
 *           them and its partner does not (a binomial spread, so each
 *           member receives them once); over levels, from the root within
 *           its host, between leaders from the root's host, then from each
 *           leader within its host.
 *   GATHER  every member's block: Bruck's all-gather, a member's blocks
 *           kept in relative order (its own first) so each round sends one
 *           contiguous run; over levels, each host's blocks, then the
 *           hosts' runs between leaders, then the whole from each leader.
 *   FIELDS  the call's fields' extremes: a second pass, only when the
 *           digests in the headers differ, so the verdict can name what
 *           differs (engine.h, "Agreement").
 *   REDUCE  GATHER's exchange of equal blocks, each level combining what
 *           it gathered in team order (a host's blocks, then the hosts'
 *           results): every member combines the same values in the same
 *           order, so every member gets the same bits.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "coll/reduce_op.h"
#include "team/coll.h"

static int lv_member(const struct gk__p1_level *lv, int i)
{
    return lv->members != NULL ? lv->members[i] : i;
}

/* Whether the rounds go by levels: GK_TEAM_LEVELS, or where the team spans
 * hosts with some host holding several of its PEs; and whether the boxes
 * suffice. */
static int p1_hier(const struct gk_team *t, int *b1_p, int *b2_p)
{
    int maxl = 1;
    for (int h = 0; h < t->n_hosts; h++) {
        int l = t->host_first[h + 1] - t->host_first[h];
        if (l > maxl)
            maxl = l;
    }
    *b1_p = gk__team_log2_up(maxl);
    *b2_p = *b1_p + gk__team_log2_up(t->n_hosts);
    if (*b2_p + *b1_p > GK__TEAM_P1_BOXES)
        return 0;
    switch (gk__team_tuning.levels) {
    case GK__LEVELS_FLAT:
        return 0;
    case GK__LEVELS_HIER:
        return 1;
    default:
        return t->n_hosts > 1 && t->n_hosts < t->n;
    }
}

int gk__p1_begin_at(struct gk__team_op *op, enum gk__p1_mode mode, int flat_box)
{
    struct gk_team *t = op->team;
    struct gk__p1_state *p = &op->p1;
    free(p->mem);
    memset(p, 0, sizeof(*p));
    p->mode = mode;
    int b1, b2;
    if (flat_box < 0 && p1_hier(t, &b1, &b2)) {
        const int *local = &t->host_members[t->host_first[t->my_host]];
        int ln = gk__team_local_n(t);
        p->nlevels = 3;
        p->lv[0] = (struct gk__p1_level){local, ln, t->local_me, 0, -1};
        p->lv[1] = (struct gk__p1_level){t->leaders, t->n_hosts,
                                         t->local_me == 0 ? t->my_host : -1, b1, -1};
        p->lv[2] = (struct gk__p1_level){local, ln, t->local_me, b2, -1};
    } else {
        if (gk__team_log2_up(t->n) > GK__TEAM_P1_BOXES) {
            gk__error("%s: a team of %d PEs is more than this build's %d agreement rounds "
                      "reach",
                      op->name, t->n, GK__TEAM_P1_BOXES);
            return GK_ERR_UNSUPPORTED;
        }
        p->nlevels = 1;
        p->lv[0] = (struct gk__p1_level){NULL, t->n, t->me, flat_box < 0 ? 0 : flat_box, -1};
    }
    int hier = p->nlevels == 3;
    if (hier && mode != GK__P1_NONE && mode != GK__P1_FIELDS)
        p->lv[2].root_gi = 0; /* each leader to its host */
    if (mode == GK__P1_BCAST) {
        int root = op->root;
        if (root >= 0 && root < t->n) {
            if (!hier) {
                p->lv[0].root_gi = root;
            } else {
                int rh = t->host_of[root];
                p->lv[0].root_gi = rh == t->my_host ? t->host_rank[root] : -1;
                p->lv[1].root_gi = rh;
                p->lv[2].root_gi = 0;
            }
        }
        return GK_OK;
    }
    if (mode == GK__P1_NONE || mode == GK__P1_FIELDS)
        return GK_OK;
    /* GATHER and REDUCE: the stage, the offsets and sizes, a host's part. */
    size_t total = 0, block = op->count * op->elem;
    if (mode == GK__P1_GATHER) {
        for (int i = 0; i < t->n; i++)
            total += op->sizes[i];
    } else {
        total = (size_t)t->n * block;
    }
    size_t idx = (size_t)t->n + 1;
    size_t bytes = 2 * idx * sizeof(size_t) + (size_t)t->n_hosts * sizeof(size_t) + 64 +
                   total + (hier ? total : 0) + 64;
    p->mem = malloc(bytes);
    if (p->mem == NULL) {
        gk__error("%s: no memory for the %zu bytes of the gather's stage", op->name, bytes);
        return GK_ERR_NOMEM;
    }
    p->roff = p->mem;
    p->usize = p->roff + idx;
    p->host_bytes = p->usize + idx;
    p->stage = (unsigned char *)(((uintptr_t)(p->host_bytes + t->n_hosts) + 63) & ~(uintptr_t)63);
    p->agg = hier ? p->stage + (total + 63) / 64 * 64 : NULL;
    p->mine = p->stage;
    if (mode == GK__P1_GATHER && hier)
        for (int h = 0; h < t->n_hosts; h++) {
            p->host_bytes[h] = 0;
            for (int k = t->host_first[h]; k < t->host_first[h + 1]; k++)
                p->host_bytes[h] += op->sizes[t->host_members[k]];
        }
    return GK_OK;
}

int gk__p1_begin(struct gk__team_op *op, enum gk__p1_mode mode)
{
    return gk__p1_begin_at(op, mode, -1);
}

unsigned char *gk__p1_my_block(struct gk__team_op *op)
{
    return op->p1.mine;
}

/* The bytes of unit u of level L (a member's block, or a host's run). */
static size_t unit_size(struct gk__team_op *op, int level, int u)
{
    struct gk__p1_state *p = &op->p1;
    size_t block = op->count * op->elem;
    const struct gk__p1_level *lv = &p->lv[level];
    if (p->mode == GK__P1_REDUCE)
        return block;
    if (p->nlevels == 3 && level == 1)
        return p->host_bytes[u];
    return op->sizes[lv_member(lv, u)];
}

/* A gather level begins: unit sizes and relative offsets; a leader's host
 * run moves to the front of the stage. */
static void gather_level_start(struct gk__team_op *op, int level)
{
    struct gk__p1_state *p = &op->p1;
    const struct gk__p1_level *lv = &p->lv[level];
    if (lv->gi < 0)
        return;
    p->roff[0] = 0;
    for (int k = 0; k < lv->g; k++)
        p->roff[k + 1] = p->roff[k] + unit_size(op, level, (lv->gi - k + lv->g) % lv->g);
    if (level == 1)
        gk__team_copy(p->stage, p->agg, unit_size(op, 1, lv->gi));
}

/* The offset of member m's block in team order (GATHER's result). */
static size_t team_offset(struct gk__team_op *op, int m)
{
    size_t off = 0;
    for (int i = 0; i < m; i++)
        off += op->sizes[i];
    return off;
}

/* A gather level ends: the stage's units (relative order) to their places. */
static void gather_level_end(struct gk__team_op *op, int level)
{
    struct gk__p1_state *p = &op->p1;
    struct gk_team *t = op->team;
    const struct gk__p1_level *lv = &p->lv[level];
    if (lv->gi < 0)
        return;
    size_t block = op->count * op->elem;
    int last = level == p->nlevels - 1 || level == 1;
    unsigned char *out = last ? op->buf : p->agg;
    if (p->mode == GK__P1_REDUCE) {
        /* Combine in team order: unit u sits at relative k = gi - u. */
        for (int u = 0; u < lv->g; u++) {
            const unsigned char *in = p->stage + p->roff[(lv->gi - u + lv->g) % lv->g];
            if (u == 0)
                gk__team_copy(out, in, block);
            else
                gk__reduce_apply(out, out, in, op->count, op->dtype, op->reduce);
        }
        return;
    }
    if (p->nlevels == 3 && level == 0) {
        size_t at = 0; /* the host's blocks in host order */
        for (int u = 0; u < lv->g; u++) {
            size_t s = unit_size(op, 0, u);
            gk__team_copy(out + at, p->stage + p->roff[(lv->gi - u + lv->g) % lv->g], s);
            at += s;
        }
        return;
    }
    if (p->nlevels == 3) { /* level 1: hosts' runs to team order */
        for (int h = 0; h < t->n_hosts; h++) {
            const unsigned char *run = p->stage + p->roff[(lv->gi - h + lv->g) % lv->g];
            for (int k = t->host_first[h]; k < t->host_first[h + 1]; k++) {
                int m = t->host_members[k];
                gk__team_copy(out + team_offset(op, m), run, op->sizes[m]);
                run += op->sizes[m];
            }
        }
        return;
    }
    for (int u = 0; u < lv->g; u++)
        gk__team_copy(out + team_offset(op, u), p->stage + p->roff[(lv->gi - u + lv->g) % lv->g],
               op->sizes[u]);
}

/* Whether level L is a gather (the last level of a leveled gather is the
 * leader's broadcast of the whole). */
static int level_gathers(const struct gk__p1_state *p, int level)
{
    if (p->mode != GK__P1_GATHER && p->mode != GK__P1_REDUCE)
        return 0;
    return p->nlevels == 1 || level < 2;
}

/* The step of round r of level L. */
static void round_step(struct gk__team_op *op, int level, int r)
{
    struct gk__p1_state *p = &op->p1;
    const struct gk__p1_level *lv = &p->lv[level];
    int g = lv->g, gi = lv->gi, d = 1 << r;
    int to = lv_member(lv, (gi + d) % g);
    int box = lv->box + r;
    gk__team_step_clear(op);
    if (p->mode == GK__P1_FIELDS) {
        gk__team_step_send(op, to, box, op->agree.lo, 2 * sizeof(op->agree.lo));
        gk__team_step_recv(op, box, NULL, 0, GK__TEAM_RX_FIELDS);
        return;
    }
    if (level_gathers(p, level)) {
        int cnt = d < g - d ? d : g - d;
        gk__team_step_send(op, to, box, p->stage, p->roff[cnt]);
        gk__team_step_recv(op, box, p->stage + p->roff[d], p->roff[d + cnt] - p->roff[d],
                           GK__TEAM_RX_COPY);
        return;
    }
    int carries = p->mode != GK__P1_NONE && lv->root_gi >= 0;
    size_t len = !carries                   ? 0
                 : p->mode == GK__P1_BCAST  ? op->nbytes
                 : p->mode == GK__P1_REDUCE ? op->count * op->elem
                                            : team_offset(op, op->team->n);
    int v = (gi - lv->root_gi + g) % g;
    int send_data = carries && v < d && v + d < g;
    int recv_data = carries && v >= d && v < 2 * d;
    gk__team_step_send(op, to, box, op->buf, send_data ? len : 0);
    gk__team_step_recv(op, box, recv_data ? op->buf : NULL, len, GK__TEAM_RX_COPY);
}

int gk__p1_next(struct gk__team_op *op)
{
    struct gk__p1_state *p = &op->p1;
    for (;;) {
        if (p->level >= p->nlevels)
            return 1;
        const struct gk__p1_level *lv = &p->lv[p->level];
        if (p->round == 0 && level_gathers(p, p->level))
            gather_level_start(op, p->level);
        if (lv->gi >= 0 && (1 << p->round) < lv->g) {
            round_step(op, p->level, p->round);
            p->round++;
            return 0;
        }
        if (level_gathers(p, p->level))
            gather_level_end(op, p->level);
        p->level++;
        p->round = 0;
    }
}

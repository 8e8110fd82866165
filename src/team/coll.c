/*
 * coll.c: the team collectives (gasket.h, "Teams and their collectives"):
 * each call's argument checks and its algorithm, as a next() function the
 * engine calls for one step at a time (engine.h). Every algorithm begins
 * with the agreement rounds (p1.c); the ones for large payloads go on
 * with a bulk phase, flat over the team, on the bulk boxes.
 *
 *   broadcast       small: in the agreement rounds; else a pipelined
 *                   binomial tree (chunk j is forwarded as soon as it is in),
 *                   or across hosts a tree of one PE per host and a host
 *                   buffer within each (host_buf.c)
 *   all-reduce,     small: every block gathered in the agreement rounds
 *   reduce,         and combined in team order (per host, then across);
 *   reduce-scatter  else a ring: reduce-scatter then all-gather (Patarasuk
 *                   and Yuan), n - 1 steps each; or across hosts the
 *                   ring between one leader per host, each host reducing
 *                   and delivering through its buffer (host_buf.c)
 *   scan, exscan    small: gathered, each PE combines its prefix; else a
 *                   chain from PE 0 up
 *   fcollect        small: Bruck's all-gather in the agreement rounds;
 *                   else a ring
 *   collect         the sizes in the agreement rounds, then Bruck's
 *                   all-gather (small) or a ring
 *   all-to-all      pairwise exchange (n - 1 rounds) where the job's slots
 *                   have a box per round (jobs up to 16 PEs) and above
 *                   256 bytes, else Bruck's (log2 n rounds, n/2 blocks each)
 */
#include "team/coll.h"

#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "base/log.h"
#include "coll/reduce_op.h"
#include "core/coll_check.h"
#include "core/path.h"
#include "core/progress.h"
#include "core/runtime.h"


static const char *kind_names[] = {
    "none",
#define GK__TEAM_KIND_NAME(name, text) text,
    GK__TEAM_KIND_TABLE(GK__TEAM_KIND_NAME)
#undef GK__TEAM_KIND_NAME
};

const char *gk__team_kind_name(uint64_t kind)
{
    if (kind < sizeof(kind_names) / sizeof(kind_names[0]))
        return kind_names[kind];
    return "an unknown collective";
}

int gk__team_coll_kind(int kind)
{
    switch (kind) {
    case GK__TEAM_BARRIER:
        return GK__COLL_BARRIER;
    case GK__TEAM_BROADCAST:
        return GK__COLL_BROADCAST;
    case GK__TEAM_ALLREDUCE:
        return GK__COLL_ALLREDUCE;
    case GK__TEAM_REDUCE:
        return GK__COLL_REDUCE;
    case GK__TEAM_REDUCE_SCATTER:
        return GK__COLL_REDUCE_SCATTER;
    case GK__TEAM_SCAN:
        return GK__COLL_SCAN;
    case GK__TEAM_EXSCAN:
        return GK__COLL_EXSCAN;
    case GK__TEAM_FCOLLECT:
        return GK__COLL_COLLECT;
    case GK__TEAM_COLLECT:
        return GK__COLL_COLLECTV;
    case GK__TEAM_ALLTOALL:
        return GK__COLL_ALLTOALL;
    case GK__TEAM_ALLTOALLS:
        return GK__COLL_ALLTOALLS;
    default:
        return GK__COLL_TEAM_SPLIT;
    }
}

static int team_mod(long a, int n)
{
    return (int)(((a % n) + n) % n);
}

/* The team number of the i-th of a set of members (NULL: the team's own
 * numbering), as the ring and Rabenseifner's algorithm take them. */
static int member_at(const int *members, int i)
{
    return members != NULL ? members[i] : i;
}

/* Block b of a ring of n over count elements: its first element. */
static size_t ring_lo(size_t count, int b, int n)
{
    return count * (size_t)b / (size_t)n;
}

/* The bulk phase can start: the agreement said yes. 1 when the call ends
 * here (an error, or nothing left), else 0. */
static int p1_finish(struct gk__team_op *op, int *r_p)
{
    int r = gk__p1_next(op);
    if (r == 1 && op->p1.mode != GK__P1_FIELDS && gk__team_digests_differ(op)) {
        /* The members passed different things: the same rounds again
         * with the fields themselves, so every PE can say which. */
        r = gk__p1_begin(op, GK__P1_FIELDS);
        if (r == GK_OK)
            r = gk__p1_next(op);
    }
    if (r == 0) {
        *r_p = 0;
        return 1;
    }
    if (r < 0) {
        *r_p = r;
        return 1;
    }
    op->status = gk__team_verdict(op);
    if (op->status != GK_OK) {
        *r_p = 1;
        return 1;
    }
    return 0;
}

/* ---- Barrier ---- */

int gk__team_next_headers_only(struct gk__team_op *op)
{
    if (op->stage == 0) {
        int status = gk__p1_begin(op, GK__P1_NONE);
        if (status != GK_OK)
            return status;
        op->stage = 1;
    }
    int r;
    if (p1_finish(op, &r))
        return r;
    return 1;
}

/* ---- Broadcast ---- */

int gk__team_next_bcast(struct gk__team_op *op)
{
    struct gk_team *t = op->team;
    int r;
    switch (op->stage) {
    case 0: {
        int small = op->algo == GK__ALGO_SMALL;
        op->buf = op->dst;
        if (t->me == op->root && op->my_status == GK_OK && op->dst != op->src)
            gk__team_copy(op->dst, op->src, op->nbytes);
        int status = gk__p1_begin(op, small ? GK__P1_BCAST : GK__P1_NONE);
        if (status != GK_OK)
            return status;
        op->stage = 1;
    }
    /* fallthrough */
    case 1:
        if (p1_finish(op, &r))
            return r;
        if (op->algo == GK__ALGO_SMALL)
            return 1;
        if (op->algo == GK__ALGO_HIER) {
            op->round = 0;
            op->stage = 3;
            return gk__hb_bcast_next(op);
        }
        {
            /* The tree: relative number v, parent v - 2^k (k its top bit),
             * children v + 2^j for j > k, each on box BULK + j. */
            int n = t->n, v = team_mod(t->me - op->root, n), k = -1;
            gk__team_step_clear(op);
            if (v > 0) {
                k = 31 - __builtin_clz((unsigned)v);
                gk__team_step_recv(op, GK__TEAM_BULK_BOX + k, op->dst, op->nbytes,
                                   GK__TEAM_RX_COPY);
                op->step.forward = 1;
            }
            for (int j = k + 1; j < 31 && v + (1L << j) < n; j++)
                gk__team_step_send(op, team_mod(op->root + v + (1L << j), n),
                                   GK__TEAM_BULK_BOX + j, op->dst, op->nbytes);
            op->stage = 2;
            return 0;
        }
    case 3:
        return gk__hb_bcast_next(op);
    default:
        return 1;
    }
}

/* ---- Reductions ---- */

int gk__team_ring_round(struct gk__team_op *op, unsigned char *acc, size_t count,
                        int rs_rounds, int ag_rounds, const int *members, int n, int me)
{
    int k = op->round;
    int succ = member_at(members, team_mod(me + 1, n));
    size_t e = op->elem;
    int sb, rb;
    enum gk__team_rx_mode mode;
    if (k < rs_rounds) {
        sb = team_mod(me - k - 1, n);
        rb = team_mod(me - k - 2, n);
        mode = GK__TEAM_RX_COMBINE;
    } else if (k < rs_rounds + ag_rounds) {
        int a = k - rs_rounds;
        sb = team_mod(me - a, n);
        rb = team_mod(me - a - 1, n);
        mode = GK__TEAM_RX_COPY;
    } else {
        return 1;
    }
    size_t slo = ring_lo(count, sb, n), shi = ring_lo(count, sb + 1, n);
    size_t rlo = ring_lo(count, rb, n), rhi = ring_lo(count, rb + 1, n);
    gk__team_step_clear(op);
    if (k + 1 < rs_rounds + ag_rounds)
        gk__team_step_send_more(op, succ, GK__TEAM_BULK_BOX, acc + slo * e, (shi - slo) * e);
    else
        gk__team_step_send(op, succ, GK__TEAM_BULK_BOX, acc + slo * e, (shi - slo) * e);
    gk__team_step_recv(op, GK__TEAM_BULK_BOX, acc + rlo * e, (rhi - rlo) * e, mode);
    op->round++;
    return 0;
}

/* Rabenseifner's all-reduce (coll.h). Members fold into p = 2^L virtual
 * ones: the first 2r (n = p + r) pair up, the odd of each pair taking the
 * even's vector, so virtual v is member 2v + 1 below r and v + r above. */
static int rab_member(int v, int r)
{
    return v < r ? 2 * v + 1 : v + r;
}

/* The element range [*lo, *hi) virtual member v of p holds after `steps`
 * halving steps: step k (partner v ^ (p >> (k + 1))) keeps the lower half
 * of the range where v's bit is clear, the upper where it is set. */
static void rab_range(size_t count, int v, int p, int steps, size_t *lo, size_t *hi)
{
    *lo = 0;
    *hi = count;
    for (int k = 0; k < steps; k++) {
        size_t mid = *lo + (*hi - *lo) / 2;
        if (v & (p >> (k + 1)))
            *lo = mid;
        else
            *hi = mid;
    }
}

int gk__team_rabenseifner_round(struct gk__team_op *op, unsigned char *acc, size_t count,
                                const int *members, int n, int me)
{
    int L = 0;
    while ((2 << L) <= n)
        L++;
    int p = 1 << L, r = n - p, k = op->round;
    /* Steps: the fold (where r > 0), L halvings, L doublings, the unfold. */
    int fold = r > 0, steps = 2 * L + 2 * fold;
    size_t e = op->elem;
    if (k >= steps)
        return 1;
    op->round++;
    gk__team_step_clear(op);
    int fold_box = GK__TEAM_BULK_BOX + L;
    int extra = me < 2 * r && me % 2 == 0; /* hands its vector over, waits */
    if (fold && (k == 0 || k == steps - 1)) {
        int first = k == 0;
        if (me >= 2 * r)
            return 0; /* an empty step: not in a pair */
        if (extra == first) /* the even one's vector in, the result out */
            gk__team_step_send(op, member_at(members, extra ? me + 1 : me - 1), fold_box, acc,
                               count * e);
        else
            gk__team_step_recv(op, fold_box, acc, count * e,
                               first ? GK__TEAM_RX_COMBINE : GK__TEAM_RX_COPY);
        return 0;
    }
    if (extra)
        return 0;
    int s = k - fold; /* 0 .. 2L - 1 */
    int v = me < 2 * r ? me / 2 : me - r;
    int halving = s < L, hk = halving ? s : 2 * L - 1 - s; /* the halving step undone */
    int d = p >> (hk + 1), partner = rab_member(v ^ d, r);
    size_t lo, hi, keep_lo, keep_hi;
    rab_range(count, v, p, hk, &lo, &hi);
    rab_range(count, v, p, hk + 1, &keep_lo, &keep_hi);
    /* The half this member gives (halving) or gets (doubling): the
     * partner's, the other side of the split. */
    int upper = (v & d) != 0;
    size_t other_lo = upper ? lo : keep_hi;
    size_t other_hi = upper ? keep_lo : hi;
    int box = GK__TEAM_BULK_BOX + hk;
    if (halving) {
        gk__team_step_send_more(op, member_at(members, partner), box, acc + other_lo * e,
                                (other_hi - other_lo) * e);
        gk__team_step_recv(op, box, acc + keep_lo * e, (keep_hi - keep_lo) * e,
                           GK__TEAM_RX_COMBINE);
    } else {
        gk__team_step_send(op, member_at(members, partner), box, acc + keep_lo * e,
                           (keep_hi - keep_lo) * e);
        gk__team_step_recv(op, box, acc + other_lo * e, (other_hi - other_lo) * e,
                           GK__TEAM_RX_COPY);
    }
    return 0;
}

/* Where a reduction's full result goes: dst, or op->work. */
static unsigned char *reduce_result(struct gk__team_op *op)
{
    int keeps = op->kind != GK__TEAM_REDUCE || op->team->me == op->root;
    return keeps ? op->dst : op->work;
}

static void reduce_deliver(struct gk__team_op *op, const unsigned char *result)
{
    if (op->kind == GK__TEAM_REDUCE_SCATTER) {
        size_t block = op->count / (size_t)op->team->n * op->elem;
        gk__team_copy(op->dst, result + (size_t)op->team->me * block, block);
    } else if (result != op->dst && reduce_result(op) == op->dst) {
        gk__team_copy(op->dst, result, op->count * op->elem);
    }
}

int gk__team_next_reduce(struct gk__team_op *op)
{
    int r;
    size_t bytes = op->count * op->elem;
    switch (op->stage) {
    case 0: {
        int small = op->algo == GK__ALGO_SMALL;
        int status = gk__p1_begin(op, small ? GK__P1_REDUCE : GK__P1_NONE);
        if (status != GK_OK)
            return status;
        if (small) {
            if (op->my_status == GK_OK)
                gk__team_copy(gk__p1_my_block(op), op->src, bytes);
            op->buf = op->kind != GK__TEAM_REDUCE_SCATTER && op->my_status == GK_OK
                          ? reduce_result(op)
                          : op->work;
        }
        op->stage = 1;
    }
    /* fallthrough */
    case 1:
        if (p1_finish(op, &r))
            return r;
        if (op->algo == GK__ALGO_SMALL) {
            reduce_deliver(op, op->buf);
            return 1;
        }
        op->buf = op->kind == GK__TEAM_REDUCE_SCATTER ? op->work : reduce_result(op);
        op->round = 0;
        if (op->algo == GK__ALGO_HIER) {
            op->stage = GK__HB_REDUCE_STAGE; /* host_buf.c's stages from here */
        } else {
            if (op->buf != op->src)
                gk__team_copy(op->buf, op->src, bytes);
            op->stage = 2;
        }
    /* fallthrough */
    default: {
        int n = op->team->n;
        int ag = op->kind == GK__TEAM_REDUCE_SCATTER ? 0 : n - 1;
        if (op->stage >= GK__HB_REDUCE_STAGE) {
            r = gk__hb_reduce_next(op);
            if (r != 1)
                return r;
        } else if (op->algo == GK__ALGO_RABENSEIFNER && op->kind != GK__TEAM_REDUCE_SCATTER) {
            if (gk__team_rabenseifner_round(op, op->buf, op->count, NULL, n, op->team->me) == 0)
                return 0;
        } else if (gk__team_ring_round(op, op->buf, op->count, n - 1, ag, NULL, n,
                                       op->team->me) == 0) {
            return 0;
        }
        if (op->kind == GK__TEAM_REDUCE_SCATTER)
            reduce_deliver(op, op->buf);
        return 1;
    }
    }
}

/* ---- Scans ---- */

/* dst = the combination of blocks 0 .. upto (inclusive) of `all`. */
static void scan_combine(struct gk__team_op *op, const unsigned char *all, int upto)
{
    size_t block = op->count * op->elem;
    if (upto < 0)
        return;
    gk__team_copy(op->dst, all, block);
    for (int i = 1; i <= upto; i++)
        gk__reduce_apply(op->dst, op->dst, all + (size_t)i * block, op->count, op->dtype,
                         op->reduce);
}

int gk__team_next_scan(struct gk__team_op *op)
{
    struct gk_team *t = op->team;
    int r, ex = op->kind == GK__TEAM_EXSCAN;
    size_t block = op->count * op->elem;
    switch (op->stage) {
    case 0: {
        int small = op->algo == GK__ALGO_SMALL;
        int status = gk__p1_begin(op, small ? GK__P1_GATHER : GK__P1_NONE);
        if (status != GK_OK)
            return status;
        if (small && op->my_status == GK_OK)
            gk__team_copy(gk__p1_my_block(op), op->src, block);
        op->buf = op->work;
        op->stage = 1;
    }
    /* fallthrough */
    case 1:
        if (p1_finish(op, &r))
            return r;
        if (op->algo == GK__ALGO_SMALL) {
            scan_combine(op, op->work, ex ? t->me - 1 : t->me);
            return 1;
        }
        /* The chain: the prefix of 0 .. me-1 from me - 1 into work. */
        op->stage = 2;
        if (t->me > 0) {
            gk__team_step_clear(op);
            gk__team_step_recv(op, GK__TEAM_BULK_BOX, op->work, block, GK__TEAM_RX_COPY);
            return 0;
        }
    /* fallthrough */
    case 2: {
        /* work + block: the prefix of 0 .. me, for me + 1. */
        unsigned char *in = op->work, *out = op->work + block;
        if (t->me == 0)
            gk__team_copy(out, op->src, block);
        else
            gk__reduce_apply(out, in, op->src, op->count, op->dtype, op->reduce);
        if (ex && t->me > 0)
            gk__team_copy(op->dst, in, block);
        else if (!ex)
            gk__team_copy(op->dst, out, block);
        op->stage = 3;
        if (t->me + 1 < t->n) {
            gk__team_step_clear(op);
            gk__team_step_send(op, t->me + 1, GK__TEAM_BULK_BOX, out, block);
            return 0;
        }
        return 1;
    }
    default:
        return 1;
    }
}

/* ---- Closing rounds (the direct and put algorithms) ---- */

/* The agreement's rounds once more, flat on the bulk boxes, after this
 * PE's part of a direct or put algorithm (failed: it failed); GK_OK, or
 * the error of starting them. */
static int closing_rounds_begin(struct gk__team_op *op, int failed)
{
    int status = gk__p1_begin_at(op, GK__P1_NONE, GK__TEAM_BULK_BOX);
    if (status != GK_OK)
        return status;
    /* The verdict said every PE's checks passed: fail is 0 everywhere
     * until this PE's failure goes into the rounds. */
    op->agree.fail = failed ? 1 : 0;
    op->stage = 12;
    return GK_OK;
}

/* Their progress: 1 once over, with GK_ERR_SYSTEM where some PE's part
 * failed (`what` it could not do); else as gk__p1_next. */
static int closing_rounds_next(struct gk__team_op *op, const char *what)
{
    int r = gk__p1_next(op);
    if (r != 1)
        return r;
    if (op->agree.fail != 0) {
        gk__error("%s: a PE of the team could not %s (said there); the blocks were not all "
                  "delivered",
                  op->name, what);
        op->status = GK_ERR_SYSTEM;
    }
    return 1;
}

/* ---- Puts into symmetric dst (all-to-all, fcollect) ---- */

/*
 * The put algorithms (a team across hosts): the agreement gathers whether
 * each PE's dst is symmetric memory and where in its segment
 * (put_entry). Where every one is, each PE puts its block for PE j (an
 * all-to-all's block j of src; a collect's one block) into PE j's dst at
 * block `me`, on the transport's own puts (zero-copy where it has them,
 * not the engine's chunks through scratch), completes them, and the PEs
 * run the agreement's rounds once more, flat on the bulk boxes, so that
 * none returns before every block for it has landed. A put that fails is
 * this PE's failure in those rounds, as in the direct all-to-all. Where
 * some dst is not symmetric, every PE sees it in the same gathered
 * entries: 0 with op->algo set to GK__ALGO_PAIRWISE, for the caller to go
 * on another way.
 */
static void put_entry(struct gk__team_op *op, size_t dst_bytes)
{
    size_t at = 0;
    uint64_t entry[2] = {0, 0};
    if (gk__rt_sym_offset(op->dst, dst_bytes, &at)) {
        entry[0] = 1;
        entry[1] = at;
    }
    gk__team_copy(gk__p1_my_block(op), entry, sizeof(entry));
}

static int put_blocks(struct gk__team_op *op, size_t src_stride)
{
    struct gk_team *t = op->team;
    int n = t->n, me = t->me;
    size_t nb = op->nbytes;
    const uint64_t *entry = (const uint64_t *)op->work;
    if (op->stage == 11) {
        for (int i = 0; i < n; i++)
            if (entry[2 * i] != 1) {
                op->algo = GK__ALGO_PAIRWISE;
                return 0;
            }
        int failed_pe = -1, status = GK_OK;
        unsigned char *mine = (unsigned char *)op->dst + (size_t)me * nb;
        const unsigned char *from = (const unsigned char *)op->src + (size_t)me * src_stride;
        if (mine != from) /* (a collect in place: there already) */
            gk__team_copy(mine, from, nb);
        /* From the next PE on, so that the PEs do not all put to one. */
        for (int k = 1; k < n && status == GK_OK; k++) {
            int to = team_mod(me + k, n), pe = t->pes[to];
            status = gk__path_put_at(op->name, pe, (size_t)entry[2 * to + 1] + (size_t)me * nb,
                                     (const unsigned char *)op->src + (size_t)to * src_stride,
                                     nb, GK__PATH_NO_WAKE, GK__PATH_SRC_HELD);
            if (status != GK_OK)
                failed_pe = pe;
        }
        if (status == GK_OK)
            status = gk__path_quiet();
        if (status != GK_OK)
            gk__error("%s: putting this PE's blocks into the others' dst failed (%s%s%d)",
                      op->name, gk_strerror(status), failed_pe >= 0 ? ", PE " : "",
                      failed_pe >= 0 ? failed_pe : 0);
        int begun = closing_rounds_begin(op, status != GK_OK);
        if (begun != GK_OK)
            return begun;
    }
    return closing_rounds_next(op, "put its blocks");
}

/* ---- Collects ---- */

static int ring_gather_round(struct gk__team_op *op)
{
    struct gk_team *t = op->team;
    int n = t->n, k = op->round, me = t->me;
    if (k >= n - 1)
        return 1;
    int sb = team_mod(me - k, n), rb = team_mod(me - k - 1, n);
    size_t so = 0, ro = 0;
    for (int i = 0; i < sb; i++)
        so += op->sizes[i];
    for (int i = 0; i < rb; i++)
        ro += op->sizes[i];
    unsigned char *dst = op->dst;
    gk__team_step_clear(op);
    if (k + 1 < n - 1)
        gk__team_step_send_more(op, team_mod(me + 1, n), GK__TEAM_BULK_BOX, dst + so,
                                op->sizes[sb]);
    else
        gk__team_step_send(op, team_mod(me + 1, n), GK__TEAM_BULK_BOX, dst + so,
                           op->sizes[sb]);
    size_t cap = op->dst_size > ro ? op->dst_size - ro : 0;
    gk__team_step_recv(op, GK__TEAM_BULK_BOX, dst + ro, cap < op->sizes[rb] ? cap : op->sizes[rb],
                       GK__TEAM_RX_COPY);
    op->round++;
    return 0;
}

/* Both collects after their sizes are known: my block to its place, then
 * Bruck's gather on the bulk boxes (small) or the ring. */
static int collect_bulk(struct gk__team_op *op)
{
    struct gk_team *t = op->team;
    if (op->stage == 10) {
        size_t total = 0, mine = 0;
        for (int i = 0; i < t->n; i++) {
            if (i < t->me)
                mine += op->sizes[i];
            total += op->sizes[i];
        }
        if (op->algo == GK__ALGO_SMALL) {
            int status = gk__p1_begin_at(op, GK__P1_GATHER, GK__TEAM_BULK_BOX);
            if (status != GK_OK)
                return status;
            gk__team_copy(gk__p1_my_block(op), op->src, op->sizes[t->me]);
            op->buf = op->dst;
            op->stage = 11;
        } else {
            gk__team_copy((unsigned char *)op->dst + mine, op->src, op->sizes[t->me]);
            op->round = 0;
            op->stage = 12;
        }
    }
    if (op->stage == 11)
        return gk__p1_next(op);
    return ring_gather_round(op);
}

int gk__team_next_fcollect(struct gk__team_op *op)
{
    int r;
    struct gk_team *t = op->team;
    int put = op->algo == GK__ALGO_PUT;
    if (put && op->stage >= 11)
        return put_blocks(op, 0);
    if (op->stage == 0) {
        int small = op->algo == GK__ALGO_SMALL;
        int status = gk__p1_begin(op, small || put ? GK__P1_GATHER : GK__P1_NONE);
        if (status != GK_OK)
            return status;
        if (small && op->my_status == GK_OK)
            gk__team_copy(gk__p1_my_block(op), op->src, op->nbytes);
        if (put && op->my_status == GK_OK)
            put_entry(op, (size_t)t->n * op->nbytes);
        op->buf = put ? op->work : op->dst;
        op->stage = 1;
    }
    if (op->stage == 1) {
        if (p1_finish(op, &r))
            return r;
        if (op->algo == GK__ALGO_SMALL)
            return 1;
        if (put) {
            op->stage = 11;
            r = put_blocks(op, 0);
            if (op->algo == GK__ALGO_PUT)
                return r;
            /* Some dst is not symmetric: the ring, whose sizes are the
             * blocks (the agreement's were the entries). */
            for (int i = 0; i < t->n; i++)
                op->sizes[i] = op->nbytes;
        }
        op->dst_size = (size_t)t->n * op->nbytes;
        op->algo = GK__ALGO_RING;
        op->stage = 10;
    }
    return collect_bulk(op);
}

/* collect: the agreement gathers each PE's (size, room). */
int gk__team_next_collect(struct gk__team_op *op)
{
    int r;
    struct gk_team *t = op->team;
    if (op->stage == 0) {
        for (int i = 0; i < t->n; i++)
            op->sizes[i] = 2 * sizeof(uint64_t);
        int status = gk__p1_begin(op, GK__P1_GATHER);
        if (status != GK_OK)
            return status;
        uint64_t mine[2] = {op->nbytes, op->dst_size};
        gk__team_copy(gk__p1_my_block(op), mine, sizeof(mine));
        op->buf = op->work;
        op->stage = 1;
    }
    if (op->stage == 1) {
        if (p1_finish(op, &r))
            return r;
        const uint64_t *pairs = (const uint64_t *)op->work;
        uint64_t total = 0;
        for (int i = 0; i < t->n; i++)
            total += pairs[2 * i];
        for (int i = 0; i < t->n; i++) {
            if (pairs[2 * i + 1] < total) {
                gk__error("%s: the blocks total %llu bytes but PE %d of the team has room "
                          "for %llu (dst_size); nothing was delivered",
                          op->name, (unsigned long long)total, i,
                          (unsigned long long)pairs[2 * i + 1]);
                op->status = GK_ERR_INVALID_ARG;
                return 1;
            }
        }
        for (int i = 0; i < t->n; i++)
            op->sizes[i] = pairs[2 * i];
        if (op->total_p != NULL)
            *op->total_p = total;
        if (op->algo == GK__ALGO_AUTO)
            op->algo = gk__team_gather_fits(total / (size_t)t->n, total) &&
                               gk__team_log2_up(t->n) <= GK__TEAM_BULK_BOXES
                           ? GK__ALGO_SMALL
                           : GK__ALGO_RING;
        op->stage = 10;
    }
    return collect_bulk(op);
}

/* ---- All-to-all ---- */

/*
 * The direct all-to-all (one host): the agreement gathers each PE's
 * process and src; each PE then reads block `me` of every other PE's src
 * into its dst (one copy, by the kernel: net.h, read_private), and the
 * PEs run the agreement's rounds once more, flat on the bulk boxes, so
 * that none returns (and reuses its src) while another still reads it. A
 * read that fails is this PE's failure in those rounds' headers, and
 * every PE returns the error.
 */
static int alltoall_direct(struct gk__team_op *op)
{
    struct gk_team *t = op->team;
    int n = t->n, me = t->me;
    size_t nb = op->nbytes;
    if (op->stage == 11) {
        const uint64_t *entry = (const uint64_t *)op->work;
        int failed_pe = -1, status = GK_OK;
        gk__team_copy((unsigned char *)op->dst + (size_t)me * nb,
                      (const unsigned char *)op->src + (size_t)me * nb, nb);
        for (int k = 1; k < n && status == GK_OK; k++) {
            int from = team_mod(me - k, n), pe = t->pes[from];
            uint64_t pid = entry[2 * from], addr = entry[2 * from + 1] + (uint64_t)me * nb;
            status = gk__path_reads_private(pe) ? gk__path_read_private(
                                                      pe, (unsigned char *)op->dst +
                                                              (size_t)from * nb,
                                                      pid, addr, nb)
                                                : GK_ERR_UNSUPPORTED;
            if (status != GK_OK)
                failed_pe = pe;
        }
        if (status != GK_OK)
            gk__error("%s: reading PE %d's block from its memory failed (%s)", op->name,
                      failed_pe, gk_strerror(status));
        status = closing_rounds_begin(op, failed_pe >= 0);
        if (status != GK_OK)
            return status;
    }
    return closing_rounds_next(op, "read another's memory");
}

int gk__team_next_alltoall(struct gk__team_op *op)
{
    int r;
    struct gk_team *t = op->team;
    int n = t->n, me = t->me;
    size_t nb = op->nbytes;
    const unsigned char *src = op->kind == GK__TEAM_ALLTOALLS ? op->work : op->src;
    unsigned char *dst = op->kind == GK__TEAM_ALLTOALLS ? op->work + (size_t)n * nb : op->dst;
    /* small: the rows gathered, row i from member i, after the packing. */
    unsigned char *rows = op->work + (op->kind == GK__TEAM_ALLTOALLS ? 2 * (size_t)n * nb : 0);
    int small = op->algo == GK__ALGO_SMALL, direct = op->algo == GK__ALGO_DIRECT;
    int put = op->algo == GK__ALGO_PUT;
    if (direct && op->stage >= 11)
        return alltoall_direct(op);
    if (put && op->stage >= 11)
        return put_blocks(op, nb);
    if (op->stage == 0) {
        int status = gk__p1_begin(op, small || direct || put ? GK__P1_GATHER : GK__P1_NONE);
        if (status != GK_OK)
            return status;
        if (direct && op->my_status == GK_OK) {
            uint64_t entry[2] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)op->src};
            gk__team_copy(gk__p1_my_block(op), entry, sizeof(entry));
        }
        if (put && op->my_status == GK_OK)
            put_entry(op, (size_t)n * nb);
        if (direct || put)
            op->buf = op->work;
        if (op->kind == GK__TEAM_ALLTOALLS && op->my_status == GK_OK) {
            /* Pack: element k of block i from src + (i * nelems + k) * sst. */
            size_t el = op->elem, ne = op->count;
            for (size_t i = 0; i < (size_t)n * ne; i++)
                gk__team_copy(op->work + i * el, (const unsigned char *)op->src + i * op->src_stride * el,
                       el);
        }
        if (small && op->my_status == GK_OK)
            gk__team_copy(gk__p1_my_block(op), src, (size_t)n * nb);
        if (small)
            op->buf = rows;
        op->stage = 1;
    }
    if (op->stage == 1) {
        if (p1_finish(op, &r))
            return r;
        op->round = 0;
        if (direct) {
            op->stage = 11;
            return alltoall_direct(op);
        }
        if (put) {
            op->stage = 11;
            r = put_blocks(op, nb);
            if (op->algo == GK__ALGO_PUT)
                return r;
            op->stage = 1; /* some dst is not symmetric: pairwise, below */
        }
        if (small) {
            for (int i = 0; i < n; i++)
                gk__team_copy(dst + (size_t)i * nb, rows + ((size_t)i * n + me) * nb, nb);
            op->stage = 5;
        } else if (op->algo == GK__ALGO_PAIRWISE) {
            gk__team_copy(dst + (size_t)me * nb, src + (size_t)me * nb, nb);
            op->stage = 2;
        } else {
            /* Bruck: tmp[k] = the block for me + k. */
            unsigned char *tmp = op->work + (op->kind == GK__TEAM_ALLTOALLS ? 2 * (size_t)n * nb : 0);
            for (int k = 0; k < n; k++)
                gk__team_copy(tmp + (size_t)k * nb, src + (size_t)team_mod(me + k, n) * nb, nb);
            op->stage = 3;
        }
    }
    if (op->stage == 2) { /* pairwise: round r+1 on box BULK + r */
        int rr = op->round + 1;
        if (rr < n) {
            gk__team_step_clear(op);
            /* Blocks that fit their box's chunk slots are sent without
             * waiting for an acknowledgement: all of them go in the first
             * step, so the exchanges overlap, and the later steps only
             * receive. Larger ones go a round at a time, since a step
             * ends only when its sends are out, and a box's receiver
             * acknowledges only in its own round. */
            int at_once = nb <= GK__TEAM_BULK_DEPTH * gk__team_box_chunk(GK__TEAM_BULK_BOX) &&
                          n - 1 <= GK__TEAM_MAX_TX;
            if (!at_once || op->round == 0) {
                int first = at_once ? 1 : rr, last = at_once ? n - 1 : rr;
                for (int k = first; k <= last; k++) {
                    int to = team_mod(me + k, n);
                    gk__team_step_send(op, to, GK__TEAM_BULK_BOX + k - 1,
                                       src + (size_t)to * nb, nb);
                }
            }
            int from = team_mod(me - rr, n);
            gk__team_step_recv(op, GK__TEAM_BULK_BOX + op->round, dst + (size_t)from * nb, nb,
                               GK__TEAM_RX_COPY);
            op->round++;
            return 0;
        }
        op->stage = 5;
    }
    if (op->stage == 3 || op->stage == 4) {
        unsigned char *tmp = op->work + (op->kind == GK__TEAM_ALLTOALLS ? 2 * (size_t)n * nb : 0);
        unsigned char *packs = tmp + (size_t)n * nb, *packr = packs + (size_t)n * nb;
        if (op->stage == 4) { /* unpack the round just done */
            int d = 1 << (op->round - 1);
            size_t at = 0;
            for (int k = 0; k < n; k++)
                if (k & d) {
                    gk__team_copy(tmp + (size_t)k * nb, packr + at, nb);
                    at += nb;
                }
        }
        int d = 1 << op->round;
        if (d < n) {
            size_t at = 0;
            for (int k = 0; k < n; k++)
                if (k & d) {
                    gk__team_copy(packs + at, tmp + (size_t)k * nb, nb);
                    at += nb;
                }
            gk__team_step_clear(op);
            gk__team_step_send(op, team_mod(me + d, n), GK__TEAM_BULK_BOX + op->round, packs, at);
            gk__team_step_recv(op, GK__TEAM_BULK_BOX + op->round, packr, at, GK__TEAM_RX_COPY);
            op->round++;
            op->stage = 4;
            return 0;
        }
        for (int k = 0; k < n; k++)
            gk__team_copy(dst + (size_t)team_mod(me - k, n) * nb, tmp + (size_t)k * nb, nb);
        op->stage = 5;
    }
    if (op->kind == GK__TEAM_ALLTOALLS) {
        size_t el = op->elem, ne = op->count;
        for (size_t i = 0; i < (size_t)n * ne; i++)
            gk__team_copy((unsigned char *)op->dst + i * op->dst_stride * el, dst + i * el, el);
    }
    return 1;
}

/*
 * host_buf.c: the host buffers, and the broadcast and reductions that run
 * through them where a team spans hosts (GK__ALGO_HIER).
 *
 * Between hosts only one PE per host moves data, over the engine's streams
 * (a pipelined binomial tree for a broadcast, the ring for a reduction);
 * within a host the PEs share one buffer in one PE's segment, the "head"'s:
 * the head copies each piece in once and every other member copies it out
 * once, so no member sends a message of data to another on its host.
 *
 * Where. Every segment holds a host buffer for each team slot but the
 * active sets' (the "teams' host buffers" region): a control page, then
 * HB_DEPTH pieces of HB_PIECE bytes. One per slot, not one per host
 * shared by whichever call is current, because calls of different teams
 * are in flight at once and each runs its own pipeline; calls of one team
 * run one at a time, so a slot's buffer has one user. The world's slot is
 * reserved at start-up with the region; a split's is taken with the
 * slot's scratch (gk__hb_populate), so a PE short of memory offers no slot
 * rather than dying of SIGBUS when a peer writes.
 *
 * Words. The control page holds the go word (line 0) and one ack word per
 * position among the host's members (line 1 + r). Each word is only ever
 * written by others and read by its owner, who waits for it on its own
 * segment (the engine's waits: a step's poll and ready, engine.h); each
 * holds a stamp, the call's number on the team above the piece's number
 * in the call, so words left from earlier calls are always smaller (call
 * numbers go on across the teams of a slot: team.c) and nothing is
 * cleared.
 *
 * Pieces out (a broadcast; a reduction's result). Piece s goes to buffer
 * piece s % HB_DEPTH. The head copies it in once the bytes are there
 * (a broadcast's head receives them from its parent in the tree meanwhile,
 * so piece s + 1 crosses hosts while piece s is copied out) and the
 * members' acks of piece s - HB_DEPTH say its place is free, then sets
 * stamp(s) in every member's go word. A member waits for that, copies the
 * piece to its dst and sets stamp(s) in its ack word at the head. The
 * head's step ends once every member has acknowledged the last piece: the
 * buffer is idle between calls, and a member writes into it (pieces in)
 * only after the next call's agreement, which the head has entered.
 *
 * Pieces in (a reduction). The head is the host's leader, position 0.
 * Piece s is a lane of HB_PIECE / L bytes from each of the host's L
 * members: member r puts its part of the vector in lane r of buffer piece
 * s % HB_DEPTH once its go word says the head has used piece s - HB_DEPTH,
 * and sets stamp(s) in its ack word; the head waits for every ack of s,
 * combines its own part and the lanes in team order into its result, and
 * sets stamp(s) in every go word. The leaders then run the ring between
 * hosts, so each element is combined once, by one leader, and every PE
 * receives the same bytes; then the pieces go out as above, numbered on
 * from the pieces in.
 */
#include "team/host_buf.h"

#include <stdatomic.h>
#include <string.h>

#include "base/log.h"
#include "coll/reduce_op.h"
#include "core/path.h"
#include "core/runtime.h"
#include "mem/seg_region.h"
#include "mem/segment.h"
#include "team/coll.h"

#define HB_PIECE ((size_t)64 * 1024)
#define HB_DEPTH 2
#define HB_CTRL ((size_t)4096)
#define HB_SLOT_SIZE (HB_CTRL + HB_DEPTH * HB_PIECE)
#define HB_SLOTS GK_TEAM_MAX /* not the active sets' */
#define HB_LINE ((size_t)64)
#define HB_BYTES_MAX ((size_t)8 << 30)
_Static_assert((GK__HB_LOCAL_MAX + 1) * HB_LINE <= HB_CTRL, "an ack word per member");

/* Reserved at start-up: the world's slot (slot 0), where the job spans
 * hosts (on one host no call uses a host buffer); the node's team never
 * spans hosts, and the splits' slots are taken when offered. The node map
 * is known before any segment is made. */
static size_t hb_region_used(int n_pes)
{
    return gk__rt.boot.node_size == n_pes ? 0 : HB_SLOT_SIZE;
}

static GK__SEG_REGION(hb_region, .name = "teams' host buffers", .size = HB_SLOTS * HB_SLOT_SIZE,
                      .align = (size_t)64 * 1024, .used = hb_region_used);

static size_t hb_go_offset(int slot)
{
    return hb_region.offset + (size_t)slot * HB_SLOT_SIZE;
}

static size_t hb_ack_offset(int slot, int rank)
{
    return hb_go_offset(slot) + HB_LINE * (size_t)(1 + rank);
}

static size_t hb_piece_offset(int slot, uint32_t seq)
{
    return hb_go_offset(slot) + HB_CTRL + (size_t)(seq % HB_DEPTH) * HB_PIECE;
}

int gk__hb_populate(int slot)
{
    if (slot < 0 || slot >= HB_SLOTS)
        return GK_OK;
    return gk__seg_populate(gk__rt.my_seg.base + hb_go_offset(slot), HB_SLOT_SIZE);
}

int gk__hb_usable(const struct gk_team *t, size_t bytes)
{
    /* Pieces are numbered in 24 bits (hb_stamp): lanes of 1 KiB at least. */
    if (t->n_hosts < 2 || t->slot < 0 || t->slot >= HB_SLOTS || bytes > HB_BYTES_MAX)
        return 0;
    for (int h = 0; h < t->n_hosts; h++)
        if (t->host_first[h + 1] - t->host_first[h] > GK__HB_LOCAL_MAX)
            return 0;
    return 1;
}

int gk__hb_shares(const struct gk_team *t)
{
    return t->n_hosts < t->n;
}

/* As the engine's stamps: the call above, the piece (from 1) below. */
static uint64_t hb_stamp(uint64_t call, uint32_t seq)
{
    return call << 24 | (uint64_t)(seq + 1);
}

static uint64_t hb_own_word(size_t offset)
{
    return atomic_load_explicit((_Atomic uint64_t *)(gk__rt.my_seg.base + offset),
                                memory_order_acquire);
}

static int hb_is_head(const struct gk__team_op *op)
{
    return op->team->pes[op->team->me] == op->hb.head;
}

/* My host's member k (team number). */
static int hb_local(const struct gk_team *t, int k)
{
    return t->host_members[t->host_first[t->my_host] + k];
}

/* Whether every member but the head has acknowledged `stamp`. */
static int hb_acked(const struct gk__team_op *op, uint64_t stamp)
{
    const struct gk_team *t = op->team;
    for (int r = 0; r < gk__team_local_n(t); r++)
        if (r != op->hb.head_rank && hb_own_word(hb_ack_offset(t->slot, r)) < stamp)
            return 0;
    return 1;
}

/* The path layer's name for these transfers, in its errors. */
static const char hb_name[] = "a team collective's host buffer";

/* A member is done with piece `seq`: its ack word at the head says so. */
static int hb_ack_piece(struct gk__team_op *op, uint32_t seq)
{
    const struct gk_team *t = op->team;
    return gk__path_flag64(op->hb.head, GK__AMO_SET, hb_ack_offset(t->slot, t->local_me),
                           hb_stamp(op->call, seq));
}

/* Sets `stamp` in every member's go word but the head's. */
static int hb_tell_members(struct gk__team_op *op, uint64_t stamp)
{
    const struct gk_team *t = op->team;
    for (int r = 0; r < gk__team_local_n(t); r++) {
        if (r == op->hb.head_rank)
            continue;
        int status =
            gk__path_flag64(t->pes[hb_local(t, r)], GK__AMO_SET, hb_go_offset(t->slot), stamp);
        if (status != GK_OK)
            return status;
    }
    return GK_OK;
}

static size_t hb_piece_bytes(const struct gk__hb_state *hb, uint32_t k)
{
    size_t at = (size_t)k * hb->piece;
    return hb->len - at < hb->piece ? hb->len - at : hb->piece;
}

static void hb_phase(struct gk__team_op *op, int head_member, uint32_t seq0, size_t len,
                     size_t piece, const void *from, void *to)
{
    struct gk__hb_state *hb = &op->hb;
    hb->head = op->team->pes[head_member];
    hb->head_rank = op->team->host_rank[head_member];
    hb->seq0 = seq0;
    hb->len = len;
    hb->piece = piece;
    hb->pieces = (uint32_t)((len + piece - 1) / piece);
    hb->done = 0;
    hb->from = from;
    hb->to = to;
}

/* ---- Pieces out ---- */

/* Whether the head can copy in its next piece: the bytes are there and the
 * piece HB_DEPTH before it, if of this phase, is out everywhere. */
static int hb_out_head_can(struct gk__team_op *op)
{
    const struct gk__hb_state *hb = &op->hb;
    const struct gk__team_step *st = &op->step;
    size_t have = st->has_rx && !st->rx.done ? st->rx.bytes : hb->len;
    size_t end = (size_t)hb->done * hb->piece + hb_piece_bytes(hb, hb->done);
    if (have < end)
        return 0;
    return hb->done < HB_DEPTH ||
           hb_acked(op, hb_stamp(op->call, hb->seq0 + hb->done - HB_DEPTH));
}

static int hb_out_head_ready(struct gk__team_op *op)
{
    const struct gk__hb_state *hb = &op->hb;
    if (hb->done == hb->pieces)
        return hb->pieces == 0 || hb_acked(op, hb_stamp(op->call, hb->seq0 + hb->pieces - 1));
    return hb_out_head_can(op);
}

static int hb_out_head_poll(struct gk__team_op *op, int *moved_p)
{
    struct gk__hb_state *hb = &op->hb;
    while (hb->done < hb->pieces && hb_out_head_can(op)) {
        uint32_t seq = hb->seq0 + hb->done;
        memcpy(gk__rt.my_seg.base + hb_piece_offset(op->team->slot, seq),
               hb->from + (size_t)hb->done * hb->piece, hb_piece_bytes(hb, hb->done));
        /* The go words' atomics order the copy before them. */
        int status = hb_tell_members(op, hb_stamp(op->call, seq));
        if (status != GK_OK)
            return status;
        hb->done++;
        *moved_p = 1;
    }
    return hb->done == hb->pieces && hb_out_head_ready(op);
}

static int hb_out_member_ready(struct gk__team_op *op)
{
    const struct gk__hb_state *hb = &op->hb;
    return hb->done == hb->pieces ||
           hb_own_word(hb_go_offset(op->team->slot)) >= hb_stamp(op->call, hb->seq0 + hb->done);
}

static int hb_out_member_poll(struct gk__team_op *op, int *moved_p)
{
    struct gk__hb_state *hb = &op->hb;
    const struct gk_team *t = op->team;
    while (hb->done < hb->pieces && hb_out_member_ready(op)) {
        uint32_t seq = hb->seq0 + hb->done;
        int status = gk__path_get_at(hb_name, hb->head, hb->to + (size_t)hb->done * hb->piece,
                                     hb_piece_offset(t->slot, seq), hb_piece_bytes(hb, hb->done),
                                     GK__PATH_DST_NOW);
        if (status == GK_OK)
            status = hb_ack_piece(op, seq);
        if (status != GK_OK)
            return status;
        hb->done++;
        *moved_p = 1;
    }
    return hb->done == hb->pieces;
}

/* The step of the pieces out, beside the streams already in it. */
static void hb_out_step(struct gk__team_op *op)
{
    int head = hb_is_head(op);
    op->step.poll = head ? hb_out_head_poll : hb_out_member_poll;
    op->step.ready = head ? hb_out_head_ready : hb_out_member_ready;
}

/* ---- Pieces in ---- */

static int hb_in_head_ready(struct gk__team_op *op)
{
    const struct gk__hb_state *hb = &op->hb;
    return hb->done == hb->pieces || hb_acked(op, hb_stamp(op->call, hb->seq0 + hb->done));
}

static int hb_in_head_poll(struct gk__team_op *op, int *moved_p)
{
    struct gk__hb_state *hb = &op->hb;
    const struct gk_team *t = op->team;
    while (hb->done < hb->pieces && hb_in_head_ready(op)) {
        uint32_t seq = hb->seq0 + hb->done;
        size_t at = (size_t)hb->done * hb->piece, bytes = hb_piece_bytes(hb, hb->done);
        const unsigned char *lanes = (const unsigned char *)gk__rt.my_seg.base +
                                     hb_piece_offset(t->slot, seq);
        unsigned char *acc = hb->to + at;
        gk__team_copy(acc, hb->from + at, bytes);
        for (int r = 1; r < gk__team_local_n(t); r++)
            gk__reduce_apply(acc, acc, lanes + (size_t)r * hb->piece, bytes / op->elem,
                             op->dtype, op->reduce);
        int status = hb_tell_members(op, hb_stamp(op->call, seq));
        if (status != GK_OK)
            return status;
        hb->done++;
        *moved_p = 1;
    }
    return hb->done == hb->pieces;
}

static int hb_in_member_ready(struct gk__team_op *op)
{
    const struct gk__hb_state *hb = &op->hb;
    return hb->done == hb->pieces || hb->done < HB_DEPTH ||
           hb_own_word(hb_go_offset(op->team->slot)) >=
               hb_stamp(op->call, hb->seq0 + hb->done - HB_DEPTH);
}

static int hb_in_member_poll(struct gk__team_op *op, int *moved_p)
{
    struct gk__hb_state *hb = &op->hb;
    const struct gk_team *t = op->team;
    while (hb->done < hb->pieces && hb_in_member_ready(op)) {
        uint32_t seq = hb->seq0 + hb->done;
        size_t lane = hb_piece_offset(t->slot, seq) + (size_t)t->local_me * hb->piece;
        int status = gk__path_put_at(hb_name, hb->head, lane,
                                     hb->from + (size_t)hb->done * hb->piece,
                                     hb_piece_bytes(hb, hb->done), GK__PATH_NO_WAKE,
                                     GK__PATH_SRC_FREE);
        if (status == GK_OK)
            status = gk__path_fence_peer(hb->head);
        if (status == GK_OK)
            status = hb_ack_piece(op, seq);
        if (status != GK_OK)
            return status;
        hb->done++;
        *moved_p = 1;
    }
    return hb->done == hb->pieces;
}

/* ---- Broadcast ---- */

/* The member that moves host h's data: the root on its own host, the
 * leader elsewhere. */
static int hb_bcast_head(const struct gk__team_op *op, int h)
{
    const struct gk_team *t = op->team;
    return h == t->host_of[op->root] ? op->root : t->leaders[h];
}

int gk__hb_bcast_next(struct gk__team_op *op)
{
    struct gk_team *t = op->team;
    if (op->round > 0)
        return 1;
    op->round = 1;
    int nh = t->n_hosts, rh = t->host_of[op->root];
    hb_phase(op, hb_bcast_head(op, t->my_host), 0, op->nbytes, HB_PIECE, op->dst, op->dst);
    gk__team_step_clear(op);
    if (hb_is_head(op)) {
        /* The engine's tree (coll.c) over the heads, by host from the
         * root's: relative v hears from v - 2^k, k its top bit. */
        int v = (t->my_host - rh + nh) % nh, k = -1;
        if (v > 0) {
            k = 31 - __builtin_clz((unsigned)v);
            gk__team_step_recv(op, GK__TEAM_BULK_BOX + k, op->dst, op->nbytes,
                               GK__TEAM_RX_COPY);
            op->step.forward = 1;
        }
        for (int j = k + 1; j < 31 && v + (1L << j) < nh; j++)
            gk__team_step_send(op, hb_bcast_head(op, (int)((rh + v + (1L << j)) % nh)),
                               GK__TEAM_BULK_BOX + j, op->dst, op->nbytes);
    }
    hb_out_step(op);
    return 0;
}

/* ---- Reductions ---- */

enum {
    HB_RED_IN = GK__HB_REDUCE_STAGE, /* the host's parts in, combined by its leader */
    HB_RED_RING,                     /* the leaders' ring (or Rabenseifner's) */
    HB_RED_OUT,                      /* the result out */
    HB_RED_DONE
};

int gk__hb_reduce_next(struct gk__team_op *op)
{
    struct gk_team *t = op->team;
    size_t bytes = op->count * op->elem;
    int leader = t->local_me == 0, nh = t->n_hosts;
    switch (op->stage) {
    case HB_RED_IN: {
        /* Lanes a line apiece at least, whole elements (at most 32 bytes,
         * a power of two). */
        size_t lane = HB_PIECE / (size_t)gk__team_local_n(t) / HB_LINE * HB_LINE;
        lane = lane / op->elem * op->elem;
        hb_phase(op, hb_local(t, 0), 0, bytes, lane, op->src, op->buf);
        gk__team_step_clear(op);
        op->step.poll = leader ? hb_in_head_poll : hb_in_member_poll;
        op->step.ready = leader ? hb_in_head_ready : hb_in_member_ready;
        op->stage = HB_RED_RING;
        op->round = 0;
        return 0;
    }
    case HB_RED_RING:
        if (leader && (gk__team_ring_fits(nh)
                           ? gk__team_ring_round(op, op->buf, op->count, nh - 1, nh - 1,
                                                 t->leaders, nh, t->my_host)
                           : gk__team_rabenseifner_round(op, op->buf, op->count, t->leaders,
                                                         nh, t->my_host)) == 0)
            return 0;
        op->stage = HB_RED_OUT;
    /* fallthrough */
    case HB_RED_OUT: {
        uint32_t seq0 = op->hb.pieces;
        hb_phase(op, hb_local(t, 0), seq0, bytes, HB_PIECE, op->buf, op->buf);
        gk__team_step_clear(op);
        hb_out_step(op);
        op->stage = HB_RED_DONE;
        return 0;
    }
    default:
        return 1;
    }
}

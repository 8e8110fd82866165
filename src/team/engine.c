/*
 * engine.c: the team collectives' engine (engine.h): streams of chunks
 * through the receivers' boxes, steps, the agreement's bookkeeping, the
 * queue of calls per team, and the handles of non-blocking calls.
 */
#include "team/engine.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "coll/reduce_op.h"
#include "core/coll_check.h"
#include "core/path.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "mem/seg_region.h"
#include "team/coll.h"

/*
 * Built with -DGK__TEAM_UNCHECKED=1, the engine skips the agreement's
 * comparisons (the digest, its extremes, the fields): only to measure what
 * the always-on check costs (docs/COLLECTIVES.md), never for use, since
 * PEs that disagree then get wrong data.
 */
#ifndef GK__TEAM_UNCHECKED
#define GK__TEAM_UNCHECKED 0
#endif

/* Every team slot's scratch, in every segment. */
struct gk__team_layout gk__team_layout;

/* The most a slot may take: what the region reserves for each (64
 * agreement boxes' worth). */
#define TEAM_SLOT_MAX                                                                    \
    ((size_t)GK__TEAM_MAX_BOXES * 2 * GK__TEAM_P1_DEPTH * GK__TEAM_PAGE + GK__TEAM_ACKS_SIZE)

/* The bulk boxes' window (bytes in flight per stream) when GK_TEAM_WINDOW
 * leaves it to the job's size: up to 128 KiB per box, 512 KiB for all of
 * a slot's bulk boxes, less from 17 PEs on, so the slots that every PE
 * reserves at start-up grow by little; 16 KiB (four pages) at least. */
#define TEAM_WINDOW_MIN (GK__TEAM_BULK_DEPTH * GK__TEAM_PAGE)
#define TEAM_WINDOW_MAX ((size_t)128 * 1024)
static size_t team_window_auto(int n_pes, int bulk_boxes)
{
    size_t budget = n_pes <= 16 ? (size_t)512 * 1024 : ((size_t)8 << 20) / (size_t)n_pes;
    size_t w = TEAM_WINDOW_MAX;
    while (w > TEAM_WINDOW_MIN && w * (size_t)bulk_boxes > budget)
        w /= 2;
    return w;
}

void gk__team_layout_for(int n_pes, size_t window, struct gk__team_layout *layout)
{
    int lg = gk__team_log2_up(n_pes);
    layout->p1_boxes = lg + lg / 2 + 2;
    layout->bulk_boxes = n_pes <= 16 && n_pes - 1 > lg ? n_pes - 1 : lg;
    if (layout->bulk_boxes < 1)
        layout->bulk_boxes = 1;
    layout->boxes = layout->p1_boxes + layout->bulk_boxes;
    layout->bulk_hdrs_at =
        (size_t)2 * (size_t)layout->p1_boxes * GK__TEAM_P1_DEPTH * GK__TEAM_PAGE;
    size_t hdrs = (size_t)layout->bulk_boxes * GK__TEAM_BULK_DEPTH * sizeof(struct gk__team_hdr);
    layout->bulk_at = layout->bulk_hdrs_at + (hdrs + GK__TEAM_PAGE - 1) / GK__TEAM_PAGE * GK__TEAM_PAGE;
    if (window == 0)
        window = team_window_auto(n_pes, layout->bulk_boxes);
    if (window < TEAM_WINDOW_MIN)
        window = TEAM_WINDOW_MIN;
    /* GK_TEAM_WINDOW: whole pages per chunk slot, and within a slot. */
    size_t chunk = window / GK__TEAM_BULK_DEPTH / GK__TEAM_PAGE * GK__TEAM_PAGE;
    while (chunk > GK__TEAM_PAGE &&
           layout->bulk_at + (size_t)layout->bulk_boxes * GK__TEAM_BULK_DEPTH * chunk +
                   GK__TEAM_ACKS_SIZE > TEAM_SLOT_MAX)
        chunk = chunk / 2 / GK__TEAM_PAGE * GK__TEAM_PAGE;
    layout->bulk_chunk = chunk;
    layout->acks_at = layout->bulk_at + (size_t)layout->bulk_boxes * GK__TEAM_BULK_DEPTH * chunk;
    layout->slot_size = layout->acks_at + GK__TEAM_ACKS_SIZE;
}

/* Reserved at start-up: the world's and the node's slots (engine.h). */
static size_t team_region_used(int n_pes)
{
    struct gk__team_layout layout;
    gk__team_layout_for(n_pes, gk__rt.config.team_window, &layout);
    return 2 * layout.slot_size;
}

static GK__SEG_REGION(team_region, .name = "teams",
                      .size = GK__TEAM_SLOTS * TEAM_SLOT_MAX,
                      .align = (size_t)64 * 1024, .used = team_region_used);

size_t gk__team_scratch_size(void)
{
    return gk__team_layout.slot_size;
}

size_t gk__team_scratch_offset(int slot)
{
    return team_region.offset + (size_t)slot * gk__team_layout.slot_size;
}

unsigned char *gk__team_scratch_mine(int slot)
{
    return (unsigned char *)gk__rt.my_seg.base + gk__team_scratch_offset(slot);
}

/* A chunk's stamp: the call in the high bits, the chunk's number on its
 * box in this call (from 1) in the low ones. */
#define STAMP_CHUNK_BITS 24
static uint64_t stamp_of(uint64_t call, uint32_t chunk)
{
    return call << STAMP_CHUNK_BITS | (uint64_t)(chunk + 1);
}

/*
 * The segment offsets of chunk slot `c` of box `box` in a call of `parity`
 * on the team of `slot`, its header's and its bytes': the one place that
 * reads the slot's map. The agreement boxes have a set per parity, each
 * chunk after its header in a page; the bulk boxes one set, the headers
 * apart (engine.h).
 */
size_t gk__team_chunk_at(int slot, int parity, int box, uint32_t c, size_t *data_p)
{
    const struct gk__team_layout *l = &gk__team_layout;
    size_t base = gk__team_scratch_offset(slot);
    if (box < l->p1_boxes) {
        size_t at = (((size_t)parity * (size_t)l->p1_boxes + (size_t)box) * GK__TEAM_P1_DEPTH +
                     c % GK__TEAM_P1_DEPTH) *
                    GK__TEAM_PAGE;
        *data_p = base + at + sizeof(struct gk__team_hdr);
        return base + at;
    }
    size_t k = (size_t)(box - l->p1_boxes) * GK__TEAM_BULK_DEPTH + c % GK__TEAM_BULK_DEPTH;
    *data_p = base + l->bulk_at + k * l->bulk_chunk;
    return base + l->bulk_hdrs_at + k * sizeof(struct gk__team_hdr);
}

static int parity(const struct gk__team_op *op)
{
    return (int)(op->call & 1);
}

static size_t chunk_offset(const struct gk__team_op *op, int box, uint32_t c, size_t *data_p)
{
    return gk__team_chunk_at(op->team->slot, parity(op), box, c, data_p);
}

static size_t ack_offset(const struct gk__team_op *op, int box)
{
    return gk__team_scratch_offset(op->team->slot) + gk__team_layout.acks_at +
           ((size_t)parity(op) * GK__TEAM_MAX_BOXES + (size_t)box) *
               sizeof(struct gk__team_ack);
}

/* ---- Steps ---- */

void gk__team_step_clear(struct gk__team_op *op)
{
    op->step.ntx = 0;
    op->step.has_rx = 0;
    op->step.forward = 0;
    op->step.poll = NULL;
    op->step.ready = NULL;
    op->step.poll_done = 0;
    op->step_live = 1;
}

void gk__team_step_send(struct gk__team_op *op, int member, int box, const void *src,
                        size_t len)
{
    struct gk__team_tx *tx = &op->step.tx[op->step.ntx++];
    tx->pe = op->team->pes[member];
    tx->box = box;
    tx->src = src;
    tx->len = len;
    size_t chunk = gk__team_box_chunk(box);
    tx->chunks = len == 0 ? 1 : (uint32_t)((len + chunk - 1) / chunk);
    tx->sent = 0;
    tx->first = op->tx_next[box];
    tx->box_final = 1;
    op->tx_next[box] += tx->chunks;
}

void gk__team_step_send_more(struct gk__team_op *op, int member, int box, const void *src,
                             size_t len)
{
    gk__team_step_send(op, member, box, src, len);
    op->step.tx[op->step.ntx - 1].box_final = 0;
}

void gk__team_step_recv(struct gk__team_op *op, int box, void *dst, size_t cap,
                        enum gk__team_rx_mode mode)
{
    struct gk__team_rx *rx = &op->step.rx;
    op->step.has_rx = 1;
    rx->box = box;
    rx->dst = dst;
    rx->cap = dst != NULL ? cap : 0;
    rx->bytes = 0;
    rx->got = 0;
    rx->mode = mode;
    rx->done = 0;
}

/* A chunk's header from `bytes` to `dhi`: what its sender writes beside
 * the stamp. */
#define HDR_FIELDS_AT offsetof(struct gk__team_hdr, bytes)
#define HDR_FIELDS_LEN (offsetof(struct gk__team_hdr, pad) - HDR_FIELDS_AT)

/* Whether [offset, +n) lies in the team slots' region. */
static int in_team_region(size_t offset, size_t n)
{
    size_t lo = team_region.offset, hi = lo + GK__TEAM_SLOTS * TEAM_SLOT_MAX;
    return offset >= lo && offset <= hi && n <= hi - offset;
}

/*
 * A chunk as one remote operation (net.h), run at the receiver: the
 * header's fields, the bytes, then the stamp and its wake-up check, as on
 * a mapped receiver. args: the chunk slot's header's segment offset, the
 * stamp, its bytes' offset; the payload: the header's fields, then the
 * chunk's bytes. A refusal is logged here: the sender posts it and never
 * hears why.
 */
static int chunk_rop(const uint64_t *args, const void *payload, size_t nbytes,
                     struct gk__net_rop_answer *answer)
{
    size_t hdr = (size_t)args[0], data = (size_t)args[2];
    size_t len = nbytes >= HDR_FIELDS_LEN ? nbytes - HDR_FIELDS_LEN : 0;
    if (nbytes < HDR_FIELDS_LEN || hdr % _Alignof(struct gk__team_hdr) != 0 ||
        !in_team_region(hdr, sizeof(struct gk__team_hdr)) || !in_team_region(data, len)) {
        gk__error("a team collective's message from the network refused: %zu bytes for the "
                  "chunk slot at segment offsets %zu and %zu, which are no team scratch's",
                  nbytes, hdr, data);
        return GK_ERR_UNSUPPORTED;
    }
    memcpy(gk__rt_own(hdr + HDR_FIELDS_AT), payload, HDR_FIELDS_LEN);
    memcpy(gk__rt_own(data), (const char *)payload + HDR_FIELDS_LEN, len);
    return gk__path_amo(gk__rt.my_pe, GK__AMO_SET, sizeof(uint64_t), hdr, (uint64_t)args[1],
                        0, &answer->result);
}

__attribute__((constructor)) static void chunk_register_rop(void)
{
    gk__net_rop_set(GK__NET_ROP_TEAM_CHUNK, chunk_rop);
}

/* The payload of chunk_rop's messages: the engine runs on one thread at a
 * time (engine.h), and rop_post is done with it when it returns. */
static unsigned char chunk_rop_buf[HDR_FIELDS_LEN + (size_t)64 * 1024];

/*
 * Sends chunk `j` of tx. To a receiver whose transport runs remote
 * operations: one message that lands the header and the bytes and then
 * sets the stamp there, where separate puts and an atomic would be three
 * messages and two acknowledgements. Else the data, the header, the
 * stamp: the stamp is an atomic, so it lands after the puts before it to
 * the same PE with no fence between (one would cost a round trip per chunk
 * where puts and atomics take different lanes); the next chunk's puts may
 * overtake it, but they go to another chunk slot, or to this one only once
 * the receiver has acknowledged what it held.
 */
static int tx_chunk(struct gk__team_op *op, struct gk__team_tx *tx)
{
    static const char name[] = "a team collective's message";
    uint32_t j = tx->sent, n = tx->first + j;
    size_t chunk = gk__team_box_chunk(tx->box);
    size_t at = (size_t)j * chunk;
    size_t len = tx->len - at < chunk ? tx->len - at : chunk;
    size_t data_at;
    size_t base = chunk_offset(op, tx->box, n, &data_at);
    struct gk__team_hdr h;
    h.bytes = (uint32_t)len;
    h.flags = j + 1 == tx->chunks ? (tx->box_final ? GK__TEAM_END | GK__TEAM_FINAL : GK__TEAM_END) : 0;
    h.from = (uint32_t)gk__rt.my_pe;
    h.fail = (uint16_t)op->agree.fail;
    h.pad0 = 0;
    h.dlo = op->agree.dlo;
    h.dhi = op->agree.dhi;
    uint64_t stamp = stamp_of(op->call, n);
    int status;
    size_t rop_max = gk__path_mapped(tx->pe) ? 0 : gk__path_rop_max(tx->pe);
    if (rop_max >= HDR_FIELDS_LEN + len && sizeof(chunk_rop_buf) >= HDR_FIELDS_LEN + len) {
        uint64_t args[GK__NET_ROP_ARGS] = {base, stamp, data_at, 0};
        memcpy(chunk_rop_buf, (const char *)&h + HDR_FIELDS_AT, HDR_FIELDS_LEN);
        if (len > 0)
            memcpy(chunk_rop_buf + HDR_FIELDS_LEN, tx->src + at, len);
        status = gk__path_rop_post(tx->pe, GK__NET_ROP_TEAM_CHUNK, args, chunk_rop_buf,
                                   HDR_FIELDS_LEN + len, GK__NET_POST_AWAITED);
    } else {
        status = gk__path_put_at(name, tx->pe, data_at, tx->src + at, len, GK__PATH_NO_WAKE,
                                 GK__PATH_SRC_FREE);
        if (status == GK_OK)
            status = gk__path_put_at(name, tx->pe, base + HDR_FIELDS_AT, &h.bytes, HDR_FIELDS_LEN,
                                     GK__PATH_NO_WAKE, GK__PATH_SRC_FREE);
        if (status == GK_OK)
            status = gk__path_flag64(tx->pe, GK__AMO_SET, base, stamp);
    }
    if (status == GK_OK)
        tx->sent++;
    return status;
}

static void agree_fold(struct gk__team_agree *a, const struct gk__team_hdr *h)
{
    if (GK__TEAM_UNCHECKED) {
        a->fail = h->fail > a->fail ? h->fail : a->fail;
        return;
    }
    if (h->dlo < a->dlo)
        a->dlo = h->dlo;
    if (h->dhi > a->dhi)
        a->dhi = h->dhi;
    if (h->fail > a->fail)
        a->fail = h->fail;
}

/* The fields' round: a sender's extremes of each field (lo then hi). */
static void agree_fold_fields(struct gk__team_agree *a, const unsigned char *data, size_t n)
{
    uint64_t v[2 * GK__TF_COUNT];
    if (n < sizeof(v))
        return;
    memcpy(v, data, sizeof(v));
    for (int f = 0; f < GK__TF_COUNT; f++) {
        if (v[f] < a->lo[f])
            a->lo[f] = v[f];
        if (v[GK__TF_COUNT + f] > a->hi[f])
            a->hi[f] = v[GK__TF_COUNT + f];
    }
}

/* Takes the chunk that has arrived (its stamp checked). */
static int rx_chunk(struct gk__team_op *op, struct gk__team_rx *rx, struct gk__team_hdr *hdr,
                    const unsigned char *data, uint64_t stamp)
{
    size_t chunk = gk__team_box_chunk(rx->box);
    agree_fold(&op->agree, hdr);
    size_t bytes = hdr->bytes < chunk ? hdr->bytes : chunk;
    size_t room = rx->cap > rx->bytes ? rx->cap - rx->bytes : 0;
    size_t keep = bytes < room ? bytes : room;
    if (rx->mode == GK__TEAM_RX_FIELDS)
        agree_fold_fields(&op->agree, data, bytes);
    else if (keep > 0) {
        if (rx->mode == GK__TEAM_RX_COPY)
            memcpy(rx->dst + rx->bytes, data, keep);
        else
            gk__reduce_apply(rx->dst + rx->bytes, rx->dst + rx->bytes, data,
                             keep / op->elem, op->dtype, op->reduce);
    }
    rx->bytes += bytes;
    rx->got++;
    uint32_t n = op->rx_next[rx->box]++; /* the chunk's number on its box */
    uint64_t flags = hdr->flags;
    int from = (int)hdr->from;
    /* A stream of one chunk is the common case: the next one on this box
     * comes in a later call, when the slot is free for sure (engine.h). An
     * ack is an atomic after this PE's earlier ones to the sender, so it
     * takes effect after them with no fence: the sender's ack word only
     * grows. So one ack covers the chunks before it, and only every other
     * chunk is acknowledged (the odd ones, and a stream's last): a sender
     * waits for chunk n - depth before it sends chunk n, and of chunks
     * n - depth and n - depth + 1, both sent, one is odd (depth >= 2). */
    if (!(flags & GK__TEAM_FINAL) && ((n & 1) || (flags & GK__TEAM_END))) {
        if ((unsigned)from >= (unsigned)gk__rt.n_pes) {
            gk__error("%s: a message names PE %d as its sender", op->name, from);
            return GK_ERR_SYSTEM;
        }
        int status = gk__path_flag64(from, GK__AMO_SET, ack_offset(op, rx->box), stamp);
        if (status != GK_OK)
            return status;
    }
    if (flags & GK__TEAM_END)
        rx->done = 1;
    return GK_OK;
}

/* The chunk slot a receive waits on (its header), and the stamp it waits
 * for. */
static struct gk__team_hdr *rx_slot(struct gk__team_op *op, const struct gk__team_rx *rx,
                                    uint64_t *stamp_p, const unsigned char **data_p)
{
    uint32_t n = op->rx_next[rx->box];
    *stamp_p = stamp_of(op->call, n);
    size_t data_at;
    size_t at = chunk_offset(op, rx->box, n, &data_at);
    *data_p = (const unsigned char *)gk__rt.my_seg.base + data_at;
    return (struct gk__team_hdr *)(gk__rt.my_seg.base + at);
}

/* Whether tx may send its next chunk: the slot is free (acknowledged) and,
 * in a forwarding step, the chunk has come in. */
static int tx_ready(struct gk__team_op *op, const struct gk__team_tx *tx)
{
    if (op->step.forward && !op->step.rx.done && op->step.rx.got <= tx->sent)
        return 0;
    uint32_t n = tx->first + tx->sent, depth = gk__team_box_depth(tx->box);
    if (n < depth)
        return 1;
    const _Atomic uint64_t *ack =
        &((struct gk__team_ack *)(gk__rt.my_seg.base + ack_offset(op, tx->box)))->value;
    return atomic_load_explicit(ack, memory_order_acquire) >= stamp_of(op->call, n - depth);
}

/* Moves the step on; 1 when it is complete, 0 when it waits, < 0 error.
 * *moved_p is set when anything moved. */
static int step_progress(struct gk__team_op *op, int *moved_p)
{
    struct gk__team_step *st = &op->step;
    int more = 1;
    while (more) {
        more = 0;
        if (st->has_rx && !st->rx.done) {
            uint64_t stamp;
            const unsigned char *data;
            struct gk__team_hdr *h = rx_slot(op, &st->rx, &stamp, &data);
            if (atomic_load_explicit(&h->stamp, memory_order_acquire) >= stamp) {
                int status = rx_chunk(op, &st->rx, h, data, stamp);
                if (status != GK_OK)
                    return status;
                more = 1;
            }
        }
        for (int i = 0; i < st->ntx; i++) {
            struct gk__team_tx *tx = &st->tx[i];
            if (tx->sent < tx->chunks && tx_ready(op, tx)) {
                int status = tx_chunk(op, tx);
                if (status != GK_OK)
                    return status;
                more = 1;
            }
        }
        if (st->poll != NULL && !st->poll_done) {
            int r = st->poll(op, &more);
            if (r < 0)
                return r;
            st->poll_done = r;
        }
        *moved_p |= more;
    }
    if (st->poll != NULL && !st->poll_done)
        return 0;
    if (st->has_rx && !st->rx.done)
        return 0;
    for (int i = 0; i < st->ntx; i++)
        if (st->tx[i].sent < st->tx[i].chunks)
            return 0;
    return 1;
}

/* Whether the op's step could move now (the blocking wait's predicate). */
static int step_could_move(const void *arg)
{
    struct gk__team_op *op = (struct gk__team_op *)arg;
    if (op->done || !op->step_live)
        return 1;
    struct gk__team_step *st = &op->step;
    if (st->has_rx && !st->rx.done) {
        uint64_t stamp;
        const unsigned char *data;
        struct gk__team_hdr *h = rx_slot(op, &st->rx, &stamp, &data);
        if (atomic_load_explicit(&h->stamp, memory_order_acquire) >= stamp)
            return 1;
    }
    for (int i = 0; i < st->ntx; i++)
        if (st->tx[i].sent < st->tx[i].chunks && tx_ready(op, &st->tx[i]))
            return 1;
    return st->poll != NULL && !st->poll_done && st->ready(op);
}

/* ---- Agreement ---- */

static void agree_init(struct gk__team_op *op)
{
    for (int f = 0; f < GK__TF_COUNT; f++)
        op->agree.lo[f] = op->agree.hi[f] = op->mine[f];
    if (op->root_invalid) {
        /* A root that is no PE is this PE's error, not a disagreement:
         * it is left out of the comparison. */
        op->agree.lo[GK__TF_ROOT] = UINT64_MAX;
        op->agree.hi[GK__TF_ROOT] = 0;
    }
    op->agree.fail = op->my_status < 0 ? (uint64_t)-(int64_t)op->my_status : 0;
    /* The digest: a mix of the fields (a root that is no PE left out, as
     * in the fields' comparison, so it differs and the fields' round
     * sorts it out). */
    uint64_t d = 0x9e3779b97f4a7c15ull;
    for (int f = 0; f < GK__TF_COUNT && !GK__TEAM_UNCHECKED; f++) {
        uint64_t v = f == GK__TF_ROOT && op->root_invalid ? UINT64_MAX : op->mine[f];
        d ^= v + 0x9e3779b97f4a7c15ull + (d << 6) + (d >> 2);
        d *= 0xbf58476d1ce4e5b9ull;
        d ^= d >> 31;
    }
    op->agree.dlo = op->agree.dhi = d;
}

static const char *field_plural[GK__TF_COUNT] = {"calls", "roots", "sizes",
                                                 "types or operations"};

/* The other kind of call than this PE's, between the extremes. */
static uint64_t other_kind(const struct gk__team_op *op)
{
    const struct gk__team_agree *a = &op->agree;
    return a->lo[GK__TF_KIND] != (uint64_t)op->kind ? a->lo[GK__TF_KIND] : a->hi[GK__TF_KIND];
}

static int verdict_kinds(struct gk__team_op *op, int first)
{
    op->team->broken = 1;
    if (op->team == gk__team_world()) {
        /* One of the job's collective calls: out of step for good. */
        if (first)
            gk__error("collective mismatch: this PE is in %s (collective #%llu) while other "
                      "PEs are in %s (%s on the world team)",
                      op->name, (unsigned long long)gk__coll_state.seq,
                      gk__coll_name((unsigned)gk__team_coll_kind((int)other_kind(op))),
                      gk__team_kind_name(other_kind(op)));
        gk__coll_note_mismatch((unsigned)gk__team_coll_kind((int)other_kind(op)));
    } else if (first) {
        gk__error("%s: collective mismatch on a team of %d PEs: this PE is in %s while "
                  "others are in %s; the team's collectives are out of step for good",
                  op->name, op->team->n, gk__team_kind_name((uint64_t)op->kind),
                  gk__team_kind_name(other_kind(op)));
    }
    return GK_ERR_COLL_MISMATCH;
}

int gk__team_verdict(struct gk__team_op *op)
{
    const struct gk__team_agree *a = &op->agree;
    int first = !op->verdict_checked;
    op->verdict_checked = 1;
    if (a->lo[GK__TF_KIND] != a->hi[GK__TF_KIND])
        return verdict_kinds(op, first);
    if (op->my_status != GK_OK)
        return op->my_status; /* it said why */
    for (int f = GK__TF_ROOT; f < GK__TF_COUNT && !GK__TEAM_UNCHECKED; f++) {
        if (a->lo[f] >= a->hi[f])
            continue; /* all alike, or none compared */
        if (first && op->report_args != NULL) {
            op->report_args(op);
        } else if (first) {
            const char *what = f == GK__TF_ROOT && op->root_what != NULL ? op->root_what
                               : f == GK__TF_TYPE && op->type_what != NULL ? op->type_what
                               : f == GK__TF_SIZE && op->size_what != NULL ? op->size_what
                                                                          : field_plural[f];
            if (f == GK__TF_TYPE && op->type_what == NULL)
                gk__error("%s: the team's PEs passed different %s; nothing was delivered",
                          op->name, what);
            else
                gk__error("%s: the team's PEs passed different %s (from %llu to %llu; this "
                          "PE %llu); nothing was delivered",
                          op->name, what, (unsigned long long)a->lo[f],
                          (unsigned long long)a->hi[f], (unsigned long long)op->mine[f]);
        }
        return GK_ERR_INVALID_ARG;
    }
    if (a->fail != 0) {
        if (first)
            gk__error("%s: failed on another PE of the team (%s); nothing was delivered",
                      op->name, gk_strerror(-(int)a->fail));
        return -(int)a->fail;
    }
    return GK_OK;
}

/* ---- Calls ---- */

_Atomic int gk__team_pending;
static struct gk__team_op *nb_list; /* non-blocking calls, done or not */
static uint64_t nb_serial;

/*
 * Who moves calls on: the application's threads, whenever they are inside
 * gasket, and with GK_PROGRESS_THREAD=1 the progress thread too, so that a
 * non-blocking call moves while the application computes. engine_lock
 * keeps them one at a time; it is taken only once more than one thread can
 * be inside gasket (gk__rt.threaded). A thread already inside the engine
 * does not enter again: a put's own progress calls back into it.
 */
static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int in_engine;     /* this thread is moving calls */
static _Thread_local int engine_locked; /* and holds engine_lock */
/* A waiter found another thread inside and will sleep: that one wakes the
 * PE's sleepers on its way out, so nobody spins on the lock. */
static _Atomic int engine_missed;
/* Application threads in a blocking wait, moving every call themselves:
 * the progress thread stands aside meanwhile. */
static _Atomic int app_waiters;

/* Enters the engine (1), or not (0): this thread is inside already, or
 * (unless `block`) another thread is. */
static int engine_enter(int block)
{
    if (in_engine)
        return 0;
    if (gk__rt.threaded) {
        if (block)
            pthread_mutex_lock(&engine_lock);
        else if (pthread_mutex_trylock(&engine_lock) != 0)
            return 0;
        engine_locked = 1;
    }
    in_engine = 1;
    return 1;
}

static void engine_leave(void)
{
    in_engine = 0;
    if (engine_locked) {
        engine_locked = 0;
        pthread_mutex_unlock(&engine_lock);
        /* Against engine_enter_or_note: its note, then its try; our
         * release, then this look. */
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&engine_missed, memory_order_relaxed) &&
            atomic_exchange_explicit(&engine_missed, 0, memory_order_relaxed))
            gk__progress_wake_sleepers();
    }
}

/* For a wait's predicate: enters the engine (1), or, with another thread
 * inside, notes that this one sleeps on it (0). */
static int engine_enter_or_note(void)
{
    if (engine_enter(0))
        return 1;
    if (in_engine)
        return 0;
    atomic_store_explicit(&engine_missed, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    return engine_enter(0); /* the other may have left before the note */
}

void gk__team_slot_set(struct gk_team **entry, struct gk_team *team)
{
    int entered = engine_enter(1);
    *entry = team;
    if (entered)
        engine_leave();
}

static void queue_pop(struct gk_team *t);

void gk__team_queue_drop(struct gk_team *t)
{
    int entered = engine_enter(1);
    while (t->queue_head != NULL) {
        struct gk__team_op *op = t->queue_head;
        queue_pop(t);
        for (struct gk__team_op **pp = &nb_list; *pp != NULL; pp = &(*pp)->nb_next)
            if (*pp == op) {
                *pp = op->nb_next;
                break;
            }
        gk__team_op_free(op);
    }
    if (entered)
        engine_leave();
}

void gk__team_op_free(struct gk__team_op *op)
{
    free(op->work);
    free(op->sizes);
    free(op->p1.mem);
    free(op);
}

/* Moves the op (its team's current call) on; 1 once it is done. */
static int op_progress(struct gk__team_op *op, int *moved_p)
{
    /* Check mode: the clocks its members started it with join each
     * member's once it is over (core/path_race.c). */
    if (GK__UNLIKELY(gk__race_on) && !op->race_entered) {
        op->race_entered = 1;
        gk__path_race_coll_enter(GK__PATH_RACE_KEY_TEAM(op->team->slot), op->call);
    }
    while (!op->done) {
        if (!op->step_live) {
            int r = op->next(op);
            if (r != 0) {
                op->status = r < 0 ? r : op->status;
                op->done = 1;
                break;
            }
            *moved_p = 1;
            continue;
        }
        int r = step_progress(op, moved_p);
        if (r < 0) {
            op->status = r;
            op->done = 1;
            break;
        }
        if (r == 0)
            return 0;
        op->step_live = 0;
    }
    if (GK__UNLIKELY(gk__race_on) && op->race_entered == 1 && op->status == GK_OK) {
        op->race_entered = 2;
        gk__path_race_coll_leave(GK__PATH_RACE_KEY_TEAM(op->team->slot), op->call,
                                 op->team->pes,
                                 op->team->n);
    }
    return 1;
}

static int progress_hook_ready(void);

/* Takes a finished call off its team's queue. */
static void queue_pop(struct gk_team *t)
{
    struct gk__team_op *op = t->queue_head;
    t->queue_head = op->queue_next;
    if (t->queue_head == NULL)
        t->queue_tail = NULL;
    if (atomic_fetch_sub_explicit(&gk__team_pending, 1, memory_order_relaxed) == 1)
        gk__progress_set_extra(NULL, NULL); /* idle: the waits skip the hook */
}

/* Moves the team's calls on, oldest first. */
static void team_progress(struct gk_team *t, int *moved_p)
{
    while (t->queue_head != NULL) {
        struct gk__team_op *op = t->queue_head;
        if (!op_progress(op, moved_p))
            return;
        queue_pop(t);
    }
}

/* Every team with calls in its queue: the world, the node, the split
 * teams and an open active set (team.c keeps them). Inside the engine. */
static int every_team_progress(void)
{
    int moved = 0;
    for (int i = 0; i < GK__TEAM_SLOTS; i++) {
        struct gk_team *t = gk__team_in_slot(i);
        if (t != NULL && t->queue_head != NULL)
            team_progress(t, &moved);
    }
    return moved;
}

/* Whether some team's current call could move now. Inside the engine. */
static int every_team_could_move(void)
{
    for (int i = 0; i < GK__TEAM_SLOTS; i++) {
        struct gk_team *t = gk__team_in_slot(i);
        if (t != NULL && t->queue_head != NULL && step_could_move(t->queue_head))
            return 1;
    }
    return 0;
}

int gk__team_start(struct gk__team_op *op)
{
    struct gk_team *t = op->team;
    int entered = engine_enter(1);
    if (t->broken) {
        if (entered)
            engine_leave();
        gk__error("%s: the team's collectives are out of step since an earlier mismatch",
                  op->name);
        gk__team_op_free(op);
        return GK_ERR_COLL_MISMATCH;
    }
    op->call = ++t->calls;
    gk__coll_team_started(t->slot, op->call);
    op->mine[GK__TF_KIND] = (uint64_t)op->kind;
    agree_init(op);
    op->queue_next = NULL;
    if (t->queue_tail != NULL)
        t->queue_tail->queue_next = op;
    else
        t->queue_head = op;
    t->queue_tail = op;
    if (atomic_fetch_add_explicit(&gk__team_pending, 1, memory_order_relaxed) == 0)
        gk__progress_set_extra(gk__team_progress, progress_hook_ready);
    /* Send what can go at once: a call moves as soon as it is started. */
    if (entered) {
        if (t->queue_head == op) {
            int moved = 0;
            team_progress(t, &moved);
        }
        engine_leave();
    }
    return GK_OK;
}

int gk__team_progress(void)
{
    if (atomic_load_explicit(&gk__team_pending, memory_order_relaxed) == 0 ||
        (gk__progress_on_thread() &&
         atomic_load_explicit(&app_waiters, memory_order_relaxed) > 0) ||
        !engine_enter(0))
        return 0;
    int moved = every_team_progress();
    engine_leave();
    return moved;
}

/* The progress thread's predicate: some call could move, and no
 * application thread moves them (one in a blocking wait, or inside). */
static int progress_hook_ready(void)
{
    if (atomic_load_explicit(&gk__team_pending, memory_order_relaxed) == 0 ||
        atomic_load_explicit(&app_waiters, memory_order_relaxed) > 0)
        return 0;
    if (!engine_enter_or_note())
        return 0;
    int could = every_team_could_move();
    engine_leave();
    return could;
}

/* The blocking wait's predicate: the op is done or some call could move
 * (another thread inside wakes this one as it leaves). */
static int op_could_move(const void *arg)
{
    const struct gk__team_op *op = arg;
    if (!engine_enter_or_note())
        return 0;
    int could = op->done || every_team_could_move();
    engine_leave();
    return could;
}

/* op_wait's loop. */
static int op_wait_moving(struct gk__team_op *op)
{
    for (;;) {
        int entered = engine_enter(1);
        if (entered)
            every_team_progress();
        int done = op->done;
        if (entered)
            engine_leave();
        if (done)
            break;
        /* Sleep until a word of the runtime's changes: a step waits for
         * its receive's stamp and its sends' acks at once, all in the
         * teams' regions, below the heap. A write to the program's heap (a
         * fetch-add from another PE while this one waits in a barrier)
         * wakes it no more: that wake-up cost each such operation a futex
         * wake and this thread's run, 6 of a fetch-add's 15 us across 2
         * simulated hosts. */
        int status =
            gk__path_wait_own(GK__WAKE_WATCH_BELOW(GK__SEG_HEAP_OFFSET), op_could_move, op);
        if (status != GK_OK) {
            /* A PE died or the world's collectives broke: this call cannot
             * end; it stays queued and the team is unusable. */
            op->team->broken = 1;
            return status;
        }
    }
    return op->status;
}

/* Waits until op is done (it stays allocated). */
static int op_wait(struct gk__team_op *op)
{
    /* gk_team_destroy completes the calls in flight and frees the team:
     * a handle waited on after it must not reach the team through op. */
    if (op->done)
        return op->status;
    /* For the look at deadlocks across teams (core/coll_check.h). */
    struct gk__coll_wait w = {op->name, op->team->slot, op->call, op->team->pes, op->team->n};
    if (op->team == gk__team_world()) {
        w.key = GK__COLL_KEY_WORLD;
        w.call = op->world_call;
    }
    if (op->team->slot != GK__TEAM_ASET_SLOT)
        gk__coll_wait_begin(&w);
    atomic_fetch_add_explicit(&app_waiters, 1, memory_order_relaxed);
    int status = op_wait_moving(op);
    atomic_fetch_sub_explicit(&app_waiters, 1, memory_order_relaxed);
    gk__coll_wait_end();
    /* The progress thread stood aside: calls left in flight are its again. */
    if (atomic_load_explicit(&gk__team_pending, memory_order_relaxed) > 0)
        gk__progress_wake_sleepers();
    return status;
}

int gk__team_wait(struct gk__team_op *op)
{
    int status = op_wait(op);
    if (op->done)
        gk__team_op_free(op);
    return status;
}

/* ---- Handles ---- */

#define TEAM_HANDLE_TAG (GK__HANDLE_COLL_TAG << 48)
#define TEAM_HANDLE_MASK ((uint64_t)0xffff << 48)

gk_handle_t gk__team_handle(struct gk__team_op *op)
{
    gk__handle_coll_complete = gk__team_handle_complete;
    int entered = engine_enter(1);
    op->handle_id = ++nb_serial;
    op->nb_next = nb_list;
    nb_list = op;
    gk_handle_t handle = {TEAM_HANDLE_TAG | op->handle_id};
    if (entered)
        engine_leave();
    return handle;
}

int gk__team_handle_is(gk_handle_t handle)
{
    return (handle.opaque & TEAM_HANDLE_MASK) == TEAM_HANDLE_TAG;
}

/* The handle's call, and where the list points at it; inside the engine. */
static struct gk__team_op **nb_find(uint64_t id)
{
    struct gk__team_op **pp = &nb_list;
    while (*pp != NULL && (*pp)->handle_id != id)
        pp = &(*pp)->nb_next;
    return pp;
}

int gk__team_handle_complete(const char *call, gk_handle_t *handle, int wait, int *done_p)
{
    uint64_t id = handle->opaque & ~TEAM_HANDLE_MASK;
    int entered = engine_enter(1);
    struct gk__team_op *op = *nb_find(id);
    if (op == NULL) {
        if (entered)
            engine_leave();
        gk__error("%s: handle %#llx names no collective in flight (completed already?)",
                  call, (unsigned long long)handle->opaque);
        return GK_ERR_INVALID_ARG;
    }
    int status = GK_OK;
    if (wait) {
        if (entered)
            engine_leave();
        status = op_wait(op);
        entered = engine_enter(1);
    } else if (entered) {
        every_team_progress();
    }
    if (status == GK_OK)
        status = op->status;
    int done = op->done;
    if (done)
        *nb_find(id) = op->nb_next; /* only the application's threads change the list */
    if (entered)
        engine_leave();
    if (done_p != NULL)
        *done_p = done;
    if (done) {
        gk__team_op_free(op);
        *handle = GK_HANDLE_NULL;
    }
    return done || status < 0 ? status : GK_OK;
}

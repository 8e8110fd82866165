/*
 * engine.h: the one engine every team collective runs on.
 *
 * Messages. A collective is a series of steps; in a step a PE sends up to
 * GK__TEAM_MAX_TX streams of bytes and receives at most one. A stream
 * travels through a box of the receiver's scratch (a slot of the "teams"
 * region of every segment, one slot per team): a few chunk slots, each a
 * header, whose stamp word says which call and which chunk it holds, and
 * the chunk's bytes. The sender puts the data and the header, then sets
 * the stamp with an atomic (ordered after the puts to the same PE without
 * a fence: gasket.h, "Atomics"), which wakes the receiver; to a receiver
 * whose transport runs remote operations (another host's, over UCX) the
 * three go as one message that the receiver's side lands in that order
 * (GK__NET_ROP_TEAM_CHUNK). A chunk slot is refilled only after the receiver has acknowledged the
 * chunk before it there (an ack word in the sender's scratch, one per box),
 * so a long stream pipelines as deep as its box has chunk slots. A
 * stream's last chunk is flagged and never acknowledged: the box is free
 * again once every member has finished the call (below).
 *
 * Boxes. The agreement rounds use boxes 0 .. GK__TEAM_P1_BOXES - 1 (one per
 * round): GK__TEAM_P1_DEPTH chunk slots of GK__TEAM_CHUNK bytes (a chunk
 * and its header fill a page), and two sets of them, used by calls of odd
 * and even number: the next use of such a box by the same team is two
 * calls later, and a member that has finished a call knows every member
 * started it, so every member finished the call before (below,
 * "Agreement"). The bulk algorithms use the rest (gk__team_layout): one
 * set, since a bulk phase starts only after the call's agreement, when
 * every member has started the call and so finished the one before; and
 * bigger, deeper chunk slots, so a stream between hosts is not held to a
 * page per round trip. Who sends to whom is fixed by the algorithm, and
 * every algorithm receives at most one stream per box per call.
 * A step may also carry work of its own, polled with its streams and
 * seen by the waits' predicate (struct gk__team_step's poll and ready):
 * the copies through a host's shared buffer of the hierarchical
 * algorithms (host_buf.c).
 *
 * Footprint: a slot is 16 KiB per agreement box (two pages deep, two
 * sets), a window per bulk box (gk__team_layout_for: 128 KiB for small
 * jobs, down to 16 KiB from 64 PEs) and 8 KiB of ack words: 392 KiB at
 * 512 PEs. The world's and the node's are reserved in /dev/shm at
 * start-up with the rest of the runtime's area; a split takes the pages
 * of its slot then (gk__seg_populate), and a PE that cannot offers no
 * slot, so the split fails with GK_ERR_NOMEM everywhere rather than a
 * member dying of SIGBUS later.
 *
 * Agreement. Every call begins with rounds in which each member hears,
 * directly or through others, from every member: a dissemination over the
 * team, or over each host, its leaders, then each host again. Every header
 * carries the smallest and largest value of each of the call's fields
 * (kind, root, size, type and operation) that its sender has heard of, and
 * the worst failure of a member's own argument checks; so after those
 * rounds every member holds the same extremes and the same verdict, on
 * every call and without a message of its own. Small payloads travel in
 * those rounds (broadcast, gather); large ones after them, only when the
 * verdict is good (a member that passed a smaller size never receives more
 * than its buffer holds: a receiver keeps what fits).
 *
 * Calls run one at a time per team, in the order they were started, each
 * moved on by whichever thread of the PE is inside gasket
 * (gk__team_progress), the progress thread included when there is one
 * (GK_PROGRESS_THREAD=1), one thread at a time; a blocking collective
 * starts its call and waits for it.
 */
#ifndef GK_TEAM_ENGINE_H
#define GK_TEAM_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "team/host_buf.h"
#include "team/team.h"

#define GK__TEAM_MAX_BOXES 64
#define GK__TEAM_PAGE ((size_t)4096)
#define GK__TEAM_P1_DEPTH 2
#define GK__TEAM_CHUNK ((size_t)4032) /* an agreement chunk and its header fill a page */
#define GK__TEAM_BULK_DEPTH 4

/*
 * A slot's map, fixed at gk_init from the job's PE count n (the same on
 * every PE) and GK_TEAM_WINDOW; gk__team_chunk_at is the one place that
 * turns it into offsets. Its boxes: the agreement's
 * ceil(log2 n) + ceil(log2 n) / 2 + 2 (room for the levels up to
 * 2^(log2 n / 2 + 1) PEs per host; p1.c goes flat where they would need
 * more), and the bulk algorithms' ceil(log2 n), or n - 1 up to 16 PEs
 * (pairwise exchange). In the slot: the agreement boxes' chunk slots
 * [set][box][GK__TEAM_P1_DEPTH] of a page each (a header, the chunk after
 * it), then the bulk boxes' headers [box][GK__TEAM_BULK_DEPTH], then their
 * chunks [box][GK__TEAM_BULK_DEPTH] of bulk_chunk bytes (whole pages, a
 * quarter of the window: a block of the window's size fills a box's
 * chunk slots exactly), then the ack words of the streams this PE sends,
 * [set][GK__TEAM_MAX_BOXES].
 */
struct gk__team_layout {
    int p1_boxes, bulk_boxes, boxes;
    size_t bulk_chunk; /* bytes of a bulk box's chunk: whole pages */
    size_t bulk_hdrs_at; /* the bulk boxes' headers' offset in the slot */
    size_t bulk_at;      /* their chunks' */
    size_t acks_at;      /* the ack words' */
    size_t slot_size;
};
extern struct gk__team_layout gk__team_layout;
/* window: the bytes a bulk stream has in flight (GK_TEAM_WINDOW; 0: by
 * the PE count). */
void gk__team_layout_for(int n_pes, size_t window, struct gk__team_layout *layout);
#define GK__TEAM_P1_BOXES (gk__team_layout.p1_boxes)
/* The segment offsets of chunk slot c % depth of `box` in a call of
 * `parity` on the team of scratch slot `slot`: its header's, and its
 * bytes' (*data_p). */
size_t gk__team_chunk_at(int slot, int parity, int box, uint32_t c, size_t *data_p);

/* A box's chunk size and how many chunk slots it has. */
static inline size_t gk__team_box_chunk(int box)
{
    return box < gk__team_layout.p1_boxes ? GK__TEAM_CHUNK : gk__team_layout.bulk_chunk;
}
static inline uint32_t gk__team_box_depth(int box)
{
    return box < gk__team_layout.p1_boxes ? GK__TEAM_P1_DEPTH : GK__TEAM_BULK_DEPTH;
}
#define GK__TEAM_MAX_TX 20

/* The fields every member must pass alike; the kind of call first. */
enum gk__team_field { GK__TF_KIND, GK__TF_ROOT, GK__TF_SIZE, GK__TF_TYPE, GK__TF_COUNT };

/* A chunk's header: one cache line, the stamp first; an agreement
 * chunk's bytes right after it. Beside the chunk, the extremes of the digest of the
 * call's fields its sender has heard of, and the worst failure of a
 * member's own checks (-status). */
struct gk__team_hdr {
    _Alignas(64) _Atomic uint64_t stamp;
    uint32_t bytes; /* in this chunk */
    uint16_t flags; /* GK__TEAM_END, GK__TEAM_FINAL */
    uint16_t fail;
    uint32_t from; /* the sender's world PE */
    uint32_t pad0;
    uint64_t dlo, dhi;
    uint64_t pad[3];
};
#define GK__TEAM_END 1u   /* the stream's last chunk */
#define GK__TEAM_FINAL 2u /* the box's last chunk in this call: no ack */
_Static_assert(sizeof(struct gk__team_hdr) == 64, "a header is a line");

struct gk__team_ack {
    _Alignas(64) _Atomic uint64_t value;
};

/* A slot's ack words (gk__team_layout). */
#define GK__TEAM_ACKS_SIZE (2 * GK__TEAM_MAX_BOXES * sizeof(struct gk__team_ack))

/* A stream this PE sends in a step. */
struct gk__team_tx {
    int pe;  /* world PE */
    int box;
    const unsigned char *src;
    size_t len;
    uint32_t chunks; /* how many: at least one, an empty stream is a header */
    uint32_t sent;
    uint32_t first;  /* the number of its first chunk on the box in this call */
    int box_final;   /* no more streams to this box in this call */
};

/* What a received chunk's bytes do: land at dst + offset, or be combined
 * into it (op->combine), or nothing (dst NULL). */
enum gk__team_rx_mode {
    GK__TEAM_RX_COPY,
    GK__TEAM_RX_COMBINE,
    GK__TEAM_RX_FIELDS /* the sender's field extremes, folded into the call's */
};

struct gk__team_rx {
    int box;
    unsigned char *dst;
    size_t cap;   /* bytes dst holds; more is dropped */
    size_t bytes; /* received so far */
    uint32_t got; /* chunks so far */
    enum gk__team_rx_mode mode;
    int done;
};

struct gk__team_step {
    int ntx;
    struct gk__team_tx tx[GK__TEAM_MAX_TX];
    int has_rx;
    struct gk__team_rx rx;
    /* The sends forward what is received: chunk j goes out once chunk j
     * came in (a pipelined tree). */
    int forward;
    /* Work of the step's own beside its streams (host_buf.c's copies
     * through a host buffer), polled with them: poll returns 1 once it
     * is over, 0 while it waits, < 0 on error, and sets *moved_p when it
     * moved; ready says whether poll could move now (the waits'
     * predicate). NULL: none. */
    int (*poll)(struct gk__team_op *op, int *moved_p);
    int (*ready)(struct gk__team_op *op);
    int poll_done;
};

/* A collective call's agreement: the extremes heard of, of the digest of
 * the call's fields and (after a second round, only when the digests
 * differ) of the fields themselves; lo and hi are contiguous, the second
 * round's payload. */
struct gk__team_agree {
    uint64_t lo[GK__TF_COUNT], hi[GK__TF_COUNT];
    uint64_t dlo, dhi;
    uint64_t fail;
};

typedef int gk__team_next_fn(struct gk__team_op *op);

/* One level of the agreement rounds: a dissemination over `g` members
 * (team numbers members[0 .. g-1]; I am members[gi], or not in it: gi
 * -1), its rounds on boxes box, box + 1, ... */
struct gk__p1_level {
    const int *members;
    int g, gi, box;
    int root_gi; /* a broadcast's source in the level; -1: no payload */
};

/* The agreement rounds' state (p1.c). */
struct gk__p1_state {
    int mode;
    int nlevels, level, round;
    struct gk__p1_level lv[3];
    size_t *roff;          /* a gather level's offsets, by relative unit */
    size_t *usize;         /* a gather level's unit sizes, by member */
    unsigned char *stage;  /* a gather level's units, relative order */
    unsigned char *mine;   /* this PE's block (GATHER, REDUCE) */
    unsigned char *agg;    /* a host's blocks, or partial (hier) */
    size_t *host_bytes;    /* by host (hier GATHER) */
    void *mem;             /* all of the above, one allocation */
};

struct gk__team_op {
    struct gk_team *team;
    uint64_t call; /* its number on the team, from 1 */
    uint64_t world_call; /* on the world team, its number among the job's calls */
    int kind;      /* enum gk__team_kind (coll.h) */
    const char *name;
    const char *root_what; /* the root field's plural in messages (NULL: roots) */
    const char *type_what; /* the type field's plural in messages (NULL: types) */
    const char *size_what; /* the size field's (NULL: sizes) */
    /* Says how the PEs' arguments differ, where the call words it its own
     * way (NULL: by field). */
    void (*report_args)(const struct gk__team_op *op);
    struct gk__team_agree agree;
    uint64_t mine[GK__TF_COUNT]; /* this PE's fields */
    int my_status;               /* this PE's own checks */
    int root_invalid;            /* its root is no PE: not compared */
    /* The algorithm: next() sets up the following step in `step`, or
     * returns 1 when the call is over (0: a step is ready; < 0 an error). */
    gk__team_next_fn *next;
    int stage;
    int round;
    struct gk__team_step step;
    int step_live;
    /* Chunks sent and received on each box in this call. */
    uint32_t tx_next[GK__TEAM_MAX_BOXES];
    uint32_t rx_next[GK__TEAM_MAX_BOXES];
    /* The call's arguments and working memory (coll.c). */
    void *dst;
    const void *src;
    unsigned char *buf; /* the agreement rounds' payload or result (p1.c) */
    size_t nbytes, count, elem;
    gk_dtype_t dtype;
    gk_op_t reduce;
    int root;
    size_t dst_size, *total_p;
    size_t dst_stride, src_stride;
    unsigned char *work; /* malloc'd, freed with the op */
    size_t work_size;
    size_t *sizes; /* per member (collect) */
    int algo;
    struct gk__p1_state p1;
    struct gk__hb_state hb; /* host_buf.c's */
    int status;   /* the outcome, once done */
    int done;
    int verdict_checked;
    int race_entered; /* check mode's race detector saw it start */
    uint64_t handle_id; /* nonzero for a non-blocking call */
    struct gk__team_op *queue_next;
    struct gk__team_op *nb_next; /* the list of non-blocking calls */
};

/* ---- Steps, for the algorithms (coll_*.c) ---- */

/* A new step, empty; then its sends and its receive (member: team number;
 * box: the receiver's box; a receive's dst may be NULL: dropped). */
void gk__team_step_clear(struct gk__team_op *op);
void gk__team_step_send(struct gk__team_op *op, int member, int box, const void *src,
                        size_t len);
/* The same, for a stream that more streams to the same box follow in this
 * call (a ring's rounds). */
void gk__team_step_send_more(struct gk__team_op *op, int member, int box, const void *src,
                             size_t len);
void gk__team_step_recv(struct gk__team_op *op, int box, void *dst, size_t cap,
                        enum gk__team_rx_mode mode);

/* Whether the digests heard of differ: the fields' round must follow. */
static inline int gk__team_digests_differ(const struct gk__team_op *op)
{
    return op->agree.dlo != op->agree.dhi;
}

/* Whether every member's fields agree and no member failed, from what
 * this PE has heard; logs and returns the error once the call is known
 * to have failed (at the end of the agreement rounds). */
int gk__team_verdict(struct gk__team_op *op);

/* ---- Calls ---- */

/* Starts a call of `op` (allocated with malloc, its fields set) on its
 * team: queued behind the team's earlier calls. Returns GK_OK, or an
 * error (the op is freed) when the team is broken. */
int gk__team_start(struct gk__team_op *op);
/* Frees an op and what it holds (one never started, or finished). */
void gk__team_op_free(struct gk__team_op *op);
/* Waits for the op (started) to finish and frees it; its status. */
int gk__team_wait(struct gk__team_op *op);
/* Registers a started op as a non-blocking call: its handle. */
gk_handle_t gk__team_handle(struct gk__team_op *op);

/* Moves every team's current call on as far as it goes without waiting
 * (the progress engine calls it while calls are pending); whether anything
 * moved. Does nothing while another thread moves them. */
int gk__team_progress(void);
extern _Atomic int gk__team_pending;

/* Handles of non-blocking collectives (rma.c's gk_handle_* dispatch). */
int gk__team_handle_is(gk_handle_t handle);
int gk__team_handle_complete(const char *call, gk_handle_t *handle, int wait, int *done_p);

/* Sets which team holds a slot (team.c's table, which the engine walks):
 * inside the engine, so that a thread moving calls never meets a team half
 * built or already freed. */
void gk__team_slot_set(struct gk_team **entry, struct gk_team *team);
/* Frees the calls left in a team's queue, which a broken team's never
 * finish, and forgets their handles (gk_finalize). */
void gk__team_queue_drop(struct gk_team *t);

/* This PE's scratch slot `slot`, its segment offset and size. */
unsigned char *gk__team_scratch_mine(int slot);
size_t gk__team_scratch_offset(int slot);
size_t gk__team_scratch_size(void);

#endif /* GK_TEAM_ENGINE_H */

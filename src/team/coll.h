/*
 * coll.h: the team collectives' calls and algorithms (coll.c, p1.c) on the
 * engine (engine.h).
 */
#ifndef GK_TEAM_COLL_H
#define GK_TEAM_COLL_H

#include <string.h>

#include "team/engine.h"

/* The kinds of call, for the agreement and for messages. */
#define GK__TEAM_KIND_TABLE(X)                                                           \
    X(BARRIER, "gk_team_barrier")                                                        \
    X(BROADCAST, "gk_team_broadcast")                                                    \
    X(ALLREDUCE, "gk_team_allreduce")                                                    \
    X(REDUCE, "gk_team_reduce")                                                          \
    X(REDUCE_SCATTER, "gk_team_reduce_scatter")                                          \
    X(SCAN, "gk_team_scan")                                                              \
    X(EXSCAN, "gk_team_exscan")                                                          \
    X(FCOLLECT, "gk_team_fcollect")                                                      \
    X(COLLECT, "gk_team_collect")                                                        \
    X(ALLTOALL, "gk_team_alltoall")                                                      \
    X(ALLTOALLS, "gk_team_alltoalls")                                                    \
    X(SPLIT, "gk_team_split")                                                            \
    X(DESTROY, "gk_team_destroy")                                                        \
    X(MALLOC, "gk_team_malloc")                                                          \
    X(FREE, "gk_team_free")

enum gk__team_kind {
    GK__TEAM_KIND_NONE = 0,
#define GK__TEAM_KIND_ENUM(name, text) GK__TEAM_##name,
    GK__TEAM_KIND_TABLE(GK__TEAM_KIND_ENUM)
#undef GK__TEAM_KIND_ENUM
};

const char *gk__team_kind_name(uint64_t kind);

/* The algorithms (docs/COLLECTIVES.md): what GK_TEAM_ALGO_<OP> names. */
enum gk__team_algo {
    GK__ALGO_AUTO = 0,
    GK__ALGO_SMALL,    /* the data rides in the agreement rounds */
    GK__ALGO_TREE,     /* pipelined binomial tree (broadcast) */
    GK__ALGO_RING,     /* ring (all-reduce: reduce-scatter + all-gather) */
    GK__ALGO_PAIRWISE, /* all-to-all: n - 1 exchanges */
    GK__ALGO_BRUCK,    /* all-to-all in log2 n rounds */
    GK__ALGO_CHAIN,    /* scan: a pipeline from PE 0 up */
    GK__ALGO_HIER,     /* across hosts by leaders, a host buffer within (host_buf.c) */
    GK__ALGO_RABENSEIFNER, /* all-reduce: recursive halving, then doubling */
    GK__ALGO_DIRECT,       /* all-to-all on one host: each PE reads its blocks (one copy) */
    GK__ALGO_PUT           /* all-to-all, fcollect into symmetric dst: each PE puts */
};

/* GK_TEAM_LEVELS: the agreement rounds over hosts then leaders (hier), or
 * over the team at once (flat); auto is hier where a team spans hosts with
 * several of its PEs on one. */
enum gk__team_levels { GK__LEVELS_AUTO, GK__LEVELS_FLAT, GK__LEVELS_HIER };

struct gk__team_tuning {
    enum gk__team_levels levels;
    enum gk__team_algo bcast, allreduce, fcollect, alltoall, scan;
    int ring_max;  /* GK_TEAM_RING_MAX */
    int direct_ok; /* every PE may read its host's PEs' memory (read_private) */
};
extern struct gk__team_tuning gk__team_tuning;
/* Reads the GK_TEAM_* variables; GK_ERR_INVALID_ARG with a message for a
 * value that names no algorithm. */
int gk__team_tuning_init(void);

/* Switch points of the automatic choices (bytes; docs/COLLECTIVES.md). */
#define GK__TEAM_BCAST_SMALL_MAX ((size_t)8192)    /* broadcast in the agreement */
/* The gathers (reductions, scans, collects): a block of at most
 * GK__TEAM_GATHER_BLOCK_MAX bytes, and at most GK__TEAM_GATHER_TOTAL_MAX
 * gathered in all; above either, a ring or a chain. */
#define GK__TEAM_GATHER_BLOCK_MAX ((size_t)2048)
#define GK__TEAM_GATHER_TOTAL_MAX ((size_t)4 << 20)
static inline int gk__team_gather_fits(size_t block, size_t total)
{
    return block <= GK__TEAM_GATHER_BLOCK_MAX && total <= GK__TEAM_GATHER_TOTAL_MAX;
}
#define GK__TEAM_ALLTOALL_BRUCK_MAX ((size_t)256)  /* block: Bruck's all-to-all */
#define GK__TEAM_ALLTOALL_SMALL_MAX ((size_t)8192) /* all rows: in the agreement */
#define GK__TEAM_ALLTOALL_DIRECT_MIN ((size_t)65536) /* block: direct, on one host */
/* put, across hosts, chosen where the n - 1 rounds of pairwise or the
 * ring, each waiting for every PE, cost more than the puts, which wait for
 * none (measured on 2 simulated hosts, docs/COLLECTIVES.md): all-to-all
 * blocks of 256 KiB and more over 8 PEs or more, of 16 KiB and more over
 * 16 or more; fcollect blocks of 256 KiB and more over 16 PEs or more
 * (each block goes n - 1 times, where the ring forwards it). */
#define GK__TEAM_PUT_MIN ((size_t)256 * 1024)
#define GK__TEAM_PUT_MIN_16 ((size_t)16 * 1024)
static inline int gk__team_alltoall_put_auto(int n, size_t block)
{
    return (n >= 8 && block >= GK__TEAM_PUT_MIN) || (n >= 16 && block >= GK__TEAM_PUT_MIN_16);
}
static inline int gk__team_fcollect_put_auto(int n, size_t block)
{
    return n >= 16 && block >= GK__TEAM_PUT_MIN;
}
/* What the direct all-to-all's agreement gathers from each PE: its
 * process and its src's address; the put all-to-all's: whether its dst is
 * symmetric memory, and its segment offset. */
#define GK__TEAM_DIRECT_ENTRY (2 * sizeof(uint64_t))
/* The algorithm of a broadcast of nbytes, and of an all-reduce, reduce or
 * reduce-scatter of `bytes` (gather_fits: the gather could take it), on
 * team t: GK_TEAM_ALGO_*, or the automatic choice (tuning.c): where the
 * team spans hosts and some host holds several of its members, the
 * hierarchical algorithms (host_buf.c) above the agreement's sizes. */
enum gk__team_algo gk__team_choose_bcast(const struct gk_team *t, size_t nbytes);
enum gk__team_algo gk__team_choose_allreduce(const struct gk_team *t, size_t bytes,
                                             int gather_fits);

/* memmove that takes any pointers for 0 bytes (a call's buffers may be
 * NULL when it moves nothing). */
static inline void gk__team_copy(void *dst, const void *src, size_t n)
{
    if (n != 0)
        memmove(dst, src, n);
}

/* The algorithms' next() functions (coll.c). */
int gk__team_next_headers_only(struct gk__team_op *op);
int gk__team_next_bcast(struct gk__team_op *op);
int gk__team_next_reduce(struct gk__team_op *op);
int gk__team_next_scan(struct gk__team_op *op);
int gk__team_next_fcollect(struct gk__team_op *op);
int gk__team_next_collect(struct gk__team_op *op);
int gk__team_next_alltoall(struct gk__team_op *op);

/* One round of the ring (reduce-scatter rounds, then all-gather rounds;
 * op->round counts them) over n members (team numbers members[0 .. n-1],
 * or 0 .. n-1 where members is NULL; I am the me-th) on acc's count
 * elements: 0 when a step is ready, 1 when the rounds are over. */
int gk__team_ring_round(struct gk__team_op *op, unsigned char *acc, size_t count,
                        int rs_rounds, int ag_rounds, const int *members, int n, int me);

/* One step of Rabenseifner's all-reduce (op->round counts them) over n
 * members as gk__team_ring_round's: where n is no power of two, the first
 * 2r members (n = 2^L + r) pair up and the even one hands its vector to
 * the odd one; then L steps of recursive halving (a reduce-scatter: each
 * step sends half of what a member holds to a partner 2^k away and
 * combines the other half with the partner's), L steps of recursive
 * doubling that undo them (an all-gather), and the odd member of each
 * pair hands the result back. Each element is combined once, by one
 * member, so every member gets the same bits. 0 when a step is ready, 1
 * when the steps are over. Needs L + 1 bulk boxes (L where n is a power of
 * two). */
int gk__team_rabenseifner_round(struct gk__team_op *op, unsigned char *acc, size_t count,
                                const int *members, int n, int me);
/* Whether an all-reduce over n members (a team's, or its hosts' leaders)
 * takes the ring (else Rabenseifner's): GK_TEAM_RING_MAX. */
static inline int gk__team_ring_fits(int n)
{
    return n <= gk__team_tuning.ring_max;
}

/* The entry points with the caller's name (the world forms, world.c, use
 * them too); handle_p NULL: blocking. radix 0: none given. */
int gk__team_barrier(const char *name, gk_team_t team, gk_handle_t *handle_p);
int gk__team_broadcast(const char *name, gk_team_t team, void *dst, const void *src,
                       size_t nbytes, int root, int radix, gk_handle_t *handle_p);
int gk__team_reduction(const char *name, enum gk__team_kind kind, gk_team_t team, void *dst,
                       const void *src, size_t count, gk_dtype_t dtype, gk_op_t rop, int root,
                       gk_handle_t *handle_p);
int gk__team_fcollect(const char *name, gk_team_t team, void *dst, const void *src,
                      size_t nbytes, gk_handle_t *handle_p);
int gk__team_alltoall(const char *name, enum gk__team_kind kind, gk_team_t team, void *dst,
                      const void *src, size_t nbytes, size_t dst_stride, size_t src_stride,
                      size_t elem, size_t nelems, gk_handle_t *handle_p);

/* The job's collective-call kind (core/coll_check.h) of a team call on
 * the world team. */
int gk__team_coll_kind(int kind);

/* A blocking gather of nbytes from every member of t into dst (team
 * order), as a call of `kind` whose root, size and type fields are
 * fields[0..2], named in messages what[0..2] (plurals; NULL, or a NULL
 * entry: the defaults) (the splits and destroy, team.c); status: this
 * PE's own checks. */
int gk__team_gather(const char *name, enum gk__team_kind kind, struct gk_team *t, void *dst,
                    const void *src, size_t nbytes, const uint64_t fields[3],
                    const char *const what[3], int status);

/*
 * A blocking all-reduce of maxima of count 64-bit words from src into dst
 * over t, as a call of `kind` whose root, size and type fields are
 * fields[0..2] (count 0: the agreement alone); `report_args` says how the
 * members' fields differ (NULL: the engine's words); status: this PE's
 * own checks. The team heap calls' votes (team_heap.c).
 */
int gk__team_agree_max(const char *name, enum gk__team_kind kind, struct gk_team *t,
                       uint64_t *dst, const uint64_t *src, size_t count,
                       const uint64_t fields[3],
                       void (*report_args)(const struct gk__team_op *op), int status);

/* ---- The agreement rounds (p1.c) ---- */

/* What their messages carry. */
enum gk__p1_mode {
    GK__P1_NONE,    /* headers only */
    GK__P1_BCAST,   /* op->work (nbytes) from team PE op->root */
    GK__P1_GATHER,  /* every PE's block (op->sizes) to op->work, in team order */
    GK__P1_REDUCE,  /* every PE's count elements combined, to op->work */
    GK__P1_FIELDS   /* the call's fields' extremes (a second round, when the
                     * digests differ: engine.h, "Agreement") */
};

/* Sets up the agreement rounds of op in `mode` (p1.c): the levels, and
 * for GATHER and REDUCE this PE's block already at its place in op->work
 * (gk__p1_my_block). */
int gk__p1_begin(struct gk__team_op *op, enum gk__p1_mode mode);
/* The same rounds' pattern, flat over the team, on boxes from `box`: a
 * gather after the agreement (collect's blocks once their sizes are known). */
int gk__p1_begin_at(struct gk__team_op *op, enum gk__p1_mode mode, int box);
/* The next step of the rounds: 0 when one is ready, 1 when they are over
 * (op->work then holds the payload), < 0 on error. */
int gk__p1_next(struct gk__team_op *op);
/* Where this PE puts its own block before the rounds (GATHER, REDUCE). */
unsigned char *gk__p1_my_block(struct gk__team_op *op);

/* The first bulk box (after the agreement's), and how many there are: a
 * tree's levels, a pairwise exchange's rounds and Bruck's rounds each take
 * one. */
#define GK__TEAM_BULK_BOX (gk__team_layout.p1_boxes)
#define GK__TEAM_BULK_BOXES (gk__team_layout.bulk_boxes)

/* ceil(log2 n) */
static inline int gk__team_log2_up(int n)
{
    int r = 0;
    while ((1L << r) < n)
        r++;
    return r;
}

/* The team's scratch slots' teams (team.c), for the engine's progress. */
struct gk_team *gk__team_in_slot(int slot);

#endif /* GK_TEAM_COLL_H */

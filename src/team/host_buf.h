/*
 * host_buf.h: the host buffers (host_buf.c), through which the PEs of a
 * host share the large broadcasts and reductions of a team that spans
 * hosts: one copy in, one copy out, and between hosts one PE per host.
 */
#ifndef GK_TEAM_HOST_BUF_H
#define GK_TEAM_HOST_BUF_H

#include <stddef.h>
#include <stdint.h>

struct gk__team_op;
struct gk_team;

/* The most members of a team on one host that a host buffer serves (its
 * acknowledgement words); a team with more on some host goes flat. */
#define GK__HB_LOCAL_MAX 63

/* A call's use of its host's buffer: the current phase of pieces. */
struct gk__hb_state {
    int head;           /* the world PE whose buffer the host uses */
    int head_rank;      /* its position among the host's members */
    uint32_t seq0;      /* the phase's first piece number in the call */
    uint32_t pieces;    /* in the phase */
    uint32_t done;      /* pieces this PE has handled */
    size_t piece;       /* bytes of a piece (in: of one member's lane) */
    size_t len;         /* bytes the phase moves (in: per member) */
    const unsigned char *from;
    unsigned char *to;
};

/* Whether team t can run the hierarchical algorithms on `bytes` (a
 * vector, a broadcast's payload): it spans hosts, no host holds more than
 * GK__HB_LOCAL_MAX of its members, its slot has a host buffer, and bytes
 * is at most 8 GiB. The same answer on every member. */
int gk__hb_usable(const struct gk_team *t, size_t bytes);
/* Whether some host holds several of t's members (where the buffer
 * saves messages over the flat algorithms). */
int gk__hb_shares(const struct gk_team *t);

/* Takes the pages of slot `slot`'s host buffer in this PE's segment (a
 * split's slot, as its scratch); GK_OK or GK_ERR_NOMEM. */
int gk__hb_populate(int slot);

/* The broadcast after its agreement (coll.c, stage 3 on): 0 a step is
 * ready, 1 done. */
int gk__hb_bcast_next(struct gk__team_op *op);

/* The reductions after their agreement, from stage GK__HB_REDUCE_STAGE:
 * the result to op->buf on every PE; 0 a step is ready, 1 done. */
#define GK__HB_REDUCE_STAGE 3
int gk__hb_reduce_next(struct gk__team_op *op);

#endif /* GK_TEAM_HOST_BUF_H */

/*
 * team.h: a team of PEs (gasket.h, "Teams and their collectives") as the
 * collectives' engine sees it: its members in team order, how they lie on
 * hosts, the scratch slot its messages travel through, and its queue of
 * collective calls.
 *
 * A team's members are world PEs, pes[0 .. n-1] in team order. Hosts are the
 * groups of members whose memory maps each other's (gk__path_host); they are
 * numbered in the order of their first member, and the first member of
 * each host is its leader. Every member computes the same grouping from the
 * same boot information, so every member runs the same algorithm.
 */
#ifndef GK_TEAM_TEAM_H
#define GK_TEAM_TEAM_H

#include <stdint.h>

#include "gasket.h"

#define GK__TEAM_MAGIC 0x7465616du /* "team" */

/* The scratch slots (engine.h): one for each team that may exist at once,
 * and one more for OpenSHMEM's active sets (team.c, "Active sets"), which
 * no split takes. */
#define GK__TEAM_ASET_SLOT GK_TEAM_MAX
#define GK__TEAM_SLOTS (GK_TEAM_MAX + 1)

struct gk__team_op;

struct gk_team {
    uint32_t magic;
    int slot; /* its scratch slot (engine.h), the same on every member */
    int n;    /* members */
    int me;   /* my number in the team */
    int *pes; /* the world PE of each member */
    /* Hosts: n_hosts of them; host_of[i] is member i's host, members of
     * host h are host_members[host_first[h] .. host_first[h + 1] - 1], in
     * team order (the first is the leader). */
    int n_hosts;
    int my_host;
    int *host_of;
    int *host_first;
    int *host_members;
    int *host_rank; /* member i's position among its host's members */
    int *leaders;   /* the leader (first member) of each host */
    int local_me;   /* my position among my host's members */
    /* The collective calls started on the team (the next one's number is
     * calls + 1), and those not yet finished, oldest first. */
    uint64_t calls;
    struct gk__team_op *queue_head, *queue_tail;
    /* Set when the members were found in different calls: every later
     * collective on the team fails at once. */
    int broken;
    int predefined; /* GK_TEAM_WORLD or GK_TEAM_NODE: not destroyed */
    /* Its symmetric blocks (team_heap.c): the owner their heap entries
     * carry, this PE's own number for the team (never reused), and how
     * many are live; a team with live blocks is not destroyed. */
    uint64_t heap_owner;
    size_t heap_blocks;
};

/* The team behind a handle, or NULL (logged, naming `op` and the handle)
 * for an invalid one, a destroyed one, or one this PE is not in. */
struct gk_team *gk__team_get(const char *op, gk_team_t team);
/* The same, naming the argument `arg` ("parent") in the message. */
struct gk_team *gk__team_get_arg(const char *op, const char *arg, gk_team_t team);

/* The world team (always valid after gk_init). */
struct gk_team *gk__team_world(void);

/* My host's members: their count and my position among them. */
static inline int gk__team_local_n(const struct gk_team *t)
{
    return t->host_first[t->my_host + 1] - t->host_first[t->my_host];
}

/*
 * The active sets of OpenSHMEM's deprecated collectives (team.c): the
 * world PEs start, start + stride, ... (size of them), this PE among
 * them, called by those PEs only, with `sync` the caller's pSync
 * (symmetric, 2 * GK__TEAM_ASET_ROUNDS words, 0 before the call and after
 * it). gk__team_aset_barrier() is a barrier over them on `sync` alone.
 * gk__team_aset_open() gives a team of them for the call's collectives
 * (one at least, called in the same order by every member), and
 * gk__team_aset_close() ends it (the OpenSHMEM layer's, shmem/coll.c).
 */
#define GK__TEAM_ASET_ROUNDS 16
int gk__team_aset_barrier(const char *name, int start, int stride, int size, uint64_t *sync);
int gk__team_aset_open(const char *name, int start, int stride, int size, uint64_t *sync,
                       gk_team_t *team_p);
void gk__team_aset_close(gk_team_t *team_p);

#endif /* GK_TEAM_TEAM_H */

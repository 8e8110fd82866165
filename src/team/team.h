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
};

/* The team behind a handle, or NULL (logged, naming `op` and the handle)
 * for an invalid one, a destroyed one, or one this PE is not in. */
struct gk_team *gk__team_get(const char *op, gk_team_t team);

/* The world team (always valid after gk_init). */
struct gk_team *gk__team_world(void);

/* My host's members: their count and my position among them. */
static inline int gk__team_local_n(const struct gk_team *t)
{
    return t->host_first[t->my_host + 1] - t->host_first[t->my_host];
}

#endif /* GK_TEAM_TEAM_H */

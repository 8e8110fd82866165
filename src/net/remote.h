/*
 * remote.h: what the network transports (ucx, ofi) share: the inbox that
 * arriving active messages go into, with the held queue for when it is
 * full; the protocol of remote operations (remote.c), the slots their
 * callers wait for replies in and the run at the target; the refusals of
 * posted remote operations that the next quiet reports; and the end of
 * the job when a peer's connection fails.
 */
#ifndef GK_NET_REMOTE_H
#define GK_NET_REMOTE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

struct gk__boot;

/* An active message that found this PE's inbox full, kept in order. */
struct gk__remote_held {
    struct gk__remote_held *next;
    struct gk__net_am msg;
    uint64_t args[GK__NET_AM_MAX_ARGS];
    size_t data_len;
    unsigned char data[]; /* a medium message's payload */
};

/*
 * This PE's own inbox (shm_ring.h) as the network's arrivals see it: they
 * go in as a sender on this node would put them there, or, when it is
 * full, into the held queue, and every later message goes behind them
 * until it is empty again, so the messages of one sender stay in the
 * order sent. The queue has no bound: the network has already taken the
 * message, and refusing it would only move the queue there.
 */
struct gk__remote_inbox {
    char *seg_base; /* this PE's segment, mapped: its inbox */
    _Atomic uint64_t released, next; /* our side of it, as a sender's */
    pthread_mutex_t lock;
    struct gk__remote_held *head, *tail; /* lock */
    _Atomic uint64_t n_held;
};

void gk__remote_inbox_init(struct gk__remote_inbox *in, char *seg_base);
/* Frees what is held; the inbox is not used after. */
void gk__remote_inbox_fini(struct gk__remote_inbox *in);
/* A message (and a medium message's payload of data_len bytes) into the
 * inbox, behind those held, or held itself. Never waits. */
void gk__remote_inbox_land(struct gk__remote_inbox *in, const struct gk__net_am *msg,
                           const uint64_t *args, const void *data, size_t data_len);
/* Moves held messages into the inbox as it frees up: how many moved. */
int gk__remote_inbox_drain(struct gk__remote_inbox *in);

/* A free slot of `n_words` * 64 (the bits of `taken`), taken; yields
 * while all are taken (one ends soon). */
unsigned gk__remote_slot_take(_Atomic uint64_t *taken, unsigned n_words);
void gk__remote_slot_give(_Atomic uint64_t *taken, unsigned slot);

/* A remote operation's caller, waiting for its reply in one of a fixed
 * set of slots. The transport keeps its own request (how it waits) for
 * each slot, by the same index. */
struct gk__remote_rop_slot {
    _Atomic uint64_t round; /* the slot's use, named by the reply's token */
    int status;
    /* The caller's answer (net.h): the reply's result and data land in
     * it, the data bounded by its max. */
    struct gk__net_rop_answer *answer;
};
#define GK__REMOTE_ROP_SLOTS 256
struct gk__remote_rop_table {
    struct gk__remote_rop_slot slots[GK__REMOTE_ROP_SLOTS];
    _Atomic uint64_t taken[GK__REMOTE_ROP_SLOTS / 64];
};

/* A free slot, taken; the caller then readies its request for the slot
 * and arms it. */
static inline unsigned gk__remote_rop_take(struct gk__remote_rop_table *t)
{
    return gk__remote_slot_take(t->taken, GK__REMOTE_ROP_SLOTS / 64);
}
/* Starts the slot's next use, with `answer` for its reply: the token to
 * send, which the reply carries back. */
uint64_t gk__remote_rop_arm(struct gk__remote_rop_table *t, unsigned slot,
                            struct gk__net_rop_answer *answer);
/* Ends the use of `token`'s slot, once the send and the wait gave
 * `status`: the operation's status. On an error the slot stays taken and
 * its round moves on, so that a late reply is dropped; a target that had
 * no memory for the answer is reported here, for remote operation `op`
 * to `pe`. */
int gk__remote_rop_end(struct gk__remote_rop_table *t, uint64_t token, int status, int op, int pe);
/* The slot that a reply with `token` is for, or -1 when the reply is for
 * a caller that gave up (or names no slot): it is dropped. */
int gk__remote_rop_find(struct gk__remote_rop_table *t, uint64_t token);
/* The reply (its status, result and the n bytes of answer at data) into
 * the slot's answer; the transport then completes the slot's request.
 * More answer than the caller takes, or one that came in a way the
 * transport cannot read (`refused_how`, said after the size; NULL when
 * none), is rejected, logged naming `from_pe` (-1: "the network"). */
void gk__remote_rop_fill(struct gk__remote_rop_table *t, int slot, int status, uint64_t result,
                         const void *data, size_t n, int from_pe, const char *refused_how);

/* The target's side: runs remote operation `op` from PE `src` here, now:
 * its status. One that the transport cannot run (`refused`, why, said in
 * the log; NULL when it can) or that names no operation is refused,
 * GK_ERR_UNSUPPORTED, logged here. */
int gk__remote_rop_run(unsigned op, unsigned src, const uint64_t *args, const void *data,
                       size_t n, const char *refused, struct gk__net_rop_answer *answer);
/* The same for one with a reply, whose caller takes `answer_max` bytes of
 * answer where a reply carries at most `max`: the reply's status and, in
 * *answer, its result and answer->len bytes of data to send with it
 * (answer->len 0 unless the status is GK_OK). The caller frees
 * answer->data. */
int gk__remote_rop_serve(unsigned op, unsigned src, const uint64_t *args, const void *data,
                         size_t n, const char *refused, uint64_t answer_max, size_t max,
                         struct gk__net_rop_answer *answer);

/* Posted remote operations that their targets refused since the last
 * quiet, and the first of them: (target PE + 1) << 32 | its status as 32
 * bits, 0 when none. */
struct gk__remote_refusals {
    _Atomic uint32_t n;
    _Atomic uint64_t first;
};

/* Kept before the acknowledgement's count drops, so that the quiet that
 * sees the count at 0 sees the refusal too. */
void gk__remote_refusal_note(struct gk__remote_refusals *r, uint32_t pe, int status);
/* The first refusal's status, said here too (a target's log says why but
 * not to which caller); GK_OK when another thread's quiet took them. */
int gk__remote_refusals_take(struct gk__remote_refusals *r) __attribute__((noinline, cold));
static inline int gk__remote_refusals_check(struct gk__remote_refusals *r)
{
    if (__builtin_expect(atomic_load_explicit(&r->n, memory_order_relaxed) != 0, 0))
        return gk__remote_refusals_take(r);
    return 0;
}

/*
 * A connection to a peer failed: the peer died or its host went away. The
 * job cannot go on (the peer's memory is gone), so it ends, as gk_abort
 * ends it, through the bootstrap. But the launcher usually knows first (it
 * watches the PEs it started) and its report names the PE that died and
 * how, where ours would only name a lost connection: so the first thread
 * here gives it a moment before it asks for the end itself, and the
 * others wait for that. `why`: the transport's reason.
 */
void gk__remote_peer_failed(struct gk__boot *boot, int pe, const char *why)
    __attribute__((noreturn, cold));

#endif /* GK_NET_REMOTE_H */

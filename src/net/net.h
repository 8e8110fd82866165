/*
 * net.h: the contract between the features and a transport. The runtime
 * chooses a transport for each peer at start-up (shm for a peer whose
 * segment can be mapped here, ucx for one on another host) and keeps it in
 * that peer's struct gk__net_peer; the features are written once against
 * this interface. Addresses on a peer are offsets into its segment
 * (mem/segment.h): the same layout on every PE, mapped here or registered
 * with the network, so one offset names the same word everywhere.
 *
 * Completion. put returns when its source may be reused; put_nbi may
 * return before (the source must stay untouched until quiet); get and a
 * fetching atomic return complete; a non-fetching atomic, like a put, is
 * complete at the next quiet (or flush of its peer). fence orders every
 * earlier put, atomic and active message to each peer before every later
 * one to the same peer. Without a fence, an atomic is ordered after the
 * earlier puts and atomics to its peer (gasket.h, "Atomics": the data,
 * then its flag), whatever paths the transport gives them. A transport
 * whose peers carry
 * GK__NET_CAP_DONE_ON_RETURN completes everything before returning, so its
 * fence and quiet are memory fences: gk__net_fence_all and
 * gk__net_quiet_all make one for all such transports instead of calling
 * theirs.
 *
 * Wake-ups. A PE that waits for a word of its segment sleeps on its own
 * futex (base/wait.h). After a write that may end such a wait (a signal,
 * a semaphore post, a lock grant, a collective's flag), the writer calls
 * wake(peer, lo, hi) for the segment range it wrote; the transport
 * delivers the wake-up after the write (shm: a look at the peer's sleepers
 * after a fence; ucx: a small message that the target's progress turns
 * into the same look).
 *
 * Atomicity domain. The words that off-node peers update with the
 * transport's atomics (semaphores, lock words, signal words, the user's
 * atomics, barrier and collective flags) are also updated here with CPU
 * atomics. That is sound only while every transport's atomics are CPU
 * atomics at the target: GK__NET_CAP_CPU_ATOMICS. The ucx transport asks
 * UCX for that (its atomic mode "cpu"), and gk__net_open_all refuses to
 * start with a peer whose transport does not set the bit.
 *
 * Start-up. Each transport registers one struct gk__net_module in net.c's
 * table; gk__net_open_all opens them in the table's order, and each claims
 * the peers it reaches that no earlier one claimed (shm: the PEs of this
 * node, whose segments it maps; ucx: the rest). Nothing above net/ names
 * a transport.
 */
#ifndef GK_NET_NET_H
#define GK_NET_NET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/segment.h"

struct gk__boot;
struct gk__config;

/* Atomic operations a transport performs on a remote word. */
enum gk__amo_op {
    GK__AMO_FETCH,
    GK__AMO_SET,
    GK__AMO_SWAP,
    GK__AMO_CSWAP,
    GK__AMO_FETCH_ADD,
    GK__AMO_FETCH_AND,
    GK__AMO_FETCH_OR,
    GK__AMO_FETCH_XOR
};

/* What a peer's transport can do; features pick their path by these. */
enum gk__net_cap {
    /* The peer's segment is mapped here at peer->direct: loads, stores
     * and CPU atomics reach it (the path layer's mapped fast path). */
    GK__NET_CAP_LOAD_STORE = 1u << 0,
    /* The transport's atomics are CPU atomics at the target, so the target
     * may update the same words with its own CPU atomics. Required of
     * every peer (gk__net_open_all). */
    GK__NET_CAP_CPU_ATOMICS = 1u << 1,
    /* Every operation is complete when it returns; where all of a
     * transport's peers say so, its fence and quiet are a memory fence
     * (gk__net_fence_all, gk__net_quiet_all). */
    GK__NET_CAP_DONE_ON_RETURN = 1u << 2,
    /* The transport's puts and gets to this peer are messages that the
     * target's software copies (UCX over TCP), not remote memory access:
     * packing many pieces into one of its messages costs no copy a put
     * would not make. Set once the peer's endpoint shows its lanes. */
    GK__NET_CAP_RMA_BY_MESSAGES = 1u << 3,
    /* The transport runs remote operations (rop, rop_post) at this peer.
     * Set by gk__net_open_all from the table, so bit and table agree. */
    GK__NET_CAP_REMOTE_OPS = 1u << 4,
    /* A long active message's payload travels with it (am_send_long):
     * no put and fence go before. Set likewise from the table. */
    GK__NET_CAP_AM_CARRIES_PAYLOAD = 1u << 5,
};

/*
 * An active message as it travels: three words, then nargs arguments and
 * nbytes of payload (medium), or a payload already put at dst_offset
 * (long). Both transports carry it unchanged; on arrival it lands in the
 * target's inbox (shm_ring.h), where the progress engine runs it.
 */
struct gk__net_am {
    union {
        struct {
            uint32_t src;     /* sending PE */
            uint16_t handler; /* handler index */
            uint8_t nargs;
            uint8_t flags; /* the sender's kind bits (core/progress.h) */
        };
        uint64_t word; /* the four fields above */
    };
    uint64_t nbytes;     /* payload bytes (in the message, or at dst_offset) */
    uint64_t dst_offset; /* long messages: where the payload went (heap offset) */
};
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "gk__net_am_word's packing");

/* The first word of a message. */
static inline uint64_t gk__net_am_word(uint32_t src, unsigned handler, unsigned nargs,
                                       unsigned flags)
{
    return (uint64_t)src | (uint64_t)(uint16_t)handler << 32 | (uint64_t)(uint8_t)nargs << 48 |
           (uint64_t)(uint8_t)flags << 56;
}

#define GK__NET_AM_MAX_ARGS 16
#define GK__NET_AM_MAX_PAYLOAD ((size_t)4096)

/* gk__net_transport.am_send's answer when a message cannot go without
 * waiting (the target's inbox is full); nothing was sent. */
#define GK__NET_AM_FULL 1

struct gk__net_peer;

/*
 * Remote operations: a few operations on a PE's own segment that a layer
 * above registers (gk__net_rop_set: at gk_init, or from a constructor of
 * the file that also holds their callers, so that a statically linked
 * program that can send one can run it), and that a transport
 * without load/store access to the target runs there, as one message and
 * its reply, on whichever thread drives the target's transport: so they
 * need nothing from the target's program, and cost one round trip where
 * the same steps as separate gets and atomics would cost several. A
 * caller that needs neither the result nor the status at once (a
 * non-fetching atomic, a flag) posts one instead (rop_post): one message,
 * no wait. The function gets the arguments and the payload; it returns a
 * gasket status and may answer (struct gk__net_rop_answer) a result, and,
 * for an operation that reads, data: the caller explains an error (the
 * target logs nothing for an error the caller can explain; a function
 * that may be posted logs its own refusals, since its caller never hears
 * why). It must not block.
 */
enum gk__net_rop {
    GK__NET_ROP_SEM_POST, /* sync/sem.c: a post, a signaling put's payload first */
    GK__NET_ROP_SIGNAL,   /* sync/signal.c: a put, then its signal word's update */
    GK__NET_ROP_ATOMIC,   /* core/path_rop.c: an atomic and its wake-up check */
    GK__NET_ROP_DT_PUT,   /* dtype/typed_rma.c: a packed chunk of a typed put, unpacked */
    GK__NET_ROP_DT_GET,   /* dtype/typed_rma.c: a chunk of a typed get, packed */
    GK__NET_ROP_DT_ACC,   /* dtype/typed_acc.c: a packed chunk of a typed accumulate */
    GK__NET_ROP_TEAM_CHUNK, /* team/engine.c: a collective's chunk, its header, its stamp */
    GK__NET_ROP_CHECK,      /* core/path_race.c: check mode's race detector at the owner */
    GK__NET_ROP_WIN_LOCK,   /* win/rwlock_lazy.c: a lock request and its epoch's first op */
    GK__NET_ROPS
};
#define GK__NET_ROP_ARGS 4

/* What a posted remote operation (rop_post) owes its caller's quiet. */
enum gk__net_post {
    /* Complete at the next quiet (or flush of its peer) and ordered before
     * later puts by fence, as a put; an error status at the target is
     * returned by the next quiet (the first, for all since the last). */
    GK__NET_POST_QUIET,
    /* Nothing: for a flag that only its target reads, and waits for
     * before it goes on (a barrier's, a collective's), so that no later
     * barrier completes before the flag has landed. No acknowledgement
     * comes back; an error at the target is logged there alone. */
    GK__NET_POST_AWAITED,
};

/*
 * What a remote operation answers: a result, and for an operation that
 * reads (a typed get's chunk) up to `max` bytes of data. At the target,
 * `data` is a buffer of `max` bytes, the most the caller takes, that the
 * function fills, setting `len`; at the caller, where those bytes land,
 * `len` set from the reply. `max` is 0 for the others. At the target the
 * answer buffer is 8-byte aligned; the payload is the transport's own
 * buffer, aligned or not, except for a function registered with
 * gk__net_rop_set_aligned, which gets an aligned copy where it is not
 * (gk__remote_rop_run): the others read bytes, not words.
 */
struct gk__net_rop_answer {
    uint64_t result;
    void *data;
    size_t max, len;
};

typedef int (*gk__net_rop_fn)(const uint64_t *args, const void *payload, size_t nbytes,
                              struct gk__net_rop_answer *answer);
void gk__net_rop_set(enum gk__net_rop op, gk__net_rop_fn fn);
/* The same for a function that reads 64-bit words out of its payload. */
void gk__net_rop_set_aligned(enum gk__net_rop op, gk__net_rop_fn fn);
/* Whether op's function was registered so. */
int gk__net_rop_wants_aligned(unsigned op);
/* The function registered for op, or NULL (op out of range included). */
gk__net_rop_fn gk__net_rop(unsigned op);

struct gk__net_transport {
    const char *name;
    /* Copies n bytes to the peer's segment at `offset`; returns when src
     * may be reused. */
    int (*put)(struct gk__net_peer *peer, size_t offset, const void *src, size_t n);
    /* The same, but src must stay untouched until the next quiet. */
    int (*put_nbi)(struct gk__net_peer *peer, size_t offset, const void *src, size_t n);
    /* Copies n bytes from the peer's segment; complete on return. */
    int (*get)(struct gk__net_peer *peer, void *dst, size_t offset, size_t n);
    /* The same, complete (dst written) at the next quiet. */
    int (*get_nbi)(struct gk__net_peer *peer, void *dst, size_t offset, size_t n);
    /*
     * Applies `op` to the 4- or 8-byte word at `offset`: operand is the
     * value (the desired value for CSWAP), compare the expected value for
     * CSWAP. With result_p, the old value, complete on return; without,
     * complete at quiet and ordered before later puts by fence, as a put.
     * Either way ordered after the earlier puts and atomics to the peer.
     */
    int (*atomic)(struct gk__net_peer *peer, enum gk__amo_op op, size_t width, size_t offset,
                  uint64_t operand, uint64_t compare, uint64_t *result_p);
    /* Wakes the peer if it sleeps watching its segment range [lo, hi);
     * ordered after this PE's earlier operations to the peer. */
    int (*wake)(struct gk__net_peer *peer, uint64_t lo, uint64_t hi);
    /*
     * Sends an active message (msg->src set). A long one's payload must
     * already be at dst_offset, ordered before (fence). Messages of one
     * sender reach one target in the order sent. GK__NET_AM_FULL: it could
     * not go without waiting; the caller retries after progress.
     */
    int (*am_send)(struct gk__net_peer *peer, const struct gk__net_am *msg,
                   const uint64_t *args, const void *payload);
    /*
     * Optional (NULL: none). Sends a long active message together with its
     * payload, msg->nbytes bytes (at most am_long_max), which is not yet at
     * the target: the transport writes it into the target's heap at
     * msg->dst_offset (segment offset GK__SEG_HEAP_OFFSET + dst_offset)
     * before the message lands, so no fence is needed between the two, and
     * the message keeps its order among the sender's others to that
     * target, as am_send's. The payload may be reused on return.
     */
    int (*am_send_long)(struct gk__net_peer *peer, const struct gk__net_am *msg,
                        const uint64_t *args, const void *payload);
    size_t am_long_max;
    /* Runs remote operation op (above) at the peer, with GK__NET_ROP_ARGS
     * arguments and nbytes (at most rop_max) of payload; returns its
     * status once its reply is in, *answer set (answer->max, at most
     * rop_max, and answer->data as the caller set them). Ordered after
     * the earlier puts, atomics and remote operations to the peer. NULL
     * where the transport has none: a mapped peer's operations run in
     * place. */
    int (*rop)(struct gk__net_peer *peer, enum gk__net_rop op, const uint64_t *args,
               const void *payload, size_t nbytes, struct gk__net_rop_answer *answer);
    /* The same one-way: returns once the payload may be reused, awaiting
     * no reply, and owes the caller's quiet what `how` says. NULL exactly
     * where rop is. */
    int (*rop_post)(struct gk__net_peer *peer, enum gk__net_rop op, const uint64_t *args,
                    const void *payload, size_t nbytes, enum gk__net_post how);
    size_t rop_max;
    /* Optional (NULL: none). Copies n bytes at address `addr` of the
     * peer's process `pid` (its private memory, outside any segment) to
     * dst, complete on return: a single copy where two processes share a
     * host (cross-memory attach). GK_OK; GK_ERR_UNSUPPORTED where the
     * kernel refuses it (ptrace rules), GK_ERR_SYSTEM on another failure. */
    int (*read_private)(struct gk__net_peer *peer, void *dst, uint64_t pid, uint64_t addr,
                        size_t n);
    /* The same the other way: n bytes from src to addr in the peer's
     * process pid (a receive buffer it named). Optional with read_private. */
    int (*write_private)(struct gk__net_peer *peer, uint64_t pid, uint64_t addr,
                         const void *src, size_t n);
    /* Completes every operation issued to this peer. */
    int (*flush)(struct gk__net_peer *peer);
    /* Orders and completes across all of this transport's peers. */
    int (*fence)(void);
    int (*quiet)(void);
    /* Moves this transport's operations and deliveries on; the number of
     * events handled (0: nothing happened), or a negative status. */
    int (*progress)(void);
    /* An application thread of this PE announced itself as a sleeper
     * (base/wait.h) and is about to sleep: what arrives for this PE must
     * move on without it from now on (NULL: it does anyway). */
    void (*before_sleep)(void);
};

struct gk__net_peer {
    /* GK__NET_CAP_LOAD_STORE: the peer's segment, mapped here; else NULL. */
    char *direct;
    unsigned caps; /* enum gk__net_cap */
    const struct gk__net_transport *transport;
    void *priv; /* the transport's own state for this peer */
    /* Puts of at most this many bytes make the target's wake-up check
     * themselves, so no wake() is owed after them (0: every put owes
     * one). */
    size_t put_wakes_max;
};

/* What a transport's open is given (struct gk__net_module). */
struct gk__net_start {
    struct gk__boot *boot;
    struct gk__seg *my_seg; /* this PE's segment, its inbox ready */
    /* One per PE, zeroed by the caller; a transport claims a peer by
     * setting its transport (and caps, priv, ...). */
    struct gk__net_peer *peers;
    const struct gk__config *config;
    /* The runtime's agreement: every PE contributes its status, all get
     * the first error (an allgather, so every PE must call it). */
    int (*agree)(int status);
};

/*
 * A transport's start-up and shut-down, one entry of net.c's registry.
 * Every PE calls each entry's open, in the registry's order, and then the
 * runtime's agreement; open may be collective over the bootstrap (every PE
 * calls it whatever happened to it) and fail on every PE together.
 */
struct gk__net_module {
    const char *name;
    /* Claims the peers this transport reaches among those no earlier
     * module claimed; peers[boot->rank] is claimed by the first. A failure
     * leaves what it claimed for release (or close) to undo. */
    int (*open)(const struct gk__net_start *start);
    /* Optional: every PE has returned from open and agreed (status: the
     * agreed outcome). shm lets go of its segment's name here: every PE of
     * the node has mapped it, or given up. */
    void (*opened)(const struct gk__net_start *start, int status);
    /* Optional: the collective shut-down, after the job's last barrier and
     * before the bootstrap lets go, on every PE. Harmless when not open or
     * closed already (a failed start-up's cleanup calls it again). */
    void (*close)(void);
    /* Optional: lets go of the peers it claimed and still holds, on this
     * PE alone, once nothing reads their mappings any more. */
    void (*release)(struct gk__net_peer *peers, int n_pes);
};

/*
 * Opens every registered transport, in order, each followed by the
 * runtime's agreement, until one fails on any PE; then every peer must be
 * claimed, with GK__NET_CAP_CPU_ATOMICS. status: this PE's start-up so
 * far; where it is an error, this PE opens nothing but still takes part
 * in the first agreement, so the others fail with it instead of waiting.
 * Returns the agreed status; a failure leaves the cleanup to
 * gk__net_close_all and gk__net_release_all, as after a success.
 */
int gk__net_open_all(const struct gk__net_start *start, int status);
/* Every transport's collective close (struct gk__net_module), in reverse
 * order. */
void gk__net_close_all(void);
/* Every transport's release of its peers, in reverse order; after it the
 * peer table may be freed. */
void gk__net_release_all(struct gk__net_peer *peers, int n_pes);

/*
 * The transports in use by this PE, each once (at most two today);
 * gk__net_open_all adds each transport it finds at a peer. Fence, quiet
 * and progress of the whole PE go to each of them.
 */
#define GK__NET_MAX_TRANSPORTS 4
extern const struct gk__net_transport *gk__net_used[GK__NET_MAX_TRANSPORTS];
extern int gk__net_n_used;
/* Non-zero when a transport other than shm is in use: its operations do
 * not complete on return, and waits must drive its progress. */
extern int gk__net_remote;

/*
 * Active messages through transports that queue them (not shm): sent by
 * this PE, landed in this PE's inbox (or rejected on arrival, never to
 * land), and arrived but waiting for room in it. The progress engine's count of messages in flight (gk_finalize's
 * quiescence) adds them to its inbox's tickets.
 */
extern _Atomic uint64_t gk__net_am_sent;
extern _Atomic uint64_t gk__net_am_landed;
extern _Atomic uint64_t gk__net_am_waiting;

int gk__net_fence_all(void);
int gk__net_quiet_all(void);
/* Progress of every transport but shm (which needs none). */
int gk__net_progress_remote(void);
/* Every transport's before_sleep. */
void gk__net_before_sleep(void);

#endif /* GK_NET_NET_H */

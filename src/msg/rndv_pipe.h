/*
 * rndv_pipe.h: the pipelined copy of a large two-sided message whose send
 * buffer lies outside the symmetric heap (msg.c's rendezvous, GK_RNDV=auto).
 *
 * Why. The receiver can read such a buffer itself with cross-memory attach
 * (process_vm_readv), but the kernel pins every page for it: about 10 GB/s
 * here, which is also what Open MPI gets. Two plain memcpys through shared
 * memory that stays in cache, the sender copying chunk i+1 in while the
 * receiver copies chunk i out, run two to three times faster. The sender
 * has to take part for that, yet a receive must never wait for a sender
 * that computes or sits in MPI (docs/PROGRESS.md). So they share the work.
 *
 * Protocol. Each PE owns one pipeline in its segment (rndv_pipe.c's region): a
 * claim word, a `drained` counter and GK__PIPE_SLOTS slots of up to
 * GK__PIPE_CHUNK_MAX bytes. For a message of k chunks the receiver sets
 * drained = 0, then claims = (gen, lo 0, hi k) with release, and sends the
 * sender GO (gen, bytes, chunk size). Chunks are claimed by compare-and-swap
 * on the claim word, only while lo < hi and the generation is the
 * message's: the sender takes the lowest (lo++), the receiver the highest
 * (hi--).
 *  - The sender (GO's handler) claims chunk c, waits until its j-th slot is
 *    free (j - drained < GK__PIPE_SLOTS), copies c in, stores c and then the
 *    slot's tag (gen, j + 1) with release; until nothing is left to claim.
 *  - The receiver copies out the slot whose tag reads (gen, j + 1), in
 *    order, and stores drained = j + 1 with release. While the sender has
 *    not started (lo == 0) and a short grace period has passed, it claims
 *    chunks from the top and reads them itself with cross-memory attach: a
 *    sender that never runs GO costs the grace period, nothing more.
 *  - The message is complete once the receiver has its own chunks and has
 *    drained every chunk the sender claimed (own + drained == k).
 *  - Direct mode (both sides copy by cross-memory attach): GO also carries
 *    the receive buffer's address and the receiver's pid. The sender
 *    writes each chunk it claims straight into the buffer
 *    (process_vm_writev) and fills its slot with no data, only the chunk
 *    number marked direct; the receiver counts such a slot as drained and
 *    reads chunks from the top at once, with no grace period. A sender
 *    whose write is refused fills slots as above from then on.
 * Safety. The pipeline is reused only by the receiver's next message, which
 * starts after this one completed, which needs every chunk the sender
 * claimed drained: a sender holding a claim is never overtaken. A GO that
 * arrives late (the receiver did everything itself and went on) finds
 * another generation in the claim word and touches nothing else. Neither
 * side sleeps here (spin, then yield: the other side is copying), so these
 * writes owe no wake-up (base/wait.h).
 *
 * Which is faster, this pipeline or kernel copies, depends on the machine
 * and its moment (the pipeline moves data through the caches of both
 * cores, which some states of this VM make slow): for large messages the
 * receiver keeps the throughput of both (it tries the other now and then)
 * and uses direct mode while that is faster.
 *
 * If the receiver's own read fails (cross-memory attach not allowed, or the
 * sender's buffer is gone), it claims every chunk left, drains what the
 * sender holds, and reports the bytes it could not get: one contiguous
 * range, which msg.c then fetches in pieces.
 */
#ifndef GK_MSG_RNDV_PIPE_H
#define GK_MSG_RNDV_PIPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Three slots: the sender fills one while the receiver drains another,
 * with one to spare; a fourth moved no more bytes (1-4 MiB messages, 16
 * cores) and cost every PE 256 KiB of /dev/shm. */
#define GK__PIPE_SLOTS 3u
#define GK__PIPE_CHUNK_MIN ((size_t)16 * 1024)
#define GK__PIPE_CHUNK_MAX ((size_t)256 * 1024)
/* The GO message's arguments after the sender's request: generation,
 * bytes, chunk size, and where to write chunks directly (receiver's
 * address and pid; 0, 0: through the slots). */
#define GK__PIPE_GO_ARGS 5

/* What the receiver knows of the message (from the sender's RTS). */
struct gk__pipe_msg {
    int source;
    void *dst;
    size_t nbytes; /* to copy: the message, or the receive's capacity */
    uint64_t sender_addr;
    pid_t sender_pid;
    uint64_t sender_request;
};


/* Reads n bytes at addr in PE pe's process pid into dst (cross-memory
 * attach, the path layer's read_private): 0, or EPERM (refused, or pe not
 * on this host) or EIO. */
int gk__cma_read(int pe, pid_t pid, void *dst, uint64_t addr, size_t n);

/*
 * Receives m through the pipeline; `send_go(source, args)` sends the
 * sender GO with the sender's request and GK__PIPE_GO_ARGS more. Returns 0,
 * or the errno of a failed read, with the bytes [*missing_lo, *missing_hi)
 * of the message still to fetch, or GK__PIPE_NOT_TAKEN, having done
 * nothing, when the message has too many chunks or the pipeline is in use:
 * by another thread's receive, or by one further up this thread's stack
 * (sending GO into a full inbox runs this PE's inbox, which may match
 * another rendezvous). The caller then copies another way.
 */
#define GK__PIPE_NOT_TAKEN (-1)
int gk__pipe_receive(const struct gk__pipe_msg *m,
                     int (*send_go)(int source, const uint64_t *args),
                     size_t *missing_lo, size_t *missing_hi);

/*
 * The sender's side, from GO's handler: copies chunks of `src` (the send
 * buffer, `src_bytes` long) into `receiver`'s pipeline until none is left
 * to claim. `go` is GO's arguments after the request. Returns 0, or -1 for
 * arguments that do not fit this send (logged).
 */
int gk__pipe_serve(int receiver, const void *src, size_t src_bytes, const uint64_t *go);

#endif /* GK_MSG_RNDV_PIPE_H */

/*
 * coll.h: what the collectives of coll/ share: the layout of the scratch
 * region each PE's segment keeps for the collectives (gk__coll_region, a
 * region of the segment, mem/seg_region.h; the all-reduce's part is
 * core's, core/allreduce.h), and the helpers of the broadcast and the
 * exchanges.
 * Their messages travel by core's signaling put (core/coll_signal.h).
 *
 * Scratch layout (offsets from the start of the region):
 *   control lines   one 64-byte line per word: the broadcast's signal words
 *                   and consumed counter, the exchange's signal words and
 *                   consumed counter
 *   bcast slots     COLL_BCAST_SLOTS x COLL_BCAST_CHUNK bytes
 *   exchange slots  COLL_XCHG_SLOTS x COLL_XCHG_CHUNK bytes (collect and
 *                   all-to-all, exchange.c)
 */
#ifndef GK_COLL_COLL_H
#define GK_COLL_COLL_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/allreduce.h"
#include "core/coll_signal.h"
#include "core/runtime.h"
#include "mem/segment.h"

#define COLL_BCAST_SLOTS 8
#define COLL_BCAST_CHUNK ((size_t)64 * 1024)
#define COLL_XCHG_SLOTS 8
#define COLL_XCHG_CHUNK ((size_t)16 * 1024)

struct gk__coll_scratch {
    /* Broadcast: slot s holds chunk number `bcast_signal[s]`. */
    struct gk__coll_line bcast_signal[COLL_BCAST_SLOTS];
    /* The last broadcast chunk this PE has finished with (written by itself,
     * read by the PE that wants to refill its slot). */
    struct gk__coll_line bcast_consumed;
    /* Exchange: slot s holds chunk number `xchg_signal[s]`; xchg_consumed
     * as bcast_consumed, for the exchange's chunks. */
    struct gk__coll_line xchg_signal[COLL_XCHG_SLOTS];
    struct gk__coll_line xchg_consumed;
    _Alignas(4096) unsigned char bcast_slot[COLL_BCAST_SLOTS][COLL_BCAST_CHUNK];
    _Alignas(64) unsigned char xchg_slot[COLL_XCHG_SLOTS][COLL_XCHG_CHUNK];
};

/* The scratch's region of the segment (coll.c): whole pages. */
#define GK__COLL_SCRATCH_SIZE ((size_t)644 * 1024)
_Static_assert((sizeof(struct gk__coll_scratch) + 4095) / 4096 * 4096 ==
                   GK__COLL_SCRATCH_SIZE,
               "the collectives' scratch is its part of the segment");
extern struct gk__seg_region gk__coll_region;

/* My own scratch. */
static inline struct gk__coll_scratch *gk__coll_mine(void)
{
    return (struct gk__coll_scratch *)(gk__rt.my_seg.base + gk__coll_region.offset);
}

/* The segment offset of a field of the scratch. */
#define GK__COLL_OFFSET(field) (gk__coll_region.offset + offsetof(struct gk__coll_scratch, field))

/* An argument every PE must pass alike: its plural for messages, and this
 * PE's value. */
struct gk__coll_arg {
    const char *what; /* "roots", "sizes" */
    uint64_t value;
};
#define GK__COLL_AGREE_MAX_ARGS 4

/*
 * Before anything moves, the PEs compare their local verdicts and each of
 * `n` arguments (at most GK__COLL_AGREE_MAX_ARGS) in one all-reduce: the
 * maxima of each value and of its complement, which is the minimum. GK_OK
 * on every PE, or the same failure on every PE: this PE's own (it said
 * why), another PE's (logged as such), or GK_ERR_INVALID_ARG naming the
 * first argument that differs, with its range and this PE's value.
 */
int gk__coll_agree(const char *op, int local_status, const struct gk__coll_arg *args, int n);

/*
 * Waits until the word at segment offset `offset` in PE pe's memory has
 * reached `seq` (a consumed counter of the broadcast or the exchanges),
 * and leaves what it read in *seen_p (may be NULL). Nobody wakes us for a
 * word of another PE, so the wait polls.
 */
int gk__coll_wait_peer_reached(int pe, size_t offset, uint64_t seq, uint64_t *seen_p);

#endif /* GK_COLL_COLL_H */

/*
 * win.h: the window object shared by the window files: win.c (creation,
 * put/get, passive target), win_acc.c (accumulates and atomics),
 * win_active.c (fence, post/start/complete/wait).
 *
 * A window has two symmetric blocks: the data (this PE's part at `base`) and
 * a control block, laid out the same on every PE:
 *
 *   struct win_ctrl_head    the lock word of this PE's part, PSCW counters
 *   uint64_t sizes[n]       every PE's part size (allgathered at creation)
 *   rwlock nodes[n]         my queue node for the lock of each target
 *   uint64_t posts[n]       posts received from each PE (PSCW)
 *
 * so the control memory is about 64 + 144 n bytes per PE (1024 PEs:
 * 144 KiB), plus n words of private bookkeeping.
 */
#ifndef GK_WIN_WIN_H
#define GK_WIN_WIN_H

#include <stdint.h>

#include "core/runtime.h"
#include "win/rwlock.h"

#define GK__WIN_MAGIC 0x57494e44u /* "WIND" */
#define GK__WIN_EMULATED UINT64_MAX

struct gk__win_ctrl_head {
    _Atomic uint64_t lock_word;
    _Atomic uint64_t completes; /* PSCW: completes received, cumulative */
    uint64_t pad[6];
};

/* This PE's hold on one target's lock. */
enum gk__win_hold {
    GK__WIN_HOLD_NONE = 0,
    GK__WIN_HOLD_SHARED,
    GK__WIN_HOLD_EXCLUSIVE,
    GK__WIN_HOLD_NOCHECK, /* locked with GK_WIN_NOCHECK: nothing to release */
    /* Locked across hosts, not yet asked for: the epoch's first operation
     * on the target asks (rwlock_lazy.c), then the hold becomes SHARED or
     * EXCLUSIVE. */
    GK__WIN_HOLD_SHARED_LAZY,
    GK__WIN_HOLD_EXCLUSIVE_LAZY
};

struct gk_win {
    uint32_t magic;
    int id; /* for messages: "window 3" */
    unsigned flags;
    int allocated; /* the data block is ours to free */
    char *base;    /* this PE's part */
    char *ctrl;    /* this PE's control block */
    size_t ctrl_offset; /* its segment offset (the same on every PE) */
    const uint64_t *sizes;
    /* Every PE's part: its heap offset (direct access: mapped on this
     * node, the transport's RMA elsewhere), or GK__WIN_EMULATED for a part
     * in memory other PEs cannot reach, which its owner's progress engine
     * reads and writes for them (win_emul.c). */
    uint64_t *part_at;
    int emulated;   /* some part is emulated */
    void *emul;     /* win_emul.c's state: this PE's pending operations */
    size_t nodes_at, posts_at; /* offsets inside ctrl */
    unsigned char *hold; /* enum gk__win_hold per target */
    int holds;           /* targets with hold != NONE */
    int lazy_holds;      /* of them, GK__WIN_HOLD_*_LAZY */
    int lock_all;        /* 0, 1 (shared on all), 2 (with NOCHECK) */
    int fence_epoch;     /* between fences (not ended by NOSUCCEED) */
    int *access_group;   /* start .. complete: the targets */
    int access_n;        /* -1: no access epoch */
    uint64_t *posts_taken; /* per PE: posts consumed by start */
    uint64_t completes_expected; /* wait: completes owed by all our posts */
    int exposure_open;
    struct gk_win *next_live; /* this PE's live windows (gk_finalize's check) */
};

/*
 * A gk_lock_t taken or released by this PE (`held` is the mutex's own
 * flag). win.c counts them for gk_finalize's check: a PE that finalizes
 * holding a mutex would leave the PEs queued behind it waiting for ever.
 */
void gk__win_mutex_taken(uint64_t *held);
void gk__win_mutex_released(uint64_t *held);

/* The reports of the checks below (logged; the error to return). */
int gk__win_report_bad(const char *op, const gk_win_t *win) __attribute__((cold, noinline));
int gk__win_report_access(const char *op, const gk_win_t *win, int pe, size_t disp,
                          size_t n) __attribute__((cold, noinline));
int gk__win_in_epoch(const gk_win_t *win, int pe);

/* Checks the window handle; logs and returns an error for a bad one.
 * Inline, as every window call starts with it. */
static inline int gk__win_check(const char *op, const gk_win_t *win)
{
    if (GK__UNLIKELY(!gk__rt.initialized || win == NULL || win->magic != GK__WIN_MAGIC))
        return gk__win_report_bad(op, win);
    return GK_OK;
}

/*
 * Checks an access of n bytes at disp of PE pe's part (and the epoch on a
 * strict window) and gives the symmetric address of the target bytes.
 */
static inline int gk__win_check_access(const char *op, const gk_win_t *win, int pe,
                                       size_t disp, size_t n, char **addr_p)
{
    int status = gk__win_check(op, win);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY((unsigned)pe >= (unsigned)gk__rt.n_pes || disp > win->sizes[pe] ||
                     n > win->sizes[pe] - disp ||
                     ((win->flags & GK_WIN_STRICT) && !gk__win_in_epoch(win, pe))))
        return gk__win_report_access(op, win, pe, disp, n);
    *addr_p = gk__rt.heap + win->part_at[pe] + disp;
    return GK_OK;
}

/*
 * The segment offset of byte disp of PE pe's direct part: window accesses
 * are checked against the part (gk__win_check_access), which may lie in
 * the local area (gk_mem_alloc), outside the symmetric range that
 * gk__rt_check_remote accepts; so they go to the transport by offset.
 */
static inline size_t gk__win_seg_at(const gk_win_t *win, int pe, size_t disp)
{
    return GK__SEG_HEAP_OFFSET + (size_t)win->part_at[pe] + disp;
}

/* Non-zero when PE pe's part is emulated (win_emul.c). */
static inline int gk__win_part_emulated(const gk_win_t *win, int pe)
{
    return GK__UNLIKELY(win->part_at[pe] == GK__WIN_EMULATED);
}

/*
 * Takes a lock still pending on pe (GK__WIN_HOLD_*_LAZY) before an
 * operation of its epoch; with kind GET or PUT the operation (nbytes at
 * segment offset data_at, into or from buf) may go with the request:
 * *done_p says whether it did. Inline, the test that nothing is pending.
 */
int gk__win_lazy_take(const char *op, gk_win_t *win, int pe, enum gk__rwlock_lazy_kind kind,
                      size_t data_at, void *buf, size_t nbytes, int *done_p)
    __attribute__((noinline));
static inline int gk__win_settle(const char *op, gk_win_t *win, int pe)
{
    int done = 0;
    if (GK__UNLIKELY(win->hold[pe] >= GK__WIN_HOLD_SHARED_LAZY))
        return gk__win_lazy_take(op, win, pe, GK__RWLOCK_LAZY_LOCK, 0, NULL, 0, &done);
    return GK_OK;
}

/* Takes this PE's pending lock, if it has one, before it asks for another
 * (win.c: why there is at most one). */
int gk__win_settle_pending(const char *op);

/* The live window with this id on this PE, or NULL. */
gk_win_t *gk__win_find(int id);

/*
 * Emulated access (win_emul.c). An operation on an emulated part: the
 * origin's (flat, count) at `origin`, the target's layout (flat, count) at
 * disp, sides checked to hold the same bytes and the target span against
 * the part. kind: enum gk__win_emul_op; dtype and op for accumulates;
 * result: get-accumulate's contiguous old values; nbi: do not wait for the
 * target's answer (put and accumulate: the data has left; get: it arrives
 * by gk__win_emul_complete).
 */
enum gk__win_emul_op {
    GK__WIN_EMUL_PUT = 1,
    GK__WIN_EMUL_GET,
    GK__WIN_EMUL_ACC,
    GK__WIN_EMUL_GETACC,
    GK__WIN_EMUL_CAS
};
struct gk__dt_flat;
int gk__win_emul_op(const char *op, gk_win_t *win, int pe, enum gk__win_emul_op kind,
                    const struct gk__dt_flat *origin_flat, uint64_t origin_count,
                    const void *origin, size_t disp, const struct gk__dt_flat *target_flat,
                    uint64_t target_count, gk_dtype_t dtype, gk_op_t acc_op, void *result,
                    int nbi);
/* A compare-and-swap of one element at disp of an emulated part. */
int gk__win_emul_cas(const char *op, gk_win_t *win, int pe, size_t disp, gk_dtype_t dtype,
                     uint64_t compare, uint64_t desired, uint64_t *old_p);
/* Waits for this PE's pending emulated operations on win (flush, unlock,
 * fence, complete, free); their first error, logged when it arrived. */
int gk__win_emul_complete(gk_win_t *win);
/* Frees win_emul.c's state of a window. */
void gk__win_emul_fini(gk_win_t *win);
/*
 * The request exactly as it travels, for tests that forge one: `desc`
 * (desc_len bytes) stands for the target's layout, `data` for the chunk
 * of data bytes [stream_at, stream_at + len). Waits for the answer and
 * returns the target's status (why: its reason, may be NULL).
 */
int gk__win_emul_raw(gk_win_t *win, int pe, enum gk__win_emul_op kind, size_t disp,
                     uint64_t target_count, const void *desc, size_t desc_len,
                     uint64_t stream_at, const void *data, size_t len, char *why,
                     size_t why_len);
/* The segment offset of this PE's control word at `at` inside ctrl. */
static inline size_t gk__win_ctrl_seg_offset(const gk_win_t *win, size_t at)
{
    return win->ctrl_offset + at;
}

#endif /* GK_WIN_WIN_H */

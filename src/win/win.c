/*
 * win.c: windows: creation and free, put and get by (PE, displacement),
 * flushes, and passive-target synchronisation (lock, try_lock, unlock,
 * lock_all, unlock_all) on the reader/writer lock of rwlock.c.
 *
 * Epoch bookkeeping is local: which targets this PE holds a lock on, whether
 * it is inside lock_all, a fence epoch or an access epoch. It serves the
 * misuse checks (a second lock of one target, unlock without lock, lock
 * inside lock_all) and, on a GK_WIN_STRICT window, the check that RMA
 * happens inside some epoch.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "core/coll_check.h"
#include "core/progress.h"
#include "core/path.h"
#include "dtype/flat.h"
#include "win/win.h"

static int win_next_id;

/*
 * The lock this thread asked for last, if it may still be pending
 * (GK__WIN_HOLD_*_LAZY). A thread has at most one pending: before it asks
 * for any other lock (a window's, lock_all, a gk_lock_t) it takes that
 * one. So a thread still takes its locks in the order it asked for them,
 * and a program that avoids deadlock by always locking in one order
 * (win_epoch_test's neighbours) keeps doing so, whatever order its
 * operations come in. Per thread: under GK_THREAD_MULTIPLE other threads
 * run epochs of other windows meanwhile. The window is found again by its
 * id (never reused): an epoch may have moved to another thread, which
 * took the lock, and the window may have been freed since.
 */
static _Thread_local int lazy_win_id; /* 0: none */
static _Thread_local int lazy_pe;

int gk__win_report_bad(const char *op, const gk_win_t *win)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe(op, 0);
    if (win == NULL) {
        gk__error("%s: win is NULL", op);
        return GK_ERR_INVALID_ARG;
    }
    gk__error("%s: win %p is not a live window (freed, or never created)", op,
              (const void *)win);
    return GK_ERR_INVALID_ARG;
}

int gk__win_in_epoch(const gk_win_t *win, int pe)
{
    if (win->hold[pe] != GK__WIN_HOLD_NONE || win->lock_all || win->fence_epoch)
        return 1;
    for (int i = 0; i < win->access_n; i++)
        if (win->access_group[i] == pe)
            return 1;
    return 0;
}

int gk__win_report_access(const char *op, const gk_win_t *win, int pe, size_t disp, size_t n)
{
    if ((unsigned)pe >= (unsigned)gk__rt.n_pes)
        return gk__rt_report_pe(op, pe);
    if (disp > win->sizes[pe] || n > win->sizes[pe] - disp) {
        gk__error("%s: displacement %zu + %zu bytes is outside window %d on PE %d "
                  "(its part is %llu bytes)",
                  op, disp, n, win->id, pe, (unsigned long long)win->sizes[pe]);
        return GK_ERR_RANGE;
    }
    gk__error("%s: window %d is GK_WIN_STRICT and PE %d is in no epoch "
              "(lock it, lock_all, fence or start first)",
              op, win->id, pe);
    return GK_ERR_EPOCH;
}

/* ------------------------------------------------------------------------ */
/* Creation and free                                                        */
/* ------------------------------------------------------------------------ */

static size_t ctrl_bytes(int n, size_t *nodes_at_p, size_t *posts_at_p,
                         size_t *sizes_at_p)
{
    size_t at = sizeof(struct gk__win_ctrl_head);
    *sizes_at_p = at;
    at += (size_t)n * sizeof(uint64_t);
    at = (at + 63) & ~(size_t)63;
    *nodes_at_p = at;
    at += (size_t)n * sizeof(struct gk__rwlock_node);
    *posts_at_p = at;
    at += (size_t)n * sizeof(uint64_t);
    return at;
}

/*
 * This PE's live windows, for gk_finalize: a window whose epoch is still
 * open (a lock others may queue behind, a PSCW epoch others wait on) makes
 * gk_finalize fail with a message instead of waiting in its barrier for
 * PEs that wait for us.
 */
static gk_win_t *win_live;

static int win_epoch_open(const gk_win_t *win)
{
    return win->holds != 0 || win->lock_all || win->access_n >= 0 || win->exposure_open;
}

static int win_mutexes_held;

static int win_finalize_check(void)
{
    if (win_mutexes_held > 0) {
        gk__error("gk_finalize: this PE still holds %d gk_lock_t lock%s; clear %s first: "
                  "other PEs may be waiting for %s",
                  win_mutexes_held, win_mutexes_held > 1 ? "s" : "",
                  win_mutexes_held > 1 ? "them" : "it",
                  win_mutexes_held > 1 ? "them" : "it");
        return GK_ERR_INVALID_ARG;
    }
    for (const gk_win_t *win = win_live; win != NULL; win = win->next_live) {
        if (win_epoch_open(win)) {
            gk__error("gk_finalize: window %d still has an epoch open (a lock, lock_all, "
                      "start or post); end it first: other PEs may be waiting for it",
                      win->id);
            return GK_ERR_EPOCH;
        }
    }
    return GK_OK;
}

void gk__win_mutex_taken(uint64_t *held)
{
    *held = 1;
    win_mutexes_held++;
    gk__rt_finalize_check = win_finalize_check;
}

void gk__win_mutex_released(uint64_t *held)
{
    *held = 0;
    win_mutexes_held--;
}

static void win_live_add(gk_win_t *win)
{
    win->next_live = win_live;
    win_live = win;
    gk__rt_finalize_check = win_finalize_check;
}

static void win_live_remove(gk_win_t *win)
{
    for (gk_win_t **p = &win_live; *p != NULL; p = &(*p)->next_live) {
        if (*p == win) {
            *p = win->next_live;
            return;
        }
    }
}

/*
 * A part's heap offset, or GK__WIN_EMULATED when it lies outside the
 * symmetric heap (an empty part is never accessed: offset 0).
 */
static uint64_t win_part_offset(const char *base, size_t size)
{
    uintptr_t heap = (uintptr_t)gk__rt.heap, at = (uintptr_t)base;
    if (size == 0)
        return 0;
    if (at < heap || at - heap > gk__rt.heap_span || size > gk__rt.heap_span - (at - heap))
        return GK__WIN_EMULATED;
    return (uint64_t)(at - heap);
}

gk_win_t *gk__win_find(int id)
{
    for (gk_win_t *win = win_live; win != NULL; win = win->next_live)
        if (win->id == id)
            return win;
    return NULL;
}

/*
 * The collective part of both creation calls: the control block, every
 * PE's (offset, size) gathered: a part in the heap, wherever, is reached
 * directly, one outside it is emulated. Every PE sees the same gathered
 * values, so all return the same result.
 */
static int win_setup(const char *op, char *base, size_t size, unsigned flags,
                     int allocated, gk_win_t **win_p)
{
    int n = gk__rt.n_pes;
    if (n > GK__RWLOCK_MAX_PES) {
        gk__error("%s: windows support at most %d PEs (the job has %d)", op,
                  GK__RWLOCK_MAX_PES, n);
        return GK_ERR_UNSUPPORTED;
    }
    gk_win_t *win = calloc(1, sizeof(*win));
    unsigned char *hold = calloc((size_t)n, 1);
    int *group = calloc((size_t)n, sizeof(int));
    uint64_t *taken = calloc((size_t)n, sizeof(uint64_t));
    /* Every PE's part: its size and its base's heap offset. */
    struct win_part {
        uint64_t size, offset;
    } *parts = calloc((size_t)n, sizeof(*parts));
    size_t nodes_at, posts_at, sizes_at;
    size_t bytes = ctrl_bytes(n, &nodes_at, &posts_at, &sizes_at);
    if (win == NULL || hold == NULL || group == NULL || taken == NULL || parts == NULL)
        gk_abort(1, "gk_win_create/allocate: out of memory for window bookkeeping");
    char *ctrl = gk_align(64, bytes);
    int status = GK_OK;
    if (ctrl == NULL) { /* the same on every PE: the allocator is deterministic */
        status = GK_ERR_NOMEM;
        goto err_free;
    }
    memset(ctrl, 0, bytes);
    /* A PE returns from the collect once every PE has joined it, so after
     * every PE zeroed its control block: nobody writes one before. */
    struct win_part mine = {size, win_part_offset(base, size)};
    status = gk_collect(parts, &mine, sizeof(mine));
    if (status != GK_OK)
        goto err_free;
    uint64_t *part_at = malloc((size_t)n * sizeof(uint64_t));
    if (part_at == NULL)
        gk_abort(1, "gk_win_create/allocate: out of memory for window bookkeeping");
    int emulated = 0;
    for (int pe = 0; pe < n; pe++) {
        ((uint64_t *)(ctrl + sizes_at))[pe] = parts[pe].size;
        part_at[pe] = parts[pe].offset;
        emulated |= parts[pe].offset == GK__WIN_EMULATED;
    }
    free(parts);
    win->magic = GK__WIN_MAGIC;
    win->id = ++win_next_id; /* collective creation: the same on every PE */
    win->flags = flags;
    win->allocated = allocated;
    win->base = base;
    win->ctrl = ctrl;
    win->ctrl_offset = GK__SEG_HEAP_OFFSET + (size_t)(ctrl - gk__rt.heap);
    win->sizes = (const uint64_t *)(ctrl + sizes_at);
    win->part_at = part_at;
    win->emulated = emulated;
    win->nodes_at = nodes_at;
    win->posts_at = posts_at;
    win->hold = hold;
    win->access_group = group;
    win->access_n = -1;
    win->posts_taken = taken;
    win_live_add(win);
    /* An emulated part is served by its owner's handlers, which find the
     * window in the live list: nobody may send to it before every owner
     * has added it there, and returning from the collect does not say
     * that the others have. */
    if (emulated && (status = gk_barrier()) != GK_OK) {
        win_live_remove(win);
        free(part_at);
        goto err_free;
    }
    *win_p = win;
    return GK_OK;

err_free:
    if (ctrl != NULL)
        gk_free(ctrl);
    free(parts);
    free(taken);
    free(group);
    free(hold);
    free(win);
    return status;
}

static int win_check_flags(const char *op, unsigned flags, gk_win_t **win_p)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe(op, 0);
    if (win_p == NULL) {
        gk__error("%s: win_p is NULL", op);
        return GK_ERR_INVALID_ARG;
    }
    if ((flags & ~GK_WIN_STRICT) != 0) {
        gk__error("%s: flags 0x%x has unknown bits (only GK_WIN_STRICT)", op, flags);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

static int win_allocate(size_t size, unsigned flags, void **base_p, gk_win_t **win_p)
{
    static const char op[] = "gk_win_allocate";
    int status = win_check_flags(op, flags, win_p);
    if (status == GK_OK && base_p == NULL) {
        gk__error("%s: base_p is NULL", op);
        status = GK_ERR_INVALID_ARG;
    }
    /* Every PE must take part in the collective calls below, so a local
     * argument error is only returned after agreeing on it. */
    status = gk__rt_agree(op, status);
    uint64_t want = size, largest = 0;
    if (status == GK_OK)
        status = gk_allreduce(&largest, &want, 1, GK_DTYPE_UINT64, GK_OP_MAX);
    if (status != GK_OK)
        return status;
    /* The same block on every PE, as large as the largest part. */
    char *data = gk_align(64, largest > 0 ? largest : 64);
    if (data == NULL)
        return GK_ERR_NOMEM; /* gk_align logged it, on every PE */
    memset(data, 0, size);
    gk_win_t *win = NULL;
    status = win_setup(op, data, size, flags, 1, &win);
    if (status != GK_OK) {
        gk_free(data);
        return status;
    }
    *base_p = data;
    *win_p = win;
    return GK_OK;
}

static int win_create(void *base, size_t size, unsigned flags, gk_win_t **win_p)
{
    static const char op[] = "gk_win_create";
    int status = win_check_flags(op, flags, win_p);
    if (status == GK_OK && base == NULL && size > 0) {
        gk__error("%s: base is NULL with size %zu", op, size);
        status = GK_ERR_INVALID_ARG;
    }
    status = gk__rt_agree(op, status);
    if (status != GK_OK)
        return status;
    return win_setup(op, base, size, flags, 0, win_p);
}

static int win_free(gk_win_t *win)
{
    static const char op[] = "gk_win_free";
    /* The PEs agree first, so that an epoch left open on one PE fails the
     * call on all of them (the window stays usable) instead of freeing it
     * under that PE. The all-reduce is also the barrier that keeps us from
     * freeing a part or lock node somebody still uses. */
    uint64_t open = (uint64_t)win_epoch_open(win);
    uint64_t any_open = 0;
    int status = gk__win_emul_complete(win);
    if (status != GK_OK)
        return status;
    status = gk_allreduce(&any_open, &open, 1, GK_DTYPE_UINT64, GK_OP_MAX);
    if (status == GK_OK && any_open) {
        if (open)
            gk__error("%s: window %d still has an epoch open (a lock, lock_all, start or "
                      "post); end it first; the window was not freed on any PE",
                      op, win->id);
        else
            gk__error("%s: window %d still has an epoch open on another PE; the window "
                      "was not freed on any PE",
                      op, win->id);
        return GK_ERR_EPOCH;
    }
    win->magic = 0;
    win_live_remove(win);
    gk__win_emul_fini(win);
    free(win->part_at);
    gk_free(win->ctrl);
    if (win->allocated)
        gk_free(win->base);
    free(win->posts_taken);
    free(win->access_group);
    free(win->hold);
    free(win);
    return status;
}

int gk_win_allocate(size_t size, unsigned flags, void **base_p, gk_win_t **win_p)
{
    GK__COLL_RUN(GK__COLL_WIN_ALLOCATE, win_allocate(size, flags, base_p, win_p));
}

int gk_win_create(void *base, size_t size, unsigned flags, gk_win_t **win_p)
{
    GK__COLL_RUN(GK__COLL_WIN_CREATE, win_create(base, size, flags, win_p));
}

int gk_win_free(gk_win_t *win)
{
    int status = gk__win_check("gk_win_free", win);
    if (status == GK_OK)
        status = gk__progress_check_not_in_handler("gk_win_free");
    if (status == GK_OK)
        status = gk__coll_enter(GK__COLL_WIN_FREE);
    if (status != GK_OK)
        return status;
    status = win_free(win);
    gk__coll_leave();
    return status;
}

void *gk_win_base(const gk_win_t *win)
{
    return gk__win_check("gk_win_base", win) == GK_OK ? win->base : NULL;
}

size_t gk_win_size(const gk_win_t *win, int pe)
{
    if (gk__win_check("gk_win_size", win) != GK_OK)
        return 0;
    if ((unsigned)pe >= (unsigned)gk__rt.n_pes) {
        gk__rt_report_pe("gk_win_size", pe);
        return 0;
    }
    return (size_t)win->sizes[pe];
}

/* ------------------------------------------------------------------------ */
/* Put, get, flush                                                          */
/* ------------------------------------------------------------------------ */

/* A put or get whose target's lock is still pending: the request, with the
 * operation where it can go along (*done_p 1). An emulated part, or a
 * buffer the operation will refuse, gets the request alone. */
static __attribute__((noinline)) int win_rma_lazy(const char *op, gk_win_t *win, int pe,
                                                  enum gk__rwlock_lazy_kind kind, size_t disp,
                                                  void *buf, size_t nbytes, int *done_p)
{
    if (gk__win_part_emulated(win, pe) || nbytes == 0 || buf == NULL)
        return gk__win_settle(op, win, pe);
    return gk__win_lazy_take(op, win, pe, kind, gk__win_seg_at(win, pe, disp), buf, nbytes,
                             done_p);
}

int gk_win_put(gk_win_t *win, int pe, size_t disp, const void *src, size_t nbytes)
{
    char *addr = NULL;
    int status = gk__win_check_access("gk_win_put", win, pe, disp, nbytes, &addr);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(win->hold[pe] >= GK__WIN_HOLD_SHARED_LAZY)) {
        int done = 0;
        status = win_rma_lazy("gk_win_put", win, pe, GK__RWLOCK_LAZY_PUT, disp, (void *)src,
                              nbytes, &done);
        if (status != GK_OK || done)
            return status;
    }
    if (gk__win_part_emulated(win, pe))
        return gk__win_emul_op("gk_win_put", win, pe, GK__WIN_EMUL_PUT,
                               gk__dt_base_flat(GK_DTYPE_UINT8), nbytes, src, disp,
                               gk__dt_base_flat(GK_DTYPE_UINT8), nbytes, GK_DTYPE_UINT8,
                               GK_OP_REPLACE, NULL, 0);
    (void)addr;
    /* Another PE is promised the bytes at the flush (check mode delivers
     * them there); this PE's own part is never behind a network. */
    return gk__path_put_at("gk_win_put", pe, gk__win_seg_at(win, pe, disp), src, nbytes,
                           GK__PATH_DEFER_WAKE,
                           pe == gk__rt.my_pe ? GK__PATH_SRC_FREE : GK__PATH_SRC_FREE_LATE);
}

int gk_win_get(gk_win_t *win, int pe, void *dst, size_t disp, size_t nbytes)
{
    char *addr = NULL;
    int status = gk__win_check_access("gk_win_get", win, pe, disp, nbytes, &addr);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    if (GK__UNLIKELY(win->hold[pe] >= GK__WIN_HOLD_SHARED_LAZY)) {
        int done = 0;
        status = win_rma_lazy("gk_win_get", win, pe, GK__RWLOCK_LAZY_GET, disp, dst, nbytes,
                              &done);
        if (status != GK_OK || done)
            return status;
    }
    if (gk__win_part_emulated(win, pe))
        return gk__win_emul_op("gk_win_get", win, pe, GK__WIN_EMUL_GET,
                               gk__dt_base_flat(GK_DTYPE_UINT8), nbytes, dst, disp,
                               gk__dt_base_flat(GK_DTYPE_UINT8), nbytes, GK_DTYPE_UINT8,
                               GK_OP_REPLACE, NULL, 0);
    (void)addr;
    return gk__path_get_at("gk_win_get", pe, dst, gk__win_seg_at(win, pe, disp), nbytes,
                           GK__PATH_DST_NOW);
}

/*
 * Every flush is quiet: to a PE on another host a put is complete at the
 * target only then (accumulates fetch every element, so they are complete
 * on return), and quiet also pays the wake-ups that puts owe.
 */
static int win_flush(const char *op, gk_win_t *win, int pe, int all)
{
    int status = gk__win_check(op, win);
    if (status != GK_OK)
        return status;
    if (!all && (unsigned)pe >= (unsigned)gk__rt.n_pes)
        return gk__rt_report_pe(op, pe);
    /* A flush of a target whose lock is still pending takes it: so a
     * program can hold the lock from a point of its choosing. */
    if (GK__UNLIKELY(win->lazy_holds > 0)) {
        for (int t = all ? 0 : pe; t < (all ? gk__rt.n_pes : pe + 1) && status == GK_OK; t++)
            status = gk__win_settle(op, win, t);
        if (status != GK_OK)
            return status;
    }
    status = gk__win_emul_complete(win);
    int quiet = gk_quiet();
    return status != GK_OK ? status : quiet;
}

int gk_win_flush(gk_win_t *win, int pe) { return win_flush("gk_win_flush", win, pe, 0); }
int gk_win_flush_all(gk_win_t *win) { return win_flush("gk_win_flush_all", win, 0, 1); }
int gk_win_flush_local(gk_win_t *win, int pe)
{
    return win_flush("gk_win_flush_local", win, pe, 0);
}
int gk_win_flush_local_all(gk_win_t *win)
{
    return win_flush("gk_win_flush_local_all", win, 0, 1);
}

/* ------------------------------------------------------------------------ */
/* Passive target                                                           */
/* ------------------------------------------------------------------------ */

static struct gk__rwlock_site win_site(const char *op, const gk_win_t *win, int pe)
{
    return (struct gk__rwlock_site){
        .op = op,
        .owner_pe = pe,
        .word_offset = gk__win_ctrl_seg_offset(win, 0), /* lock_word leads the head */
        .node_offset = gk__win_ctrl_seg_offset(
            win, win->nodes_at + (size_t)pe * sizeof(struct gk__rwlock_node)),
    };
}

static int lock_check(const char *op, gk_win_t *win, int pe, int lock_type,
                      unsigned flags, unsigned allowed_flags)
{
    int status = gk__win_check(op, win);
    if (status != GK_OK)
        return status;
    if ((unsigned)pe >= (unsigned)gk__rt.n_pes)
        return gk__rt_report_pe(op, pe);
    if (lock_type != GK_LOCK_SHARED && lock_type != GK_LOCK_EXCLUSIVE) {
        gk__error("%s: lock_type %d is neither GK_LOCK_SHARED nor GK_LOCK_EXCLUSIVE", op,
                  lock_type);
        return GK_ERR_INVALID_ARG;
    }
    if ((flags & ~allowed_flags) != 0) {
        gk__error("%s: flags 0x%x has unknown bits", op, flags);
        return GK_ERR_INVALID_ARG;
    }
    if (win->lock_all) {
        gk__error("%s: window %d is inside lock_all; gk_win_unlock_all() first", op,
                  win->id);
        return GK_ERR_EPOCH;
    }
    if (win->hold[pe] != GK__WIN_HOLD_NONE) {
        gk__error("%s: PE %d of window %d is already locked by this PE in this epoch",
                  op, pe, win->id);
        return GK_ERR_EPOCH;
    }
    return GK_OK;
}

static enum gk__rwlock_mode lock_mode(int lock_type)
{
    return lock_type == GK_LOCK_SHARED ? GK__RWLOCK_SHARED : GK__RWLOCK_EXCLUSIVE;
}

static void hold_set(gk_win_t *win, int pe, enum gk__win_hold hold)
{
    win->hold[pe] = (unsigned char)hold;
    win->holds++;
}

int gk__win_settle_pending(const char *op)
{
    if (GK__LIKELY(lazy_win_id == 0))
        return GK_OK;
    gk_win_t *win = gk__win_find(lazy_win_id);
    lazy_win_id = 0;
    return win == NULL ? GK_OK : gk__win_settle(op, win, lazy_pe);
}

int gk__win_lazy_take(const char *op, gk_win_t *win, int pe, enum gk__rwlock_lazy_kind kind,
                      size_t data_at, void *buf, size_t nbytes, int *done_p)
{
    int exclusive = win->hold[pe] == GK__WIN_HOLD_EXCLUSIVE_LAZY;
    struct gk__rwlock_site site = win_site(op, win, pe);
    int status = gk__rwlock_lazy_acquire(&site,
                                         exclusive ? GK__RWLOCK_EXCLUSIVE : GK__RWLOCK_SHARED,
                                         kind, data_at, buf, nbytes, done_p);
    if (lazy_win_id == win->id && lazy_pe == pe)
        lazy_win_id = 0;
    if (status == GK_OK) {
        win->hold[pe] = exclusive ? GK__WIN_HOLD_EXCLUSIVE : GK__WIN_HOLD_SHARED;
        win->lazy_holds--;
    }
    return status;
}

int gk_win_lock(gk_win_t *win, int pe, gk_lock_type_t lock_type, unsigned flags)
{
    static const char op[] = "gk_win_lock";
    int status = lock_check(op, win, pe, lock_type, flags, GK_WIN_NOCHECK);
    if (status != GK_OK)
        return status;
    if (flags & GK_WIN_NOCHECK) {
        hold_set(win, pe, GK__WIN_HOLD_NOCHECK);
        return GK_OK;
    }
    status = gk__win_settle_pending(op);
    if (status != GK_OK)
        return status;
    struct gk__rwlock_site site = win_site(op, win, pe);
    /* Across hosts the request waits for the epoch's first operation
     * (rwlock_lazy.c). Inside a handler it is made now, as on one host,
     * where a request that must queue is refused rather than waited for. */
    if (gk__rwlock_lazy_ok(&site) && !gk__in_handler) {
        hold_set(win, pe,
                 lock_type == GK_LOCK_SHARED ? GK__WIN_HOLD_SHARED_LAZY
                                             : GK__WIN_HOLD_EXCLUSIVE_LAZY);
        win->lazy_holds++;
        lazy_win_id = win->id;
        lazy_pe = pe;
        return GK_OK;
    }
    status = gk__rwlock_acquire(&site, lock_mode(lock_type));
    if (status == GK_OK)
        hold_set(win, pe,
                 lock_type == GK_LOCK_SHARED ? GK__WIN_HOLD_SHARED : GK__WIN_HOLD_EXCLUSIVE);
    return status;
}

int gk_win_try_lock(gk_win_t *win, int pe, gk_lock_type_t lock_type, int *acquired_p)
{
    static const char op[] = "gk_win_try_lock";
    int status = lock_check(op, win, pe, lock_type, 0, 0);
    if (status != GK_OK)
        return status;
    if (acquired_p == NULL) {
        gk__error("%s: acquired_p is NULL", op);
        return GK_ERR_INVALID_ARG;
    }
    status = gk__win_settle_pending(op);
    if (status != GK_OK)
        return status;
    struct gk__rwlock_site site = win_site(op, win, pe);
    int acquired = 0;
    status = gk__rwlock_try(&site, lock_mode(lock_type), &acquired);
    if (status != GK_OK)
        return status;
    if (acquired)
        hold_set(win, pe,
                 lock_type == GK_LOCK_SHARED ? GK__WIN_HOLD_SHARED : GK__WIN_HOLD_EXCLUSIVE);
    *acquired_p = acquired;
    return GK_OK;
}

int gk_win_unlock(gk_win_t *win, int pe)
{
    static const char op[] = "gk_win_unlock";
    int status = gk__win_check(op, win);
    if (status != GK_OK)
        return status;
    if ((unsigned)pe >= (unsigned)gk__rt.n_pes)
        return gk__rt_report_pe(op, pe);
    enum gk__win_hold hold = (enum gk__win_hold)win->hold[pe];
    if (hold == GK__WIN_HOLD_NONE) {
        gk__error("%s: PE %d of window %d is not locked by this PE%s", op, pe, win->id,
                  win->lock_all ? " (it is inside lock_all: use gk_win_unlock_all)" : "");
        return GK_ERR_EPOCH;
    }
    int emul = gk__win_emul_complete(win);
    if (hold >= GK__WIN_HOLD_SHARED_LAZY) {
        /* An epoch with no operation still takes its turn in the queue. */
        status = gk__win_settle(op, win, pe);
        if (status != GK_OK) {
            win->lazy_holds--; /* (still pending: dropped below) */
            goto out;
        }
        hold = (enum gk__win_hold)win->hold[pe];
    }
    if (hold == GK__WIN_HOLD_NOCHECK) {
        status = gk_quiet(); /* no release to order our operations */
    } else {
        /* Everything done under the lock completes before the release; the
         * release is a seq_cst RMW, which orders it on mapped peers. */
        status = gk__path_complete_before_rmw();
        struct gk__rwlock_site site = win_site(op, win, pe);
        if (status == GK_OK)
            status = gk__rwlock_release(&site, hold == GK__WIN_HOLD_SHARED
                                                   ? GK__RWLOCK_SHARED
                                                   : GK__RWLOCK_EXCLUSIVE);
        gk__path_flush_wakes_fenced();
    }
out:
    win->hold[pe] = GK__WIN_HOLD_NONE;
    win->holds--;
    return emul != GK_OK ? emul : status;
}

/*
 * Shared on every PE, in the same order (PE 0 first) on every caller. A
 * reader that asks behind a queued writer waits for it (writers do not
 * starve), so two lock_all callers that walked the targets in different
 * orders could each hold a target the other's writer waits for: a cycle.
 * One order for all makes that impossible.
 */
int gk_win_lock_all(gk_win_t *win, unsigned flags)
{
    static const char op[] = "gk_win_lock_all";
    int status = gk__win_check(op, win);
    if (status != GK_OK)
        return status;
    if ((flags & ~GK_WIN_NOCHECK) != 0) {
        gk__error("%s: flags 0x%x has unknown bits (only GK_WIN_NOCHECK)", op, flags);
        return GK_ERR_INVALID_ARG;
    }
    if (win->lock_all || win->holds != 0) {
        gk__error("%s: window %d already has %s in this epoch", op, win->id,
                  win->lock_all ? "lock_all" : "a lock");
        return GK_ERR_EPOCH;
    }
    if (!(flags & GK_WIN_NOCHECK)) {
        status = gk__win_settle_pending(op);
        if (status != GK_OK)
            return status;
        for (int pe = 0; pe < gk__rt.n_pes; pe++) {
            struct gk__rwlock_site site = win_site(op, win, pe);
            status = gk__rwlock_acquire(&site, GK__RWLOCK_SHARED);
            if (status != GK_OK)
                return status; /* the job is ending (a wait failed) */
        }
    }
    win->lock_all = (flags & GK_WIN_NOCHECK) ? 2 : 1;
    return GK_OK;
}

int gk_win_unlock_all(gk_win_t *win)
{
    static const char op[] = "gk_win_unlock_all";
    int status = gk__win_check(op, win);
    if (status != GK_OK)
        return status;
    if (!win->lock_all) {
        gk__error("%s: window %d is not inside lock_all", op, win->id);
        return GK_ERR_EPOCH;
    }
    int emul = gk__win_emul_complete(win);
    status = gk_quiet();
    if (status == GK_OK)
        status = emul;
    if (win->lock_all == 1) {
        for (int pe = 0; pe < gk__rt.n_pes && status == GK_OK; pe++) {
            struct gk__rwlock_site site = win_site(op, win, pe);
            status = gk__rwlock_release(&site, GK__RWLOCK_SHARED);
        }
    }
    win->lock_all = 0;
    return status;
}

/*
 * win_active.c: active-target synchronisation on windows: fence, and
 * post/start/complete/wait (PSCW) with groups of PEs.
 *
 * PSCW by counters in the control block, with no message the target must
 * answer: post adds 1 to posts[me] on each origin (a remote fetch-add);
 * start waits, on its own memory, until posts[target] exceeds the posts it
 * has already consumed from that target; complete completes this PE's
 * operations and adds 1 to each target's `completes`; wait waits until
 * `completes` reaches the total its posts are owed. The counters only grow,
 * so a post that arrives before the matching start, or a complete from a
 * fast origin before a slow one's, is never lost.
 */
#include <stdlib.h>

#include "base/log.h"
#include "base/wait.h"
#include "core/coll_check.h"
#include "core/progress.h"
#include "core/path.h"
#include "win/win.h"

static int win_fence(gk_win_t *win, unsigned flags)
{
    static const char op[] = "gk_win_fence";
    int status = gk__progress_check_not_in_handler(op);
    if (status != GK_OK)
        return status;
    status = gk__win_check(op, win);
    if (status == GK_OK &&
        (flags & ~(GK_WIN_NOPRECEDE | GK_WIN_NOSUCCEED | GK_WIN_NOCHECK)) != 0) {
        gk__error("%s: flags 0x%x has unknown bits", op, flags);
        status = GK_ERR_INVALID_ARG;
    }
    if (status == GK_OK &&
        (win->holds != 0 || win->lock_all || win->access_n >= 0 || win->exposure_open)) {
        gk__error("%s: window %d has a lock, lock_all or PSCW epoch open", op, win->id);
        status = GK_ERR_EPOCH;
    }
    /* Emulated operations complete when their target answered; gk_barrier
     * completes every other operation before anyone leaves it. A PE whose fence failed still takes part, so the others, whose fence
     * is fine, do not wait for it forever; it returns its error. */
    int emul = status == GK_OK ? gk__win_emul_complete(win) : GK_OK;
    int barrier = gk_barrier();
    if (status == GK_OK)
        status = emul;
    if (status != GK_OK)
        return status;
    win->fence_epoch = !(flags & GK_WIN_NOSUCCEED);
    return barrier;
}

int gk_win_fence(gk_win_t *win, unsigned flags)
{
    GK__COLL_RUN(GK__COLL_WIN_FENCE, win_fence(win, flags));
}

/* Checks a group: n PEs, each valid, none twice. */
static int check_group(const char *op, const int *pes, int n)
{
    if (n < 0 || n > gk__rt.n_pes || (n > 0 && pes == NULL)) {
        gk__error("%s: group of %d PEs at %p is not valid (0 to %d PEs)", op, n,
                  (const void *)pes, gk__rt.n_pes);
        return GK_ERR_INVALID_ARG;
    }
    unsigned char *seen = calloc((size_t)gk__rt.n_pes, 1);
    if (seen == NULL)
        return GK_ERR_NOMEM;
    int status = GK_OK;
    for (int i = 0; i < n && status == GK_OK; i++) {
        if ((unsigned)pes[i] >= (unsigned)gk__rt.n_pes) {
            status = gk__rt_report_pe(op, pes[i]);
        } else if (seen[pes[i]]) {
            gk__error("%s: PE %d appears twice in the group", op, pes[i]);
            status = GK_ERR_INVALID_ARG;
        } else {
            seen[pes[i]] = 1;
        }
    }
    free(seen);
    return status;
}

int gk_win_post(gk_win_t *win, const int *pes, int n, unsigned flags)
{
    static const char op[] = "gk_win_post";
    int status = gk__win_check(op, win);
    if (status == GK_OK)
        status = check_group(op, pes, n);
    if (status != GK_OK)
        return status;
    if (win->exposure_open) {
        gk__error("%s: window %d is already exposed; gk_win_wait() first", op, win->id);
        return GK_ERR_EPOCH;
    }
    (void)flags; /* assertions are hints; none changes what post does */
    size_t posts_at = gk__win_ctrl_seg_offset(win, win->posts_at) +
                      (size_t)gk__rt.my_pe * sizeof(uint64_t);
    for (int i = 0; i < n && status == GK_OK; i++)
        status = gk__path_notify64(pes[i], GK__AMO_FETCH_ADD, posts_at, 1, 0, NULL);
    win->completes_expected += (uint64_t)n;
    win->exposure_open = 1;
    return status;
}

struct counter_reached {
    const _Atomic uint64_t *word;
    uint64_t at_least;
};

static int counter_reached(const void *arg)
{
    const struct counter_reached *c = arg;
    return atomic_load_explicit(c->word, memory_order_acquire) >= c->at_least;
}

static int wait_counter(const gk_win_t *win, size_t at, uint64_t at_least)
{
    struct counter_reached c = {(const _Atomic uint64_t *)(win->ctrl + at), at_least};
    int status = GK_OK;
    if (!counter_reached(&c))
        status = gk__path_wait_own(gk__win_ctrl_seg_offset(win, at), counter_reached, &c);
    gk__race_acquire_own(); /* check mode: the clocks of the PEs counted */
    return status;
}

int gk_win_start(gk_win_t *win, const int *pes, int n, unsigned flags)
{
    static const char op[] = "gk_win_start";
    int status = gk__win_check(op, win);
    if (status == GK_OK)
        status = check_group(op, pes, n);
    if (status != GK_OK)
        return status;
    if (win->access_n >= 0 || win->lock_all || win->holds != 0) {
        gk__error("%s: window %d already has an access epoch open", op, win->id);
        return GK_ERR_EPOCH;
    }
    (void)flags;
    for (int i = 0; i < n; i++) {
        int target = pes[i];
        size_t at = win->posts_at + (size_t)target * sizeof(uint64_t);
        status = wait_counter(win, at, win->posts_taken[target] + 1);
        if (status != GK_OK)
            return status;
        win->posts_taken[target]++;
        win->access_group[i] = target;
    }
    win->access_n = n;
    return GK_OK;
}

int gk_win_complete(gk_win_t *win)
{
    static const char op[] = "gk_win_complete";
    int status = gk__win_check(op, win);
    if (status != GK_OK)
        return status;
    if (win->access_n < 0) {
        gk__error("%s: window %d has no access epoch (gk_win_start)", op, win->id);
        return GK_ERR_EPOCH;
    }
    status = gk__win_emul_complete(win);
    int quiet = gk_quiet(); /* our operations are complete at the targets */
    if (status == GK_OK)
        status = quiet;
    size_t completes = gk__win_ctrl_seg_offset(win, offsetof(struct gk__win_ctrl_head,
                                                             completes));
    for (int i = 0; i < win->access_n && status == GK_OK; i++)
        status = gk__path_notify64(win->access_group[i], GK__AMO_FETCH_ADD, completes, 1,
                                   0, NULL);
    win->access_n = -1;
    return status;
}

static int exposure_check(const char *op, const gk_win_t *win)
{
    int status = gk__win_check(op, win);
    if (status != GK_OK)
        return status;
    if (!win->exposure_open) {
        gk__error("%s: window %d is not exposed (gk_win_post)", op, win->id);
        return GK_ERR_EPOCH;
    }
    return GK_OK;
}

int gk_win_wait(gk_win_t *win)
{
    int status = exposure_check("gk_win_wait", win);
    if (status != GK_OK)
        return status;
    status = wait_counter(win, offsetof(struct gk__win_ctrl_head, completes),
                          win->completes_expected);
    if (status == GK_OK)
        win->exposure_open = 0;
    return status;
}

int gk_win_test(gk_win_t *win, int *done_p)
{
    int status = exposure_check("gk_win_test", win);
    if (status != GK_OK)
        return status;
    if (done_p == NULL) {
        gk__error("gk_win_test: done_p is NULL");
        return GK_ERR_INVALID_ARG;
    }
    struct counter_reached c = {
        (const _Atomic uint64_t *)(win->ctrl + offsetof(struct gk__win_ctrl_head, completes)),
        win->completes_expected};
    *done_p = counter_reached(&c);
    if (*done_p)
        win->exposure_open = 0;
    return GK_OK;
}

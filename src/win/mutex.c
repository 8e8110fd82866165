/*
 * mutex.c: gk_lock_t, the OpenSHMEM-style distributed mutex, as the
 * exclusive-only use of the reader/writer lock of rwlock.c.
 *
 * A gk_lock_t is symmetric and 192 bytes: the first 64 hold the lock word
 * (used on PE 0 only) and the next 128 this PE's queue node. Zero is the
 * free state of both, so gk_calloc() makes a ready lock. Whether this PE
 * holds the lock is kept in the node's padding, which only this PE touches:
 * it catches set while holding and clear without holding.
 */
#include <stddef.h>

#include "base/log.h"
#include "core/runtime.h"
#include "core/path.h"
#include "win/rwlock.h"
#include "win/win.h"

#define MUTEX_NODE_AT 64
#define MUTEX_OWNER_PE 0

_Static_assert(sizeof(gk_lock_t) == MUTEX_NODE_AT + sizeof(struct gk__rwlock_node),
               "gk_lock_t holds the word's line and one node");

static int mutex_site(const char *op, gk_lock_t *lock, struct gk__rwlock_site *site_p,
                      uint64_t **held_p)
{
    size_t offset = 0;
    int status = gk__rt_check_word(op, MUTEX_OWNER_PE, lock, sizeof(uint64_t), &offset);
    if (status == GK_OK)
        status = gk__rt_check_remote(op, MUTEX_OWNER_PE, lock, sizeof(*lock), &offset);
    if (status != GK_OK)
        return status;
    *site_p = (struct gk__rwlock_site){
        .op = op,
        .owner_pe = MUTEX_OWNER_PE,
        .word_offset = offset,
        .node_offset = offset + MUTEX_NODE_AT,
    };
    struct gk__rwlock_node *node = (struct gk__rwlock_node *)((char *)lock + MUTEX_NODE_AT);
    *held_p = &node->pad[0];
    return GK_OK;
}

int gk_lock_set(gk_lock_t *lock)
{
    static const char op[] = "gk_lock_set";
    struct gk__rwlock_site site;
    uint64_t *held = NULL;
    int status = mutex_site(op, lock, &site, &held);
    if (status != GK_OK)
        return status;
    if (*held) {
        gk__error("%s: this PE already holds the lock at %p", op, (void *)lock);
        return GK_ERR_INVALID_ARG;
    }
    status = gk__win_settle_pending(op);
    if (status == GK_OK)
        status = gk__rwlock_acquire(&site, GK__RWLOCK_EXCLUSIVE);
    if (status == GK_OK)
        gk__win_mutex_taken(held);
    return status;
}

int gk_lock_try_set(gk_lock_t *lock, int *acquired_p)
{
    static const char op[] = "gk_lock_try_set";
    struct gk__rwlock_site site;
    uint64_t *held = NULL;
    int status = mutex_site(op, lock, &site, &held);
    if (status == GK_OK && acquired_p == NULL) {
        gk__error("%s: acquired_p is NULL", op);
        status = GK_ERR_INVALID_ARG;
    }
    if (status != GK_OK)
        return status;
    if (*held) {
        gk__error("%s: this PE already holds the lock at %p", op, (void *)lock);
        return GK_ERR_INVALID_ARG;
    }
    status = gk__win_settle_pending(op);
    if (status == GK_OK)
        status = gk__rwlock_try(&site, GK__RWLOCK_EXCLUSIVE, acquired_p);
    if (status == GK_OK && *acquired_p)
        gk__win_mutex_taken(held);
    return status;
}

int gk_lock_clear(gk_lock_t *lock)
{
    static const char op[] = "gk_lock_clear";
    struct gk__rwlock_site site;
    uint64_t *held = NULL;
    int status = mutex_site(op, lock, &site, &held);
    if (status != GK_OK)
        return status;
    if (!*held) {
        gk__error("%s: this PE does not hold the lock at %p", op, (void *)lock);
        return GK_ERR_INVALID_ARG;
    }
    /* What was done under the lock completes first (as gk_quiet()); the
     * release is a seq_cst RMW, which orders it on mapped peers. */
    status = gk__path_complete_before_rmw();
    if (status == GK_OK)
        status = gk__rwlock_release(&site, GK__RWLOCK_EXCLUSIVE);
    gk__path_flush_wakes_fenced();
    gk__win_mutex_released(held);
    return status;
}

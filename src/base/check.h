/*
 * check.h: check mode (GK_CHECK=1), its record of deferred operations.
 *
 * Between PEs of one node every operation is done when its call returns,
 * so a program that reads a gk_get_nbi destination before gk_quiet, or
 * raises a flag after a gk_put_nbi without a fence, reads the right data
 * here and stale data across hosts. In check mode the non-blocking calls
 * to mapped peers record what they would do instead (core/path_check.c),
 * and each completion point (quiet, fence, a barrier, a handle's wait, a
 * wait about to sleep) applies the record in issue order: the wrong
 * program then reads stale data on one node too, every time.
 *
 * This file owns the record: one list for the PE, under a mutex (threads
 * and contexts issue into it, and any of them may complete it: completing
 * early is always allowed), the call site of each entry, and the report
 * of a put's source that changed before its completion. What an entry
 * does to a peer is its apply function's business, given by the layer
 * that knows peers.
 */
#ifndef GK_BASE_CHECK_H
#define GK_BASE_CHECK_H

#include <stdatomic.h>
#include <stddef.h>

/* Frames of the stack kept per entry, to find the caller's own frame
 * above the library's. */
#define GK__CHECK_FRAMES 16

/* The byte a deferred get's destination (or an AMO's fetch) holds from the
 * call to its completion: a read before quiet sees it. */
#define GK__CHECK_POISON 0xA5

struct gk__check_op;
typedef void (*gk__check_apply_fn)(const struct gk__check_op *op);

struct gk__check_op {
    struct gk__check_op *next;
    gk__check_apply_fn apply;  /* NULL: copy data to local */
    const char *what;          /* the call, for reports ("gk_put_nbi") */
    int pe;                    /* the target (puts, gets) */
    int flags;                 /* the apply function's own */
    size_t offset;             /* in the target's segment */
    void *local;               /* get: the destination; a deferred write: its place */
    const void *src;           /* put: the caller's source, compared at completion */
    size_t n;
    int n_frames;
    void *frames[GK__CHECK_FRAMES];
    unsigned char data[];      /* put: the source at the call; write: the value */
};

/* Non-zero in check mode (set at gk_init from GK_CHECK, before any call). */
extern int gk__check_on;
/* Entries waiting for a completion point; read without the lock (a thread
 * sees its own entries), so that completion points cost one load when off. */
extern atomic_size_t gk__check_queued;

/* A new entry with room for n bytes of data and its caller's stack, or
 * NULL when memory is short (the caller then does the operation at once,
 * unchecked, which is correct). */
struct gk__check_op *gk__check_op_new(const char *what, size_t n);
/* Appends op to the record. */
void gk__check_push(struct gk__check_op *op);
/* Applies every entry in issue order, then reports each put whose source
 * changed since its call; `point` names the completion point. */
void gk__check_drain(const char *point);

/* For an operation of the layers above that delivers n bytes to dst at
 * its completion (a non-blocking AMO's fetched value): dst is poisoned
 * now and written then (at once when check mode is off). */
void gk__check_defer_write(const char *what, void *dst, const void *value, size_t n);

/* The program's call site of the library function it is in now: the
 * first frame of the stack outside the library (*call_p: that function's
 * exported name, where it has one; left as it is otherwise). */
void *gk__check_caller(const char **call_p);

/* Forgets what was reported (gk_finalize). */
void gk__check_fini(void);

#endif /* GK_BASE_CHECK_H */

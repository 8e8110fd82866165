/*
 * progress.h: the progress engine: one place that runs this PE's inbox of
 * active messages, called from every wait (base/wait.h's progress hook),
 * gk_poll(), and the optional progress thread (GK_PROGRESS_THREAD=1).
 *
 * Handlers are kept in one table: indices below GK_AM_MAX_HANDLERS are the
 * user's (am/am.c), the ones above belong to gasket's own features (the
 * two-sided messages of msg/), which register them when the library loads.
 * Handlers run with no progress re-entry on their thread, and nothing they
 * send waits: a message to a full inbox is held (progress.c, and
 * net/shm_inbox.c for how).
 */
#ifndef GK_CORE_PROGRESS_H
#define GK_CORE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "core/runtime.h"
#include "gasket.h"

#define GK__AM_INTERNAL_HANDLERS 16
#define GK__AM_TABLE_SIZE (GK_AM_MAX_HANDLERS + GK__AM_INTERNAL_HANDLERS)
/* The first internal index: internal handler k is GK__AM_INTERNAL + k. */
#define GK__AM_INTERNAL GK_AM_MAX_HANDLERS

/* Message kinds (gk__net_am.flags). */
#define GK__AM_SHORT 0x0u
#define GK__AM_MEDIUM 0x1u
#define GK__AM_LONG 0x2u
#define GK__AM_KIND_MASK 0x3u
#define GK__AM_REPLY 0x4u

/* What a handler gets to reply with. */
struct gk_am_token {
    uint32_t magic;
    int src;       /* the sender */
    int may_reply; /* a request handler that has not replied yet */
};
#define GK__AM_TOKEN_MAGIC 0x746f6b6eu /* "tokn" */

/*
 * Installs a handler. Internal ones may be set before gk_init() (from a
 * constructor); a second registration of an index replaces the first.
 */
int gk__am_set_handler(int index, gk_am_handler_t handler);
gk_am_handler_t gk__am_handler(int index);

/*
 * Sends a message to pe (any kind; long payloads must already be at
 * dst_offset): msg's src is 0, filled in here, and args are its nargs
 * arguments. Outside a handler it waits for ring space while running this
 * PE's inbox; inside one it never waits (the message may be deferred).
 */
int gk__am_send(int pe, struct gk__net_am *msg, const uint64_t *args, const void *payload);

/* Waits until every message deferred by this PE's handlers is sent
 * (outside a handler). */
int gk__progress_deferred_drain_all(void);

/* Collective: returns once every active message sent by any PE has run
 * and none is deferred (gk_finalize, before the PEs part). */
int gk__progress_quiesce(void);

/*
 * Non-zero on a thread that is running handlers. Collective calls and
 * gk_finalize check it and refuse (GK_ERR_UNSUPPORTED, logged): inside a
 * handler they would nest in whatever the PE was waiting in, perhaps the
 * same collective, and the PEs' rounds would no longer match.
 */
extern _Thread_local int gk__in_handler __attribute__((tls_model("initial-exec")));
int gk__progress_report_in_handler(const char *op) __attribute__((cold, noinline));
static inline int gk__progress_check_not_in_handler(const char *op)
{
    if (__builtin_expect(gk__in_handler, 0))
        return gk__progress_report_in_handler(op);
    return GK_OK;
}

/* Runs the inbox: handlers of every message that has arrived. Returns the
 * number run, or a negative status if the job is ending. */
int gk__progress(void);

/*
 * Work a feature above core wants done whenever the progress engine runs
 * (the team collectives' calls in flight, team/engine.c): set while there
 * is some (NULL otherwise, so an idle wait makes no call). `extra` is
 * called from gk__progress outside handlers, on the application's threads
 * and on the progress thread (GK_PROGRESS_THREAD=1), so it keeps its own
 * threads apart; it returns whether it moved anything. `ready` says
 * whether `extra` has work now: the progress thread sleeps until it does.
 * Core never calls up otherwise.
 */
typedef int gk__progress_extra_fn(void);
void gk__progress_set_extra(gk__progress_extra_fn *extra, gk__progress_extra_fn *ready);
/* Whether this thread is the progress thread. */
int gk__progress_on_thread(void);
/* Wakes this PE's sleeping threads, where the progress thread runs (a
 * thread that moved the extra work may leave some to it); else nothing. */
void gk__progress_wake_sleepers(void);

/* Handles of the team collectives (team/engine.c) carry this tag in their
 * top 16 bits; gk_handle_wait/test (rma/rma.c) hand them to the hook. */
#define GK__HANDLE_COLL_TAG ((uint64_t)0xc011)
extern int (*gk__handle_coll_complete)(const char *call, gk_handle_t *handle, int wait,
                                       int *done_p);

/* Non-zero when a message waits in this PE's inbox: a few loads, through
 * the words the path layer publishes for the inline waits (gk__inline:
 * n_pes is set last when they open and cleared first when they close). */
static inline int gk__inbox_ready(void)
{
    return gk__inline.n_pes != 0 && gk__inline_inbox_ready();
}

/* Whether a spin loop should call gk__progress now: a message is ready,
 * or a network transport needs driving (its messages reach the inbox only
 * through its progress). */
static inline int gk__progress_wanted(void)
{
    return gk__inbox_ready() || GK__UNLIKELY(gk__net_remote);
}

/*
 * Runs the inbox if a message is ready, else returns 0 at the cost of two
 * loads: spin loops call it at every poll, as the word they wait for may
 * be one a handler sets (an AM's reply), and a handler that runs only
 * every few dozen polls costs a microsecond (28 ns a pause on this VM).
 */
static inline int gk__progress_if_ready(void)
{
    return gk__progress_wanted() ? gk__progress() : 0;
}

/* gk__inbox_ready for base/wait.h's policy hook (a function pointer). */
int gk__progress_inbox_ready(void);

/* Set-up and tear-down, called by gk_init()/gk_finalize(). */
int gk__progress_init_inbox(char *seg_base, int n_pes);
int gk__progress_start(void);
void gk__progress_stop(void);

#endif /* GK_CORE_PROGRESS_H */

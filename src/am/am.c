/*
 * am.c: the public active-message calls (gasket.h): registration, the
 * short, medium and long requests and replies, and gk_poll(). They check
 * their arguments at the sender, where an error can still be returned, and
 * hand the message to the progress engine's send (core/progress.h). The
 * receiver checks every message again before it runs (progress.c).
 *
 * A long payload is put into the target's heap with an ordinary checked
 * put before the message is sent. To a mapped peer the message's
 * publication (a release in the ring) orders the payload before the
 * handler's reads; through a transport, the put and the message are two
 * operations, which only a fence between them orders (net.h), and over a
 * network that fence costs a round trip per message. So where the
 * transport can carry a payload with the message (am_send_long), one up
 * to its limit goes that way, and the target's transport writes it into
 * the heap before the message lands.
 */
#include <sched.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "core/path.h"

int gk_am_register(int index, gk_am_handler_t handler)
{
    if (index < 0 || index >= GK_AM_MAX_HANDLERS) {
        gk__error("gk_am_register: index %d is outside 0 .. %d", index,
                  GK_AM_MAX_HANDLERS - 1);
        return GK_ERR_INVALID_ARG;
    }
    if (handler == NULL) {
        gk__error("gk_am_register: handler for index %d is NULL", index);
        return GK_ERR_INVALID_ARG;
    }
    return gk__am_set_handler(index, handler);
}

size_t gk_am_max_medium(void)
{
    return GK__NET_AM_MAX_PAYLOAD;
}

int gk_poll(void)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe("gk_poll", 0);
    gk__path_flush_wakes(); /* a poll loop is a wait */
    int ran = gk__progress();
    if (ran == 0) {
        /* The caller polls again, likely at once. Where it shares its CPU
         * with the PE (or the progress thread) that must answer, a loop
         * that keeps the CPU is what delays the answer: give it up. A
         * network transport's messages arrive through its own progress
         * thread (net/ucx_progress.c), which this loop would keep from
         * its CPU just the same. */
        if (gk__wait_oversubscribed() || gk__rt.config.progress_thread || gk__net_remote)
            sched_yield();
        else
            gk__poll_settle();
    }
    return ran < 0 ? ran : GK_OK;
}

int gk_am_token_pe(const gk_am_token_t *token)
{
    if (token == NULL || token->magic != GK__AM_TOKEN_MAGIC) {
        gk__error("gk_am_token_pe: token %p is not a live handler's token",
                  (const void *)token);
        return GK_ERR_INVALID_ARG;
    }
    return token->src;
}

/* The checks every request and reply shares; fills msg (kind: the flags,
 * GK__AM_REPLY included). */
static int am_prepare(const char *op, int pe, int handler, const void *payload,
                      size_t nbytes, const uint64_t *args, int nargs, unsigned kind,
                      struct gk__net_am *msg)
{
    if ((unsigned)pe >= (unsigned)gk__rt.n_pes)
        return gk__rt_report_pe(op, pe);
    if (handler < 0 || handler >= GK_AM_MAX_HANDLERS || gk__am_handler(handler) == NULL) {
        gk__error("%s: handler %d is not registered (indices 0 .. %d, registered "
                  "identically on every PE with gk_am_register)",
                  op, handler, GK_AM_MAX_HANDLERS - 1);
        return GK_ERR_INVALID_ARG;
    }
    if (nargs < 0 || nargs > GK_AM_MAX_ARGS || (nargs > 0 && args == NULL)) {
        gk__error("%s: %d arguments at %p (0 to %d, args not NULL)", op, nargs,
                  (const void *)args, GK_AM_MAX_ARGS);
        return GK_ERR_INVALID_ARG;
    }
    int status = gk__rt_check_local(op, "payload", payload, nbytes);
    if (status != GK_OK)
        return status;
    if ((kind & GK__AM_KIND_MASK) == GK__AM_MEDIUM && nbytes > GK__NET_AM_MAX_PAYLOAD) {
        gk__error("%s: payload of %zu bytes is over the medium maximum of %zu "
                  "(gk_am_max_medium); use a long message",
                  op, nbytes, (size_t)GK__NET_AM_MAX_PAYLOAD);
        return GK_ERR_INVALID_ARG;
    }
    msg->word = gk__net_am_word(0, (unsigned)handler, (unsigned)nargs, kind);
    msg->nbytes = (kind & GK__AM_KIND_MASK) == GK__AM_SHORT ? 0 : nbytes;
    msg->dst_offset = 0;
    return GK_OK;
}

static int am_send(const char *op, int pe, int handler, const void *payload,
                   size_t nbytes, void *dst, const uint64_t *args, int nargs,
                   unsigned kind)
{
    if (GK__UNLIKELY(!gk__rt.initialized))
        return gk__rt_report_pe(op, 0);
    struct gk__net_am msg;
    int status = am_prepare(op, pe, handler, payload, nbytes, args, nargs, kind, &msg);
    if (status != GK_OK)
        return status;
    if ((kind & GK__AM_KIND_MASK) == GK__AM_LONG) {
        size_t offset = 0;
        status = gk__rt_check_remote(op, pe, dst, nbytes, &offset);
        if (status != GK_OK)
            return status;
        msg.dst_offset = nbytes > 0 ? offset - GK__SEG_HEAP_OFFSET : 0;
        if (nbytes > 0 && gk__path_am_carries(pe, nbytes))
            return gk__am_send(pe, &msg, args, payload); /* the payload goes with it */
        if (nbytes > 0) {
            status = gk__path_put(op, pe, dst, payload, nbytes, GK__PATH_NO_WAKE);
            if (status == GK_OK)
                status = gk__path_fence_peer(pe);
        }
        if (status != GK_OK)
            return status;
        payload = NULL;
    }
    return gk__am_send(pe, &msg, args, payload);
}

int gk_am_request_short(int pe, int handler, const uint64_t *args, int nargs)
{
    return am_send("gk_am_request_short", pe, handler, NULL, 0, NULL, args, nargs,
                   GK__AM_SHORT);
}

int gk_am_request_medium(int pe, int handler, const void *payload, size_t nbytes,
                         const uint64_t *args, int nargs)
{
    return am_send("gk_am_request_medium", pe, handler, payload, nbytes, NULL, args,
                   nargs, GK__AM_MEDIUM);
}

int gk_am_request_long(int pe, int handler, void *dst, const void *payload,
                       size_t nbytes, const uint64_t *args, int nargs)
{
    return am_send("gk_am_request_long", pe, handler, payload, nbytes, dst, args, nargs,
                   GK__AM_LONG);
}

/* A reply goes back to the requester, once, from inside the handler. */
static int reply_check(const char *op, gk_am_token_t *token)
{
    if (token == NULL || token->magic != GK__AM_TOKEN_MAGIC) {
        gk__error("%s: token %p is not a live handler's token (reply from inside "
                  "the request handler only)",
                  op, (void *)token);
        return GK_ERR_INVALID_ARG;
    }
    if (!token->may_reply) {
        gk__error("%s: this handler cannot reply (it runs a reply, or it replied "
                  "already)",
                  op);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

static int am_reply(const char *op, gk_am_token_t *token, int handler,
                    const void *payload, size_t nbytes, void *dst, const uint64_t *args,
                    int nargs, unsigned kind)
{
    int status = reply_check(op, token);
    if (status != GK_OK)
        return status;
    status = am_send(op, token->src, handler, payload, nbytes, dst, args, nargs,
                     kind | GK__AM_REPLY);
    if (status == GK_OK)
        token->may_reply = 0;
    return status;
}

int gk_am_reply_short(gk_am_token_t *token, int handler, const uint64_t *args, int nargs)
{
    return am_reply("gk_am_reply_short", token, handler, NULL, 0, NULL, args, nargs,
                    GK__AM_SHORT);
}

int gk_am_reply_medium(gk_am_token_t *token, int handler, const void *payload,
                       size_t nbytes, const uint64_t *args, int nargs)
{
    return am_reply("gk_am_reply_medium", token, handler, payload, nbytes, NULL, args,
                    nargs, GK__AM_MEDIUM);
}

int gk_am_reply_long(gk_am_token_t *token, int handler, void *dst,
                     const void *payload, size_t nbytes, const uint64_t *args, int nargs)
{
    return am_reply("gk_am_reply_long", token, handler, payload, nbytes, dst, args, nargs,
                    GK__AM_LONG);
}

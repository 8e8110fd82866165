/*
 * win_emul.c: emulated access to window parts that other PEs cannot reach
 * (memory outside the symmetric heap: malloc, the stack, gk_mem_alloc's
 * private memory). The origin sends each operation as active messages;
 * the part's owner runs them from its progress engine and answers each.
 * This is the emulated access of sci-mpich-noncontig-onesided (beside its
 * direct access to mapped memory): any memory works, at the price of
 * the target's progress (it must be in a gasket call, or run the progress
 * thread, for the operations to move).
 *
 * Protocol. An operation moves a stream of data bytes: the origin's
 * layout packed, in order. It goes in chunks, each one request (H_REQ)
 * whose payload is the target layout's descriptor (dtype/desc.h) and,
 * for puts and accumulates, the chunk's data; its arguments say which
 * window, operation, displacement, element count, and which bytes of the
 * stream [stream_at, stream_at + len) the chunk holds. The target decodes
 * the descriptor with the decoder that trusts nothing, bounded by its
 * part (every byte of count elements at disp inside [0, size)), checks
 * the chunk against the stream, and for accumulates that every piece it
 * touches holds whole, aligned elements, all before it touches memory;
 * then it unpacks (or packs, for a get) the chunk straight between the
 * message and the part, walking a cursor from stream_at. Each request
 * gets one answer (H_REP): the status, and the data of a get (or the old
 * values of a get-accumulate), or the reason of a refusal, which the
 * origin logs. A malformed request is refused whole, never applied in
 * part.
 *
 * Accumulates at the target are CPU atomics on its own memory, which no
 * transport touches: each element is updated atomically against the
 * other accumulates, whichever thread runs the handlers.
 *
 * Completion. Blocking calls wait for every answer, so they are complete
 * at the target on return and their errors are theirs. The _nbi forms
 * leave their requests pending; gk__win_emul_complete waits for
 * a window's pending requests (flush, unlock, fence, complete, free) and
 * returns their first error. Requests pending are kept in a table of
 * SLOTS entries; when it is full, a new request first waits for old ones.
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "core/acc.h"
#include "core/progress.h"
#include "dtype/desc.h"
#include "dtype/flat.h"
#include "win/win.h"

#define H_REQ (GK__AM_INTERNAL + 8)
#define H_REP (GK__AM_INTERNAL + 9)
#define PAYLOAD GK__NET_AM_MAX_PAYLOAD
#define WHY_MAX 240
#define SLOTS 1024u
#define REQ_ARGS 10

/* One operation in flight from this PE. */
struct emul_req {
    _Atomic uint64_t left; /* chunks not answered yet */
    uint32_t gen;
    int in_use;
    int status; /* the first refusal */
    char why[WHY_MAX];
    const char *op; /* the call, for the log */
    gk_win_t *win;
    int pe;
    enum gk__win_emul_op kind;
    /* A get's destination: the origin layout (owned), an accumulate's
     * result (contiguous), a compare-and-swap's old value. */
    char *origin;
    struct gk__dt_flat *origin_flat;
    uint64_t origin_count;
    char *result;
    uint64_t old;
};

static struct emul_req reqs[SLOTS];
static pthread_mutex_t reqs_lock = PTHREAD_MUTEX_INITIALIZER;

/* A window's share: the first error of its retired requests. */
struct emul_win {
    int status;
    int pending;
};

static uint64_t cookie_of(uint32_t slot)
{
    return (uint64_t)reqs[slot].gen << 32 | slot;
}

/* The request a cookie names, or NULL (an answer to nothing of ours). */
static struct emul_req *req_named(uint64_t cookie)
{
    uint32_t slot = (uint32_t)cookie;
    if (slot >= SLOTS || !reqs[slot].in_use || reqs[slot].gen != (uint32_t)(cookie >> 32))
        return NULL;
    return &reqs[slot];
}

static struct emul_win *emul_state(gk_win_t *win)
{
    if (win->emul == NULL) {
        win->emul = calloc(1, sizeof(struct emul_win));
        if (win->emul == NULL)
            gk_abort(1, "windows: out of memory for emulated access");
    }
    return win->emul;
}

/* Waits until every chunk of r is answered: this PE's progress runs the
 * answers (and whatever else arrives). */
static int req_wait(struct emul_req *r)
{
    while (atomic_load_explicit(&r->left, memory_order_acquire) != 0) {
        int ran = gk__progress();
        if (ran < 0)
            return ran;
        if (ran == 0)
            sched_yield();
    }
    return GK_OK;
}

/* Ends a request that has all its answers: its error is logged here and,
 * for a request left pending (to_window), becomes the window's, if it is
 * the first; a blocking call returns its own. */
static int req_retire(struct emul_req *r, int to_window)
{
    int status = r->status;
    if (status != GK_OK)
        gk__error("%s: PE %d refused the operation on window %d: %s", r->op, r->pe,
                  r->win->id, r->why);
    struct emul_win *ew = emul_state(r->win);
    if (to_window && status != GK_OK && ew->status == GK_OK)
        ew->status = status;
    ew->pending--;
    free(r->origin_flat);
    pthread_mutex_lock(&reqs_lock);
    r->origin_flat = NULL;
    r->in_use = 0;
    r->gen++;
    pthread_mutex_unlock(&reqs_lock);
    return status;
}

/* A free slot, waiting for (and retiring) old requests while none is. */
static int req_take(uint32_t *slot_p)
{
    for (;;) {
        pthread_mutex_lock(&reqs_lock);
        for (uint32_t i = 0; i < SLOTS; i++) {
            if (!reqs[i].in_use) {
                reqs[i].in_use = 1;
                pthread_mutex_unlock(&reqs_lock);
                *slot_p = i;
                return GK_OK;
            }
        }
        pthread_mutex_unlock(&reqs_lock);
        for (uint32_t i = 0; i < SLOTS; i++) {
            if (!reqs[i].in_use)
                continue;
            int status = req_wait(&reqs[i]);
            if (status != GK_OK)
                return status;
            req_retire(&reqs[i], 1);
        }
    }
}

int gk__win_emul_complete(gk_win_t *win)
{
    if (win->emul == NULL)
        return GK_OK;
    struct emul_win *ew = win->emul;
    int status = GK_OK;
    for (uint32_t i = 0; i < SLOTS && ew->pending > 0 && status == GK_OK; i++) {
        if (reqs[i].in_use && reqs[i].win == win) {
            status = req_wait(&reqs[i]);
            if (status == GK_OK)
                req_retire(&reqs[i], 1);
        }
    }
    if (status == GK_OK) {
        status = ew->status;
        ew->status = GK_OK;
    }
    return status;
}

void gk__win_emul_fini(gk_win_t *win)
{
    free(win->emul);
    win->emul = NULL;
}

/* ------------------------------------------------------------------------ */
/* The target's side                                                        */
/* ------------------------------------------------------------------------ */

static int bad(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, WHY_MAX, fmt, ap);
    va_end(ap);
    return GK_ERR_INVALID_ARG;
}

/* old op operand on one element of this PE's own memory, atomically. */
static uint64_t local_update(char *p, size_t width, gk_dtype_t dtype, gk_op_t op,
                             uint64_t operand)
{
    uint64_t old = 0, desired = 0;
    if (width == 4) {
        uint32_t *w = (uint32_t *)(void *)p, o = __atomic_load_n(w, __ATOMIC_ACQUIRE), d;
        do {
            old = o;
            desired = op == GK_OP_BAND   ? old & operand
                      : op == GK_OP_BOR  ? old | operand
                      : op == GK_OP_BXOR ? old ^ operand
                                         : gk__acc_combine(dtype, op, old, operand);
            d = (uint32_t)desired;
        } while (!__atomic_compare_exchange_n(w, &o, d, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    } else {
        uint64_t *w = (uint64_t *)(void *)p, o = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        do {
            old = o;
            desired = op == GK_OP_BAND   ? old & operand
                      : op == GK_OP_BOR  ? old | operand
                      : op == GK_OP_BXOR ? old ^ operand
                                         : gk__acc_combine(dtype, op, old, operand);
        } while (!__atomic_compare_exchange_n(w, &o, desired, 0, __ATOMIC_ACQ_REL,
                                              __ATOMIC_ACQUIRE));
    }
    return old;
}

/* An accumulate's dtype and op, checked without logging (the origin
 * checked them too; a request that gets here with others was forged). */
static int acc_valid(gk_dtype_t dtype, gk_op_t op, int fetching)
{
    size_t width = gk__acc_dtype_width(dtype);
    if (width == 0 || (unsigned)op > GK_OP_NO_OP || (op == GK_OP_NO_OP && !fetching))
        return 0;
    int integer = dtype == GK_DTYPE_INT32 || dtype == GK_DTYPE_UINT32 ||
                  dtype == GK_DTYPE_INT64 || dtype == GK_DTYPE_UINT64;
    return integer || (op != GK_OP_BAND && op != GK_OP_BOR && op != GK_OP_BXOR);
}

/*
 * Applies one chunk to this PE's part of win: args as they travel, the
 * payload (descriptor, then data), *out_len bytes of answer data in out.
 * Every check comes before the first byte is touched.
 */
static int serve(gk_win_t *win, const uint64_t *args, int nargs, const char *payload,
                 size_t nbytes, char *out, size_t *out_len, char *why)
{
    if (nargs != REQ_ARGS)
        return bad(why, "%d arguments, not %d", nargs, REQ_ARGS);
    int me = gk__rt.my_pe;
    if (win == NULL)
        return bad(why, "window %llu does not exist there", (unsigned long long)args[0]);
    if (win->part_at[me] != GK__WIN_EMULATED)
        return bad(why, "its part of window %d is not emulated", win->id);
    unsigned kind = (unsigned)(args[1] & 0xff);
    gk_dtype_t dtype = (gk_dtype_t)((args[1] >> 8) & 0xff);
    gk_op_t op = (gk_op_t)((args[1] >> 16) & 0xff);
    uint64_t disp = args[2], count = args[3], at = args[4], len = args[5], dlen = args[6];
    uint64_t size = win->sizes[me];
    char *base = win->base;
    if (kind < GK__WIN_EMUL_PUT || kind > GK__WIN_EMUL_CAS)
        return bad(why, "operation %u is not one", kind);
    if (disp > size)
        return bad(why, "displacement %llu is past its part of %llu bytes",
                   (unsigned long long)disp, (unsigned long long)size);
    if (kind == GK__WIN_EMUL_CAS) {
        size_t width = gk__acc_dtype_width(dtype);
        if (width == 0 || dtype == GK_DTYPE_FLOAT || dtype == GK_DTYPE_DOUBLE ||
            width > size - disp || (uintptr_t)(base + disp) % width != 0 || nbytes != 0)
            return bad(why, "a compare-and-swap of %s at displacement %llu is not valid "
                            "in its part of %llu bytes",
                       GK__DTYPE_STR(dtype), (unsigned long long)disp,
                       (unsigned long long)size);
        uint64_t old = 0;
        if (width == 4) {
            uint32_t o = (uint32_t)args[8];
            __atomic_compare_exchange_n((uint32_t *)(void *)(base + disp), &o,
                                        (uint32_t)args[9], 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE);
            old = o;
        } else {
            uint64_t o = args[8];
            __atomic_compare_exchange_n((uint64_t *)(void *)(base + disp), &o, args[9], 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
            old = o;
        }
        memcpy(out, &old, sizeof(old));
        *out_len = sizeof(old);
        return GK_OK;
    }
    int carries = kind != GK__WIN_EMUL_GET;
    if (dlen > nbytes || (carries ? nbytes - dlen != len : nbytes != dlen) || len > PAYLOAD)
        return bad(why, "a payload of %zu bytes does not hold a descriptor of %llu and %llu "
                        "data bytes",
                   nbytes, (unsigned long long)dlen, (unsigned long long)len);
    size_t width = 1;
    if (kind == GK__WIN_EMUL_ACC || kind == GK__WIN_EMUL_GETACC) {
        if (!acc_valid(dtype, op, kind == GK__WIN_EMUL_GETACC))
            return bad(why, "%s on %s is not an accumulate it runs", GK__OP_STR(op),
                       GK__DTYPE_STR(dtype));
        width = gk__acc_dtype_width(dtype);
    }
    struct gk__dt_flat *flat = NULL;
    char reason[WHY_MAX - 40];
    int status = gk__dt_decode(payload, (size_t)dlen, -(int64_t)disp, (int64_t)(size - disp),
                               &flat, reason, sizeof(reason));
    if (status != GK_OK)
        return status == GK_ERR_NOMEM ? status : bad(why, "the descriptor: %s", reason);
    uint64_t total = 0;
    int64_t lo = 0, hi = 0;
    if (gk__dt_span(flat, count, &total, &lo, &hi) != GK_OK || lo < -(int64_t)disp ||
        hi > (int64_t)(size - disp)) {
        status = bad(why, "%llu elements of the descriptor's type at displacement %llu are "
                          "not inside its part of %llu bytes",
                     (unsigned long long)count, (unsigned long long)disp,
                     (unsigned long long)size);
        goto out;
    }
    if (at > total || len > total - at || at % width != 0 || len % width != 0) {
        status = bad(why, "data bytes [%llu, +%llu) are not whole elements of the %llu the "
                          "layout holds",
                     (unsigned long long)at, (unsigned long long)len,
                     (unsigned long long)total);
        goto out;
    }
    char *target = base + disp;
    struct gk__dt_cursor c;
    if (width > 1) {
        /* Every piece the chunk touches: whole elements, aligned. */
        gk__dt_cursor_init(&c, flat, count, at);
        for (uint64_t left = len; left > 0;) {
            uint64_t n = c.len < left ? c.len : left;
            if (n % width != 0 || (uintptr_t)(target + c.pos) % width != 0) {
                status = bad(why, "the layout's piece at byte %lld splits or misaligns an "
                                  "element of %zu bytes",
                             (long long)c.pos, width);
                goto out;
            }
            left -= n;
            gk__dt_cursor_advance(&c, n);
        }
    }
    const char *data = payload + dlen;
    gk__dt_cursor_init(&c, flat, count, at);
    for (uint64_t done = 0; done < len;) {
        uint64_t n = c.len < len - done ? c.len : len - done;
        char *p = target + c.pos;
        switch (kind) {
        case GK__WIN_EMUL_PUT:
            memcpy(p, data + done, n);
            break;
        case GK__WIN_EMUL_GET:
            memcpy(out + done, p, n);
            break;
        default:
            for (uint64_t i = 0; i < n; i += width) {
                uint64_t operand = 0;
                memcpy(&operand, data + done + i, width);
                uint64_t old = local_update(p + i, width, dtype, op, operand);
                if (kind == GK__WIN_EMUL_GETACC)
                    memcpy(out + done + i, &old, width);
            }
            break;
        }
        done += n;
        gk__dt_cursor_advance(&c, n);
    }
    *out_len = kind == GK__WIN_EMUL_GET || kind == GK__WIN_EMUL_GETACC ? len : 0;
out:
    free(flat);
    return status;
}

/* The origin's side of an answer: data to its place, or the refusal. */
static void answer(struct emul_req *r, int status, uint64_t at, const char *data, size_t n)
{
    if (status != GK_OK) {
        if (r->status == GK_OK) {
            r->status = status;
            snprintf(r->why, sizeof(r->why), "%.*s", (int)(n < WHY_MAX ? n : WHY_MAX - 1),
                     data);
        }
    } else if (r->kind == GK__WIN_EMUL_GET && n > 0) {
        struct gk__dt_cursor c;
        gk__dt_cursor_init(&c, r->origin_flat, r->origin_count, at);
        for (size_t done = 0; done < n;) {
            uint64_t m = c.len < n - done ? c.len : n - done;
            memcpy(r->origin + c.pos, data + done, m);
            done += m;
            gk__dt_cursor_advance(&c, m);
        }
    } else if (r->kind == GK__WIN_EMUL_GETACC && n > 0 && r->result != NULL) {
        memcpy(r->result + at, data, n);
    } else if (r->kind == GK__WIN_EMUL_CAS && n == sizeof(uint64_t)) {
        memcpy(&r->old, data, n);
    }
    atomic_fetch_sub_explicit(&r->left, 1, memory_order_release);
}

static void h_req(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    char out[PAYLOAD], why[WHY_MAX] = "";
    size_t out_len = 0;
    int src = gk_am_token_pe(token);
    gk_win_t *win = nargs >= 1 ? gk__win_find((int)args[0]) : NULL;
    if (nargs >= 1 && (args[0] > (uint64_t)INT32_MAX))
        win = NULL;
    int status = serve(win, args, nargs, payload, nbytes, out, &out_len, why);
    uint64_t rep[4] = {nargs == REQ_ARGS ? args[7] : 0, (uint64_t)(int64_t)status,
                       nargs == REQ_ARGS ? args[4] : 0, 0};
    const char *data = status == GK_OK ? out : why;
    size_t n = status == GK_OK ? out_len : strlen(why);
    rep[3] = n;
    struct gk__net_am msg = {.word = gk__net_am_word(0, H_REP, 4, GK__AM_MEDIUM), .nbytes = n};
    if (gk__am_send(src, &msg, rep, data) != GK_OK)
        gk__error("windows: answering PE %d's emulated operation failed", src);
}

static void h_rep(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    struct emul_req *r = nargs == 4 ? req_named(args[0]) : NULL;
    if (r == NULL || nbytes != args[3] || r->pe != gk_am_token_pe(token)) {
        gk__error("windows: an answer from PE %d belongs to no emulated operation of this PE",
                  gk_am_token_pe(token));
        return;
    }
    answer(r, (int)(int64_t)args[1], args[2], payload, nbytes);
}

__attribute__((constructor)) static void emul_register_handlers(void)
{
    gk__am_set_handler(H_REQ, h_req);
    gk__am_set_handler(H_REP, h_rep);
}

/* ------------------------------------------------------------------------ */
/* The origin's side                                                        */
/* ------------------------------------------------------------------------ */

/* Sends one chunk, or runs it here when the part is this PE's own. */
static int send_chunk(gk_win_t *win, int pe, struct emul_req *r, const uint64_t *args,
                      const char *payload, size_t nbytes)
{
    if (pe != gk__rt.my_pe) {
        struct gk__net_am msg = {
            .word = gk__net_am_word(0, H_REQ, REQ_ARGS, GK__AM_MEDIUM), .nbytes = nbytes};
        return gk__am_send(pe, &msg, args, payload);
    }
    /* A PE that polls its own part (a loop of compare-and-swaps waiting
     * for its turn) serves the others' requests here, or they never run. */
    int ran = gk__progress_if_ready();
    if (ran < 0)
        return ran;
    char out[PAYLOAD], why[WHY_MAX] = "";
    size_t out_len = 0;
    int status = serve(win, args, REQ_ARGS, payload, nbytes, out, &out_len, why);
    answer(r, status, args[4], status == GK_OK ? out : why,
           status == GK_OK ? out_len : strlen(why));
    return GK_OK;
}

/* Starts a request of `chunks` chunks in slot *slot_p. */
static int req_start(const char *op, gk_win_t *win, int pe, enum gk__win_emul_op kind,
                     uint64_t chunks, uint32_t *slot_p)
{
    int status = gk__progress_check_not_in_handler(op);
    if (status == GK_OK)
        status = req_take(slot_p);
    if (status != GK_OK)
        return status;
    struct emul_req *r = &reqs[*slot_p];
    atomic_store_explicit(&r->left, chunks, memory_order_relaxed);
    r->status = GK_OK;
    r->why[0] = '\0';
    r->op = op;
    r->win = win;
    r->pe = pe;
    r->kind = kind;
    r->origin = NULL;
    r->origin_flat = NULL;
    r->result = NULL;
    emul_state(win)->pending++;
    return GK_OK;
}

/* Waits for a blocking request and retires it. */
static int req_finish(struct emul_req *r, int nbi, int status)
{
    if (status != GK_OK) {
        /* Chunks that never left are answered by no one. */
        atomic_store_explicit(&r->left, 0, memory_order_release);
    }
    if (nbi && status == GK_OK)
        return GK_OK;
    int wait = req_wait(r);
    int refused = req_retire(r, 0);
    if (status == GK_OK)
        status = wait;
    return status == GK_OK ? refused : status;
}

int gk__win_emul_op(const char *op, gk_win_t *win, int pe, enum gk__win_emul_op kind,
                    const struct gk__dt_flat *origin_flat, uint64_t origin_count,
                    const void *origin, size_t disp, const struct gk__dt_flat *target_flat,
                    uint64_t target_count, gk_dtype_t dtype, gk_op_t acc_op, void *result,
                    int nbi)
{
    uint64_t total = origin_flat->size * origin_count; /* checked by the caller */
    if (total == 0)
        return GK_OK;
    size_t dlen = gk__dt_encoded_size(target_flat);
    size_t width = kind == GK__WIN_EMUL_ACC || kind == GK__WIN_EMUL_GETACC
                       ? gk__acc_dtype_width(dtype)
                       : 1;
    if (dlen + 8 * width > PAYLOAD) {
        gk__error("%s: the target's layout needs a descriptor of %zu bytes, too large to "
                  "travel to PE %d, whose part of window %d is emulated (at most %zu bytes: "
                  "a type with fewer irregular blocks, or a part in the symmetric heap)",
                  op, dlen, pe, win->id, (size_t)PAYLOAD - 8 * width);
        return GK_ERR_UNSUPPORTED;
    }
    char payload[PAYLOAD];
    gk__dt_encode(target_flat, payload);
    uint64_t chunk = kind == GK__WIN_EMUL_GET ? PAYLOAD : (PAYLOAD - dlen) / width * width;
    uint64_t chunks = (total + chunk - 1) / chunk;
    uint32_t slot = 0;
    int status = req_start(op, win, pe, kind, chunks, &slot);
    if (status != GK_OK)
        return status;
    struct emul_req *r = &reqs[slot];
    if (kind == GK__WIN_EMUL_GET) {
        /* The answers arrive later (nbi: after the caller's type may be
         * freed): a copy of the origin's layout goes with the request. */
        size_t olen = gk__dt_encoded_size(origin_flat);
        char *obuf = malloc(olen);
        if (obuf == NULL)
            gk_abort(1, "windows: out of memory for emulated access");
        gk__dt_encode(origin_flat, obuf);
        status = gk__dt_decode(obuf, olen, INT64_MIN, INT64_MAX, &r->origin_flat, NULL, 0);
        free(obuf);
        if (status != GK_OK)
            gk_abort(1, "windows: out of memory for emulated access");
        r->origin = (char *)origin;
        r->origin_count = origin_count;
    }
    r->result = result;
    struct gk__dt_cursor oc;
    gk__dt_cursor_init(&oc, origin_flat, origin_count, 0);
    for (uint64_t at = 0; at < total && status == GK_OK; at += chunk) {
        uint64_t len = total - at < chunk ? total - at : chunk;
        size_t nbytes = dlen;
        if (kind != GK__WIN_EMUL_GET) {
            for (uint64_t done = 0; done < len;) {
                uint64_t n = oc.len < len - done ? oc.len : len - done;
                memcpy(payload + dlen + done, (const char *)origin + oc.pos, n);
                done += n;
                gk__dt_cursor_advance(&oc, n);
            }
            nbytes += len;
        }
        uint64_t args[REQ_ARGS] = {(uint64_t)win->id,
                                   (uint64_t)kind | (uint64_t)dtype << 8 | (uint64_t)acc_op << 16,
                                   disp, target_count, at, len, dlen, cookie_of(slot), 0, 0};
        status = send_chunk(win, pe, r, args, payload, nbytes);
    }
    /* A blocking call waits for its answers: it is complete at the target
     * on return, so a barrier after it (which completes heap puts) finds
     * its data there too. */
    return req_finish(r, nbi, status);
}

int gk__win_emul_cas(const char *op, gk_win_t *win, int pe, size_t disp, gk_dtype_t dtype,
                     uint64_t compare, uint64_t desired, uint64_t *old_p)
{
    uint32_t slot = 0;
    int status = req_start(op, win, pe, GK__WIN_EMUL_CAS, 1, &slot);
    if (status != GK_OK)
        return status;
    struct emul_req *r = &reqs[slot];
    uint64_t args[REQ_ARGS] = {(uint64_t)win->id,
                               (uint64_t)GK__WIN_EMUL_CAS | (uint64_t)dtype << 8,
                               disp, 1, 0, 0, 0, cookie_of(slot), compare, desired};
    status = send_chunk(win, pe, r, args, NULL, 0);
    uint64_t old = 0;
    if (status == GK_OK) {
        status = req_wait(r);
        old = r->old;
    }
    status = req_finish(r, 0, status);
    if (status == GK_OK)
        *old_p = old;
    return status;
}

int gk__win_emul_raw(gk_win_t *win, int pe, enum gk__win_emul_op kind, size_t disp,
                     uint64_t target_count, const void *desc, size_t desc_len,
                     uint64_t stream_at, const void *data, size_t len, char *why,
                     size_t why_len)
{
    char payload[PAYLOAD];
    size_t carried = kind == GK__WIN_EMUL_GET ? 0 : len;
    if (desc_len + carried > PAYLOAD)
        return GK_ERR_INVALID_ARG;
    memcpy(payload, desc, desc_len);
    if (carried > 0)
        memcpy(payload + desc_len, data, carried);
    uint32_t slot = 0;
    int status = req_start("gk__win_emul_raw", win, pe, kind, 1, &slot);
    if (status != GK_OK)
        return status;
    struct emul_req *r = &reqs[slot];
    uint64_t args[REQ_ARGS] = {(uint64_t)win->id, (uint64_t)kind | (uint64_t)GK_DTYPE_INT64 << 8,
                               disp, target_count, stream_at,
                               len, desc_len, cookie_of(slot),
                               0, 0};
    r->kind = GK__WIN_EMUL_PUT; /* only the status matters: answers' data are dropped */
    status = send_chunk(win, pe, r, args, payload, desc_len + carried);
    if (status == GK_OK)
        status = req_wait(r);
    int refused = r->status;
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, "%s", r->why);
    r->status = GK_OK; /* the caller reads the reason; nothing is logged */
    req_finish(r, 0, status);
    return status != GK_OK ? status : refused;
}

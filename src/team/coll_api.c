/*
 * coll_api.c: the team collectives' entry points: argument checks, the
 * choice of algorithm (the same on every PE for the same arguments), and
 * the blocking and non-blocking forms on one engine (coll.c, engine.c).
 *
 * A PE whose own arguments fail still takes part, with nothing to send
 * (count and sizes 0), so that every PE of the team learns of the failure
 * in the agreement rounds and returns an error, instead of waiting for it.
 * Only what cannot communicate at all returns at once: no gk_init, a call
 * from an active-message handler, a handle that is no team of this PE.
 */
#include <stdlib.h>
#include <string.h>

#include "base/check.h"
#include "base/log.h"
#include "base/names.h"
#include "coll/reduce_op.h"
#include "core/coll_check.h"
#include "core/path.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "team/coll.h"


/* How the world's gk_allreduce and gk_reduce say their PEs disagree. */
static void report_reduce_args(const struct gk__team_op *op)
{
    if (op->kind == GK__TEAM_ALLREDUCE)
        gk__error("%s: the PEs passed different arguments (this PE: count %zu, dtype %s, op "
                  "%s); no PE has a result",
                  op->name, op->count, GK__DTYPE_STR(op->dtype), GK__OP_STR(op->reduce));
    else
        gk__error("%s: the PEs passed different arguments (this PE: count %zu, dtype %s, op "
                  "%s, root %d); no PE has a result",
                  op->name, op->count, GK__DTYPE_STR(op->dtype), GK__OP_STR(op->reduce),
                  op->root);
}

/* A call's state, zeroed but for what every call sets; NULL (logged)
 * without memory. */
static struct gk__team_op *op_alloc(const char *name, enum gk__team_kind kind,
                                    struct gk_team *t, gk__team_next_fn *next)
{
    struct gk__team_op *op = calloc(1, sizeof(*op));
    if (op == NULL) {
        gk__error("%s: no memory for the call's state", name);
        return NULL;
    }
    op->team = t;
    op->kind = kind;
    op->name = name;
    op->next = next;
    op->root = -1;
    op->elem = 1;
    return op;
}

/* The gathers' block size of every member: `each` bytes. */
static int op_sizes(struct gk__team_op *op, size_t each)
{
    op->sizes = malloc((size_t)op->team->n * sizeof(size_t));
    if (op->sizes == NULL) {
        gk__error("%s: no memory for the team's sizes", op->name);
        return GK_ERR_NOMEM;
    }
    for (int i = 0; i < op->team->n; i++)
        op->sizes[i] = each;
    return GK_OK;
}

/* A new call on `team`, or NULL with *status_p set (logged). */
static struct gk__team_op *op_new(const char *name, enum gk__team_kind kind, gk_team_t team,
                                  gk__team_next_fn *next, int *status_p)
{
    if (!gk__rt.initialized) {
        *status_p = gk__rt_report_pe(name, 0);
        return NULL;
    }
    *status_p = gk__progress_check_not_in_handler(name);
    if (*status_p != GK_OK)
        return NULL;
    struct gk_team *t = gk__team_get(name, team);
    if (t == NULL) {
        *status_p = GK_ERR_INVALID_ARG;
        return NULL;
    }
    struct gk__team_op *op = op_alloc(name, kind, t, next);
    if (op == NULL) {
        *status_p = GK_ERR_NOMEM;
        return NULL;
    }
    if (strncmp(name, "gk_team_", 8) != 0) {
        /* The world forms (gk_collect, ...) word their reports as ever. */
        if (kind == GK__TEAM_FCOLLECT || kind == GK__TEAM_ALLTOALL)
            op->size_what = "nbytes";
        if (kind == GK__TEAM_ALLREDUCE || kind == GK__TEAM_REDUCE)
            op->report_args = report_reduce_args;
    }
    return op;
}

/* This PE's own check failed: it takes part with nothing. */
static void op_fail(struct gk__team_op *op, int status)
{
    if (op->my_status == GK_OK)
        op->my_status = status;
}

/* Working memory of `bytes` (at least a line, so a failed PE has some). */
static int op_work(struct gk__team_op *op, size_t bytes)
{
    op->work_size = bytes < 64 ? 64 : bytes;
    op->work = malloc(op->work_size);
    if (op->work == NULL) {
        gk__error("%s: no memory for %zu bytes of working space", op->name, op->work_size);
        return GK_ERR_NOMEM;
    }
    return GK_OK;
}

/*
 * Starts op, then waits for it (handle_p NULL) or gives its handle. On the
 * world team a call is one of the job's collective calls
 * (core/coll_check.h): numbered alike on every PE, so a PE in another
 * kind of world call (gk_malloc, gk_finalize) is found by the waits.
 */
static int op_launch(struct gk__team_op *op, gk_handle_t *handle_p)
{
    int world = op->team == gk__team_world();
    if (world) {
        enum gk__coll_kind kind = (enum gk__coll_kind)gk__team_coll_kind(op->kind);
        int entered = gk__coll_state.broken ? gk__coll_report_broken(op->name, kind)
                                            : gk__coll_enter(kind);
        if (entered != GK_OK) {
            gk__team_op_free(op);
            return entered;
        }
        op->world_call = gk__coll_state.seq;
    }
    int status = gk__team_start(op);
    if (status == GK_OK) {
        if (handle_p == NULL)
            status = gk__team_wait(op);
        else
            *handle_p = gk__team_handle(op);
    }
    if (world)
        gk__coll_leave();
    return status;
}

/* op_launch for a public call: a PE whose own checks failed takes part
 * with nothing of its own read or written. */
static int op_run(struct gk__team_op *op, gk_handle_t *handle_p)
{
    if (op->my_status != GK_OK) {
        op->count = op->nbytes = 0;
        op->src = NULL;
        op->dst = NULL;
        op->dst_size = 0;
        op->total_p = NULL;
    }
    if (op->work == NULL) {
        int status = op_work(op, 0);
        if (status != GK_OK) {
            gk__team_op_free(op);
            return status;
        }
    }
    return op_launch(op, handle_p);
}

static int check_handle_p(const char *name, gk_handle_t *handle_p)
{
    if (handle_p == NULL)
        return gk__rt_report_null(name, "handle_p", 1);
    *handle_p = GK_HANDLE_NULL;
    return GK_OK;
}

static void check_root(struct gk__team_op *op, int root)
{
    op->root = root;
    op->mine[GK__TF_ROOT] = (uint64_t)(uint32_t)root;
    if (root < 0 || root >= op->team->n) {
        gk__error("%s: root: PE %d does not exist in the team (it has PEs 0 to %d)",
                  op->name, root, op->team->n - 1);
        op_fail(op, GK_ERR_PE);
        op->root_invalid = 1;
    }
}

static void check_buf(struct gk__team_op *op, const char *arg, const void *p, size_t n)
{
    if (op->my_status == GK_OK) {
        int status = gk__rt_check_local(op->name, arg, p, n);
        if (status != GK_OK)
            op_fail(op, status);
    }
}

/* Do [a, a + alen) and [b, b + blen) share a byte? */
static int ranges_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen != 0 && blen != 0 && x < y + blen && y < x + alen;
}

/* src and dst must not overlap, except src == in_place (NULL: none). */
static void check_overlap(struct gk__team_op *op, const void *dst, size_t dst_bytes,
                          const void *src, size_t src_bytes, const void *in_place)
{
    if (op->my_status == GK_OK && src != in_place &&
        ranges_overlap(dst, dst_bytes, src, src_bytes)) {
        gk__error("%s: src %p (%zu bytes) and dst %p (%zu bytes) overlap%s", op->name, src,
                  src_bytes, dst, dst_bytes,
                  in_place != NULL ? "; in place, src must be this PE's block of dst"
                                   : "; they must be separate buffers");
        op_fail(op, GK_ERR_INVALID_ARG);
    }
}

/* Overflow-checked a * b. */
static int mul_ok(struct gk__team_op *op, size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b) {
        gk__error("%s: %zu x %zu bytes overflows the address space", op->name, a, b);
        op_fail(op, GK_ERR_INVALID_ARG);
        *out = 0;
        return 0;
    }
    *out = a * b;
    return 1;
}

/* ---- Barrier ---- */

int gk__team_barrier(const char *name, gk_team_t team, gk_handle_t *handle_p)
{
    int status;
    struct gk__team_op *op =
        op_new(name, GK__TEAM_BARRIER, team, gk__team_next_headers_only, &status);
    if (op == NULL)
        return status;
    /* Data put before the barrier is visible after it. */
    status = gk__path_quiet();
    if (status != GK_OK)
        op_fail(op, status);
    return op_run(op, handle_p);
}

int gk_team_barrier(gk_team_t team)
{
    return gk__team_barrier("gk_team_barrier", team, NULL);
}

int gk_team_barrier_nb(gk_team_t team, gk_handle_t *handle_p)
{
    int status = check_handle_p("gk_team_barrier_nb", handle_p);
    return status != GK_OK ? status : gk__team_barrier("gk_team_barrier_nb", team, handle_p);
}

/* ---- Broadcast ---- */

int gk__team_broadcast(const char *name, gk_team_t team, void *dst, const void *src,
                       size_t nbytes, int root, int radix, gk_handle_t *handle_p)
{
    int status;
    struct gk__team_op *op =
        op_new(name, GK__TEAM_BROADCAST, team, gk__team_next_bcast, &status);
    if (op == NULL)
        return status;
    op->dst = dst;
    op->src = src;
    op->nbytes = nbytes;
    op->mine[GK__TF_SIZE] = nbytes;
    check_root(op, root);
    if (radix != 0) {
        /* gk_broadcast_radix's: checked and agreed on (the tree is binomial). */
        op->mine[GK__TF_TYPE] = (uint64_t)(uint32_t)radix;
        op->type_what = "radices";
        if (radix < 2 || radix > 64) {
            gk__error("%s: radix %d is out of range (2 to 64)", name, radix);
            op_fail(op, GK_ERR_INVALID_ARG);
        }
    }
    check_buf(op, "dst", dst, nbytes);
    if (op->team->me == root)
        check_buf(op, "src", src, nbytes);
    op->algo = gk__team_choose_bcast(op->team, nbytes);
    if (gk__team_log2_up(op->team->n) > GK__TEAM_BULK_BOXES)
        op->algo = GK__ALGO_SMALL; /* a tree deeper than the bulk boxes */
    return op_run(op, handle_p);
}

int gk_team_broadcast(gk_team_t team, void *dst, const void *src, size_t nbytes, int root)
{
    return gk__team_broadcast("gk_team_broadcast", team, dst, src, nbytes, root, 0, NULL);
}

int gk_team_broadcast_nb(gk_team_t team, void *dst, const void *src, size_t nbytes, int root,
                         gk_handle_t *handle_p)
{
    int status = check_handle_p("gk_team_broadcast_nb", handle_p);
    return status != GK_OK ? status
                           : gk__team_broadcast("gk_team_broadcast_nb", team, dst, src, nbytes,
                                               root, 0, handle_p);
}

/* ---- Reductions and scans ---- */

int gk__team_reduction(const char *name, enum gk__team_kind kind, gk_team_t team,
                          void *dst, const void *src, size_t count, gk_dtype_t dtype,
                          gk_op_t rop, int root, gk_handle_t *handle_p)
{
    int status;
    gk__team_next_fn *next = kind == GK__TEAM_SCAN || kind == GK__TEAM_EXSCAN
                                 ? gk__team_next_scan
                                 : gk__team_next_reduce;
    struct gk__team_op *op = op_new(name, kind, team, next, &status);
    if (op == NULL)
        return status;
    struct gk_team *t = op->team;
    op->dst = dst;
    op->src = src;
    op->dtype = dtype;
    op->reduce = rop;
    op->mine[GK__TF_SIZE] = count;
    op->mine[GK__TF_TYPE] = (uint64_t)dtype << 8 | (uint64_t)rop;
    status = gk__reduce_check(name, dtype, rop);
    if (status != GK_OK)
        op_fail(op, status);
    size_t elem = status == GK_OK ? gk__reduce_dtype_size(dtype) : 1;
    op->elem = elem;
    /* reduce-scatter reduces count elements per PE */
    size_t total = count, bytes = 0;
    if (kind == GK__TEAM_REDUCE_SCATTER)
        mul_ok(op, count, (size_t)t->n, &total);
    mul_ok(op, total, elem, &bytes);
    op->count = total;
    if (kind == GK__TEAM_REDUCE)
        check_root(op, root);
    int keeps = kind != GK__TEAM_REDUCE || t->me == root;
    size_t out = kind == GK__TEAM_REDUCE_SCATTER ? count * elem : bytes;
    if (keeps && !(kind == GK__TEAM_EXSCAN && t->me == 0))
        check_buf(op, "dst", dst, out);
    check_buf(op, "src", src, bytes);
    size_t nb = 0;
    int gather_fits = mul_ok(op, bytes, (size_t)t->n, &nb) &&
                      gk__team_gather_fits(bytes, nb);
    if (kind == GK__TEAM_SCAN || kind == GK__TEAM_EXSCAN) {
        op->algo = gk__team_tuning.scan != GK__ALGO_AUTO ? gk__team_tuning.scan
                   : gather_fits                         ? GK__ALGO_SMALL
                                                         : GK__ALGO_CHAIN;
    } else {
        op->algo = gk__team_choose_allreduce(t, bytes, gather_fits);
    }
    if (op->my_status != GK_OK)
        bytes = 0;
    /* Working space: the gather's result (scans), the result a PE does not
     * keep, the chain's two prefixes. */
    size_t work = 2 * bytes;
    if ((kind == GK__TEAM_SCAN || kind == GK__TEAM_EXSCAN) && op->algo == GK__ALGO_SMALL)
        work = nb;
    if (op->my_status == GK_OK && (status = op_work(op, work)) != GK_OK)
        op_fail(op, status);
    if ((kind == GK__TEAM_SCAN || kind == GK__TEAM_EXSCAN) &&
        (status = op_sizes(op, op->my_status == GK_OK ? bytes : 0)) != GK_OK) {
        gk__team_op_free(op);
        return status;
    }
    return op_run(op, handle_p);
}

#define GK__TEAM_REDUCTION(fn, kind)                                                     \
    int fn(gk_team_t team, void *dst, const void *src, size_t count, gk_dtype_t dtype,   \
           gk_op_t op)                                                                   \
    {                                                                                    \
        return gk__team_reduction(#fn, kind, team, dst, src, count, dtype, op, -1, NULL);    \
    }                                                                                    \
    int fn##_nb(gk_team_t team, void *dst, const void *src, size_t count,                \
                gk_dtype_t dtype, gk_op_t op, gk_handle_t *handle_p)                     \
    {                                                                                    \
        int status = check_handle_p(#fn "_nb", handle_p);                                \
        return status != GK_OK ? status                                                  \
                               : gk__team_reduction(#fn "_nb", kind, team, dst, src, count,  \
                                                dtype, op, -1, handle_p);                \
    }
GK__TEAM_REDUCTION(gk_team_allreduce, GK__TEAM_ALLREDUCE)
GK__TEAM_REDUCTION(gk_team_reduce_scatter, GK__TEAM_REDUCE_SCATTER)
GK__TEAM_REDUCTION(gk_team_scan, GK__TEAM_SCAN)
GK__TEAM_REDUCTION(gk_team_exscan, GK__TEAM_EXSCAN)
#undef GK__TEAM_REDUCTION

int gk_team_reduce(gk_team_t team, void *dst, const void *src, size_t count, gk_dtype_t dtype,
                   gk_op_t op, int root)
{
    return gk__team_reduction("gk_team_reduce", GK__TEAM_REDUCE, team, dst, src, count, dtype, op,
                          root, NULL);
}

int gk_team_reduce_nb(gk_team_t team, void *dst, const void *src, size_t count,
                      gk_dtype_t dtype, gk_op_t op, int root, gk_handle_t *handle_p)
{
    int status = check_handle_p("gk_team_reduce_nb", handle_p);
    return status != GK_OK ? status
                           : gk__team_reduction("gk_team_reduce_nb", GK__TEAM_REDUCE, team, dst,
                                            src, count, dtype, op, root, handle_p);
}

/* ---- Collects ---- */

/* Whether the put algorithms (coll.c) can run on team t: it spans hosts
 * (where every dst's symmetry is then found in the agreement), and not in
 * check mode, whose clocks would see the puts made inside a call as the
 * program's own. */
static int puts_fit(const struct gk_team *t)
{
    return t->n > 1 && t->n_hosts > 1 && !gk__check_on;
}

int gk__team_fcollect(const char *name, gk_team_t team, void *dst, const void *src,
                         size_t nbytes, gk_handle_t *handle_p)
{
    int status;
    struct gk__team_op *op =
        op_new(name, GK__TEAM_FCOLLECT, team, gk__team_next_fcollect, &status);
    if (op == NULL)
        return status;
    struct gk_team *t = op->team;
    op->dst = dst;
    op->src = src;
    op->nbytes = nbytes;
    op->mine[GK__TF_SIZE] = nbytes;
    size_t total = 0;
    mul_ok(op, nbytes, (size_t)t->n, &total);
    check_buf(op, "dst", dst, total);
    check_buf(op, "src", src, nbytes);
    if (op->my_status == GK_OK) /* total did not overflow: my block's address is sound */
        check_overlap(op, dst, total, src, nbytes,
                      (const unsigned char *)dst + (size_t)t->me * nbytes);
    int put_fits = puts_fit(t);
    op->algo = gk__team_tuning.fcollect != GK__ALGO_AUTO ? gk__team_tuning.fcollect
               : gk__team_gather_fits(nbytes, total)             ? GK__ALGO_SMALL
               : put_fits && gk__team_fcollect_put_auto(t->n, nbytes) ? GK__ALGO_PUT
                                                        : GK__ALGO_RING;
    if (op->algo == GK__ALGO_PUT && !put_fits)
        op->algo = GK__ALGO_RING;
    if (op->algo == GK__ALGO_PUT && op->my_status == GK_OK &&
        (status = op_work(op, (size_t)t->n * GK__TEAM_DIRECT_ENTRY)) != GK_OK)
        op_fail(op, status);
    size_t gathered = op->algo == GK__ALGO_PUT ? GK__TEAM_DIRECT_ENTRY : nbytes;
    if ((status = op_sizes(op, op->my_status == GK_OK ? gathered : 0)) != GK_OK) {
        gk__team_op_free(op);
        return status;
    }
    return op_run(op, handle_p);
}

int gk_team_fcollect(gk_team_t team, void *dst, const void *src, size_t nbytes)
{
    return gk__team_fcollect("gk_team_fcollect", team, dst, src, nbytes, NULL);
}

int gk_team_fcollect_nb(gk_team_t team, void *dst, const void *src, size_t nbytes,
                        gk_handle_t *handle_p)
{
    int status = check_handle_p("gk_team_fcollect_nb", handle_p);
    return status != GK_OK ? status
                           : gk__team_fcollect("gk_team_fcollect_nb", team, dst, src, nbytes,
                                           handle_p);
}

int gk__team_collect(const char *name, gk_team_t team, void *dst, size_t dst_size,
                        const void *src, size_t nbytes, size_t *total_p, gk_handle_t *handle_p)
{
    int status;
    struct gk__team_op *op =
        op_new(name, GK__TEAM_COLLECT, team, gk__team_next_collect, &status);
    if (op == NULL)
        return status;
    struct gk_team *t = op->team;
    op->dst = dst;
    op->src = src;
    op->nbytes = nbytes;
    op->dst_size = dst_size;
    op->total_p = total_p;
    check_buf(op, "dst", dst, dst_size);
    check_buf(op, "src", src, nbytes);
    /* (put is fcollect's only: its blocks differ in size here.) */
    op->algo = gk__team_tuning.fcollect == GK__ALGO_PUT ? GK__ALGO_RING : gk__team_tuning.fcollect;
    status = op_sizes(op, 0); /* the agreement gathers them */
    if (status == GK_OK)
        status = op_work(op, (size_t)t->n * 2 * sizeof(uint64_t));
    if (status != GK_OK) {
        gk__team_op_free(op);
        return status;
    }
    return op_run(op, handle_p);
}

int gk_team_collect(gk_team_t team, void *dst, size_t dst_size, const void *src, size_t nbytes,
                    size_t *total_p)
{
    return gk__team_collect("gk_team_collect", team, dst, dst_size, src, nbytes, total_p, NULL);
}

int gk_team_collect_nb(gk_team_t team, void *dst, size_t dst_size, const void *src,
                       size_t nbytes, size_t *total_p, gk_handle_t *handle_p)
{
    int status = check_handle_p("gk_team_collect_nb", handle_p);
    return status != GK_OK ? status
                           : gk__team_collect("gk_team_collect_nb", team, dst, dst_size, src,
                                          nbytes, total_p, handle_p);
}

/* ---- All-to-all ---- */

int gk__team_alltoall(const char *name, enum gk__team_kind kind, gk_team_t team, void *dst,
                         const void *src, size_t nbytes, size_t dst_stride, size_t src_stride,
                         size_t elem, size_t nelems, gk_handle_t *handle_p)
{
    int status;
    struct gk__team_op *op = op_new(name, kind, team, gk__team_next_alltoall, &status);
    if (op == NULL)
        return status;
    struct gk_team *t = op->team;
    int n = t->n;
    op->dst = dst;
    op->src = src;
    if (kind == GK__TEAM_ALLTOALLS) {
        op->count = nelems;
        op->elem = elem;
        op->dst_stride = dst_stride;
        op->src_stride = src_stride;
        if (dst_stride == 0 || src_stride == 0) {
            gk__error("%s: the strides must be at least 1 (dst_stride %zu, src_stride %zu)",
                      name, dst_stride, src_stride);
            op_fail(op, GK_ERR_INVALID_ARG);
        }
        mul_ok(op, elem, nelems, &nbytes);
        op->mine[GK__TF_TYPE] = (uint64_t)dst_stride << 32 ^ src_stride;
        size_t span = 0, last = 0;
        if (op->my_status == GK_OK && nbytes > 0 &&
            mul_ok(op, (size_t)n * nelems - 1, src_stride, &last) &&
            mul_ok(op, last + 1, elem, &span))
            check_buf(op, "src", src, span);
        if (op->my_status == GK_OK && nbytes > 0 &&
            mul_ok(op, (size_t)n * nelems - 1, dst_stride, &last) &&
            mul_ok(op, last + 1, elem, &span))
            check_buf(op, "dst", dst, span);
    }
    op->nbytes = nbytes;
    op->mine[GK__TF_SIZE] = nbytes;
    size_t total = 0;
    mul_ok(op, nbytes, (size_t)n, &total);
    if (kind == GK__TEAM_ALLTOALL) {
        check_buf(op, "dst", dst, total);
        check_buf(op, "src", src, total);
        check_overlap(op, dst, total, src, total, NULL);
    }
    int bruck_only = n - 1 > GK__TEAM_BULK_BOXES;
    if (gk__team_log2_up(n) > GK__TEAM_BULK_BOXES) {
        gk__error("%s: a team of %d PEs is more than this build's all-to-all reaches "
                  "(2^%d PEs)",
                  name, n, GK__TEAM_BULK_BOXES);
        op_fail(op, GK_ERR_UNSUPPORTED);
    }
    /* small: every PE's whole row in the agreement's gather, where the
     * rows gathered stay small. */
    int small_fits = total <= GK__TEAM_ALLTOALL_SMALL_MAX / (size_t)n &&
                     gk__team_gather_fits(total, total * (size_t)n);
    size_t gathered = small_fits ? total * (size_t)n : 0;
    /* direct: on one host, where every PE may read the others' memory
     * (tuning.c), each PE reads its blocks out of the others' src. */
    int direct_fits = kind == GK__TEAM_ALLTOALL && n > 1 && t->n_hosts == 1 &&
                      gk__team_tuning.direct_ok;
    /* put (puts_fit): where one dst is not symmetric, every PE goes
     * pairwise, which needs its boxes. */
    int put_fits = kind == GK__TEAM_ALLTOALL && !bruck_only && puts_fit(t);
    op->algo = gk__team_tuning.alltoall != GK__ALGO_AUTO ? gk__team_tuning.alltoall
               : small_fits                                     ? GK__ALGO_SMALL
               : direct_fits && nbytes >= GK__TEAM_ALLTOALL_DIRECT_MIN ? GK__ALGO_DIRECT
               : put_fits && gk__team_alltoall_put_auto(n, nbytes) ? GK__ALGO_PUT
               : nbytes <= GK__TEAM_ALLTOALL_BRUCK_MAX           ? GK__ALGO_BRUCK
                                                        : GK__ALGO_PAIRWISE;
    if ((op->algo == GK__ALGO_SMALL && !small_fits) ||
        (op->algo == GK__ALGO_DIRECT && !direct_fits) || (op->algo == GK__ALGO_PUT && !put_fits))
        op->algo = nbytes <= GK__TEAM_ALLTOALL_BRUCK_MAX ? GK__ALGO_BRUCK : GK__ALGO_PAIRWISE;
    if (bruck_only && op->algo == GK__ALGO_PAIRWISE)
        op->algo = GK__ALGO_BRUCK;
    if (op->my_status != GK_OK) {
        op->nbytes = nbytes = total = gathered = 0;
    }
    size_t work = (op->algo == GK__ALGO_BRUCK ? 3 : 0) * total +
                  (op->algo == GK__ALGO_SMALL ? gathered : 0) +
                  (op->algo == GK__ALGO_DIRECT || op->algo == GK__ALGO_PUT
                       ? (size_t)n * GK__TEAM_DIRECT_ENTRY
                       : 0) +
                  (kind == GK__TEAM_ALLTOALLS ? 2 * total : 0);
    if (op->my_status == GK_OK && (status = op_work(op, work)) != GK_OK)
        op_fail(op, status);
    if ((op->algo == GK__ALGO_DIRECT || op->algo == GK__ALGO_PUT) &&
        (status = op_sizes(op, GK__TEAM_DIRECT_ENTRY)) != GK_OK) {
        gk__team_op_free(op);
        return status;
    }
    if (op->algo == GK__ALGO_SMALL && (status = op_sizes(op, total)) != GK_OK) {
        gk__team_op_free(op);
        return status;
    }
    return op_run(op, handle_p);
}

int gk_team_alltoall(gk_team_t team, void *dst, const void *src, size_t nbytes)
{
    return gk__team_alltoall("gk_team_alltoall", GK__TEAM_ALLTOALL, team, dst, src, nbytes, 0, 0,
                         1, 0, NULL);
}

int gk_team_alltoall_nb(gk_team_t team, void *dst, const void *src, size_t nbytes,
                        gk_handle_t *handle_p)
{
    int status = check_handle_p("gk_team_alltoall_nb", handle_p);
    return status != GK_OK ? status
                           : gk__team_alltoall("gk_team_alltoall_nb", GK__TEAM_ALLTOALL, team, dst,
                                           src, nbytes, 0, 0, 1, 0, handle_p);
}

int gk_team_alltoalls(gk_team_t team, void *dst, const void *src, size_t dst_stride,
                      size_t src_stride, size_t elem_size, size_t nelems)
{
    return gk__team_alltoall("gk_team_alltoalls", GK__TEAM_ALLTOALLS, team, dst, src, 0,
                         dst_stride, src_stride, elem_size, nelems, NULL);
}

int gk_team_alltoalls_nb(gk_team_t team, void *dst, const void *src, size_t dst_stride,
                         size_t src_stride, size_t elem_size, size_t nelems,
                         gk_handle_t *handle_p)
{
    int status = check_handle_p("gk_team_alltoalls_nb", handle_p);
    return status != GK_OK ? status
                           : gk__team_alltoall("gk_team_alltoalls_nb", GK__TEAM_ALLTOALLS, team,
                                           dst, src, 0, dst_stride, src_stride, elem_size,
                                           nelems, handle_p);
}

/* ---- For team.c ---- */

int gk__team_gather(const char *name, enum gk__team_kind kind, struct gk_team *t, void *dst,
                    const void *src, size_t nbytes, const uint64_t fields[3],
                    const char *const what[3], int status)
{
    struct gk__team_op *op = op_alloc(name, kind, t, gk__team_next_fcollect);
    if (op == NULL)
        return GK_ERR_NOMEM;
    op->dst = dst;
    op->src = src;
    op->nbytes = nbytes;
    op->mine[GK__TF_ROOT] = fields[0];
    op->mine[GK__TF_SIZE] = fields[1];
    op->mine[GK__TF_TYPE] = fields[2];
    if (what != NULL) {
        op->root_what = what[0];
        op->size_what = what[1];
        op->type_what = what[2];
    }
    op->my_status = status;
    op->algo = GK__ALGO_SMALL;
    /* A failed PE still receives (the split's records): not op_run. */
    int r = op_sizes(op, nbytes);
    if (r == GK_OK)
        r = op_work(op, 0);
    if (r != GK_OK) {
        gk__team_op_free(op);
        return r;
    }
    return op_launch(op, NULL);
}

int gk__team_agree_max(const char *name, enum gk__team_kind kind, struct gk_team *t,
                       uint64_t *dst, const uint64_t *src, size_t count,
                       const uint64_t fields[3],
                       void (*report_args)(const struct gk__team_op *op), int status)
{
    /* The same algorithm on every member, whatever its own checks say. */
    struct gk__team_op *op =
        op_alloc(name, kind, t, count != 0 ? gk__team_next_reduce : gk__team_next_headers_only);
    if (op == NULL)
        return GK_ERR_NOMEM;
    op->dtype = GK_DTYPE_UINT64;
    op->reduce = GK_OP_MAX;
    op->elem = sizeof(uint64_t);
    op->mine[GK__TF_ROOT] = fields[0];
    op->mine[GK__TF_SIZE] = fields[1];
    op->mine[GK__TF_TYPE] = fields[2];
    op->report_args = report_args;
    op->my_status = status;
    op->algo = GK__ALGO_SMALL;
    if (status == GK_OK) {
        op->dst = dst;
        op->src = src;
        op->count = count;
    }
    int r = op_work(op, 2 * op->count * sizeof(uint64_t));
    if (r != GK_OK) {
        gk__team_op_free(op);
        return r;
    }
    return op_launch(op, NULL);
}

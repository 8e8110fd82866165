/*
 * allreduce.c: gk_allreduce and gk_reduce, on core's all-reduce engine
 * (core/allreduce.c: recursive doubling, and how the PEs agree on the
 * call): the argument checks, the call's hash, the element-wise kernels,
 * and the reports when the PEs' calls disagree.
 *
 * gk_reduce is the same exchange with a root in the hash: every PE computes
 * the result (so the root's bits are the all-reduce's), and only the root
 * stores it.
 */
#include "core/allreduce.h"
#include "base/log.h"
#include "base/names.h"
#include "coll/reduce_op.h"
#include "core/coll_check.h"
#include "core/progress.h"

/* What the engine combines with: a checked (dtype, op). */
struct reduce_kind {
    gk_dtype_t dtype;
    gk_op_t op;
};

static void reduce_combine(void *out, const void *lower, const void *upper, size_t count,
                           const void *arg)
{
    const struct reduce_kind *kind = arg;
    gk__reduce_apply(out, lower, upper, count, kind->dtype, kind->op);
}

/*
 * The body of gk_allreduce (root GK__ALLREDUCE_ROOT_ALL) and gk_reduce:
 * the result goes to dst on every PE, or on the root only.
 */
static int reduce_call(const char *name, void *dst, const void *src, size_t count,
                       gk_dtype_t dtype, gk_op_t op, int64_t root)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe(name, 0);
    int in_handler = gk__progress_check_not_in_handler(name);
    if (in_handler != GK_OK)
        return in_handler;
    /* Checked here, but reported to the other PEs through the first piece
     * (core/allreduce.c, "Agreement") before this PE returns. */
    int status = gk__reduce_check(name, dtype, op);
    size_t size = gk__reduce_dtype_size(dtype);
    if (status == GK_OK && root != GK__ALLREDUCE_ROOT_ALL &&
        (root < 0 || root >= gk__rt.n_pes))
        status = gk__rt_report_pe(name, (int)root);
    if (status == GK_OK && count > SIZE_MAX / size) {
        gk__error("%s: count %zu overflows the address space", name, count);
        status = GK_ERR_INVALID_ARG;
    }
    int keeps = root == GK__ALLREDUCE_ROOT_ALL || root == gk__rt.my_pe;
    if (status == GK_OK && keeps)
        status = gk__rt_check_local(name, "dst", dst, count * size);
    if (status == GK_OK)
        status = gk__rt_check_local(name, "src", src, count * size);
    uint32_t state = gk__allreduce_hash(count, dtype, op, root);
    const struct reduce_kind kind = {dtype, op};
    if (status != GK_OK) {
        state |= GK__ALLREDUCE_FAILED;
        int comm = gk__allreduce_run(NULL, NULL, 0, size, reduce_combine, &kind, &state);
        return comm != GK_OK ? comm : status;
    }
    status = gk__allreduce_run(keeps ? dst : NULL, src, count, size, reduce_combine,
                               &kind, &state);
    if (status != GK_OK)
        return status;
    if (state & GK__ALLREDUCE_MISMATCH) {
        if (root == GK__ALLREDUCE_ROOT_ALL)
            gk__error("%s: the PEs passed different arguments (this PE: count %zu, "
                      "dtype %s, op %s); no PE has a result",
                      name, count, GK__DTYPE_STR(dtype), GK__OP_STR(op));
        else
            gk__error("%s: the PEs passed different arguments (this PE: count %zu, "
                      "dtype %s, op %s, root %d); no PE has a result",
                      name, count, GK__DTYPE_STR(dtype), GK__OP_STR(op), (int)root);
        return GK_ERR_INVALID_ARG;
    }
    if (state & GK__ALLREDUCE_FAILED) {
        gk__error("%s: the arguments of another PE failed their checks (it says which); "
                  "no PE has a result",
                  name);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

int gk_allreduce(void *dst, const void *src, size_t count, gk_dtype_t dtype, gk_op_t op)
{
    GK__COLL_RUN(GK__COLL_ALLREDUCE, reduce_call("gk_allreduce", dst, src, count, dtype,
                                                 op, GK__ALLREDUCE_ROOT_ALL));
}

int gk_reduce(void *dst, const void *src, size_t count, gk_dtype_t dtype, gk_op_t op,
              int root)
{
    GK__COLL_RUN(GK__COLL_REDUCE,
                 reduce_call("gk_reduce", dst, src, count, dtype, op, root));
}

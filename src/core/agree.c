/*
 * agree.c: collective calls agree on their local argument checks before
 * they go on. A PE that found a bad argument and simply returned would
 * leave the others waiting in the call's next collective step (a hang), or
 * meet them in a different collective later (worse). So the local verdict
 * goes into one all-reduce, and every PE returns the same way.
 */
#include "base/log.h"
#include "core/allreduce.h"
#include "core/runtime.h"
#include "core/progress.h"

int gk__rt_agree(const char *op, int local_status)
{
    if (!gk__rt.initialized)
        return local_status; /* nobody to agree with; the check said why */
    int in_handler = gk__progress_check_not_in_handler(op);
    if (in_handler != GK_OK)
        return in_handler;
    /* Failure codes are negative: the worst (most negative) wins as a max. */
    uint64_t mine = (uint64_t)-(int64_t)local_status, worst = 0;
    int status = gk__allreduce_u64(op, &worst, &mine, 1, GK_OP_MAX);
    if (status != GK_OK)
        return status; /* the job is ending */
    if (worst == 0)
        return GK_OK;
    if (local_status == GK_OK)
        gk__error("%s: failed on another PE (%s); nothing was done on any PE", op,
                  gk_strerror(-(int)worst));
    return local_status != GK_OK ? local_status : -(int)worst;
}

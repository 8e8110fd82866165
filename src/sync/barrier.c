/*
 * barrier.c: gk_barrier, the public entry to core's dissemination barrier
 * (core/barrier.c), which the runtime's own collective calls use too.
 */
#include "core/barrier.h"
#include "core/coll_check.h"
#include "core/progress.h"
#include "core/runtime.h"

int gk_barrier(void)
{
    if (GK__UNLIKELY(!gk__rt.initialized))
        return gk__rt_report_pe("gk_barrier", 0);
    if (GK__UNLIKELY(gk__in_handler))
        return gk__progress_report_in_handler("gk_barrier");
    int status = gk__coll_enter(GK__COLL_BARRIER);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    status = gk__barrier();
    gk__coll_leave();
    return status;
}

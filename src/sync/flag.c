/*
 * flag.c: flags that only their target reads, and waits for (flag.h).
 */
#include "sync/flag.h"

#include "core/runtime.h"
#include "core/path.h"

int gk__flag_add_u64(const char *op, int pe, uint64_t *word, uint64_t value)
{
    size_t offset = 0;
    int status = gk__rt_check_word(op, pe, word, sizeof(*word), &offset);
    if (GK__UNLIKELY(status != GK_OK))
        return status;
    gk__path_flush_wakes(); /* as gk_atomic_add_u64 does: its wait may be a poll */
    return gk__path_flag64(pe, GK__AMO_FETCH_ADD, offset, value);
}

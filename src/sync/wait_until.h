/* wait_until.h: the point-to-point wait, for other waits of the sync layer. */
#ifndef GK_SYNC_WAIT_UNTIL_H
#define GK_SYNC_WAIT_UNTIL_H

#include "gasket.h"

/*
 * gk_wait_until_u64() that also returns the value that satisfied the
 * comparison (read by the same load that ended the wait).
 */
int gk__wait_until_u64_seen(const char *op, uint64_t *ivar, gk_cmp_t cmp,
                            uint64_t value, uint64_t *seen_p);

#endif /* GK_SYNC_WAIT_UNTIL_H */

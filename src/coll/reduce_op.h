/* reduce_op.h: element-wise combination for the reductions. */
#ifndef GK_COLL_REDUCE_OP_H
#define GK_COLL_REDUCE_OP_H

#include <stddef.h>

#include "gasket.h"

/* The size of one element, or 0 for an unknown type. */
size_t gk__reduce_dtype_size(gk_dtype_t dtype);

/* out[i] = lower[i] op upper[i]; out may alias either input. Integer
 * arithmetic wraps (done in unsigned types). */
void gk__reduce_apply(void *out, const void *lower, const void *upper, size_t count,
                      gk_dtype_t dtype, gk_op_t op);

#endif /* GK_COLL_REDUCE_OP_H */

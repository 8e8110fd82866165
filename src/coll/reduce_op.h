/* reduce_op.h: element-wise combination for the reductions. */
#ifndef GK_COLL_REDUCE_OP_H
#define GK_COLL_REDUCE_OP_H

#include <stddef.h>

#include "gasket.h"

/* The size of one element (1 to 32 bytes), or 0 for an unknown type. */
size_t gk__reduce_dtype_size(gk_dtype_t dtype);

/*
 * Checks that `op` is a reduction operation valid on `dtype` (gasket.h's
 * table: bitwise on integers, MINLOC/MAXLOC exactly on the pair types);
 * logs why not, naming the call, and returns GK_ERR_INVALID_ARG.
 */
int gk__reduce_check(const char *call, gk_dtype_t dtype, gk_op_t op);

/* out[i] = lower[i] op upper[i] for a (dtype, op) that passed the check;
 * out may alias either input. Integer arithmetic wraps (done in unsigned
 * types). The buffers are aligned for the element type. */
void gk__reduce_apply(void *out, const void *lower, const void *upper, size_t count,
                      gk_dtype_t dtype, gk_op_t op);

#endif /* GK_COLL_REDUCE_OP_H */

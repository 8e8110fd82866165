/*
 * typed.h: the typed transfer of typed_rma.c, for the features that move
 * typed data to a symmetric address they have checked themselves (typed
 * transfers on windows).
 */
#ifndef GK_DTYPE_TYPED_H
#define GK_DTYPE_TYPED_H

#include <stdint.h>

#include "dtype/flat.h"

enum gk__typed_dir { GK__TYPED_PUT, GK__TYPED_GET };

/* One side of a transfer: its form, element count and buffer; size, lo and
 * hi are filled in by gk__typed_xfer. */
struct gk__typed_side {
    const struct gk__dt_flat *flat;
    uint64_t count;
    const char *addr;
    const char *count_arg, *type_arg; /* for messages */
    const char *type_str;
    uint64_t size;
    int64_t lo, hi;
};

/*
 * Moves the data of `local` (this PE's buffer) to `remote` (a symmetric
 * address on pe) for GK__TYPED_PUT, the other way for GK__TYPED_GET: both
 * sides' sizes must agree, the remote span must lie in pe's heap (checked,
 * logged), unless seg_base is given: then the caller has checked the
 * remote span itself, and remote position p is segment offset
 * *seg_base + p (windows, whose parts may lie outside the symmetric
 * range). nbi: the local buffer is the library's until quiet. Pack on
 * the fly: straight between mappings on this node, bounded chunks
 * through a transport.
 */
int gk__typed_xfer(const char *op, enum gk__typed_dir dir, int pe,
                   struct gk__typed_side *remote, struct gk__typed_side *local, int nbi,
                   const uint64_t *seg_base);

#endif /* GK_DTYPE_TYPED_H */

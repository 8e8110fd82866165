/*
 * desc.h: a committed type's layout as a self-contained run of bytes (a
 * descriptor), for a PE that must apply another PE's type (an active
 * message that carries it), and the decoder that turns such bytes back
 * into a flat form (flat.h) only once it has checked every field.
 *
 * Layout, little-endian: a 72-byte header (magic "GKDT", version, the
 * node and entry counts, the root, size, root displacement, lb, extent,
 * true bounds), then the nodes (24 bytes: kind, child, count, stride),
 * then the list entries (16 bytes: displacement, child). Sizes, spans and
 * entry prefixes are not sent: the decoder recomputes them, so it trusts
 * nothing it can compute itself.
 */
#ifndef GK_DTYPE_DESC_H
#define GK_DTYPE_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "dtype/flat.h"

#define GK__DT_DESC_MAGIC 0x54444b47u /* "GKDT" */
#define GK__DT_DESC_VERSION 1u
#define GK__DT_DESC_HEADER 72u
#define GK__DT_DESC_NODE 24u
#define GK__DT_DESC_ENTRY 16u

/* The bytes gk__dt_encode writes for `flat`. */
size_t gk__dt_encoded_size(const struct gk__dt_flat *flat);
/* Writes the descriptor of `flat` to buf (gk__dt_encoded_size bytes). */
void gk__dt_encode(const struct gk__dt_flat *flat, void *buf);

/*
 * Decodes `len` bytes at buf into a new flat form (*flat_p, one block
 * freed with free()), after checking everything: the header, that the
 * counts match len exactly, each node's kind and fields, that children
 * come before parents and each list's entries follow the previous list's,
 * that no size or position overflows int64 and the nesting stays within
 * GK_TYPE_MAX_DEPTH, that the stated size and true bounds are the ones the
 * nodes give, and that every byte one element touches lies in [lo, hi)
 * (offsets from the element's address). Never reads outside buf.
 * GK_ERR_INVALID_ARG with the reason in why (at most why_len bytes, may
 * be NULL), GK_ERR_NOMEM; logs nothing (the caller knows who sent it).
 */
int gk__dt_decode(const void *buf, size_t len, int64_t lo, int64_t hi,
                  struct gk__dt_flat **flat_p, char *why, size_t why_len);

#endif /* GK_DTYPE_DESC_H */

/*
 * typed.h: the typed transfers of typed_rma.c and typed_acc.c, for the
 * features that move typed data to a symmetric address they have checked
 * themselves (typed transfers on windows), and the pieces the two files
 * share.
 */
#ifndef GK_DTYPE_TYPED_H
#define GK_DTYPE_TYPED_H

#include <stdint.h>

#include "gasket.h"
#include "dtype/flat.h"

struct gk__net_peer;

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

/*
 * A typed accumulate: each element of `remote` (a symmetric address on pe)
 * becomes itself `op` the matching element of `local`, atomic per element
 * (core/acc.h); `dtype` is both sides' one base type, checked by
 * gk__typed_acc_dtype. Checks and seg_base as gk__typed_xfer's. On return
 * `local` may be reused; complete at quiet.
 */
int gk__typed_acc(const char *op, int pe, struct gk__typed_side *remote,
                  struct gk__typed_side *local, gk_dtype_t dtype, gk_op_t acc_op,
                  const uint64_t *seg_base);
/* The base type an accumulate combines: each type's one base type, the
 * same on both sides, and an accumulate type that takes acc_op (logged,
 * naming the arguments local_arg and remote_arg). */
int gk__typed_acc_dtype(const char *op, const char *local_arg, gk_type_t local_type,
                        const char *remote_arg, gk_type_t remote_type, gk_op_t acc_op,
                        gk_dtype_t *dtype_p);

/* ---- shared by typed_rma.c and typed_acc.c ---- */

/* The checks of a transfer (gk__typed_xfer's; an accumulate's are a
 * put's): the sides' spans and sizes, the remote span (unless
 * seg_base_checked), the local buffer. *seg_base_p: the segment offset
 * of the remote side's origin. */
int gk__typed_check(const char *op, enum gk__typed_dir dir, int pe,
                    struct gk__typed_side *remote, struct gk__typed_side *local,
                    const uint64_t *seg_base_checked, uint64_t *seg_base_p);

/* Gathers n bytes of the data c walks in base into buf. */
void gk__typed_gather(char *buf, const char *base, struct gk__dt_cursor *c, uint64_t n);
/* Moves c on by n data bytes, across pieces. */
void gk__typed_skip(struct gk__dt_cursor *c, uint64_t n);

/*
 * Typed transfers in chunks of remote operations (typed_rma.c's header
 * comment). A chunk's arguments: the segment offset of the target
 * elements' origin, their count, the chunk's first byte in the transfer,
 * and the descriptor's length (an accumulate's chunk: in the low 32 bits,
 * its dtype and op above them); its payload starts with the descriptor.
 */
#define GK__TYPED_DESC_LEN_MASK 0xffffffffULL
struct gk__typed_rop_path {
    const struct gk__typed_side *remote;
    uint64_t origin;    /* segment offset of the target elements' origin */
    size_t desc_len;    /* 0: not usable */
    size_t room;        /* bytes of buf: the descriptor, then a chunk */
    uint64_t piece_max; /* target pieces shorter than this go in chunks */
    char *buf;
};
/* Sets rp up where pe's transport runs remote operations and the
 * descriptor is small enough (rp->desc_len stays 0 otherwise); the caller
 * frees rp->buf. */
int gk__typed_rop_begin(const char *op, int pe,
                        struct gk__typed_rop_path *rp, const struct gk__typed_side *remote);
/* The chunk that starts at rc's position: its arguments and its length. */
uint64_t gk__typed_rop_chunk(const struct gk__typed_rop_path *rp, const struct gk__dt_cursor *rc,
                             uint64_t *args);
/* At the target: the checks of a chunk of n bytes, before any byte moves;
 * on success *flat is the decoded type (the caller frees it) and c stands
 * at the chunk's first byte; a refusal is logged, naming the `kind`. */
int gk__typed_rop_check(const char *kind, const uint64_t *args, const void *payload,
                        size_t nbytes, uint64_t n, struct gk__dt_flat **flat,
                        struct gk__dt_cursor *c);

#endif /* GK_DTYPE_TYPED_H */

/*
 * type.h: datatype objects behind the gk_type_t handles, for the files of
 * src/dtype/ (the transfers and the descriptors).
 */
#ifndef GK_DTYPE_TYPE_H
#define GK_DTYPE_TYPE_H

#include "dtype/flat.h"
#include "gasket.h"

/*
 * The committed form of the type `handle` names, for call `op` and its
 * argument `arg` (in messages): GK_OK with *flat_p, or GK_ERR_INVALID_ARG
 * after a message when the handle names no type (never one, or freed) or
 * an uncommitted one. The form stays valid until the type is freed.
 */
int gk__type_flat(const char *op, const char *arg, gk_type_t handle,
                  const struct gk__dt_flat **flat_p);

/*
 * The one base type (a gk_dtype_t) that every data byte of the type
 * `handle` names belongs to, or -1 when its bytes belong to several (or it
 * has none): what an accumulate combines element by element. Errors as
 * gk__type_flat's, committed or not.
 */
int gk__type_base(const char *op, const char *arg, gk_type_t handle, int *base_p);

/* The messages' way of writing a handle: 0x... for derived types, the
 * GK_DTYPE_* name for base types (in a buffer of the caller's block). */
#define GK__TYPE_STR_MAX 48
const char *gk__type_str(gk_type_t handle, char *buf, size_t len);
#define GK__TYPE_STR(h) gk__type_str((h), (char[GK__TYPE_STR_MAX]){0}, GK__TYPE_STR_MAX)

#endif /* GK_DTYPE_TYPE_H */

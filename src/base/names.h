/*
 * names.h: the names of the public enumerations' values, so that messages
 * say "GK_OP_BAND is not valid for GK_DTYPE_DOUBLE", not "op 5, dtype 3".
 * Each table is a switch in names.c, one line per value: a value added to
 * gasket.h gets its name there; until then it prints as a number.
 */
#ifndef GK_BASE_NAMES_H
#define GK_BASE_NAMES_H

#include <stddef.h>

/* The constant's name ("GK_DTYPE_INT32"), or NULL for a value that is not
 * one of the type's. */
const char *gk__dtype_name(int dtype);
const char *gk__op_name(int op);
/* One GK_SEM_* flag bit's name, or NULL. */
const char *gk__sem_flag_name(unsigned flag);

/* `name` if not NULL, else "<what> <value> (not a <type>)" written in buf. */
const char *gk__name_or_value(const char *name, const char *what, const char *type,
                              int value, char *buf, size_t len);

/* For a message's argument: the name, or "op 99 (not a gk_op_t)" in a
 * buffer that lives until the end of the caller's block. */
#define GK__NAME_MAX 48
#define GK__DTYPE_STR(dtype)                                                             \
    gk__name_or_value(gk__dtype_name((int)(dtype)), "dtype", "gk_dtype_t",               \
                      (int)(dtype), (char[GK__NAME_MAX]){0}, GK__NAME_MAX)
#define GK__OP_STR(op)                                                                   \
    gk__name_or_value(gk__op_name((int)(op)), "op", "gk_op_t", (int)(op),                \
                      (char[GK__NAME_MAX]){0}, GK__NAME_MAX)

#endif /* GK_BASE_NAMES_H */

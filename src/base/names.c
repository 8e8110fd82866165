/*
 * names.c: the name tables of names.h. One line per value: NAME(GK_...).
 */
#include "base/names.h"

#include <stdio.h>

#include "gasket.h"

#define NAME(value)                                                                      \
    case value:                                                                          \
        return #value;

const char *gk__dtype_name(int dtype)
{
    switch (dtype) {
        NAME(GK_DTYPE_INT32)
        NAME(GK_DTYPE_INT64)
        NAME(GK_DTYPE_FLOAT)
        NAME(GK_DTYPE_DOUBLE)
        NAME(GK_DTYPE_UINT64)
        NAME(GK_DTYPE_INT8)
        NAME(GK_DTYPE_INT16)
        NAME(GK_DTYPE_UINT8)
        NAME(GK_DTYPE_UINT16)
        NAME(GK_DTYPE_UINT32)
        NAME(GK_DTYPE_LONG_DOUBLE)
        NAME(GK_DTYPE_FLOAT_INT)
        NAME(GK_DTYPE_DOUBLE_INT)
        NAME(GK_DTYPE_LONG_INT)
        NAME(GK_DTYPE_2INT)
        NAME(GK_DTYPE_LONG_DOUBLE_INT)
    }
    return NULL;
}

const char *gk__op_name(int op)
{
    switch (op) {
        NAME(GK_OP_SUM)
        NAME(GK_OP_MIN)
        NAME(GK_OP_MAX)
        NAME(GK_OP_PROD)
        NAME(GK_OP_REPLACE)
        NAME(GK_OP_BAND)
        NAME(GK_OP_BOR)
        NAME(GK_OP_BXOR)
        NAME(GK_OP_NO_OP)
        NAME(GK_OP_MINLOC)
        NAME(GK_OP_MAXLOC)
    }
    return NULL;
}

const char *gk__sem_flag_name(unsigned flag)
{
    switch (flag) {
        NAME(GK_SEM_INTEGER)
        NAME(GK_SEM_BOOLEAN)
        NAME(GK_SEM_SINGLE_PRODUCER)
        NAME(GK_SEM_MULTI_PRODUCER)
        NAME(GK_SEM_SINGLE_CONSUMER)
        NAME(GK_SEM_MULTI_CONSUMER)
    }
    return NULL;
}

const char *gk__name_or_value(const char *name, const char *what, const char *type,
                              int value, char *buf, size_t len)
{
    if (name != NULL)
        return name;
    snprintf(buf, len, "%s %d (not a %s)", what, value, type);
    return buf;
}

/*
 * status.c: the messages of the status codes, generated from the one table
 * in gasket.h (GK_STATUS_TABLE).
 */
#include "gasket.h"

const char *gk_strerror(int status)
{
    switch (status) {
#define GK__STATUS_CASE(name, value, text)                                     \
    case value:                                                                \
        return text;
        GK_STATUS_TABLE(GK__STATUS_CASE)
#undef GK__STATUS_CASE
    }
    return "unknown status";
}

const char *gk_version(void)
{
    return GK_VERSION_STRING;
}

/*
 * log.c: formats log lines with the PE number and writes each with one
 * write(2), so lines from PEs sharing a terminal do not interleave.
 */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum gk__log_level gk__log_threshold = GK__LOG_WARN;
static int log_pe = -1;

static const char *const log_level_names[] = {"none", "error", "warn", "info",
                                              "debug"};

void gk__log_set_pe(int pe)
{
    log_pe = pe;
}

int gk__log_level_parse(const char *name)
{
    for (int i = 0; i < (int)(sizeof(log_level_names) / sizeof(*log_level_names)); i++) {
        if (strcasecmp(name, log_level_names[i]) == 0)
            return i;
    }
    if (strcasecmp(name, "warning") == 0)
        return GK__LOG_WARN;
    return -1;
}

void gk__log_write(enum gk__log_level level, const char *fmt, ...)
{
    char line[1024];
    int len;
    /* Before gk_init the launcher's GK_RANK still names us. */
    if (log_pe < 0 && getenv("GK_RANK") != NULL)
        log_pe = atoi(getenv("GK_RANK"));
    if (log_pe >= 0)
        len = snprintf(line, sizeof(line), "gasket[PE %d] %s: ", log_pe,
                       log_level_names[level]);
    else
        len = snprintf(line, sizeof(line), "gasket[PE ?] %s: ",
                       log_level_names[level]);
    va_list ap;
    va_start(ap, fmt);
    int body = vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
    va_end(ap);
    if (body > 0)
        len += body;
    if (len > (int)sizeof(line) - 2)
        len = (int)sizeof(line) - 2;
    line[len++] = '\n';
    ssize_t unused = write(STDERR_FILENO, line, (size_t)len);
    (void)unused;
}

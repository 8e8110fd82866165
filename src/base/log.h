/*
 * log.h: the library's logging. Every line goes to stderr as
 * "gasket[PE 3] error: message". The level comes from GK_LOG (none, error,
 * warn, info, debug; default warn) and is set once at start-up.
 */
#ifndef GK_BASE_LOG_H
#define GK_BASE_LOG_H

enum gk__log_level {
    GK__LOG_NONE = 0,
    GK__LOG_ERROR = 1,
    GK__LOG_WARN = 2,
    GK__LOG_INFO = 3,
    GK__LOG_DEBUG = 4
};

extern enum gk__log_level gk__log_threshold;

/* The PE number printed in every line; -1 prints "PE ?". */
void gk__log_set_pe(int pe);

/* Parses a GK_LOG value; returns -1 for an unknown name. */
int gk__log_level_parse(const char *name);

void gk__log_write(enum gk__log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), cold));

#define GK__LOG(level, ...)                                                    \
    do {                                                                       \
        if ((level) <= gk__log_threshold)                                      \
            gk__log_write((level), __VA_ARGS__);                               \
    } while (0)
#define gk__error(...) GK__LOG(GK__LOG_ERROR, __VA_ARGS__)
#define gk__warn(...) GK__LOG(GK__LOG_WARN, __VA_ARGS__)
#define gk__info(...) GK__LOG(GK__LOG_INFO, __VA_ARGS__)
#define gk__debug(...) GK__LOG(GK__LOG_DEBUG, __VA_ARGS__)

#endif /* GK_BASE_LOG_H */

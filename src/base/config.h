/*
 * config.h: the runtime's configuration, read once from the GK_* environment
 * at start-up (the table is config_table.h).
 */
#ifndef GK_BASE_CONFIG_H
#define GK_BASE_CONFIG_H

#include <stddef.h>

#include "base/config_table.h"

#define GK__CONFIG_CTYPE_size size_t
#define GK__CONFIG_CTYPE_uint unsigned
#define GK__CONFIG_CTYPE_level int
#define GK__CONFIG_CTYPE_str const char *
#define GK__CONFIG_CTYPE_rndv int
#define GK__CONFIG_CTYPE_tristate int /* -1: auto */

/* GK_RNDV: how a large two-sided message travels (msg/msg.c). */
enum gk__rndv_mode { GK__RNDV_AUTO, GK__RNDV_CMA, GK__RNDV_PIECES, GK__RNDV_PIPE, GK__RNDV_BOTH };

struct gk__config {
#define GK__CONFIG_FIELD(name, type, field, def, help)                         \
    GK__CONFIG_CTYPE_##type field;
    GK_CONFIG_TABLE(GK__CONFIG_FIELD)
#undef GK__CONFIG_FIELD
};

/* One row of the table, for listings. */
struct gk__config_entry {
    const char *name; /* without the GK_ prefix */
    const char *type;
    const char *default_value;
    const char *help;
};
extern const struct gk__config_entry gk__config_entries[];
extern const size_t gk__config_entry_count;

/*
 * Fills *cfg from `env` (a NULL-terminated environ-style array; NULL means
 * the process environment). A malformed value is an error that names the
 * variable and the value. Unknown GK_* variables get a warning.
 */
int gk__config_load(struct gk__config *cfg, char *const *env);

/* "512M" -> 536870912. Rejects empty, negative, junk, overflow. */
int gk__config_parse_size(const char *text, size_t *value_p);
/* Decimal unsigned that fits an unsigned int. */
int gk__config_parse_uint(const char *text, unsigned *value_p);

/* The value of GK_<name> in `env`, or NULL. */
const char *gk__config_getenv(char *const *env, const char *name);

#endif /* GK_BASE_CONFIG_H */

/*
 * config.c: parses the GK_* environment into struct gk__config. Every value
 * is validated here, once, with an error that names the variable and value.
 */
#include "base/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "gasket.h"

extern char **environ;

const struct gk__config_entry gk__config_entries[] = {
#define GK__CONFIG_ENTRY(name, type, field, def, help) {#name, #type, def, help},
    GK_CONFIG_TABLE(GK__CONFIG_ENTRY)
#undef GK__CONFIG_ENTRY
};
const size_t gk__config_entry_count =
    sizeof(gk__config_entries) / sizeof(gk__config_entries[0]);

static const char *const config_launcher_names[] = {
#define GK__CONFIG_LAUNCHER_NAME(name, help) #name,
    GK_CONFIG_LAUNCHER_TABLE(GK__CONFIG_LAUNCHER_NAME)
#undef GK__CONFIG_LAUNCHER_NAME
};

int gk__config_parse_size(const char *text, size_t *value_p)
{
    if (text == NULL || !isdigit((unsigned char)text[0]))
        return GK_ERR_CONFIG;
    errno = 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0)
        return GK_ERR_CONFIG;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0':
        break;
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    case 'T':
        shift = 40;
        break;
    default:
        return GK_ERR_CONFIG;
    }
    if (*end != '\0') {
        end++;
        /* Accept "512M", "512MB" and "512MiB". */
        if (strcasecmp(end, "b") == 0 || strcasecmp(end, "ib") == 0)
            end += strlen(end);
        if (*end != '\0')
            return GK_ERR_CONFIG;
    }
    if (shift != 0 && value > (SIZE_MAX >> shift))
        return GK_ERR_CONFIG;
    *value_p = (size_t)(value << shift);
    return GK_OK;
}

int gk__config_parse_uint(const char *text, unsigned *value_p)
{
    if (text == NULL || !isdigit((unsigned char)text[0]))
        return GK_ERR_CONFIG;
    errno = 0;
    char *end;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || value > UINT32_MAX)
        return GK_ERR_CONFIG;
    *value_p = (unsigned)value;
    return GK_OK;
}

static int config_parse_level(const char *text, int *value_p)
{
    int level = gk__log_level_parse(text);
    if (level < 0)
        return GK_ERR_CONFIG;
    *value_p = level;
    return GK_OK;
}

static inline int config_parse_rndv(const char *text, int *value_p)
{
    static const char *const names[] = {"auto", "cma", "pieces", "pipe", "both"};
    for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
        if (strcasecmp(text, names[i]) == 0) {
            *value_p = i; /* enum gk__rndv_mode's order */
            return GK_OK;
        }
    }
    return GK_ERR_CONFIG;
}

static inline int config_parse_tristate(const char *text, int *value_p)
{
    if (strcasecmp(text, "auto") == 0)
        *value_p = -1;
    else if (strcmp(text, "0") == 0)
        *value_p = 0;
    else if (strcmp(text, "1") == 0)
        *value_p = 1;
    else
        return GK_ERR_CONFIG;
    return GK_OK;
}

static inline int config_parse_str(const char *text, const char **value_p)
{
    *value_p = text;
    return GK_OK;
}

#define config_parse_size gk__config_parse_size
#define config_parse_uint gk__config_parse_uint

const char *gk__config_getenv(char *const *env, const char *name)
{
    size_t len = strlen(name);
    for (char *const *e = env ? env : environ; *e != NULL; e++) {
        if (strncmp(*e, "GK_", 3) == 0 && strncmp(*e + 3, name, len) == 0 &&
            (*e)[3 + len] == '=')
            return *e + 3 + len + 1;
    }
    return NULL;
}

static int config_name_known(const char *assignment)
{
    const char *name = assignment + 3;
    size_t len = strcspn(name, "=");
    for (size_t i = 0; i < gk__config_entry_count; i++) {
        if (strlen(gk__config_entries[i].name) == len &&
            strncmp(gk__config_entries[i].name, name, len) == 0)
            return 1;
    }
    for (size_t i = 0;
         i < sizeof(config_launcher_names) / sizeof(config_launcher_names[0]);
         i++) {
        if (strlen(config_launcher_names[i]) == len &&
            strncmp(config_launcher_names[i], name, len) == 0)
            return 1;
    }
    return 0;
}

int gk__config_load(struct gk__config *cfg, char *const *env)
{
    const char *text;
#define GK__CONFIG_LOAD(name, type, field, def, help)                          \
    text = gk__config_getenv(env, #name);                                      \
    if (text == NULL)                                                          \
        text = def;                                                            \
    if (config_parse_##type(text, &cfg->field) != GK_OK) {                     \
        gk__error("GK_" #name "=%s is not valid: expected %s", text, help);    \
        return GK_ERR_CONFIG;                                                  \
    }
    GK_CONFIG_TABLE(GK__CONFIG_LOAD)
#undef GK__CONFIG_LOAD

    if (cfg->heap_request == 0) {
        gk__error("GK_HEAP_SIZE=0 is not valid: the heap needs at least one byte");
        return GK_ERR_CONFIG;
    }
    if (cfg->bcast_radix < 2 || cfg->bcast_radix > 64) {
        gk__error("GK_BCAST_RADIX=%u is not valid: expected 2 to 64", cfg->bcast_radix);
        return GK_ERR_CONFIG;
    }
    if (cfg->check > 1) {
        gk__error("GK_CHECK=%u is not valid: expected 0 (off) or 1 (check mode)", cfg->check);
        return GK_ERR_CONFIG;
    }
    gk__log_threshold = (enum gk__log_level)cfg->log_level;
    /* Warn about misspelt variables: the user meant something by them. */
    for (char *const *e = env ? env : environ; *e != NULL; e++) {
        if (strncmp(*e, "GK_", 3) == 0 && !config_name_known(*e))
            gk__warn("unknown environment variable %.*s ignored (gasket-info "
                     "lists the known ones)",
                     (int)strcspn(*e, "="), *e);
    }
    return GK_OK;
}

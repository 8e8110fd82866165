/*
 * gasket-info: prints gasket's version, build options, transports and every
 * GK_* environment variable with its default and current value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/config_table.h"
#include "gasket.h"

static void print_var(const char *name, const char *type, const char *def,
                      const char *help)
{
    char var[64];
    snprintf(var, sizeof(var), "GK_%s", name);
    const char *now = getenv(var);
    printf("  %-18s %-6s default %-8s now %-10s %s\n", var, type, def,
           now ? now : "(unset)", help);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: gasket-info\nPrints gasket's version, build options, "
               "transports and configuration variables.\n");
        return 0;
    }
    printf("gasket %s\n", gk_version());
    printf("build:\n");
    printf("  type               %s\n", GK_BUILD_TYPE);
    printf("  compiler           %s\n", GK_BUILD_COMPILER);
    printf("  sanitizers         %s\n", GK_BUILD_SANITIZE ? "address,undefined" : "none");
    printf("transports:\n");
    printf("  shm                yes (PEs on this node: copies and CPU atomics)\n");
    printf("  ucx                no (off-node transport not built yet)\n");
    printf("bootstrap:\n");
    printf("  launcher           yes (gasket-run)\n");
    printf("  single             yes (a program started without gasket-run is one PE)\n");
    printf("configuration (environment, read once by gk_init):\n");
    for (size_t i = 0; i < gk__config_entry_count; i++) {
        const struct gk__config_entry *e = &gk__config_entries[i];
        print_var(e->name, e->type, e->default_value, e->help);
    }
    printf("set by gasket-run for each PE:\n");
#define PRINT_LAUNCHER_VAR(name, help) print_var(#name, "-", "-", help);
    GK_CONFIG_LAUNCHER_TABLE(PRINT_LAUNCHER_VAR)
#undef PRINT_LAUNCHER_VAR
    return 0;
}

/*
 * config_env: the GK_* environment at start-up, run with a variable set by
 * the test (CMakeLists.txt).
 *
 *   config_env error GK_HEAP_SIZE   gk_init fails with GK_ERR_CONFIG and one
 *                                   error line that names the variable and
 *                                   its value; nothing is initialized after
 *   config_env warn GK_NO_SUCH      gk_init succeeds with one warning that
 *                                   names the unknown variable
 *
 * The lines are captured (tests/lib/gk_capture.h), so none reaches the log.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

static int usage(void)
{
    fprintf(stderr, "usage: config_env error|warn VARIABLE\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return usage();
    const char *mode = argv[1], *var = argv[2], *value = getenv(var);
    if (value == NULL) {
        fprintf(stderr, "config_env: %s is not set\n", var);
        return 2;
    }
    gk_capture_begin();
    int status = gk_init();
    const char *log = gk_capture_end();

    if (strcmp(mode, "error") == 0) {
        if (status != GK_ERR_CONFIG) {
            gk_capture_echo(log);
            PE_FAIL("gk_init with %s=%s returned %d (%s), expected GK_ERR_CONFIG", var,
                    value, status, gk_strerror(status));
        }
        const char *const needles[] = {pe_fmt("%s=%s", var, value), "not valid", NULL};
        const char *why = pe_check_report(log, needles);
        if (why != NULL) {
            gk_capture_echo(log);
            PE_FAIL("the report of gk_init with %s=%s: %s", var, value, why);
        }
        CHECK_EQ(gk_initialized(), 0);
        CHECK_EQ(gk_my_pe(), -1);
        CHECK_EQ(gk_n_pes(), 0);
        CHECK_NULL(gk_ptr(&status, 0));
        CHECK_LOGGED(GK_ERR_NOT_INIT, gk_barrier(), "gk_barrier", "before gk_init");
        printf("config_env: %s=%s refused as expected\n", var, value);
        return 0;
    }
    if (strcmp(mode, "warn") == 0) {
        if (status != GK_OK) {
            gk_capture_echo(log);
            PE_FAIL("gk_init with %s=%s returned %d (%s)", var, value, status,
                    gk_strerror(status));
        }
        int warnings = gk_capture_count(log, "] warn: "),
            lines = gk_capture_count(log, "");
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "gasket[PE %d] warn: ", gk_my_pe());
        if (warnings != 1 || lines != 1 || strncmp(log, prefix, strlen(prefix)) != 0 ||
            strstr(log, var) == NULL) {
            gk_capture_echo(log);
            PE_FAIL("expected one warning from PE %d naming %s", gk_my_pe(), var);
        }
        CHECK_OK(gk_barrier());
        CHECK_OK(gk_finalize());
        printf("config_env: %s warned about as expected\n", var);
        return 0;
    }
    return usage();
}

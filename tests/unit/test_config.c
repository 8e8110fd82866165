/*
 * Unit tests of configuration parsing (src/base/config.h): the size and
 * uint parsers on good and bad text, and gk__config_load with an explicit
 * environment array: defaults, overrides, a bad value (GK_ERR_CONFIG and a
 * message naming the variable and the value), unknown GK_* variables (a
 * warning naming them). Log lines are captured (gk_capture.h) and checked.
 */
#include <stdint.h>

#include "base/config.h"
#include "base/log.h"
#include "gasket.h"
#include "gk_capture.h"
#include "gk_test.h"

/* ------------------------------------------------------------------------ */
/* gk__config_parse_size                                                     */

struct size_case {
    const char *text;
    size_t value;
};

GK_TEST(size_accepts_numbers_and_suffixes)
{
    static const struct size_case good[] = {
        {"0", 0},
        {"1", 1},
        {"123", 123},
        {"00042", 42},
        {"1k", 1024},
        {"1K", 1024},
        {"64KiB", 64 * 1024},
        {"64kib", 64 * 1024},
        {"64KB", 64 * 1024},
        {"512M", 512ull << 20},
        {"512m", 512ull << 20},
        {"100MB", 100ull << 20},
        {"100MiB", 100ull << 20},
        {"4G", 4ull << 30},
        {"4g", 4ull << 30},
        {"2GiB", 2ull << 30},
        {"1T", 1ull << 40},
        {"3TB", 3ull << 40},
        {"16777215T", 16777215ull << 40},       /* the largest T that fits */
        {"17179869183G", 17179869183ull << 30}, /* the largest G that fits */
        {"18446744073709551615", SIZE_MAX},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        size_t v = 7;
        int status = gk__config_parse_size(good[i].text, &v);
        if (status != GK_OK || v != good[i].value)
            GK_TEST_FAIL("parse_size(\"%s\"): status %d value %zu, expected %zu",
                         good[i].text, status, v, good[i].value);
    }
}

GK_TEST(size_rejects_bad_text_and_leaves_the_output_alone)
{
    static const char *const bad[] = {
        "",
        "-1",
        "-0",
        "+1",
        " 1",
        "1 ",
        "12Q",
        "12MX",
        "1KK",
        "1K5",
        "1.5G",
        "0x10",
        "M",
        "K1",
        "1 M",
        "1Mi",
        "1MiBB",
        "1P",
        "1E",
        "99999999999T",
        "16777216T",
        "17179869184G",
        "18446744073709551616",
        "99999999999999999999",
        "18014398509481984K",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        size_t v = 7;
        int status = gk__config_parse_size(bad[i], &v);
        if (status != GK_ERR_CONFIG || v != 7)
            GK_TEST_FAIL(
                "parse_size(\"%s\"): status %d value %zu, expected GK_ERR_CONFIG and 7",
                bad[i], status, v);
    }
    size_t v = 7;
    ASSERT_EQ(gk__config_parse_size(NULL, &v), GK_ERR_CONFIG);
    ASSERT_EQ(v, 7);
}

/* ------------------------------------------------------------------------ */
/* gk__config_parse_uint                                                     */

GK_TEST(uint_accepts_decimal_up_to_uint32_max)
{
    static const struct {
        const char *text;
        unsigned value;
    } good[] = {
        {"0", 0}, {"1", 1}, {"0010", 10}, {"2000", 2000}, {"4294967295", 4294967295u}};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        unsigned v = 7;
        ASSERT_EQ(gk__config_parse_uint(good[i].text, &v), GK_OK);
        ASSERT_EQ(v, good[i].value);
    }
}

GK_TEST(uint_rejects_bad_text_and_overflow)
{
    static const char *const bad[] = {
        "",
        "-1",
        "-0",
        "+3",
        " 3",
        "3 ",
        "12x",
        "1.5",
        "0x10",
        "1k",
        "4294967296",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unsigned v = 7;
        int status = gk__config_parse_uint(bad[i], &v);
        if (status != GK_ERR_CONFIG || v != 7)
            GK_TEST_FAIL(
                "parse_uint(\"%s\"): status %d value %u, expected GK_ERR_CONFIG and 7",
                bad[i], status, v);
    }
    unsigned v = 7;
    ASSERT_EQ(gk__config_parse_uint(NULL, &v), GK_ERR_CONFIG);
    ASSERT_EQ(v, 7);
}

/* ------------------------------------------------------------------------ */
/* gk__config_getenv                                                         */

GK_TEST(getenv_matches_whole_names_with_the_prefix)
{
    char *env[] = {"PATH=/bin",     "XGK_LOG=wrong", "GK_LOGX=wrong", "GK_LOG=debug",
                   "GK_LOG=second", "GK_EMPTY=",     "GK_NOEQUALS",   NULL};
    ASSERT_STREQ(gk__config_getenv(env, "LOG"), "debug"); /* the first one wins */
    ASSERT_STREQ(gk__config_getenv(env, "LOGX"), "wrong");
    ASSERT_STREQ(gk__config_getenv(env, "EMPTY"), "");
    ASSERT_TRUE(gk__config_getenv(env, "LO") == NULL);
    ASSERT_TRUE(gk__config_getenv(env, "NOEQUALS") == NULL);
    ASSERT_TRUE(gk__config_getenv(env, "PATH") == NULL);
    ASSERT_TRUE(gk__config_getenv(env, "HEAP_SIZE") == NULL);
    char *empty[] = {NULL};
    ASSERT_TRUE(gk__config_getenv(empty, "LOG") == NULL);
}

/* ------------------------------------------------------------------------ */
/* gk__config_load                                                           */

/* Loads `env` with stderr captured; returns the status, *log_p the text. */
static int load(struct gk__config *cfg, char **env, const char **log_p)
{
    gk_capture_begin();
    int status = gk__config_load(cfg, env);
    *log_p = gk_capture_end();
    return status;
}

GK_TEST(load_defaults_match_the_table)
{
    struct gk__config cfg;
    const char *log;
    char *none[] = {NULL};
    ASSERT_EQ(load(&cfg, none, &log), GK_OK);
    ASSERT_STREQ(log, "");
    ASSERT_EQ(cfg.heap_request, 256ull << 20);
    ASSERT_EQ(cfg.log_level, GK__LOG_WARN);
    ASSERT_EQ(cfg.spin_count, 2000);
    ASSERT_EQ(cfg.yield_count, 100);
    ASSERT_EQ(cfg.sleep_ms, 100);
    ASSERT_EQ(cfg.bcast_radix, 4);
    ASSERT_EQ(cfg.rndv, GK__RNDV_AUTO);
    /* And the listed defaults say the same. */
    for (size_t i = 0; i < gk__config_entry_count; i++) {
        const struct gk__config_entry *e = &gk__config_entries[i];
        if (strcmp(e->name, "HEAP_SIZE") == 0)
            ASSERT_STREQ(e->default_value, "256M");
        if (strcmp(e->name, "LOG") == 0)
            ASSERT_STREQ(e->default_value, "warn");
    }
    /* Variables that are not GK_* are none of our business. */
    char *others[] = {"PATH=/bin", "HOME=/root", "GKHEAP_SIZE=1", "gk_log=debug", NULL};
    ASSERT_EQ(load(&cfg, others, &log), GK_OK);
    ASSERT_STREQ(log, "");
    ASSERT_EQ(cfg.heap_request, 256ull << 20);
}

GK_TEST(load_overrides_every_variable)
{
    struct gk__config cfg;
    const char *log;
    char *env[] = {
        "GK_HEAP_SIZE=1G",  "GK_LOG=debug",      "GK_SPIN_COUNT=5", "GK_YIELD_COUNT=0",
        "GK_SLEEP_MS=4000", "GK_BCAST_RADIX=64", "GK_RNDV=cma",     "PATH=/bin",
        NULL};
    ASSERT_EQ(load(&cfg, env, &log), GK_OK);
    ASSERT_STREQ(log, "");
    ASSERT_EQ(cfg.heap_request, 1ull << 30);
    ASSERT_EQ(cfg.log_level, GK__LOG_DEBUG);
    ASSERT_EQ(cfg.spin_count, 5);
    ASSERT_EQ(cfg.yield_count, 0);
    ASSERT_EQ(cfg.sleep_ms, 4000);
    ASSERT_EQ(cfg.bcast_radix, 64);
    ASSERT_EQ(cfg.rndv, GK__RNDV_CMA);
    char *modes[][2] = {{"GK_RNDV=auto", NULL}, {"GK_RNDV=Pieces", NULL}, {"GK_RNDV=pipe", NULL}};
    ASSERT_EQ(load(&cfg, modes[0], &log), GK_OK);
    ASSERT_EQ(cfg.rndv, GK__RNDV_AUTO);
    ASSERT_EQ(load(&cfg, modes[1], &log), GK_OK);
    ASSERT_EQ(cfg.rndv, GK__RNDV_PIECES);
    ASSERT_EQ(load(&cfg, modes[2], &log), GK_OK);
    ASSERT_EQ(cfg.rndv, GK__RNDV_PIPE);
    char *levels[][2] = {{"GK_LOG=none", NULL},
                         {"GK_LOG=ERROR", NULL},
                         {"GK_LOG=warning", NULL},
                         {"GK_LOG=info", NULL}};
    const int expect[] = {GK__LOG_NONE, GK__LOG_ERROR, GK__LOG_WARN, GK__LOG_INFO};
    for (int i = 0; i < 4; i++) {
        ASSERT_EQ(load(&cfg, levels[i], &log), GK_OK);
        ASSERT_EQ(cfg.log_level, expect[i]);
    }
}

/* Every bad value: GK_ERR_CONFIG, and one error line naming it. */
GK_TEST(load_rejects_bad_values_with_a_message)
{
    static char *const bad[] = {
        "GK_HEAP_SIZE=bogus", "GK_HEAP_SIZE=",
        "GK_HEAP_SIZE=-1",    "GK_HEAP_SIZE=12Q",
        "GK_HEAP_SIZE=0",     "GK_HEAP_SIZE=99999999999T",
        "GK_LOG=loud",        "GK_LOG=",
        "GK_SPIN_COUNT=-1",   "GK_SPIN_COUNT=4294967296",
        "GK_YIELD_COUNT=1e3", "GK_SLEEP_MS=ten",
        "GK_BCAST_RADIX=1",   "GK_BCAST_RADIX=65",
        "GK_BCAST_RADIX=x",   "GK_RNDV=xpmem",
        "GK_RNDV=",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct gk__config cfg;
        const char *log;
        char *env[] = {"GK_LOG=warn", bad[i], NULL};
        if (strncmp(bad[i], "GK_LOG=", 7) == 0)
            env[0] = "PATH=/bin";
        int status = load(&cfg, env, &log);
        if (status != GK_ERR_CONFIG)
            GK_TEST_FAIL("%s: status %d, expected GK_ERR_CONFIG", bad[i], status);
        /* The message: "gasket[PE ?] error: GK_NAME=value is not valid ..." */
        ASSERT_CONTAINS(log, "error: ");
        ASSERT_CONTAINS(log, bad[i]);
        ASSERT_EQ(gk_capture_count(log, "error"), 1);
        ASSERT_EQ(gk_capture_count(log, ""), 1); /* one line in all */
    }
}

GK_TEST(load_warns_about_unknown_gk_variables)
{
    struct gk__config cfg;
    const char *log;
    char *env[] = {"GK_FOO=1", "GK_HEAP_SIZ=1G", "GK_HEAP_SIZE=1M", NULL};
    ASSERT_EQ(load(&cfg, env, &log), GK_OK);
    ASSERT_EQ(cfg.heap_request, 1ull << 20);
    ASSERT_EQ(gk_capture_count(log, "warn"), 2);
    ASSERT_EQ(gk_capture_count(log, "GK_FOO"), 1);
    ASSERT_EQ(gk_capture_count(log, "GK_HEAP_SIZ "), 1);
    ASSERT_EQ(gk_capture_count(log, "error"), 0);
}

GK_TEST(load_does_not_warn_about_the_launcher_variables)
{
    struct gk__config cfg;
    const char *log;
    char *env[] = {"GK_RANK=3",          "GK_SIZE=8",
                   "GK_BOOT_FD=5",       "GK_JOB_KEY=0123456789abcdef",
                   "GK_LAUNCHER_PID=42", "GK_NODE_CPUS=2",   NULL};
    ASSERT_EQ(load(&cfg, env, &log), GK_OK);
    ASSERT_STREQ(log, "");
}

GK_TEST(gk_log_quiets_the_unknown_variable_warning)
{
    struct gk__config cfg;
    const char *log;
    char *env[] = {"GK_LOG=error", "GK_FOO=1", NULL};
    ASSERT_EQ(load(&cfg, env, &log), GK_OK);
    ASSERT_STREQ(log, "");
    char *none[] = {"GK_FOO=1", "GK_LOG=none", NULL};
    ASSERT_EQ(load(&cfg, none, &log), GK_OK);
    ASSERT_STREQ(log, "");
}

GK_TEST(entries_table_is_complete)
{
    ASSERT_GE(gk__config_entry_count, 6);
    ASSERT_STREQ(gk__config_entries[0].name, "HEAP_SIZE");
    for (size_t i = 0; i < gk__config_entry_count; i++) {
        const struct gk__config_entry *e = &gk__config_entries[i];
        ASSERT_TRUE(e->name != NULL && e->name[0] != '\0');
        ASSERT_TRUE(strncmp(e->name, "GK_", 3) != 0); /* listed without the prefix */
        ASSERT_TRUE(e->help != NULL && e->help[0] != '\0');
        ASSERT_TRUE(e->default_value != NULL);
        ASSERT_TRUE(e->type != NULL);
        for (size_t j = 0; j < i; j++)
            ASSERT_TRUE(strcmp(e->name, gk__config_entries[j].name) != 0);
        /* Each default parses as its own type: load it explicitly. */
        char assignment[256];
        snprintf(assignment, sizeof(assignment), "GK_%s=%s", e->name, e->default_value);
        char *env[] = {assignment, NULL};
        struct gk__config cfg;
        const char *log;
        ASSERT_EQ(load(&cfg, env, &log), GK_OK);
        ASSERT_STREQ(log, "");
    }
}

int main(int argc, char **argv)
{
    return gk_test_main(argc, argv);
}

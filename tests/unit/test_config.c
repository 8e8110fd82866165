/* Unit tests of configuration parsing (src/base/config.h). */
#include "base/config.h"
#include "base/log.h"
#include "gasket.h"
#include "gk_test.h"

GK_TEST(sizes)
{
    size_t v;
    ASSERT_EQ(gk__config_parse_size("512M", &v), GK_OK);
    ASSERT_EQ(v, 512ull << 20);
    ASSERT_EQ(gk__config_parse_size("4G", &v), GK_OK);
    ASSERT_EQ(v, 4ull << 30);
    ASSERT_EQ(gk__config_parse_size("1k", &v), GK_OK);
    ASSERT_EQ(v, 1024);
    ASSERT_EQ(gk__config_parse_size("64KiB", &v), GK_OK);
    ASSERT_EQ(v, 64 * 1024);
    ASSERT_EQ(gk__config_parse_size("100MB", &v), GK_OK);
    ASSERT_EQ(v, 100ull << 20);
    ASSERT_EQ(gk__config_parse_size("123", &v), GK_OK);
    ASSERT_EQ(v, 123);
    v = 7;
    ASSERT_EQ(gk__config_parse_size("", &v), GK_ERR_CONFIG);
    ASSERT_EQ(gk__config_parse_size("-1", &v), GK_ERR_CONFIG);
    ASSERT_EQ(gk__config_parse_size("12Q", &v), GK_ERR_CONFIG);
    ASSERT_EQ(gk__config_parse_size("12MX", &v), GK_ERR_CONFIG);
    ASSERT_EQ(gk__config_parse_size("99999999999T", &v), GK_ERR_CONFIG);
    ASSERT_EQ(gk__config_parse_size("99999999999999999999", &v), GK_ERR_CONFIG);
    ASSERT_EQ(gk__config_parse_size(NULL, &v), GK_ERR_CONFIG);
    ASSERT_EQ(v, 7); /* untouched on error */
}

GK_TEST(uints)
{
    unsigned v;
    ASSERT_EQ(gk__config_parse_uint("0", &v), GK_OK);
    ASSERT_EQ(v, 0);
    ASSERT_EQ(gk__config_parse_uint("4294967295", &v), GK_OK);
    ASSERT_EQ(gk__config_parse_uint("4294967296", &v), GK_ERR_CONFIG);
    ASSERT_EQ(gk__config_parse_uint("12x", &v), GK_ERR_CONFIG);
    ASSERT_EQ(gk__config_parse_uint("-3", &v), GK_ERR_CONFIG);
}

GK_TEST(load_defaults_and_overrides)
{
    struct gk__config cfg;
    char *none[] = {NULL};
    ASSERT_EQ(gk__config_load(&cfg, none), GK_OK);
    ASSERT_EQ(cfg.heap_size, 256ull << 20);
    ASSERT_EQ(cfg.log_level, GK__LOG_WARN);
    ASSERT_EQ(cfg.bcast_radix, 4);
    char *env[] = {"GK_HEAP_SIZE=1G", "GK_LOG=debug", "GK_SPIN_COUNT=5", "PATH=/bin", NULL};
    ASSERT_EQ(gk__config_load(&cfg, env), GK_OK);
    ASSERT_EQ(cfg.heap_size, 1ull << 30);
    ASSERT_EQ(cfg.log_level, GK__LOG_DEBUG);
    ASSERT_EQ(cfg.spin_count, 5);
    ASSERT_STREQ(gk__config_getenv(env, "LOG"), "debug");
    ASSERT_TRUE(gk__config_getenv(env, "LO") == NULL);
}

GK_TEST(load_rejects_bad_values)
{
    struct gk__config cfg;
    char *bad_heap[] = {"GK_HEAP_SIZE=bogus", NULL};
    ASSERT_EQ(gk__config_load(&cfg, bad_heap), GK_ERR_CONFIG);
    char *zero_heap[] = {"GK_HEAP_SIZE=0", NULL};
    ASSERT_EQ(gk__config_load(&cfg, zero_heap), GK_ERR_CONFIG);
    char *bad_log[] = {"GK_LOG=loud", NULL};
    ASSERT_EQ(gk__config_load(&cfg, bad_log), GK_ERR_CONFIG);
    char *bad_radix[] = {"GK_BCAST_RADIX=1", NULL};
    ASSERT_EQ(gk__config_load(&cfg, bad_radix), GK_ERR_CONFIG);
}

GK_TEST(unknown_variable_is_a_warning_not_an_error)
{
    struct gk__config cfg;
    char *env[] = {"GK_HEAP_SIZ=1G", NULL};
    ASSERT_EQ(gk__config_load(&cfg, env), GK_OK);
    ASSERT_EQ(cfg.heap_size, 256ull << 20);
}

GK_TEST(entries_table)
{
    ASSERT_TRUE(gk__config_entry_count >= 5);
    ASSERT_STREQ(gk__config_entries[0].name, "HEAP_SIZE");
    for (size_t i = 0; i < gk__config_entry_count; i++) {
        ASSERT_TRUE(gk__config_entries[i].help[0] != '\0');
        ASSERT_TRUE(gk__config_entries[i].default_value != NULL);
    }
}

int main(void)
{
    return gk_test_run_all();
}

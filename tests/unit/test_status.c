/*
 * Unit tests of the status codes (GK_STATUS_TABLE in gasket.h) and
 * gk_strerror: every code has its own non-empty message, codes are distinct
 * and negative except GK_OK, grouped by kind as the header says, and any
 * other number gives "unknown status".
 */
#include <limits.h>

#include "gasket.h"
#include "gk_test.h"

struct status_row {
    const char *name;
    int value;
    const char *text;
};

static const struct status_row rows[] = {
#define ROW(name, value, text) {#name, name, text},
    GK_STATUS_TABLE(ROW)
#undef ROW
};
#define NROWS ((int)(sizeof(rows) / sizeof(rows[0])))

static int in_table(int code)
{
    for (int i = 0; i < NROWS; i++)
        if (rows[i].value == code)
            return 1;
    return 0;
}

GK_TEST(every_code_has_its_own_message)
{
    ASSERT_GE(NROWS, 13);
    for (int i = 0; i < NROWS; i++) {
        const char *text = gk_strerror(rows[i].value);
        ASSERT_TRUE(text != NULL);
        ASSERT_TRUE(text[0] != '\0');
        ASSERT_STREQ(text, rows[i].text); /* the table's own text */
        ASSERT_TRUE(strcmp(text, "unknown status") != 0);
        for (int j = 0; j < i; j++) {
            if (rows[i].value == rows[j].value)
                GK_TEST_FAIL("%s and %s share the value %d", rows[i].name, rows[j].name,
                             rows[i].value);
            if (strcmp(text, gk_strerror(rows[j].value)) == 0)
                GK_TEST_FAIL("%s and %s share the message \"%s\"", rows[i].name,
                             rows[j].name, text);
        }
    }
}

GK_TEST(success_is_zero_and_errors_are_negative)
{
    ASSERT_EQ(GK_OK, 0);
    ASSERT_STREQ(rows[0].name, "GK_OK");
    ASSERT_STREQ(gk_strerror(GK_OK), "success");
    for (int i = 0; i < NROWS; i++) {
        if (strcmp(rows[i].name, "GK_OK") == 0)
            continue;
        if (rows[i].value >= 0)
            GK_TEST_FAIL("%s is %d, not negative", rows[i].name, rows[i].value);
        ASSERT_TRUE(strncmp(rows[i].name, "GK_ERR_", 7) == 0);
    }
}

/* -1.. argument errors, -20.. resources, -40.. runtime and system. */
GK_TEST(codes_are_grouped_by_kind)
{
    ASSERT_TRUE(GK_ERR_INVALID_ARG <= -1 && GK_ERR_INVALID_ARG > -20);
    ASSERT_TRUE(GK_ERR_PE <= -1 && GK_ERR_PE > -20);
    ASSERT_TRUE(GK_ERR_RANGE <= -1 && GK_ERR_RANGE > -20);
    ASSERT_TRUE(GK_ERR_ALIGN <= -1 && GK_ERR_ALIGN > -20);
    ASSERT_TRUE(GK_ERR_NOMEM <= -20 && GK_ERR_NOMEM > -40);
    ASSERT_TRUE(GK_ERR_NOT_INIT <= -40);
    ASSERT_TRUE(GK_ERR_CONFIG <= -40);
    ASSERT_TRUE(GK_ERR_SYSTEM <= -40);
}

GK_TEST(unknown_codes_give_unknown_status)
{
    for (int code = -200; code <= 200; code++) {
        if (in_table(code))
            continue;
        const char *text = gk_strerror(code);
        if (text == NULL || strcmp(text, "unknown status") != 0)
            GK_TEST_FAIL("gk_strerror(%d) is \"%s\"", code, text ? text : "(null)");
    }
    ASSERT_STREQ(gk_strerror(INT_MIN), "unknown status");
    ASSERT_STREQ(gk_strerror(INT_MAX), "unknown status");
    ASSERT_STREQ(gk_strerror(12345), "unknown status");
}

GK_TEST(messages_named_in_the_header)
{
    ASSERT_STREQ(gk_strerror(GK_ERR_RANGE), "address outside the target segment");
    ASSERT_STREQ(gk_strerror(GK_ERR_CONFIG), "invalid configuration");
    ASSERT_STREQ(gk_strerror(GK_ERR_NOMEM), "out of memory");
}

GK_TEST(version_matches_the_macros)
{
    char expect[64];
    snprintf(expect, sizeof(expect), "%d.%d.%d", GK_VERSION_MAJOR,
             GK_VERSION_MINOR, GK_VERSION_PATCH);
    ASSERT_STREQ(gk_version(), expect);
}

int main(int argc, char **argv)
{
    return gk_test_main(argc, argv);
}

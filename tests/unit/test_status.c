/* Unit tests of the status codes and their messages. */
#include "gasket.h"
#include "gk_test.h"

static const int codes[] = {
#define CODE(name, value, text) name,
    GK_STATUS_TABLE(CODE)
#undef CODE
};
#define NCODES ((int)(sizeof(codes) / sizeof(codes[0])))

GK_TEST(every_code_has_a_distinct_message)
{
    for (int i = 0; i < NCODES; i++) {
        const char *text = gk_strerror(codes[i]);
        ASSERT_TRUE(text != NULL && text[0] != '\0');
        ASSERT_TRUE(strcmp(text, "unknown status") != 0);
        for (int j = 0; j < i; j++) {
            ASSERT_NE(codes[i], codes[j]);
            ASSERT_TRUE(strcmp(text, gk_strerror(codes[j])) != 0);
        }
    }
}

GK_TEST(success_is_zero_errors_negative)
{
    ASSERT_EQ(GK_OK, 0);
    ASSERT_STREQ(gk_strerror(GK_OK), "success");
    for (int i = 1; i < NCODES; i++)
        ASSERT_TRUE(codes[i] < 0);
}

GK_TEST(unknown_codes)
{
    ASSERT_STREQ(gk_strerror(12345), "unknown status");
    ASSERT_STREQ(gk_strerror(-999), "unknown status");
    ASSERT_STREQ(gk_strerror(GK_ERR_RANGE), "address outside the target segment");
}

GK_TEST(version)
{
    ASSERT_STREQ(gk_version(), "0.1.0");
}

int main(void)
{
    return gk_test_run_all();
}

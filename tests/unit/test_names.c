/*
 * Unit tests of the name tables (src/base/names.c) that messages use for
 * the public enumerations: every value of gasket.h has its own name, the
 * constant's own spelling; other values have none and print as
 * "op 99 (not a gk_op_t)".
 */
#include "base/names.h"
#include "gasket.h"
#include "gk_test.h"

struct named {
    int value;
    const char *name;
};
#define ROW(value) {(int)(value), #value}

GK_TEST(every_dtype_has_its_name)
{
    static const struct named rows[] = {ROW(GK_DTYPE_INT32), ROW(GK_DTYPE_INT64),
                                        ROW(GK_DTYPE_FLOAT), ROW(GK_DTYPE_DOUBLE),
                                        ROW(GK_DTYPE_UINT64)};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ASSERT_STREQ(gk__dtype_name(rows[i].value), rows[i].name);
    ASSERT_TRUE(gk__dtype_name(-1) == NULL);
    ASSERT_TRUE(gk__dtype_name(99) == NULL);
}

GK_TEST(every_op_has_its_name)
{
    static const struct named rows[] = {
        ROW(GK_OP_SUM),     ROW(GK_OP_MIN),  ROW(GK_OP_MAX), ROW(GK_OP_PROD),
        ROW(GK_OP_REPLACE), ROW(GK_OP_BAND), ROW(GK_OP_BOR), ROW(GK_OP_BXOR),
        ROW(GK_OP_NO_OP)};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ASSERT_STREQ(gk__op_name(rows[i].value), rows[i].name);
    ASSERT_TRUE(gk__op_name(-1) == NULL);
    ASSERT_TRUE(gk__op_name(99) == NULL);
}

GK_TEST(every_sem_flag_has_its_name)
{
    static const struct named rows[] = {
        ROW(GK_SEM_INTEGER),         ROW(GK_SEM_BOOLEAN),
        ROW(GK_SEM_SINGLE_PRODUCER), ROW(GK_SEM_MULTI_PRODUCER),
        ROW(GK_SEM_SINGLE_CONSUMER), ROW(GK_SEM_MULTI_CONSUMER)};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ASSERT_STREQ(gk__sem_flag_name((unsigned)rows[i].value), rows[i].name);
    ASSERT_TRUE(gk__sem_flag_name(0) == NULL);
    ASSERT_TRUE(gk__sem_flag_name(GK_SEM_INTEGER | GK_SEM_BOOLEAN) == NULL);
}

GK_TEST(unknown_values_print_as_numbers)
{
    ASSERT_STREQ(GK__OP_STR(GK_OP_BAND), "GK_OP_BAND");
    ASSERT_STREQ(GK__DTYPE_STR(GK_DTYPE_DOUBLE), "GK_DTYPE_DOUBLE");
    ASSERT_STREQ(GK__OP_STR(99), "op 99 (not a gk_op_t)");
    ASSERT_STREQ(GK__DTYPE_STR(-7), "dtype -7 (not a gk_dtype_t)");
    ASSERT_STREQ(GK__OP_STR(-2147483647 - 1), "op -2147483648 (not a gk_op_t)");
    /* Two in one call each have their own buffer. */
    char line[128];
    snprintf(line, sizeof(line), "%s %s", GK__OP_STR(98), GK__DTYPE_STR(97));
    ASSERT_STREQ(line, "op 98 (not a gk_op_t) dtype 97 (not a gk_dtype_t)");
}

int main(int argc, char **argv)
{
    return gk_test_main(argc, argv);
}

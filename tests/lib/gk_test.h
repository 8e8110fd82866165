/*
 * gk_test.h: a tiny unit-test runner. Each case runs in a forked child with
 * a time limit, so a crash or a hang fails that case and the others still
 * run; assertions print both values and the place.
 *
 *   GK_TEST(name) { ASSERT_EQ(1 + 1, 2); }
 *   int main(void) { return gk_test_run_all(); }
 */
#ifndef GK_TESTS_GK_TEST_H
#define GK_TESTS_GK_TEST_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define GK_TEST_MAX 256
#define GK_TEST_SECONDS 10

struct gk_test_case {
    const char *name;
    void (*fn)(void);
};
static struct gk_test_case gk_test_cases[GK_TEST_MAX];
static int gk_test_count;

#define GK_TEST(name)                                                          \
    static void test_##name(void);                                             \
    __attribute__((constructor)) static void register_##name(void)             \
    {                                                                          \
        if (gk_test_count < GK_TEST_MAX)                                       \
            gk_test_cases[gk_test_count++] = (struct gk_test_case){#name, test_##name}; \
    }                                                                          \
    static void test_##name(void)

#define GK_TEST_FAIL(...)                                                      \
    do {                                                                       \
        fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);                     \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        exit(1);                                                               \
    } while (0)

#define ASSERT_EQ(actual, expected)                                            \
    do {                                                                       \
        long long a_ = (long long)(actual), e_ = (long long)(expected);        \
        if (a_ != e_)                                                          \
            GK_TEST_FAIL("ASSERT_EQ(%s, %s): %lld != %lld", #actual, #expected, a_, e_); \
    } while (0)
#define ASSERT_NE(actual, other)                                               \
    do {                                                                       \
        long long a_ = (long long)(actual), o_ = (long long)(other);           \
        if (a_ == o_)                                                          \
            GK_TEST_FAIL("ASSERT_NE(%s, %s): both %lld", #actual, #other, a_); \
    } while (0)
#define ASSERT_TRUE(cond)                                                      \
    do {                                                                       \
        if (!(cond))                                                           \
            GK_TEST_FAIL("ASSERT_TRUE(%s)", #cond);                            \
    } while (0)
#define ASSERT_STREQ(actual, expected)                                         \
    do {                                                                       \
        const char *a_ = (actual), *e_ = (expected);                           \
        if (a_ == NULL || e_ == NULL || strcmp(a_, e_) != 0)                   \
            GK_TEST_FAIL("ASSERT_STREQ(%s, %s): \"%s\" != \"%s\"", #actual, #expected, \
                         a_ ? a_ : "(null)", e_ ? e_ : "(null)");              \
    } while (0)

static int gk_test_run_all(void)
{
    int failed = 0;
    for (int i = 0; i < gk_test_count; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            alarm(GK_TEST_SECONDS);
            gk_test_cases[i].fn();
            exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok && WIFSIGNALED(status))
            fprintf(stderr, "  killed by signal %d%s\n", WTERMSIG(status),
                    WTERMSIG(status) == SIGALRM ? " (time limit)" : "");
        printf("%s %s\n", ok ? "ok  " : "FAIL", gk_test_cases[i].name);
        failed += !ok;
    }
    printf("%d of %d passed\n", gk_test_count - failed, gk_test_count);
    return failed ? 1 : 0;
}

#endif /* GK_TESTS_GK_TEST_H */

/*
 * gk_test.h: a tiny unit-test runner, header-only. Each case runs in a
 * forked child with a time limit, so a crash, an assertion or a hang fails
 * that case and the others still run; assertions print both values (each as
 * its own type) and the place; a summary line ends the run.
 *
 *   GK_TEST(adds) { ASSERT_EQ(1 + 1, 2); }
 *   int main(int argc, char **argv) { return gk_test_main(argc, argv); }
 *
 * `prog NAME...` runs only the named cases; `prog -l` lists them.
 * GK_TEST_SECONDS (environment) changes the per-case limit (default 10 s).
 * The child is limited twice: alarm() inside it, and the parent kills it
 * with SIGKILL a second after the limit if it is still there (a case that
 * blocks SIGALRM cannot hang the run).
 */
#ifndef GK_TESTS_GK_TEST_H
#define GK_TESTS_GK_TEST_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gk_check_value.h"

#define GK_TEST_MAX 512
#define GK_TEST_DEFAULT_SECONDS 10

struct gk_test_case {
    const char *name;
    const char *file;
    void (*fn)(void);
};
static struct gk_test_case gk_test_cases[GK_TEST_MAX];
static int gk_test_count;

/* Cases register themselves before main (in source order). */
#define GK_TEST(name)                                                                    \
    static void gk_test_fn_##name(void);                                                 \
    __attribute__((constructor)) static void gk_test_register_##name(void)               \
    {                                                                                    \
        if (gk_test_count < GK_TEST_MAX)                                                 \
            gk_test_cases[gk_test_count++] =                                             \
                (struct gk_test_case){#name, __FILE__, gk_test_fn_##name};               \
    }                                                                                    \
    static void gk_test_fn_##name(void)

/* Ends the case (the child) with a message naming the place. */
#define GK_TEST_FAIL(...)                                                                \
    do {                                                                                 \
        fflush(stdout);                                                                  \
        fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);                                \
        fprintf(stderr, __VA_ARGS__);                                                    \
        fprintf(stderr, "\n");                                                           \
        exit(1);                                                                         \
    } while (0)

#define GK_TEST_CMP_(actual, expected, op, opname)                                       \
    do {                                                                                 \
        struct gk_check_value a_ = GK_CHECK_VALUE(actual);                               \
        struct gk_check_value e_ = GK_CHECK_VALUE(expected);                             \
        if (!(gk_check_cmp(a_, e_) op 0)) {                                              \
            char abuf_[64], ebuf_[64];                                                   \
            GK_TEST_FAIL(opname "(%s, %s) failed: %s is %s, %s is %s", #actual,          \
                         #expected, #actual, gk_check_format(a_, abuf_, 64), #expected,  \
                         gk_check_format(e_, ebuf_, 64));                                \
        }                                                                                \
    } while (0)

#define ASSERT_EQ(actual, expected) GK_TEST_CMP_(actual, expected, ==, "ASSERT_EQ")
#define ASSERT_NE(actual, expected) GK_TEST_CMP_(actual, expected, !=, "ASSERT_NE")
#define ASSERT_LT(actual, expected) GK_TEST_CMP_(actual, expected, <, "ASSERT_LT")
#define ASSERT_LE(actual, expected) GK_TEST_CMP_(actual, expected, <=, "ASSERT_LE")
#define ASSERT_GT(actual, expected) GK_TEST_CMP_(actual, expected, >, "ASSERT_GT")
#define ASSERT_GE(actual, expected) GK_TEST_CMP_(actual, expected, >=, "ASSERT_GE")

#define ASSERT_TRUE(cond)                                                                \
    do {                                                                                 \
        if (!(cond))                                                                     \
            GK_TEST_FAIL("ASSERT_TRUE(%s) failed", #cond);                               \
    } while (0)
#define ASSERT_FALSE(cond)                                                               \
    do {                                                                                 \
        if (cond)                                                                        \
            GK_TEST_FAIL("ASSERT_FALSE(%s) failed", #cond);                              \
    } while (0)

#define ASSERT_STREQ(actual, expected)                                                   \
    do {                                                                                 \
        const char *a_ = (actual), *e_ = (expected);                                     \
        if (a_ == NULL || e_ == NULL || strcmp(a_, e_) != 0)                             \
            GK_TEST_FAIL("ASSERT_STREQ(%s, %s) failed: \"%s\" != \"%s\"", #actual,       \
                         #expected, a_ ? a_ : "(null)", e_ ? e_ : "(null)");             \
    } while (0)

/* `haystack` contains `needle` (both printed when it does not). */
#define ASSERT_CONTAINS(haystack, needle)                                                \
    do {                                                                                 \
        const char *h_ = (haystack), *n_ = (needle);                                     \
        if (h_ == NULL || n_ == NULL || strstr(h_, n_) == NULL)                          \
            GK_TEST_FAIL("ASSERT_CONTAINS(%s, %s) failed: \"%s\" not found in \"%s\"",   \
                         #haystack, #needle, n_ ? n_ : "(null)", h_ ? h_ : "(null)");    \
    } while (0)

static inline double gk_test_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs one case in a child; returns 1 if it passed. */
static inline int gk_test_run_one(const struct gk_test_case *tc, unsigned seconds)
{
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    fflush(stdout);
    fflush(stderr);
    double start = gk_test_now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 0;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        alarm(seconds);
        tc->fn();
        fflush(stdout);
        exit(0);
    }
    /* The parent's limit: wait for SIGCHLD until a second past the child's. */
    int status = 0, killed = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        double left = start + seconds + 1.0 - gk_test_now();
        if (left <= 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            killed = 1;
            break;
        }
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        sigtimedwait(&chld, NULL, &ts);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    double took = gk_test_now() - start;
    int ok = !killed && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (killed)
        fprintf(stderr, "  killed after %u s (time limit)\n", seconds);
    else if (WIFSIGNALED(status))
        fprintf(stderr, "  killed by signal %d (%s)%s\n", WTERMSIG(status),
                strsignal(WTERMSIG(status)),
                WTERMSIG(status) == SIGALRM ? ": time limit" : "");
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        fprintf(stderr, "  exited with status %d\n", WEXITSTATUS(status));
    printf("%s %s (%.3f s)\n", ok ? "ok  " : "FAIL", tc->name, took);
    fflush(stdout);
    return ok;
}

static inline int gk_test_main(int argc, char **argv)
{
    unsigned seconds = GK_TEST_DEFAULT_SECONDS;
    const char *env = getenv("GK_TEST_SECONDS");
    if (env != NULL && atoi(env) > 0)
        seconds = (unsigned)atoi(env);
    if (argc > 1 && strcmp(argv[1], "-l") == 0) {
        for (int i = 0; i < gk_test_count; i++)
            printf("%s\n", gk_test_cases[i].name);
        return 0;
    }
    int ran = 0, failed = 0;
    for (int i = 0; i < gk_test_count; i++) {
        int wanted = argc <= 1;
        for (int a = 1; a < argc && !wanted; a++)
            wanted = strcmp(argv[a], gk_test_cases[i].name) == 0;
        if (!wanted)
            continue;
        ran++;
        failed += !gk_test_run_one(&gk_test_cases[i], seconds);
    }
    if (ran == 0) {
        fprintf(stderr, "no test case matched\n");
        return 1;
    }
    printf("%s: %d of %d passed%s\n", gk_test_count ? gk_test_cases[0].file : "",
           ran - failed, ran, failed ? "" : ", all ok");
    return failed ? 1 : 0;
}

/* The older entry point: runs every case. */
static inline int gk_test_run_all(void)
{
    char *argv[] = {"test", NULL};
    return gk_test_main(1, argv);
}

#endif /* GK_TESTS_GK_TEST_H */

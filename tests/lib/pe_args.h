/*
 * pe_args.h: the optional count argument of a PE test, `prog [NAME]`
 * (a hosts variant runs fewer rounds than the one-node test: HOSTS_ARGS in
 * tests/CMakeLists.txt).
 */
#ifndef GK_TESTS_PE_ARGS_H
#define GK_TESTS_PE_ARGS_H

#include <stdio.h>
#include <stdlib.h>

/* `fallback` without the argument, else its value, which must lie in
 * [min, max] (`what` says what it counts); a bad command line prints why
 * and exits 2, before gk_init. */
static inline long pe_count_arg(int argc, char **argv, const char *name, const char *what,
                                long fallback, long min, long max)
{
    if (argc > 2) {
        fprintf(stderr, "usage: %s [%s]\n", argv[0], name);
        exit(2);
    }
    if (argc < 2)
        return fallback;
    char *end;
    long value = strtol(argv[1], &end, 10);
    if (*argv[1] == '\0' || *end != '\0' || value < min || value > max) {
        fprintf(stderr, "%s: %s is %s; expected %ld to %ld %s\n", argv[0], name, argv[1], min,
                max, what);
        exit(2);
    }
    return value;
}

#endif /* GK_TESTS_PE_ARGS_H */

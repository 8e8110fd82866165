/*
 * win_emulated.h: with GK_TEST_WIN_EMULATED defined, a window test's
 * gk_win_allocate makes its parts in malloc memory instead (gk_win_create
 * over it), so every operation of the test goes to emulated parts, run by
 * their owners from active messages. gk_win_free frees that memory too.
 */
#ifndef GK_TEST_WIN_EMULATED_H
#define GK_TEST_WIN_EMULATED_H

#ifdef GK_TEST_WIN_EMULATED
#include <stdlib.h>

#include <gasket.h>

static inline int test_win_allocate(size_t size, unsigned flags, void **base_p,
                                    gk_win_t **win_p)
{
    void *base = calloc(1, size > 0 ? size : 1);
    if (base == NULL)
        return GK_ERR_NOMEM;
    int status = gk_win_create(base, size, flags, win_p);
    if (status != GK_OK || base_p == NULL) {
        free(base);
        return status;
    }
    *base_p = base;
    return status;
}

static inline int test_win_free(gk_win_t *win)
{
    void *base = win != NULL ? gk_win_base(win) : NULL;
    int status = gk_win_free(win);
    if (status == GK_OK && base != NULL && !gk_ptr(base, gk_my_pe()))
        free(base);
    return status;
}

#define gk_win_allocate test_win_allocate
#define gk_win_free test_win_free
#endif

#endif /* GK_TEST_WIN_EMULATED_H */

/*
 * Calls written in gasket 0.1's argument order, one per CASE, each of which
 * must fail to compile against this gasket.h (check_api.sh old_order); CASE
 * 0 is the same calls in today's order and must compile without a warning.
 * A call in the old order that compiled (with a warning, -Wint-conversion)
 * would pass a pointer as a length and fail only at run time.
 */
#include <gasket.h>

int calls(gk_win_t *win, gk_request_t **requests, gk_handle_t *handles,
          gk_am_token_t *token, gk_type_t type, gk_sem_t sem, double *buf, int n);

int calls(gk_win_t *win, gk_request_t **requests, gk_handle_t *handles,
          gk_am_token_t *token, gk_type_t type, gk_sem_t sem, double *buf, int n)
{
    int status = 0;
#if CASE == 0
    int owner;
    status |= gk_win_get(win, 1, buf, 0, 8);
    status |= gk_request_wait_all(requests, (size_t)n, NULL);
    status |= gk_handle_wait_all(handles, (size_t)n);
    status |= gk_win_put_typed(win, 1, 0, 1, type, buf, 1, type);
    status |= gk_win_put_typed_nbi(win, 1, 0, 1, type, buf, 1, type);
    status |= gk_win_accumulate_typed(win, 1, 0, 1, type, buf, 1, type, GK_OP_SUM);
    status |= gk_win_accumulate_typed_nbi(win, 1, 0, 1, type, buf, 1, type, GK_OP_SUM);
    status |= gk_am_request_long(1, 0, buf, buf, 8, NULL, 0);
    status |= gk_am_reply_long(token, 0, buf, buf, 8, NULL, 0);
    status |= gk_sem_owner(sem, &owner);
#elif CASE == 1
    status = gk_win_get(win, 1, 0, buf, 8);
#elif CASE == 2
    status = gk_request_wait_all(n, requests, NULL);
#elif CASE == 3
    status = gk_handle_wait_all(n, handles);
#elif CASE == 4
    status = gk_win_put_typed(win, 1, buf, 1, type, 0, 1, type);
#elif CASE == 5
    status = gk_win_put_typed_nbi(win, 1, buf, 1, type, 0, 1, type);
#elif CASE == 6
    status = gk_win_accumulate_typed(win, 1, buf, 1, type, 0, 1, type, GK_OP_SUM);
#elif CASE == 7
    status = gk_win_accumulate_typed_nbi(win, 1, buf, 1, type, 0, 1, type, GK_OP_SUM);
#elif CASE == 8
    status = gk_am_request_long(1, 0, buf, 8, buf, NULL, 0);
#elif CASE == 9
    status = gk_am_reply_long(token, 0, buf, 8, buf, NULL, 0);
#elif CASE == 10
    status = gk_sem_owner(sem); /* was the owner or a status */
#endif
    (void)win, (void)requests, (void)handles, (void)token, (void)type, (void)sem;
    (void)buf, (void)n;
    return status;
}

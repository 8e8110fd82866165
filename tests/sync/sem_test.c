/*
 * sem_test: semaphore semantics on every flag combination, the N-variants,
 * try on an empty semaphore, the maximum value, and the errors for using a
 * semaphore from the wrong PE. Runs at any PE count; PE (me+1) posts to me.
 */
#include <stdlib.h>

#include "pe_check.h"

static const unsigned kinds[] = {GK_SEM_INTEGER, GK_SEM_BOOLEAN};
static const unsigned producers[] = {GK_SEM_MULTI_PRODUCER, GK_SEM_SINGLE_PRODUCER, 0};
static const unsigned consumers[] = {GK_SEM_MULTI_CONSUMER, GK_SEM_SINGLE_CONSUMER, 0};

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int left = (me + npes - 1) % npes, right = (me + 1) % npes;
    gk_sem_t *published = gk_calloc((size_t)npes, sizeof(gk_sem_t));
    CHECK_TRUE(published != NULL);

    for (size_t k = 0; k < 2; k++)
        for (size_t p = 0; p < 3; p++)
            for (size_t c = 0; c < 3; c++) {
                unsigned flags = kinds[k] | producers[p] | consumers[c];
                int boolean = kinds[k] == GK_SEM_BOOLEAN;
                gk_sem_t mine;
                CHECK_OK(gk_sem_alloc(flags, &mine));
                int owner = -1;
                CHECK_OK(gk_sem_owner(mine, &owner));
                CHECK_EQ(owner, me);
                /* Tell my left neighbour my handle; it posts to me. */
                int taken = -1;
                CHECK_OK(gk_sem_try_wait(mine, &taken)); /* nobody can post yet */
                CHECK_EQ_U64(taken, 0);
                CHECK_OK(gk_put(left, &published[me], &mine, sizeof(mine)));
                CHECK_OK(gk_barrier());
                /* A BOOLEAN semaphore gets one post of 3 (it saturates at
                 * 1); an INTEGER one 3 and then 1 more. */
                CHECK_OK(gk_sem_post_n(published[right], 3));
                if (!boolean)
                    CHECK_OK(gk_sem_post(published[right]));
                if (boolean) {
                    CHECK_OK(gk_sem_wait(mine));
                    CHECK_STATUS(gk_sem_wait_n(mine, 2), GK_ERR_INVALID_ARG);
                } else {
                    CHECK_OK(gk_sem_wait_n(mine, 3));
                    CHECK_OK(gk_sem_wait(mine));
                    CHECK_OK(gk_sem_try_wait_n(mine, 2, &taken));
                    CHECK_EQ_U64(taken, 0);
                }
                CHECK_OK(gk_sem_try_wait(mine, &taken));
                CHECK_EQ_U64(taken, 0);
                /* Locally: try succeeds when the value allows; a boolean
                 * saturates. */
                CHECK_OK(gk_sem_post(mine));
                CHECK_OK(gk_sem_post(mine));
                CHECK_OK(gk_sem_try_wait(mine, &taken));
                CHECK_EQ_U64(taken, 1);
                CHECK_OK(gk_sem_try_wait(mine, &taken));
                CHECK_EQ_U64(taken, boolean ? 0 : 1);
                uint64_t value = 99;
                CHECK_OK(gk_sem_value(mine, &value));
                CHECK_EQ_U64(value, 0);
                CHECK_OK(gk_barrier());
                CHECK_OK(gk_sem_free(mine));
            }

    /* Contradictory and unknown flags. */
    gk_sem_t sem;
    CHECK_STATUS(gk_sem_alloc(GK_SEM_INTEGER | GK_SEM_BOOLEAN, &sem), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_sem_alloc(GK_SEM_SINGLE_PRODUCER | GK_SEM_MULTI_PRODUCER, &sem),
                 GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_sem_alloc(GK_SEM_SINGLE_CONSUMER | GK_SEM_MULTI_CONSUMER, &sem),
                 GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_sem_alloc(0x4000, &sem), GK_ERR_INVALID_ARG);

    /* The maximum value of an INTEGER semaphore. */
    CHECK_OK(gk_sem_alloc(0, &sem));
    CHECK_OK(gk_sem_post_n(sem, GK_SEM_VALUE_MAX));
    CHECK_STATUS(gk_sem_post(sem), GK_ERR_RANGE);
    uint64_t value;
    CHECK_OK(gk_sem_value(sem, &value));
    CHECK_EQ_U64(value, GK_SEM_VALUE_MAX);
    CHECK_OK(gk_sem_wait_n(sem, GK_SEM_VALUE_MAX));
    CHECK_STATUS(gk_sem_post_n(sem, 0), GK_ERR_INVALID_ARG);

    /* The maximum from another PE (through the transport where the owner
     * is not mapped): the post that would pass it fails, the value stays,
     * and the owner still takes all of it. */
    gk_sem_t near_full, near_full_right;
    CHECK_OK(gk_sem_alloc_all(GK_SEM_SINGLE_PRODUCER, &near_full));
    CHECK_OK(gk_sem_on(near_full, right, &near_full_right));
    CHECK_OK(gk_sem_post_n(near_full, GK_SEM_VALUE_MAX - 3));
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_sem_value(near_full_right, &value));
    CHECK_EQ_U64(value, GK_SEM_VALUE_MAX - 3);
    CHECK_OK(gk_sem_post_n(near_full_right, 2));
    CHECK_STATUS(gk_sem_post_n(near_full_right, 2), GK_ERR_RANGE);
    CHECK_OK(gk_sem_post(near_full_right));
    CHECK_STATUS(gk_sem_post(near_full_right), GK_ERR_RANGE);
    CHECK_STATUS(gk_sem_post_n(near_full_right, GK_SEM_VALUE_MAX + 1), GK_ERR_RANGE);
    CHECK_STATUS(gk_sem_post_n(near_full_right, 0), GK_ERR_INVALID_ARG);
    CHECK_OK(gk_sem_value(near_full_right, &value));
    CHECK_EQ_U64(value, GK_SEM_VALUE_MAX);
    CHECK_OK(gk_barrier()); /* every PE has looked at its full neighbour */
    CHECK_OK(gk_sem_wait_n(near_full, GK_SEM_VALUE_MAX));
    CHECK_OK(gk_barrier());
    /* Room again: a post from the other PE lands. */
    CHECK_OK(gk_sem_post_n(near_full_right, 5));
    CHECK_OK(gk_sem_wait_n(near_full, 5));
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_sem_free_all(near_full));

    /* Collective semaphores: gk_sem_on names a peer's member. */
    gk_sem_t all, theirs;
    CHECK_OK(gk_sem_alloc_all(0, &all));
    CHECK_OK(gk_sem_on(all, right, &theirs));
    int owner = -1;
    CHECK_OK(gk_sem_owner(theirs, &owner));
    CHECK_EQ(owner, right);
    CHECK_OK(gk_sem_post_n(theirs, 2));
    CHECK_OK(gk_sem_wait_n(all, 2));
    CHECK_STATUS(gk_sem_on(sem, right, &theirs), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_sem_on(all, npes, &theirs), GK_ERR_PE);

    /* Wrong PE: consuming another PE's semaphore, signaling a semaphore that
     * does not belong to the target, freeing another PE's semaphore. */
    char *buf = gk_malloc(64);
    char byte = 1;
    CHECK_OK(gk_sem_on(all, right, &theirs));
    if (npes > 1) {
        CHECK_STATUS(gk_sem_wait(theirs), GK_ERR_INVALID_ARG);
        CHECK_STATUS(gk_sem_try_wait(theirs, &(int){0}), GK_ERR_INVALID_ARG);
        CHECK_STATUS(gk_put_sem(left, buf, &byte, 1, all, 1), GK_ERR_INVALID_ARG);
        CHECK_STATUS(gk_sem_free_all(theirs), GK_ERR_INVALID_ARG);
    }
    CHECK_STATUS(gk_sem_free(all), GK_ERR_INVALID_ARG); /* collective one */
    /* A bad argument on one PE fails a collective call on every PE, and
     * nothing changes (`all` is still in use below). */
    if (npes > 1) {
        gk_sem_t none;
        CHECK_STATUS(gk_sem_alloc_all(me == 0 ? 0x4000u : 0u, &none), GK_ERR_INVALID_ARG);
        CHECK_STATUS(gk_sem_alloc_all(0, me == npes - 1 ? NULL : &none), GK_ERR_INVALID_ARG);
        CHECK_STATUS(gk_sem_free_all(me == 0 ? theirs : all), GK_ERR_INVALID_ARG);
    }
    CHECK_STATUS(gk_sem_post((gk_sem_t){12345}), GK_ERR_INVALID_ARG);
    CHECK_OK(gk_sem_free(sem));
    CHECK_STATUS(gk_sem_post(sem), GK_ERR_INVALID_ARG); /* freed */
    /* An invalid handle is an error, never an owner; *pe_p stays. */
    owner = -7;
    CHECK_STATUS(gk_sem_owner(sem, &owner), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_sem_owner((gk_sem_t){12345}, &owner), GK_ERR_INVALID_ARG);
    CHECK_EQ(owner, -7);
    CHECK_STATUS(gk_sem_owner(all, NULL), GK_ERR_INVALID_ARG);

    CHECK_OK(gk_barrier());
    CHECK_OK(gk_sem_free_all(all));
    gk_free(buf);
    gk_free(published);
    CHECK_OK(gk_finalize());
    return 0;
}

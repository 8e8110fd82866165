/*
 * sem_stale_test: a semaphore handle that outlives its semaphore never
 * names the next semaphore allocated in the same cell. gk_sem_free, a new
 * gk_sem_alloc, then a post through the old handle is GK_ERR_INVALID_ARG
 * with a message naming the handle and both generations, and the new
 * semaphore's value stays 0: from the owner, from another PE (post and
 * signaling put), for a second free, and for collective semaphores freed
 * and allocated again.
 */
#include "pe_check.h"

static int me, npes;

static uint64_t value_of(gk_sem_t sem)
{
    uint64_t value = 99;
    CHECK_OK(gk_sem_value(sem, &value));
    return value;
}

/* Stale handles on the owner: post, wait, value, free twice. */
static void test_local(void)
{
    gk_sem_t old, fresh;
    CHECK_OK(gk_sem_alloc(0, &old));
    CHECK_OK(gk_sem_free(old));
    /* The pool hands out its lowest free cell: the one just freed. */
    CHECK_OK(gk_sem_alloc(0, &fresh));
    CHECK_NE(fresh.bits, old.bits);
    const char *report = pe_fmt("semaphore %#llx on PE %d is stale: freed (generation 0, "
                                "now 1)",
                                (unsigned long long)old.bits, me);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_post(old), "gk_sem_post", report);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_post_n(old, 3), "gk_sem_post_n", report);
    CHECK_EQ_U64(value_of(fresh), 0);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_wait(old), "gk_sem_wait", report);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_try_wait(old, &(int){0}), "gk_sem_try_wait", report);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_value(old, &(uint64_t){0}), "gk_sem_value",
                 report);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_free(old), "gk_sem_free", report);
    CHECK_EQ_U64(value_of(fresh), 0);

    /* The new one works, and freeing it twice is caught too. */
    CHECK_OK(gk_sem_post(fresh));
    CHECK_OK(gk_sem_wait(fresh));
    CHECK_OK(gk_sem_free(fresh));
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_free(fresh), "gk_sem_free",
                 pe_fmt("semaphore %#llx on PE %d is stale: freed (generation 1, now 2)",
                        (unsigned long long)fresh.bits, me));
}

/* Stale handles from another PE: the left neighbour posts to my old one. */
static void test_remote(void)
{
    int left = (me + npes - 1) % npes, right = (me + 1) % npes;
    gk_sem_t *published = gk_calloc(2, sizeof(gk_sem_t));
    char *buf = gk_calloc(1, 64);
    CHECK_NOT_NULL(published);
    CHECK_NOT_NULL(buf);

    gk_sem_t old, fresh;
    CHECK_OK(gk_sem_alloc(0, &old));
    CHECK_OK(gk_put(left, &published[0], &old, sizeof(old)));
    CHECK_OK(gk_barrier());
    gk_sem_t theirs_old = published[0]; /* my right neighbour's */
    CHECK_OK(gk_sem_free(old));
    CHECK_OK(gk_sem_alloc(0, &fresh));
    CHECK_OK(gk_put(left, &published[1], &fresh, sizeof(fresh)));
    CHECK_OK(gk_barrier());

    gk_sem_t theirs_fresh = published[1];
    /* The cell's third life: test_local used it twice on every PE. */
    const char *report = pe_fmt("semaphore %#llx on PE %d is stale: freed (generation 2, "
                                "now 3)",
                                (unsigned long long)theirs_old.bits, right);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_post(theirs_old), "gk_sem_post", report);
    char byte = 7;
    gk_sem_t sem = theirs_old;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_put_sem(right, buf, &byte, 1, sem, 1),
                 "gk_put_sem", report);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_put_sem_nbi(right, buf, &byte, 1, sem, 1),
                 "gk_put_sem_nbi", report);
    CHECK_OK(gk_barrier());
    /* Nothing reached my new semaphore, nor my buffer. */
    CHECK_EQ_U64(value_of(fresh), 0);
    CHECK_EQ(buf[0], 0);
    CHECK_OK(gk_barrier());

    /* The new handle works from there. */
    CHECK_OK(gk_put_sem(right, buf, &byte, 1, theirs_fresh, 1));
    CHECK_OK(gk_sem_wait(fresh));
    CHECK_EQ(buf[0], 7);
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_sem_free(fresh));
    gk_free(buf);
    gk_free(published);
}

/* Collective semaphores freed and allocated again at the same address. */
static void test_collective(void)
{
    int right = (me + 1) % npes;
    gk_sem_t old, old_right, fresh;
    CHECK_OK(gk_sem_alloc_all(0, &old));
    CHECK_OK(gk_sem_on(old, right, &old_right));
    CHECK_OK(gk_sem_free_all(old));
    /* The heap is first fit: the new member takes the old one's block. */
    CHECK_OK(gk_sem_alloc_all(0, &fresh));
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_post(old_right), "gk_sem_post",
                 pe_fmt("semaphore %#llx on PE %d is stale: freed (generation 0, now 1)",
                        (unsigned long long)old_right.bits, right));
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_post(old), "gk_sem_post",
                 pe_fmt("semaphore %#llx on PE %d is stale", (unsigned long long)old.bits,
                        me));
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(value_of(fresh), 0);
    /* Freed twice: every PE passes the stale handle, and every PE says so. */
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_free_all(old), "gk_sem_free_all", "is stale");
    CHECK_OK(gk_sem_free_all(fresh));
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    test_local();
    test_remote();
    test_collective();
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("sem_stale_test: %d PEs ok\n", npes);
    return 0;
}

/*
 * put_signal_test: signaling puts of 0 B, 1 B, odd sizes and 1 MiB, blocking,
 * nbi and nb, each payload verified by the consumer; many producers to one
 * consumer; OpenSHMEM-style signals with SET and ADD.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

static unsigned char pattern(int pe, size_t size, size_t i)
{
    return (unsigned char)(pe * 31 + size * 7 + i * 13 + 1);
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int left = (me + npes - 1) % npes, right = (me + 1) % npes;
    const size_t sizes[] = {0, 1, 3, 7, 63, 4097, 65537, 1 << 20};
    const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
    unsigned char *inbox = gk_malloc(1 << 20);
    unsigned char *src = malloc(1 << 20);
    gk_sem_t sem, right_sem;
    CHECK_OK(gk_sem_alloc_all(GK_SEM_SINGLE_PRODUCER | GK_SEM_SINGLE_CONSUMER, &sem));
    CHECK_OK(gk_sem_on(sem, right, &right_sem));

    /* Ring: I send to my right neighbour, my left neighbour sends to me. The
     * next size waits for the consumer's go-ahead (a post back). */
    gk_sem_t ack, left_ack;
    CHECK_OK(gk_sem_alloc_all(0, &ack));
    CHECK_OK(gk_sem_on(ack, left, &left_ack));
    for (int form = 0; form < 3; form++) {
        for (size_t s = 0; s < nsizes; s++) {
            size_t size = sizes[s];
            for (size_t i = 0; i < size; i++)
                src[i] = pattern(me, size, i);
            if (form == 0) {
                CHECK_OK(gk_put_sem(right, inbox, src, size, right_sem, 1));
            } else if (form == 1) {
                CHECK_OK(gk_put_sem_nbi(right, inbox, src, size, right_sem, 1));
                CHECK_OK(gk_quiet());
            } else {
                gk_handle_t handle;
                CHECK_OK(gk_put_sem_nb(right, inbox, src, size, right_sem, 1, &handle));
                CHECK_OK(gk_handle_wait(&handle));
            }
            CHECK_OK(gk_sem_wait(sem));
            for (size_t i = 0; i < size; i++)
                if (inbox[i] != pattern(left, size, i))
                    PE_FAIL("form %d size %zu: byte %zu is %u, expected %u", form, size, i,
                            inbox[i], pattern(left, size, i));
            /* Done with the inbox: my left neighbour may write it again. */
            CHECK_OK(gk_sem_post(left_ack));
            CHECK_OK(gk_sem_wait(ack));
        }
    }

    /* Many producers, one consumer: every PE writes its own slot of PE 0's
     * array and signals PE 0's semaphore; PE 0 waits for all of them. */
    uint64_t *slots = gk_calloc((size_t)npes * 8, sizeof(uint64_t));
    gk_sem_t zero_sem;
    CHECK_OK(gk_sem_on(sem, 0, &zero_sem));
    uint64_t mine[8];
    for (int i = 0; i < 8; i++)
        mine[i] = (uint64_t)me * 1000 + (uint64_t)i;
    CHECK_OK(gk_put_sem(0, &slots[me * 8], mine, sizeof(mine), zero_sem, 1));
    if (me == 0) {
        CHECK_OK(gk_sem_wait_n(sem, (uint64_t)npes));
        for (int pe = 0; pe < npes; pe++)
            for (int i = 0; i < 8; i++)
                CHECK_EQ_U64(slots[pe * 8 + i], (uint64_t)pe * 1000 + (uint64_t)i);
    }
    CHECK_OK(gk_barrier());

    /* Signals: ADD from every PE into PE 0's word, then SET from my left. */
    uint64_t *signal = gk_calloc(2, sizeof(uint64_t));
    uint64_t *data = gk_calloc((size_t)npes + 1, sizeof(uint64_t));
    uint64_t v = 100 + (uint64_t)me;
    CHECK_OK(gk_put_signal(0, &data[me], &v, sizeof(v), &signal[0], 1, GK_SIGNAL_ADD));
    if (me == 0) {
        uint64_t seen;
        CHECK_OK(gk_signal_wait_until(&signal[0], GK_CMP_EQ, (uint64_t)npes, &seen));
        CHECK_EQ_U64(seen, npes);
        for (int pe = 0; pe < npes; pe++)
            CHECK_EQ_U64(data[pe], 100 + (uint64_t)pe);
    }
    /* data[npes] is written only in this phase, so PE 0's check above
     * cannot see it. */
    CHECK_OK(gk_put_signal_nbi(right, &data[npes], &v, sizeof(v), &signal[1],
                               42 + (uint64_t)me, GK_SIGNAL_SET));
    CHECK_OK(gk_quiet());
    uint64_t seen = 0;
    CHECK_OK(gk_signal_wait_until(&signal[1], GK_CMP_NE, 0, &seen));
    CHECK_EQ_U64(seen, 42 + (uint64_t)left);
    CHECK_OK(gk_signal_fetch(&signal[1], &seen));
    CHECK_EQ_U64(seen, 42 + (uint64_t)left);
    CHECK_EQ_U64(data[npes], 100 + (uint64_t)left);
    CHECK_STATUS(gk_put_signal(right, data, &v, 8, &signal[0], 1, 7), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_put_signal(right, data, &v, 8, (uint64_t *)((char *)signal + 1), 1,
                               GK_SIGNAL_ADD),
                 GK_ERR_ALIGN);

    /* A semaphore without room: the signaling put fails before its copy,
     * and the target's buffer keeps what it had. */
    CHECK_OK(gk_barrier()); /* nobody writes my inbox any more */
    gk_sem_t full;
    CHECK_OK(gk_sem_alloc(0, &full));
    CHECK_OK(gk_sem_post_n(full, GK_SEM_VALUE_MAX));
    uint64_t before = 0x5a5a5a5a5a5a5a5aull, attempt = 7;
    memcpy(inbox, &before, 8);
    CHECK_STATUS(gk_put_sem(me, inbox, &attempt, 8, full, 1), GK_ERR_RANGE);
    CHECK_STATUS(gk_put_sem(me, inbox, &attempt, 8, full, GK_SEM_VALUE_MAX + 1),
                 GK_ERR_RANGE);
    CHECK_EQ_U64(*(uint64_t *)(void *)inbox, before);
    CHECK_OK(gk_sem_wait_n(full, GK_SEM_VALUE_MAX));
    CHECK_OK(gk_put_sem(me, inbox, &attempt, 8, full, 1));
    CHECK_OK(gk_sem_wait(full));
    CHECK_EQ_U64(*(uint64_t *)(void *)inbox, attempt);
    CHECK_OK(gk_sem_free(full));

    /* The same from another PE: my left neighbour's put to my full
     * semaphore fails before its copy. */
    gk_sem_t full_all, full_right;
    CHECK_OK(gk_sem_alloc_all(0, &full_all));
    CHECK_OK(gk_sem_on(full_all, right, &full_right));
    CHECK_OK(gk_sem_post_n(full_all, GK_SEM_VALUE_MAX));
    memcpy(inbox, &before, 8);
    CHECK_OK(gk_barrier());
    CHECK_STATUS(gk_put_sem(right, inbox, &attempt, 8, full_right, 1), GK_ERR_RANGE);
    CHECK_STATUS(gk_put_sem_nbi(right, inbox, &attempt, 8, full_right, 2), GK_ERR_RANGE);
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(*(uint64_t *)(void *)inbox, before);
    CHECK_OK(gk_sem_value(full_all, &seen));
    CHECK_EQ_U64(seen, GK_SEM_VALUE_MAX);
    CHECK_OK(gk_sem_wait_n(full_all, GK_SEM_VALUE_MAX));
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_put_sem(right, inbox, &attempt, 8, full_right, 1));
    CHECK_OK(gk_sem_wait(full_all));
    CHECK_EQ_U64(*(uint64_t *)(void *)inbox, attempt);
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_sem_free_all(full_all));

    CHECK_OK(gk_barrier());
    gk_free(data);
    gk_free(signal);
    gk_free(slots);
    CHECK_OK(gk_sem_free_all(ack));
    CHECK_OK(gk_sem_free_all(sem));
    gk_free(inbox);
    free(src);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * am_poll_loop_test: the two ways to wait for what one's own handler
 * writes, each PE asking its right neighbour N times and waiting for each
 * answer before the next question:
 *   poll   while (!answered) gk_poll();        (a plain static flag)
 *   wait   gk_wait_until_u64(answer, ...)      (a heap word)
 * Run with more PEs than CPUs (np4_one_cpu) too, where a poll loop that
 * kept its CPU would starve the neighbour that must answer.
 */
#include "pe_check.h"

enum { H_ASK, H_ANSWER };

static uint64_t answered; /* the poll loop's flag (atomic: the progress thread sets it) */
/* symmetric: the wait's word. Its address is set after the progress
 * thread starts, which reads it in h_answer: atomic, as the order between
 * the two runs through another PE, which ThreadSanitizer cannot see. */
static uint64_t *answer;

static void h_ask(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                  int nargs)
{
    (void)payload, (void)nbytes, (void)nargs;
    uint64_t reply = args[0] + 1;
    CHECK_OK(gk_am_reply_short(token, H_ANSWER, &reply, 1));
}

static void h_answer(gk_am_token_t *token, void *payload, size_t nbytes, const uint64_t *args,
                     int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)nargs;
    __atomic_store_n(&answered, args[0], __ATOMIC_RELEASE);
    __atomic_store_n(__atomic_load_n(&answer, __ATOMIC_ACQUIRE), args[0], __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "poll") != 0 && strcmp(argv[1], "wait") != 0)) {
        fprintf(stderr, "usage: %s poll|wait N\n", argv[0]);
        return 2;
    }
    int use_poll = strcmp(argv[1], "poll") == 0;
    uint64_t n = strtoull(argv[2], NULL, 10);
    CHECK_OK(gk_init());
    int me = gk_my_pe(), right = (me + 1) % gk_n_pes();
    CHECK_OK(gk_am_register(H_ASK, h_ask));
    CHECK_OK(gk_am_register(H_ANSWER, h_answer));
    __atomic_store_n(&answer, gk_calloc(1, sizeof(uint64_t)), __ATOMIC_RELEASE);
    CHECK_NOT_NULL(answer);
    CHECK_OK(gk_barrier());
    double t0 = pe_now();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t question = 2 * i;
        CHECK_OK(gk_am_request_short(right, H_ASK, &question, 1));
        if (use_poll) {
            while (__atomic_load_n(&answered, __ATOMIC_ACQUIRE) != question + 1)
                CHECK_OK(gk_poll());
        } else {
            CHECK_OK(gk_wait_until_u64(answer, GK_CMP_EQ, question + 1));
        }
    }
    double elapsed = pe_now() - t0;
    CHECK_OK(gk_barrier());
    if (me == 0)
        PE_LOG("%s: %.0f round trips/s per PE", argv[1], (double)n / elapsed);
    gk_free(answer);
    CHECK_OK(gk_finalize());
    return 0;
}

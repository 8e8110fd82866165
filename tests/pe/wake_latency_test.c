/*
 * wake_latency_test: a PE asleep in gk_wait_until wakes promptly when a
 * peer completes a write to it, whatever the kind of write, even when the
 * writer then goes quiet (computes without calling gasket).
 *
 * Run with GK_SPIN_COUNT=0 GK_YIELD_COUNT=0 GK_SLEEP_MS=4000, so a waiter
 * sleeps at once and a wake-up that never comes costs 4 s. PEs pair up:
 * even PE 2k writes, odd PE 2k+1 waits (an odd PE out just takes part in
 * the barriers). Per scenario the writer first computes for a while (so
 * the waiter is asleep), then writes and completes the write as the
 * header says it must (value put or atomic: at once; gk_put: gk_quiet;
 * data + fence + flag), notes the time, and computes again without calling
 * gasket. The waiter notes when it woke; the delay must stay under
 * LIMIT_S (a wake-up normally takes microseconds).
 *
 *   wake_latency_test            the completion scenarios above
 *   wake_latency_test poll       a request/answer pair in which the writer
 *                                puts the request (no quiet) and then polls
 *                                for the answer with gk_test_u64 or
 *                                gk_get_u64 (every round trip must stay
 *                                under LIMIT_S)
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#define LIMIT_S 0.25
#define SETTLE_S 0.02 /* the writer's work before writing */
#define AFTER_S 0.3   /* and after, without calling gasket */

static int me, npes;

enum scenario {
    VALUE_PUT,  /* gk_put_u64 of the flag */
    PUT_QUIET,  /* gk_put of the flag, gk_quiet */
    NBI_QUIET,  /* gk_put_nbi of the flag, gk_quiet */
    NB_QUIET,   /* gk_put_nb of the flag, gk_handle_wait, gk_quiet */
    ATOMIC_ADD, /* gk_atomic_add_u64 of the flag */
    FENCE_FLAG, /* gk_put of data, gk_fence, gk_put_u64 of the flag */
    SCENARIOS
};
static const char *const scenario_name[SCENARIOS] = {"gk_put_u64",
                                                     "gk_put + gk_quiet",
                                                     "gk_put_nbi + gk_quiet",
                                                     "gk_put_nb + gk_handle_wait + gk_quiet",
                                                     "gk_atomic_add_u64",
                                                     "gk_put + gk_fence + gk_put_u64"};

static void completion_scenarios(void)
{
    uint64_t *flag = gk_calloc(SCENARIOS * 8, sizeof(uint64_t)); /* a line each */
    uint64_t *data = gk_calloc(64, sizeof(uint64_t));
    double *stamp =
        gk_calloc(SCENARIOS, sizeof(double)); /* the writer's, on the waiter */
    CHECK_TRUE(flag && data && stamp);
    int writer = me % 2 == 0 && me + 1 < npes, waiter = me % 2 == 1;
    int peer = writer ? me + 1 : me - 1;
    for (int s = 0; s < SCENARIOS; s++) {
        uint64_t *f = &flag[s * 8];
        if (writer) {
            pe_busy(SETTLE_S);
            uint64_t one = 1;
            gk_handle_t h;
            switch ((enum scenario)s) {
            case VALUE_PUT:
                CHECK_OK(gk_put_u64(peer, f, 1));
                break;
            case PUT_QUIET:
                CHECK_OK(gk_put(peer, f, &one, sizeof(one)));
                CHECK_OK(gk_quiet());
                break;
            case NBI_QUIET:
                CHECK_OK(gk_put_nbi(peer, f, &one, sizeof(one)));
                CHECK_OK(gk_quiet());
                break;
            case NB_QUIET:
                CHECK_OK(gk_put_nb(peer, f, &one, sizeof(one), &h));
                CHECK_OK(gk_handle_wait(&h));
                CHECK_OK(gk_quiet());
                break;
            case ATOMIC_ADD:
                CHECK_OK(gk_atomic_add_u64(peer, f, 1));
                break;
            default: {
                uint64_t payload[64];
                for (int i = 0; i < 64; i++)
                    payload[i] = (uint64_t)i + 1;
                CHECK_OK(gk_put(peer, data, payload, sizeof(payload)));
                CHECK_OK(gk_fence());
                CHECK_OK(gk_put_u64(peer, f, 1));
                break;
            }
            }
            double done = pe_now();
            pe_busy(AFTER_S);
            /* Now tell the waiter when the write was complete. */
            CHECK_OK(gk_put(peer, &stamp[s], &done, sizeof(done)));
        } else if (waiter) {
            CHECK_OK(gk_wait_until_u64(f, GK_CMP_GE, 1));
            double woke = pe_now();
            if (s == FENCE_FLAG)
                for (int i = 0; i < 64; i++)
                    CHECK_EQ(data[i], (uint64_t)i + 1);
            CHECK_OK(gk_barrier());
            double late = woke - stamp[s];
            if (late > LIMIT_S)
                PE_FAIL("woken %.3f s after PE %d completed %s (a wake-up was lost)",
                        late, peer, scenario_name[s]);
            continue;
        }
        CHECK_OK(gk_barrier());
    }
    CHECK_OK(gk_barrier());
    gk_free(stamp);
    gk_free(data);
    gk_free(flag);
}

/*
 * Request and answer: the writer puts a request (a plain gk_put, as a
 * program would), then polls for the answer without blocking: with
 * gk_test_u64 on its own word (answer put back by the waiter), or with
 * gk_get_u64 on a word in the waiter's memory (which the waiter just
 * stores). The waiter sleeps in gk_wait_until_u64 meanwhile.
 */
static void poll_scenarios(void)
{
    enum { ROUNDS = 5 };
    uint64_t *request = gk_calloc(8, sizeof(uint64_t));
    uint64_t *answer = gk_calloc(8, sizeof(uint64_t));
    uint64_t *posted = gk_calloc(8, sizeof(uint64_t));
    CHECK_TRUE(request && answer && posted);
    int writer = me % 2 == 0 && me + 1 < npes, waiter = me % 2 == 1;
    int peer = writer ? me + 1 : me - 1;
    for (int how = 0; how < 2; how++) {
        const char *name = how == 0 ? "gk_test_u64" : "gk_get_u64";
        for (uint64_t r = 1; r <= ROUNDS; r++) {
            uint64_t seq = (uint64_t)how * ROUNDS + r;
            if (writer) {
                pe_busy(SETTLE_S); /* the waiter is asleep by now */
                double t0 = pe_now();
                CHECK_OK(gk_put(peer, request, &seq, sizeof(seq)));
                int ok = 0;
                uint64_t seen = 0;
                while (!ok) {
                    if (how == 0) {
                        CHECK_OK(gk_test_u64(answer, GK_CMP_GE, seq, &ok));
                    } else {
                        CHECK_OK(gk_get_u64(peer, posted, &seen));
                        ok = seen >= seq;
                    }
                    if (pe_now() - t0 > 2 * LIMIT_S)
                        break;
                }
                double took = pe_now() - t0;
                if (took > LIMIT_S)
                    PE_FAIL("round %llu: a gk_put request answered after %.3f s while "
                            "this PE "
                            "polled with %s (the put's wake-up was never sent)",
                            (unsigned long long)r, took, name);
            } else if (waiter) {
                CHECK_OK(gk_wait_until_u64(request, GK_CMP_GE, seq));
                if (how == 0)
                    CHECK_OK(gk_put_u64(peer, answer, seq));
                else
                    __atomic_store_n(posted, seq, __ATOMIC_RELEASE);
            }
        }
        CHECK_OK(gk_barrier());
    }
    gk_free(posted);
    gk_free(answer);
    gk_free(request);
}

int main(int argc, char **argv)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    double t0 = pe_now();
    if (argc > 1 && strcmp(argv[1], "poll") == 0)
        poll_scenarios();
    else
        completion_scenarios();
    if (me == 0)
        PE_LOG("%s: %.3f s", argc > 1 ? argv[1] : "completion", pe_now() - t0);
    CHECK_OK(gk_finalize());
    return 0;
}

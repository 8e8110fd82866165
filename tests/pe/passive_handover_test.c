/*
 * passive_handover_test: a PE that goes straight from calling gasket to
 * computing still serves other PEs' one-sided operations.
 *
 * While a PE drives UCX itself (its waits for answers do), its progress
 * thread steps aside and takes over again only when it finds that the PE
 * stopped (docs/TRANSPORTS.md, GK_UCX_HANDOVER_US). PEs pair up: odd PE
 * 2k+1, the target, gets from PE 2k in a loop (so it drives), tells PE 2k
 * it is done with a value put, and computes for COMPUTE_S without calling
 * gasket. PE 2k, the origin, then times a get, a fetch-add, a put and a
 * quiet against the target: together they must take less than LIMIT_S
 * (milliseconds normally; a progress thread that never took over would
 * leave them waiting for the end of the computation). On one host the
 * operations need nothing from the target anyway, and the test checks
 * the same results.
 */
#include "pe_check.h"

#define ROUNDS 3
#define DRIVE_GETS 200
#define COMPUTE_S 0.6
#define LIMIT_S 0.2

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    uint64_t *go = gk_calloc(8, sizeof(uint64_t));      /* on the origin */
    uint64_t *counter = gk_calloc(8, sizeof(uint64_t)); /* on the target */
    uint64_t *word = gk_calloc(8, sizeof(uint64_t));    /* on both */
    CHECK_TRUE(go && counter && word);
    *word = 1000 + (uint64_t)me;
    CHECK_OK(gk_barrier());
    int origin = me % 2 == 0 && me + 1 < npes, target = me % 2 == 1;
    int peer = origin ? me + 1 : me - 1;
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        if (target) {
            for (int i = 0; i < DRIVE_GETS; i++) {
                uint64_t v = 0;
                CHECK_OK(gk_get(peer, &v, word, sizeof(v)));
                CHECK_EQ_U64(v, 1000 + (uint64_t)peer + r - 1);
            }
            CHECK_OK(gk_put_u64(peer, go, r));
            pe_busy(COMPUTE_S);
        } else if (origin) {
            CHECK_OK(gk_wait_until_u64(go, GK_CMP_GE, r));
            double start = pe_now();
            uint64_t v = 0, old = 0, next = 1000 + (uint64_t)peer + r;
            CHECK_OK(gk_get(peer, &v, word, sizeof(v)));
            CHECK_OK(gk_atomic_fetch_add_u64(peer, counter, 1, &old));
            CHECK_OK(gk_put(peer, word, &next, sizeof(next)));
            CHECK_OK(gk_quiet());
            double took = pe_now() - start;
            CHECK_EQ_U64(v, next - 1);
            CHECK_EQ_U64(old, r - 1);
            if (took > LIMIT_S)
                PE_FAIL("a get, a fetch-add and a put + quiet to PE %d took %.3f s while it "
                        "computed right after calling gasket (its progress thread did not "
                        "take over)",
                        peer, took);
            /* Our own word moves on too, for the target's next gets. */
            *word = 1000 + (uint64_t)me + r;
        }
        CHECK_OK(gk_barrier());
    }
    if (target)
        CHECK_EQ_U64(*counter, ROUNDS);
    gk_free(word);
    gk_free(counter);
    gk_free(go);
    CHECK_OK(gk_finalize());
    return 0;
}

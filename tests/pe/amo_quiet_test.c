/*
 * amo_quiet_test: non-fetching atomics and signaling puts are complete at
 * the caller's quiet, as puts are (gasket.h), whichever way they travel:
 * to a PE on another host each goes as one message that the caller does
 * not wait for (net.h, one-way remote operations), so only quiet stands
 * between it and a third PE that reads the word.
 *
 * PE 0 updates words of PE 1 with a burst of adds, a set and a signaling
 * put, quiets, then tells PE 2 so through a word of PE 2's. PE 2 reads
 * PE 1's words with gets and must find every update of the round. PE 1
 * does nothing but serve them. PE 2 then lets PE 0 start the next round.
 */
#include "pe_check.h"

#include <stdlib.h>

#define ADDS 16
#define PAYLOAD 32

struct words {
    uint64_t counter; /* on PE 1: ADDS per round */
    uint64_t set;     /* on PE 1: the round */
    uint64_t signal;  /* on PE 1: the round, after the payload */
    uint64_t told;    /* on PE 2: the round PE 0 has quieted */
    uint64_t ack;     /* on PE 0: the round PE 2 has checked */
    uint64_t payload[PAYLOAD];
};

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 300;
    CHECK_OK(gk_init());
    int me = gk_my_pe();
    struct words *w = gk_calloc(1, sizeof(*w));
    CHECK_NOT_NULL(w);
    if (gk_n_pes() < 3) {
        gk_free(w);
        return gk_finalize() == GK_OK ? 77 : 1; /* needs three PEs */
    }
    CHECK_OK(gk_barrier());
    for (uint64_t round = 1; round <= (uint64_t)rounds; round++) {
        if (me == 0) {
            uint64_t data[PAYLOAD];
            for (int i = 0; i < PAYLOAD; i++)
                data[i] = round << 8 | (uint64_t)i;
            for (int i = 0; i < ADDS; i++)
                CHECK_OK(gk_atomic_add_u64(1, &w->counter, 1));
            CHECK_OK(gk_atomic_set_u64(1, &w->set, round));
            CHECK_OK(gk_put_signal(1, w->payload, data, sizeof(data), &w->signal, round,
                                   GK_SIGNAL_SET));
            CHECK_OK(gk_quiet());
            CHECK_OK(gk_atomic_set_u64(2, &w->told, round));
            CHECK_OK(gk_wait_until_u64(&w->ack, GK_CMP_EQ, round));
        } else if (me == 2) {
            CHECK_OK(gk_wait_until_u64(&w->told, GK_CMP_EQ, round));
            struct words seen;
            CHECK_OK(gk_get(1, &seen, w, sizeof(seen)));
            CHECK_EQ_U64(seen.counter, round * ADDS);
            CHECK_EQ_U64(seen.set, round);
            CHECK_EQ_U64(seen.signal, round);
            for (int i = 0; i < PAYLOAD; i++)
                CHECK_EQ_U64(seen.payload[i], round << 8 | (uint64_t)i);
            CHECK_OK(gk_atomic_set_u64(0, &w->ack, round));
        }
    }
    CHECK_OK(gk_barrier());
    gk_free(w);
    return gk_finalize() == GK_OK ? 0 : 1;
}

/*
 * ring.c: the demo. Each PE owns a slot in a symmetric array; a token
 * travels around the ring of PEs with a put and a wait, every PE adds its
 * number to a counter on PE 0 with an atomic, and PE 0 checks the sums.
 *
 *   gasket-run -n 4 ./ring
 */
#include <gasket.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != GK_OK) {                                                \
            fprintf(stderr, "%s failed: %s\n", #call, gk_strerror(status_));   \
            gk_abort(1, #call);                                                \
        }                                                                      \
    } while (0)

int main(void)
{
    CHECK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int laps = 3;

    uint64_t *token = gk_calloc(1, sizeof(uint64_t));   /* written by my left neighbour */
    uint64_t *counter = gk_calloc(1, sizeof(uint64_t)); /* used on PE 0 only */
    if (token == NULL || counter == NULL)
        gk_abort(1, "out of symmetric heap");

    /* The token carries the number of hops so far; PE 0 starts it. */
    int right = (me + 1) % npes;
    for (int lap = 0; lap < laps; lap++) {
        uint64_t hops = (uint64_t)lap * (uint64_t)npes;
        if (me == 0) {
            CHECK(gk_put_u64(right, token, hops + 1));
            CHECK(gk_wait_until_u64(token, GK_CMP_GE, hops + (uint64_t)npes));
        } else {
            CHECK(gk_wait_until_u64(token, GK_CMP_GE, hops + (uint64_t)me));
            CHECK(gk_put_u64(right, token, hops + (uint64_t)me + 1));
        }
    }
    CHECK(gk_atomic_add_u64(0, counter, (uint64_t)me));
    CHECK(gk_barrier());

    if (me == 0) {
        uint64_t expected = (uint64_t)npes * (uint64_t)(npes - 1) / 2;
        printf("ring: %d PEs, token made %d laps (%llu hops), sum of PE numbers %llu "
               "(expected %llu): %s\n",
               npes, laps, (unsigned long long)*token, (unsigned long long)*counter,
               (unsigned long long)expected,
               *counter == expected && *token == (uint64_t)laps * npes ? "ok" : "WRONG");
    }
    int ok = me != 0 || *counter == (uint64_t)npes * (uint64_t)(npes - 1) / 2;
    gk_free(counter);
    gk_free(token);
    CHECK(gk_finalize());
    return ok ? 0 : 1;
}

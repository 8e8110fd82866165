/*
 * dtype_acc_cost_test: a typed accumulate into a PE on another host costs
 * a few messages, not a round trip per element.
 *
 * Each PE adds N UINT64s into every other element of its right
 * neighbour's heap (a vector type, a small descriptor), blocking, and
 * times it against the round trip of one fetch-add to the same PE. Sent
 * in chunks of remote operations, the accumulate costs some N * 8 / 8192
 * posted messages and one quiet, tens of round trips at most; element by
 * element it would cost N round trips. The test demands under N / 16,
 * which leaves a margin of tens against load on either side. The
 * neighbour then checks every element it holds. Where the neighbour is
 * mapped (same host), the times say nothing and only the values are
 * checked.
 */
#include <stdint.h>
#include <stdlib.h>

#include "pe_check.h"

#define N ((size_t)16384)
#define TRIPS 200

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int right = (me + 1) % npes;
    uint64_t *sym = gk_malloc(2 * N * sizeof(uint64_t));
    uint64_t *word = gk_malloc(sizeof(uint64_t));
    uint64_t *src = malloc(N * sizeof(uint64_t));
    CHECK_NOT_NULL(sym);
    CHECK_NOT_NULL(word);
    CHECK_NOT_NULL(src);
    for (size_t i = 0; i < 2 * N; i++)
        sym[i] = i;
    *word = 0;
    for (size_t i = 0; i < N; i++)
        src[i] = (uint64_t)me * 1000003u + i;
    gk_type_t every_other;
    CHECK_OK(gk_type_vector(N, 1, 2, GK_TYPE_UINT64, &every_other));
    CHECK_OK(gk_type_commit(every_other));
    CHECK_OK(gk_barrier());

    double t0 = pe_now();
    for (int i = 0; i < TRIPS; i++) {
        uint64_t old = 0;
        CHECK_OK(gk_atomic_fetch_add_u64(right, word, 1, &old));
    }
    double trip = (pe_now() - t0) / TRIPS;

    t0 = pe_now();
    CHECK_OK(gk_accumulate_typed(right, sym, 1, every_other, src, N, GK_TYPE_UINT64,
                                 GK_OP_SUM));
    CHECK_OK(gk_quiet());
    double acc = pe_now() - t0;
    int mapped = gk_ptr(sym, right) != NULL;
    PE_LOG("%zu elements to PE %d%s: %.3f s, a fetch-add's round trip %.1f us (%.0f of them)\n",
           N, right, mapped ? " (mapped)" : "", acc, trip * 1e6, acc / trip);
    if (!mapped)
        CHECK_LT((uint64_t)(acc / trip), (uint64_t)(N / 16));

    CHECK_OK(gk_barrier());
    int left = (me + npes - 1) % npes;
    for (size_t i = 0; i < 2 * N; i++) {
        uint64_t want = i % 2 == 0 ? i + (uint64_t)left * 1000003u + i / 2 : i;
        CHECK_EQ_U64(sym[i], want);
    }
    CHECK_EQ_U64(*word, (uint64_t)TRIPS);
    CHECK_OK(gk_type_free(&every_other));
    free(src);
    gk_free(word);
    gk_free(sym);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * ucx_lazy_endpoints_test: a PE makes a UCX endpoint only to the peers it
 * sends something (net/ucx.c, "Endpoints"). Run with GK_NET_FORCE_UCX=1 on
 * 8 PEs, so every peer is reached through UCX. Each PE takes part in
 * barriers (whose partners are at distances 1, 2 and 4) and collective
 * allocations (which also talk to PE 0), puts to its right neighbour and
 * adds to its left one; then it holds at most those 5 endpoints of 7,
 * none to the PE at distance 3 (5 where that is PE 0), and the values
 * arrived. Being
 * asked (a remote operation, a small put) makes no endpoint at the target:
 * the answer goes back on the endpoint UCX passes with the request.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/ucx_int.h"
#include "pe_check.h"

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), n = gk_n_pes();
    uint64_t *words = gk_calloc(2, sizeof(uint64_t));
    CHECK_NOT_NULL(words);
    if (n != 8) {
        gk_free(words);
        return gk_finalize() == GK_OK ? 77 : 1; /* the distances need 8 PEs */
    }
    int right = (me + 1) % n, left = (me + n - 1) % n;
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_put_u64(right, &words[0], (uint64_t)me + 1));
    uint64_t old = 0;
    CHECK_OK(gk_atomic_fetch_add_u64(left, &words[1], 10, &old));
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(words[0], (uint64_t)left + 1);
    CHECK_EQ_U64(words[1], 10);
    /* In check mode the race detector reads every member's clock at each
     * collective: an endpoint to every peer. */
    const char *check = getenv("GK_CHECK");
    if (check == NULL || strcmp(check, "1") != 0) {
        CHECK_LE(atomic_load(&gk__ucx.n_connected), 5);
        int stranger = (me + 3) % n != 0 ? (me + 3) % n : (me + 5) % n;
        CHECK_EQ(atomic_load(&gk__ucx.ucx_peers[stranger].ready), 0);
        CHECK_NULL(gk__ucx.ucx_peers[stranger].ep);
    }
    CHECK_OK(gk_barrier());
    gk_free(words);
    return gk_finalize() == GK_OK ? 0 : 1;
}

/*
 * init_test: start-up and shut-down. Before gk_init nothing is initialized
 * (gk_my_pe -1, gk_n_pes 0, no heap); after it every PE has a distinct
 * number in [0, n) and all agree on n (and on the launcher's GK_SIZE when
 * there is one); a second gk_init says GK_ERR_ALREADY_INIT; gk_finalize
 * ends it all, and a process is one PE, once: gk_init after gk_finalize is
 * an error that says so.
 */
#include <stdlib.h>

#include "pe_check.h"

int main(void)
{
    CHECK_EQ(gk_initialized(), 0);
    CHECK_EQ(gk_my_pe(), -1);
    CHECK_EQ(gk_n_pes(), 0);
    CHECK_EQ(gk_heap_size(), 0);
    CHECK_EQ(gk_heap_free(), 0);
    int x = 0;
    CHECK_NULL(gk_ptr(&x, 0));
    CHECK_NOT_NULL(gk_version());

    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    CHECK_EQ(gk_initialized(), 1);
    CHECK_GE(npes, 1);
    CHECK_TRUE(me >= 0 && me < npes);
    const char *size = getenv("GK_SIZE"), *rank = getenv("GK_RANK");
    if (size != NULL) {
        CHECK_EQ(npes, atoi(size));
        CHECK_NOT_NULL(rank);
        CHECK_EQ(me, atoi(rank));
    } else {
        CHECK_EQ(npes, 1); /* started without gasket-run: one PE */
        CHECK_EQ(me, 0);
    }
    CHECK_GE(gk_heap_size(), (size_t)1 << 20);
    CHECK_EQ(gk_heap_free(), gk_heap_size()); /* nothing allocated yet */

    /* A second gk_init changes nothing, and says why it is refused. */
    CHECK_LOGGED(GK_ERR_ALREADY_INIT, gk_init(), "gk_init", "already initialized");
    CHECK_EQ(gk_my_pe(), me);
    CHECK_EQ(gk_n_pes(), npes);

    /* Every PE registers with PE 0: its number once, and what it thinks n
     * is. PE 0 then sees each number exactly once and one n. */
    uint64_t *seen = gk_calloc((size_t)npes, sizeof(uint64_t));
    int32_t *their_n = gk_calloc((size_t)npes, sizeof(int32_t));
    CHECK_NOT_NULL(seen);
    CHECK_NOT_NULL(their_n);
    CHECK_OK(gk_atomic_add_u64(0, &seen[me], 1));
    CHECK_OK(gk_put(0, &their_n[me], &(int32_t){(int32_t)npes}, sizeof(int32_t)));
    CHECK_OK(gk_barrier());
    if (me == 0) {
        for (int pe = 0; pe < npes; pe++) {
            CHECK_EQ(seen[pe], 1);
            CHECK_EQ(their_n[pe], npes);
        }
    }
    CHECK_OK(gk_barrier());
    gk_free(their_n);
    gk_free(seen);

    CHECK_OK(gk_finalize());
    CHECK_EQ(gk_initialized(), 0);
    CHECK_EQ(gk_my_pe(), -1);
    CHECK_EQ(gk_n_pes(), 0);
    CHECK_EQ(gk_heap_free(), 0);

    /* Once per process: a second life is refused, with a message. */
    CHECK_LOGGED(GK_ERR_ALREADY_INIT, gk_init(), "gk_init after gk_finalize");
    CHECK_EQ(gk_initialized(), 0);
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_barrier(), "gk_barrier", "gk_init");
    printf("init_test: PE %d of %d ok\n", me, npes);
    return 0;
}

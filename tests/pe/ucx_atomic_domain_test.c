/*
 * ucx_atomic_domain_test: one atomicity domain per word (net.h). PE 0's
 * counters are hammered at once by PE 0 itself, with its CPU atomics on
 * its own memory, and by every other PE through the UCX transport
 * (GK_NET_FORCE_UCX=1, set by tests/pe/CMakeLists.txt), whose atomics UCX
 * must perform as CPU atomics at PE 0 (its atomic mode "cpu"). No update
 * may be lost: the totals are exact, and the old values that fetch-add
 * returned on a 64-bit counter are all distinct.
 *
 * PE 0 keeps updating until every other PE has finished, so its updates
 * overlap theirs whatever the scheduling.
 */
#include "pe_check.h"

#define REMOTE_OPS 3000 /* per other PE, per counter */
/* PE 0 keeps within this many updates per update the others made (plus
 * a start), so that its updates are spread over theirs. */
#define OWNER_RATIO 16
#define OWNER_START 1000

/* One update of each of PE 0's counters, from whichever PE calls it. */
static void update_counters(uint64_t *c, uint32_t *c32, uint64_t *seen, size_t max_olds)
{
    uint64_t old = 0;
    CHECK_OK(gk_atomic_fetch_add_u64(0, &c[0], 1, &old));
    if (old >= max_olds)
        PE_FAIL("fetch-add returned %llu, past the %zu bits kept", (unsigned long long)old,
                max_olds);
    CHECK_OK(gk_atomic_fetch_or_u64(0, &seen[old / 64], 1ULL << (old % 64), &old));
    CHECK_OK(gk_atomic_add_u64(0, &c[1], 3));
    uint64_t cur = 0;
    CHECK_OK(gk_atomic_fetch_u64(0, &c[2], &cur));
    for (;;) {
        CHECK_OK(gk_atomic_compare_swap_u64(0, &c[2], cur, cur + 1, &old));
        if (old == cur)
            break;
        cur = old;
    }
    CHECK_OK(gk_atomic_add_u32(0, &c32[0], 1));
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    /* [0] fetch-add counter, [1] add counter, [2] CAS counter, [3] done. */
    uint64_t *c = gk_calloc(4, sizeof(uint64_t));
    uint32_t *c32 = gk_calloc(2, sizeof(uint32_t));
    /* Which old values fetch-add returned: a bit each, on PE 0. */
    size_t max_olds = (size_t)(OWNER_RATIO + 1) * REMOTE_OPS * (size_t)npes + OWNER_START;
    uint64_t *seen = gk_calloc(max_olds / 64 + 1, sizeof(uint64_t));
    CHECK_TRUE(c != NULL && c32 != NULL && seen != NULL);
    for (int pe = 0; pe < npes; pe++)
        if (pe != me)
            CHECK_NULL(gk_ptr(c, pe)); /* every other PE through UCX */
    CHECK_OK(gk_barrier());

    uint64_t owner_ops = 0;
    if (me != 0) {
        for (int i = 0; i < REMOTE_OPS; i++) {
            update_counters(c, c32, seen, max_olds);
        }
        CHECK_OK(gk_quiet());
        CHECK_OK(gk_atomic_add_u64(0, &c[3], 1));
        CHECK_OK(gk_quiet());
    } else {
        /* The owner, on its own words, until the others are done. */
        uint64_t done = 0;
        while (done < (uint64_t)npes - 1) {
            /* The others' operations need this PE's progress only where
             * it has no progress thread; gk_poll drives it then. */
            CHECK_OK(gk_poll());
            CHECK_OK(gk_atomic_fetch_u64(0, &c[3], &done));
            uint64_t now = 0;
            CHECK_OK(gk_atomic_fetch_u64(0, &c[2], &now));
            if (owner_ops >= OWNER_RATIO * (now - owner_ops) + OWNER_START)
                continue;
            update_counters(c, c32, seen, max_olds);
            owner_ops++;
        }
    }
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_broadcast(&owner_ops, &owner_ops, sizeof(owner_ops), 0));
    uint64_t total = owner_ops + (uint64_t)(npes - 1) * REMOTE_OPS;
    if (me == 0) {
        PE_LOG("%llu updates of each counter by PE 0, %d by each of %d others",
               (unsigned long long)owner_ops, REMOTE_OPS, npes - 1);
        CHECK_EQ_U64(c[0], total);
        CHECK_EQ_U64(c[1], 3 * total);
        CHECK_EQ_U64(c[2], total);
        CHECK_EQ_U64(c32[0], total);
        CHECK_EQ(c32[1], 0u); /* the word beside the 32-bit counter */
        for (uint64_t v = 0; v < total; v++)
            if (!(seen[v / 64] & (1ULL << (v % 64))))
                PE_FAIL("no fetch-add returned %llu: two returned the same old value (a lost "
                        "update)",
                        (unsigned long long)v);
    }
    CHECK_OK(gk_barrier());
    gk_free(seen);
    gk_free(c32);
    gk_free(c);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("ucx_atomic_domain_test: %d PEs ok\n", npes);
    return 0;
}

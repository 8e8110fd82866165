/*
 * symmetric_data_test: with GK_SYMMETRIC_DATA=1 a native program's globals
 * are symmetric: initialized data keeps its value, and puts, gets,
 * atomics, waits and gk_ptr reach another PE's static variables.
 */
#include <gasket.h>

#include "pe_check.h"

static uint64_t initialized = 42; /* data */
static uint64_t slots[16];        /* bss */
static uint64_t counter;
static uint64_t flag;

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), n = gk_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    uint64_t got = 0;
    CHECK_OK(gk_get(right, &got, &initialized, sizeof(got)));
    CHECK_EQ_U64(got, 42);
    uint64_t mine = (uint64_t)me + 100;
    CHECK_OK(gk_put(right, &slots[me % 16], &mine, sizeof(mine)));
    uint64_t old = 0;
    CHECK_OK(gk_atomic_fetch_add_u64(0, &counter, 1, &old));
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(slots[left % 16], (uint64_t)left + 100);
    if (me == 0)
        CHECK_EQ_U64(counter, (uint64_t)n);
    CHECK_OK(gk_put_u64(right, &flag, 1));
    CHECK_OK(gk_wait_until_u64(&flag, GK_CMP_EQ, 1));
    uint64_t *peer = gk_ptr(&initialized, right);
    if (peer != NULL)
        CHECK_EQ_U64(*peer, 42);
    CHECK_OK(gk_barrier());
    return gk_finalize() == GK_OK ? 0 : 1;
}

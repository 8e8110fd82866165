/*
 * heap_test: the symmetric heap. Every allocation call returns the same
 * offset on every PE (each PE writes its offsets, measured from its first
 * block, into PE 0's table);
 * calloc zeroes; align aligns; realloc keeps contents; free bytes go down
 * and come back; gk_ptr gives a usable pointer to every PE's copy.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

#define ALLOCS 6

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    CHECK_TRUE(gk_initialized());
    CHECK_TRUE(me >= 0 && me < npes);
    size_t free0 = gk_heap_free();
    CHECK_TRUE(gk_heap_size() >= free0 && free0 > 0);

    uintptr_t *table = gk_calloc((size_t)npes * ALLOCS, sizeof(uintptr_t));
    CHECK_TRUE(table != NULL);
    void *blocks[ALLOCS];
    blocks[0] = gk_malloc(100);
    blocks[1] = gk_calloc(1000, 8);
    blocks[2] = gk_align(4096, 10);
    blocks[3] = gk_align(1 << 20, 1);
    blocks[4] = gk_malloc(1 << 20);
    blocks[5] = gk_realloc(NULL, 77);
    for (int i = 0; i < ALLOCS; i++) {
        CHECK_TRUE(blocks[i] != NULL);
        uintptr_t addr = (uintptr_t)blocks[i] - (uintptr_t)table;
        CHECK_OK(gk_put(0, &table[me * ALLOCS + i], &addr, sizeof(addr)));
    }
    CHECK_TRUE((uintptr_t)blocks[2] % 4096 == 0);
    CHECK_TRUE((uintptr_t)blocks[3] % (1 << 20) == 0);
    for (int i = 0; i < 1000; i++)
        CHECK_EQ_U64(((uint64_t *)blocks[1])[i], 0);
    CHECK_TRUE(gk_heap_free() < free0);
    CHECK_OK(gk_barrier());
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            for (int i = 0; i < ALLOCS; i++)
                CHECK_EQ_U64(table[pe * ALLOCS + i], table[i]);

    /* realloc keeps my contents, also when it has to move. */
    memset(blocks[0], 0x5a, 100);
    char *grown = gk_realloc(blocks[0], 1 << 16);
    CHECK_TRUE(grown != NULL);
    for (int i = 0; i < 100; i++)
        CHECK_EQ_U64((unsigned char)grown[i], 0x5a);
    blocks[0] = grown;

    /* gk_ptr: write my number into every PE's copy of my slot, read back. */
    uint64_t *slots = gk_calloc((size_t)npes, sizeof(uint64_t));
    for (int pe = 0; pe < npes; pe++) {
        uint64_t *theirs = gk_ptr(&slots[me], pe);
        CHECK_TRUE(theirs != NULL);
        *theirs = 1000 + (uint64_t)me;
    }
    CHECK_OK(gk_barrier());
    for (int pe = 0; pe < npes; pe++)
        CHECK_EQ_U64(slots[pe], 1000 + (uint64_t)pe);
    int on_stack = 0;
    CHECK_TRUE(gk_ptr(&on_stack, 0) == NULL);
    CHECK_TRUE(gk_ptr(slots, npes) == NULL);
    CHECK_TRUE(gk_ptr(slots, -1) == NULL);
    CHECK_TRUE(gk_ptr(slots, me) == (void *)slots);

    gk_free(slots);
    for (int i = 0; i < ALLOCS; i++)
        gk_free(blocks[i]);
    gk_free(table);
    CHECK_EQ_U64(gk_heap_free(), free0);
    CHECK_TRUE(gk_malloc(0) == NULL);
    gk_free(NULL);
    CHECK_OK(gk_finalize());
    CHECK_TRUE(!gk_initialized());
    return 0;
}

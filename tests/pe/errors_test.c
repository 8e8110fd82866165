/*
 * errors_test: bad input gives the documented code, and the job goes on.
 * Out-of-bounds puts, gets and atomics (just past the heap, a stack
 * address, a length that overflows), bad PE numbers, NULL buffers,
 * misaligned atomics and words, a bad comparison, heap exhaustion (run with
 * GK_HEAP_SIZE=1M), calls before gk_init. errors_expect.sh checks the
 * messages that go with them.
 */
#include <stdint.h>

#include "pe_check.h"

int main(void)
{
    uint64_t before = 0;
    CHECK_STATUS(gk_put(0, &before, &before, 8), GK_ERR_NOT_INIT);
    CHECK_OK(gk_init());
    CHECK_STATUS(gk_init(), GK_ERR_ALREADY_INIT);
    int me = gk_my_pe(), npes = gk_n_pes();
    int other = (me + 1) % npes;
    size_t heap = gk_heap_size();
    unsigned char *block = gk_malloc(4096);
    uint64_t *word = gk_calloc(2, sizeof(uint64_t));
    /* The first block starts the heap, so this is one past its last byte. */
    unsigned char *heap_end = block + heap;
    uint64_t local[4] = {0}, old;

    /* Out of bounds: just past the end, a stack address, an overflowing length. */
    CHECK_STATUS(gk_put(other, heap_end - 8, local, 16), GK_ERR_RANGE);
    CHECK_STATUS(gk_get(other, local, heap_end, 1), GK_ERR_RANGE);
    CHECK_STATUS(gk_put(other, local, local, 8), GK_ERR_RANGE);
    CHECK_STATUS(gk_put_nbi(other, block, local, SIZE_MAX), GK_ERR_RANGE);
    CHECK_STATUS(gk_get_nb(other, local, block + 8, SIZE_MAX - 4, &(gk_handle_t){0}), GK_ERR_RANGE);
    CHECK_STATUS(gk_atomic_fetch_add_u64(other, (uint64_t *)(void *)local, 1, &old), GK_ERR_RANGE);
    CHECK_STATUS(gk_put_u32(other, (uint32_t *)(void *)heap_end, 1), GK_ERR_RANGE);
    /* The last bytes of the heap are fine. */
    CHECK_OK(gk_put(other, heap_end - 8, local, 8));
    CHECK_OK(gk_put(other, heap_end, local, 0));
    CHECK_OK(gk_put(other, NULL, NULL, 0));

    /* Bad PE numbers. */
    CHECK_STATUS(gk_put(npes, block, local, 8), GK_ERR_PE);
    CHECK_STATUS(gk_get(-1, local, block, 8), GK_ERR_PE);
    CHECK_STATUS(gk_atomic_add_u64(npes + 100, word, 1), GK_ERR_PE);

    /* NULL buffers with bytes to move. */
    CHECK_STATUS(gk_put(other, block, NULL, 8), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_get(other, NULL, block, 8), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_atomic_fetch_u64(other, word, NULL), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_put_nb(other, block, local, 8, NULL), GK_ERR_INVALID_ARG);

    /* Misaligned atomics and value puts. */
    CHECK_STATUS(gk_atomic_fetch_add_u64(other, (uint64_t *)(void *)(block + 4), 1, &old),
                 GK_ERR_ALIGN);
    CHECK_STATUS(gk_atomic_compare_swap_i32(other, (int32_t *)(void *)(block + 2), 0, 1,
                                            &(int32_t){0}),
                 GK_ERR_ALIGN);
    CHECK_STATUS(gk_put_u16(other, (uint16_t *)(void *)(block + 1), 1), GK_ERR_ALIGN);

    /* Waits: a bad comparison, a word outside the heap or misaligned. */
    CHECK_STATUS(gk_wait_until_u64(word, (gk_cmp_t)9, 0), GK_ERR_INVALID_ARG);
    CHECK_STATUS(gk_wait_until_u64(local, GK_CMP_EQ, 0), GK_ERR_RANGE);
    CHECK_STATUS(gk_test_u32((uint32_t *)(void *)(block + 1), GK_CMP_EQ, 0, &(int){0}),
                 GK_ERR_ALIGN);

    /* A handle gasket never issued. */
    gk_handle_t forged = {42};
    CHECK_STATUS(gk_wait(&forged), GK_ERR_INVALID_ARG);

    /* Heap exhaustion (GK_HEAP_SIZE=1M): NULL, and the job goes on. */
    CHECK_TRUE(gk_malloc(2 << 20) == NULL);
    CHECK_TRUE(gk_calloc(SIZE_MAX / 2, 4) == NULL);
    CHECK_TRUE(gk_align(3, 64) == NULL);
    void *again = gk_malloc(1024);
    CHECK_TRUE(again != NULL);
    CHECK_OK(gk_put(other, again, local, 8));

    CHECK_OK(gk_barrier());
    gk_free(again);
    gk_free(word);
    gk_free(block);
    CHECK_OK(gk_finalize());
    CHECK_STATUS(gk_barrier(), GK_ERR_NOT_INIT);
    CHECK_STATUS(gk_init(), GK_ERR_ALREADY_INIT);
    fprintf(stderr, "errors_test: all error codes as documented\n");
    return 0;
}

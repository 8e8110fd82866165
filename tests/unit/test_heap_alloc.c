/* Unit tests of the symmetric heap's allocator (src/mem/heap_alloc.h). */
#include "gk_test.h"
#include "gasket.h"
#include "mem/heap_alloc.h"

#define GRAIN GK__HEAP_ALLOC_GRAIN

GK_TEST(first_fit_and_grain)
{
    struct gk__heap_alloc h;
    ASSERT_EQ(gk__heap_alloc_init(&h, 4096), GK_OK);
    size_t a, b, c;
    ASSERT_EQ(gk__heap_alloc_take(&h, 1, 0, &a), GK_OK);
    ASSERT_EQ(gk__heap_alloc_take(&h, GRAIN + 1, 0, &b), GK_OK);
    ASSERT_EQ(gk__heap_alloc_take(&h, 10, 0, &c), GK_OK);
    ASSERT_EQ(a, 0);
    ASSERT_EQ(b, GRAIN);
    ASSERT_EQ(c, 3 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 4096 - 4 * GRAIN);
    size_t size;
    ASSERT_EQ(gk__heap_alloc_block_size(&h, b, &size), GK_OK);
    ASSERT_EQ(size, 2 * GRAIN);
    gk__heap_alloc_fini(&h);
}

GK_TEST(free_coalesces_and_reuses)
{
    struct gk__heap_alloc h;
    ASSERT_EQ(gk__heap_alloc_init(&h, 16 * GRAIN), GK_OK);
    size_t off[4];
    for (int i = 0; i < 4; i++)
        ASSERT_EQ(gk__heap_alloc_take(&h, GRAIN, 0, &off[i]), GK_OK);
    ASSERT_EQ(gk__heap_alloc_give(&h, off[1]), GK_OK);
    ASSERT_EQ(gk__heap_alloc_give(&h, off[2]), GK_OK);
    /* The two neighbours merged: a two-grain block fits where they were. */
    size_t two;
    ASSERT_EQ(gk__heap_alloc_take(&h, 2 * GRAIN, 0, &two), GK_OK);
    ASSERT_EQ(two, off[1]);
    ASSERT_EQ(gk__heap_alloc_give(&h, off[0]), GK_OK);
    ASSERT_EQ(gk__heap_alloc_give(&h, two), GK_OK);
    ASSERT_EQ(gk__heap_alloc_give(&h, off[3]), GK_OK);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 16 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 16 * GRAIN);
    ASSERT_EQ(h.free_list.count, 1);
    gk__heap_alloc_fini(&h);
}

GK_TEST(alignment)
{
    struct gk__heap_alloc h;
    ASSERT_EQ(gk__heap_alloc_init(&h, 1 << 20), GK_OK);
    size_t a, b;
    ASSERT_EQ(gk__heap_alloc_take(&h, 8, 0, &a), GK_OK);
    ASSERT_EQ(gk__heap_alloc_take(&h, 8, 4096, &b), GK_OK);
    ASSERT_EQ(b % 4096, 0);
    ASSERT_NE(b, a);
    /* The hole before the aligned block is still usable. */
    size_t c;
    ASSERT_EQ(gk__heap_alloc_take(&h, 8, 0, &c), GK_OK);
    ASSERT_TRUE(c < b);
    ASSERT_EQ(gk__heap_alloc_take(&h, 8, 3, &c), GK_ERR_INVALID_ARG);
    gk__heap_alloc_fini(&h);
}

GK_TEST(exhaustion_and_bad_frees)
{
    struct gk__heap_alloc h;
    ASSERT_EQ(gk__heap_alloc_init(&h, 8 * GRAIN), GK_OK);
    size_t a, b;
    ASSERT_EQ(gk__heap_alloc_take(&h, 9 * GRAIN, 0, &a), GK_ERR_NOMEM);
    ASSERT_EQ(gk__heap_alloc_take(&h, 0, 0, &a), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_take(&h, (size_t)-1, 0, &a), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_take(&h, 8 * GRAIN, 0, &a), GK_OK);
    ASSERT_EQ(gk__heap_alloc_take(&h, 1, 0, &b), GK_ERR_NOMEM);
    ASSERT_EQ(gk__heap_alloc_give(&h, a + GRAIN), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_give(&h, a), GK_OK);
    ASSERT_EQ(gk__heap_alloc_give(&h, a), GK_ERR_INVALID_ARG); /* double free */
    gk__heap_alloc_fini(&h);
}

GK_TEST(resize_in_place)
{
    struct gk__heap_alloc h;
    ASSERT_EQ(gk__heap_alloc_init(&h, 8 * GRAIN), GK_OK);
    size_t a, b, size;
    ASSERT_EQ(gk__heap_alloc_take(&h, GRAIN, 0, &a), GK_OK);
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, 4 * GRAIN), GK_OK);
    ASSERT_EQ(gk__heap_alloc_block_size(&h, a, &size), GK_OK);
    ASSERT_EQ(size, 4 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_take(&h, GRAIN, 0, &b), GK_OK);
    ASSERT_EQ(b, 4 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, 5 * GRAIN), GK_ERR_NOMEM); /* b is in the way */
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, GRAIN), GK_OK);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 6 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_resize(&h, a + 1, GRAIN), GK_ERR_INVALID_ARG);
    gk__heap_alloc_fini(&h);
}

/* Random takes and gives against a model: no two live blocks overlap, all
 * lie inside the heap, and the free count always adds up. */
GK_TEST(random_against_model)
{
    enum { HEAP = 1 << 16, LIVE = 64 };
    struct gk__heap_alloc h;
    ASSERT_EQ(gk__heap_alloc_init(&h, HEAP), GK_OK);
    size_t off[LIVE], len[LIVE];
    int live[LIVE] = {0};
    unsigned seed = 12345;
    for (int step = 0; step < 20000; step++) {
        seed = seed * 1103515245u + 12345u;
        int slot = (int)((seed >> 8) % LIVE);
        if (live[slot]) {
            ASSERT_EQ(gk__heap_alloc_give(&h, off[slot]), GK_OK);
            live[slot] = 0;
            continue;
        }
        size_t want = 1 + (seed >> 16) % 3000;
        size_t align = (seed & 1) ? 0 : (size_t)1 << (6 + (seed >> 3) % 6);
        if (gk__heap_alloc_take(&h, want, align, &off[slot]) != GK_OK)
            continue;
        ASSERT_TRUE(align == 0 || off[slot] % align == 0);
        ASSERT_TRUE(off[slot] + want <= HEAP);
        ASSERT_EQ(gk__heap_alloc_block_size(&h, off[slot], &len[slot]), GK_OK);
        for (int other = 0; other < LIVE; other++)
            if (live[other])
                ASSERT_TRUE(off[slot] + len[slot] <= off[other] ||
                            off[other] + len[other] <= off[slot]);
        live[slot] = 1;
        size_t used = 0;
        for (int i = 0; i < LIVE; i++)
            used += live[i] ? len[i] : 0;
        ASSERT_EQ(gk__heap_alloc_free_bytes(&h), HEAP - used);
    }
    gk__heap_alloc_fini(&h);
}

int main(void)
{
    return gk_test_run_all();
}

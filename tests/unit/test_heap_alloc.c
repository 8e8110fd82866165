/*
 * Unit tests of the symmetric heap's allocator (src/mem/heap_alloc.h): pure
 * bookkeeping over offsets, so every case can check exact offsets.
 *
 * The allocator is first-fit over coalesced free extents, so the block it
 * returns is the lowest suitably aligned run of free grains that is long
 * enough. The random test keeps a model of exactly that (one flag per
 * grain) and checks every offset, every code, the free bytes, the largest
 * free extent and the free and used lists themselves against it.
 *
 * The agreement of team-scoped allocation (core/symheap.c) uses two more
 * operations: the first fit at or above an offset, and a take at an
 * offset exactly, with the block's owner; the model checks those too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gasket.h"
#include "gk_test.h"
#include "mem/heap_alloc.h"

#define GRAIN GK__HEAP_ALLOC_GRAIN

static struct gk__heap_alloc heap_new(size_t size)
{
    struct gk__heap_alloc h;
    ASSERT_EQ(gk__heap_alloc_init(&h, size), GK_OK);
    return h;
}

static size_t take(struct gk__heap_alloc *h, size_t size, size_t align)
{
    size_t off = (size_t)-1;
    int status = gk__heap_alloc_take(h, size, align, &off);
    if (status != GK_OK)
        GK_TEST_FAIL("take(%zu, align %zu) returned %d (%s)", size, align, status,
                     gk_strerror(status));
    return off;
}

static size_t block_size(const struct gk__heap_alloc *h, size_t off)
{
    struct gk__extent block = {0, 0, 0};
    ASSERT_EQ(gk__heap_alloc_block(h, off, &block), GK_OK);
    ASSERT_EQ(block.offset, off);
    return block.size;
}

GK_TEST(init_rounds_down_to_the_grain)
{
    struct gk__heap_alloc h = heap_new(10 * GRAIN + 17);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 10 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 10 * GRAIN);
    ASSERT_EQ(take(&h, 10 * GRAIN, 0), 0);
    size_t off;
    ASSERT_EQ(gk__heap_alloc_take(&h, 1, 0, &off), GK_ERR_NOMEM);
    gk__heap_alloc_fini(&h);

    h = heap_new(GRAIN - 1); /* nothing usable */
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 0);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 0);
    ASSERT_EQ(gk__heap_alloc_take(&h, 1, 0, &off), GK_ERR_NOMEM);
    gk__heap_alloc_fini(&h);
}

GK_TEST(take_is_first_fit_in_grains)
{
    struct gk__heap_alloc h = heap_new(4096);
    ASSERT_EQ(take(&h, 1, 0), 0);
    ASSERT_EQ(take(&h, GRAIN + 1, 0), GRAIN);
    ASSERT_EQ(take(&h, 10, 0), 3 * GRAIN);
    ASSERT_EQ(take(&h, GRAIN, 0), 4 * GRAIN);
    ASSERT_EQ(block_size(&h, 0), GRAIN);
    ASSERT_EQ(block_size(&h, GRAIN), 2 * GRAIN);
    ASSERT_EQ(block_size(&h, 3 * GRAIN), GRAIN);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 4096 - 5 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 4096 - 5 * GRAIN);
    gk__heap_alloc_fini(&h);
}

GK_TEST(freed_hole_is_reused_first)
{
    struct gk__heap_alloc h = heap_new(64 * GRAIN);
    size_t a = take(&h, GRAIN, 0), b = take(&h, 4 * GRAIN, 0), c = take(&h, GRAIN, 0);
    ASSERT_EQ(gk__heap_alloc_give(&h, b), GK_OK);
    /* Too big for the hole: goes after c. */
    ASSERT_EQ(take(&h, 5 * GRAIN, 0), c + GRAIN);
    /* Fits: goes into the hole, at its start, and the rest stays a hole. */
    ASSERT_EQ(take(&h, GRAIN, 0), b);
    ASSERT_EQ(take(&h, 3 * GRAIN, 0), b + GRAIN);
    ASSERT_EQ(take(&h, GRAIN, 0), c + 6 * GRAIN);
    (void)a;
    gk__heap_alloc_fini(&h);
}

GK_TEST(give_coalesces_with_both_neighbours)
{
    struct gk__heap_alloc h = heap_new(16 * GRAIN);
    size_t off[5];
    for (int i = 0; i < 5; i++)
        off[i] = take(&h, GRAIN, 0);
    /* Free 1 and 3, then 2: the three merge into one hole of three grains. */
    ASSERT_EQ(gk__heap_alloc_give(&h, off[1]), GK_OK);
    ASSERT_EQ(gk__heap_alloc_give(&h, off[3]), GK_OK);
    ASSERT_EQ(h.free_list.count, 3); /* [1], [3], the tail */
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 11 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_give(&h, off[2]), GK_OK);
    ASSERT_EQ(h.free_list.count, 2);
    ASSERT_EQ(h.free_list.items[0].offset, off[1]);
    ASSERT_EQ(h.free_list.items[0].size, 3 * GRAIN);
    ASSERT_EQ(take(&h, 3 * GRAIN, 0), off[1]);
    ASSERT_EQ(gk__heap_alloc_give(&h, off[1]), GK_OK);
    /* Free 4: merges with the hole before and the tail after. */
    ASSERT_EQ(gk__heap_alloc_give(&h, off[4]), GK_OK);
    ASSERT_EQ(h.free_list.count, 1);
    ASSERT_EQ(h.free_list.items[0].offset, off[1]);
    /* Free 0: everything is one extent again. */
    ASSERT_EQ(gk__heap_alloc_give(&h, off[0]), GK_OK);
    ASSERT_EQ(h.free_list.count, 1);
    ASSERT_EQ(h.used_list.count, 0);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 16 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 16 * GRAIN);
    ASSERT_EQ(take(&h, 16 * GRAIN, 0), 0);
    gk__heap_alloc_fini(&h);
}

GK_TEST(alignment_is_honoured_and_the_lead_stays_usable)
{
    struct gk__heap_alloc h = heap_new(1 << 22);
    ASSERT_EQ(take(&h, 8, 0), 0);
    /* Alignments below the grain mean the grain. */
    ASSERT_EQ(take(&h, 8, 1), GRAIN);
    ASSERT_EQ(take(&h, 8, 8), 2 * GRAIN);
    ASSERT_EQ(take(&h, 8, GRAIN), 3 * GRAIN);
    size_t b = take(&h, 8, 4096);
    ASSERT_EQ(b, 4096);
    size_t c = take(&h, 100, 65536);
    ASSERT_EQ(c, 65536);
    /* The holes before the aligned blocks are still first in line. */
    ASSERT_EQ(take(&h, 8, 0), 4 * GRAIN);
    ASSERT_EQ(take(&h, 4096 - 5 * GRAIN, 0), 5 * GRAIN);
    ASSERT_EQ(take(&h, 8, 0), 4096 + GRAIN);
    for (size_t align = 1; align <= (1 << 20); align <<= 1) {
        size_t off = take(&h, 1, align);
        ASSERT_EQ(off % align, 0);
    }
    gk__heap_alloc_fini(&h);
}

GK_TEST(bad_arguments_change_nothing)
{
    struct gk__heap_alloc h = heap_new(8 * GRAIN);
    size_t off = 12345;
    size_t a = take(&h, GRAIN, 0);
    ASSERT_EQ(gk__heap_alloc_take(&h, 0, 0, &off), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_take(&h, SIZE_MAX, 0, &off), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_take(&h, SIZE_MAX - GRAIN + 2, 0, &off), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_take(&h, 8, 3, &off), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_take(&h, 8, 96, &off), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_take(&h, 8, SIZE_MAX, &off), GK_ERR_INVALID_ARG);
    /* A huge but valid alignment fits nowhere (offset 0 is taken). */
    ASSERT_EQ(gk__heap_alloc_take(&h, 8, (size_t)1 << 63, &off), GK_ERR_NOMEM);
    ASSERT_EQ(off, 12345); /* output written only on success */
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 7 * GRAIN);
    ASSERT_EQ(h.used_list.count, 1);
    ASSERT_EQ(block_size(&h, a), GRAIN);
    gk__heap_alloc_fini(&h);
}

GK_TEST(exhaustion_is_nomem)
{
    struct gk__heap_alloc h = heap_new(8 * GRAIN);
    size_t off = 777;
    ASSERT_EQ(gk__heap_alloc_take(&h, 8 * GRAIN + 1, 0, &off), GK_ERR_NOMEM);
    ASSERT_EQ(off, 777);
    size_t blocks[8];
    for (int i = 0; i < 8; i++)
        blocks[i] = take(&h, 1, 0);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 0);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 0);
    ASSERT_EQ(gk__heap_alloc_take(&h, 1, 0, &off), GK_ERR_NOMEM);
    /* Fragmented: 4 free grains, but never 2 in a row. */
    for (int i = 0; i < 8; i += 2)
        ASSERT_EQ(gk__heap_alloc_give(&h, blocks[i]), GK_OK);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 4 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), GRAIN);
    ASSERT_EQ(gk__heap_alloc_take(&h, 2 * GRAIN, 0, &off), GK_ERR_NOMEM);
    ASSERT_EQ(take(&h, GRAIN, 0), blocks[0]);
    gk__heap_alloc_fini(&h);
}

GK_TEST(give_of_unknown_offsets_is_invalid)
{
    struct gk__heap_alloc h = heap_new(8 * GRAIN);
    size_t a = take(&h, 2 * GRAIN, 0);
    ASSERT_EQ(gk__heap_alloc_give(&h, a + GRAIN), GK_ERR_INVALID_ARG); /* interior */
    ASSERT_EQ(gk__heap_alloc_give(&h, a + 1), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_give(&h, 4 * GRAIN), GK_ERR_INVALID_ARG); /* free space */
    ASSERT_EQ(gk__heap_alloc_give(&h, 100 * GRAIN),
              GK_ERR_INVALID_ARG); /* past the end */
    ASSERT_EQ(gk__heap_alloc_give(&h, SIZE_MAX), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 6 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_give(&h, a), GK_OK);
    ASSERT_EQ(gk__heap_alloc_give(&h, a), GK_ERR_INVALID_ARG); /* double free */
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 8 * GRAIN);
    struct gk__extent block = {1, 99, 2};
    ASSERT_EQ(gk__heap_alloc_block(&h, a, &block), GK_ERR_INVALID_ARG);
    ASSERT_EQ(block.size, 99);
    gk__heap_alloc_fini(&h);
}

GK_TEST(holding_finds_the_block_of_any_byte)
{
    struct gk__heap_alloc h = heap_new(8 * GRAIN);
    size_t a = take(&h, 2 * GRAIN, 0);
    size_t b = take(&h, GRAIN, 0);
    size_t c = take(&h, GRAIN, 0);
    ASSERT_EQ(gk__heap_alloc_give(&h, b), GK_OK); /* a hole between a and c */
    struct gk__extent block = {1, 99, 2};
    ASSERT_EQ(gk__heap_alloc_holding(&h, a, &block), GK_OK);
    ASSERT_EQ(block.offset, a);
    ASSERT_EQ(block.size, 2 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_holding(&h, a + 2 * GRAIN - 1, &block), GK_OK); /* last byte */
    ASSERT_EQ(block.offset, a);
    ASSERT_EQ(gk__heap_alloc_holding(&h, c + 5, &block), GK_OK);
    ASSERT_EQ(block.offset, c);
    block = (struct gk__extent){1, 99, 2};
    ASSERT_EQ(gk__heap_alloc_holding(&h, b, &block), GK_ERR_INVALID_ARG); /* freed */
    ASSERT_EQ(gk__heap_alloc_holding(&h, b + GRAIN - 1, &block), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_holding(&h, c + GRAIN, &block), GK_ERR_INVALID_ARG); /* never */
    ASSERT_EQ(gk__heap_alloc_holding(&h, SIZE_MAX, &block), GK_ERR_INVALID_ARG);
    ASSERT_EQ(block.size, 99); /* written only on success */
    gk__heap_alloc_fini(&h);
}

GK_TEST(resize_grows_and_shrinks_in_place)
{
    struct gk__heap_alloc h = heap_new(8 * GRAIN);
    size_t a = take(&h, GRAIN, 0);
    /* Grow into the free space after it. */
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, 3 * GRAIN + 1), GK_OK);
    ASSERT_EQ(block_size(&h, a), 4 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 4 * GRAIN);
    size_t b = take(&h, GRAIN, 0);
    ASSERT_EQ(b, 4 * GRAIN);
    /* b is in the way: no growth, nothing changes. */
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, 5 * GRAIN), GK_ERR_NOMEM);
    ASSERT_EQ(block_size(&h, a), 4 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 3 * GRAIN);
    /* Same size (after rounding) is a no-op. */
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, 4 * GRAIN - 5), GK_OK);
    ASSERT_EQ(block_size(&h, a), 4 * GRAIN);
    /* Shrink: the tail is free again and the first fit finds it. */
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, 10), GK_OK);
    ASSERT_EQ(block_size(&h, a), GRAIN);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 6 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 3 * GRAIN);
    ASSERT_EQ(take(&h, 3 * GRAIN, 0), GRAIN);
    /* b grows to the very end, exactly consuming the hole after it. */
    ASSERT_EQ(gk__heap_alloc_resize(&h, b, 4 * GRAIN), GK_OK);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 0);
    ASSERT_EQ(h.free_list.count, 0);
    ASSERT_EQ(gk__heap_alloc_resize(&h, b, 5 * GRAIN), GK_ERR_NOMEM);
    /* Shrinking b frees its tail, which coalesces with nothing (end). */
    ASSERT_EQ(gk__heap_alloc_resize(&h, b, GRAIN), GK_OK);
    ASSERT_EQ(h.free_list.count, 1);
    ASSERT_EQ(gk__heap_alloc_largest_free(&h), 3 * GRAIN);
    gk__heap_alloc_fini(&h);
}

GK_TEST(resize_shrink_coalesces_with_the_hole_after)
{
    struct gk__heap_alloc h = heap_new(16 * GRAIN);
    size_t a = take(&h, 4 * GRAIN, 0), b = take(&h, 2 * GRAIN, 0);
    take(&h, GRAIN, 0);
    ASSERT_EQ(gk__heap_alloc_give(&h, b), GK_OK);
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, GRAIN), GK_OK);
    /* [a: 1][free: 3 + 2][c][free: 9] */
    ASSERT_EQ(h.free_list.count, 2);
    ASSERT_EQ(h.free_list.items[0].offset, GRAIN);
    ASSERT_EQ(h.free_list.items[0].size, 5 * GRAIN);
    ASSERT_EQ(take(&h, 5 * GRAIN, 0), GRAIN);
    gk__heap_alloc_fini(&h);
}

GK_TEST(resize_bad_arguments)
{
    struct gk__heap_alloc h = heap_new(8 * GRAIN);
    size_t a = take(&h, GRAIN, 0);
    ASSERT_EQ(gk__heap_alloc_resize(&h, a + 1, GRAIN), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_resize(&h, 4 * GRAIN, GRAIN), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, 0), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, SIZE_MAX), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_resize(&h, a, 9 * GRAIN), GK_ERR_NOMEM);
    ASSERT_EQ(block_size(&h, a), GRAIN);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 7 * GRAIN);
    gk__heap_alloc_fini(&h);
}

GK_TEST(fit_from_an_offset_and_take_there)
{
    struct gk__heap_alloc h = heap_new(64 * GRAIN);
    size_t a = take(&h, 2 * GRAIN, 0), b = take(&h, 4 * GRAIN, 0);
    take(&h, GRAIN, 0);
    ASSERT_EQ(gk__heap_alloc_give(&h, b), GK_OK);
    /* [a: 2][hole: 4][c: 1][free: 57] */
    size_t off = 0;
    ASSERT_EQ(gk__heap_alloc_fit(&h, 0, GRAIN, 0, &off), GK_OK);
    ASSERT_EQ(off, b);
    /* From inside the hole: the rest of the hole, or past c when it is short. */
    ASSERT_EQ(gk__heap_alloc_fit(&h, b + GRAIN + 5, GRAIN, 0, &off), GK_OK);
    ASSERT_EQ(off, b + 2 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_fit(&h, b + GRAIN, 4 * GRAIN, 0, &off), GK_OK);
    ASSERT_EQ(off, 7 * GRAIN);
    /* From inside a block: the next hole. */
    ASSERT_EQ(gk__heap_alloc_fit(&h, a + 1, GRAIN, 0, &off), GK_OK);
    ASSERT_EQ(off, b);
    /* Aligned, from an offset. */
    ASSERT_EQ(gk__heap_alloc_fit(&h, 1, GRAIN, 16 * GRAIN, &off), GK_OK);
    ASSERT_EQ(off, 16 * GRAIN);
    /* Nothing fits above the end; a fit allocates nothing. */
    ASSERT_EQ(gk__heap_alloc_fit(&h, 60 * GRAIN, 8 * GRAIN, 0, &off), GK_ERR_NOMEM);
    ASSERT_EQ(gk__heap_alloc_fit(&h, SIZE_MAX, 1, 0, &off), GK_ERR_NOMEM);
    ASSERT_EQ(gk__heap_alloc_fit(&h, 0, 0, 0, &off), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 61 * GRAIN);

    /* Exactly at an offset, with an owner: inside the hole, not over c. */
    ASSERT_EQ(gk__heap_alloc_take_at(&h, b + GRAIN, 2 * GRAIN, 42), GK_OK);
    struct gk__extent block;
    ASSERT_EQ(gk__heap_alloc_block(&h, b + GRAIN, &block), GK_OK);
    ASSERT_EQ(block.offset, b + GRAIN);
    ASSERT_EQ(block.owner, 42);
    ASSERT_EQ(gk__heap_alloc_block(&h, a, &block), GK_OK);
    ASSERT_EQ(block.owner, 0);
    ASSERT_EQ(gk__heap_alloc_block(&h, b, &block), GK_ERR_INVALID_ARG);
    ASSERT_EQ(block_size(&h, b + GRAIN), 2 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_take_at(&h, b + 3 * GRAIN, 2 * GRAIN, 1), GK_ERR_NOMEM);
    ASSERT_EQ(gk__heap_alloc_take_at(&h, a, GRAIN, 1), GK_ERR_NOMEM);
    ASSERT_EQ(gk__heap_alloc_take_at(&h, 63 * GRAIN, 2 * GRAIN, 1), GK_ERR_NOMEM);
    ASSERT_EQ(gk__heap_alloc_take_at(&h, 100 * GRAIN, GRAIN, 1), GK_ERR_NOMEM);
    ASSERT_EQ(gk__heap_alloc_take_at(&h, b + 1, GRAIN, 1), GK_ERR_INVALID_ARG);
    ASSERT_EQ(gk__heap_alloc_take_at(&h, b, 0, 1), GK_ERR_INVALID_ARG);
    /* The lead and the tail of the hole stay free. */
    ASSERT_EQ(h.free_list.count, 3);
    ASSERT_EQ(take(&h, GRAIN, 0), b);
    ASSERT_EQ(take(&h, GRAIN, 0), b + 3 * GRAIN);
    ASSERT_EQ(take(&h, GRAIN, 0), 7 * GRAIN);
    /* At the very end, exactly. */
    ASSERT_EQ(gk__heap_alloc_take_at(&h, 62 * GRAIN, 2 * GRAIN, 3), GK_OK);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 54 * GRAIN);
    ASSERT_EQ(gk__heap_alloc_give(&h, b + GRAIN), GK_OK);
    ASSERT_EQ(gk__heap_alloc_give(&h, 62 * GRAIN), GK_OK);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 58 * GRAIN);
    gk__heap_alloc_fini(&h);
}

/* Thousands of live blocks: the lists grow past their first capacity. */
GK_TEST(many_blocks)
{
    enum { N = 5000 };
    struct gk__heap_alloc h = heap_new(N * GRAIN);
    for (size_t i = 0; i < N; i++)
        ASSERT_EQ(take(&h, 1, 0), i * GRAIN);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), 0);
    for (size_t i = 0; i < N; i += 2)
        ASSERT_EQ(gk__heap_alloc_give(&h, i * GRAIN), GK_OK);
    ASSERT_EQ(h.free_list.count, N / 2);
    for (size_t i = 1; i < N; i += 2)
        ASSERT_EQ(gk__heap_alloc_give(&h, i * GRAIN), GK_OK);
    ASSERT_EQ(h.free_list.count, 1);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), N * GRAIN);
    gk__heap_alloc_fini(&h);
}

/* ------------------------------------------------------------------------ */
/* The model: one owner per grain (0 free, else block id).                  */

enum { MODEL_GRAINS = 4096, MODEL_HEAP = MODEL_GRAINS * GRAIN, MODEL_SLOTS = 96 };

struct model {
    int owner[MODEL_GRAINS];
    size_t off[MODEL_SLOTS], grains[MODEL_SLOTS];
    uint64_t owner_tag[MODEL_SLOTS];
    int live[MODEL_SLOTS];
};

/* Whether grains [first, first + n) are all free. */
static int model_free(const struct model *m, size_t first, size_t n)
{
    for (size_t g = first; g < first + n; g++)
        if (g >= MODEL_GRAINS || m->owner[g] != 0)
            return 0;
    return 1;
}

static size_t grains_of(size_t bytes)
{
    return (bytes + GRAIN - 1) / GRAIN;
}

/* The lowest aligned start at or above grain `from` of `n` free grains, or -1. */
static long model_first_fit(const struct model *m, size_t from, size_t n, size_t align)
{
    size_t step = align <= GRAIN ? 1 : align / GRAIN;
    for (size_t s = (from + step - 1) / step * step; s + n <= MODEL_GRAINS; s += step) {
        size_t i = 0;
        while (i < n && m->owner[s + i] == 0)
            i++;
        if (i == n)
            return (long)s;
    }
    return -1;
}

/* The allocator's lists and counters agree with the model, exactly. */
static void model_compare(const struct model *m, const struct gk__heap_alloc *h)
{
    size_t free_grains = 0, largest = 0, extents = 0;
    for (size_t g = 0; g < MODEL_GRAINS;) {
        if (m->owner[g] != 0) {
            g++;
            continue;
        }
        size_t end = g;
        while (end < MODEL_GRAINS && m->owner[end] == 0)
            end++;
        size_t len = end - g;
        ASSERT_LT(extents, h->free_list.count);
        ASSERT_EQ(h->free_list.items[extents].offset, g * GRAIN);
        ASSERT_EQ(h->free_list.items[extents].size, len * GRAIN);
        extents++;
        free_grains += len;
        largest = len > largest ? len : largest;
        g = end;
    }
    ASSERT_EQ(h->free_list.count, extents);
    ASSERT_EQ(gk__heap_alloc_free_bytes(h), free_grains * GRAIN);
    ASSERT_EQ(gk__heap_alloc_largest_free(h), largest * GRAIN);
    size_t live = 0;
    for (int s = 0; s < MODEL_SLOTS; s++) {
        if (!m->live[s])
            continue;
        live++;
        ASSERT_EQ(block_size(h, m->off[s]), m->grains[s] * GRAIN);
        struct gk__extent block = {0, 0, 99};
        ASSERT_EQ(gk__heap_alloc_block(h, m->off[s], &block), GK_OK);
        ASSERT_EQ(block.owner, m->owner_tag[s]);
    }
    ASSERT_EQ(h->used_list.count, live);
    for (size_t i = 1; i < h->used_list.count; i++)
        ASSERT_LT(h->used_list.items[i - 1].offset, h->used_list.items[i].offset);
}

static void model_mark(struct model *m, size_t first, size_t n, int owner)
{
    for (size_t g = first; g < first + n; g++)
        m->owner[g] = owner;
}

GK_TEST(random_sequence_against_a_model)
{
    static struct model m;
    struct gk__heap_alloc h = heap_new(MODEL_HEAP);
    static const size_t aligns[] = {0, 0, 0, 1, 8, 64, 128, 256, 1024, 4096, 65536};
    unsigned seed = 2024;
    for (int step = 0; step < 20000; step++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        int slot = (int)(r % MODEL_SLOTS);
        unsigned what = (r / MODEL_SLOTS) % 10;
        if (!m.live[slot]) {
            size_t want = 1 + (size_t)((seed >> 3) % (what < 8 ? 3000 : 40000));
            size_t align = aligns[(seed >> 17) % (sizeof(aligns) / sizeof(aligns[0]))];
            /* One in three: a fit at or above a random grain, then a take
             * there (the agreement's path) or at a random grain. */
            size_t from = (seed >> 5) % 3 == 0 ? (seed >> 9) % MODEL_GRAINS : 0;
            long expect = model_first_fit(&m, from, grains_of(want), align);
            size_t off = 0;
            int status;
            uint64_t owner = 0;
            if (from == 0) {
                status = gk__heap_alloc_take(&h, want, align, &off);
            } else {
                status = gk__heap_alloc_fit(&h, from * GRAIN, want, align, &off);
                if (status == GK_OK)
                    ASSERT_EQ(off, (size_t)expect * GRAIN);
                owner = (uint64_t)slot + 7;
                if (what == 5) {
                    off = ((seed >> 11) % MODEL_GRAINS) * GRAIN;
                    expect = model_free(&m, off / GRAIN, grains_of(want)) ? (long)(off / GRAIN)
                                                                          : -1;
                }
                if (status == GK_OK || what == 5)
                    status = gk__heap_alloc_take_at(&h, off, want, owner);
            }
            if (expect < 0) {
                ASSERT_EQ(status, GK_ERR_NOMEM);
            } else {
                ASSERT_EQ(status, GK_OK);
                ASSERT_EQ(off, (size_t)expect * GRAIN);
                m.live[slot] = 1;
                m.off[slot] = off;
                m.grains[slot] = grains_of(want);
                m.owner_tag[slot] = owner;
                model_mark(&m, (size_t)expect, m.grains[slot], slot + 1);
            }
        } else if (what < 6) {
            ASSERT_EQ(gk__heap_alloc_give(&h, m.off[slot]), GK_OK);
            model_mark(&m, m.off[slot] / GRAIN, m.grains[slot], 0);
            m.live[slot] = 0;
            /* Now unknown: a second give must fail. */
            if (what == 0)
                ASSERT_EQ(gk__heap_alloc_give(&h, m.off[slot]), GK_ERR_INVALID_ARG);
        } else {
            size_t want = 1 + (size_t)((seed >> 3) % 6000);
            size_t first = m.off[slot] / GRAIN, n = grains_of(want);
            int fits = 1;
            for (size_t g = first + m.grains[slot]; g < first + n; g++)
                fits = fits && g < MODEL_GRAINS && m.owner[g] == 0;
            int status = gk__heap_alloc_resize(&h, m.off[slot], want);
            if (!fits) {
                ASSERT_EQ(status, GK_ERR_NOMEM);
            } else {
                ASSERT_EQ(status, GK_OK);
                model_mark(&m, first, m.grains[slot], 0);
                model_mark(&m, first, n, slot + 1);
                m.grains[slot] = n;
            }
        }
        model_compare(&m, &h);
    }
    /* Give everything back: one extent, the whole heap. */
    for (int s = 0; s < MODEL_SLOTS; s++)
        if (m.live[s])
            ASSERT_EQ(gk__heap_alloc_give(&h, m.off[s]), GK_OK);
    ASSERT_EQ(h.free_list.count, 1);
    ASSERT_EQ(gk__heap_alloc_free_bytes(&h), MODEL_HEAP);
    gk__heap_alloc_fini(&h);
}

int main(int argc, char **argv)
{
    return gk_test_main(argc, argv);
}

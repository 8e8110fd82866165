/*
 * heap_test: the symmetric heap, checked on every PE.
 *
 * Symmetry: every allocation call (gk_malloc, gk_calloc, gk_align,
 * gk_realloc) must return the same heap offset on every PE. Each PE keeps
 * a record of what it got (as offsets from its first block, the table
 * itself, and its gk_heap_free() at each step, which the header also says
 * is the same everywhere) and puts the record into its row of a table on
 * PE 0 (an allgather by puts); PE 0 compares every row with its own.
 *
 * Also: calloc zeroes (even memory that was dirty before), align aligns,
 * realloc keeps contents (in place, moving, shrinking), free bytes go down
 * and come back exactly, memory is usable remotely as soon as the call
 * returns, and gk_ptr gives a working pointer to the copy of every PE
 * whose heap is mapped here (written through, read back with gk_get) and
 * NULL for anything else: the copies of PEs on other hosts, or of every
 * other PE with GK_NET_INDIRECT=1, which reaches them as if they were.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pe_check.h"

#define MAXREC 256

static int me, npes;
static uint64_t *table; /* npes rows of MAXREC on PE 0 */
static uintptr_t base;  /* this PE's first block */
static uint64_t rec[MAXREC];
static int nrec;

static void record_value(uint64_t v)
{
    if (nrec == MAXREC)
        PE_FAIL("record full");
    rec[nrec++] = v;
}

/* An allocation's offset from the first block (or all ones for NULL). */
static void record(const void *p)
{
    record_value(p ? (uint64_t)((uintptr_t)p - base) : UINT64_MAX);
    record_value(gk_heap_free());
}

/* Every PE's record so far must equal PE 0's. */
static void compare_records(const char *when)
{
    CHECK_OK(gk_put(0, &table[(size_t)me * MAXREC], rec, (size_t)nrec * sizeof(rec[0])));
    CHECK_OK(gk_barrier());
    if (me == 0) {
        for (int pe = 1; pe < npes; pe++)
            for (int i = 0; i < nrec; i++)
                if (table[(size_t)pe * MAXREC + i] != rec[i])
                    PE_FAIL(
                        "%s: record %d of PE %d is %llu, PE 0 has %llu (the heap is not "
                        "symmetric)",
                        when, i, pe, (unsigned long long)table[(size_t)pe * MAXREC + i],
                        (unsigned long long)rec[i]);
    }
    CHECK_OK(gk_barrier());
}

static unsigned char pattern(int pe, size_t i)
{
    return (unsigned char)(pe * 37 + i * 11 + 1);
}

static void fill(void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)p)[i] = pattern(me, i);
}

static void check_filled(const void *p, size_t n, int pe, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != pattern(pe, i))
            PE_FAIL("%s: byte %zu is %u, expected %u", what, i,
                    ((const unsigned char *)p)[i], pattern(pe, i));
}

static void check_zero(const void *p, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != 0)
            PE_FAIL("%s: byte %zu is %u, not 0", what, i, ((const unsigned char *)p)[i]);
}

/* The block was just returned: the right neighbour may write into it at
 * once (the allocation ended with a barrier). */
static void check_remote_use(unsigned char *blk, size_t n)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char *mine = malloc(n);
    CHECK_NOT_NULL(mine);
    fill(mine, n);
    CHECK_OK(gk_put(right, blk, mine, n));
    CHECK_OK(gk_barrier());
    check_filled(blk, n, left, "a put right after the allocation");
    CHECK_OK(gk_barrier());
    free(mine);
}

static void test_alloc_calls(size_t heap_after_table)
{
    /* malloc: free bytes go down by at least the size. */
    unsigned char *a = gk_malloc(100);
    CHECK_NOT_NULL(a);
    CHECK_LE(gk_heap_free(), heap_after_table - 100);
    record(a);
    check_remote_use(a, 100);

    /* calloc zeroes, also over memory that was dirty: free a block full
     * of 0xff and calloc the same size (first fit puts it there). */
    unsigned char *dirty = gk_malloc(8192);
    CHECK_NOT_NULL(dirty);
    record(dirty);
    memset(dirty, 0xff, 8192);
    CHECK_OK(gk_barrier());
    gk_free(dirty);
    record_value(gk_heap_free());
    unsigned char *c = gk_calloc(1024, 8);
    CHECK_NOT_NULL(c);
    record(c);
    check_zero(c, 8192, "gk_calloc over a freed dirty block");
    uint64_t *c1 = gk_calloc(1, 1);
    CHECK_NOT_NULL(c1);
    record(c1);
    check_zero(c1, 1, "gk_calloc(1, 1)");

    /* align: every power of two up to 2 MiB. */
    void *aligned[32];
    int naligned = 0;
    for (size_t align = 1; align <= ((size_t)2 << 20); align <<= 1) {
        void *p = gk_align(align, 24);
        CHECK_NOT_NULL(p);
        if ((uintptr_t)p % align != 0)
            PE_FAIL("gk_align(%zu, 24) returned %p", align, p);
        record(p);
        aligned[naligned++] = p;
    }
    check_remote_use(aligned[naligned - 1], 24);
    compare_records("after malloc, calloc and align");

    /* Frees in an order unlike the allocations: free bytes come back. */
    for (int i = 0; i < naligned; i += 2)
        gk_free(aligned[i]);
    record_value(gk_heap_free());
    for (int i = 1; i < naligned; i += 2)
        gk_free(aligned[i]);
    record_value(gk_heap_free());
    gk_free(c1);
    gk_free(a);
    gk_free(c);
    CHECK_EQ(gk_heap_free(), heap_after_table);
    record_value(gk_heap_free());
    compare_records("after the frees");
}

static void test_realloc(size_t heap_after_table)
{
    /* NULL acts as malloc. */
    unsigned char *r = gk_realloc(NULL, 200);
    CHECK_NOT_NULL(r);
    record(r);
    unsigned char *blocker = gk_malloc(64); /* right after r: r cannot grow in place */
    CHECK_NOT_NULL(blocker);
    record(blocker);
    fill(r, 200);
    /* Grow, moving. */
    unsigned char *moved = gk_realloc(r, 100000);
    CHECK_NOT_NULL(moved);
    record(moved);
    check_filled(moved, 200, me, "gk_realloc that moves the block");
    check_remote_use(moved + 50000, 1000);
    fill(moved, 200);
    /* Grow again, with nothing in the way (in place, most likely). */
    gk_free(blocker);
    unsigned char *grown = gk_realloc(moved, 300000);
    CHECK_NOT_NULL(grown);
    record(grown);
    check_filled(grown, 200, me, "gk_realloc that grows the block");
    check_remote_use(grown + 299000, 1000);
    fill(grown, 200);
    /* Shrink: keeps the first bytes. */
    unsigned char *shrunk = gk_realloc(grown, 150);
    CHECK_NOT_NULL(shrunk);
    record(shrunk);
    check_filled(shrunk, 150, me, "gk_realloc that shrinks the block");
    CHECK_LT(gk_heap_free(), heap_after_table);
    /* Size 0 frees. */
    CHECK_NULL(gk_realloc(shrunk, 0));
    CHECK_EQ(gk_heap_free(), heap_after_table);
    record_value(gk_heap_free());
    compare_records("after the reallocs");
}

/*
 * Which PEs' heaps gk_ptr must reach (1) or must not (0): this PE's, and
 * those of the PEs on this host (the same host name) unless GK_NET_INDIRECT
 * hides them. Every PE learns every host name through puts. Collective.
 */
static void heaps_mapped_here(int *mapped)
{
    enum { NAME = 64 };
    char mine[NAME] = {0};
    CHECK_EQ(gethostname(mine, NAME - 1), 0);
    char *names = gk_calloc((size_t)npes, NAME);
    CHECK_NOT_NULL(names);
    record(names);
    for (int pe = 0; pe < npes; pe++)
        CHECK_OK(gk_put(pe, names + (size_t)me * NAME, mine, NAME));
    CHECK_OK(gk_barrier());
    const char *indirect = getenv("GK_NET_INDIRECT");
    int hidden = indirect != NULL && strtoul(indirect, NULL, 0) != 0;
    for (int pe = 0; pe < npes; pe++)
        mapped[pe] =
            pe == me || (!hidden && strcmp(names + (size_t)pe * NAME, mine) == 0);
    CHECK_OK(gk_barrier());
    gk_free(names);
}

static void test_gk_ptr(void)
{
    size_t heap = gk_heap_size();
    int *mapped = calloc((size_t)npes, sizeof(int));
    CHECK_NOT_NULL(mapped);
    heaps_mapped_here(mapped);
    uint64_t *slots = gk_calloc((size_t)npes, sizeof(uint64_t));
    CHECK_NOT_NULL(slots);
    record(slots);
    /* Write my slot in every PE's copy: through gk_ptr where there is one,
     * else with a put. */
    for (int pe = 0; pe < npes; pe++) {
        uint64_t value = 1000 * (uint64_t)me + (uint64_t)pe;
        uint64_t *theirs = gk_ptr(&slots[me], pe);
        if (!mapped[pe]) {
            CHECK_NULL(theirs);
            CHECK_OK(gk_put(pe, &slots[me], &value, sizeof(value)));
            continue;
        }
        CHECK_NOT_NULL(theirs);
        /* The mapping is one piece: offsets carry over. */
        CHECK_EQ((char *)gk_ptr(slots, pe) + me * sizeof(uint64_t), (char *)theirs);
        *theirs = value;
    }
    CHECK_EQ(gk_ptr(slots, me), (void *)slots);
    CHECK_OK(gk_barrier());
    /* Read every slot of every PE back with gets. */
    for (int pe = 0; pe < npes; pe++) {
        for (int w = 0; w < npes; w++) {
            uint64_t v = 0;
            CHECK_OK(gk_get(pe, &v, &slots[w], sizeof(v)));
            CHECK_EQ(v, 1000 * (uint64_t)w + (uint64_t)pe);
        }
    }
    /* The first and last byte of the heap have copies where the heap is
     * mapped; nothing else does. `base` is the heap's first block, at
     * offset 0. */
    const char *heap_start = (const char *)base;
    for (int pe = 0; pe < npes; pe++) {
        if (mapped[pe]) {
            CHECK_NOT_NULL(gk_ptr(heap_start, pe));
            CHECK_NOT_NULL(gk_ptr(heap_start + heap - 1, pe));
        } else {
            CHECK_NULL(gk_ptr(heap_start, pe));
            CHECK_NULL(gk_ptr(heap_start + heap - 1, pe));
        }
        CHECK_NULL(gk_ptr(heap_start + heap, pe));
        CHECK_NULL(gk_ptr(heap_start - 1, pe));
        int on_stack = 0;
        CHECK_NULL(gk_ptr(&on_stack, pe));
        void *private_mem = malloc(64);
        CHECK_NULL(gk_ptr(private_mem, pe));
        free(private_mem);
        CHECK_NULL(gk_ptr(NULL, pe));
    }
    CHECK_NULL(gk_ptr(slots, -1));
    CHECK_NULL(gk_ptr(slots, npes));
    CHECK_NULL(gk_ptr(slots, INT_MAX));
    CHECK_NULL(gk_ptr(slots, INT_MIN));
    CHECK_OK(gk_barrier());
    gk_free(slots);
    free(mapped);
    compare_records("after gk_ptr");
}

/* The same pseudo-random allocations and frees on every PE. */
static void test_random_cycles(size_t heap_after_table)
{
    enum { LIVE = 24, STEPS = 300 };
    unsigned char *live[LIVE] = {0};
    size_t len[LIVE] = {0};
    unsigned seed = 99;
    uint64_t hash = 1469598103934665603ull;
    for (int step = 0; step < STEPS; step++) {
        seed = seed * 1103515245u + 12345u;
        int slot = (int)((seed >> 8) % LIVE);
        if (live[slot] != NULL) {
            /* Still holds what the left neighbour put there. */
            check_filled(live[slot], len[slot] < 64 ? len[slot] : 64,
                         (me + npes - 1) % npes, "a live block");
            gk_free(live[slot]);
            live[slot] = NULL;
        } else {
            len[slot] = 1 + (seed >> 12) % 20000;
            switch ((seed >> 4) % 3) {
            case 0:
                live[slot] = gk_malloc(len[slot]);
                break;
            case 1:
                live[slot] = gk_calloc(len[slot], 1);
                break;
            default:
                live[slot] = gk_align((size_t)64 << ((seed >> 6) % 8), len[slot]);
                break;
            }
            CHECK_NOT_NULL(live[slot]);
            hash = (hash ^ ((uintptr_t)live[slot] - base)) * 1099511628211ull;
            /* The right neighbour's copy gets my pattern. */
            unsigned char head[64];
            fill(head, sizeof(head));
            CHECK_OK(gk_put((me + 1) % npes, live[slot], head,
                            len[slot] < 64 ? len[slot] : 64));
            CHECK_OK(gk_barrier());
        }
    }
    record_value(hash);
    record_value(gk_heap_free());
    for (int i = 0; i < LIVE; i++)
        gk_free(live[i]);
    CHECK_EQ(gk_heap_free(), heap_after_table);
    compare_records("after random cycles");
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    size_t heap = gk_heap_size();
    size_t free0 = gk_heap_free();
    CHECK_EQ(free0, heap);

    table = gk_calloc((size_t)npes * MAXREC, sizeof(uint64_t));
    CHECK_NOT_NULL(table);
    base = (uintptr_t)table;
    size_t heap_after_table = gk_heap_free();
    CHECK_LE(heap_after_table, free0 - (size_t)npes * MAXREC * sizeof(uint64_t));
    record(table);
    check_zero(table, (size_t)npes * MAXREC * sizeof(uint64_t), "the table");

    /* Size 0 and NULL: nothing happens, nothing is said. */
    void *p = (void *)1;
    CHECK_SILENT(p = gk_malloc(0));
    CHECK_NULL(p);
    CHECK_SILENT(p = gk_calloc(0, 8));
    CHECK_NULL(p);
    CHECK_SILENT(p = gk_calloc(8, 0));
    CHECK_NULL(p);
    CHECK_SILENT(p = gk_realloc(NULL, 0));
    CHECK_NULL(p);
    CHECK_SILENT(gk_free(NULL));
    CHECK_EQ(gk_heap_free(), heap_after_table);

    test_alloc_calls(heap_after_table);
    test_realloc(heap_after_table);
    test_gk_ptr();
    test_random_cycles(heap_after_table);

    gk_free(table);
    CHECK_EQ(gk_heap_free(), free0);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("heap_test: %d PEs ok\n", npes);
    return 0;
}

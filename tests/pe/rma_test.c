/*
 * rma_test: puts and gets in every form (blocking; nbi + gk_quiet; nb +
 * gk_handle_wait / gk_handle_test / gk_handle_wait_all, and nb completed by gk_quiet), sizes
 * 0 B to 1 MiB + 17, aligned and unaligned on both sides, all-to-all (self
 * included, so the ring neighbours too). Every byte depends on the writer,
 * the target and the size, so data that lands on the wrong PE, at the
 * wrong place or from the wrong source is caught, and guard bytes around
 * each transfer catch overruns.
 *
 * Then value puts and gets of 1, 2, 4 and 8 bytes to every PE (neighbouring
 * values written concurrently by different PEs must all survive: a value
 * put is one store, not a read-modify-write of a wider word), and
 * gk_fence ordering: data, fence, flag around the ring, with the flag sent
 * by a value put, an 8-byte gk_put or an atomic, checked 1000 times.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#define REGION (((size_t)1 << 20) + 128)
#define GUARD 8

static int me, npes;

static unsigned char byte_of(int writer, int target, size_t size, size_t i)
{
    return (unsigned char)(writer * 41 + target * 13 + size + i * 7 + 3);
}

static void fill_for(unsigned char *buf, int writer, int target, size_t size)
{
    for (size_t i = 0; i < size; i++)
        buf[i] = byte_of(writer, target, size, i);
}

static void check_bytes(const unsigned char *buf, int writer, int target, size_t size,
                        const char *what, int form)
{
    for (size_t i = 0; i < size; i++)
        if (buf[i] != byte_of(writer, target, size, i))
            PE_FAIL("%s, form %d, size %zu, writer %d, target %d: byte %zu is %u, "
                    "expected %u",
                    what, form, size, writer, target, i, buf[i],
                    byte_of(writer, target, size, i));
}

static void check_fill(const unsigned char *buf, size_t n, unsigned char value,
                       const char *what, int form, size_t size)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != value)
            PE_FAIL("%s, form %d, size %zu: guard byte %zu is %u, expected %u (overrun)",
                    what, form, size, i, buf[i], value);
}

enum form { FORM_BLOCKING, FORM_NBI, FORM_NB, FORM_NB_QUIET, FORMS };
static const char *const form_name[FORMS] = {"blocking", "nbi", "nb", "nb+quiet"};

static void bulk(unsigned char *region, unsigned char **src, unsigned char **back,
                 enum form form, size_t size, size_t off, size_t loff)
{
    /* My copy of every writer's slice: zero around the transfer. */
    for (int w = 0; w < npes; w++)
        memset(region + (size_t)w * REGION, 0, off + size + GUARD);
    for (int pe = 0; pe < npes; pe++)
        fill_for(src[pe] + loff, me, pe, size);
    CHECK_OK(gk_barrier());

    /* Puts to every PE, myself first, then around the ring. */
    gk_handle_t handles[64];
    unsigned char *mine = region + (size_t)me * REGION + off;
    for (int step = 0; step < npes; step++) {
        int pe = (me + step) % npes;
        const unsigned char *from = src[pe] + loff;
        switch (form) {
        case FORM_BLOCKING:
            CHECK_OK(gk_put(pe, mine, from, size));
            break;
        case FORM_NBI:
            CHECK_OK(gk_put_nbi(pe, mine, from, size));
            break;
        case FORM_NB:
        case FORM_NB_QUIET:
            handles[step] = (gk_handle_t){0xdeadbeef};
            CHECK_OK(gk_put_nb(pe, mine, from, size, &handles[step]));
            break;
        default:
            break;
        }
    }
    if (form == FORM_NBI || form == FORM_NB_QUIET)
        CHECK_OK(gk_quiet());
    if (form == FORM_NB) {
        /* The first by polling, the rest at once. */
        int done = 0;
        while (!done)
            CHECK_OK(gk_handle_test(&handles[0], &done));
        CHECK_EQ(handles[0].opaque, GK_HANDLE_NULL.opaque);
        CHECK_OK(gk_handle_wait_all(handles + 1, (size_t)npes - 1));
        for (int i = 0; i < npes; i++)
            CHECK_OK(gk_handle_wait(&handles[i])); /* complete handles stay complete */
    }
    if (form == FORM_NB_QUIET)
        for (int i = 0; i < npes; i++)
            CHECK_OK(gk_handle_wait(&handles[i]));
    CHECK_OK(gk_barrier());

    /* What every writer put here, and nothing around it. */
    for (int w = 0; w < npes; w++) {
        const unsigned char *slice = region + (size_t)w * REGION;
        check_fill(slice, off, 0, "before the put", (int)form, size);
        check_bytes(slice + off, w, me, size, form_name[form], (int)form);
        check_fill(slice + off + size, GUARD, 0, "after the put", (int)form, size);
    }

    /* Gets from every PE, of a slice another PE wrote there. */
    for (int pe = 0; pe < npes; pe++) {
        memset(back[pe], 0xa5, loff + size + GUARD);
        int w = (me + pe + 1) % npes;
        const unsigned char *theirs = region + (size_t)w * REGION + off;
        switch (form) {
        case FORM_BLOCKING:
            CHECK_OK(gk_get(pe, back[pe] + loff, theirs, size));
            break;
        case FORM_NBI:
            CHECK_OK(gk_get_nbi(pe, back[pe] + loff, theirs, size));
            break;
        case FORM_NB:
        case FORM_NB_QUIET:
            handles[pe] = (gk_handle_t){0xdeadbeef};
            CHECK_OK(gk_get_nb(pe, back[pe] + loff, theirs, size, &handles[pe]));
            break;
        default:
            break;
        }
    }
    if (form == FORM_NBI || form == FORM_NB_QUIET)
        CHECK_OK(gk_quiet());
    if (form == FORM_NB) {
        for (int pe = 0; pe < npes; pe += 2)
            CHECK_OK(gk_handle_wait(&handles[pe]));
        for (int pe = 1; pe < npes; pe += 2) {
            int done = 0;
            while (!done)
                CHECK_OK(gk_handle_test(&handles[pe], &done));
        }
    }
    for (int pe = 0; pe < npes; pe++) {
        int w = (me + pe + 1) % npes;
        check_fill(back[pe], loff, 0xa5, "before the get", (int)form, size);
        check_bytes(back[pe] + loff, w, pe, size, "get", (int)form);
        check_fill(back[pe] + loff + size, GUARD, 0xa5, "after the get", (int)form, size);
    }
    /* Nobody clears the region for the next round before all have read. */
    CHECK_OK(gk_barrier());
}

static void test_bulk(void)
{
    static const size_t sizes[] = {
        0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 4096, 65537,
        ((size_t)1 << 20) + 17}; /* every branch of base/copy.h, and its edges */
    static const size_t offs[][2] = {{0, 0}, {3, 5}}; /* symmetric, local */
    unsigned char *region = gk_malloc((size_t)npes * REGION);
    CHECK_NOT_NULL(region);
    unsigned char **src = calloc((size_t)npes, sizeof(*src));
    unsigned char **back = calloc((size_t)npes, sizeof(*back));
    CHECK_TRUE(src != NULL && back != NULL);
    for (int pe = 0; pe < npes; pe++) {
        src[pe] = malloc(REGION);
        back[pe] = malloc(REGION);
        CHECK_TRUE(src[pe] != NULL && back[pe] != NULL);
    }
    double t0 = pe_now();
    for (int form = 0; form < FORMS; form++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            for (size_t o = 0; o < 2; o++)
                bulk(region, src, back, (enum form)form, sizes[s], offs[o][0],
                     offs[o][1]);
    if (me == 0)
        PE_LOG("bulk puts and gets, all forms and sizes: %.3f s", pe_now() - t0);
    for (int pe = 0; pe < npes; pe++) {
        free(src[pe]);
        free(back[pe]);
    }
    free(src);
    free(back);
    gk_free(region);
}

/* Moving nothing is valid anywhere, and silent. */
static void test_zero_length(void)
{
    int right = (me + 1) % npes;
    uint64_t *sym = gk_malloc(64);
    int on_stack = 0;
    gk_handle_t h = {7};
    CHECK_OK_SILENT(gk_put(right, NULL, NULL, 0));
    CHECK_OK_SILENT(gk_get(right, NULL, NULL, 0));
    CHECK_OK_SILENT(gk_put(right, &on_stack, &on_stack, 0));
    CHECK_OK_SILENT(gk_put_nbi(right, sym, NULL, 0));
    CHECK_OK_SILENT(gk_get_nbi(right, NULL, sym, 0));
    CHECK_OK_SILENT(gk_put_nb(right, sym, NULL, 0, &h));
    CHECK_OK(gk_handle_wait(&h));
    CHECK_OK_SILENT(gk_get_nb(right, NULL, sym, 0, &h));
    CHECK_OK(gk_handle_wait(&h));
    CHECK_OK(gk_handle_wait_all(NULL, 0));
    gk_handle_t null_handle = GK_HANDLE_NULL;
    int done = 0;
    CHECK_OK(gk_handle_test(&null_handle, &done));
    CHECK_EQ(done, 1);
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_fence());
    gk_free(sym);
}

struct values {
    uint8_t u8[8];
    uint16_t u16[8];
    uint32_t u32[8];
    uint64_t u64[8];
};

static uint64_t value_of(int writer, int target)
{
    return 0xf0e1d2c3b4a59687ull ^ ((uint64_t)writer << 8) ^ ((uint64_t)target << 40) ^
           (uint64_t)(writer * 7 + target);
}

static void test_value_puts(void)
{
    /* Slot w of each array on PE t is written by PE w (slot w % 8 when
     * there are more than 8 PEs: then only PEs < 8 write). */
    struct values *v = gk_calloc(1, sizeof(struct values));
    CHECK_NOT_NULL(v);
    if (me < 8) {
        for (int step = 0; step < npes; step++) {
            int pe = (me + step) % npes;
            uint64_t x = value_of(me, pe);
            CHECK_OK(gk_put_u8(pe, &v->u8[me], (uint8_t)x));
            CHECK_OK(gk_put_u16(pe, &v->u16[me], (uint16_t)x));
            CHECK_OK(gk_put_u32(pe, &v->u32[me], (uint32_t)x));
            CHECK_OK(gk_put_u64(pe, &v->u64[me], x));
        }
    }
    CHECK_OK(gk_barrier());
    /* All PEs hammer the same PE's neighbouring slots at once (the same
     * target order everywhere), many times: a value put done as a
     * read-modify-write of a wider word would lose some of them. */
    if (me < 8) {
        for (int pe = 0; pe < npes; pe++) {
            for (int k = 0; k < 3000; k++) {
                uint64_t x = value_of(me, pe) + (k == 2999 ? 0 : (uint64_t)k + 1);
                CHECK_OK(gk_put_u8(pe, &v->u8[me], (uint8_t)x));
                CHECK_OK(gk_put_u16(pe, &v->u16[me], (uint16_t)x));
            }
        }
    }
    CHECK_OK(gk_barrier());
    for (int w = 0; w < 8; w++) {
        uint64_t x = w < npes ? value_of(w, me) : 0;
        CHECK_EQ(v->u8[w], (uint8_t)x);
        CHECK_EQ(v->u16[w], (uint16_t)x);
        CHECK_EQ(v->u32[w], (uint32_t)x);
        CHECK_EQ(v->u64[w], x);
    }
    /* Value gets of every slot from every PE. */
    for (int pe = 0; pe < npes; pe++) {
        for (int w = 0; w < 8 && w < npes; w++) {
            uint64_t x = value_of(w, pe);
            uint8_t g8 = 0;
            uint16_t g16 = 0;
            uint32_t g32 = 0;
            uint64_t g64 = 0;
            CHECK_OK(gk_get_u8(pe, &v->u8[w], &g8));
            CHECK_OK(gk_get_u16(pe, &v->u16[w], &g16));
            CHECK_OK(gk_get_u32(pe, &v->u32[w], &g32));
            CHECK_OK(gk_get_u64(pe, &v->u64[w], &g64));
            CHECK_EQ(g8, (uint8_t)x);
            CHECK_EQ(g16, (uint16_t)x);
            CHECK_EQ(g32, (uint32_t)x);
            CHECK_EQ(g64, x);
        }
    }
    CHECK_OK(gk_barrier());

    /* Extremes round-trip. */
    int right = (me + 1) % npes;
    uint8_t g8;
    uint16_t g16;
    uint32_t g32;
    uint64_t g64;
    CHECK_OK(gk_put_u8(right, &v->u8[0], UINT8_MAX));
    CHECK_OK(gk_put_u16(right, &v->u16[0], UINT16_MAX));
    CHECK_OK(gk_put_u32(right, &v->u32[0], UINT32_MAX));
    CHECK_OK(gk_put_u64(right, &v->u64[0], UINT64_MAX));
    CHECK_OK(gk_get_u8(right, &v->u8[0], &g8));
    CHECK_OK(gk_get_u16(right, &v->u16[0], &g16));
    CHECK_OK(gk_get_u32(right, &v->u32[0], &g32));
    CHECK_OK(gk_get_u64(right, &v->u64[0], &g64));
    CHECK_EQ(g8, UINT8_MAX);
    CHECK_EQ(g16, UINT16_MAX);
    CHECK_EQ(g32, UINT32_MAX);
    CHECK_EQ(g64, UINT64_MAX);
    CHECK_OK(gk_barrier());

    /* A reader never sees half a value: my left neighbour flips my word
     * between two patterns while I read it. */
    uint64_t *word = &v->u64[1];
    const uint64_t a = 0x0123456789abcdefull, b = ~a;
    *word = a;
    CHECK_OK(gk_barrier());
    for (int i = 0; i < 2000; i++) {
        CHECK_OK(gk_put_u64(right, word, (i & 1) ? a : b));
        uint64_t seen = 0;
        CHECK_OK(gk_get_u64(me, word, &seen));
        if (seen != a && seen != b)
            PE_FAIL("torn read: 0x%llx is neither 0x%llx nor 0x%llx",
                    (unsigned long long)seen, (unsigned long long)a,
                    (unsigned long long)b);
    }
    CHECK_OK(gk_barrier());
    gk_free(v);
}

/*
 * Data, fence, flag: around the ring, each PE sends round r's data and
 * flag to its right neighbour, waits for its left neighbour's flag, checks
 * the data, and acknowledges; the sender waits for the acknowledgement
 * before it overwrites the data with round r + 1.
 */
static void test_fence(void)
{
    enum { ROUNDS = 1000, WORDS = 64 };
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint64_t *data = gk_calloc(WORDS, sizeof(uint64_t));
    uint64_t *flag = gk_calloc(1, sizeof(uint64_t));
    uint64_t *ack = gk_calloc(1, sizeof(uint64_t));
    CHECK_TRUE(data && flag && ack);
    double t0 = pe_now();
    for (uint64_t round = 1; round <= ROUNDS; round++) {
        uint64_t payload[WORDS];
        for (int i = 0; i < WORDS; i++)
            payload[i] = round * 1000003u + (uint64_t)i * 31 + (uint64_t)me;
        switch (round % 3) {
        case 0:
            CHECK_OK(gk_put(right, data, payload, sizeof(payload)));
            break;
        case 1:
            CHECK_OK(gk_put_nbi(right, data, payload, sizeof(payload)));
            break;
        default:
            for (int i = 0; i < WORDS; i++)
                CHECK_OK(gk_put_u64(right, &data[i], payload[i]));
            break;
        }
        CHECK_OK(gk_fence());
        switch (round % 4) {
        case 0:
            CHECK_OK(gk_put_u64(right, flag, round));
            break;
        case 1:
            CHECK_OK(gk_put(right, flag, &round, sizeof(round)));
            CHECK_OK(gk_quiet()); /* a plain put is delivered by quiet */
            break;
        case 2:
            CHECK_OK(gk_atomic_set_u64(right, flag, round));
            break;
        default:
            CHECK_OK(gk_atomic_add_u64(right, flag, 1));
            break;
        }
        CHECK_OK(gk_wait_until_u64(flag, GK_CMP_GE, round));
        CHECK_EQ(*flag, round);
        for (int i = 0; i < WORDS; i++)
            if (data[i] != round * 1000003u + (uint64_t)i * 31 + (uint64_t)left)
                PE_FAIL(
                    "round %llu: word %d of the data from PE %d is stale after its flag",
                    (unsigned long long)round, i, left);
        CHECK_OK(gk_put_u64(left, ack, round));
        CHECK_OK(gk_wait_until_u64(ack, GK_CMP_GE, round));
    }
    if (me == 0)
        PE_LOG("fence ring: %d rounds in %.3f s", ROUNDS, pe_now() - t0);
    CHECK_OK(gk_barrier());
    gk_free(ack);
    gk_free(flag);
    gk_free(data);
}

int main(void)
{
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    test_zero_length();
    test_bulk();
    test_value_puts();
    test_fence();
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("rma_test: %d PEs ok\n", npes);
    return 0;
}

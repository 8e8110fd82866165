/*
 * rma_test: puts and gets in every form (blocking, nbi + quiet, nb + wait /
 * test / wait_all), sizes from 0 B to 1 MiB + odd, unaligned offsets, to
 * self and to every other PE, values checked; value puts and gets of 1, 2,
 * 4 and 8 bytes; fence ordering of data before a flag.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#define REGION ((1 << 20) + 64)

static unsigned char byte_of(int writer, size_t size, size_t i)
{
    return (unsigned char)(writer * 41 + size + i * 7 + 3);
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    const size_t sizes[] = {0, 1, 7, 8, 63, 4096, (1 << 20) + 17};
    const size_t offsets[] = {0, 3};
    /* One region per writer on every PE: region[w] is written only by w. */
    unsigned char *region = gk_malloc((size_t)npes * REGION);
    unsigned char *local = malloc(REGION), *back = malloc(REGION);
    CHECK_TRUE(region != NULL && local && back);

    for (int form = 0; form < 3; form++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            for (size_t o = 0; o < 2; o++) {
                size_t size = sizes[s], off = offsets[o];
                for (size_t i = 0; i < size; i++)
                    local[i] = byte_of(me, size, i);
                unsigned char *mine = region + (size_t)me * REGION + off;
                gk_handle_t handles[64];
                size_t nh = 0;
                for (int step = 0; step < npes; step++) {
                    int pe = (me + step) % npes; /* self first, then a ring */
                    if (form == 0)
                        CHECK_OK(gk_put(pe, mine, local, size));
                    else if (form == 1)
                        CHECK_OK(gk_put_nbi(pe, mine, local, size));
                    else
                        CHECK_OK(gk_put_nb(pe, mine, local, size, &handles[nh++]));
                }
                if (form == 1)
                    CHECK_OK(gk_quiet());
                if (form == 2)
                    CHECK_OK(gk_wait_all(handles, nh));
                CHECK_OK(gk_barrier());
                /* Everyone's data arrived here... */
                for (int w = 0; w < npes; w++)
                    for (size_t i = 0; i < size; i++)
                        if (region[(size_t)w * REGION + off + i] != byte_of(w, size, i))
                            PE_FAIL("form %d size %zu off %zu: byte %zu from PE %d wrong", form,
                                    size, off, i, w);
                /* ...and gets from every PE see what each wrote there. */
                for (int step = 0; step < npes; step++) {
                    int pe = (me + step) % npes;
                    int w = (me + 1) % npes;
                    unsigned char *theirs = region + (size_t)w * REGION + off;
                    memset(back, 0, size + 1);
                    if (form == 0) {
                        CHECK_OK(gk_get(pe, back, theirs, size));
                    } else if (form == 1) {
                        CHECK_OK(gk_get_nbi(pe, back, theirs, size));
                        CHECK_OK(gk_quiet());
                    } else {
                        gk_handle_t h;
                        int done = 0;
                        CHECK_OK(gk_get_nb(pe, back, theirs, size, &h));
                        while (!done)
                            CHECK_OK(gk_test(&h, &done));
                        CHECK_OK(gk_wait(&h));
                    }
                    for (size_t i = 0; i < size; i++)
                        if (back[i] != byte_of(w, size, i))
                            PE_FAIL("get form %d size %zu from PE %d: byte %zu wrong", form, size,
                                    pe, i);
                }
                CHECK_OK(gk_barrier());
            }
        }
    }

    /* Value puts and gets. */
    struct values {
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
    } *vals = gk_calloc((size_t)npes, sizeof(struct values));
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    CHECK_OK(gk_put_u8(right, &vals[me].u8, (uint8_t)(0xa0 + me)));
    CHECK_OK(gk_put_u16(right, &vals[me].u16, (uint16_t)(0xbeef + me)));
    CHECK_OK(gk_put_u32(right, &vals[me].u32, 0xdeadbeefu + (uint32_t)me));
    CHECK_OK(gk_put_u64(right, &vals[me].u64, 0x0123456789abcdefull + (uint64_t)me));
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(vals[left].u8, (uint8_t)(0xa0 + left));
    CHECK_EQ_U64(vals[left].u16, (uint16_t)(0xbeef + left));
    CHECK_EQ_U64(vals[left].u32, 0xdeadbeefu + (uint32_t)left);
    CHECK_EQ_U64(vals[left].u64, 0x0123456789abcdefull + (uint64_t)left);
    uint8_t g8;
    uint16_t g16;
    uint32_t g32;
    uint64_t g64;
    CHECK_OK(gk_get_u8(right, &vals[me].u8, &g8));
    CHECK_OK(gk_get_u16(right, &vals[me].u16, &g16));
    CHECK_OK(gk_get_u32(right, &vals[me].u32, &g32));
    CHECK_OK(gk_get_u64(right, &vals[me].u64, &g64));
    CHECK_EQ_U64(g8, (uint8_t)(0xa0 + me));
    CHECK_EQ_U64(g16, (uint16_t)(0xbeef + me));
    CHECK_EQ_U64(g32, 0xdeadbeefu + (uint32_t)me);
    CHECK_EQ_U64(g64, 0x0123456789abcdefull + (uint64_t)me);
    CHECK_OK(gk_barrier());

    /* Fence: data, fence, flag; the receiver waits on the flag and must see
     * the data, many times over. */
    uint64_t *data = gk_calloc(64, sizeof(uint64_t));
    uint64_t *flag = gk_calloc(1, sizeof(uint64_t));
    for (uint64_t round = 1; round <= 2000; round++) {
        uint64_t payload[64];
        for (int i = 0; i < 64; i++)
            payload[i] = round * 100 + (uint64_t)i;
        CHECK_OK(gk_put_nbi(right, data, payload, sizeof(payload)));
        CHECK_OK(gk_fence());
        CHECK_OK(gk_put_u64(right, flag, round));
        CHECK_OK(gk_wait_until_u64(flag, GK_CMP_GE, round));
        for (int i = 0; i < 64; i++)
            CHECK_EQ_U64(data[i], round * 100 + (uint64_t)i);
        /* My left neighbour may send the next round only after I read. */
        CHECK_OK(gk_barrier());
    }

    gk_free(flag);
    gk_free(data);
    gk_free(vals);
    gk_free(region);
    free(local);
    free(back);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * win_emul_forged_test: the owner of an emulated window part checks every
 * request before it touches memory. PE 0 plays a broken origin: past the
 * checks of the public calls, it sends PE 1 requests (win/win.h,
 * gk__win_emul_raw: the request exactly as it travels) whose descriptor
 * or arguments are wrong: a layout reaching past the part, garbage
 * instead of a descriptor, a descriptor cut short, a header whose counts
 * do not match its bytes, a chunk past the layout's data, a window that
 * does not exist, and an accumulate whose pieces split elements. Each is
 * refused with its reason, sent back to the origin; then a valid request
 * works, and PE 1's part and the guard bytes after it hold exactly what
 * the valid requests wrote.
 */
#include <stdlib.h>
#include <string.h>

#include "dtype/desc.h"
#include "dtype/type.h"
#include "pe_check.h"
#include "win/win.h"

#define PART 256
#define GUARD 64

/* The descriptor of a committed type, in buf (returns its length). */
static size_t describe(gk_type_t type, char *buf, size_t cap)
{
    const struct gk__dt_flat *flat = NULL;
    CHECK_OK(gk__type_flat("test", "type", type, &flat));
    size_t n = gk__dt_encoded_size(flat);
    CHECK_TRUE(n <= cap);
    gk__dt_encode(flat, buf);
    return n;
}

static void refused(gk_win_t *win, enum gk__win_emul_op kind, size_t disp, uint64_t count,
                    const void *desc, size_t dlen, uint64_t at, const void *data, size_t len,
                    const char *needle)
{
    char why[256] = "";
    int status = gk__win_emul_raw(win, 1, kind, disp, count, desc, dlen, at, data, len, why,
                                  sizeof(why));
    if (status == GK_OK || strstr(why, needle) == NULL)
        PE_FAIL("a forged request (expecting \"%s\") got %d (%s): \"%s\"", needle, status,
                gk_strerror(status), why);
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    char *mem = malloc(PART + GUARD);
    CHECK_NOT_NULL(mem);
    memset(mem, 0xee, PART + GUARD);
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_create(mem, PART, 0, &win));
    if (npes < 2) {
        CHECK_OK(gk_win_free(win));
        free(mem);
        CHECK_OK(gk_finalize());
        return 77; /* needs two PEs */
    }
    CHECK_TRUE(gk__win_part_emulated(win, 1));
    if (me == 0) {
        char desc[1024], data[64];
        memset(data, 0x11, sizeof(data));
        gk_type_t big, split;
        CHECK_OK(gk_type_contiguous(PART + 8, GK_TYPE_BYTE, &big));
        CHECK_OK(gk_type_commit(big));
        size_t blocks[2] = {4, 4};
        ptrdiff_t at[2] = {0, 8};
        CHECK_OK(gk_type_hindexed(2, blocks, at, GK_TYPE_BYTE, &split));
        CHECK_OK(gk_type_commit(split));
        /* A layout reaching past the part, and past it from a displacement. */
        size_t n = describe(big, desc, sizeof(desc));
        refused(win, GK__WIN_EMUL_PUT, 0, 1, desc, n, 0, data, 8, "not inside");
        refused(win, GK__WIN_EMUL_GET, 0, 1, desc, n, 0, NULL, 8, "not inside");
        n = describe(GK_TYPE_INT64, desc, sizeof(desc));
        refused(win, GK__WIN_EMUL_PUT, PART - 4, 1, desc, n, 0, data, 8, "not inside");
        refused(win, GK__WIN_EMUL_PUT, 8, 40, desc, n, 0, data, 8, "not inside");
        refused(win, GK__WIN_EMUL_PUT, PART + 1, 1, desc, n, 0, data, 8, "past its part");
        /* Garbage, a descriptor cut short, counts that do not match. */
        char junk[96];
        memset(junk, 0x5a, sizeof(junk));
        refused(win, GK__WIN_EMUL_PUT, 0, 1, junk, sizeof(junk), 0, data, 8,
                "not a version");
        refused(win, GK__WIN_EMUL_PUT, 0, 1, desc, n - 1, 0, data, 8, "need");
        char forged[1024];
        memcpy(forged, desc, n);
        uint32_t nodes = 1000000;
        memcpy(forged + 8, &nodes, 4);
        refused(win, GK__WIN_EMUL_PUT, 0, 1, forged, n, 0, data, 8, "need");
        /* Data bytes past the layout's, from inside it and from its end. */
        refused(win, GK__WIN_EMUL_PUT, 0, 1, desc, n, 8, data, 8, "not whole elements");
        refused(win, GK__WIN_EMUL_PUT, 0, 2, desc, n, 0, data, 24, "data bytes [0, +24)");
        /* An accumulate whose pieces split its 8-byte elements. */
        n = describe(split, desc, sizeof(desc));
        refused(win, GK__WIN_EMUL_ACC, 0, 1, desc, n, 0, data, 8, "splits or misaligns");
        /* A window that is not there. */
        gk_win_t ghost = *win;
        ghost.id = 999;
        n = describe(GK_TYPE_INT64, desc, sizeof(desc));
        refused(&ghost, GK__WIN_EMUL_PUT, 0, 1, desc, n, 0, data, 8, "does not exist");
        /* And a valid one. */
        char why[256] = "";
        CHECK_OK(gk__win_emul_raw(win, 1, GK__WIN_EMUL_PUT, 16, 1, desc, n, 0, data, 8, why,
                                  sizeof(why)));
        CHECK_OK(gk_type_free(&big));
        CHECK_OK(gk_type_free(&split));
    }
    CHECK_OK(gk_barrier());
    if (me == 1) {
        for (size_t i = 0; i < PART + GUARD; i++)
            CHECK_EQ((unsigned char)mem[i], i >= 16 && i < 24 ? 0x11 : 0xee);
    }
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_win_free(win));
    free(mem);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * errors_test: bad input gets the documented code and one error line that
 * says what was wrong, and the job goes on. Run with GK_HEAP_SIZE=1M.
 *
 * Each bad call runs with stderr captured (CHECK_LOGGED, tests/lib): the
 * call must return the code and log exactly one line, "gasket[PE me]
 * error: ...", that names what the header promises: for range errors the
 * target PE, the address, the length and the heap's bounds; for bad PEs the
 * number and the valid range; for misaligned words the address and the
 * width. Nothing is printed to the real log, so any error or warning line
 * there fails the test (the CTest FAIL_REGULAR_EXPRESSION).
 *
 * Covered: calls before gk_init and after gk_finalize; out-of-bounds puts,
 * gets, value puts/gets, every atomic of every type and waits (just past
 * the heap's end, across it, just before it, a stack address, lengths that
 * overflow); bad PE numbers; NULL buffers and output pointers; misaligned
 * atomics, value puts and waits; bad comparisons; forged handles; heap
 * exhaustion (gk_malloc past GK_HEAP_SIZE returns NULL and says so),
 * calloc overflow, bad alignments, realloc that cannot grow, frees of
 * pointers that are not blocks; heap calls whose arguments differ between
 * PEs (sizes, alignments, blocks, NULL on some PEs, different calls): each
 * PE reports it and nothing is allocated or freed anywhere; a second
 * gk_init; all-reduce arguments and semaphore flags, named in messages.
 */
#include <limits.h>
#include <stdlib.h>

#include "pe_check.h"

static int me, npes, other;
static unsigned char *heap_start, *heap_end;

static const char *hex(const void *p)
{
    return pe_fmt("%p", p);
}

/* The needles of a range error on `pe` for [addr, addr + n). */
#define RANGE_NEEDLES(op, pe, addr, n)                                                   \
    op, "out of bounds", pe_fmt("PE %d", pe), hex(addr),                                 \
        pe_fmt("%zu bytes", (size_t)(n)), hex(heap_start), hex(heap_end)

static void test_before_init(void)
{
    uint64_t x = 0;
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_put(0, &x, &x, 8), "gk_put", "before gk_init");
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_get(0, &x, &x, 8), "gk_get", "before gk_init");
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_put_u64(0, &x, 1), "gk_put_u64", "before gk_init");
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_atomic_add_u64(0, &x, 1), "gk_atomic_add_u64",
                 "before gk_init");
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_wait_until_u64(&x, GK_CMP_EQ, 0),
                 "gk_wait_until_u64", "before gk_init");
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_barrier(), "gk_barrier", "before gk_init");
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_finalize(), "gk_finalize", "before gk_init");
    CHECK_LOGGED_NULL(gk_malloc(64), "gk_malloc", "before gk_init");
    CHECK_EQ(x, 0);
}

static void test_range(void)
{
    uint64_t local[4] = {1, 2, 3, 4}, on_stack[2] = {0};
    gk_handle_t h = {0x1234};

    /* Across the end, just past it, just before the start, on the stack. */
    CHECK_LOGGED(GK_ERR_RANGE, gk_put(other, heap_end - 8, local, 16),
                 RANGE_NEEDLES("gk_put", other, heap_end - 8, 16));
    CHECK_LOGGED(GK_ERR_RANGE, gk_put(other, heap_end, local, 1),
                 RANGE_NEEDLES("gk_put", other, heap_end, 1));
    CHECK_LOGGED(GK_ERR_RANGE, gk_get(other, local, heap_end, 1),
                 RANGE_NEEDLES("gk_get", other, heap_end, 1));
    CHECK_LOGGED(GK_ERR_RANGE, gk_put(other, heap_start - 8, local, 8),
                 RANGE_NEEDLES("gk_put", other, heap_start - 8, 8));
    CHECK_LOGGED(GK_ERR_RANGE, gk_get(other, local, heap_start - 1, 2),
                 RANGE_NEEDLES("gk_get", other, heap_start - 1, 2));
    CHECK_LOGGED(GK_ERR_RANGE, gk_put(other, on_stack, local, 8),
                 RANGE_NEEDLES("gk_put", other, on_stack, 8));
    CHECK_LOGGED(GK_ERR_RANGE, gk_get(other, local, on_stack, 8),
                 RANGE_NEEDLES("gk_get", other, on_stack, 8));
    /* Lengths that overflow: from the start, and wrapping to exactly 0. */
    CHECK_LOGGED(GK_ERR_RANGE, gk_put_nbi(other, heap_start, local, SIZE_MAX),
                 RANGE_NEEDLES("gk_put_nbi", other, heap_start, SIZE_MAX));
    CHECK_LOGGED(GK_ERR_RANGE, gk_get_nbi(other, local, heap_start + 8, SIZE_MAX - 4),
                 RANGE_NEEDLES("gk_get_nbi", other, heap_start + 8, SIZE_MAX - 4));
    CHECK_LOGGED(GK_ERR_RANGE,
                 gk_put_nb(other, heap_start + 16, local, (size_t)0 - 16, &h),
                 RANGE_NEEDLES("gk_put_nb", other, heap_start + 16, (size_t)0 - 16));
    CHECK_LOGGED(GK_ERR_RANGE, gk_get_nb(other, local, heap_end - 1, 2, &h),
                 RANGE_NEEDLES("gk_get_nb", other, heap_end - 1, 2));
    CHECK_EQ(h.opaque, 0x1234); /* written only on success */
    /* One more than the whole heap, from its start. */
    CHECK_LOGGED(
        GK_ERR_RANGE,
        gk_get(other, local, heap_start, (size_t)(heap_end - heap_start) + 1),
        RANGE_NEEDLES("gk_get", other, heap_start, (size_t)(heap_end - heap_start) + 1));

    /* Value puts and gets. */
    CHECK_LOGGED(GK_ERR_RANGE, gk_put_u8(other, heap_end, 1),
                 RANGE_NEEDLES("gk_put_u8", other, heap_end, 1));
    CHECK_LOGGED(GK_ERR_RANGE, gk_put_u16(other, (uint16_t *)(void *)heap_end, 1),
                 RANGE_NEEDLES("gk_put_u16", other, heap_end, 2));
    CHECK_LOGGED(GK_ERR_RANGE, gk_put_u32(other, (uint32_t *)(void *)heap_end, 1),
                 RANGE_NEEDLES("gk_put_u32", other, heap_end, 4));
    CHECK_LOGGED(GK_ERR_RANGE, gk_put_u64(other, on_stack, 1),
                 RANGE_NEEDLES("gk_put_u64", other, on_stack, 8));
    uint8_t v8 = 77;
    uint64_t v64 = 77;
    CHECK_LOGGED(GK_ERR_RANGE, gk_get_u8(other, heap_end, &v8),
                 RANGE_NEEDLES("gk_get_u8", other, heap_end, 1));
    CHECK_LOGGED(GK_ERR_RANGE, gk_get_u64(other, on_stack, &v64),
                 RANGE_NEEDLES("gk_get_u64", other, on_stack, 8));
    CHECK_EQ(v8, 77);
    CHECK_EQ(v64, 77);

    /* Zero bytes are fine anywhere. */
    CHECK_OK_SILENT(gk_put(other, heap_end, local, 0));
    CHECK_OK_SILENT(gk_get(other, local, on_stack, 0));
    /* The last bytes of the heap are fine, though no block holds them;
     * check mode refuses bytes in no block (docs/CHECK.md), so these run
     * without it only. */
    const char *check = getenv("GK_CHECK");
    if (check != NULL && strcmp(check, "0") != 0)
        return;
    /* Nothing was written by the put across the end. */
    uint64_t tail = 99;
    CHECK_OK(gk_get(other, &tail, heap_end - 8, 8));
    CHECK_EQ(tail, 0);
    CHECK_OK_SILENT(gk_put(other, heap_end - 8, local, 8));
    CHECK_OK(gk_barrier());
    /* Clear it again for the next run of the checks above. */
    CHECK_OK(gk_put(other, heap_end - 8, &(uint64_t){0}, 8));
    CHECK_OK(gk_barrier());
}

/* Every atomic of type T at the word just past the heap, and on the stack. */
#define ATOMIC_RANGE(T, ctype)                                                           \
    do {                                                                                 \
        ctype *end_ = (ctype *)(void *)heap_end, stack_[2] = {0}, old_ = 5;              \
        const size_t n_ = sizeof(ctype);                                                 \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_fetch_##T(other, end_, &old_),              \
                     RANGE_NEEDLES("gk_atomic_fetch_" #T, other, end_, n_));             \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_set_##T(other, end_, 1),                    \
                     RANGE_NEEDLES("gk_atomic_set_" #T, other, end_, n_));               \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_swap_##T(other, end_, 1, &old_),            \
                     RANGE_NEEDLES("gk_atomic_swap_" #T, other, end_, n_));              \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_compare_swap_##T(other, end_, 0, 1, &old_), \
                     RANGE_NEEDLES("gk_atomic_compare_swap_" #T, other, end_, n_));      \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_fetch_add_##T(other, end_, 1, &old_),       \
                     RANGE_NEEDLES("gk_atomic_fetch_add_" #T, other, end_, n_));         \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_add_##T(other, end_, 1),                    \
                     RANGE_NEEDLES("gk_atomic_add_" #T, other, end_, n_));               \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_fetch_and_##T(other, end_, 1, &old_),       \
                     RANGE_NEEDLES("gk_atomic_fetch_and_" #T, other, end_, n_));         \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_fetch_or_##T(other, end_, 1, &old_),        \
                     RANGE_NEEDLES("gk_atomic_fetch_or_" #T, other, end_, n_));          \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_fetch_xor_##T(other, end_, 1, &old_),       \
                     RANGE_NEEDLES("gk_atomic_fetch_xor_" #T, other, end_, n_));         \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_and_##T(other, stack_, 1),                  \
                     RANGE_NEEDLES("gk_atomic_and_" #T, other, stack_, n_));             \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_or_##T(other, stack_, 1),                   \
                     RANGE_NEEDLES("gk_atomic_or_" #T, other, stack_, n_));              \
        CHECK_LOGGED(GK_ERR_RANGE, gk_atomic_xor_##T(other, stack_, 1),                  \
                     RANGE_NEEDLES("gk_atomic_xor_" #T, other, stack_, n_));             \
        CHECK_EQ(old_, 5); /* written only on success */                                 \
        CHECK_EQ(stack_[0], 0);                                                          \
        /* Waits watch my own heap: a word outside it is a range error. */               \
        int ok_ = 7;                                                                     \
        CHECK_LOGGED(GK_ERR_RANGE, gk_wait_until_##T(stack_, GK_CMP_EQ, 0),              \
                     RANGE_NEEDLES("gk_wait_until_" #T, me, stack_, n_));                \
        CHECK_LOGGED(GK_ERR_RANGE, gk_test_##T(end_, GK_CMP_EQ, 0, &ok_),                \
                     RANGE_NEEDLES("gk_test_" #T, me, end_, n_));                        \
        CHECK_EQ(ok_, 7);                                                                \
    } while (0)

static void test_bad_pe(void)
{
    const int bad[] = {-1, npes, npes + 1, INT_MIN, INT_MAX};
    uint64_t local = 0, *word = (uint64_t *)(void *)heap_start;
    gk_handle_t h = {0x1234};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int pe = bad[i];
        const char *name = pe_fmt("PE %d", pe), *range = pe_fmt("0 to %d", npes - 1);
        CHECK_LOGGED(GK_ERR_PE, gk_put(pe, word, &local, 8), "gk_put", name, range);
        CHECK_LOGGED(GK_ERR_PE, gk_get(pe, &local, word, 8), "gk_get", name, range);
        CHECK_LOGGED(GK_ERR_PE, gk_put_nbi(pe, word, &local, 8), "gk_put_nbi", name,
                     range);
        CHECK_LOGGED(GK_ERR_PE, gk_get_nbi(pe, &local, word, 8), "gk_get_nbi", name,
                     range);
        CHECK_LOGGED(GK_ERR_PE, gk_put_nb(pe, word, &local, 8, &h), "gk_put_nb", name,
                     range);
        CHECK_LOGGED(GK_ERR_PE, gk_get_nb(pe, &local, word, 8, &h), "gk_get_nb", name,
                     range);
        CHECK_LOGGED(GK_ERR_PE, gk_put_u32(pe, (uint32_t *)word, 1), "gk_put_u32", name,
                     range);
        CHECK_LOGGED(GK_ERR_PE, gk_get_u64(pe, word, &local), "gk_get_u64", name, range);
        CHECK_LOGGED(GK_ERR_PE,
                     gk_atomic_fetch_add_i64(pe, (int64_t *)word, 1, &(int64_t){0}),
                     "gk_atomic_fetch_add_i64", name, range);
        CHECK_LOGGED(
            GK_ERR_PE,
            gk_atomic_compare_swap_u32(pe, (uint32_t *)word, 0, 1, &(uint32_t){0}),
            "gk_atomic_compare_swap_u32", name, range);
        CHECK_LOGGED(GK_ERR_PE, gk_atomic_xor_i32(pe, (int32_t *)word, 1),
                     "gk_atomic_xor_i32", name, range);
        CHECK_NULL(gk_ptr(word, pe));
    }
    CHECK_EQ(h.opaque, 0x1234);
    CHECK_EQ(*word, 0);
}

static void test_null_buffers(void)
{
    uint64_t *word = (uint64_t *)(void *)(heap_start + 64);
    uint64_t local = 0;
    gk_handle_t h = {0x1234};
    int done = 0;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_put(other, word, NULL, 8), "gk_put", "src",
                 "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_get(other, NULL, word, 8), "gk_get", "dst",
                 "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_put_nbi(other, word, NULL, 1), "gk_put_nbi",
                 "src");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_get_nbi(other, NULL, word, 1), "gk_get_nbi",
                 "dst");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_put_nb(other, word, NULL, 8, &h), "gk_put_nb",
                 "src");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_get_nb(other, NULL, word, 8, &h), "gk_get_nb",
                 "dst");
    CHECK_EQ(h.opaque, 0x1234);
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_put_nb(other, word, &local, 8, NULL), "gk_put_nb",
                 "handle");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_get_nb(other, &local, word, 8, NULL), "gk_get_nb",
                 "handle");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_get_u32(other, (uint32_t *)word, NULL),
                 "gk_get_u32", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_atomic_fetch_u64(other, word, NULL),
                 "gk_atomic_fetch_u64", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_atomic_fetch_add_i32(other, (int32_t *)word, 1, NULL),
                 "gk_atomic_fetch_add_i32", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_atomic_swap_u32(other, (uint32_t *)word, 1, NULL),
                 "gk_atomic_swap_u32", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_atomic_compare_swap_i64(other, (int64_t *)word, 0, 1, NULL),
                 "gk_atomic_compare_swap_i64", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_atomic_fetch_or_u64(other, word, 1, NULL),
                 "gk_atomic_fetch_or_u64", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_test_u64(word, GK_CMP_EQ, 0, NULL), "gk_test_u64",
                 "NULL");
    gk_handle_t complete = GK_HANDLE_NULL;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_test(&complete, NULL), "gk_handle_test", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_test(NULL, &done), "gk_handle_test", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_wait(NULL), "gk_handle_wait", "NULL");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_wait_all(NULL, 3), "gk_handle_wait_all", "NULL");
    CHECK_OK(gk_barrier());
    /* None of them wrote anything. */
    CHECK_EQ(*word, 0);
}

#define ATOMIC_ALIGN(T, ctype)                                                           \
    do {                                                                                 \
        for (size_t off_ = 1; off_ < sizeof(ctype); off_ <<= 1) {                        \
            ctype *bad_ = (ctype *)(void *)(heap_start + 128 + off_), old_ = 5;          \
            const char *w_ = pe_fmt("aligned to %zu bytes", sizeof(ctype));              \
            CHECK_LOGGED(GK_ERR_ALIGN, gk_atomic_fetch_add_##T(other, bad_, 1, &old_),   \
                         "gk_atomic_fetch_add_" #T, pe_fmt("PE %d", other), hex(bad_),   \
                         w_);                                                            \
            CHECK_LOGGED(GK_ERR_ALIGN,                                                   \
                         gk_atomic_compare_swap_##T(other, bad_, 0, 1, &old_),           \
                         "gk_atomic_compare_swap_" #T, hex(bad_), w_);                   \
            CHECK_LOGGED(GK_ERR_ALIGN, gk_atomic_set_##T(other, bad_, 1),                \
                         "gk_atomic_set_" #T, hex(bad_), w_);                            \
            CHECK_LOGGED(GK_ERR_ALIGN, gk_atomic_fetch_##T(other, bad_, &old_),          \
                         "gk_atomic_fetch_" #T, hex(bad_), w_);                          \
            CHECK_LOGGED(GK_ERR_ALIGN, gk_atomic_or_##T(other, bad_, 1),                 \
                         "gk_atomic_or_" #T, hex(bad_), w_);                             \
            CHECK_LOGGED(GK_ERR_ALIGN, gk_wait_until_##T(bad_, GK_CMP_EQ, 0),            \
                         "gk_wait_until_" #T, hex(bad_), w_);                            \
            CHECK_LOGGED(GK_ERR_ALIGN, gk_test_##T(bad_, GK_CMP_EQ, 0, &(int){0}),       \
                         "gk_test_" #T, hex(bad_), w_);                                  \
            CHECK_EQ(old_, 5);                                                           \
        }                                                                                \
    } while (0)

static void test_alignment(void)
{
    ATOMIC_ALIGN(i32, int32_t);
    ATOMIC_ALIGN(u32, uint32_t);
    ATOMIC_ALIGN(i64, int64_t);
    ATOMIC_ALIGN(u64, uint64_t);
    unsigned char *b = heap_start + 256;
    uint16_t g16;
    uint32_t g32;
    uint64_t g64;
    CHECK_LOGGED(GK_ERR_ALIGN, gk_put_u16(other, (uint16_t *)(void *)(b + 1), 1),
                 "gk_put_u16", hex(b + 1), "aligned to 2 bytes");
    CHECK_LOGGED(GK_ERR_ALIGN, gk_put_u32(other, (uint32_t *)(void *)(b + 2), 1),
                 "gk_put_u32", hex(b + 2), "aligned to 4 bytes");
    CHECK_LOGGED(GK_ERR_ALIGN, gk_put_u64(other, (uint64_t *)(void *)(b + 4), 1),
                 "gk_put_u64", hex(b + 4), "aligned to 8 bytes");
    CHECK_LOGGED(GK_ERR_ALIGN, gk_get_u16(other, (uint16_t *)(void *)(b + 3), &g16),
                 "gk_get_u16", hex(b + 3), "aligned to 2 bytes");
    CHECK_LOGGED(GK_ERR_ALIGN, gk_get_u32(other, (uint32_t *)(void *)(b + 1), &g32),
                 "gk_get_u32", hex(b + 1), "aligned to 4 bytes");
    CHECK_LOGGED(GK_ERR_ALIGN, gk_get_u64(other, (uint64_t *)(void *)(b + 7), &g64),
                 "gk_get_u64", hex(b + 7), "aligned to 8 bytes");
    CHECK_OK(gk_barrier());
    for (int i = 0; i < 16; i++)
        CHECK_EQ(b[i], 0);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(heap_start[128 + i], 0);
}

#define BAD_CMP(T, ctype)                                                                \
    do {                                                                                 \
        ctype *w_ = (ctype *)(void *)(heap_start + 512);                                 \
        int ok_ = 7;                                                                     \
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_wait_until_##T(w_, (gk_cmp_t)6, 0),          \
                     "gk_wait_until_" #T, "comparison 6");                               \
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_wait_until_##T(w_, (gk_cmp_t) - 1, 0),       \
                     "gk_wait_until_" #T, "comparison -1");                              \
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_test_##T(w_, (gk_cmp_t)99, 0, &ok_),         \
                     "gk_test_" #T, "comparison 99");                                    \
        CHECK_EQ(ok_, 7);                                                                \
    } while (0)

static void test_bad_cmp_and_handles(void)
{
    BAD_CMP(i32, int32_t);
    BAD_CMP(u32, uint32_t);
    BAD_CMP(i64, int64_t);
    BAD_CMP(u64, uint64_t);

    gk_handle_t forged = {42};
    int done = 7;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_wait(&forged), "gk_handle_wait", "0x2a");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_test(&forged, &done), "gk_handle_test", "0x2a");
    CHECK_EQ(done, 7);
    gk_handle_t two[2] = {GK_HANDLE_NULL, {0xbad}};
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_wait_all(two, 2), "gk_handle_wait_all", "0xbad");

    /* gasket's handles carry a tag over the PE they name (src/rma/rma.c):
     * one that has the tag but names a PE out of range, or this PE (always
     * mapped, so never given a handle), or that names a PE reached through
     * a transport under a tag one off, was not issued either. */
    const uint64_t tag = UINT64_C(0x676b4800) << 32;
    gk_handle_t forged_tagged[3] = {{tag | (uint64_t)npes},
                                    {tag | (uint64_t)me},
                                    {(tag + (UINT64_C(1) << 32)) | (uint64_t)other}};
    for (int i = 0; i < 3; i++) {
        gk_handle_t h = forged_tagged[i];
        const char *value = pe_fmt("%#llx", (unsigned long long)h.opaque);
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_wait(&h), "gk_handle_wait", value,
                     "was not issued by gasket");
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_handle_test(&h, &done), "gk_handle_test",
                     value, "was not issued by gasket");
        CHECK_EQ_U64(h.opaque, forged_tagged[i].opaque); /* left as it was */
        CHECK_EQ(done, 7);
    }
    /* The same tag over a PE reached through a transport is a handle gasket
     * issues (gk_put_nb there): waiting completes it. */
    if (other != me && gk_ptr(heap_start, other) == NULL) {
        gk_handle_t issued = {tag | (uint64_t)other};
        CHECK_OK_SILENT(gk_handle_wait(&issued));
        CHECK_EQ_U64(issued.opaque, 0);
    }
}

/* Collective: every PE runs the same failing allocations. */
static void test_heap_exhaustion(void)
{
    size_t heap = gk_heap_size();
    CHECK_EQ(heap, (size_t)1 << 20); /* GK_HEAP_SIZE=1M */
    size_t before = gk_heap_free();

    CHECK_LOGGED_NULL(gk_malloc((size_t)2 << 20), "gk_malloc", "GK_HEAP_SIZE", "2097152",
                      pe_fmt("%zu", before));
    CHECK_LOGGED_NULL(gk_malloc(before + 1), "gk_malloc", "GK_HEAP_SIZE",
                      pe_fmt("%zu", before + 1));
    CHECK_LOGGED_NULL(gk_calloc((size_t)1 << 20, 2), "gk_calloc", "GK_HEAP_SIZE");
    CHECK_LOGGED_NULL(gk_calloc(SIZE_MAX / 2, 4), "gk_calloc", "overflow");
    CHECK_LOGGED_NULL(gk_align(3, 64), "gk_align", "alignment 3");
    CHECK_LOGGED_NULL(gk_align(0, 64), "gk_align", "alignment 0");
    CHECK_LOGGED_NULL(gk_align((size_t)4 << 20, 64), "gk_align", "4194304");
    /* A valid alignment that the heap cannot satisfy (offset 0 is taken). */
    CHECK_LOGGED_NULL(gk_align((size_t)1 << 20, 64), "gk_align", "GK_HEAP_SIZE");
    CHECK_EQ(gk_heap_free(), before);

    /* realloc that cannot grow: NULL, and the old block is untouched. */
    unsigned char *keep = gk_malloc(1000);
    CHECK_NOT_NULL(keep);
    for (int i = 0; i < 1000; i++)
        keep[i] = (unsigned char)(i * 3 + me);
    CHECK_LOGGED_NULL(gk_realloc(keep, (size_t)2 << 20), "gk_realloc", "GK_HEAP_SIZE");
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(keep[i], (unsigned char)(i * 3 + me));

    /* Frees and reallocs of pointers that are not blocks. */
    int on_stack = 0;
    CHECK_LOGGED(GK_OK, (gk_free(&on_stack), GK_OK), "gk_free", hex(&on_stack));
    CHECK_LOGGED(GK_OK, (gk_free(keep + 64), GK_OK), "gk_free", hex(keep + 64));
    CHECK_LOGGED_NULL(gk_realloc(&on_stack, 64), "gk_realloc", hex(&on_stack));
    gk_free(keep);
    CHECK_EQ(gk_heap_free(), before);

    /* And the job goes on: allocate, put, get. */
    uint64_t *again = gk_malloc(1024);
    CHECK_NOT_NULL(again);
    CHECK_OK(gk_put(other, again, &(uint64_t){1000 + (uint64_t)me}, 8));
    CHECK_OK(gk_barrier());
    CHECK_EQ(*again, 1000 + (uint64_t)((me + npes - 1) % npes));
    gk_free(again);
    CHECK_EQ(gk_heap_free(), before);
}

/*
 * Collective heap calls with arguments that differ between PEs: every PE
 * logs one line naming what differs, its own value and the range, and the
 * heaps stay in step (nothing allocated, nothing freed).
 */
static void test_heap_mismatch(void)
{
    if (npes < 2)
        return;
    size_t before = gk_heap_free();
    size_t size = me == 0 ? 128 : 64;
    CHECK_LOGGED_NULL(gk_malloc(size), "gk_malloc", "different sizes", "from 64 to 128",
                      pe_fmt("this PE %zu", size));
    CHECK_LOGGED_NULL(gk_calloc(size, 2), "gk_calloc", "different sizes", "from 128 to 256");
    size_t alignment = me == npes - 1 ? 4096 : 64;
    CHECK_LOGGED_NULL(gk_align(alignment, 256), "gk_align", "different alignments",
                      "from 64 to 4096", pe_fmt("this PE %zu", alignment));
    CHECK_EQ(gk_heap_free(), before);

    unsigned char *a = gk_malloc(256), *b = gk_malloc(256);
    CHECK_NOT_NULL(a);
    CHECK_NOT_NULL(b);
    size_t with_blocks = gk_heap_free();
    a[0] = 42;
    /* Different blocks, and a block against NULL: nothing is freed. */
    CHECK_LOGGED(GK_OK, (gk_free(me == 0 ? a : b), GK_OK), "gk_free", "different blocks");
    CHECK_LOGGED(GK_OK, (gk_free(me == 0 ? NULL : a), GK_OK), "gk_free", "different blocks");
    CHECK_EQ(gk_heap_free(), with_blocks);
    /* Resizes that differ, and a PE in another heap call: a is unchanged. */
    CHECK_LOGGED_NULL(gk_realloc(a, size * 8), "gk_realloc", "different sizes");
    CHECK_LOGGED_NULL(gk_realloc(me == 0 ? NULL : a, 64), "different heap calls", "gk_malloc",
                      "gk_realloc");
    CHECK_EQ(gk_heap_free(), with_blocks);
    CHECK_EQ(a[0], 42);

    /* In step again: both blocks go, and the heap is as it was. */
    gk_free(b);
    gk_free(a);
    CHECK_EQ(gk_heap_free(), before);
    CHECK_SILENT(gk_free(NULL));
}

/* All-reduce arguments that differ between PEs, or fail on one PE: every PE
 * gets GK_ERR_INVALID_ARG and a message (none waits for pieces another
 * never sends), and the next call, in step again, is right. */
static void test_allreduce_mismatch(void)
{
    if (npes < 2)
        return;
    enum { N = 600 }; /* two pieces of uint64 (4 KiB each) */
    uint64_t in[N], out[N];
    for (size_t i = 0; i < N; i++)
        in[i] = i + (uint64_t)me;
    size_t count = me == npes - 1 ? N : 10;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(out, in, count, GK_DTYPE_UINT64, GK_OP_SUM),
                 "gk_allreduce", "different arguments", pe_fmt("count %zu", count),
                 "dtype GK_DTYPE_UINT64");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(out, in, 4, GK_DTYPE_UINT64, me == 0 ? GK_OP_MAX : GK_OP_SUM),
                 "gk_allreduce", "different arguments",
                 me == 0 ? "op GK_OP_MAX)" : "op GK_OP_SUM)");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_allreduce(out, in, me == 1 ? 0 : 3, GK_DTYPE_UINT64, GK_OP_SUM),
                 "gk_allreduce", "different arguments");
    if (me == 0)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(NULL, in, 4, GK_DTYPE_UINT64, GK_OP_SUM),
                     "gk_allreduce", "dst");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(out, in, 4, GK_DTYPE_UINT64, GK_OP_SUM),
                     "gk_allreduce", "another PE");
    /* Values are named, or said not to be of the type. */
    if (me == npes - 1)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(out, in, 4, GK_DTYPE_UINT64, (gk_op_t)99),
                     "gk_allreduce: op 99 (not a gk_op_t) is not valid");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(out, in, 4, GK_DTYPE_UINT64, GK_OP_SUM),
                     "gk_allreduce");
    if (me == 0)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(out, in, 4, GK_DTYPE_UINT64, GK_OP_NO_OP),
                     "gk_allreduce: GK_OP_NO_OP is not valid");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(out, in, 4, GK_DTYPE_UINT64, GK_OP_SUM),
                     "gk_allreduce");
    if (me == npes - 1)
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(out, in, 4, (gk_dtype_t)77, GK_OP_SUM),
                     "gk_allreduce: dtype 77 (not a gk_dtype_t) is not valid");
    else
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_allreduce(out, in, 4, GK_DTYPE_UINT64, GK_OP_SUM),
                     "gk_allreduce");
    CHECK_OK(gk_allreduce(out, in, N, GK_DTYPE_UINT64, GK_OP_SUM));
    uint64_t pes = (uint64_t)npes;
    for (size_t i = 0; i < N; i++)
        CHECK_EQ_U64(out[i], pes * i + pes * (pes - 1) / 2);
}

/* Contradictory semaphore flags: the message names both constants. */
static void test_sem_flags(void)
{
    gk_sem_t sem = GK_SEM_NULL;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_sem_alloc(GK_SEM_INTEGER | GK_SEM_BOOLEAN, &sem),
                 "gk_sem_alloc", "(GK_SEM_INTEGER and GK_SEM_BOOLEAN)");
    CHECK_LOGGED(GK_ERR_INVALID_ARG,
                 gk_sem_alloc(GK_SEM_SINGLE_CONSUMER | GK_SEM_MULTI_CONSUMER, &sem),
                 "gk_sem_alloc", "(GK_SEM_MULTI_CONSUMER and GK_SEM_SINGLE_CONSUMER)");
}

int main(void)
{
    test_before_init();
    CHECK_OK(gk_init());
    me = gk_my_pe();
    npes = gk_n_pes();
    /* A process is one PE, once: a second start is refused and says so. */
    CHECK_LOGGED(GK_ERR_ALREADY_INIT, gk_init(), "gk_init: this process is already "
                 "initialized", pe_fmt("as PE %d", me));
    gk_thread_level_t provided = (gk_thread_level_t)99; /* untouched on failure */
    CHECK_LOGGED(GK_ERR_ALREADY_INIT, gk_init_thread(GK_THREAD_SINGLE, &provided),
                 "gk_init_thread: this process is already initialized");
    CHECK_EQ(provided, (gk_thread_level_t)99);
    other = (me + 1) % npes;

    /* The first block starts the heap: check that with gk_ptr. */
    size_t heap = gk_heap_size();
    heap_start = gk_calloc(4096, 1);
    CHECK_NOT_NULL(heap_start);
    heap_end = heap_start + heap;
    CHECK_NOT_NULL(gk_ptr(heap_start, me));
    CHECK_NOT_NULL(gk_ptr(heap_end - 1, me));
    CHECK_NULL(gk_ptr(heap_start - 1, me));
    CHECK_NULL(gk_ptr(heap_end, me));

    /* Twice: a first error must not change how the next is handled. */
    for (int round = 0; round < 2; round++) {
        test_range();
        ATOMIC_RANGE(i32, int32_t);
        ATOMIC_RANGE(u32, uint32_t);
        ATOMIC_RANGE(i64, int64_t);
        ATOMIC_RANGE(u64, uint64_t);
        test_bad_pe();
        test_null_buffers();
        test_alignment();
        test_bad_cmp_and_handles();
        CHECK_OK(gk_barrier());
    }
    test_heap_exhaustion();
    test_heap_mismatch();
    test_allreduce_mismatch();
    test_sem_flags();

    gk_free(heap_start);
    CHECK_OK(gk_finalize());
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_barrier(), "gk_barrier", "before gk_init");
    CHECK_LOGGED(GK_ERR_NOT_INIT, gk_put(0, &npes, &npes, 4), "gk_put", "before gk_init");
    if (me == 0)
        printf("errors_test: %d PEs ok, every error as documented\n", npes);
    return 0;
}

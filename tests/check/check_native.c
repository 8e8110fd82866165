/*
 * check_native: the completion bugs check mode (GK_CHECK=1) is for, written
 * as a user would write them with the native API, each beside its correct
 * form. Run at 2 PEs: `check_native <case> wrong|right`.
 *
 *   get_nbi_read   PE 0 reads a gk_get_nbi destination before gk_quiet
 *   get_nb_read    the same with gk_get_nb, before gk_handle_wait
 *   flag_no_fence  PE 0 raises PE 1's flag after gk_put_nbi with no fence
 *   put_nbi_reuse  PE 0 writes a gk_put_nbi source before gk_quiet
 *
 * A program that reads stale data says so ("stale: ...") and fails; the
 * tests (CMakeLists.txt) expect that line from the wrong forms in check
 * mode, or the checker's own report for the source reuse, which leaves
 * the data right. The right forms must pass with no report at all.
 *
 * The flag case's PE 0 waits for PE 1's verdict by polling a word of its
 * own heap, not with a gasket wait: a wait that sleeps is a completion
 * point in check mode, and the put must stay incomplete until PE 1 read.
 */
#include <sched.h>
#include <stdatomic.h>

#include "pe_check.h"

enum { WORDS = 64 };

static uint64_t value_of(size_t i)
{
    return 0x1000 + i;
}

/* Fails the job as the user's own check would, naming what it saw. */
static void expect_data(const uint64_t *got, const char *what)
{
    for (size_t i = 0; i < WORDS; i++)
        if (got[i] != value_of(i))
            PE_FAIL("stale: %s word %zu is %#llx, not %#llx", what, i,
                    (unsigned long long)got[i], (unsigned long long)value_of(i));
}

static void poll_until_set(uint64_t *word)
{
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
}

int main(int argc, char **argv)
{
    if (argc != 3)
        PE_FAIL("usage: check_native get_nbi_read|get_nb_read|flag_no_fence|put_nbi_reuse "
                "wrong|right");
    const char *which = argv[1];
    int right = strcmp(argv[2], "right") == 0;
    CHECK_OK(gk_init());
    CHECK_EQ(gk_n_pes(), 2);
    int me = gk_my_pe();
    uint64_t *data = gk_calloc(WORDS, sizeof(uint64_t));
    uint64_t *flag = gk_calloc(2, sizeof(uint64_t)); /* [0] the flag, [1] the answer */
    CHECK_NOT_NULL(data);
    CHECK_NOT_NULL(flag);
    uint64_t local[WORDS];
    for (size_t i = 0; i < WORDS; i++)
        local[i] = value_of(i);

    if (strcmp(which, "get_nbi_read") == 0) {
        if (me == 1)
            memcpy(data, local, sizeof(local));
        CHECK_OK(gk_barrier());
        if (me == 0) {
            uint64_t got[WORDS];
            CHECK_OK(gk_get_nbi(1, got, data, sizeof(got)));
            if (right)
                CHECK_OK(gk_quiet());
            uint64_t copy[WORDS];
            memcpy(copy, got, sizeof(copy)); /* the wrong form's early read */
            CHECK_OK(gk_quiet());
            expect_data(copy, "gk_get_nbi destination");
        }
    } else if (strcmp(which, "get_nb_read") == 0) {
        if (me == 1)
            memcpy(data, local, sizeof(local));
        CHECK_OK(gk_barrier());
        if (me == 0) {
            uint64_t got[WORDS];
            gk_handle_t handle;
            CHECK_OK(gk_get_nb(1, got, data, sizeof(got), &handle));
            if (right)
                CHECK_OK(gk_handle_wait(&handle));
            uint64_t copy[WORDS];
            memcpy(copy, got, sizeof(copy));
            CHECK_OK(gk_handle_wait(&handle));
            expect_data(copy, "gk_get_nb destination");
        }
    } else if (strcmp(which, "flag_no_fence") == 0) {
        CHECK_OK(gk_barrier());
        if (me == 0) {
            CHECK_OK(gk_put_nbi(1, data, local, sizeof(local)));
            if (right)
                CHECK_OK(gk_fence());
            CHECK_OK(gk_put_u64(1, &flag[0], 1));
            poll_until_set(&flag[1]); /* PE 1 has read */
        } else {
            CHECK_OK(gk_wait_until_u64(&flag[0], GK_CMP_EQ, 1));
            uint64_t copy[WORDS];
            memcpy(copy, data, sizeof(copy));
            CHECK_OK(gk_put_u64(0, &flag[1], 1));
            expect_data(copy, "data under the flag");
        }
    } else if (strcmp(which, "put_nbi_reuse") == 0) {
        if (me == 0) {
            uint64_t src[WORDS];
            memcpy(src, local, sizeof(src));
            CHECK_OK(gk_put_nbi(1, data, src, sizeof(src)));
            if (right)
                CHECK_OK(gk_quiet());
            src[0] = 0xdead; /* the wrong form's reuse */
            CHECK_OK(gk_quiet());
        }
        CHECK_OK(gk_barrier());
        if (me == 1)
            expect_data(data, "the put's data");
    } else {
        PE_FAIL("unknown case %s", which);
    }
    CHECK_OK(gk_barrier());
    gk_free(flag);
    gk_free(data);
    CHECK_OK(gk_finalize());
    return 0;
}

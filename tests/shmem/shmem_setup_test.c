/*
 * shmem_setup_test.c: shmem_init and the queries, the deprecated start_pes,
 * _my_pe and _num_pes, the symmetric heap's routines, and a program that
 * mixes shmem_* and gk_* calls on one runtime. With an argument N, the
 * heap must be N MiB (SHMEM_SYMMETRIC_SIZE set by the test); with
 * "deprecated", start with start_pes() and return from main without
 * shmem_finalize(), as programs written before OpenSHMEM 1.3 do: the
 * layer finalizes at exit, and the job ends well. shmem_align with
 * alignments up to half the heap.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* shmem_align takes any power of two the heap can hold, past the 2 MiB of
 * the mapping's own alignment: the block is aligned on every PE, and a
 * put into it lands. A bad alignment is NULL with a message naming it. */
static void test_align_large(void)
{
    size_t heap = gk_heap_size();
    for (size_t alignment = (size_t)4 << 20; alignment <= heap / 2; alignment *= 2) {
        long *b = shmem_align(alignment, 64);
        CHECK_NOT_NULL(b);
        CHECK_EQ((uintptr_t)b % alignment, 0);
        int me = shmem_my_pe(), n = shmem_n_pes();
        shmem_long_p(&b[1], me, (me + 1) % n);
        shmem_barrier_all();
        CHECK_EQ(b[1], (me + n - 1) % n);
        shmem_free(b);
    }
    CHECK_LOGGED_NULL(shmem_align(3 * 4096, 64), "alignment 12288", "not a power of two");
    size_t too_large = (size_t)1 << 40; /* a power of two past any test's heap */
    CHECK_LOGGED_NULL(shmem_align(too_large, 64), "alignment 1099511627776",
                      "is above the largest");
}

int main(int argc, char **argv)
{
    int deprecated = argc > 1 && strcmp(argv[1], "deprecated") == 0;
    if (deprecated)
        start_pes(0);
    else
        shmem_init();
    shmem_init(); /* again: the runtime is up, nothing happens */
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK_EQ(me, gk_my_pe());
    CHECK_EQ(n, gk_n_pes());
    CHECK_EQ(_my_pe(), me);
    CHECK_EQ(_num_pes(), n);
    if (argc > 1 && !deprecated)
        CHECK_EQ(gk_heap_size(), (size_t)strtoul(argv[1], NULL, 10) << 20);

    int major, minor, provided = -1;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    CHECK_EQ(major, SHMEM_MAJOR_VERSION);
    CHECK_EQ(minor, 5);
    shmem_info_get_name(name);
    CHECK_EQ(strcmp(name, SHMEM_VENDOR_STRING), 0);
    CHECK_EQ(shmem_query_thread(&provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_SINGLE);

    CHECK_TRUE(shmem_pe_accessible(0));
    CHECK_TRUE(shmem_pe_accessible(n - 1));
    CHECK_TRUE(!shmem_pe_accessible(n));
    CHECK_TRUE(!shmem_pe_accessible(-1));

    /* Memory: every routine, with the values it must keep. */
    long *a = shmem_malloc(16 * sizeof(long));
    CHECK_NOT_NULL(a);
    CHECK_TRUE(shmem_addr_accessible(a, (me + 1) % n));
    CHECK_TRUE(!shmem_addr_accessible(&me, 0));
    CHECK_TRUE(!shmem_addr_accessible(a, n));
    CHECK_TRUE(shmem_ptr(a, me) == (void *)a);
    CHECK_NULL(shmem_ptr(&me, me));
    int *z = shmem_calloc(100, sizeof(int));
    CHECK_NOT_NULL(z);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(z[i], 0);
    void *al = shmem_align(4096, 100);
    CHECK_NOT_NULL(al);
    CHECK_EQ((uintptr_t)al % 4096, 0);
    for (int i = 0; i < 16; i++)
        a[i] = me * 100 + i;
    a = shmem_realloc(a, 1024 * sizeof(long));
    CHECK_NOT_NULL(a);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(a[i], me * 100 + i);
    void *h = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK_NOT_NULL(h);
    CHECK_NULL(shmem_malloc(0));

    /* shmem_ptr gives a real pointer to a PE of this node: a store through
     * it is seen there (GK_NET_INDIRECT=1: no pointer, NULL). */
    int right = (me + 1) % n;
    long *peer = shmem_ptr(a, right);
    shmem_barrier_all();
    if (peer != NULL)
        peer[20] = 1000 + me;
    else
        shmem_long_p(&a[20], 1000 + me, right);
    shmem_barrier_all();
    CHECK_EQ(a[20], 1000 + (me + n - 1) % n);

    /* The deprecated heap routines. */
    double *d = shmalloc(8 * sizeof(double));
    CHECK_NOT_NULL(d);
    void *da = shmemalign(256, 64);
    CHECK_EQ((uintptr_t)da % 256, 0);
    d = shrealloc(d, 16 * sizeof(double));
    CHECK_NOT_NULL(d);
    shfree(da);
    shfree(d);
    /* The cache routines exist, and a put stays visible across them. */
    shmem_set_cache_inv();
    shmem_set_cache_line_inv(a);
    shmem_clear_cache_inv();
    shmem_clear_cache_line_inv(a);
    shmem_udcflush();
    shmem_udcflush_line(a);
    CHECK_EQ(a[20], 1000 + (me + n - 1) % n);

    /* Both APIs on one heap: a gk_put into shmem_malloc'd memory. */
    CHECK_OK(gk_put(right, &a[30], &me, sizeof(int)));
    shmem_barrier_all();
    CHECK_EQ(((int *)&a[30])[0], (me + n - 1) % n);
    CHECK_TRUE(shmemx_wtime() > 0.0);

    test_align_large();
    shmem_free(h);
    shmem_free(al);
    shmem_free(z);
    shmem_free(a);
    shmem_pcontrol(1);
    if (deprecated) {
        shmem_barrier_all(); /* the others' checks are done, then exit */
        return 0;
    }
    shmem_finalize();
    shmem_finalize(); /* finalized: nothing happens */
    return 0;
}

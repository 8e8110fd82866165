/*
 * Unit tests of segment creation (src/mem/segment.c) against the real
 * /dev/shm: the pages a segment can touch (the heap and the used ranges of
 * the runtime's area for the job's PE count) are reserved when it is
 * created (a sparse one would fail later, with SIGBUS, on the first page
 * /dev/shm has no room for), and no others; the used ranges are whole
 * pages, in order, below the heap, and within the area's budget; one
 * larger than /dev/shm's free space is refused at once, naming both sizes,
 * and leaves nothing behind; the node-wide check names the sizes too. Sizes are taken from /dev/shm's own free space, so the cases
 * hold however large it is, and the refused ones take no memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "boot/launcher_proto.h"
#include "core/allreduce.h"
#include "gasket.h"
#include "gk_capture.h"
#include "gk_test.h"
#include "mem/segment.h"

static void make_key(char key[33])
{
    snprintf(key, 33, "%016llx%016llx", (unsigned long long)getpid(),
             (unsigned long long)time(NULL));
}

static unsigned long long shm_free(void)
{
    struct statvfs fs;
    ASSERT_EQ(statvfs("/dev/shm", &fs), 0);
    return (unsigned long long)fs.f_bavail * fs.f_frsize;
}

/* The bytes of /dev/shm a segment with this heap takes in a job of n_pes. */
static size_t reserved_for(size_t heap, int n_pes)
{
    return gk__seg_size_for_heap(heap) - GK__SEG_HEAP_OFFSET + gk__seg_area_bytes(n_pes);
}

static int name_exists(const char *key, int pe)
{
    char path[128];
    snprintf(path, sizeof(path), GK_SHM_DEV_FORMAT, key, pe);
    return access(path, F_OK) == 0;
}

GK_TEST(created_segment_is_reserved)
{
    char key[33], path[128];
    make_key(key);
    size_t heap = (size_t)3 << 20;
    static const int n_pes[] = {1, 3, 1024};
    for (size_t i = 0; i < sizeof(n_pes) / sizeof(n_pes[0]); i++) {
        struct gk__seg seg;
        ASSERT_EQ(gk__seg_create(key, 0, n_pes[i], heap, &seg), GK_OK);
        snprintf(path, sizeof(path), GK_SHM_DEV_FORMAT, key, 0);
        struct stat st;
        int stat_status = stat(path, &st);
        gk__seg_unlink(key, 0);
        ASSERT_EQ(stat_status, 0);
        size_t size = gk__seg_size_for_heap(heap);
        ASSERT_EQ((unsigned long long)st.st_size, (unsigned long long)size);
        /* Every page it can touch is there before any is touched, and only
         * those (the header's page is among them). */
        ASSERT_EQ((unsigned long long)st.st_blocks * 512,
                  (unsigned long long)reserved_for(heap, n_pes[i]));
        gk__seg_detach(&seg);
        ASSERT_FALSE(name_exists(key, 0));
    }
}

GK_TEST(used_ranges_are_pages_below_the_heap)
{
    for (int n = 1; n <= (1 << 20); n = n * 3 + 1) {
        struct gk__seg_range r[GK__SEG_RANGES];
        int count = gk__seg_used_ranges(n, r);
        ASSERT_LE(count, GK__SEG_RANGES);
        size_t end = 0, total = 0;
        for (int i = 0; i < count; i++) {
            ASSERT_EQ(r[i].offset % 4096, (size_t)0);
            ASSERT_EQ(r[i].len % 4096, (size_t)0);
            ASSERT_GE(r[i].offset, end);
            end = r[i].offset + r[i].len;
            total += r[i].len;
        }
        ASSERT_LE(end, GK__SEG_HEAP_OFFSET);
        ASSERT_EQ(total, gk__seg_area_bytes(n));
    }
    /* The all-reduce's steps: the two fold steps and log2 of the largest
     * power of two <= n rounds. */
    ASSERT_EQ(gk__allreduce_steps(1), 2);
    ASSERT_EQ(gk__allreduce_steps(2), 3);
    ASSERT_EQ(gk__allreduce_steps(3), 3);
    ASSERT_EQ(gk__allreduce_steps(1024), 12);
    ASSERT_EQ(gk__allreduce_steps(1025), 12);
    ASSERT_EQ(gk__allreduce_steps(0x7fffffff), 32);
    /* The footprint's budget beyond the heap is 2 MiB + 1 KiB per PE with
     * the PE's private pages (some 550 KiB at 512 PEs, 640 at 1024): the
     * area stays within 1850 KiB up to 1024 PEs. */
    ASSERT_LE(gk__seg_area_bytes(1024), (size_t)1850 * 1024);
}

GK_TEST(segment_larger_than_free_space_is_refused)
{
    char key[33];
    make_key(key);
    size_t heap = (size_t)(shm_free() + (1ull << 30));
    struct gk__seg seg = {0};
    gk_capture_begin();
    int status = gk__seg_create(key, 2, 4, heap, &seg);
    const char *text = gk_capture_end();
    if (status == GK_OK) { /* not what we want, but leave nothing behind */
        gk__seg_unlink(key, 2);
        gk__seg_detach(&seg);
    }
    ASSERT_EQ(status, GK_ERR_NOMEM);
    ASSERT_TRUE(seg.base == NULL);
    ASSERT_FALSE(name_exists(key, 2));
    ASSERT_EQ(gk_capture_count(text, "error"), 1);
    char wanted[96];
    snprintf(wanted, sizeof(wanted), "cannot reserve %zu MiB of /dev/shm",
             (reserved_for(heap, 4) + (1u << 20) - 1) >> 20);
    ASSERT_EQ(gk_capture_count(text, wanted), 1);
    ASSERT_EQ(gk_capture_count(text, "MiB free; lower GK_HEAP_SIZE"), 1);
}

GK_TEST(node_check_names_both_sizes)
{
    ASSERT_EQ(gk__seg_check_space((size_t)1 << 20, 2, 2), GK_OK);
    size_t heap = (size_t)(shm_free() / 2); /* fits once, not three times */
    gk_capture_begin();
    int status = gk__seg_check_space(heap, 3, 6);
    const char *text = gk_capture_end();
    ASSERT_EQ(status, GK_ERR_NOMEM);
    char wanted[160];
    size_t each = reserved_for(heap, 6);
    snprintf(wanted, sizeof(wanted),
             "the 3 PEs of this node need %zu MiB of /dev/shm (%zu MiB each for "
             "GK_HEAP_SIZE=%zu) but it has ",
             (3 * each + (1u << 20) - 1) >> 20, (each + (1u << 20) - 1) >> 20, heap);
    ASSERT_EQ(gk_capture_count(text, wanted), 1);
    ASSERT_EQ(gk_capture_count(text, "error"), 1);

    heap = (size_t)(shm_free() + (1ull << 30));
    gk_capture_begin();
    status = gk__seg_check_space(heap, 1, 1);
    text = gk_capture_end();
    ASSERT_EQ(status, GK_ERR_NOMEM);
    snprintf(wanted, sizeof(wanted),
             "this PE needs %zu MiB of /dev/shm (GK_HEAP_SIZE=%zu",
             (reserved_for(heap, 1) + (1u << 20) - 1) >> 20, heap);
    ASSERT_EQ(gk_capture_count(text, wanted), 1);
}

int main(int argc, char **argv)
{
    return gk_test_main(argc, argv);
}

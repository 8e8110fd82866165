/*
 * seg_area_test: the runtime's area of a PE's segment (mem/segment.h,
 * below the heap) takes from /dev/shm only the ranges reserved for the
 * job's PE count, and nothing writes or reads its holes. After the
 * operations that use the area (active messages of each kind, all-reduces
 * of one and of several pieces, broadcasts and exchanges of many chunks,
 * large two-sided messages from private memory, which go through the
 * rendezvous pipeline, semaphores), every page of the area that the page
 * cache holds lies in a reserved range (mincore: a touched hole gets a
 * page), and where /proc/self/map_files can be read (root), the file's
 * allocated blocks are exactly the reserved ranges and the heap.
 */
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/runtime.h"
#include "mem/segment.h"
#include "pe_check.h"

#define H_COUNT 5

static atomic_uint_fast64_t received;

static void on_count(gk_am_token_t *token, void *payload, size_t nbytes,
                     const uint64_t *args, int nargs)
{
    (void)token, (void)payload, (void)nbytes, (void)args, (void)nargs;
    atomic_fetch_add_explicit(&received, 1, memory_order_relaxed);
}

/* Active messages: short, medium (a payload in the slot's block) and
 * long, each to the right neighbour, many times round the inbox. */
static void send_messages(int me, int n, char *heap_dst)
{
    enum { ROUNDS = 3 * 64 };
    int right = (me + 1) % n;
    size_t medium = gk_am_max_medium();
    char *payload = calloc(1, medium);
    CHECK_NOT_NULL(payload);
    uint64_t arg = 7;
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_OK(gk_am_request_short(right, H_COUNT, &arg, 1));
        CHECK_OK(gk_am_request_medium(right, H_COUNT, payload, medium, &arg, 1));
        CHECK_OK(gk_am_request_long(right, H_COUNT, heap_dst, payload, 4096, &arg, 1));
    }
    while (atomic_load_explicit(&received, memory_order_relaxed) < 3 * ROUNDS)
        CHECK_OK(gk_poll());
    free(payload);
    CHECK_OK(gk_barrier());
}

/* Large messages from malloc'd memory to the right neighbour: the
 * rendezvous pipeline's slots, all four. */
static void send_large(int me, int n)
{
    size_t bytes = (size_t)3 << 20;
    unsigned char *out = malloc(bytes), *in = malloc(bytes);
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(in);
    for (size_t i = 0; i < bytes; i++)
        out[i] = (unsigned char)(i * 13 + (size_t)me);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int round = 0; round < 3; round++) {
        gk_request_t *req;
        CHECK_OK(gk_isend(right, 40 + round, out, bytes, &req));
        CHECK_OK(gk_recv(left, 40 + round, in, bytes, NULL));
        CHECK_OK(gk_request_wait(&req, NULL));
        for (size_t i = 0; i < bytes; i += 4093)
            CHECK_EQ(in[i], (unsigned char)(i * 13 + (size_t)left));
    }
    free(out);
    free(in);
}

static void run_collectives(int me, int n, char *heap)
{
    /* All-reduces of one piece and of several. */
    for (size_t count = 1; count <= 5000; count *= 70) {
        uint64_t *src = malloc(count * 8), *dst = malloc(count * 8);
        CHECK_NOT_NULL(src);
        CHECK_NOT_NULL(dst);
        for (size_t i = 0; i < count; i++)
            src[i] = (uint64_t)me + i;
        CHECK_OK(gk_allreduce(dst, src, count, GK_DTYPE_UINT64, GK_OP_SUM));
        for (size_t i = 0; i < count; i++)
            CHECK_EQ_U64(dst[i], (uint64_t)n * (n - 1) / 2 + (uint64_t)n * i);
        free(src);
        free(dst);
    }
    /* Broadcasts and exchanges of more chunks than their slots hold. */
    size_t bcast = (size_t)1 << 20;
    for (int root = 0; root < n && root < 3; root++) {
        if (me == root)
            memset(heap, root + 1, bcast);
        CHECK_OK(gk_broadcast(heap + bcast, heap, bcast, root));
        CHECK_EQ(heap[bcast + bcast - 1], (char)(root + 1));
    }
    size_t each = ((size_t)1 << 20) / (size_t)n;
    CHECK_OK(gk_collect(heap + 2 * bcast, heap, each));
    CHECK_OK(gk_alltoall(heap + 2 * bcast, heap, each / (size_t)n));
}

/* Pages of [base, base + len) in the page cache, each checked against the
 * reserved ranges: the offset of the first one outside them, or -1. */
static long long page_outside(const char *base, const struct gk__seg_range *ranges, int n)
{
    size_t page = 4096, pages = GK__SEG_HEAP_OFFSET / page;
    unsigned char *in_core = malloc(pages);
    CHECK_NOT_NULL(in_core);
    CHECK_EQ(mincore((void *)base, GK__SEG_HEAP_OFFSET, in_core), 0);
    long long outside = -1;
    for (size_t p = 0; p < pages && outside < 0; p++) {
        if (!(in_core[p] & 1))
            continue;
        size_t at = p * page;
        int inside = 0;
        for (int i = 0; i < n; i++)
            inside |= at >= ranges[i].offset && at < ranges[i].offset + ranges[i].len;
        if (!inside)
            outside = (long long)at;
    }
    free(in_core);
    return outside;
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), n = gk_n_pes();
    CHECK_OK(gk_am_register(H_COUNT, on_count));
    char *heap = gk_malloc((size_t)4 << 20);
    CHECK_NOT_NULL(heap);
    gk_sem_t sem;
    CHECK_OK(gk_sem_alloc(0, &sem));

    send_messages(me, n, heap);
    send_large(me, n);
    run_collectives(me, n, heap);
    CHECK_OK(gk_sem_post(sem));
    CHECK_OK(gk_sem_wait(sem));
    CHECK_OK(gk_barrier());

    struct gk__seg_range ranges[GK__SEG_RANGES];
    int n_ranges = gk__seg_used_ranges(n, ranges);
    const char *base = gk__rt.my_seg.base;
    CHECK_EQ(page_outside(base, ranges, n_ranges), -1LL);

    char path[96];
    snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)base,
             (unsigned long)(base + gk__rt.my_seg.size));
    struct stat st;
    if (stat(path, &st) == 0) {
        CHECK_EQ_U64((uint64_t)st.st_blocks * 512,
                     (uint64_t)(gk__seg_area_bytes(n) + gk__rt.my_seg.size -
                                GK__SEG_HEAP_OFFSET));
    } else {
        CHECK_TRUE(errno == EPERM || errno == EACCES); /* not root: mincore only */
    }

    CHECK_OK(gk_barrier());
    gk_sem_free(sem);
    gk_free(heap);
    CHECK_OK(gk_finalize());
    return 0;
}

/*
 * segment.c: creating, checking and mapping the PEs' shared-memory segments.
 */
#include "mem/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/log.h"
#include "boot/launcher_proto.h"
#include "gasket.h"

static void seg_name(char *name, size_t len, const char *job_key, int pe)
{
    snprintf(name, len, GK_SHM_NAME_FORMAT, job_key, pe);
}

/* The program's globals, where they are symmetric (gk__seg_set_data). */
static struct gk__seg_data seg_data;

size_t gk__seg_size_for_heap(size_t heap_size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return GK__SEG_HEAP_OFFSET + ((heap_size + page - 1) & ~(page - 1)) + seg_data.size;
}

void gk__seg_set_data(const struct gk__seg_data *data)
{
    seg_data = *data;
}

/* dl_iterate_phdr's first object is the executable: its writable PT_LOAD
 * (data and bss), from the end of its PT_GNU_RELRO if it has one, whole
 * pages (glibc leaves the page where RELRO ends writable). */
static int seg_find_data_in(struct dl_phdr_info *info, size_t info_size, void *out)
{
    (void)info_size;
    struct gk__seg_data *data = out;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = 0, hi = 0, relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && hi == 0) {
            lo = start;
            hi = end;
        } else if (ph->p_type == PT_GNU_RELRO) {
            relro_end = end;
        }
    }
    if (hi != 0) {
        if (relro_end > lo && relro_end < hi)
            lo = relro_end;
        lo &= ~(page - 1);
        hi = (hi + page - 1) & ~(page - 1);
        data->lo = (char *)lo;
        data->size = hi - lo;
    }
    return 1; /* the executable only */
}

void gk__seg_find_data(struct gk__seg_data *data_p)
{
    memset(data_p, 0, sizeof(*data_p));
    dl_iterate_phdr(seg_find_data_in, data_p);
}

/* The globals' copy, word by word (the range is whole pages) and not
 * instrumented: AddressSanitizer keeps redzones between globals, which its
 * memcpy interceptor would report as an overflow. */
__attribute__((no_sanitize("address"))) static void seg_copy_words(void *dst,
                                                                  const void *src,
                                                                  size_t n)
{
    volatile uint64_t *d = dst;
    const volatile uint64_t *s = src;
    for (size_t i = 0; i < n / sizeof(uint64_t); i++)
        d[i] = s[i];
}

/*
 * Moves this PE's globals into its segment's last seg_data.size bytes: a
 * copy, then that part of the file mapped over them (MAP_FIXED replaces the
 * private pages in one call). At start-up, before any thread of gasket's
 * exists: a store another thread made between the copy and the mapping
 * would be lost.
 */
static int seg_move_data(int fd, struct gk__seg *seg, const char *name)
{
    size_t at = seg->size - seg_data.size;
    seg_copy_words(seg->base + at, seg_data.lo, seg_data.size);
    void *moved = mmap(seg_data.lo, seg_data.size, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_FIXED, fd, (off_t)at);
    if (moved == MAP_FAILED) {
        gk__error("mapping segment %s over the program's globals (%p, %zu bytes) failed: %s",
                  name, (void *)seg_data.lo, seg_data.size, strerror(errno));
        return GK_ERR_SYSTEM;
    }
    return GK_OK;
}

/* Bytes in MiB, rounded up: a size wanted is never understated. */
#define SEG_MIB_UP(bytes) (((unsigned long long)(bytes) + (1u << 20) - 1) >> 20)

/* The bytes free in the file system that holds `fd` (/dev/shm); 0 if unknown. */
static unsigned long long seg_fs_free(int fd)
{
    struct statvfs fs;
    if (fstatvfs(fd, &fs) != 0)
        return 0;
    return (unsigned long long)fs.f_bavail * fs.f_frsize;
}

#define SEG_PAGE ((size_t)4096)
#define SEG_PAGE_UP(bytes) (((bytes) + SEG_PAGE - 1) & ~(SEG_PAGE - 1))

int gk__seg_used_ranges(int n_pes, struct gk__seg_range ranges[GK__SEG_RANGES])
{
    /* The regions come by offset; the header before them all, the inbox
     * where it falls among them. */
    int n = 0, count = gk__seg_region_count(), inbox = 0;
    ranges[n++] = (struct gk__seg_range){0, SEG_PAGE_UP(sizeof(struct gk__seg_header))};
    for (int i = 0; i <= count; i++) {
        const struct gk__seg_region *r = i < count ? gk__seg_region_at(i) : NULL;
        if (!inbox && (r == NULL || r->offset > GK__SEG_INBOX_OFFSET)) {
            ranges[n++] = (struct gk__seg_range){GK__SEG_INBOX_OFFSET,
                                                 SEG_PAGE_UP(gk__seg_inbox_used(n_pes))};
            inbox = 1;
        }
        if (r != NULL)
            ranges[n++] = (struct gk__seg_range){
                r->offset, SEG_PAGE_UP(r->used != NULL ? r->used(n_pes) : r->size)};
    }
    return n;
}

size_t gk__seg_area_bytes(int n_pes)
{
    struct gk__seg_range ranges[GK__SEG_RANGES];
    int n = gk__seg_used_ranges(n_pes, ranges);
    size_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += ranges[i].len;
    return bytes;
}

int gk__seg_populate(void *addr, size_t len)
{
#ifdef MADV_POPULATE_WRITE
    if (madvise(addr, len, MADV_POPULATE_WRITE) == 0)
        return GK_OK;
    if (errno != EINVAL) /* EINVAL: a kernel without it (before 5.14) */
        return GK_ERR_NOMEM;
#endif
    (void)addr;
    (void)len;
    return GK_OK; /* taken as touched, as before */
}

/* posix_fallocate of [offset, offset + len): 0 or its error (not errno). */
static int seg_fallocate(int fd, size_t offset, size_t len)
{
    if (len == 0)
        return 0; /* a region this job does not touch */
    int err;
    do
        err = posix_fallocate(fd, (off_t)offset, (off_t)len);
    while (err == EINTR);
    return err;
}

/*
 * Takes every page the runtime can touch now: the used ranges of the
 * runtime's area and the heap. A sparse segment would take them as they
 * are touched, and a PE touching one that /dev/shm has no room for dies of
 * SIGBUS, far from the cause; reserved, a full /dev/shm is an error here
 * that says how much was wanted. tmpfs fills page by page before it gives
 * up, so a size that cannot fit is refused before trying. The area's other
 * pages stay holes: nothing reads or writes them, and tmpfs allocates a
 * page only when it is touched.
 */
static int seg_reserve(int fd, const char *name, size_t size, size_t heap_size, int n_pes)
{
    unsigned long long free_bytes = seg_fs_free(fd);
    size_t want = gk__seg_area_bytes(n_pes) + (size - GK__SEG_HEAP_OFFSET);
    int err = ENOSPC;
    if (free_bytes == 0 || want <= free_bytes) {
        /* The file's size first: the ranges below leave holes in it. */
        err = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
        struct gk__seg_range ranges[GK__SEG_RANGES];
        int n = gk__seg_used_ranges(n_pes, ranges);
        for (int i = 0; i < n && err == 0; i++)
            err = seg_fallocate(fd, ranges[i].offset, ranges[i].len);
        if (err == 0)
            err = seg_fallocate(fd, GK__SEG_HEAP_OFFSET, size - GK__SEG_HEAP_OFFSET);
    }
    if (err == 0)
        return GK_OK;
    if (err == ENOSPC)
        gk__error("cannot reserve %llu MiB of /dev/shm for segment %s "
                  "(GK_HEAP_SIZE=%zu): %llu MiB free; lower GK_HEAP_SIZE or enlarge "
                  "/dev/shm",
                  SEG_MIB_UP(want), name, heap_size, seg_fs_free(fd) >> 20);
    else
        gk__error("reserving %zu bytes of /dev/shm for %s failed: %s", want, name,
                  strerror(err));
    return err == ENOSPC || err == ENOMEM ? GK_ERR_NOMEM : GK_ERR_SYSTEM;
}

int gk__seg_check_space(size_t heap_size, int n_segments, int n_pes)
{
    struct statvfs fs;
    if (statvfs("/dev/shm", &fs) != 0)
        return GK_OK; /* the reservation itself will tell */
    unsigned long long free_bytes = (unsigned long long)fs.f_bavail * fs.f_frsize;
    size_t area = gk__seg_area_bytes(n_pes);
    unsigned long long each =
        gk__seg_size_for_heap(heap_size) - GK__SEG_HEAP_OFFSET + area;
    unsigned long long need = each * (unsigned long long)n_segments;
    if (need <= free_bytes)
        return GK_OK;
    if (n_segments == 1)
        gk__error("this PE needs %llu MiB of /dev/shm (GK_HEAP_SIZE=%zu and the "
                  "runtime's %zu KiB) but it has %llu MiB free; lower GK_HEAP_SIZE or "
                  "enlarge /dev/shm",
                  SEG_MIB_UP(need), heap_size, area >> 10, free_bytes >> 20);
    else
        gk__error("the %d PEs of this node need %llu MiB of /dev/shm (%llu MiB each for "
                  "GK_HEAP_SIZE=%zu) but it has %llu MiB free; lower GK_HEAP_SIZE or "
                  "enlarge /dev/shm",
                  n_segments, SEG_MIB_UP(need), SEG_MIB_UP(each), heap_size,
                  free_bytes >> 20);
    return GK_ERR_NOMEM;
}

/*
 * Address space for the segments, reserved (PROT_NONE, nothing behind it)
 * in arenas of room for many segments: each segment is mapped over the
 * next address of the current arena at which its heap starts on a
 * gk__seg_heap_align() boundary, so gk_align can serve any alignment the
 * heap holds; the gap this skips is address space only. One reservation
 * per segment, trimmed to its aligned part, cost a PE of a 1024-PE node
 * 3 system calls and 2 splits of its address map more per peer at
 * start-up. Used at start-up only, by one thread.
 */
#define SEG_ARENA_MIN_SEGMENTS 64
static char *seg_arena_next; /* aligned to GK__SEG_MAP_ALIGN; below seg_arena_end */
static char *seg_arena_end;

/* The first address at or after `from` where a segment's heap would start
 * on a `heap_align` boundary. */
static uintptr_t seg_place(uintptr_t from, size_t heap_align)
{
    uintptr_t heap = (from + GK__SEG_HEAP_OFFSET + heap_align - 1) & ~(uintptr_t)(heap_align - 1);
    return heap - GK__SEG_HEAP_OFFSET;
}

/* Room for a segment of `size` bytes placed as above, or NULL. */
static char *seg_arena_take(size_t size, size_t heap_size)
{
    size_t heap_align = gk__seg_heap_align(heap_size);
    size_t stride = (size + GK__SEG_MAP_ALIGN - 1) & ~(GK__SEG_MAP_ALIGN - 1);
    if (seg_arena_next == NULL ||
        seg_place((uintptr_t)seg_arena_next, heap_align) + stride > (uintptr_t)seg_arena_end) {
        static size_t segments = SEG_ARENA_MIN_SEGMENTS;
        /* At most heap_align - GK__SEG_MAP_ALIGN skipped before each. */
        size_t span = segments * (stride + heap_align) + GK__SEG_MAP_ALIGN;
        char *reserved = mmap(NULL, span, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (reserved == MAP_FAILED)
            return NULL;
        segments *= 2; /* the next arena, if one is needed, twice as large */
        seg_arena_next = (char *)(((uintptr_t)reserved + GK__SEG_MAP_ALIGN - 1) &
                                  ~(uintptr_t)(GK__SEG_MAP_ALIGN - 1));
        seg_arena_end = reserved + span;
    }
    char *at = (char *)seg_place((uintptr_t)seg_arena_next, heap_align);
    seg_arena_next = at + stride;
    return at;
}

/* Maps the segment where seg_arena_take places it, over the arena. */
static int seg_map(int fd, size_t size, size_t heap_size, struct gk__seg *seg)
{
    char *at = seg_arena_take(size, heap_size);
    if (at == NULL)
        return GK_ERR_SYSTEM;
    char *base = mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (base == MAP_FAILED)
        return GK_ERR_SYSTEM;
    seg->base = base;
    seg->size = size;
    seg->header = (struct gk__seg_header *)base;
    seg->heap = base + GK__SEG_HEAP_OFFSET;
    return GK_OK;
}

int gk__seg_create(const char *job_key, int pe, int n_pes, size_t heap_size,
                   struct gk__seg *seg)
{
    char name[96];
    seg_name(name, sizeof(name), job_key, pe);
    size_t size = gk__seg_size_for_heap(heap_size);
    int status = GK_ERR_SYSTEM;

    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        gk__error("shm_open(%s) failed: %s", name, strerror(errno));
        goto err;
    }
    /* O_EXCL proved the name was free; fstat proves what we hold is ours,
     * new and private before we put anything in it. */
    struct stat st;
    memset(&st, 0, sizeof(st)); /* reported as zeros if fstat itself fails */
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 0777) != 0600 ||
        st.st_size != 0) {
        gk__error("shm segment %s failed its ownership check (uid %d, mode %o, size %lld)",
                  name, (int)st.st_uid, (unsigned)(st.st_mode & 0777),
                  (long long)st.st_size);
        goto err_unlink;
    }
    status = seg_reserve(fd, name, size, heap_size, n_pes);
    if (status != GK_OK)
        goto err_unlink;
    status = seg_map(fd, size, heap_size, seg);
    if (status != GK_OK) {
        gk__error("mmap(%s, %zu bytes) failed: %s", name, size, strerror(errno));
        goto err_unlink;
    }
    if (seg_data.size > 0 && (status = seg_move_data(fd, seg, name)) != GK_OK)
        goto err_unlink;
    close(fd);
    struct gk__seg_header *h = seg->header;
    h->version = GK__SEG_VERSION;
    h->pe = pe;
    h->heap_size = heap_size;
    h->total_size = size;
    h->data_size = seg_data.size;
    h->layout = gk__seg_layout_digest();
    __atomic_store_n(&h->magic, GK__SEG_MAGIC, __ATOMIC_RELEASE);
    gk__debug("created segment %s: %zu bytes (heap %zu, %zu reserved before it) at %p",
              name, size, heap_size, gk__seg_area_bytes(n_pes), (void *)seg->base);
    return GK_OK;

err_unlink:
    shm_unlink(name);
    close(fd);
err:
    return status;
}

int gk__seg_attach(const char *job_key, int pe, size_t heap_size, struct gk__seg *seg)
{
    char name[96];
    seg_name(name, sizeof(name), job_key, pe);
    size_t size = gk__seg_size_for_heap(heap_size);
    int status = GK_ERR_SYSTEM;

    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        gk__error("shm_open(%s) of PE %d's segment failed: %s", name, pe, strerror(errno));
        goto err;
    }
    struct stat st;
    memset(&st, 0, sizeof(st)); /* reported as zeros if fstat itself fails */
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 0777) != 0600 ||
        (size_t)st.st_size != size) {
        gk__error("PE %d's segment %s failed its check (uid %d, mode %o, size %lld, "
                  "expected %zu: do all PEs have the same GK_HEAP_SIZE?)",
                  pe, name, (int)st.st_uid, (unsigned)(st.st_mode & 0777),
                  (long long)st.st_size, size);
        goto err_close;
    }
    /* The header is read from the file, not through the mapping: a PE of a
     * large node maps every peer's segment, and a first touch of each would
     * cost it a page table page (and its clearing) for peers it may never
     * talk to. Its creator wrote it before the exchange that led here. */
    struct gk__seg_header h;
    memset(&h, 0, sizeof(h)); /* reported as zeros if the read fails */
    if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.magic != GK__SEG_MAGIC ||
        h.version != GK__SEG_VERSION || h.pe != pe || h.heap_size != heap_size ||
        h.data_size != seg_data.size || h.layout != gk__seg_layout_digest()) {
        gk__error("PE %d's segment %s has a bad header (version %u, PE %d, heap %llu, "
                  "globals %llu bytes where this PE has %zu, layout %#llx where this PE "
                  "has %#llx: do all PEs run the same program?)",
                  pe, name, h.version, h.pe, (unsigned long long)h.heap_size,
                  (unsigned long long)h.data_size, seg_data.size,
                  (unsigned long long)h.layout,
                  (unsigned long long)gk__seg_layout_digest());
        goto err_close;
    }
    if (seg_map(fd, size, heap_size, seg) != GK_OK) {
        gk__error("mmap of PE %d's segment (%zu bytes) failed: %s", pe, size,
                  strerror(errno));
        goto err_close;
    }
    gk__debug("mapped PE %d's segment %s at %p", pe, name, (void *)seg->base);
    status = GK_OK;
err_close:
    close(fd);
err:
    return status;
}

int gk__seg_unlink(const char *job_key, int pe)
{
    char name[96];
    seg_name(name, sizeof(name), job_key, pe);
    if (shm_unlink(name) != 0 && errno != ENOENT) {
        gk__error("shm_unlink(%s) failed: %s", name, strerror(errno));
        return GK_ERR_SYSTEM;
    }
    return GK_OK;
}

void gk__seg_detach(struct gk__seg *seg)
{
    if (seg->base != NULL)
        munmap(seg->base, seg->size);
    memset(seg, 0, sizeof(*seg));
}

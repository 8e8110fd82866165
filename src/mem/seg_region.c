/*
 * seg_region.c: the layout of the regions features declare in the runtime's
 * area of a segment (seg_region.h has the rule).
 */
#include "mem/seg_region.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "mem/segment.h"

/* The regions declared (GK__SEG_REGION's constructors), in no order. */
static struct gk__seg_region *seg_declared[GK__SEG_REGIONS_MAX + 1];
static int seg_n_declared;

void gk__seg_region_declare(struct gk__seg_region *region)
{
    /* One past the most: the layout reports it (a constructor cannot). */
    if (seg_n_declared <= GK__SEG_REGIONS_MAX)
        seg_declared[seg_n_declared++] = region;
}

static struct gk__seg_region *seg_regions[GK__SEG_REGIONS_MAX]; /* by offset */
static int seg_n_regions = -1;                                   /* -1: not laid out */
static uint64_t seg_digest;

/* Largest alignment first, then by name: independent of link order. */
static int seg_region_before(const struct gk__seg_region *a, const struct gk__seg_region *b)
{
    if (a->align != b->align)
        return a->align > b->align;
    return strcmp(a->name, b->name) < 0;
}

/* Whether [at, at + size) overlaps [lo, lo + len); if so, *next_p is the
 * end of that range. */
static int seg_overlaps(size_t at, size_t size, size_t lo, size_t len, size_t *next_p)
{
    if (at < lo + len && lo < at + size) {
        *next_p = lo + len;
        return 1;
    }
    return 0;
}

/* The lowest offset aligned to r->align with room for r, past the fixed
 * parts and the regions placed so far; 0 when there is none. */
static size_t seg_place(const struct gk__seg_region *r, int placed)
{
    size_t at = GK__SEG_HEADER_SIZE;
    for (;;) {
        at = (at + r->align - 1) & ~(r->align - 1);
        if (at + r->size > GK__SEG_HEAP_OFFSET)
            return 0;
        size_t next = 0;
        int clash = seg_overlaps(at, r->size, GK__SEG_INBOX_OFFSET, GK__SEG_INBOX_SIZE, &next);
        for (int i = 0; i < placed && !clash; i++)
            clash = seg_overlaps(at, r->size, seg_regions[i]->offset, seg_regions[i]->size,
                                 &next);
        if (!clash)
            return at;
        at = next;
    }
}

static int seg_by_offset(const void *a, const void *b)
{
    const struct gk__seg_region *ra = *(struct gk__seg_region *const *)a;
    const struct gk__seg_region *rb = *(struct gk__seg_region *const *)b;
    return (ra->offset > rb->offset) - (ra->offset < rb->offset);
}

void gk__seg_layout(void)
{
    if (seg_n_regions >= 0)
        return;
    int n = 0;
    for (struct gk__seg_region *const *r = seg_declared; r < seg_declared + seg_n_declared;
         r++) {
        if (n == GK__SEG_REGIONS_MAX) {
            gk__error("more than %d regions declared in the segment", GK__SEG_REGIONS_MAX);
            abort();
        }
        /* Insertion in placement order: a handful of regions. */
        int i = n++;
        for (; i > 0 && seg_region_before(*r, seg_regions[i - 1]); i--)
            seg_regions[i] = seg_regions[i - 1];
        seg_regions[i] = *r;
    }
    uint64_t digest = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (int i = 0; i < n; i++) {
        struct gk__seg_region *r = seg_regions[i];
        r->offset = seg_place(r, i);
        if (r->offset == 0) {
            gk__error("the segment's region %s (%zu bytes, aligned to %zu) does not fit "
                      "below the heap",
                      r->name, r->size, r->align);
            abort();
        }
        for (const char *c = r->name; *c != '\0'; c++)
            digest = (digest ^ (unsigned char)*c) * 0x100000001b3ULL;
        digest = (digest ^ r->offset) * 0x100000001b3ULL;
        digest = (digest ^ r->size) * 0x100000001b3ULL;
    }
    qsort(seg_regions, (size_t)n, sizeof(seg_regions[0]), seg_by_offset);
    seg_digest = digest;
    seg_n_regions = n;
}

uint64_t gk__seg_layout_digest(void)
{
    gk__seg_layout();
    return seg_digest;
}

int gk__seg_region_count(void)
{
    gk__seg_layout();
    return seg_n_regions;
}

const struct gk__seg_region *gk__seg_region_at(int i)
{
    gk__seg_layout();
    return seg_regions[i];
}

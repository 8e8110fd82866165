/*
 * seg_region.h: the regions features own in the runtime's area of every
 * segment (below the heap), and their layout.
 *
 * A feature declares its region where its code is, with GK__SEG_REGION:
 * a name, its size, its alignment, and the bytes a job of n PEs touches
 * (what a segment reserves in /dev/shm for it). A constructor of the
 * feature's file declares it, so a program linked statically declares the
 * regions of the features it links in; mem/ lays them out once, before
 * the first segment is sized, and writes each region's offset into its
 * declaration, where the feature reads it. The rule is deterministic: by
 * alignment, largest first, then by name; each region goes at the lowest
 * offset with room, past the segment header and the active-message inbox
 * (mem/'s and net/'s, at fixed offsets) and below GK__SEG_HEAP_OFFSET. So
 * every PE of a program finds the same layout, whatever order the linker
 * put the declarations in; the segment header carries a digest of it,
 * which a PE that maps a peer's segment checks against its own.
 */
#ifndef GK_MEM_SEG_REGION_H
#define GK_MEM_SEG_REGION_H

#include <stddef.h>
#include <stdint.h>

struct gk__seg_region {
    const char *name;
    size_t size;  /* bytes reserved in every segment */
    size_t align; /* a power of two, at least a page */
    /* The bytes from the region's start that a job of n_pes PEs touches;
     * NULL: all of size. */
    size_t (*used)(int n_pes);
    size_t offset; /* written by the layout, before any segment exists */
};

/* Declares the region `var` (a struct gk__seg_region, fields named): a
 * constructor of the feature's file hands it to mem/ before main. */
#define GK__SEG_REGION(var, ...)                                                         \
    struct gk__seg_region var = {__VA_ARGS__};                                           \
    __attribute__((constructor)) static void var##_declare_(void)                        \
    {                                                                                    \
        gk__seg_region_declare(&var);                                                    \
    }
void gk__seg_region_declare(struct gk__seg_region *region);

/* The most regions a layout places. */
#define GK__SEG_REGIONS_MAX 8

/* Lays the regions out, once (later calls do nothing): before anything
 * reads an offset. A layout that does not fit below the heap is a bug of
 * ours: logged, and the process aborts. */
void gk__seg_layout(void);

/* The layout's digest (names, offsets, sizes), for the segment header. */
uint64_t gk__seg_layout_digest(void);

/* The declared regions, by offset: their count, and each in order. */
int gk__seg_region_count(void);
const struct gk__seg_region *gk__seg_region_at(int i);

#endif /* GK_MEM_SEG_REGION_H */

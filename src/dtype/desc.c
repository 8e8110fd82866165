/*
 * desc.c: encoding a flat form as a descriptor, and the checking decoder
 * (desc.h).
 *
 * The decoder reads only at offsets it has checked against len (the
 * counts in the header must account for len exactly before any node is
 * read), and builds the form node by node in order, so each child it
 * looks at was validated and sized before: sizes are non-zero (a cursor
 * divides by them), positions are checked sums, a list's entry prefixes
 * are its own running sums. What it hands back satisfies everything the
 * cursor assumes of a form the builder made.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/desc.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "descriptors are little-endian");

static void put32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

size_t gk__dt_encoded_size(const struct gk__dt_flat *flat)
{
    return GK__DT_DESC_HEADER + (size_t)flat->n_nodes * GK__DT_DESC_NODE +
           (size_t)flat->n_entries * GK__DT_DESC_ENTRY;
}

void gk__dt_encode(const struct gk__dt_flat *flat, void *buf)
{
    unsigned char *p = buf;
    memset(p, 0, GK__DT_DESC_HEADER);
    put32(p + 0, GK__DT_DESC_MAGIC);
    put32(p + 4, GK__DT_DESC_VERSION);
    put32(p + 8, flat->n_nodes);
    put32(p + 12, flat->n_entries);
    put32(p + 16, flat->n_nodes ? flat->root : GK__DT_NONE);
    put64(p + 24, flat->size);
    put64(p + 32, (uint64_t)flat->root_disp);
    put64(p + 40, (uint64_t)flat->lb);
    put64(p + 48, (uint64_t)flat->extent);
    put64(p + 56, (uint64_t)flat->true_lb);
    put64(p + 64, (uint64_t)flat->true_ub);
    p += GK__DT_DESC_HEADER;
    for (uint32_t i = 0; i < flat->n_nodes; i++, p += GK__DT_DESC_NODE) {
        const struct gk__dt_node *n = &flat->nodes[i];
        put32(p + 0, n->kind);
        put32(p + 4, n->kind == GK__DT_LEAF ? 0 : n->child);
        put64(p + 8, n->count);
        put64(p + 16, n->kind == GK__DT_REPEAT ? (uint64_t)n->stride : 0);
    }
    for (uint32_t i = 0; i < flat->n_entries; i++, p += GK__DT_DESC_ENTRY) {
        const struct gk__dt_entry *e = &flat->entries[i];
        put64(p + 0, (uint64_t)e->disp);
        put32(p + 8, e->child);
        put32(p + 12, 0);
    }
}

static int why_set(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int why_set(char *why, size_t why_len, const char *fmt, ...)
{
    if (why != NULL && why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return GK_ERR_INVALID_ARG;
}

#define BAD(...) why_set(why, why_len, __VA_ARGS__)

/* Checks node i (read at p) and fills nodes[i]; *next_entry counts the
 * entries the lists so far have taken. */
static int decode_node(const unsigned char *p, const unsigned char *entries_at, uint32_t i,
                       uint32_t n_entries, struct gk__dt_node *nodes,
                       struct gk__dt_entry *entries, uint32_t *depth, uint32_t *next_entry,
                       char *why, size_t why_len)
{
    struct gk__dt_node n = {.kind = get32(p), .child = get32(p + 4), .count = get64(p + 8),
                            .stride = (int64_t)get64(p + 16)};
    if (n.count == 0 || n.count > (uint64_t)INT64_MAX)
        return BAD("node %u: count %llu is not in [1, INT64_MAX]", i,
                   (unsigned long long)n.count);
    uint32_t d = 0;
    switch (n.kind) {
    case GK__DT_LEAF:
        if (n.child != 0 || n.stride != 0)
            return BAD("node %u: a leaf with child %u and stride %lld (both must be 0)", i,
                       n.child, (long long)n.stride);
        n.size = n.count;
        n.lo = 0;
        n.hi = (int64_t)n.count;
        break;
    case GK__DT_REPEAT: {
        if (n.child >= i)
            return BAD("node %u: child %u does not come before it", i, n.child);
        const struct gk__dt_node *c = &nodes[n.child];
        if (__builtin_mul_overflow(n.count, c->size, &n.size) || n.size > (uint64_t)INT64_MAX)
            return BAD("node %u: %llu copies of %llu bytes overflow", i,
                       (unsigned long long)n.count, (unsigned long long)c->size);
        if (!gk__dt_span_repeat(n.count, n.stride, c->lo, c->hi, &n.lo, &n.hi))
            return BAD("node %u: %llu copies %lld bytes apart overflow", i,
                       (unsigned long long)n.count, (long long)n.stride);
        d = depth[n.child];
        break;
    }
    case GK__DT_LIST: {
        if (n.child != *next_entry || n.count > n_entries - *next_entry)
            return BAD("node %u: entries [%u, +%llu) are not the next of %u", i, n.child,
                       (unsigned long long)n.count, n_entries);
        n.lo = INT64_MAX;
        n.hi = INT64_MIN;
        for (uint64_t k = 0; k < n.count; k++) {
            const unsigned char *q = entries_at + (size_t)(n.child + k) * GK__DT_DESC_ENTRY;
            struct gk__dt_entry e = {.disp = (int64_t)get64(q), .child = get32(q + 8),
                                     .before = n.size};
            if (get32(q + 12) != 0)
                return BAD("entry %llu: reserved word %u is not 0",
                           (unsigned long long)(n.child + k), get32(q + 12));
            if (e.child >= i)
                return BAD("entry %llu of node %u: child %u does not come before it",
                           (unsigned long long)(n.child + k), i, e.child);
            const struct gk__dt_node *c = &nodes[e.child];
            int64_t lo = 0, hi = 0;
            if (__builtin_add_overflow(n.size, c->size, &n.size) ||
                n.size > (uint64_t)INT64_MAX || __builtin_add_overflow(e.disp, c->lo, &lo) ||
                __builtin_add_overflow(e.disp, c->hi, &hi))
                return BAD("entry %llu of node %u: displacement %lld overflows",
                           (unsigned long long)(n.child + k), i, (long long)e.disp);
            n.lo = lo < n.lo ? lo : n.lo;
            n.hi = hi > n.hi ? hi : n.hi;
            d = depth[e.child] > d ? depth[e.child] : d;
            entries[n.child + k] = e;
        }
        *next_entry += (uint32_t)n.count;
        break;
    }
    default:
        return BAD("node %u: kind %u is not a node kind", i, n.kind);
    }
    depth[i] = d + 1;
    if (depth[i] > GK_TYPE_MAX_DEPTH)
        return BAD("node %u nests %u levels deep, more than %d", i, depth[i],
                   GK_TYPE_MAX_DEPTH);
    nodes[i] = n;
    return GK_OK;
}

int gk__dt_decode(const void *buf, size_t len, int64_t lo, int64_t hi,
                  struct gk__dt_flat **flat_p, char *why, size_t why_len)
{
    const unsigned char *p = buf;
    if (buf == NULL || len < GK__DT_DESC_HEADER)
        return BAD("%zu bytes are too few for a descriptor (%u at least)", len,
                   GK__DT_DESC_HEADER);
    if (get32(p) != GK__DT_DESC_MAGIC || get32(p + 4) != GK__DT_DESC_VERSION ||
        get32(p + 20) != 0)
        return BAD("not a version %u descriptor (magic %#x, version %u)", GK__DT_DESC_VERSION,
                   get32(p), get32(p + 4));
    uint32_t n_nodes = get32(p + 8), n_entries = get32(p + 12), root = get32(p + 16);
    uint64_t want = GK__DT_DESC_HEADER + (uint64_t)n_nodes * GK__DT_DESC_NODE +
                    (uint64_t)n_entries * GK__DT_DESC_ENTRY;
    if (want != len)
        return BAD("%u nodes and %u entries need %llu bytes, not %zu", n_nodes, n_entries,
                   (unsigned long long)want, len);
    uint64_t size = get64(p + 24);
    int64_t root_disp = (int64_t)get64(p + 32), lb = (int64_t)get64(p + 40),
            extent = (int64_t)get64(p + 48), true_lb = (int64_t)get64(p + 56),
            true_ub = (int64_t)get64(p + 64), ub = 0;
    if (__builtin_add_overflow(lb, extent, &ub))
        return BAD("lb %lld + extent %lld overflows", (long long)lb, (long long)extent);
    if (n_nodes == 0) {
        if (root != GK__DT_NONE || n_entries != 0 || size != 0 || true_lb != 0 ||
            true_ub != 0 || root_disp != 0)
            return BAD("an empty type with a root, entries, size or bounds");
    } else if (root >= n_nodes) {
        return BAD("root %u is not one of the %u nodes", root, n_nodes);
    }

    size_t bytes = sizeof(struct gk__dt_flat) + (size_t)n_nodes * sizeof(struct gk__dt_node) +
                   (size_t)n_entries * sizeof(struct gk__dt_entry);
    struct gk__dt_flat *flat = calloc(1, bytes);
    uint32_t *depth = calloc(n_nodes ? n_nodes : 1, sizeof(*depth));
    if (flat == NULL || depth == NULL) {
        free(flat);
        free(depth);
        return GK_ERR_NOMEM;
    }
    struct gk__dt_node *nodes = (struct gk__dt_node *)(void *)(flat + 1);
    struct gk__dt_entry *entries = (struct gk__dt_entry *)(void *)(nodes + n_nodes);
    const unsigned char *nodes_at = p + GK__DT_DESC_HEADER;
    const unsigned char *entries_at = nodes_at + (size_t)n_nodes * GK__DT_DESC_NODE;
    uint32_t next_entry = 0;
    int status = GK_OK;
    for (uint32_t i = 0; i < n_nodes && status == GK_OK; i++)
        status = decode_node(nodes_at + (size_t)i * GK__DT_DESC_NODE, entries_at, i, n_entries,
                             nodes, entries, depth, &next_entry, why, why_len);
    if (status == GK_OK && next_entry != n_entries)
        status = BAD("the lists take %u of the %u entries", next_entry, n_entries);
    if (status == GK_OK && n_nodes > 0) {
        const struct gk__dt_node *r = &nodes[root];
        int64_t tlb = 0, tub = 0;
        if (r->size != size)
            status = BAD("size %llu, but the nodes hold %llu bytes", (unsigned long long)size,
                         (unsigned long long)r->size);
        else if (__builtin_add_overflow(root_disp, r->lo, &tlb) ||
                 __builtin_add_overflow(root_disp, r->hi, &tub) || tlb != true_lb ||
                 tub != true_ub)
            status = BAD("true bounds [%lld, %lld), but the nodes touch [%lld + %lld, "
                         "%lld + %lld)",
                         (long long)true_lb, (long long)true_ub, (long long)root_disp,
                         (long long)r->lo, (long long)root_disp, (long long)r->hi);
        else if (true_lb < lo || true_ub > hi)
            status = BAD("its bytes [%lld, %lld) are not inside [%lld, %lld)",
                         (long long)true_lb, (long long)true_ub, (long long)lo, (long long)hi);
        flat->depth = depth[root];
    }
    free(depth);
    if (status != GK_OK) {
        free(flat);
        return status;
    }
    flat->n_nodes = n_nodes;
    flat->n_entries = n_entries;
    flat->root = n_nodes ? root : GK__DT_NONE;
    flat->size = size;
    flat->root_disp = root_disp;
    flat->lb = lb;
    flat->extent = extent;
    flat->true_lb = true_lb;
    flat->true_ub = true_ub;
    flat->nodes = nodes;
    flat->entries = entries;
    *flat_p = flat;
    return GK_OK;
}

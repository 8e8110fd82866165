/*
 * flat.c: the flattened form of a datatype (flat.h): the base types' forms,
 * the builder that commit uses, and the cursor every transfer walks.
 *
 * Positions are computed in int64, with every sum and product the builder
 * makes checked for overflow; the cursor then adds only offsets that the
 * checked bounds of its nodes cover, in wrapping unsigned arithmetic
 * (a child's origin may lie outside the bytes it touches, though every
 * byte it touches is in range), so no signed overflow is ever evaluated.
 */
#include <stdlib.h>
#include <string.h>

#include "dtype/flat.h"

/* ------------------------------------------------------------------------ */
/* Base types                                                               */
/* ------------------------------------------------------------------------ */

/* A pair type is its value then its int, with no gap between them. */
_Static_assert(offsetof(gk_float_int_t, index) == sizeof(float), "float_int layout");
_Static_assert(offsetof(gk_double_int_t, index) == sizeof(double), "double_int layout");
_Static_assert(offsetof(gk_long_int_t, index) == sizeof(long), "long_int layout");
_Static_assert(offsetof(gk_2int_t, index) == sizeof(int), "2int layout");
_Static_assert(offsetof(gk_long_double_int_t, index) == sizeof(long double),
               "long_double_int layout");

#define BASE_LEAF(n) {GK__DT_LEAF, 0, (n), 0, (n), 0, (int64_t)(n)}
#define BASE_PAIR(T) BASE_LEAF(offsetof(T, index) + sizeof(int))

static const struct gk__dt_node base_nodes[] = {
    [GK_DTYPE_INT32] = BASE_LEAF(sizeof(int32_t)),
    [GK_DTYPE_INT64] = BASE_LEAF(sizeof(int64_t)),
    [GK_DTYPE_FLOAT] = BASE_LEAF(sizeof(float)),
    [GK_DTYPE_DOUBLE] = BASE_LEAF(sizeof(double)),
    [GK_DTYPE_UINT64] = BASE_LEAF(sizeof(uint64_t)),
    [GK_DTYPE_INT8] = BASE_LEAF(sizeof(int8_t)),
    [GK_DTYPE_INT16] = BASE_LEAF(sizeof(int16_t)),
    [GK_DTYPE_UINT8] = BASE_LEAF(sizeof(uint8_t)),
    [GK_DTYPE_UINT16] = BASE_LEAF(sizeof(uint16_t)),
    [GK_DTYPE_UINT32] = BASE_LEAF(sizeof(uint32_t)),
    [GK_DTYPE_LONG_DOUBLE] = BASE_LEAF(sizeof(long double)),
    [GK_DTYPE_FLOAT_INT] = BASE_PAIR(gk_float_int_t),
    [GK_DTYPE_DOUBLE_INT] = BASE_PAIR(gk_double_int_t),
    [GK_DTYPE_LONG_INT] = BASE_PAIR(gk_long_int_t),
    [GK_DTYPE_2INT] = BASE_PAIR(gk_2int_t),
    [GK_DTYPE_LONG_DOUBLE_INT] = BASE_PAIR(gk_long_double_int_t),
};

#define BASE_FLAT(d, n, ext)                                                   \
    [d] = {.n_nodes = 1, .root = 0, .depth = 1, .size = (n), .extent = (int64_t)(ext), \
           .true_ub = (int64_t)(n), .nodes = &base_nodes[d]}
#define BASE_FLAT_PLAIN(d, T) BASE_FLAT(d, sizeof(T), sizeof(T))
#define BASE_FLAT_PAIR(d, T) BASE_FLAT(d, offsetof(T, index) + sizeof(int), sizeof(T))

static const struct gk__dt_flat base_flats[] = {
    BASE_FLAT_PLAIN(GK_DTYPE_INT32, int32_t),
    BASE_FLAT_PLAIN(GK_DTYPE_INT64, int64_t),
    BASE_FLAT_PLAIN(GK_DTYPE_FLOAT, float),
    BASE_FLAT_PLAIN(GK_DTYPE_DOUBLE, double),
    BASE_FLAT_PLAIN(GK_DTYPE_UINT64, uint64_t),
    BASE_FLAT_PLAIN(GK_DTYPE_INT8, int8_t),
    BASE_FLAT_PLAIN(GK_DTYPE_INT16, int16_t),
    BASE_FLAT_PLAIN(GK_DTYPE_UINT8, uint8_t),
    BASE_FLAT_PLAIN(GK_DTYPE_UINT16, uint16_t),
    BASE_FLAT_PLAIN(GK_DTYPE_UINT32, uint32_t),
    BASE_FLAT_PLAIN(GK_DTYPE_LONG_DOUBLE, long double),
    BASE_FLAT_PAIR(GK_DTYPE_FLOAT_INT, gk_float_int_t),
    BASE_FLAT_PAIR(GK_DTYPE_DOUBLE_INT, gk_double_int_t),
    BASE_FLAT_PAIR(GK_DTYPE_LONG_INT, gk_long_int_t),
    BASE_FLAT_PAIR(GK_DTYPE_2INT, gk_2int_t),
    BASE_FLAT_PAIR(GK_DTYPE_LONG_DOUBLE_INT, gk_long_double_int_t),
};
_Static_assert(sizeof(base_flats) / sizeof(base_flats[0]) == GK_DTYPE_LONG_DOUBLE_INT + 1,
               "a form for every gk_dtype_t");

const struct gk__dt_flat *gk__dt_base_flat(int dtype)
{
    if (dtype < 0 || dtype > GK_DTYPE_LONG_DOUBLE_INT)
        return NULL;
    return &base_flats[dtype];
}

/* ------------------------------------------------------------------------ */
/* Checked arithmetic                                                       */
/* ------------------------------------------------------------------------ */

static int mul_i64(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

static int add_i64(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}

int gk__dt_span_repeat(uint64_t count, int64_t stride, int64_t lo, int64_t hi, int64_t *lo_p,
                       int64_t *hi_p)
{
    int64_t last = 0;
    if (count == 0 || count > (uint64_t)INT64_MAX || !mul_i64((int64_t)(count - 1), stride, &last))
        return 0;
    return add_i64(lo, last < 0 ? last : 0, lo_p) && add_i64(hi, last > 0 ? last : 0, hi_p);
}

int gk__dt_strided_init(struct gk__dt_strided *s, uint64_t block, uint64_t nblocks,
                        int64_t stride)
{
    memset(s, 0, sizeof(*s));
    s->flat.nodes = s->nodes;
    s->flat.root = GK__DT_NONE;
    uint64_t total = 0;
    if (__builtin_mul_overflow(block, nblocks, &total) || total > (uint64_t)INT64_MAX)
        return GK_ERR_INVALID_ARG;
    if (total == 0)
        return GK_OK;
    struct gk__dt_node leaf = {.kind = GK__DT_LEAF, .count = block, .size = block,
                               .hi = (int64_t)block};
    s->flat.size = total;
    if (nblocks == 1 || stride == (int64_t)block) {
        leaf.count = leaf.size = total;
        leaf.hi = (int64_t)total;
        s->nodes[0] = leaf;
        s->flat.n_nodes = 1;
        s->flat.root = 0;
        s->flat.depth = 1;
    } else {
        struct gk__dt_node rep = {.kind = GK__DT_REPEAT, .child = 0, .count = nblocks,
                                  .stride = stride, .size = total};
        if (!gk__dt_span_repeat(nblocks, stride, leaf.lo, leaf.hi, &rep.lo, &rep.hi))
            return GK_ERR_INVALID_ARG;
        s->nodes[0] = leaf;
        s->nodes[1] = rep;
        s->flat.n_nodes = 2;
        s->flat.root = 1;
        s->flat.depth = 2;
    }
    s->flat.extent = s->nodes[s->flat.root].hi;
    s->flat.true_lb = s->nodes[s->flat.root].lo;
    s->flat.true_ub = s->nodes[s->flat.root].hi;
    return GK_OK;
}

/* ------------------------------------------------------------------------ */
/* The builder                                                              */
/* ------------------------------------------------------------------------ */

void gk__dt_builder_init(struct gk__dt_builder *b)
{
    memset(b, 0, sizeof(*b));
}

void gk__dt_builder_fini(struct gk__dt_builder *b)
{
    free(b->nodes);
    free(b->entries);
    free(b->hash);
    memset(b, 0, sizeof(*b));
}

static uint64_t node_hash(const struct gk__dt_node *n)
{
    uint64_t h = n->kind * 0x9e3779b97f4a7c15ull;
    h = (h ^ n->count) * 0xff51afd7ed558ccdull;
    h = (h ^ (uint64_t)n->stride) * 0xc4ceb9fe1a85ec53ull;
    h = (h ^ n->child) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static int node_same(const struct gk__dt_node *a, const struct gk__dt_node *b)
{
    return a->kind == b->kind && a->count == b->count && a->stride == b->stride &&
           a->child == b->child;
}

static int hash_grow(struct gk__dt_builder *b)
{
    uint32_t cap = b->hash_cap ? b->hash_cap * 2 : 64;
    uint32_t *hash = calloc(cap, sizeof(*hash));
    if (hash == NULL)
        return GK_ERR_NOMEM;
    for (uint32_t i = 0; i < b->hash_cap; i++) {
        if (b->hash[i] == 0)
            continue;
        uint32_t at = (uint32_t)node_hash(&b->nodes[b->hash[i] - 1]) & (cap - 1);
        while (hash[at] != 0)
            at = (at + 1) & (cap - 1);
        hash[at] = b->hash[i];
    }
    free(b->hash);
    b->hash = hash;
    b->hash_cap = cap;
    return GK_OK;
}

static int node_append(struct gk__dt_builder *b, const struct gk__dt_node *n, uint32_t *index_p)
{
    if (b->n_nodes == b->cap_nodes) {
        if (b->cap_nodes >= UINT32_MAX / 4)
            return GK_ERR_NOMEM;
        uint32_t cap = b->cap_nodes ? b->cap_nodes * 2 : 16;
        struct gk__dt_node *nodes = realloc(b->nodes, cap * sizeof(*nodes));
        if (nodes == NULL)
            return GK_ERR_NOMEM;
        b->nodes = nodes;
        b->cap_nodes = cap;
    }
    b->nodes[b->n_nodes] = *n;
    *index_p = b->n_nodes++;
    return GK_OK;
}

/* A LEAF or REPEAT node: the existing equal one, or a new one. */
static int node_intern(struct gk__dt_builder *b, const struct gk__dt_node *n, uint32_t *index_p)
{
    if (2 * (b->n_nodes + 1) > b->hash_cap) {
        int status = hash_grow(b);
        if (status != GK_OK)
            return status;
    }
    uint32_t at = (uint32_t)node_hash(n) & (b->hash_cap - 1);
    while (b->hash[at] != 0) {
        if (node_same(&b->nodes[b->hash[at] - 1], n)) {
            *index_p = b->hash[at] - 1;
            return GK_OK;
        }
        at = (at + 1) & (b->hash_cap - 1);
    }
    int status = node_append(b, n, index_p);
    if (status == GK_OK)
        b->hash[at] = *index_p + 1;
    return status;
}

static const struct gk__dt_part part_none = {GK__DT_NONE, 0};

int gk__dt_leaf(struct gk__dt_builder *b, uint64_t len, struct gk__dt_part *part_p)
{
    if (len == 0) {
        *part_p = part_none;
        return GK_OK;
    }
    if (len > (uint64_t)INT64_MAX)
        return GK_ERR_INVALID_ARG;
    struct gk__dt_node n = {.kind = GK__DT_LEAF, .count = len, .size = len, .lo = 0,
                            .hi = (int64_t)len};
    part_p->disp = 0;
    return node_intern(b, &n, &part_p->node);
}

int gk__dt_repeat(struct gk__dt_builder *b, uint64_t count, int64_t stride,
                  struct gk__dt_part child, struct gk__dt_part *part_p)
{
    if (child.node == GK__DT_NONE || count == 0) {
        *part_p = part_none;
        return GK_OK;
    }
    if (count == 1) {
        *part_p = child;
        return GK_OK;
    }
    const struct gk__dt_node c = b->nodes[child.node];
    uint64_t total = 0;
    if (__builtin_mul_overflow(count, c.size, &total) || total > (uint64_t)INT64_MAX)
        return GK_ERR_INVALID_ARG;
    /* Back to back copies of a leaf: one longer leaf. */
    if (c.kind == GK__DT_LEAF && stride == (int64_t)c.count) {
        int status = gk__dt_leaf(b, total, part_p);
        part_p->disp = child.disp;
        return status;
    }
    struct gk__dt_node n = {.kind = GK__DT_REPEAT, .count = count, .stride = stride,
                            .child = child.node, .size = total};
    /* Copies of a repeat whose stride continues the inner one: one repeat. */
    int64_t inner_span = 0;
    if (c.kind == GK__DT_REPEAT && c.count <= (uint64_t)INT64_MAX &&
        mul_i64((int64_t)c.count, c.stride, &inner_span) && inner_span == stride &&
        !__builtin_mul_overflow(count, c.count, &n.count)) {
        n.stride = c.stride;
        n.child = c.child;
        const struct gk__dt_node *cc = &b->nodes[c.child];
        if (!gk__dt_span_repeat(n.count, n.stride, cc->lo, cc->hi, &n.lo, &n.hi))
            return GK_ERR_INVALID_ARG;
    } else if (!gk__dt_span_repeat(count, stride, c.lo, c.hi, &n.lo, &n.hi)) {
        return GK_ERR_INVALID_ARG;
    }
    part_p->disp = child.disp;
    return node_intern(b, &n, &part_p->node);
}

static int entry_append(struct gk__dt_builder *b, const struct gk__dt_entry *e)
{
    if (b->n_entries == b->cap_entries) {
        if (b->cap_entries >= UINT32_MAX / 4)
            return GK_ERR_NOMEM;
        uint32_t cap = b->cap_entries ? b->cap_entries * 2 : 16;
        struct gk__dt_entry *entries = realloc(b->entries, cap * sizeof(*entries));
        if (entries == NULL)
            return GK_ERR_NOMEM;
        b->entries = entries;
        b->cap_entries = cap;
    }
    b->entries[b->n_entries++] = *e;
    return GK_OK;
}

/* Whether parts[0 .. n) are copies of one node at equal distances. */
static int parts_regular(const struct gk__dt_part *parts, size_t n, int64_t *stride_p)
{
    int64_t stride = 0;
    if (n < 2 || __builtin_sub_overflow(parts[1].disp, parts[0].disp, &stride))
        return 0;
    for (size_t i = 1; i < n; i++) {
        int64_t d = 0;
        if (parts[i].node != parts[0].node ||
            __builtin_sub_overflow(parts[i].disp, parts[i - 1].disp, &d) || d != stride)
            return 0;
    }
    *stride_p = stride;
    return 1;
}

int gk__dt_list(struct gk__dt_builder *b, const struct gk__dt_part *parts, size_t n,
                struct gk__dt_part *part_p)
{
    struct gk__dt_part *kept = malloc((n ? n : 1) * sizeof(*kept));
    if (kept == NULL)
        return GK_ERR_NOMEM;
    int status = GK_OK;
    size_t m = 0;
    for (size_t i = 0; i < n && status == GK_OK; i++) {
        if (parts[i].node == GK__DT_NONE)
            continue;
        /* A leaf right after a leaf: one leaf. */
        if (m > 0) {
            const struct gk__dt_node *prev = &b->nodes[kept[m - 1].node];
            const struct gk__dt_node *cur = &b->nodes[parts[i].node];
            int64_t end = 0;
            if (prev->kind == GK__DT_LEAF && cur->kind == GK__DT_LEAF &&
                add_i64(kept[m - 1].disp, (int64_t)prev->count, &end) && end == parts[i].disp) {
                int64_t disp = kept[m - 1].disp;
                status = gk__dt_leaf(b, prev->count + cur->count, &kept[m - 1]);
                kept[m - 1].disp = disp;
                continue;
            }
        }
        kept[m++] = parts[i];
    }
    int64_t stride = 0;
    if (status != GK_OK) {
        /* the error is returned below */
    } else if (m == 0) {
        *part_p = part_none;
    } else if (m == 1) {
        *part_p = kept[0];
    } else if (parts_regular(kept, m, &stride)) {
        status = gk__dt_repeat(b, m, stride, kept[0], part_p);
    } else {
        struct gk__dt_node list = {.kind = GK__DT_LIST, .child = b->n_entries, .count = m,
                                   .lo = INT64_MAX, .hi = INT64_MIN};
        for (size_t i = 0; i < m && status == GK_OK; i++) {
            const struct gk__dt_node *c = &b->nodes[kept[i].node];
            struct gk__dt_entry e = {kept[i].disp, kept[i].node, list.size};
            int64_t lo = 0, hi = 0;
            if (__builtin_add_overflow(list.size, c->size, &list.size) ||
                list.size > (uint64_t)INT64_MAX || !add_i64(e.disp, c->lo, &lo) ||
                !add_i64(e.disp, c->hi, &hi)) {
                status = GK_ERR_INVALID_ARG;
                break;
            }
            list.lo = lo < list.lo ? lo : list.lo;
            list.hi = hi > list.hi ? hi : list.hi;
            status = entry_append(b, &e);
        }
        if (status == GK_OK) {
            part_p->disp = 0;
            status = node_append(b, &list, &part_p->node);
        }
    }
    free(kept);
    return status;
}

int gk__dt_finish(struct gk__dt_builder *b, struct gk__dt_part root, int64_t lb,
                  int64_t extent, struct gk__dt_flat **flat_p, uint32_t *depth_p)
{
    uint32_t *renum = NULL;
    uint32_t *depth = NULL;
    uint32_t n_nodes = 0, n_entries = 0;
    int status = GK_OK;
    if (root.node != GK__DT_NONE) {
        uint32_t total = root.node + 1;
        renum = calloc(total, sizeof(*renum));
        depth = calloc(total, sizeof(*depth));
        if (renum == NULL || depth == NULL) {
            status = GK_ERR_NOMEM;
            goto out;
        }
        /* Children come before parents: one pass down marks what the root
         * reaches (renum != 0), one pass up numbers it and its depth. */
        renum[root.node] = 1;
        for (uint32_t i = total; i-- > 0;) {
            const struct gk__dt_node *n = &b->nodes[i];
            if (!renum[i])
                continue;
            if (n->kind == GK__DT_REPEAT)
                renum[n->child] = 1;
            for (uint64_t k = 0; n->kind == GK__DT_LIST && k < n->count; k++)
                renum[b->entries[n->child + k].child] = 1;
        }
        for (uint32_t i = 0; i < total; i++) {
            const struct gk__dt_node *n = &b->nodes[i];
            if (!renum[i])
                continue;
            uint32_t d = 0;
            if (n->kind == GK__DT_REPEAT)
                d = depth[n->child];
            for (uint64_t k = 0; n->kind == GK__DT_LIST && k < n->count; k++) {
                uint32_t dc = depth[b->entries[n->child + k].child];
                d = dc > d ? dc : d;
            }
            depth[i] = d + 1;
            renum[i] = n_nodes++;
            if (n->kind == GK__DT_LIST)
                n_entries += (uint32_t)n->count;
        }
        *depth_p = depth[root.node];
        if (depth[root.node] > GK_TYPE_MAX_DEPTH) {
            status = GK_ERR_UNSUPPORTED;
            goto out;
        }
    }
    size_t bytes = sizeof(struct gk__dt_flat) + n_nodes * sizeof(struct gk__dt_node) +
                   n_entries * sizeof(struct gk__dt_entry);
    struct gk__dt_flat *flat = calloc(1, bytes);
    if (flat == NULL) {
        status = GK_ERR_NOMEM;
        goto out;
    }
    struct gk__dt_node *nodes = (struct gk__dt_node *)(void *)(flat + 1);
    struct gk__dt_entry *entries = (struct gk__dt_entry *)(void *)(nodes + n_nodes);
    flat->lb = lb;
    flat->extent = extent;
    flat->root = GK__DT_NONE;
    if (root.node != GK__DT_NONE) {
        uint32_t next_node = 0, next_entry = 0;
        for (uint32_t i = 0; i <= root.node; i++) {
            if (depth[i] == 0)
                continue; /* not reached (renum[i] is 0 then, as for the first) */
            struct gk__dt_node n = b->nodes[i];
            if (n.kind == GK__DT_REPEAT) {
                n.child = renum[n.child];
            } else if (n.kind == GK__DT_LIST) {
                for (uint64_t k = 0; k < n.count; k++) {
                    entries[next_entry + k] = b->entries[n.child + k];
                    entries[next_entry + k].child = renum[b->entries[n.child + k].child];
                }
                n.child = next_entry;
                next_entry += (uint32_t)n.count;
            }
            nodes[next_node++] = n;
        }
        flat->n_nodes = n_nodes;
        flat->n_entries = n_entries;
        flat->root = renum[root.node];
        flat->depth = depth[root.node];
        flat->size = nodes[flat->root].size;
        flat->root_disp = root.disp;
        if (!add_i64(root.disp, nodes[flat->root].lo, &flat->true_lb) ||
            !add_i64(root.disp, nodes[flat->root].hi, &flat->true_ub)) {
            free(flat);
            status = GK_ERR_INVALID_ARG;
            goto out;
        }
    }
    flat->nodes = nodes;
    flat->entries = entries;
    *flat_p = flat;
out:
    free(renum);
    free(depth);
    return status;
}

/* ------------------------------------------------------------------------ */
/* The cursor                                                               */
/* ------------------------------------------------------------------------ */

static inline int64_t pos_add(int64_t base, uint64_t index, int64_t stride)
{
    return (int64_t)((uint64_t)base + index * (uint64_t)stride);
}

/* Pushes frames from `node` (origin at `base`) down to the leaf holding its
 * data byte `rem`. */
static void cursor_descend(struct gk__dt_cursor *c, uint32_t node, int64_t base, uint64_t rem)
{
    const struct gk__dt_node *nodes = c->flat->nodes;
    for (;;) {
        struct gk__dt_frame *f = &c->frames[c->depth++];
        const struct gk__dt_node *n = &nodes[node];
        f->node = node;
        f->base = base;
        if (n->kind == GK__DT_LEAF) {
            f->index = 0;
            c->pos = pos_add(base, rem, 1);
            c->len = n->count - rem;
            return;
        }
        if (n->kind == GK__DT_REPEAT) {
            uint64_t csize = nodes[n->child].size;
            uint64_t i = rem / csize;
            f->index = i;
            rem -= i * csize;
            base = pos_add(base, i, n->stride);
            node = n->child;
            continue;
        }
        /* LIST: the last entry with `before` <= rem. */
        const struct gk__dt_entry *e = &c->flat->entries[n->child];
        uint64_t lo = 0, hi = n->count;
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (e[mid].before <= rem)
                lo = mid;
            else
                hi = mid;
        }
        f->index = lo;
        rem -= e[lo].before;
        base = pos_add(base, 1, e[lo].disp);
        node = e[lo].child;
    }
}

void gk__dt_cursor_init(struct gk__dt_cursor *c, const struct gk__dt_flat *flat,
                        uint64_t count, uint64_t offset)
{
    const struct gk__dt_flat *f = flat;
    uint64_t total = count * f->size;
    c->flat = f;
    c->count = count;
    c->depth = 0;
    c->element = 0;
    c->pos = 0;
    c->len = 0;
    c->left = offset < total ? total - offset : 0;
    if (c->left == 0)
        return;
    const struct gk__dt_node *root = &f->nodes[f->root];
    if (root->kind == GK__DT_LEAF && (count == 1 || f->extent == (int64_t)root->count)) {
        /* One piece for the whole array: next_piece is never needed. */
        c->pos = pos_add(f->root_disp, offset, 1);
        c->len = c->left;
        return;
    }
    c->element = offset / f->size;
    cursor_descend(c, f->root, pos_add(f->root_disp, c->element, f->extent),
                   offset - c->element * f->size);
}

void gk__dt_cursor_next_piece(struct gk__dt_cursor *c)
{
    const struct gk__dt_flat *f = c->flat;
    c->depth--; /* the leaf just finished */
    while (c->depth > 0) {
        struct gk__dt_frame *fr = &c->frames[c->depth - 1];
        const struct gk__dt_node *n = &f->nodes[fr->node];
        if (fr->index + 1 < n->count) {
            fr->index++;
            if (n->kind == GK__DT_REPEAT) {
                cursor_descend(c, n->child, pos_add(fr->base, fr->index, n->stride), 0);
            } else {
                const struct gk__dt_entry *e = &f->entries[n->child + fr->index];
                cursor_descend(c, e->child, pos_add(fr->base, 1, e->disp), 0);
            }
            return;
        }
        c->depth--;
    }
    c->element++;
    cursor_descend(c, f->root, pos_add(f->root_disp, c->element, f->extent), 0);
}

int gk__dt_span(const struct gk__dt_flat *flat, uint64_t count, uint64_t *size_p,
                int64_t *lo_p, int64_t *hi_p)
{
    uint64_t size = 0;
    if (__builtin_mul_overflow(count, flat->size, &size) || size > (uint64_t)INT64_MAX)
        return GK_ERR_INVALID_ARG;
    *size_p = size;
    if (size == 0) {
        *lo_p = 0;
        *hi_p = 0;
        return GK_OK;
    }
    if (!gk__dt_span_repeat(count, flat->extent, flat->true_lb, flat->true_ub, lo_p, hi_p))
        return GK_ERR_INVALID_ARG;
    return GK_OK;
}

/*
 * When c stands at the start of a leaf whose parent is a REPEAT (a strided
 * run of equal blocks), the number of blocks left in that run, this one
 * included, with the block's length and the stride in *len_p, *stride_p;
 * otherwise 0.
 */
static uint64_t cursor_run(const struct gk__dt_cursor *c, uint64_t *len_p, int64_t *stride_p)
{
    if (c->depth < 2)
        return 0;
    const struct gk__dt_frame *lf = &c->frames[c->depth - 1], *pf = &c->frames[c->depth - 2];
    const struct gk__dt_node *leaf = &c->flat->nodes[lf->node];
    const struct gk__dt_node *rep = &c->flat->nodes[pf->node];
    if (rep->kind != GK__DT_REPEAT || leaf->kind != GK__DT_LEAF || c->len != leaf->count)
        return 0;
    *len_p = leaf->count;
    *stride_p = rep->stride;
    return rep->count - pf->index;
}

/* Moves c over k whole blocks of its run (cursor_run), staying at the
 * start of a block. */
static void cursor_skip_run(struct gk__dt_cursor *c, uint64_t k, uint64_t len, int64_t stride)
{
    int64_t step = (int64_t)k * stride;
    c->frames[c->depth - 2].index += k;
    c->frames[c->depth - 1].base += step;
    c->pos += step;
    c->left -= k * len;
}

/* k blocks of `len` bytes, strides apart on each side. Small blocks get a
 * memcpy of a constant size, which the compiler turns into moves: a call
 * per block would cost more than the copy. */
static void copy_run(char *dst, int64_t dstride, const char *src, int64_t sstride, uint64_t k,
                     uint64_t len)
{
#define COPY_RUN(n)                                                                            \
    for (uint64_t i = 0; i < k; i++, dst += dstride, src += sstride)                           \
        memcpy(dst, src, n);
    switch (len) {
    case 4:
        COPY_RUN(4);
        break;
    case 8:
        COPY_RUN(8);
        break;
    case 16:
        COPY_RUN(16);
        break;
    case 32:
        COPY_RUN(32);
        break;
    default:
        COPY_RUN(len);
        break;
    }
#undef COPY_RUN
}

void gk__dt_stretch_next(const struct gk__dt_cursor *dc, const struct gk__dt_cursor *sc,
                         uint64_t n, struct gk__dt_stretch *st)
{
    uint64_t dlen = 0, slen = 0;
    int64_t dstride = 0, sstride = 0;
    uint64_t dk = cursor_run(dc, &dlen, &dstride);
    uint64_t sk = cursor_run(sc, &slen, &sstride);
    int dcontig = 0, scontig = 0;
    /* A side contiguous over several of the other side's blocks walks
     * them as blocks one block apart (a vector into a contiguous buffer). */
    if (dk > 1 && sk == 0 && sc->len / dlen > 1) {
        sk = sc->len / dlen, slen = dlen, sstride = (int64_t)dlen, scontig = 1;
    } else if (sk > 1 && dk == 0 && dc->len / slen > 1) {
        dk = dc->len / slen, dlen = slen, dstride = (int64_t)slen, dcontig = 1;
    }
    if (dk > 1 && sk > 1 && dlen == slen && n / dlen > 1) {
        /* Both sides in strided runs of equal blocks: all but the last
         * block they share, so that the last goes the usual way and the
         * cursors step into whatever follows. */
        uint64_t k = dk < sk ? dk : sk;
        k = (k < n / dlen ? k : n / dlen) - 1;
        *st = (struct gk__dt_stretch){.k = k, .len = dlen, .dstride = dstride,
                                      .sstride = sstride, .strided = 1, .dcontig = dcontig,
                                      .scontig = scontig};
        return;
    }
    uint64_t m = dc->len < sc->len ? dc->len : sc->len;
    *st = (struct gk__dt_stretch){.k = 1, .len = m < n ? m : n};
}

/* Moves c past the k blocks of a stretch: along its run, or on through
 * its contiguous piece (`contig`: k blocks end inside it). */
static void stretch_side_pass(struct gk__dt_cursor *c, int contig, uint64_t k, uint64_t len,
                              int64_t stride)
{
    if (contig)
        gk__dt_cursor_advance(c, k * len);
    else
        cursor_skip_run(c, k, len, stride);
}

void gk__dt_stretch_pass(struct gk__dt_cursor *dc, struct gk__dt_cursor *sc,
                         const struct gk__dt_stretch *st)
{
    if (st->strided) {
        stretch_side_pass(dc, st->dcontig, st->k, st->len, st->dstride);
        stretch_side_pass(sc, st->scontig, st->k, st->len, st->sstride);
    } else {
        gk__dt_cursor_advance(dc, st->len);
        gk__dt_cursor_advance(sc, st->len);
    }
}

void gk__dt_copy(char *dst, struct gk__dt_cursor *dc, const char *src,
                 struct gk__dt_cursor *sc, uint64_t n)
{
    while (n > 0) {
        struct gk__dt_stretch st;
        gk__dt_stretch_next(dc, sc, n, &st);
        if (st.strided)
            copy_run(dst + dc->pos, st.dstride, src + sc->pos, st.sstride, st.k, st.len);
        else
            memcpy(dst + dc->pos, src + sc->pos, st.len);
        gk__dt_stretch_pass(dc, sc, &st);
        n -= st.k * st.len;
    }
}

/*
 * type.c: datatype handles, the constructors, commit, free and the
 * queries (gasket_dtype.h).
 *
 * Objects. Every constructor makes one object of four kinds: HVECTOR
 * (count blocks of blocklen children, stride bytes apart), HINDEXED and
 * STRUCT (blocks at byte displacements, of one child or of one each), and
 * RESIZED (the child with other bounds). Contiguous, vector, the indexed
 * forms, subarray and dup are written in these terms, with strides and
 * displacements turned into bytes at once. An object holds a reference on
 * each child, so a type may be freed while types built from it live on.
 * Size, bounds and alignment are computed when the object is made, with
 * every operation checked for overflow; commit flattens the object tree
 * into flat.h's form, once.
 *
 * Handles. A handle is a plain value: the base types carry a tag and their
 * gk_dtype_t; a derived type's handle is its slot in a table (low 32 bits,
 * plus one) under the slot's generation (the 31 bits above). Freeing bumps
 * the generation, so an old handle never names the slot's next type, and
 * the check costs one load. The table grows in chunks that never move, so
 * lookups take no lock; allocation and free take a mutex (they are not on
 * any fast path).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "dtype/type.h"

enum type_kind { TYPE_BASE, TYPE_HVECTOR, TYPE_HINDEXED, TYPE_STRUCT, TYPE_RESIZED };

/* Nesting of objects (not of the flattened form, which merges levels):
 * enough for any real type, and a bound on commit's recursion. */
#define TYPE_MAX_NEST 1024

struct type {
    _Atomic uint32_t refs;
    enum type_kind kind;
    int is_static; /* the base types: never freed */
    uint32_t nest;
    uint64_t size;
    int64_t lb, ub;           /* extent = ub - lb */
    int64_t true_lb, true_ub; /* 0, 0 when size is 0 */
    uint64_t align;           /* the strictest base type's, for struct padding */
    int base; /* the one gk_dtype_t every data byte belongs to, or a TYPE_BASE_* */
    /* HVECTOR: count, blocklen, stride; HINDEXED and STRUCT: n blocks. */
    uint64_t count, blocklen;
    int64_t stride;
    uint64_t *blocklens;
    int64_t *displs;
    struct type **children; /* STRUCT: n of them; the others: one */
    _Atomic(struct gk__dt_flat *) flat; /* set by commit */
};

/* ------------------------------------------------------------------------ */
/* Base types                                                               */
/* ------------------------------------------------------------------------ */

#define N_BASE (GK_DTYPE_LONG_DOUBLE_INT + 1)
/* struct type.base when no single base type: bytes of several, or none. */
#define TYPE_BASE_MIXED (-1)
#define TYPE_BASE_NONE (-2)

/* The base of a type holding parts of bases a and b. */
static int base_join(int a, int b)
{
    if (a == TYPE_BASE_NONE)
        return b;
    if (b == TYPE_BASE_NONE || a == b)
        return a;
    return TYPE_BASE_MIXED;
}

/* The base a child contributes in blocks of blocklen (none when empty). */
static int base_of_blocks(const struct type *child, uint64_t blocklen)
{
    return blocklen == 0 || child->size == 0 ? TYPE_BASE_NONE : child->base;
}
static struct type base_types[N_BASE];
static pthread_once_t base_once = PTHREAD_ONCE_INIT;

static uint64_t base_align(int dtype)
{
    switch (dtype) {
    case GK_DTYPE_INT8:
    case GK_DTYPE_UINT8:
        return 1;
    case GK_DTYPE_INT16:
    case GK_DTYPE_UINT16:
        return _Alignof(int16_t);
    case GK_DTYPE_INT32:
    case GK_DTYPE_UINT32:
        return _Alignof(int32_t);
    case GK_DTYPE_FLOAT:
        return _Alignof(float);
    case GK_DTYPE_INT64:
    case GK_DTYPE_UINT64:
        return _Alignof(int64_t);
    case GK_DTYPE_DOUBLE:
        return _Alignof(double);
    case GK_DTYPE_LONG_DOUBLE:
        return _Alignof(long double);
    case GK_DTYPE_FLOAT_INT:
        return _Alignof(gk_float_int_t);
    case GK_DTYPE_DOUBLE_INT:
        return _Alignof(gk_double_int_t);
    case GK_DTYPE_LONG_INT:
        return _Alignof(gk_long_int_t);
    case GK_DTYPE_2INT:
        return _Alignof(gk_2int_t);
    default:
        return _Alignof(gk_long_double_int_t);
    }
}

static void base_init(void)
{
    for (int d = 0; d < N_BASE; d++) {
        const struct gk__dt_flat *f = gk__dt_base_flat(d);
        struct type *t = &base_types[d];
        t->kind = TYPE_BASE;
        t->is_static = 1;
        t->nest = 1;
        t->size = f->size;
        t->lb = 0;
        t->ub = f->extent;
        t->true_lb = 0;
        t->true_ub = (int64_t)f->size;
        t->align = base_align(d);
        t->count = (uint64_t)d;
        t->base = d;
        atomic_init(&t->flat, (struct gk__dt_flat *)f);
    }
}

/* ------------------------------------------------------------------------ */
/* The handle table                                                         */
/* ------------------------------------------------------------------------ */

#define CHUNK_SLOTS 1024u
#define TABLE_CHUNKS 1024u /* up to a million live types */
#define GEN_MASK 0x7fffffffu

struct slot {
    _Atomic(struct type *) obj;
    _Atomic uint32_t gen;
    uint32_t next_free; /* index + 1, 0: none */
};

static _Atomic(struct slot *) table[TABLE_CHUNKS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t table_used;      /* slots ever handed out */
static uint32_t table_free_head; /* index + 1 */

static struct slot *slot_at(uint32_t index)
{
    struct slot *chunk =
        atomic_load_explicit(&table[index / CHUNK_SLOTS], memory_order_acquire);
    return chunk == NULL ? NULL : &chunk[index % CHUNK_SLOTS];
}

static gk_type_t handle_of(uint32_t index, uint32_t gen)
{
    return (gk_type_t){(uint64_t)(gen & GEN_MASK) << 32 | (uint64_t)(index + 1)};
}

/* Gives obj a handle (the caller's reference becomes the handle's). */
static int table_add(struct type *obj, gk_type_t *handle_p)
{
    int status = GK_OK;
    pthread_mutex_lock(&table_lock);
    uint32_t index;
    if (table_free_head != 0) {
        index = table_free_head - 1;
        table_free_head = slot_at(index)->next_free;
    } else if (table_used < TABLE_CHUNKS * CHUNK_SLOTS) {
        index = table_used;
        if (index % CHUNK_SLOTS == 0) {
            struct slot *chunk = calloc(CHUNK_SLOTS, sizeof(*chunk));
            if (chunk == NULL) {
                status = GK_ERR_NOMEM;
                goto out;
            }
            atomic_store_explicit(&table[index / CHUNK_SLOTS], chunk, memory_order_release);
        }
        table_used++;
    } else {
        gk__error("datatypes: %u types are live, the most there may be; free some "
                  "(gk_type_free)",
                  TABLE_CHUNKS * CHUNK_SLOTS);
        status = GK_ERR_NOMEM;
        goto out;
    }
    struct slot *s = slot_at(index);
    atomic_store_explicit(&s->obj, obj, memory_order_release);
    *handle_p = handle_of(index, atomic_load_explicit(&s->gen, memory_order_relaxed));
out:
    pthread_mutex_unlock(&table_lock);
    return status;
}

const char *gk__type_str(gk_type_t handle, char *buf, size_t len)
{
    if ((handle.bits & GK__TYPE_BASE_TAG) != 0) {
        const char *name = gk__dtype_name((int)(handle.bits & 0xffff));
        if (name != NULL && (handle.bits & ~GK__TYPE_BASE_TAG) <= 0xffff) {
            snprintf(buf, len, "GK_TYPE_OF(%s)", name);
            return buf;
        }
    }
    snprintf(buf, len, "%#llx", (unsigned long long)handle.bits);
    return buf;
}

/*
 * The object a handle names (no reference taken), or an error after a
 * message naming call `op`, its argument `arg` and the handle.
 */
static int type_lookup(const char *op, const char *arg, gk_type_t handle, struct type **obj_p)
{
    uint64_t bits = handle.bits;
    if ((bits & GK__TYPE_BASE_TAG) != 0) {
        uint64_t d = bits & ~GK__TYPE_BASE_TAG;
        if (d < N_BASE) {
            pthread_once(&base_once, base_init);
            *obj_p = &base_types[d];
            return GK_OK;
        }
        gk__error("%s: %s %#llx is not a type (no base type has that number)", op, arg,
                  (unsigned long long)bits);
        return GK_ERR_INVALID_ARG;
    }
    if (bits == 0) {
        gk__error("%s: %s is GK_TYPE_NULL", op, arg);
        return GK_ERR_INVALID_ARG;
    }
    uint32_t index = (uint32_t)bits - 1;
    uint32_t gen = (uint32_t)(bits >> 32);
    struct slot *s = (uint32_t)bits == 0 || index >= TABLE_CHUNKS * CHUNK_SLOTS
                         ? NULL
                         : slot_at(index);
    if (s == NULL) {
        gk__error("%s: %s %#llx is not a type (never handed out)", op, arg,
                  (unsigned long long)bits);
        return GK_ERR_INVALID_ARG;
    }
    struct type *obj = atomic_load_explicit(&s->obj, memory_order_acquire);
    uint32_t now = atomic_load_explicit(&s->gen, memory_order_relaxed) & GEN_MASK;
    if (obj == NULL || now != gen) {
        if (now != gen)
            gk__error("%s: %s %#llx was freed (generation %u, now %u)", op, arg,
                      (unsigned long long)bits, gen, now);
        else
            gk__error("%s: %s %#llx is not a type (never handed out)", op, arg,
                      (unsigned long long)bits);
        return GK_ERR_INVALID_ARG;
    }
    *obj_p = obj;
    return GK_OK;
}

/* ------------------------------------------------------------------------ */
/* Objects                                                                  */
/* ------------------------------------------------------------------------ */

static void type_ref(struct type *t)
{
    if (!t->is_static)
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

static void type_unref(struct type *t)
{
    while (t != NULL && !t->is_static &&
           atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
        size_t n = t->kind == TYPE_STRUCT ? t->count : 1;
        for (size_t i = 1; i < n; i++)
            type_unref(t->children[i]);
        struct type *first = t->children != NULL ? t->children[0] : NULL;
        free(t->children);
        free(t->blocklens);
        free(t->displs);
        free(atomic_load_explicit(&t->flat, memory_order_relaxed));
        free(t);
        t = first; /* the first child without recursion: chains can be long */
    }
}

static struct type *type_new(enum type_kind kind, size_t n_children)
{
    struct type *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->children = calloc(n_children ? n_children : 1, sizeof(*t->children));
    if (t->children == NULL) {
        free(t);
        return NULL;
    }
    atomic_init(&t->refs, 1);
    atomic_init(&t->flat, NULL);
    t->kind = kind;
    return t;
}

static int report_nomem(const char *op)
{
    gk__error("%s: out of memory for the type", op);
    return GK_ERR_NOMEM;
}

static int report_overflow(const char *op, const char *what)
{
    gk__error("%s: %s overflows (a type spans at most PTRDIFF_MAX bytes)", op, what);
    return GK_ERR_INVALID_ARG;
}

/* A count, block length or size: at most PTRDIFF_MAX (a larger one was
 * probably negative, and is said so). */
static int check_count(const char *op, const char *arg, uint64_t value)
{
    if (value <= (uint64_t)INT64_MAX)
        return GK_OK;
    gk__error("%s: %s %llu is too large (as a signed number: %lld)", op, arg,
              (unsigned long long)value, (long long)value);
    return GK_ERR_INVALID_ARG;
}

/*
 * The bounds an object's blocks build up, and its size, by MPI-3's rules
 * (as MPICH computes them): lb and ub are the lowest and highest of the
 * blocks' own, a resized type's included, with no sticky markers (MPI-1's
 * MPI_LB and MPI_UB, which Open MPI still follows). True bounds count the
 * blocks that hold data only.
 */
struct bounds {
    uint64_t size;
    int64_t lb, ub;
    int64_t true_lb, true_ub;
    int any, any_data; /* a block was counted; one with data */
    uint64_t align;
};

static int bounds_span(uint64_t count, int64_t stride, int64_t lo, int64_t hi, int64_t *lo_p,
                       int64_t *hi_p)
{
    int64_t last = 0;
    if (count == 0 || count > (uint64_t)INT64_MAX ||
        __builtin_mul_overflow((int64_t)(count - 1), stride, &last))
        return 0;
    return !__builtin_add_overflow(lo, last < 0 ? last : 0, lo_p) &&
           !__builtin_add_overflow(hi, last > 0 ? last : 0, hi_p);
}

/*
 * Adds a block of `blocklen` copies of `c`, back to back (each an extent
 * of c after the last), at byte displacement disp, repeated `count` times
 * `stride` bytes apart. 0 on overflow.
 */
static int bounds_add(struct bounds *b, const struct type *c, uint64_t blocklen, int64_t disp,
                      uint64_t count, int64_t stride)
{
    if (blocklen == 0 || count == 0)
        return 1;
    int64_t ext = c->ub - c->lb;
    int64_t lb, ub, tlb, tub;
    uint64_t size;
    if (!bounds_span(blocklen, ext, c->lb, c->ub, &lb, &ub) ||
        !bounds_span(count, stride, lb, ub, &lb, &ub) ||
        __builtin_add_overflow(lb, disp, &lb) || __builtin_add_overflow(ub, disp, &ub) ||
        __builtin_mul_overflow(blocklen, c->size, &size) ||
        __builtin_mul_overflow(size, count, &size) ||
        __builtin_add_overflow(b->size, size, &b->size) || b->size > (uint64_t)INT64_MAX ||
        __builtin_sub_overflow(ub, lb, &ext))
        return 0;
    b->lb = b->any && b->lb < lb ? b->lb : lb;
    b->ub = b->any && b->ub > ub ? b->ub : ub;
    b->any = 1;
    b->align = c->align > b->align ? c->align : b->align;
    if (__builtin_sub_overflow(b->ub, b->lb, &ext))
        return 0;
    if (c->size == 0)
        return 1;
    if (!bounds_span(blocklen, c->ub - c->lb, c->true_lb, c->true_ub, &tlb, &tub) ||
        !bounds_span(count, stride, tlb, tub, &tlb, &tub) ||
        __builtin_add_overflow(tlb, disp, &tlb) || __builtin_add_overflow(tub, disp, &tub))
        return 0;
    b->true_lb = b->any_data && b->true_lb < tlb ? b->true_lb : tlb;
    b->true_ub = b->any_data && b->true_ub > tub ? b->true_ub : tub;
    b->any_data = 1;
    return !__builtin_sub_overflow(b->true_ub, b->true_lb, &ext);
}

static void bounds_set(struct type *t, const struct bounds *b)
{
    t->size = b->size;
    t->lb = b->any ? b->lb : 0;
    t->ub = b->any ? b->ub : 0;
    t->true_lb = b->any_data ? b->true_lb : 0;
    t->true_ub = b->any_data ? b->true_ub : 0;
    t->align = b->align ? b->align : 1;
}

static int check_nest(const char *op, struct type *t, const struct type *child)
{
    uint32_t nest = child->nest + 1;
    if (nest > t->nest)
        t->nest = nest;
    if (nest <= TYPE_MAX_NEST)
        return GK_OK;
    gk__error("%s: the type would nest %u constructors deep, more than %d", op, nest,
              TYPE_MAX_NEST);
    return GK_ERR_INVALID_ARG;
}

/* count blocks of blocklen `child`s, stride bytes apart. */
static int make_hvector(const char *op, uint64_t count, uint64_t blocklen, int64_t stride,
                        struct type *child, struct type **obj_p)
{
    struct type *t = type_new(TYPE_HVECTOR, 1);
    if (t == NULL)
        return report_nomem(op);
    int status = check_nest(op, t, child);
    struct bounds b = {0};
    if (status == GK_OK && !bounds_add(&b, child, blocklen, 0, count, stride)) {
        char what[160];
        snprintf(what, sizeof(what), "count %llu, blocklen %llu, stride %lld bytes",
                 (unsigned long long)count, (unsigned long long)blocklen, (long long)stride);
        status = report_overflow(op, what);
    }
    if (status != GK_OK) {
        free(t->children);
        free(t);
        return status;
    }
    bounds_set(t, &b);
    t->count = count;
    t->blocklen = blocklen;
    t->stride = stride;
    t->base = count == 0 ? TYPE_BASE_NONE : base_of_blocks(child, blocklen);
    t->children[0] = child;
    type_ref(child);
    *obj_p = t;
    return GK_OK;
}

/*
 * n blocks at byte displacements: of `child` (HINDEXED, children NULL) or
 * of children[i] (STRUCT). blocklens NULL: every block is `blocklen`.
 */
static int make_blocks(const char *op, uint64_t n, const size_t *blocklens, uint64_t blocklen,
                       const int64_t *displs, struct type *child, struct type *const *children,
                       struct type **obj_p)
{
    enum type_kind kind = children != NULL ? TYPE_STRUCT : TYPE_HINDEXED;
    struct type *t = type_new(kind, children != NULL ? n : 1);
    if (t == NULL)
        return report_nomem(op);
    t->blocklens = malloc((n ? n : 1) * sizeof(*t->blocklens));
    t->displs = malloc((n ? n : 1) * sizeof(*t->displs));
    int status = GK_OK;
    if (t->blocklens == NULL || t->displs == NULL) {
        status = report_nomem(op);
        goto err;
    }
    struct bounds b = {0};
    for (uint64_t i = 0; i < n && status == GK_OK; i++) {
        struct type *c = children != NULL ? children[i] : child;
        t->blocklens[i] = blocklens != NULL ? blocklens[i] : blocklen;
        t->displs[i] = displs[i];
        status = check_nest(op, t, c);
        if (status == GK_OK && !bounds_add(&b, c, t->blocklens[i], displs[i], 1, 0)) {
            char what[160];
            snprintf(what, sizeof(what), "block %llu (blocklen %llu at %lld bytes)",
                     (unsigned long long)i, (unsigned long long)t->blocklens[i],
                     (long long)displs[i]);
            status = report_overflow(op, what);
        }
    }
    if (status != GK_OK)
        goto err;
    /* As MPI implementations do: a struct's extent is padded to a multiple
     * of its strictest member's alignment, as a C compiler pads a struct. */
    if (kind == TYPE_STRUCT && b.any && b.align > 1) {
        uint64_t ext = (uint64_t)(b.ub - b.lb);
        uint64_t pad = (b.align - ext % b.align) % b.align;
        if (__builtin_add_overflow(b.ub, (int64_t)pad, &b.ub)) {
            status = report_overflow(op, "the struct's padded extent");
            goto err;
        }
    }
    bounds_set(t, &b);
    t->count = n;
    t->base = TYPE_BASE_NONE;
    for (uint64_t i = 0; i < n; i++)
        t->base = base_join(t->base, base_of_blocks(children != NULL ? children[i] : child,
                                                    t->blocklens[i]));
    for (uint64_t i = 0; i < (children != NULL ? n : 1); i++) {
        t->children[i] = children != NULL ? children[i] : child;
        type_ref(t->children[i]);
    }
    *obj_p = t;
    return GK_OK;
err:
    free(t->blocklens);
    free(t->displs);
    free(t->children);
    free(t);
    return status;
}

static int make_resized(const char *op, struct type *child, int64_t lb, int64_t extent,
                        struct type **obj_p)
{
    int64_t ub;
    if (__builtin_add_overflow(lb, extent, &ub)) {
        char what[96];
        snprintf(what, sizeof(what), "lb %lld + extent %lld", (long long)lb, (long long)extent);
        return report_overflow(op, what);
    }
    struct type *t = type_new(TYPE_RESIZED, 1);
    if (t == NULL)
        return report_nomem(op);
    int status = check_nest(op, t, child);
    if (status != GK_OK) {
        free(t->children);
        free(t);
        return status;
    }
    t->size = child->size;
    t->lb = lb;
    t->ub = ub;
    t->true_lb = child->true_lb;
    t->true_ub = child->true_ub;
    t->align = child->align;
    t->base = child->base;
    t->children[0] = child;
    type_ref(child);
    *obj_p = t;
    return GK_OK;
}

/* Hands a new object out as a handle (or drops it on failure). */
static int publish(const char *op, int status, struct type *obj, gk_type_t *type_p)
{
    if (status != GK_OK)
        return status;
    gk_type_t handle;
    status = table_add(obj, &handle);
    if (status != GK_OK) {
        if (status == GK_ERR_NOMEM)
            report_nomem(op);
        type_unref(obj);
        return status;
    }
    *type_p = handle;
    return GK_OK;
}

static int check_out(const char *op, gk_type_t *type_p)
{
    if (type_p == NULL) {
        gk__error("%s: type_p is NULL", op);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

static int check_array(const char *op, const char *arg, const void *array, uint64_t count)
{
    if (array == NULL && count != 0) {
        gk__error("%s: %s is NULL with count %llu", op, arg, (unsigned long long)count);
        return GK_ERR_INVALID_ARG;
    }
    return GK_OK;
}

static int64_t extent_of(const struct type *t)
{
    return t->ub - t->lb;
}

/* ------------------------------------------------------------------------ */
/* Constructors                                                             */
/* ------------------------------------------------------------------------ */

static int vector_common(const char *op, size_t count, size_t blocklen, ptrdiff_t stride,
                         int in_bytes, gk_type_t old, gk_type_t *type_p)
{
    struct type *child = NULL;
    int status = check_out(op, type_p);
    if (status == GK_OK)
        status = check_count(op, "count", count);
    if (status == GK_OK)
        status = check_count(op, "blocklen", blocklen);
    if (status == GK_OK)
        status = type_lookup(op, "old", old, &child);
    if (status != GK_OK)
        return status;
    int64_t stride_bytes = stride;
    if (!in_bytes && __builtin_mul_overflow((int64_t)stride, extent_of(child), &stride_bytes)) {
        char what[128];
        snprintf(what, sizeof(what), "stride %lld times the extent of old (%lld bytes)",
                 (long long)stride, (long long)extent_of(child));
        return report_overflow(op, what);
    }
    struct type *obj = NULL;
    status = make_hvector(op, count, blocklen, stride_bytes, child, &obj);
    return publish(op, status, obj, type_p);
}

int gk_type_contiguous(size_t count, gk_type_t old, gk_type_t *type_p)
{
    struct type *child = NULL;
    const char *op = "gk_type_contiguous";
    int status = check_out(op, type_p);
    if (status == GK_OK)
        status = check_count(op, "count", count);
    if (status == GK_OK)
        status = type_lookup(op, "old", old, &child);
    if (status != GK_OK)
        return status;
    struct type *obj = NULL;
    status = make_hvector(op, 1, count, 0, child, &obj);
    return publish(op, status, obj, type_p);
}

int gk_type_vector(size_t count, size_t blocklen, ptrdiff_t stride, gk_type_t old,
                   gk_type_t *type_p)
{
    return vector_common("gk_type_vector", count, blocklen, stride, 0, old, type_p);
}

int gk_type_hvector(size_t count, size_t blocklen, ptrdiff_t stride_bytes, gk_type_t old,
                    gk_type_t *type_p)
{
    return vector_common("gk_type_hvector", count, blocklen, stride_bytes, 1, old, type_p);
}

/* One block length for all (blocklens NULL, the _block forms), or one each. */
static int indexed_common(const char *op, size_t count, const size_t *blocklens,
                          size_t blocklen, const ptrdiff_t *displs, int in_bytes,
                          gk_type_t old, gk_type_t *type_p)
{
    struct type *child = NULL;
    int per_block = strstr(op, "_block") == NULL;
    int status = check_out(op, type_p);
    if (status == GK_OK)
        status = check_count(op, "count", count);
    if (status == GK_OK && !per_block)
        status = check_count(op, "blocklen", blocklen);
    if (status == GK_OK && per_block)
        status = check_array(op, "blocklens", blocklens, count);
    if (status == GK_OK)
        status = check_array(op, in_bytes ? "displs_bytes" : "displs", displs, count);
    if (status == GK_OK)
        status = type_lookup(op, "old", old, &child);
    if (status != GK_OK)
        return status;
    int64_t *bytes = malloc((count ? count : 1) * sizeof(*bytes));
    if (bytes == NULL)
        return report_nomem(op);
    for (size_t i = 0; i < count && status == GK_OK; i++) {
        char arg[48];
        if (per_block) {
            snprintf(arg, sizeof(arg), "blocklens[%zu]", i);
            status = check_count(op, arg, blocklens[i]);
        }
        bytes[i] = displs[i];
        if (status == GK_OK && !in_bytes &&
            __builtin_mul_overflow((int64_t)displs[i], extent_of(child), &bytes[i])) {
            char what[128];
            snprintf(what, sizeof(what), "displs[%zu] %lld times the extent of old (%lld bytes)",
                     i, (long long)displs[i], (long long)extent_of(child));
            status = report_overflow(op, what);
        }
    }
    struct type *obj = NULL;
    if (status == GK_OK)
        status = make_blocks(op, count, per_block ? blocklens : NULL, blocklen, bytes, child,
                             NULL, &obj);
    free(bytes);
    return publish(op, status, obj, type_p);
}

int gk_type_indexed(size_t count, const size_t *blocklens, const ptrdiff_t *displs,
                    gk_type_t old, gk_type_t *type_p)
{
    return indexed_common("gk_type_indexed", count, blocklens, 0, displs, 0, old, type_p);
}

int gk_type_hindexed(size_t count, const size_t *blocklens, const ptrdiff_t *displs_bytes,
                     gk_type_t old, gk_type_t *type_p)
{
    return indexed_common("gk_type_hindexed", count, blocklens, 0, displs_bytes, 1, old,
                          type_p);
}

int gk_type_indexed_block(size_t count, size_t blocklen, const ptrdiff_t *displs,
                          gk_type_t old, gk_type_t *type_p)
{
    return indexed_common("gk_type_indexed_block", count, NULL, blocklen, displs, 0, old,
                          type_p);
}

int gk_type_hindexed_block(size_t count, size_t blocklen, const ptrdiff_t *displs_bytes,
                           gk_type_t old, gk_type_t *type_p)
{
    return indexed_common("gk_type_hindexed_block", count, NULL, blocklen, displs_bytes, 1,
                          old, type_p);
}

int gk_type_struct(size_t count, const size_t *blocklens, const ptrdiff_t *displs_bytes,
                   const gk_type_t *types, gk_type_t *type_p)
{
    const char *op = "gk_type_struct";
    int status = check_out(op, type_p);
    if (status == GK_OK)
        status = check_count(op, "count", count);
    if (status == GK_OK)
        status = check_array(op, "blocklens", blocklens, count);
    if (status == GK_OK)
        status = check_array(op, "displs_bytes", displs_bytes, count);
    if (status == GK_OK)
        status = check_array(op, "types", types, count);
    if (status != GK_OK)
        return status;
    struct type **children = malloc((count ? count : 1) * sizeof(*children));
    int64_t *bytes = malloc((count ? count : 1) * sizeof(*bytes));
    if (children == NULL || bytes == NULL) {
        free(children);
        free(bytes);
        return report_nomem(op);
    }
    for (size_t i = 0; i < count && status == GK_OK; i++) {
        char arg[48];
        snprintf(arg, sizeof(arg), "types[%zu]", i);
        status = type_lookup(op, arg, types[i], &children[i]);
        snprintf(arg, sizeof(arg), "blocklens[%zu]", i);
        if (status == GK_OK)
            status = check_count(op, arg, blocklens[i]);
        bytes[i] = displs_bytes[i];
    }
    struct type *obj = NULL;
    if (status == GK_OK)
        status = make_blocks(op, count, blocklens, 0, bytes, NULL, children, &obj);
    free(children);
    free(bytes);
    return publish(op, status, obj, type_p);
}

int gk_type_subarray(int ndims, const size_t *sizes, const size_t *subsizes,
                     const size_t *starts, gk_order_t order, gk_type_t old, gk_type_t *type_p)
{
    const char *op = "gk_type_subarray";
    struct type *child = NULL;
    int status = check_out(op, type_p);
    if (status == GK_OK && (ndims < 1 || ndims > GK_TYPE_MAX_DEPTH)) {
        gk__error("%s: ndims %d is not in [1, %d]", op, ndims, GK_TYPE_MAX_DEPTH);
        status = GK_ERR_INVALID_ARG;
    }
    if (status == GK_OK && order != GK_ORDER_C && order != GK_ORDER_FORTRAN) {
        gk__error("%s: order %d is neither GK_ORDER_C nor GK_ORDER_FORTRAN", op, (int)order);
        status = GK_ERR_INVALID_ARG;
    }
    if (status == GK_OK)
        status = check_array(op, "sizes", sizes, (uint64_t)ndims);
    if (status == GK_OK)
        status = check_array(op, "subsizes", subsizes, (uint64_t)ndims);
    if (status == GK_OK)
        status = check_array(op, "starts", starts, (uint64_t)ndims);
    for (int d = 0; status == GK_OK && d < ndims; d++) {
        if (sizes[d] == 0 || sizes[d] > (size_t)INT64_MAX || subsizes[d] == 0 ||
            subsizes[d] > sizes[d] || starts[d] > sizes[d] - subsizes[d]) {
            gk__error("%s: dimension %d: sizes[%d] %zu, subsizes[%d] %zu, starts[%d] %zu: "
                      "need 1 <= subsizes <= sizes and starts + subsizes <= sizes",
                      op, d, d, sizes[d], d, subsizes[d], d, starts[d]);
            status = GK_ERR_INVALID_ARG;
        }
    }
    if (status == GK_OK)
        status = type_lookup(op, "old", old, &child);
    if (status != GK_OK)
        return status;
    /* MPI's definition: a vector per dimension, fastest first, each over
     * the last, placed at the starts, and resized to the whole array. */
    struct type *t = child;
    type_ref(t);
    int64_t stride = extent_of(child), disp = 0;
    for (int k = 0; k < ndims && status == GK_OK; k++) {
        int d = order == GK_ORDER_C ? ndims - 1 - k : k;
        struct type *next = NULL;
        int64_t start = 0;
        status = make_hvector(op, subsizes[d], 1, stride, t, &next);
        if (status == GK_OK &&
            (__builtin_mul_overflow((int64_t)starts[d], stride, &start) ||
             __builtin_add_overflow(disp, start, &disp) ||
             __builtin_mul_overflow(stride, (int64_t)sizes[d], &stride)))
            status = report_overflow(op, "the whole array's extent");
        type_unref(t);
        t = next;
    }
    struct type *placed = NULL, *obj = NULL;
    size_t one = 1;
    if (status == GK_OK)
        status = make_blocks(op, 1, &one, 0, &disp, t, NULL, &placed);
    if (status == GK_OK)
        status = make_resized(op, placed, 0, stride, &obj);
    type_unref(placed);
    type_unref(t);
    return publish(op, status, obj, type_p);
}

int gk_type_resized(gk_type_t old, ptrdiff_t lb, ptrdiff_t extent, gk_type_t *type_p)
{
    const char *op = "gk_type_resized";
    struct type *child = NULL;
    int status = check_out(op, type_p);
    if (status == GK_OK)
        status = type_lookup(op, "old", old, &child);
    if (status != GK_OK)
        return status;
    struct type *obj = NULL;
    status = make_resized(op, child, lb, extent, &obj);
    return publish(op, status, obj, type_p);
}

static int type_commit_obj(const char *op, struct type *t);

int gk_type_dup(gk_type_t old, gk_type_t *type_p)
{
    const char *op = "gk_type_dup";
    struct type *child = NULL;
    int status = check_out(op, type_p);
    if (status == GK_OK)
        status = type_lookup(op, "old", old, &child);
    if (status != GK_OK)
        return status;
    struct type *obj = NULL;
    status = make_resized(op, child, child->lb, extent_of(child), &obj);
    if (status == GK_OK && atomic_load_explicit(&child->flat, memory_order_acquire) != NULL)
        status = type_commit_obj(op, obj);
    if (status != GK_OK && obj != NULL) {
        type_unref(obj);
        return status;
    }
    return publish(op, status, obj, type_p);
}

/* ------------------------------------------------------------------------ */
/* Commit                                                                   */
/* ------------------------------------------------------------------------ */

/* Objects already flattened in this commit, and their parts. */
struct memo {
    const struct type **objs;
    struct gk__dt_part *parts;
    size_t n, cap;
};

static int flatten(struct gk__dt_builder *b, struct memo *m, const struct type *t,
                   struct gk__dt_part *part_p);

static int flatten_block(struct gk__dt_builder *b, struct memo *m, const struct type *c,
                         uint64_t blocklen, int64_t disp, struct gk__dt_part *part_p)
{
    struct gk__dt_part part;
    int status = flatten(b, m, c, &part);
    if (status == GK_OK)
        status = gk__dt_repeat(b, blocklen, extent_of(c), part, part_p);
    if (status == GK_OK && part_p->node != GK__DT_NONE &&
        __builtin_add_overflow(part_p->disp, disp, &part_p->disp))
        status = GK_ERR_INVALID_ARG;
    return status;
}

static int flatten(struct gk__dt_builder *b, struct memo *m, const struct type *t,
                   struct gk__dt_part *part_p)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->objs[i] == t) {
            *part_p = m->parts[i];
            return GK_OK;
        }
    }
    int status = GK_OK;
    struct gk__dt_part part = {GK__DT_NONE, 0};
    switch (t->kind) {
    case TYPE_BASE:
        status = gk__dt_leaf(b, t->size, &part);
        break;
    case TYPE_HVECTOR:
        status = flatten_block(b, m, t->children[0], t->blocklen, 0, &part);
        if (status == GK_OK)
            status = gk__dt_repeat(b, t->count, t->stride, part, &part);
        break;
    case TYPE_HINDEXED:
    case TYPE_STRUCT: {
        struct gk__dt_part *parts = malloc((t->count ? t->count : 1) * sizeof(*parts));
        if (parts == NULL)
            return GK_ERR_NOMEM;
        for (uint64_t i = 0; i < t->count && status == GK_OK; i++) {
            const struct type *c = t->kind == TYPE_STRUCT ? t->children[i] : t->children[0];
            status = flatten_block(b, m, c, t->blocklens[i], t->displs[i], &parts[i]);
        }
        if (status == GK_OK)
            status = gk__dt_list(b, parts, t->count, &part);
        free(parts);
        break;
    }
    case TYPE_RESIZED:
        status = flatten(b, m, t->children[0], &part);
        break;
    }
    if (status != GK_OK)
        return status;
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        const struct type **objs = realloc(m->objs, cap * sizeof(*objs));
        if (objs == NULL)
            return GK_ERR_NOMEM;
        m->objs = objs;
        struct gk__dt_part *parts = realloc(m->parts, cap * sizeof(*parts));
        if (parts == NULL)
            return GK_ERR_NOMEM;
        m->parts = parts;
        m->cap = cap;
    }
    m->objs[m->n] = t;
    m->parts[m->n++] = part;
    *part_p = part;
    return GK_OK;
}

static int type_commit_obj(const char *op, struct type *t)
{
    if (atomic_load_explicit(&t->flat, memory_order_acquire) != NULL)
        return GK_OK;
    struct gk__dt_builder b;
    struct memo m = {0};
    struct gk__dt_part root;
    struct gk__dt_flat *flat = NULL;
    uint32_t depth = 0;
    gk__dt_builder_init(&b);
    int status = flatten(&b, &m, t, &root);
    if (status == GK_OK)
        status = gk__dt_finish(&b, root, t->lb, extent_of(t), &flat, &depth);
    gk__dt_builder_fini(&b);
    free(m.objs);
    free(m.parts);
    if (status == GK_ERR_NOMEM)
        return report_nomem(op);
    if (status == GK_ERR_UNSUPPORTED) {
        gk__error("%s: the type nests %u levels deep once flattened, more than "
                  "GK_TYPE_MAX_DEPTH (%d)",
                  op, depth, GK_TYPE_MAX_DEPTH);
        return status;
    }
    if (status != GK_OK)
        return report_overflow(op, "a position in the flattened type");
    struct gk__dt_flat *none = NULL;
    if (!atomic_compare_exchange_strong_explicit(&t->flat, &none, flat, memory_order_acq_rel,
                                                 memory_order_acquire))
        free(flat); /* another thread committed it first */
    return GK_OK;
}

int gk_type_commit(gk_type_t type)
{
    struct type *t = NULL;
    int status = type_lookup("gk_type_commit", "type", type, &t);
    if (status != GK_OK)
        return status;
    return type_commit_obj("gk_type_commit", t);
}

int gk_type_free(gk_type_t *type)
{
    const char *op = "gk_type_free";
    if (type == NULL) {
        gk__error("%s: type is NULL", op);
        return GK_ERR_INVALID_ARG;
    }
    if ((type->bits & GK__TYPE_BASE_TAG) != 0) {
        struct type *t = NULL;
        int status = type_lookup(op, "*type", *type, &t);
        if (status == GK_OK) {
            gk__error("%s: *type is the base type %s, which is never freed", op,
                      GK__TYPE_STR(*type));
            status = GK_ERR_INVALID_ARG;
        }
        return status;
    }
    pthread_mutex_lock(&table_lock);
    struct type *t = NULL;
    int status = type_lookup(op, "*type", *type, &t);
    if (status == GK_OK) {
        uint32_t index = (uint32_t)type->bits - 1;
        struct slot *s = slot_at(index);
        atomic_store_explicit(&s->obj, NULL, memory_order_relaxed);
        atomic_store_explicit(&s->gen,
                              (atomic_load_explicit(&s->gen, memory_order_relaxed) + 1) &
                                  GEN_MASK,
                              memory_order_release);
        s->next_free = table_free_head;
        table_free_head = index + 1;
    }
    pthread_mutex_unlock(&table_lock);
    if (status == GK_OK) {
        type_unref(t);
        *type = GK_TYPE_NULL;
    }
    return status;
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                  */
/* ------------------------------------------------------------------------ */

static int check_query(const char *op, const char *arg, const void *out)
{
    if (out != NULL)
        return GK_OK;
    gk__error("%s: %s is NULL", op, arg);
    return GK_ERR_INVALID_ARG;
}

int gk_type_size(gk_type_t type, size_t *size_p)
{
    struct type *t = NULL;
    int status = check_query("gk_type_size", "size_p", size_p);
    if (status == GK_OK)
        status = type_lookup("gk_type_size", "type", type, &t);
    if (status == GK_OK)
        *size_p = (size_t)t->size;
    return status;
}

int gk_type_extent(gk_type_t type, ptrdiff_t *lb_p, ptrdiff_t *extent_p)
{
    struct type *t = NULL;
    int status = check_query("gk_type_extent", "lb_p", lb_p);
    if (status == GK_OK)
        status = check_query("gk_type_extent", "extent_p", extent_p);
    if (status == GK_OK)
        status = type_lookup("gk_type_extent", "type", type, &t);
    if (status == GK_OK) {
        *lb_p = (ptrdiff_t)t->lb;
        *extent_p = (ptrdiff_t)extent_of(t);
    }
    return status;
}

int gk_type_true_extent(gk_type_t type, ptrdiff_t *lb_p, ptrdiff_t *extent_p)
{
    struct type *t = NULL;
    int status = check_query("gk_type_true_extent", "lb_p", lb_p);
    if (status == GK_OK)
        status = check_query("gk_type_true_extent", "extent_p", extent_p);
    if (status == GK_OK)
        status = type_lookup("gk_type_true_extent", "type", type, &t);
    if (status == GK_OK) {
        *lb_p = (ptrdiff_t)t->true_lb;
        *extent_p = (ptrdiff_t)(t->true_ub - t->true_lb);
    }
    return status;
}

int gk_type_committed(gk_type_t type, int *committed_p)
{
    struct type *t = NULL;
    int status = check_query("gk_type_committed", "committed_p", committed_p);
    if (status == GK_OK)
        status = type_lookup("gk_type_committed", "type", type, &t);
    if (status == GK_OK)
        *committed_p = atomic_load_explicit(&t->flat, memory_order_acquire) != NULL;
    return status;
}

int gk__type_flat(const char *op, const char *arg, gk_type_t handle,
                  const struct gk__dt_flat **flat_p)
{
    struct type *t = NULL;
    int status = type_lookup(op, arg, handle, &t);
    if (status != GK_OK)
        return status;
    const struct gk__dt_flat *flat = atomic_load_explicit(&t->flat, memory_order_acquire);
    if (flat == NULL) {
        gk__error("%s: %s %s is not committed (gk_type_commit)", op, arg, GK__TYPE_STR(handle));
        return GK_ERR_INVALID_ARG;
    }
    *flat_p = flat;
    return GK_OK;
}

int gk__type_base(const char *op, const char *arg, gk_type_t handle, int *base_p)
{
    struct type *t = NULL;
    int status = type_lookup(op, arg, handle, &t);
    if (status == GK_OK)
        *base_p = t->base >= 0 ? t->base : -1;
    return status;
}

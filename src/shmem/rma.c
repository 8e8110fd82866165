/*
 * rma.c: remote memory access (spec "Remote Memory Access Routines") and
 * the signaling puts ("Signaling Operations"), for every standard RMA
 * type, the sized forms and the mem forms, generated from shmem.h's type
 * tables. A put is gk_put of nelems * sizeof(TYPE) bytes, and so on; the
 * single-element p and g use gasket's value puts and gets, which are one
 * access at the target; the strided forms move one element at a time.
 * Each routine and its shmem_ctx_ form are one body (SHMEM_CTX_DEFINE):
 * the plain routine is the body on the default context.
 */
#include <string.h>

#include "shmem/shmem_int.h"

/* One element of `size` bytes to or from PE pe: a single access where the
 * size is a word's. */
static inline void rma_put_one(gk_ctx_t *c, const char *routine, int pe, void *dst,
                               const void *src, size_t size)
{
    int status;
    switch (size) {
    case 1: {
        uint8_t v;
        memcpy(&v, src, 1);
        status = SHMEM_GK(c, put_u8, pe, dst, v);
        break;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, src, 2);
        status = SHMEM_GK(c, put_u16, pe, dst, v);
        break;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, src, 4);
        status = SHMEM_GK(c, put_u32, pe, dst, v);
        break;
    }
    case 8: {
        uint64_t v;
        memcpy(&v, src, 8);
        status = SHMEM_GK(c, put_u64, pe, dst, v);
        break;
    }
    default:
        status = SHMEM_GK(c, put, pe, dst, src, size);
        break;
    }
    SHMEM_CHECK(routine, status);
}

static inline void rma_get_one(gk_ctx_t *c, const char *routine, int pe, void *dst,
                               const void *src, size_t size)
{
    int status;
    switch (size) {
    case 1: {
        uint8_t v = 0;
        status = SHMEM_GK(c, get_u8, pe, src, &v);
        memcpy(dst, &v, 1);
        break;
    }
    case 2: {
        uint16_t v = 0;
        status = SHMEM_GK(c, get_u16, pe, src, &v);
        memcpy(dst, &v, 2);
        break;
    }
    case 4: {
        uint32_t v = 0;
        status = SHMEM_GK(c, get_u32, pe, src, &v);
        memcpy(dst, &v, 4);
        break;
    }
    case 8: {
        uint64_t v = 0;
        status = SHMEM_GK(c, get_u64, pe, src, &v);
        memcpy(dst, &v, 8);
        break;
    }
    default:
        status = SHMEM_GK(c, get, pe, dst, src, size);
        break;
    }
    SHMEM_CHECK(routine, status);
}

/* Strides are in elements and may be negative (the spec only asks for
 * positive ones; nothing here needs them to be). To a PE whose memory is
 * not mapped here, the elements go as one strided transfer, which packs
 * them into chunks (gasket_dtype.h) where each would be a message of its
 * own; to a mapped one, element by element, each one store or load. */
static void rma_iput(gk_ctx_t *c, const char *routine, char *dest, const char *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size, int pe)
{
    if (nelems > 1 && gk_ptr(dest, pe) == NULL) {
        SHMEM_CHECK(routine, SHMEM_GK(c, iput, pe, dest, source, dst, sst, nelems, size));
        return;
    }
    for (size_t i = 0; i < nelems; i++)
        rma_put_one(c, routine, pe, dest + (ptrdiff_t)i * dst * (ptrdiff_t)size,
                    source + (ptrdiff_t)i * sst * (ptrdiff_t)size, size);
}

static void rma_iget(gk_ctx_t *c, const char *routine, char *dest, const char *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size, int pe)
{
    if (nelems > 1 && gk_ptr(source, pe) == NULL) {
        SHMEM_CHECK(routine, SHMEM_GK(c, iget, pe, dest, source, dst, sst, nelems, size));
        return;
    }
    for (size_t i = 0; i < nelems; i++)
        rma_get_one(c, routine, pe, dest + (ptrdiff_t)i * dst * (ptrdiff_t)size,
                    source + (ptrdiff_t)i * sst * (ptrdiff_t)size, size);
}

/* The signal operation's value is checked by the native call. */
#define RMA_SIGNAL_OP(sig_op) ((gk_signal_op_t)(sig_op))

/* The contiguous forms, for element size SIZE: PUTNAME and GETNAME are the
 * routines' names without "shmem_" (the _nbi and _signal forms add to
 * them). */
#define RMA_CONTIGUOUS(PUTNAME, GETNAME, T, SIZE)                              \
    SHMEM_CTX_DEFINE_VOID(PUTNAME, (T * dest, const T *source, size_t nelems, int pe), \
                          (dest, source, nelems, pe))                          \
    {                                                                          \
        SHMEM_CHECK(routine, SHMEM_GK(gk_ctx, put, pe, dest, source,           \
                                      gk__shmem_bytes(routine, nelems, SIZE))); \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(GETNAME, (T * dest, const T *source, size_t nelems, int pe), \
                          (dest, source, nelems, pe))                          \
    {                                                                          \
        SHMEM_CHECK(routine, SHMEM_GK(gk_ctx, get, pe, dest, source,           \
                                      gk__shmem_bytes(routine, nelems, SIZE))); \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(PUTNAME##_nbi,                                       \
                          (T * dest, const T *source, size_t nelems, int pe),  \
                          (dest, source, nelems, pe))                          \
    {                                                                          \
        SHMEM_CHECK(routine, SHMEM_GK(gk_ctx, put_nbi, pe, dest, source,       \
                                      gk__shmem_bytes(routine, nelems, SIZE))); \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(GETNAME##_nbi,                                       \
                          (T * dest, const T *source, size_t nelems, int pe),  \
                          (dest, source, nelems, pe))                          \
    {                                                                          \
        SHMEM_CHECK(routine, SHMEM_GK(gk_ctx, get_nbi, pe, dest, source,       \
                                      gk__shmem_bytes(routine, nelems, SIZE))); \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(PUTNAME##_signal,                                    \
                          (T * dest, const T *source, size_t nelems,           \
                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), \
                          (dest, source, nelems, sig_addr, signal, sig_op, pe)) \
    {                                                                          \
        SHMEM_CHECK(routine,                                                   \
                    SHMEM_GK(gk_ctx, put_signal, pe, dest, source,             \
                             gk__shmem_bytes(routine, nelems, SIZE), sig_addr, \
                             signal, RMA_SIGNAL_OP(sig_op)));                  \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(PUTNAME##_signal_nbi,                                \
                          (T * dest, const T *source, size_t nelems,           \
                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), \
                          (dest, source, nelems, sig_addr, signal, sig_op, pe)) \
    {                                                                          \
        SHMEM_CHECK(routine,                                                   \
                    SHMEM_GK(gk_ctx, put_signal_nbi, pe, dest, source,         \
                             gk__shmem_bytes(routine, nelems, SIZE), sig_addr, \
                             signal, RMA_SIGNAL_OP(sig_op)));                  \
    }

#define RMA_STRIDED(PUTNAME, GETNAME, T, SIZE)                                 \
    SHMEM_CTX_DEFINE_VOID(PUTNAME,                                             \
                          (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                           size_t nelems, int pe),                             \
                          (dest, source, dst, sst, nelems, pe))                \
    {                                                                          \
        rma_iput(gk_ctx, routine, (char *)dest, (const char *)source, dst, sst, \
                 nelems, SIZE, pe);                                            \
    }                                                                          \
    SHMEM_CTX_DEFINE_VOID(GETNAME,                                             \
                          (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                           size_t nelems, int pe),                             \
                          (dest, source, dst, sst, nelems, pe))                \
    {                                                                          \
        rma_iget(gk_ctx, routine, (char *)dest, (const char *)source, dst, sst, \
                 nelems, SIZE, pe);                                            \
    }

#define RMA_TYPED(T, N)                                                        \
    RMA_CONTIGUOUS(N##_put, N##_get, T, sizeof(T))                             \
    RMA_STRIDED(N##_iput, N##_iget, T, sizeof(T))                              \
    SHMEM_CTX_DEFINE_VOID(N##_p, (T * dest, T value, int pe), (dest, value, pe)) \
    {                                                                          \
        rma_put_one(gk_ctx, routine, pe, dest, &value, sizeof(T));             \
    }                                                                          \
    SHMEM_CTX_DEFINE(T, N##_g, (const T *source, int pe), (source, pe))        \
    {                                                                          \
        T value;                                                               \
        rma_get_one(gk_ctx, routine, pe, &value, source, sizeof(T));           \
        return value;                                                          \
    }
SHMEM_RMA_TYPES(RMA_TYPED)

#define RMA_SIZED(BITS, BYTES)                                                 \
    RMA_CONTIGUOUS(put##BITS, get##BITS, void, BYTES)                          \
    RMA_STRIDED(iput##BITS, iget##BITS, void, BYTES)
SHMEM_RMA_SIZES(RMA_SIZED)
RMA_CONTIGUOUS(putmem, getmem, void, 1)

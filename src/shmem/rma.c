/*
 * rma.c: remote memory access (spec "Remote Memory Access Routines") and
 * the signaling puts ("Signaling Operations"), for every standard RMA
 * type, the sized forms and the mem forms, generated from shmem.h's type
 * tables. A put is gk_put of nelems * sizeof(TYPE) bytes, and so on; the
 * single-element p and g use gasket's value puts and gets, which are one
 * access at the target; the strided forms move one element at a time.
 */
#include <string.h>

#include "shmem/shmem_int.h"

/* One element of `size` bytes to or from PE pe: a single access where the
 * size is a word's. */
static void rma_put_one(const char *routine, int pe, void *dst, const void *src,
                        size_t size)
{
    int status;
    switch (size) {
    case 1: {
        uint8_t v;
        memcpy(&v, src, 1);
        status = gk_put_u8(pe, dst, v);
        break;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, src, 2);
        status = gk_put_u16(pe, dst, v);
        break;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, src, 4);
        status = gk_put_u32(pe, dst, v);
        break;
    }
    case 8: {
        uint64_t v;
        memcpy(&v, src, 8);
        status = gk_put_u64(pe, dst, v);
        break;
    }
    default:
        status = gk_put(pe, dst, src, size);
        break;
    }
    SHMEM_CHECK(routine, status);
}

static void rma_get_one(const char *routine, int pe, void *dst, const void *src,
                        size_t size)
{
    int status;
    switch (size) {
    case 1: {
        uint8_t v = 0;
        status = gk_get_u8(pe, src, &v);
        memcpy(dst, &v, 1);
        break;
    }
    case 2: {
        uint16_t v = 0;
        status = gk_get_u16(pe, src, &v);
        memcpy(dst, &v, 2);
        break;
    }
    case 4: {
        uint32_t v = 0;
        status = gk_get_u32(pe, src, &v);
        memcpy(dst, &v, 4);
        break;
    }
    case 8: {
        uint64_t v = 0;
        status = gk_get_u64(pe, src, &v);
        memcpy(dst, &v, 8);
        break;
    }
    default:
        status = gk_get(pe, dst, src, size);
        break;
    }
    SHMEM_CHECK(routine, status);
}

/* Strides are in elements and may be negative (the spec only asks for
 * positive ones; nothing here needs them to be). */
static void rma_iput(const char *routine, char *dest, const char *source, ptrdiff_t dst,
                     ptrdiff_t sst, size_t nelems, size_t size, int pe)
{
    for (size_t i = 0; i < nelems; i++)
        rma_put_one(routine, pe, dest + (ptrdiff_t)i * dst * (ptrdiff_t)size,
                    source + (ptrdiff_t)i * sst * (ptrdiff_t)size, size);
}

static void rma_iget(const char *routine, char *dest, const char *source, ptrdiff_t dst,
                     ptrdiff_t sst, size_t nelems, size_t size, int pe)
{
    for (size_t i = 0; i < nelems; i++)
        rma_get_one(routine, pe, dest + (ptrdiff_t)i * dst * (ptrdiff_t)size,
                    source + (ptrdiff_t)i * sst * (ptrdiff_t)size, size);
}

/* The signal operation's value is checked by the native call. */
#define RMA_SIGNAL_OP(sig_op) ((gk_signal_op_t)(sig_op))

/* The contiguous forms, for element size SIZE; NAME is the routine's name
 * without "shmem_", SUFFIX what follows the put/get (e.g. _nbi). */
#define RMA_CONTIGUOUS(PUTNAME, GETNAME, T, SIZE)                              \
    SHMEM_DEFINE(void, PUTNAME, (T * dest, const T *source, size_t nelems, int pe)) \
    {                                                                          \
        const char *r = "shmem_" #PUTNAME;                                     \
        SHMEM_CHECK(r, gk_put(pe, dest, source, gk__shmem_bytes(r, nelems, SIZE))); \
    }                                                                          \
    SHMEM_DEFINE(void, GETNAME, (T * dest, const T *source, size_t nelems, int pe)) \
    {                                                                          \
        const char *r = "shmem_" #GETNAME;                                     \
        SHMEM_CHECK(r, gk_get(pe, dest, source, gk__shmem_bytes(r, nelems, SIZE))); \
    }                                                                          \
    SHMEM_DEFINE(void, PUTNAME##_nbi,                                          \
                 (T * dest, const T *source, size_t nelems, int pe))           \
    {                                                                          \
        const char *r = "shmem_" #PUTNAME "_nbi";                              \
        SHMEM_CHECK(r, gk_put_nbi(pe, dest, source, gk__shmem_bytes(r, nelems, SIZE))); \
    }                                                                          \
    SHMEM_DEFINE(void, GETNAME##_nbi,                                          \
                 (T * dest, const T *source, size_t nelems, int pe))           \
    {                                                                          \
        const char *r = "shmem_" #GETNAME "_nbi";                              \
        SHMEM_CHECK(r, gk_get_nbi(pe, dest, source, gk__shmem_bytes(r, nelems, SIZE))); \
    }                                                                          \
    SHMEM_DEFINE(void, PUTNAME##_signal,                                       \
                 (T * dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                  uint64_t signal, int sig_op, int pe))                        \
    {                                                                          \
        const char *r = "shmem_" #PUTNAME "_signal";                           \
        SHMEM_CHECK(r, gk_put_signal(pe, dest, source, gk__shmem_bytes(r, nelems, SIZE), \
                                     sig_addr, signal, RMA_SIGNAL_OP(sig_op))); \
    }                                                                          \
    SHMEM_DEFINE(void, PUTNAME##_signal_nbi,                                   \
                 (T * dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                  uint64_t signal, int sig_op, int pe))                        \
    {                                                                          \
        const char *r = "shmem_" #PUTNAME "_signal_nbi";                       \
        SHMEM_CHECK(r, gk_put_signal_nbi(pe, dest, source,                     \
                                         gk__shmem_bytes(r, nelems, SIZE), sig_addr, \
                                         signal, RMA_SIGNAL_OP(sig_op)));      \
    }

#define RMA_STRIDED(PUTNAME, GETNAME, T, SIZE)                                 \
    SHMEM_DEFINE(void, PUTNAME, (T * dest, const T *source, ptrdiff_t dst,     \
                                 ptrdiff_t sst, size_t nelems, int pe))        \
    {                                                                          \
        rma_iput("shmem_" #PUTNAME, (char *)dest, (const char *)source, dst, sst, \
                 nelems, SIZE, pe);                                            \
    }                                                                          \
    SHMEM_DEFINE(void, GETNAME, (T * dest, const T *source, ptrdiff_t dst,     \
                                 ptrdiff_t sst, size_t nelems, int pe))        \
    {                                                                          \
        rma_iget("shmem_" #GETNAME, (char *)dest, (const char *)source, dst, sst, \
                 nelems, SIZE, pe);                                            \
    }

#define RMA_TYPED(T, N)                                                        \
    RMA_CONTIGUOUS(N##_put, N##_get, T, sizeof(T))                             \
    RMA_STRIDED(N##_iput, N##_iget, T, sizeof(T))                              \
    SHMEM_DEFINE(void, N##_p, (T * dest, T value, int pe))                     \
    {                                                                          \
        rma_put_one("shmem_" #N "_p", pe, dest, &value, sizeof(T));            \
    }                                                                          \
    SHMEM_DEFINE(T, N##_g, (const T *source, int pe))                          \
    {                                                                          \
        T value;                                                               \
        rma_get_one("shmem_" #N "_g", pe, &value, source, sizeof(T));          \
        return value;                                                          \
    }
SHMEM_RMA_TYPES(RMA_TYPED)

#define RMA_SIZED(BITS, BYTES)                                                 \
    RMA_CONTIGUOUS(put##BITS, get##BITS, void, BYTES)                          \
    RMA_STRIDED(iput##BITS, iget##BITS, void, BYTES)
SHMEM_RMA_SIZES(RMA_SIZED)
RMA_CONTIGUOUS(putmem, getmem, void, 1)

/*
 * rma.c: puts and gets, blocking, implicit (nbi) and explicit-handle (nb),
 * value puts and gets, fence and quiet.
 *
 * On the shm transport every operation completes before it returns, so the
 * non-blocking forms are the blocking ones and their handles are born
 * complete (GK_HANDLE_NULL); fence is a release fence (no instruction on
 * x86) and quiet one full fence plus the wake-up checks that puts owe
 * (core/path.h). On a network transport the non-blocking forms leave
 * their buffers to the transport until quiet or the handle completes.
 */
#include "base/log.h"
#include "core/runtime.h"
#include "core/path.h"
#include "core/progress.h"

static inline int rma_put(const char *op, int pe, void *dst, const void *src,
                          size_t nbytes)
{
    return gk__path_put(op, pe, dst, src, nbytes, GK__PATH_DEFER_WAKE);
}

static inline int rma_get(const char *op, int pe, void *dst, const void *src,
                          size_t nbytes)
{
    return gk__path_get(op, pe, dst, src, nbytes);
}

int gk_put(int pe, void *dst, const void *src, size_t nbytes)
{
    return rma_put("gk_put", pe, dst, src, nbytes);
}

int gk_get(int pe, void *dst, const void *src, size_t nbytes)
{
    return rma_get("gk_get", pe, dst, src, nbytes);
}

int gk_put_nbi(int pe, void *dst, const void *src, size_t nbytes)
{
    return gk__path_put_src("gk_put_nbi", pe, dst, src, nbytes, GK__PATH_DEFER_WAKE,
                            GK__PATH_SRC_HELD);
}

int gk_get_nbi(int pe, void *dst, const void *src, size_t nbytes)
{
    return gk__path_get_dst("gk_get_nbi", pe, dst, src, nbytes, GK__PATH_DST_AT_QUIET);
}

/*
 * Handles. On a mapped peer an operation is complete on return and its
 * handle is GK_HANDLE_NULL. On another transport the handle names the
 * target PE, and completing it flushes that peer: the operation and any
 * issued before it to the same PE are then complete. In check mode a
 * mapped peer's operation waits for its completion point too (core/path.h),
 * so its handle names the PE and completing it is one.
 */
#define RMA_HANDLE_PEER_TAG 0x676b4800ull /* "gkH": a handle on PE (low 32 bits) */
#define RMA_HANDLE_CHECK_TAG 0x676b4300ull /* "gkC": the same on a mapped PE, in check mode */

static gk_handle_t rma_handle_for(int pe)
{
    if (GK__LIKELY(gk__path_mapped(pe))) {
        if (GK__LIKELY(!gk__check_on))
            return GK_HANDLE_NULL;
        return (gk_handle_t){(RMA_HANDLE_CHECK_TAG << 32) | (uint32_t)pe};
    }
    return (gk_handle_t){(RMA_HANDLE_PEER_TAG << 32) | (uint32_t)pe};
}

int gk_put_nb(int pe, void *dst, const void *src, size_t nbytes, gk_handle_t *handle_p)
{
    if (GK__UNLIKELY(handle_p == NULL))
        return gk__rt_report_null("gk_put_nb", "handle_p", 1);
    int status = gk__path_put_src("gk_put_nb", pe, dst, src, nbytes, GK__PATH_DEFER_WAKE,
                                  GK__PATH_SRC_HELD);
    if (status == GK_OK)
        *handle_p = rma_handle_for(pe);
    return status;
}

int gk_get_nb(int pe, void *dst, const void *src, size_t nbytes, gk_handle_t *handle_p)
{
    if (GK__UNLIKELY(handle_p == NULL))
        return gk__rt_report_null("gk_get_nb", "handle_p", 1);
    int status = gk__path_get_dst("gk_get_nb", pe, dst, src, nbytes, GK__PATH_DST_AT_QUIET);
    if (status == GK_OK)
        *handle_p = rma_handle_for(pe);
    return status;
}

/* GK_OK for a handle gasket issued (*pe_p: its PE, or -1 when complete). */
static int rma_check_handle(const char *op, const gk_handle_t *handle, int *pe_p)
{
    if (GK__UNLIKELY(handle == NULL))
        return gk__rt_report_null(op, "handle", 1);
    *pe_p = -1;
    if (GK__LIKELY(handle->opaque == 0))
        return GK_OK;
    uint32_t pe = (uint32_t)handle->opaque;
    uint64_t tag = handle->opaque >> 32;
    int mapped = pe < (uint32_t)gk__rt.n_pes && gk__path_mapped((int)pe);
    int issued = pe < (uint32_t)gk__rt.n_pes &&
                 (tag == RMA_HANDLE_PEER_TAG ? !mapped
                                             : tag == RMA_HANDLE_CHECK_TAG && gk__check_on && mapped);
    if (issued) {
        *pe_p = (int)pe;
        return GK_OK;
    }
    gk__error("%s: handle %#llx was not issued by gasket", op,
              (unsigned long long)handle->opaque);
    return GK_ERR_INVALID_ARG;
}

/* A flush waits for the network only, never for another PE's program, so
 * waiting and testing a handle both complete it. */
static int rma_complete_handle(const char *op, gk_handle_t *handle)
{
    if (handle != NULL && handle->opaque >> 48 == GK__HANDLE_COLL_TAG &&
        gk__handle_coll_complete != NULL)
        return gk__handle_coll_complete(op, handle, 1, NULL);
    int pe = -1;
    int status = rma_check_handle(op, handle, &pe);
    if (status == GK_OK && pe >= 0) {
        if (gk__path_mapped(pe))
            gk__path_check_complete(op); /* check mode's handle */
        else
            status = gk__path_flush(pe);
    }
    if (status == GK_OK)
        *handle = GK_HANDLE_NULL;
    return status;
}

int gk_handle_wait(gk_handle_t *handle)
{
    return rma_complete_handle("gk_handle_wait", handle);
}

int gk_handle_test(gk_handle_t *handle, int *done_p)
{
    if (GK__UNLIKELY(done_p == NULL))
        return gk__rt_report_null("gk_handle_test", "done_p", 1);
    if (handle != NULL && handle->opaque >> 48 == GK__HANDLE_COLL_TAG &&
        gk__handle_coll_complete != NULL)
        return gk__handle_coll_complete("gk_handle_test", handle, 0, done_p);
    int status = rma_complete_handle("gk_handle_test", handle);
    if (status == GK_OK)
        *done_p = 1;
    return status;
}

int gk_handle_wait_all(gk_handle_t *handles, size_t count)
{
    int status = gk__rt_check_local("gk_handle_wait_all", "handles", handles, count);
    for (size_t i = 0; status == GK_OK && i < count; i++)
        status = rma_complete_handle("gk_handle_wait_all", &handles[i]);
    return status;
}

int gk_quiet(void)
{
    return gk__path_quiet();
}

/* Ordering only: the owed wake-ups wait for the flag that usually follows. */
int gk_fence(void)
{
    return gk__path_fence();
}

/*
 * Value puts and gets: one naturally aligned access (so a concurrent reader
 * never sees half a value), then the wake-up check for value puts.
 */
#define RMA_VALUE_OPS(bits)                                                    \
    int gk_put_u##bits(int pe, uint##bits##_t *dst, uint##bits##_t value)      \
    {                                                                          \
        size_t offset = 0;                                                     \
        int status = gk__rt_check_word("gk_put_u" #bits, pe, dst,              \
                                       sizeof(value), &offset);                \
        if (GK__UNLIKELY(status != GK_OK))                                     \
            return status;                                                     \
        return gk__path_store(pe, offset, value, sizeof(value));               \
    }                                                                          \
    int gk_get_u##bits(int pe, const uint##bits##_t *src,                      \
                       uint##bits##_t *value_p)                                \
    {                                                                          \
        gk__path_flush_wakes(); /* a get in a loop is a poll */             \
        size_t offset = 0;                                                     \
        int status = gk__rt_check_word("gk_get_u" #bits, pe, src,              \
                                       sizeof(*value_p), &offset);             \
        if (GK__UNLIKELY(status != GK_OK))                                     \
            return status;                                                     \
        status = gk__rt_check_local("gk_get_u" #bits, "value_p", value_p, 1);  \
        if (GK__UNLIKELY(status != GK_OK))                                     \
            return status;                                                     \
        uint64_t value = 0;                                                    \
        status = gk__path_load(pe, offset, sizeof(*value_p), &value);          \
        if (GK__LIKELY(status == GK_OK))                                       \
            *value_p = (uint##bits##_t)value;                                  \
        return status;                                                         \
    }

RMA_VALUE_OPS(8)
RMA_VALUE_OPS(16)
RMA_VALUE_OPS(32)
RMA_VALUE_OPS(64)

/*
 * The extended put interface (gasket.h). On this node all three are one
 * copy into the mapped segment; they differ in what they promise about
 * src, which a network transport will use: inline copies at once (small),
 * buffered may copy to a bounce buffer, bulk reads src in place until quiet.
 */
int gk_put_inline(int pe, void *dst, const void *src, size_t nbytes)
{
    if (GK__UNLIKELY(nbytes > GK_PUT_INLINE_MAX)) {
        gk__error("gk_put_inline: %zu bytes is over GK_PUT_INLINE_MAX (%d); use gk_put",
                  nbytes, GK_PUT_INLINE_MAX);
        return GK_ERR_INVALID_ARG;
    }
    return rma_put("gk_put_inline", pe, dst, src, nbytes);
}

int gk_put_buffered(int pe, void *dst, const void *src, size_t nbytes)
{
    return rma_put("gk_put_buffered", pe, dst, src, nbytes);
}

int gk_put_bulk(int pe, void *dst, const void *src, size_t nbytes)
{
    return rma_put("gk_put_bulk", pe, dst, src, nbytes);
}

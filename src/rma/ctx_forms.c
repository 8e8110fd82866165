/*
 * ctx_forms.c: the context forms of the one-sided, atomic and signaling
 * calls. A context carries no state of its own on this node's transport
 * (core/ctx.h), so each form checks its context and runs the plain call:
 * one predictable branch on the way. A context made on a team
 * (gk_team_ctx_create) numbers PEs as its team does: the form makes the
 * number a world PE's first.
 */
#include "core/ctx.h"
#include "core/runtime.h"

#define CTX_CALL(name, ...)                                                    \
    do {                                                                       \
        int status_ = gk__ctx_check_pe("gk_ctx_" #name, ctx, &pe);             \
        if (GK__UNLIKELY(status_ != GK_OK))                                    \
            return status_;                                                    \
        return gk_##name(__VA_ARGS__);                                         \
    } while (0)
/* The same for the calls without a PE (a semaphore names its own). */
#define CTX_CALL_ALL(name, ...)                                                \
    do {                                                                       \
        int status_ = gk__ctx_check("gk_ctx_" #name, ctx);                     \
        if (GK__UNLIKELY(status_ != GK_OK))                                    \
            return status_;                                                    \
        return gk_##name(__VA_ARGS__);                                         \
    } while (0)

int gk_ctx_put(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes)
{
    CTX_CALL(put, pe, dst, src, nbytes);
}
int gk_ctx_get(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes)
{
    CTX_CALL(get, pe, dst, src, nbytes);
}
int gk_ctx_put_nbi(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes)
{
    CTX_CALL(put_nbi, pe, dst, src, nbytes);
}
int gk_ctx_get_nbi(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes)
{
    CTX_CALL(get_nbi, pe, dst, src, nbytes);
}
int gk_ctx_iput(gk_ctx_t *ctx, int pe, void *dst, const void *src, ptrdiff_t dst_stride,
                ptrdiff_t src_stride, size_t nelems, size_t elem_size)
{
    CTX_CALL(iput, pe, dst, src, dst_stride, src_stride, nelems, elem_size);
}
int gk_ctx_iget(gk_ctx_t *ctx, int pe, void *dst, const void *src, ptrdiff_t dst_stride,
                ptrdiff_t src_stride, size_t nelems, size_t elem_size)
{
    CTX_CALL(iget, pe, dst, src, dst_stride, src_stride, nelems, elem_size);
}
int gk_ctx_put_nb(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                  gk_handle_t *handle_p)
{
    CTX_CALL(put_nb, pe, dst, src, nbytes, handle_p);
}
int gk_ctx_get_nb(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                  gk_handle_t *handle_p)
{
    CTX_CALL(get_nb, pe, dst, src, nbytes, handle_p);
}
int gk_ctx_quiet(gk_ctx_t *ctx) { CTX_CALL_ALL(quiet); }
int gk_ctx_fence(gk_ctx_t *ctx) { CTX_CALL_ALL(fence); }

#define CTX_VALUE(bits)                                                        \
    int gk_ctx_put_u##bits(gk_ctx_t *ctx, int pe, uint##bits##_t *dst,         \
                           uint##bits##_t value)                               \
    {                                                                          \
        CTX_CALL(put_u##bits, pe, dst, value);                                 \
    }                                                                          \
    int gk_ctx_get_u##bits(gk_ctx_t *ctx, int pe, const uint##bits##_t *src,   \
                           uint##bits##_t *value_p)                            \
    {                                                                          \
        CTX_CALL(get_u##bits, pe, src, value_p);                               \
    }
CTX_VALUE(8)
CTX_VALUE(16)
CTX_VALUE(32)
CTX_VALUE(64)

#define CTX_AMO_FETCHING(T, ctype, name)                                       \
    int gk_ctx_atomic_##name##_##T(gk_ctx_t *ctx, int pe, ctype *dst, ctype value, \
                                   ctype *old_p)                               \
    {                                                                          \
        CTX_CALL(atomic_##name##_##T, pe, dst, value, old_p);                  \
    }
#define CTX_AMO_PLAIN(T, ctype, name)                                          \
    int gk_ctx_atomic_##name##_##T(gk_ctx_t *ctx, int pe, ctype *dst, ctype value) \
    {                                                                          \
        CTX_CALL(atomic_##name##_##T, pe, dst, value);                         \
    }
#define CTX_AMO(T, ctype)                                                      \
    int gk_ctx_atomic_fetch_##T(gk_ctx_t *ctx, int pe, const ctype *src,       \
                                ctype *value_p)                                \
    {                                                                          \
        CTX_CALL(atomic_fetch_##T, pe, src, value_p);                          \
    }                                                                          \
    int gk_ctx_atomic_compare_swap_##T(gk_ctx_t *ctx, int pe, ctype *dst,      \
                                       ctype expected, ctype desired,          \
                                       ctype *old_p)                           \
    {                                                                          \
        CTX_CALL(atomic_compare_swap_##T, pe, dst, expected, desired, old_p);  \
    }                                                                          \
    CTX_AMO_PLAIN(T, ctype, set)                                               \
    CTX_AMO_FETCHING(T, ctype, swap)                                           \
    CTX_AMO_FETCHING(T, ctype, fetch_add)                                      \
    CTX_AMO_PLAIN(T, ctype, add)                                               \
    CTX_AMO_FETCHING(T, ctype, fetch_and)                                      \
    CTX_AMO_FETCHING(T, ctype, fetch_or)                                       \
    CTX_AMO_FETCHING(T, ctype, fetch_xor)                                      \
    CTX_AMO_PLAIN(T, ctype, and)                                               \
    CTX_AMO_PLAIN(T, ctype, or)                                                \
    CTX_AMO_PLAIN(T, ctype, xor)
CTX_AMO(i32, int32_t)
CTX_AMO(u32, uint32_t)
CTX_AMO(i64, int64_t)
CTX_AMO(u64, uint64_t)

int gk_ctx_put_sem(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                   gk_sem_t sem, uint64_t n)
{
    CTX_CALL(put_sem, pe, dst, src, nbytes, sem, n);
}
int gk_ctx_put_sem_nbi(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                       gk_sem_t sem, uint64_t n)
{
    CTX_CALL(put_sem_nbi, pe, dst, src, nbytes, sem, n);
}
int gk_ctx_put_sem_nb(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                      gk_sem_t sem, uint64_t n, gk_handle_t *handle_p)
{
    CTX_CALL(put_sem_nb, pe, dst, src, nbytes, sem, n, handle_p);
}
int gk_ctx_put_signal(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                      uint64_t *sig_addr, uint64_t signal, gk_signal_op_t sig_op)
{
    CTX_CALL(put_signal, pe, dst, src, nbytes, sig_addr, signal, sig_op);
}
int gk_ctx_put_signal_nbi(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                          uint64_t *sig_addr, uint64_t signal, gk_signal_op_t sig_op)
{
    CTX_CALL(put_signal_nbi, pe, dst, src, nbytes, sig_addr, signal, sig_op);
}
int gk_ctx_sem_post(gk_ctx_t *ctx, gk_sem_t sem) { CTX_CALL_ALL(sem_post, sem); }
int gk_ctx_sem_post_n(gk_ctx_t *ctx, gk_sem_t sem, uint64_t n)
{
    CTX_CALL_ALL(sem_post_n, sem, n);
}

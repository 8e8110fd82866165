/*
 * gasket.h: the native API of gasket, a communication runtime for
 * partitioned-global-address-space (PGAS) programs.
 *
 * One process is one PE (processing element). Every PE owns a symmetric heap:
 * memory allocated collectively with gk_malloc() lies at the same offset on
 * every PE, so the address of an object on the calling PE names the same
 * object on every other PE. One-sided operations (put, get, atomics) move data
 * to and from another PE's copy without that PE's help.
 *
 * Conventions that hold for the whole API:
 *  - Every function that can fail returns an int status: GK_OK (0) on
 *    success, a negative GK_ERR_* code otherwise; gk_strerror() names it. An
 *    error is also logged once, with the details (PE, address, length, the
 *    segment's bounds), at log level "error".
 *  - Output parameters come last, end in _p, and are written only on success.
 *    A function returns a status or, where it cannot fail, a value; never a
 *    value that may also be a status (gk_sem_owner() takes *pe_p).
 *  - "pe" is a PE number in [0, gk_n_pes()). "Symmetric address" means an
 *    address inside the calling PE's symmetric heap; it names the same object
 *    on the target PE.
 *  - Collective calls (allocation, windows, collective semaphores) check
 *    their arguments on every PE and agree on the verdict: a bad argument on
 *    one PE fails the call on every PE (the others log that another PE
 *    failed), so no PE is left waiting for one that returned early.
 *  - Every PE must make the same collective calls (barrier, broadcast,
 *    all-reduce, the heap calls, window creation, free and fence,
 *    gk_sem_alloc_all/free_all, gk_finalize) in the same order. The PEs
 *    number their calls and check them, always: PEs in different calls
 *    (one in gk_malloc while another is in gk_barrier, or one PE with a
 *    barrier more than the others) get GK_ERR_COLL_MISMATCH on every PE,
 *    each with a line naming both calls ("collective mismatch: this PE is
 *    in gk_barrier (collective #6) while PE 2 is in gk_finalize
 *    (collective #6)"), instead of a hang. Calls that fit together are
 *    caught as they meet; calls that cannot meet within a wait's sleep
 *    (GK_SLEEP_MS). The collectives are then out of step for good: every
 *    later collective call fails at once with GK_ERR_COLL_MISMATCH and a
 *    line, and gk_finalize() releases everything without its barrier. The
 *    heap calls count as one kind: PEs in different heap calls get the
 *    heap calls' own error and stay in step (see gk_malloc()).
 *  - Thread safety: gk_init() is GK_THREAD_SINGLE; gk_init_thread() asks for
 *    more, and contexts (gk_ctx_create()) give threads streams of their own.
 *
 * Naming and argument order, the same everywhere:
 *  - Functions are gk_<object>_<verb> (gk_sem_post, gk_win_lock,
 *    gk_handle_wait, gk_request_wait); the call that does not wait is
 *    the verb with try_ in front (gk_sem_try_wait, gk_win_try_lock,
 *    gk_lock_try_set) and says in *acquired_p or *taken_p whether it did.
 *    gk_test_T (a comparison on a word) keeps OpenSHMEM's name.
 *  - Destination before source, as memcpy() and OpenSHMEM have it: puts,
 *    gets, gk_broadcast, gk_allreduce, gk_reduce, gk_collect, gk_alltoall
 *    all take (dst, src, ...). MPI's collectives take (send, receive).
 *  - An array comes before its length: gk_handle_wait_all(handles, count),
 *    gk_request_wait_all(requests, count, statuses).
 *  - A choice of one value is an enum with a typedef (gk_cmp_t, gk_op_t,
 *    gk_dtype_t, gk_signal_op_t, gk_lock_type_t, gk_thread_level_t); bits
 *    to combine with | are unsigned GK_* constants with a u suffix
 *    (GK_SEM_*, GK_WIN_*, GK_CTX_*), passed as `unsigned flags`.
 *  - A base type is a gk_dtype_t (GK_DTYPE_DOUBLE), for reductions and
 *    accumulates; a layout in memory is a gk_type_t (gasket_dtype.h),
 *    built from the base types with MPI's constructors.
 *  - A put that signals its target: gk_put_signal() updates an OpenSHMEM
 *    signal word; gk_put_sem() posts a semaphore.
 *
 * Atomicity. gasket's atomics (gk_atomic_*) are atomic with respect to each
 * other, from every PE and thread. A pointer from gk_ptr() gives plain
 * access to a PE of this node: C11 atomics through it are atomic with
 * respect to other CPU atomics on this node, and today with gasket's own
 * atomics on this node too (they are CPU atomics here), but not across a
 * network, where a network adapter performs them. So a word that any PE
 * updates with gk_atomic_* must be updated only with gk_atomic_* (one
 * atomicity domain per word); loads through gk_ptr() see its values.
 */
#ifndef GASKET_H
#define GASKET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of these headers: GK_VERSION_MAJOR, GK_VERSION_MINOR,
 * GK_VERSION_PATCH and the string GK_VERSION_STRING ("MAJOR.MINOR.PATCH"),
 * written by the build from the project's version. gk_version() gives the
 * library's. The GASKET_VERSION_* names are deprecated and will be removed.
 */
#include "gasket_version.h"
#define GASKET_VERSION_MAJOR GK_VERSION_MAJOR
#define GASKET_VERSION_MINOR GK_VERSION_MINOR
#define GASKET_VERSION_PATCH GK_VERSION_PATCH

#if defined(__GNUC__)
#define GK_API __attribute__((visibility("default")))
#define GK_NORETURN __attribute__((noreturn))
#define GK__DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define GK_API
#define GK_NORETURN
#define GK__DEPRECATED(msg)
#endif

/*
 * GK__INT(x) is x where x has an integer type, and a compile error where it
 * is a pointer. The calls whose argument order changed check with it the
 * integer argument that a call in the old order passes a pointer to: in C,
 * passing a pointer for an integer is only a warning (-Wint-conversion),
 * and such a call would compile and then fail at run time. C++ rejects
 * those conversions by itself.
 */
#if !defined(__cplusplus) && !defined(GK__BUILDING_LIBRARY)
#define GK__CHECK_ARGS 1
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GK__INT(x)                                                             \
    _Generic((x), _Bool: (x), char: (x), signed char: (x), unsigned char: (x),  \
             short: (x), unsigned short: (x), int: (x), unsigned: (x),         \
             long: (x), unsigned long: (x), long long: (x),                    \
             unsigned long long: (x))
#else
#define GK__INT(x) (0 ? (x) : (x) * 1) /* a pointer cannot be multiplied */
#endif
#endif

/*
 * Status codes, one table: name, value, message. Success is 0, errors are
 * negative and grouped by kind (-1.. argument errors, -20.. resources,
 * -40.. runtime and system).
 */
#define GK_STATUS_TABLE(X)                                                     \
    X(GK_OK, 0, "success")                                                     \
    X(GK_ERR_INVALID_ARG, -1, "invalid argument")                              \
    X(GK_ERR_PE, -2, "invalid PE number")                                      \
    X(GK_ERR_RANGE, -3, "address outside the target segment")                  \
    X(GK_ERR_ALIGN, -4, "misaligned address")                                  \
    X(GK_ERR_EPOCH, -5, "not allowed in the window's current epoch")          \
    X(GK_ERR_TRUNCATE, -6, "message longer than the receive buffer")          \
    X(GK_ERR_NOMEM, -20, "out of memory")                                      \
    X(GK_ERR_NOT_INIT, -40, "gasket is not initialized")                       \
    X(GK_ERR_ALREADY_INIT, -41, "gasket is already initialized")               \
    X(GK_ERR_UNREACHABLE, -42, "PE is not reachable by any transport")         \
    X(GK_ERR_SYSTEM, -43, "system call failed")                                \
    X(GK_ERR_BOOT, -44, "bootstrap failed")                                    \
    X(GK_ERR_CONFIG, -45, "invalid configuration")                             \
    X(GK_ERR_UNSUPPORTED, -46, "operation not supported")                      \
    X(GK_ERR_COLL_MISMATCH, -47, "PEs are in different collective calls")      \
    X(GK_ERR_UNRECEIVED, -48, "messages were sent but never received")

enum gk_status {
#define GK__STATUS_ENUM(name, value, text) name = (value),
    GK_STATUS_TABLE(GK__STATUS_ENUM)
#undef GK__STATUS_ENUM
};

/** The message for a status code ("unknown status" for codes not in the table). */
GK_API const char *gk_strerror(int status);

/** The version as "MAJOR.MINOR.PATCH". */
GK_API const char *gk_version(void);

/* ------------------------------------------------------------------------ */
/* Start-up and shut-down                                                    */
/* ------------------------------------------------------------------------ */

/**
 * Starts the runtime: reads the GK_* environment, joins the job started by
 * gasket-run (or runs as a single PE when started without it), creates this
 * PE's symmetric heap and maps the heaps of the PEs on the same node.
 * Collective. The heap's memory (GK_HEAP_SIZE plus 4 MiB of the runtime's)
 * is reserved in /dev/shm here: when the node's heaps do not fit, every PE
 * returns GK_ERR_NOMEM, after logging the size wanted and the space free.
 * Returns GK_ERR_ALREADY_INIT, with a message, if called twice, or again
 * after gk_finalize() (a process is one PE, once).
 */
GK_API int gk_init(void);

/**
 * Ends the runtime: completes outstanding operations, waits for all PEs
 * (barrier), and releases every resource. Collective. A PE that exits
 * without calling it while other PEs still run takes the job down. A PE
 * that still has a window epoch open (a lock other PEs may be queued
 * behind) gets GK_ERR_EPOCH, one that holds a gk_lock_t GK_ERR_INVALID_ARG,
 * each with a message, instead of a barrier that could never end; called
 * from an active-message handler, GK_ERR_UNSUPPORTED. When the PEs'
 * collective calls do not match (another PE is still in an earlier
 * collective, or has one more), or did not earlier, it returns
 * GK_ERR_COLL_MISMATCH with a message, after releasing every resource
 * all the same (without the barrier).
 *
 * Before the PEs part, every active message in flight is delivered and
 * run. A two-sided message that arrived and was never received (an eager
 * gk_send/gk_isend, or a large gk_isend whose receive was never posted) is
 * reported: the receiving PE logs a warning naming the sender, tag and
 * size of each, the sending PE one with how many of its messages were
 * lost, and both return GK_ERR_UNRECEIVED (having finalized all the same).
 */
GK_API int gk_finalize(void);

/** 1 between gk_init() and gk_finalize(), 0 otherwise. */
GK_API int gk_initialized(void);

/** This PE's number, or -1 before gk_init(). */
GK_API int gk_my_pe(void);

/** The number of PEs in the job, or 0 before gk_init(). */
GK_API int gk_n_pes(void);

/**
 * Ends the whole job: logs `why` (may be NULL) with this PE's number, tells
 * the launcher, and exits. The launcher reports gk_abort(exit_code) and
 * `why`, and stops every other PE. The exit status, of this PE and of
 * gasket-run (or mpirun), is exit_code modulo 256, or 1 where that is 0:
 * an abort never passes for success.
 */
GK_API GK_NORETURN void gk_abort(int exit_code, const char *why);

/**
 * Ends the whole job on purpose, with exit status `status` modulo 256, 0
 * included: tells the launcher, which stops every other PE and exits with
 * that status (as shmem_global_exit() asks), and exits. Nothing is logged
 * here; the launcher names the PE and `why` (may be NULL). Callable before
 * gk_init() (then this process alone exits). Buffered stdio output is the
 * caller's to flush.
 */
GK_API GK_NORETURN void gk_exit_job(int status, const char *why);

/* ------------------------------------------------------------------------ */
/* Symmetric heap                                                            */
/* ------------------------------------------------------------------------ */

/*
 * The allocation calls are collective: every PE must call them in the same
 * order with the same arguments; each returns the same offset on every PE
 * and ends with a barrier, so the memory may be accessed remotely as soon as
 * the call returns. They return NULL when the heap (GK_HEAP_SIZE bytes per
 * PE) cannot satisfy the request, after logging the size asked for, the free
 * bytes and the GK_HEAP_SIZE to raise. A size of 0 returns NULL without error.
 *
 * The PEs check that they agree: arguments that differ between PEs (a size
 * computed from the PE number, a block freed on some PEs only, PEs in
 * different heap calls) are logged on every PE, with this PE's value and
 * the range seen, and the call does nothing anywhere (allocations return
 * NULL, gk_free frees nothing, gk_realloc leaves the block as it was). So
 * does a bad argument or an exhausted heap on any one PE: the heaps never
 * drift apart. Blocks of a team (gk_team_malloc()) lie in its members'
 * heaps only; a later block is placed at an offset free on every PE.
 */
GK_API void *gk_malloc(size_t size);
/** As gk_malloc(), zero-filled; count * size must not overflow. */
GK_API void *gk_calloc(size_t count, size_t size);
/** As gk_malloc(), aligned to `alignment`: a power of two, up to the
 * largest one that is at most the heap's size (GK_HEAP_SIZE); any other
 * is an error that names it. */
GK_API void *gk_align(size_t alignment, size_t size);
/**
 * Resizes a block, keeping min(old, new) bytes of this PE's contents.
 * ptr NULL acts as gk_malloc(); size 0 frees and returns NULL.
 */
GK_API void *gk_realloc(void *ptr, size_t size);
/**
 * Frees a block from the calls above. Collective, NULL included: every PE
 * passes the same block, or NULL (which frees nothing).
 */
GK_API void gk_free(void *ptr);

/** The size in bytes of each PE's symmetric heap. */
GK_API size_t gk_heap_size(void);
/** The free bytes of this PE's symmetric heap (the same on every PE). */
GK_API size_t gk_heap_free(void);

/**
 * A pointer through which this PE may load and store PE `pe`'s copy of the
 * symmetric object at `addr`, or NULL when none exists: `pe` is invalid,
 * `addr` is not a symmetric address, or PE `pe`'s heap is not mapped here
 * (it is on another node, or GK_NET_INDIRECT=1 reaches the PEs of this
 * node as if they were). For the calling PE's own objects it is `addr`.
 */
GK_API void *gk_ptr(const void *addr, int pe);

/*
 * Memory allocated by one PE alone, with hints about its use
 * (MPI_Alloc_mem and its info keys). Not collective, unlike gk_malloc:
 * the block is this PE's, at an address of its own. Hints (flags):
 *
 *   GK_MEM_SHARED      in the local area at the end of the heap's range
 *                      (GK_ALLOC_MEM_SIZE bytes per PE, 0 unless set: then
 *                      this hint fails with GK_ERR_NOMEM): the PEs of this
 *                      node map it, and a window whose part lies in it
 *                      is accessed directly (no work for this PE)
 *   GK_MEM_REGISTERED  registered for the network: the same local area
 *                      (the whole segment is registered), so other hosts'
 *                      RMA reaches it directly too
 *   GK_MEM_PRIVATE     ordinary process memory (posix_memalign): a window
 *                      over it is emulated (its owner runs the others'
 *                      operations on it from active messages)
 *   0                  shared when the local area has room, else private
 *
 * `alignment`: 0 (the default: a cache line for shared memory, a pointer
 * for private), or a power of two up to 2 MiB: the block's address is a
 * multiple of it. The shared hints are honoured or the call fails:
 * GK_ERR_NOMEM when the local area has no room (the message says how much
 * it has; raise GK_ALLOC_MEM_SIZE), GK_ERR_INVALID_ARG for unknown or
 * contradictory hints (PRIVATE with SHARED), a bad alignment, size 0 or
 * ptr_p NULL. *ptr_p is written only on success. Thread-safe.
 */
#define GK_MEM_SHARED 0x1u
#define GK_MEM_REGISTERED 0x2u
#define GK_MEM_PRIVATE 0x4u
GK_API int gk_mem_alloc(size_t size, unsigned hints, size_t alignment, void **ptr_p);
/** Frees a block from gk_mem_alloc (NULL: nothing). A window over it must
 * be freed first. */
GK_API int gk_mem_free(void *ptr);
/** Deprecated names of gk_mem_alloc() and gk_mem_free(), to be removed. */
GK__DEPRECATED("use gk_mem_alloc")
static inline int gk_alloc_mem(size_t size, unsigned hints, size_t alignment,
                               void **ptr_p)
{
    return gk_mem_alloc(size, hints, alignment, ptr_p);
}
GK__DEPRECATED("use gk_mem_free") static inline int gk_free_mem(void *ptr)
{
    return gk_mem_free(ptr);
}

/* ------------------------------------------------------------------------ */
/* One-sided data movement (RMA)                                             */
/* ------------------------------------------------------------------------ */

/*
 * Puts copy `nbytes` from the local buffer `src` to the symmetric address
 * `dst` on PE `pe`; gets copy from the symmetric address `src` on `pe` to the
 * local buffer `dst`. The symmetric side is bounds-checked on every call:
 * a range outside the target's heap returns GK_ERR_RANGE and logs the PE,
 * the address, the length and the heap's bounds. NULL buffers are allowed
 * only with nbytes == 0.
 *
 * Completion:
 *  - gk_put returns when `src` may be reused; the data is visible at the
 *    target after the next gk_quiet() (on PEs of this node, at once).
 *  - gk_get returns when `dst` holds the data.
 *  - the _nbi forms return at once; gk_quiet() completes them (the buffers
 *    must not be touched before).
 *  - the _nb forms return a handle that gk_handle_wait(), gk_handle_test() or
 *    gk_handle_wait_all() completes; gk_quiet() completes them too.
 *
 * Ordering: gk_fence() orders the puts, value puts and atomics issued before
 * it to each PE before those issued after it to the same PE. gk_quiet()
 * completes everything issued before it, to every PE.
 *
 * gk_put, gk_put_nbi, the value puts, gk_fence, gk_quiet and the waits
 * below have inline fast paths (gasket_inline.h, at the end of this file):
 * a call names the library function only where the inline path cannot
 * finish the job. Define GK_NO_INLINE to call the library always.
 */
GK_API int gk_put(int pe, void *dst, const void *src, size_t nbytes);
GK_API int gk_get(int pe, void *dst, const void *src, size_t nbytes);
GK_API int gk_put_nbi(int pe, void *dst, const void *src, size_t nbytes);
GK_API int gk_get_nbi(int pe, void *dst, const void *src, size_t nbytes);
GK_API int gk_quiet(void);
GK_API int gk_fence(void);

/** A handle on one explicit non-blocking operation; a plain value. */
typedef struct gk_handle {
    uint64_t opaque;
} gk_handle_t;

/** A handle that is already complete. */
#define GK_HANDLE_NULL ((gk_handle_t){0})

GK_API int gk_put_nb(int pe, void *dst, const void *src, size_t nbytes,
                     gk_handle_t *handle_p);
GK_API int gk_get_nb(int pe, void *dst, const void *src, size_t nbytes,
                     gk_handle_t *handle_p);
/** Blocks until the operation completes; sets *handle to GK_HANDLE_NULL. */
GK_API int gk_handle_wait(gk_handle_t *handle);
/** *done_p = 1 (and *handle = GK_HANDLE_NULL) if complete, 0 if not. */
GK_API int gk_handle_test(gk_handle_t *handle, int *done_p);
/** gk_handle_wait() on each of `count` handles. */
GK_API int gk_handle_wait_all(gk_handle_t *handles, size_t count);
#ifdef GK__CHECK_ARGS
#define gk_handle_wait_all(handles, count) gk_handle_wait_all(handles, GK__INT(count))
#endif

/*
 * Value puts and gets of 1, 2, 4 and 8 bytes: `dst`/`src` is a naturally
 * aligned symmetric address on `pe`. The store or load is a single access, so
 * a reader never sees half a value.
 */
GK_API int gk_put_u8(int pe, uint8_t *dst, uint8_t value);
GK_API int gk_put_u16(int pe, uint16_t *dst, uint16_t value);
GK_API int gk_put_u32(int pe, uint32_t *dst, uint32_t value);
GK_API int gk_put_u64(int pe, uint64_t *dst, uint64_t value);
GK_API int gk_get_u8(int pe, const uint8_t *src, uint8_t *value_p);
GK_API int gk_get_u16(int pe, const uint16_t *src, uint16_t *value_p);
GK_API int gk_get_u32(int pe, const uint32_t *src, uint32_t *value_p);
GK_API int gk_get_u64(int pe, const uint64_t *src, uint64_t *value_p);

/* ------------------------------------------------------------------------ */
/* Atomics                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Atomic memory operations on 32- and 64-bit integers at a symmetric address
 * on PE `pe`, for the types i32, u32, i64 and u64 (int32_t ... uint64_t).
 * The address must be aligned to the operand size (else GK_ERR_ALIGN). Each
 * operation is atomic with respect to every other gasket atomic on the same
 * word, from any PE. Arithmetic wraps.
 *
 * Completion, as OpenSHMEM's atomics:
 *  - the fetching forms (fetch, swap, compare_swap, fetch_add and
 *    fetch_{and,or,xor}) are complete when the call returns, with the old
 *    value in *old_p (*value_p);
 *  - the non-fetching forms (set, add, and, or, xor) are complete at the
 *    target after the next gk_quiet() (or gk_barrier()): to a PE on another
 *    host, the call returns once the operation is issued, and other PEs,
 *    and this PE's gets, are sure to see it only then. On PEs of this node
 *    they are complete on return.
 *
 * Ordering:
 *  - an atomic is ordered after the calling thread's earlier puts to the
 *    same PE (every form: blocking, _nbi, _nb, value puts, and their context
 *    forms), with no
 *    gk_fence() between: a PE that sees the atomic's effect (a flag it
 *    waits for) sees the data of those puts. To a PE on another host this
 *    costs the atomic one network round trip when puts to that PE are
 *    still in flight (none are after a gk_quiet(), a completed handle to
 *    that PE, or an atomic that paid it);
 *  - atomics of one thread to the same PE take effect in the order issued;
 *  - puts and gets issued after a non-fetching atomic are ordered after it
 *    by gk_fence() (or gk_quiet()) only.
 *
 * The context forms (gk_ctx_atomic_*) complete and order as these, with
 * the puts and the gk_ctx_fence()/gk_ctx_quiet() of the same context.
 *
 *   gk_atomic_fetch_T(pe, src, &value)             value = *src
 *   gk_atomic_set_T(pe, dst, value)                *dst = value
 *   gk_atomic_swap_T(pe, dst, value, &old)         old = *dst, *dst = value
 *   gk_atomic_compare_swap_T(pe, dst, expected, desired, &old)
 *                                                  old = *dst; if old == expected, *dst = desired
 *   gk_atomic_fetch_add_T(pe, dst, value, &old)    old = *dst, *dst += value
 *   gk_atomic_add_T(pe, dst, value)                *dst += value
 *   gk_atomic_fetch_{and,or,xor}_T(pe, dst, value, &old)
 *   gk_atomic_{and,or,xor}_T(pe, dst, value)
 */
#define GK__ATOMIC_DECLARE(T, ctype)                                           \
    GK_API int gk_atomic_fetch_##T(int pe, const ctype *src, ctype *value_p);  \
    GK_API int gk_atomic_set_##T(int pe, ctype *dst, ctype value);             \
    GK_API int gk_atomic_swap_##T(int pe, ctype *dst, ctype value,             \
                                  ctype *old_p);                               \
    GK_API int gk_atomic_compare_swap_##T(int pe, ctype *dst, ctype expected,  \
                                          ctype desired, ctype *old_p);        \
    GK_API int gk_atomic_fetch_add_##T(int pe, ctype *dst, ctype value,        \
                                       ctype *old_p);                          \
    GK_API int gk_atomic_add_##T(int pe, ctype *dst, ctype value);             \
    GK_API int gk_atomic_fetch_and_##T(int pe, ctype *dst, ctype value,        \
                                       ctype *old_p);                          \
    GK_API int gk_atomic_fetch_or_##T(int pe, ctype *dst, ctype value,         \
                                      ctype *old_p);                           \
    GK_API int gk_atomic_fetch_xor_##T(int pe, ctype *dst, ctype value,        \
                                       ctype *old_p);                          \
    GK_API int gk_atomic_and_##T(int pe, ctype *dst, ctype value);             \
    GK_API int gk_atomic_or_##T(int pe, ctype *dst, ctype value);              \
    GK_API int gk_atomic_xor_##T(int pe, ctype *dst, ctype value);

GK__ATOMIC_DECLARE(i32, int32_t)
GK__ATOMIC_DECLARE(u32, uint32_t)
GK__ATOMIC_DECLARE(i64, int64_t)
GK__ATOMIC_DECLARE(u64, uint64_t)
#undef GK__ATOMIC_DECLARE

/* ------------------------------------------------------------------------ */
/* Point-to-point synchronisation                                            */
/* ------------------------------------------------------------------------ */

/** Comparisons for the waits: *ivar <op> value. */
typedef enum gk_cmp {
    GK_CMP_EQ = 0,
    GK_CMP_NE = 1,
    GK_CMP_GT = 2,
    GK_CMP_GE = 3,
    GK_CMP_LT = 4,
    GK_CMP_LE = 5
} gk_cmp_t;

/*
 * gk_wait_until_T blocks until the local symmetric word `ivar` (aligned,
 * inside this PE's heap) compares true against `value`; peers change it with
 * puts, value puts or atomics. The wait spins briefly, then yields, then
 * sleeps until a peer writes to this PE (GK_SPIN_COUNT, GK_YIELD_COUNT), so a
 * waiting PE does not hold a core. Reads after it returns see the data the
 * writer put before the write that satisfied it, when the writer ordered them
 * with gk_fence() or gk_quiet(), or that write was an atomic (ordered after
 * the writer's earlier puts to this PE: see "Atomics").
 *
 * A word that this PE changes itself once the wait returns (a flag it
 * resets for the next round) must be written by its peers with atomics
 * (gk_atomic_set_T, gk_atomic_add_T) or a signaling put, not with puts.
 * Seeing a put's value does not mean the put is complete: to a PE on
 * another host a put is copied into place by software (UCX over TCP or
 * shared memory), which may store the same bytes again afterwards, over
 * this PE's own store. An atomic is one store at the target.
 *
 * While it waits, it runs this PE's active-message handlers (as every
 * blocking gasket call does), and a handler's store to `ivar` ends the
 * wait, on this thread or from the progress thread. So this is the way to
 * wait for a word that one's own handler writes (a reply's answer): it
 * backs off like any wait, where a `while (!done) gk_poll();` loop only
 * spins (or, with more PEs than CPUs, yields) and never sleeps.
 *
 * gk_test_T evaluates the comparison once: *satisfied_p = 1 or 0.
 * A bad comparison, or `ivar` outside the heap or misaligned, is an error.
 */
#define GK__WAIT_DECLARE(T, ctype)                                             \
    GK_API int gk_wait_until_##T(ctype *ivar, gk_cmp_t cmp, ctype value);      \
    GK_API int gk_test_##T(ctype *ivar, gk_cmp_t cmp, ctype value,             \
                           int *satisfied_p);

GK__WAIT_DECLARE(i32, int32_t)
GK__WAIT_DECLARE(u32, uint32_t)
GK__WAIT_DECLARE(i64, int64_t)
GK__WAIT_DECLARE(u64, uint64_t)
#undef GK__WAIT_DECLARE

/*
 * Waits on arrays of words (OpenSHMEM 1.5's wait_until_all/any/some and
 * test_all/any/some), for the same types: `ivars` is an array of `n` local
 * symmetric words (aligned, all inside this PE's heap; any pointer when n is
 * 0). `status` may be NULL; where it is not, a nonzero status[i] leaves
 * ivars[i] out. Each word is compared as gk_wait_until_T() does, and the
 * waits back off the same way (spin, yield, then sleep until a peer writes
 * to this PE), serving active messages meanwhile.
 *
 *   gk_wait_until_all_T   returns once every word left in has been seen
 *                         satisfying the comparison (each is waited for in
 *                         turn: a word that changes back afterwards is not
 *                         looked at again). None left in: returns at once.
 *   gk_wait_until_any_T   returns once some word left in satisfies it;
 *                         *index_p is the index of one that does (the
 *                         lowest at the look that found it). None left in:
 *                         returns at once with *index_p = SIZE_MAX.
 *   gk_wait_until_some_T  returns once at least one word left in satisfies
 *                         it; indices[0 .. *count_p) are the indices of
 *                         all that did at that look, in increasing order
 *                         (`indices` has room for n). None left in: returns
 *                         at once with *count_p = 0.
 *   gk_test_all_T         *satisfied_p = 1 if every word left in satisfies
 *                         it now (1 when none is left in), else 0.
 *   gk_test_any_T         *index_p = the lowest index satisfied now, or
 *                         SIZE_MAX when none is.
 *   gk_test_some_T        indices and *count_p as wait_until_some, with
 *                         *count_p = 0 when none is satisfied now.
 *
 * Output parameters may not be NULL (`indices` may be when n is 0). A bad
 * comparison, a NULL output, or words outside the heap or misaligned is an
 * error with a message.
 */
#define GK__WAIT_ARRAY_DECLARE(T, ctype)                                       \
    GK_API int gk_wait_until_all_##T(ctype *ivars, size_t n, const int *status, \
                                     gk_cmp_t cmp, ctype value);               \
    GK_API int gk_wait_until_any_##T(ctype *ivars, size_t n, const int *status, \
                                     gk_cmp_t cmp, ctype value, size_t *index_p); \
    GK_API int gk_wait_until_some_##T(ctype *ivars, size_t n, const int *status, \
                                      gk_cmp_t cmp, ctype value, size_t *indices, \
                                      size_t *count_p);                        \
    GK_API int gk_test_all_##T(ctype *ivars, size_t n, const int *status,       \
                               gk_cmp_t cmp, ctype value, int *satisfied_p);   \
    GK_API int gk_test_any_##T(ctype *ivars, size_t n, const int *status,       \
                               gk_cmp_t cmp, ctype value, size_t *index_p);    \
    GK_API int gk_test_some_##T(ctype *ivars, size_t n, const int *status,      \
                                gk_cmp_t cmp, ctype value, size_t *indices,    \
                                size_t *count_p);

GK__WAIT_ARRAY_DECLARE(i32, int32_t)
GK__WAIT_ARRAY_DECLARE(u32, uint32_t)
GK__WAIT_ARRAY_DECLARE(i64, int64_t)
GK__WAIT_ARRAY_DECLARE(u64, uint64_t)
#undef GK__WAIT_ARRAY_DECLARE

/**
 * Wall-clock time in seconds since an unspecified point in the past, from
 * the monotonic clock (CLOCK_MONOTONIC: never jumps back, not affected by
 * changes of the system date). Resolution: that of the clock, one
 * nanosecond on Linux, well below a microsecond in the double for any
 * realistic uptime. Not synchronised across PEs: compare differences of
 * one PE's readings, not readings of different PEs (on one node they share
 * the clock, but nothing promises that across nodes). Callable at any time,
 * before gk_init() too; thread-safe.
 */
GK_API double gk_wtime(void);

/**
 * Barrier across all PEs: returns after every PE has entered it. It also
 * completes this PE's outstanding operations (as gk_quiet()), so data put
 * before the barrier is visible everywhere after it. It is the world
 * team's barrier (gk_team_barrier(GK_TEAM_WORLD)): ceil(log2(npes)) rounds
 * of one message each, or, across hosts, rounds within each host and
 * between one leader per host. PEs that are not all in gk_barrier, as the
 * same collective call, get GK_ERR_COLL_MISMATCH (see the conventions at
 * the top).
 */
GK_API int gk_barrier(void);

/* ------------------------------------------------------------------------ */
/* Semaphores and the signaling put                                          */
/* ------------------------------------------------------------------------ */

/*
 * A semaphore lives in the memory of the PE that allocates it (its owner).
 * Only the owner consumes (wait, try); any PE posts to it, alone
 * (gk_sem_post) or coupled with a put (gk_put_sem): the consumer wakes
 * exactly when the data has arrived, with no barrier and no separate flag.
 *
 * gk_sem_t is a plain value: store it in symmetric memory, put it to another
 * PE, compare it. GK_SEM_NULL names no semaphore.
 *
 * A handle names one semaphore, never a later one: it carries the
 * generation of its memory cell, bumped at every free, and every call
 * checks it where it reads the semaphore (on the owner, for a post from
 * another PE or a signaling put too). A handle used after its semaphore
 * was freed, even when a new semaphore now sits in the same cell, gets
 * GK_ERR_INVALID_ARG with a message naming the handle and both generations
 * ("semaphore 0x... on PE 1 is stale: freed (generation 3, now 4)"), and
 * the new semaphore is left alone; so does a second free. A collective
 * semaphore's handle is recognised as stale unless its block has been
 * reallocated by a multiple of 64 gk_sem_alloc_all() calls since. A post
 * that races the free of its semaphore (a program error in itself) is
 * not guaranteed to be caught.
 *
 * Flags (combine one of each pair; the first of each pair is the default
 * where neither is given):
 *   GK_SEM_INTEGER / GK_SEM_BOOLEAN: a counter up to GK_SEM_VALUE_MAX, or a
 *     flag that saturates at 1 (posting to a set boolean semaphore is a
 *     no-op; waitN and tryN need N == 1).
 *   GK_SEM_MULTI_PRODUCER / GK_SEM_SINGLE_PRODUCER: a promise that one PE
 *     posts at a time.
 *   GK_SEM_MULTI_CONSUMER / GK_SEM_SINGLE_CONSUMER: a promise that one
 *     thread consumes at a time; the wait side then needs no atomic loop.
 * Both flags of a pair, or an unknown bit, is GK_ERR_INVALID_ARG.
 */
typedef struct gk_sem {
    uint64_t bits;
} gk_sem_t;

#define GK_SEM_NULL ((gk_sem_t){0})
#define GK_SEM_INTEGER 0x01u
#define GK_SEM_BOOLEAN 0x02u
#define GK_SEM_SINGLE_PRODUCER 0x04u
#define GK_SEM_MULTI_PRODUCER 0x08u
#define GK_SEM_SINGLE_CONSUMER 0x10u
#define GK_SEM_MULTI_CONSUMER 0x20u
/** The largest value of an INTEGER semaphore; a post past it fails. */
#define GK_SEM_VALUE_MAX ((uint64_t)0x7fffffff)

/**
 * Allocates a semaphore owned by the calling PE, value 0. Not collective.
 * Each PE may own up to 512 such semaphores at once (GK_ERR_NOMEM beyond).
 */
GK_API int gk_sem_alloc(unsigned flags, gk_sem_t *sem_p);
/** Frees a semaphore from gk_sem_alloc(); only its owner may. The handle
 * is stale from then on (a second free is GK_ERR_INVALID_ARG). */
GK_API int gk_sem_free(gk_sem_t sem);

/**
 * Collective: every PE gets its own semaphore (value 0), all at the same
 * symmetric address; *sem_p names the caller's. gk_sem_on() names another
 * PE's. Freed collectively with gk_sem_free_all(). Uses 64 bytes of heap.
 */
GK_API int gk_sem_alloc_all(unsigned flags, gk_sem_t *sem_p);
GK_API int gk_sem_free_all(gk_sem_t sem);
/** The handle of PE `pe`'s member of a collectively allocated semaphore. */
GK_API int gk_sem_on(gk_sem_t sem, int pe, gk_sem_t *peer_sem_p);
/** *pe_p = the PE that owns the semaphore. GK_ERR_INVALID_ARG, with a
 * message, for an invalid or stale handle. */
GK_API int gk_sem_owner(gk_sem_t sem, int *pe_p);

/*
 * Consumer side, owner only (else GK_ERR_INVALID_ARG). wait blocks until the
 * value is at least n and takes n; try takes n if available and sets
 * *taken_p to 1, else sets it to 0 and returns at once. Each acts as a
 * fence: the data of every signaling put whose signal was taken is visible
 * afterwards. Waits back off like gk_wait_until_u64().
 */
GK_API int gk_sem_wait(gk_sem_t sem);
GK_API int gk_sem_try_wait(gk_sem_t sem, int *taken_p);
GK_API int gk_sem_wait_n(gk_sem_t sem, uint64_t n);
GK_API int gk_sem_try_wait_n(gk_sem_t sem, uint64_t n, int *taken_p);
/** The current value (a snapshot), on any PE. */
GK_API int gk_sem_value(gk_sem_t sem, uint64_t *value_p);

/**
 * Adds n (>= 1) to the semaphore on its owner, from any PE, with no data.
 * Past GK_SEM_VALUE_MAX on an INTEGER semaphore: GK_ERR_RANGE, value
 * unchanged.
 */
GK_API int gk_sem_post(gk_sem_t sem);
GK_API int gk_sem_post_n(gk_sem_t sem, uint64_t n);

/**
 * The signaling put: copies nbytes from src to the symmetric address dst on
 * PE pe, then adds n to `sem` once the payload is visible there. `sem` must
 * be owned by `pe` (else GK_ERR_INVALID_ARG). Returns when src may be
 * reused; never waits for the target. On PEs of this node it is one copy and
 * one atomic with release ordering; the consumer is woken only if it sleeps.
 * The _nbi form returns at once (gk_quiet() completes it, and src must not
 * change before); the _nb form returns a handle for gk_handle_wait()/gk_handle_test().
 */
GK_API int gk_put_sem(int pe, void *dst, const void *src, size_t nbytes,
                      gk_sem_t sem, uint64_t n);
GK_API int gk_put_sem_nbi(int pe, void *dst, const void *src, size_t nbytes,
                          gk_sem_t sem, uint64_t n);
GK_API int gk_put_sem_nb(int pe, void *dst, const void *src, size_t nbytes,
                         gk_sem_t sem, uint64_t n, gk_handle_t *handle_p);

/* ------------------------------------------------------------------------ */
/* OpenSHMEM-style signals                                                   */
/* ------------------------------------------------------------------------ */

/* How a put updates the signal word. */
typedef enum gk_signal_op {
    GK_SIGNAL_SET = 0,
    GK_SIGNAL_ADD = 1
} gk_signal_op_t;

/**
 * Copies nbytes to dst on pe, then updates the 64-bit symmetric signal word
 * sig_addr on pe (sig_op GK_SIGNAL_SET: = signal; GK_SIGNAL_ADD: += signal)
 * once the payload is visible there. Completion as gk_put(); the _nbi form
 * as gk_put_nbi(). Unlike a semaphore, waiting does not consume the signal.
 */
GK_API int gk_put_signal(int pe, void *dst, const void *src, size_t nbytes,
                         uint64_t *sig_addr, uint64_t signal, gk_signal_op_t sig_op);
GK_API int gk_put_signal_nbi(int pe, void *dst, const void *src,
                             size_t nbytes, uint64_t *sig_addr,
                             uint64_t signal, gk_signal_op_t sig_op);
/** Reads the local signal word (acquire: data signalled is visible). */
GK_API int gk_signal_fetch(const uint64_t *sig_addr, uint64_t *value_p);
/**
 * Waits until the local signal word compares true against value, and
 * returns the value that satisfied it in *value_p (may be NULL).
 */
GK_API int gk_signal_wait_until(uint64_t *sig_addr, gk_cmp_t cmp, uint64_t value,
                                uint64_t *value_p);

/* ------------------------------------------------------------------------ */
/* Collectives over all PEs                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Element types of the reductions and the window accumulates. The C type of
 * each: INT8 .. UINT64 the <stdint.h> types, FLOAT float, DOUBLE double,
 * LONG_DOUBLE long double (16 bytes on x86-64). The pair types are the
 * structs below, MPI's MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
 * MPI_2INT and MPI_LONG_DOUBLE_INT, for GK_OP_MINLOC and GK_OP_MAXLOC only.
 * The window accumulates take INT32, UINT32, INT64, UINT64, FLOAT and
 * DOUBLE; the other types are GK_ERR_INVALID_ARG there.
 */
typedef enum gk_dtype {
    GK_DTYPE_INT32 = 0,
    GK_DTYPE_INT64 = 1,
    GK_DTYPE_FLOAT = 2,
    GK_DTYPE_DOUBLE = 3,
    GK_DTYPE_UINT64 = 4,
    GK_DTYPE_INT8 = 5,
    GK_DTYPE_INT16 = 6,
    GK_DTYPE_UINT8 = 7,
    GK_DTYPE_UINT16 = 8,
    GK_DTYPE_UINT32 = 9,
    GK_DTYPE_LONG_DOUBLE = 10,
    GK_DTYPE_FLOAT_INT = 11,      /* gk_float_int_t */
    GK_DTYPE_DOUBLE_INT = 12,     /* gk_double_int_t */
    GK_DTYPE_LONG_INT = 13,       /* gk_long_int_t */
    GK_DTYPE_2INT = 14,           /* gk_2int_t */
    GK_DTYPE_LONG_DOUBLE_INT = 15 /* gk_long_double_int_t */
} gk_dtype_t;

/* The value-index pairs of GK_OP_MINLOC and GK_OP_MAXLOC (C layout, padding
 * included: an array of them is what the reduction reads and writes). */
typedef struct gk_float_int {
    float value;
    int index;
} gk_float_int_t;
typedef struct gk_double_int {
    double value;
    int index;
} gk_double_int_t;
typedef struct gk_long_int {
    long value;
    int index;
} gk_long_int_t;
typedef struct gk_2int {
    int value;
    int index;
} gk_2int_t;
typedef struct gk_long_double_int {
    long double value;
    int index;
} gk_long_double_int_t;

/*
 * Operations. gk_allreduce() and gk_reduce() take SUM, MIN, MAX and PROD on
 * every non-pair type, BAND, BOR and BXOR on the integer types, and MINLOC
 * and MAXLOC on the pair types only (and the pair types with nothing
 * else). MINLOC/MAXLOC keep the smaller/larger value with its index; on a
 * tie in value, the smaller index (MPI's rule). The window accumulates take
 * SUM .. NO_OP as documented there.
 */
typedef enum gk_op {
    GK_OP_SUM = 0,
    GK_OP_MIN = 1,
    GK_OP_MAX = 2,
    GK_OP_PROD = 3,
    GK_OP_REPLACE = 4, /* window accumulates only */
    GK_OP_BAND = 5,    /* bitwise: integer types only */
    GK_OP_BOR = 6,
    GK_OP_BXOR = 7,
    GK_OP_NO_OP = 8,   /* get-accumulate and fetch-and-op: fetch only */
    GK_OP_MINLOC = 9,  /* reductions of pair types only */
    GK_OP_MAXLOC = 10
} gk_op_t;

/**
 * Broadcast: copies nbytes from `src` on PE `root` into `dst` on every PE
 * (the root included). Collective; src and dst are any local memory (they
 * need not be symmetric) and may be the same buffer. It is the world
 * team's broadcast (gk_team_broadcast(GK_TEAM_WORLD, ...)): up to 8 KiB
 * the data travels in the call's agreement rounds, above that down a
 * pipelined binomial tree in 8 KiB chunks. Every call checks that the PEs
 * passed the same root, nbytes and radix: a disagreement, or one PE's bad
 * argument, is an error with a message on every PE (the root too: it
 * waits for the agreement rounds like every PE).
 */
GK_API int gk_broadcast(void *dst, const void *src, size_t nbytes, int root);
/** gk_broadcast() with a radix (2 to 64), checked and agreed on like the
 * other arguments; the tree is binomial whatever its value. */
GK_API int gk_broadcast_radix(void *dst, const void *src, size_t nbytes, int root,
                              int radix);

/**
 * All-reduce: combines `count` elements of `src` from every PE with `op`
 * and leaves the result in `dst` on every PE. Collective; any local
 * buffers, src == dst allowed. dtype and op: any pair gk_op_t allows (an
 * invalid pair is GK_ERR_INVALID_ARG with a message naming both).
 * The world team's all-reduce (gk_team_allreduce(GK_TEAM_WORLD, ...)):
 * small vectors are gathered in the call's agreement rounds and combined
 * in PE order, large ones go round a ring (reduce-scatter, then
 * all-gather); either way every element is combined once, in one order,
 * so floating-point results are bitwise identical on all PEs. Integer arithmetic wraps. The PEs check that they
 * agree on count, dtype and op as they exchange the first piece: if they
 * do not, or one PE's arguments fail their checks, every PE returns
 * GK_ERR_INVALID_ARG with a message and `dst` is unspecified.
 */
GK_API int gk_allreduce(void *dst, const void *src, size_t count, gk_dtype_t dtype,
                        gk_op_t op);

/**
 * Reduce: as gk_allreduce(), but the result lands in `dst` on PE `root`
 * only; on the other PEs `dst` is not written and may be NULL. Collective;
 * any local buffers, src == dst allowed on the root. Every PE combines in
 * the same order (it is the all-reduce's algorithm), so the root's result
 * is the one gk_allreduce() would give, bit for bit. The PEs check that they
 * agree on count, dtype, op and root as gk_allreduce() does; a root that is
 * not a PE is GK_ERR_PE on the PEs that passed it (GK_ERR_INVALID_ARG,
 * "another PE", on the others).
 */
GK_API int gk_reduce(void *dst, const void *src, size_t count, gk_dtype_t dtype,
                     gk_op_t op, int root);

/**
 * Collect (all-gather, OpenSHMEM's fcollect): every PE contributes `nbytes`
 * from `src`; `dst` on every PE receives gk_n_pes() * nbytes bytes, PE j's
 * block at dst + j * nbytes. Collective; any local buffers. `src` and `dst`
 * must not overlap, except that `src` may be this PE's own block of `dst`
 * (dst + gk_my_pe() * nbytes: in place). It is the world team's fcollect
 * (gk_team_fcollect(GK_TEAM_WORLD, ...)): Bruck's all-gather in the call's
 * agreement rounds for blocks up to 2 KiB, a ring above. The PEs check, in
 * those rounds, that they all passed the same nbytes and that no PE's
 * arguments failed: otherwise every PE returns an error with a message and
 * nothing is delivered (GK_ERR_INVALID_ARG, or the failing PE's own code).
 */
GK_API int gk_collect(void *dst, const void *src, size_t nbytes);

/**
 * All-to-all: block i (nbytes at src + i * nbytes) of `src` on every PE
 * goes to PE i, where it lands as block j of `dst` (dst + j * nbytes), j
 * being the sender. Collective; any local buffers of gk_n_pes() * nbytes
 * bytes each, which must not overlap. The world team's all-to-all
 * (gk_team_alltoall(GK_TEAM_WORLD, ...)): pairwise exchange (round r: PE p
 * sends to p + r, receives from p - r), or Bruck's log2(n) rounds for
 * blocks up to 256 bytes and jobs over 16 PEs. Arguments are agreed on as
 * in gk_collect().
 */
GK_API int gk_alltoall(void *dst, const void *src, size_t nbytes);

/* ------------------------------------------------------------------------ */
/* Teams and their collectives                                               */
/* ------------------------------------------------------------------------ */

/*
 * A team is an ordered set of PEs that run collectives together. Inside a
 * team PEs are numbered 0 .. gk_team_n_pes(team) - 1 in the order of the
 * team's definition; gk_team_translate_pe() converts numbers between teams.
 *
 * Predefined teams, valid from gk_init() to gk_finalize():
 *   GK_TEAM_WORLD  every PE, numbered as gk_my_pe();
 *   GK_TEAM_NODE   the PEs of this host (those whose memory this PE maps),
 *                  in world order; a PE whose host peers are reached through
 *                  the network (GK_NET_INDIRECT=1) is alone in its team.
 * New teams are split from a parent by every PE of the parent, collectively
 * and in the same order: strided (OpenSHMEM's shmem_team_split_strided),
 * 2-D (shmem_team_split_2d), and by colour and key (MPI_Comm_split's
 * semantics: PEs that pass the same colour form a team ordered by key, ties
 * by their number in the parent; GK_TEAM_UNDEFINED joins none). A team
 * takes one of GK_TEAM_MAX (32) slots (the predefined ones take two), the same
 * slot on every member: a split takes the lowest slot free on every PE of
 * the parent (a 2-D split two), and returns GK_ERR_NOMEM on every PE of the
 * parent when there is none, which can happen before any one PE holds
 * GK_TEAM_MAX teams when the parent's PEs hold different teams. A split
 * writes its outputs only when it succeeds (GK_TEAM_INVALID on a PE that
 * is in no new team). gk_team_destroy() is collective over the team.
 *
 * Collectives on a team are called by all of its PEs in the same order
 * (teams are independent of each other: two teams' collectives may be
 * interleaved differently on different PEs). Every collective checks, on
 * every call and at no extra message, that the team's PEs are in the same
 * call with the same root, size, type and operation: a PE that disagrees,
 * or whose own arguments fail their checks, makes every PE of the team
 * return an error with a message (GK_ERR_INVALID_ARG naming the argument
 * and its range; GK_ERR_COLL_MISMATCH naming both calls, after which every
 * later collective on that team fails at once). Two PEs that wait for
 * each other in two teams' collectives, each in a call the other has not
 * made, get GK_ERR_COLL_MISMATCH with a message after about 0.3 s, and
 * both teams' collectives fail from then on (docs/COLLECTIVES.md). Buffers
 * are any local memory; dst before src, as everywhere in gasket.
 *
 * Each collective has a non-blocking form, _nb, that returns a handle for
 * gk_handle_wait()/gk_handle_test(). Several may be in flight on one team;
 * they run in the order they were started, and a blocking collective on
 * the team waits for them first. They progress whenever this PE is inside
 * gasket (any wait, gk_poll(), gk_handle_test()). The buffers belong to the
 * collective until its handle completes. gk_quiet() does not complete them.
 *
 * Algorithms are chosen by size, PE count and host count and are the same
 * on every PE; docs/COLLECTIVES.md lists them, their switch points and the
 * environment variables that force one (GK_TEAM_ALGO_<OP>=name).
 */
typedef struct gk_team *gk_team_t;

#define GK_TEAM_INVALID ((gk_team_t)0)
#define GK_TEAM_WORLD ((gk_team_t)1)
#define GK_TEAM_NODE ((gk_team_t)2)
/** The colour of a PE that joins no team in gk_team_split(). */
#define GK_TEAM_UNDEFINED (-1)
/** The most teams that exist at once on a PE, predefined ones included. */
#define GK_TEAM_MAX 32

/** The team's PE count and this PE's number in it; -1 for an invalid team
 * or one this PE is not in. */
GK_API int gk_team_n_pes(gk_team_t team);
GK_API int gk_team_my_pe(gk_team_t team);
/** PE `pe` of team `from` as numbered in team `to`; -1 when it is not in
 * `to` (or either team is invalid, or pe is out of range). */
GK_API int gk_team_translate_pe(gk_team_t from, int pe, gk_team_t to);

/**
 * The PEs start, start + stride, ... (size of them) of `parent` form a new
 * team. Collective over the parent; every parent PE passes the same
 * arguments. A PE not in the new team gets GK_TEAM_INVALID. stride may be
 * negative (not 0); start and every member must be PEs of the parent.
 */
GK_API int gk_team_split_strided(gk_team_t parent, int start, int stride, int size,
                                 gk_team_t *team_p);
/**
 * Splits `parent` into a 2-D grid of xrange columns: PE i of the parent is
 * at x = i % xrange, y = i / xrange; *xteam_p gets the team of its row (the
 * PEs with its y, ordered by x), *yteam_p the team of its column. Collective
 * over the parent.
 */
GK_API int gk_team_split_2d(gk_team_t parent, int xrange, gk_team_t *xteam_p,
                            gk_team_t *yteam_p);
/**
 * MPI_Comm_split: PEs of `parent` that pass the same colour (>= 0) form a
 * team, ordered by key, then by number in the parent; colour
 * GK_TEAM_UNDEFINED gives GK_TEAM_INVALID. Collective over the parent.
 */
GK_API int gk_team_split(gk_team_t parent, int color, int key, gk_team_t *team_p);
/** A context (gk_ctx_create()) whose calls number PEs as `team` does: PE i
 * of a gk_ctx_* call is team PE i. Not collective; the context may outlive
 * the team, keeping its numbering. */
typedef struct gk_ctx gk_ctx_t;
GK_API int gk_team_ctx_create(gk_team_t team, unsigned options, gk_ctx_t **ctx_p);
/** Destroys a split team (collective over it; its non-blocking collectives
 * complete first, and their handles stay valid) and sets *team_p to
 * GK_TEAM_INVALID. The predefined
 * teams cannot be destroyed (GK_ERR_INVALID_ARG), nor can a team that
 * still holds blocks from gk_team_malloc(): GK_ERR_INVALID_ARG on every
 * member, and the team is left as it was; free them with gk_team_free()
 * first. */
GK_API int gk_team_destroy(gk_team_t *team_p);

/*
 * Symmetric memory of a team (MPI_Win_allocate on a communicator): the
 * heap calls of gk_malloc(), collective over the team's PEs only. PEs
 * outside the team make no call. The block lies at the same offset of the
 * symmetric heap on every member, so its address is a symmetric address
 * for puts, gets and atomics among the members (world PE numbers, or team
 * numbers through a context from gk_team_ctx_create()); to other PEs it
 * names nothing of theirs.
 *
 * Every member calls in the same order with the same arguments, in the
 * team's order of collectives. The call ends as the team's collectives do:
 * the block may be accessed by any member once the call returns on this
 * PE, and gk_team_free() waits for every member to enter it before the
 * range may be reused. The checks are the team collectives': different
 * arguments on different members, a bad argument on one, or an exhausted
 * heap make the call fail on every member, with a message on each naming
 * the call and the values (NULL, or an error code for gk_team_free(), and
 * nothing allocated or freed anywhere); a member in another collective of
 * the team gets GK_ERR_COLL_MISMATCH naming both calls, on every member,
 * after which the team's collectives fail for good (see "Collectives on
 * a team" above). A size of 0 is an error. On GK_TEAM_WORLD these are
 * gk_malloc(), gk_calloc(), gk_align() and gk_free().
 *
 * Team blocks change the heaps of their members only, so the PEs' heaps
 * differ from then on: every allocation, a team's or gk_malloc(), finds an
 * offset free on all of its PEs by agreement. While the PEs' heaps are the
 * same (no team blocks, or every PE holds the same ones) that costs
 * nothing extra; otherwise a few more rounds of all-reduce. A request that
 * fits on each PE but at no offset free on all of them fails (NULL, on
 * every PE, with a message), as an exhausted heap does.
 *
 * A team with live blocks cannot be destroyed (gk_team_destroy()); a team
 * block cannot be freed with gk_free() or resized with gk_realloc(), nor a
 * block of gk_malloc() freed with gk_team_free() on a split team
 * (GK_ERR_INVALID_ARG on every PE of the call, nothing freed).
 */
/** A block of size bytes on every member of `team`, or NULL (logged). */
GK_API void *gk_team_malloc(gk_team_t team, size_t size);
/** As gk_team_malloc(), zero-filled; count * size must not overflow. */
GK_API void *gk_team_calloc(gk_team_t team, size_t count, size_t size);
/** As gk_team_malloc(), aligned to `alignment` (as gk_align()). */
GK_API void *gk_team_align(gk_team_t team, size_t alignment, size_t size);
/**
 * Frees a block of gk_team_malloc() (and friends) on `team`; collective
 * over the team, every member passing the same block, or NULL (which
 * frees nothing). GK_OK, GK_ERR_INVALID_ARG for a pointer that is no
 * block of this team (on every member), GK_ERR_COLL_MISMATCH as above.
 */
GK_API int gk_team_free(gk_team_t team, void *ptr);

/** Barrier over the team; completes this PE's outstanding operations first
 * (as gk_quiet()), so data put before it is visible after it. */
GK_API int gk_team_barrier(gk_team_t team);
/** nbytes from src on team PE root to dst on every team PE. */
GK_API int gk_team_broadcast(gk_team_t team, void *dst, const void *src, size_t nbytes,
                             int root);
/** As gk_allreduce(), over the team. Every PE gets the same bits. */
GK_API int gk_team_allreduce(gk_team_t team, void *dst, const void *src, size_t count,
                             gk_dtype_t dtype, gk_op_t op);
/** As gk_allreduce(); only team PE root writes dst (NULL elsewhere). */
GK_API int gk_team_reduce(gk_team_t team, void *dst, const void *src, size_t count,
                          gk_dtype_t dtype, gk_op_t op, int root);
/** Reduce-scatter: combines count * n elements of src from every PE (n the
 * team's size); team PE i gets block i (count elements) in dst. */
GK_API int gk_team_reduce_scatter(gk_team_t team, void *dst, const void *src, size_t count,
                                  gk_dtype_t dtype, gk_op_t op);
/** Inclusive scan: dst on team PE i = src of PEs 0 .. i combined in order. */
GK_API int gk_team_scan(gk_team_t team, void *dst, const void *src, size_t count,
                        gk_dtype_t dtype, gk_op_t op);
/** Exclusive scan: PEs 0 .. i-1; dst on PE 0 is not written. */
GK_API int gk_team_exscan(gk_team_t team, void *dst, const void *src, size_t count,
                          gk_dtype_t dtype, gk_op_t op);
/** Fixed-size collect (all-gather): nbytes from each PE, PE j's block at
 * dst + j * nbytes; src may be this PE's own block of dst. */
GK_API int gk_team_fcollect(gk_team_t team, void *dst, const void *src, size_t nbytes);
/** Variable-size collect: each PE contributes nbytes (which may differ);
 * dst gets the blocks concatenated in team order. dst_size is this PE's
 * room; *total_p (may be NULL) gets the total. Too little room on any PE
 * is GK_ERR_INVALID_ARG on every PE, and nothing is written. */
GK_API int gk_team_collect(gk_team_t team, void *dst, size_t dst_size, const void *src,
                           size_t nbytes, size_t *total_p);
/** All-to-all over the team: block i of src goes to team PE i, where it
 * lands as block j of dst, j the sender. */
GK_API int gk_team_alltoall(gk_team_t team, void *dst, const void *src, size_t nbytes);
/** Strided all-to-all (shmem_alltoalls): nelems elements of elem_size bytes
 * per PE, element k of the block for PE i at src + (i * nelems + k) * sst *
 * elem_size, landing at dst + (j * nelems + k) * dst_stride * elem_size.
 * Strides are in elements, at least 1. */
GK_API int gk_team_alltoalls(gk_team_t team, void *dst, const void *src, size_t dst_stride,
                             size_t src_stride, size_t elem_size, size_t nelems);

/*
 * The non-blocking forms: the same arguments, then the handle, which
 * gk_handle_wait(), gk_handle_test() or gk_handle_wait_all() complete (not
 * gk_quiet()). The buffers belong to the call until then. A call moves
 * on while a thread of the PE is inside gasket, and with
 * GK_PROGRESS_THREAD=1 on the progress thread too, with no gasket call.
 */
GK_API int gk_team_barrier_nb(gk_team_t team, gk_handle_t *handle_p);
GK_API int gk_team_broadcast_nb(gk_team_t team, void *dst, const void *src, size_t nbytes,
                                int root, gk_handle_t *handle_p);
GK_API int gk_team_allreduce_nb(gk_team_t team, void *dst, const void *src, size_t count,
                                gk_dtype_t dtype, gk_op_t op, gk_handle_t *handle_p);
GK_API int gk_team_reduce_nb(gk_team_t team, void *dst, const void *src, size_t count,
                             gk_dtype_t dtype, gk_op_t op, int root, gk_handle_t *handle_p);
GK_API int gk_team_reduce_scatter_nb(gk_team_t team, void *dst, const void *src,
                                     size_t count, gk_dtype_t dtype, gk_op_t op,
                                     gk_handle_t *handle_p);
GK_API int gk_team_scan_nb(gk_team_t team, void *dst, const void *src, size_t count,
                           gk_dtype_t dtype, gk_op_t op, gk_handle_t *handle_p);
GK_API int gk_team_exscan_nb(gk_team_t team, void *dst, const void *src, size_t count,
                             gk_dtype_t dtype, gk_op_t op, gk_handle_t *handle_p);
GK_API int gk_team_fcollect_nb(gk_team_t team, void *dst, const void *src, size_t nbytes,
                               gk_handle_t *handle_p);
GK_API int gk_team_collect_nb(gk_team_t team, void *dst, size_t dst_size, const void *src,
                              size_t nbytes, size_t *total_p, gk_handle_t *handle_p);
GK_API int gk_team_alltoall_nb(gk_team_t team, void *dst, const void *src, size_t nbytes,
                               gk_handle_t *handle_p);
GK_API int gk_team_alltoalls_nb(gk_team_t team, void *dst, const void *src,
                                size_t dst_stride, size_t src_stride, size_t elem_size,
                                size_t nelems, gk_handle_t *handle_p);

/* ------------------------------------------------------------------------ */
/* Windows (MPI-3 style) and passive-target locks                            */
/* ------------------------------------------------------------------------ */

/*
 * A window is a range of symmetric memory on every PE, addressed by (target
 * PE, byte displacement). Creation and gk_win_free() are collective. Each
 * PE's part may have its own size; displacements are checked against the
 * target's size and an error names the window, PE, displacement and length.
 *
 * Completion: put, get and the accumulates are complete at the target when
 * gk_win_flush() (or unlock, fence, complete) returns; on PEs of this node
 * they are complete on return already. Accumulates are atomic per element
 * with respect to other accumulates, fetch-and-ops and compare-and-swaps on
 * the same window.
 *
 * Synchronisation: passive target (lock/unlock, lock_all/unlock_all; the
 * target never takes part), or active target (fence; post/start/complete/
 * wait). A window created with GK_WIN_STRICT reports RMA outside any epoch
 * (GK_ERR_EPOCH); by default RMA is allowed at any time, PGAS style.
 *
 * The lock is a FIFO reader/writer lock granted with remote atomics only;
 * waiters spin (then sleep) on their own memory. See src/win/rwlock.c.
 * On a node with more PEs than CPUs, waiters yield instead of spinning,
 * and an unlock that hands the lock to another PE yields the CPU twice per
 * PE sharing it before it returns, so that the PEs queued get their turns
 * (a contended lock then runs in bursts instead of paying a context switch
 * per hand-over).
 */
typedef struct gk_win gk_win_t;

/* Window creation flags. */
#define GK_WIN_STRICT 0x1u /* RMA outside an epoch is GK_ERR_EPOCH */

/* Lock types and assertions. */
typedef enum gk_lock_type {
    GK_LOCK_SHARED = 1,
    GK_LOCK_EXCLUSIVE = 2
} gk_lock_type_t;
#define GK_WIN_NOCHECK 0x1u   /* lock/lock_all/start/post: no conflicting access */
#define GK_WIN_NOPRECEDE 0x2u /* fence: no epoch ends here */
#define GK_WIN_NOSUCCEED 0x4u /* fence: no epoch starts here */

/**
 * Allocates a window of `size` bytes on every PE (sizes may differ) from the
 * symmetric heap; *base_p is this PE's part (zero-filled). Collective.
 * flags: 0 or GK_WIN_STRICT.
 */
GK_API int gk_win_allocate(size_t size, unsigned flags, void **base_p,
                           gk_win_t **win_p);
/**
 * Creates a window over [base, base + size) on every PE; bases and sizes
 * may differ. Collective. A part inside the symmetric heap (gk_malloc(),
 * gk_mem_alloc() with GK_MEM_SHARED) is accessed directly: by its
 * mapping on this node, by the transport's RMA from other hosts. A part
 * anywhere else (malloc, the stack, GK_MEM_PRIVATE) is emulated: other
 * PEs' operations on it travel as active messages that its owner runs
 * from its progress engine, checking each (the layout, the bounds of its
 * part) before touching memory. Every operation works on both kinds;
 * operations on an emulated part move only while its owner is inside a
 * gasket call (a wait, a barrier, gk_poll) or runs the progress thread
 * (GK_PROGRESS_THREAD=1), and complete at the target when they return
 * (the _nbi forms: at flush, unlock, fence or complete; gk_quiet and
 * gk_barrier do not wait for them). NULL with size > 0 is
 * GK_ERR_INVALID_ARG.
 */
GK_API int gk_win_create(void *base, size_t size, unsigned flags, gk_win_t **win_p);
/**
 * Frees a window. Collective; no epoch may be open: if one is open on any
 * PE, every PE returns GK_ERR_EPOCH (each logs why) and the window stays.
 */
GK_API int gk_win_free(gk_win_t *win);
/** This PE's base and size, and another PE's size. */
GK_API void *gk_win_base(const gk_win_t *win);
GK_API size_t gk_win_size(const gk_win_t *win, int pe);

/**
 * Put/get nbytes at byte displacement `disp` of PE pe's part: the put
 * copies from the local `src` to (pe, disp), the get from (pe, disp) to
 * the local `dst`. Destination first, as gk_put() and gk_get().
 */
GK_API int gk_win_put(gk_win_t *win, int pe, size_t disp, const void *src,
                      size_t nbytes);
GK_API int gk_win_get(gk_win_t *win, int pe, void *dst, size_t disp, size_t nbytes);
#ifdef GK__CHECK_ARGS
#define gk_win_get(win, pe, dst, disp, nbytes)                                 \
    gk_win_get(win, pe, dst, GK__INT(disp), nbytes)
#endif
/**
 * target[i] = target[i] op src[i] for `count` elements of `dtype` at `disp`
 * (naturally aligned). op: SUM MIN MAX PROD REPLACE BAND BOR BXOR (bitwise
 * ops on integer types only).
 */
GK_API int gk_win_accumulate(gk_win_t *win, int pe, size_t disp, const void *src,
                             size_t count, gk_dtype_t dtype, gk_op_t op);
/** As accumulate, first fetching the old elements into result (op may be
 * GK_OP_NO_OP: fetch only). */
GK_API int gk_win_get_accumulate(gk_win_t *win, int pe, size_t disp, const void *src,
                                 void *result, size_t count, gk_dtype_t dtype,
                                 gk_op_t op);
/** get_accumulate of one element. */
GK_API int gk_win_fetch_and_op(gk_win_t *win, int pe, size_t disp, const void *operand,
                               void *result, gk_dtype_t dtype, gk_op_t op);
/** *result = old; if old == *compare, target = *desired. Integer types only. */
GK_API int gk_win_compare_and_swap(gk_win_t *win, int pe, size_t disp,
                                   const void *compare, const void *desired,
                                   void *result, gk_dtype_t dtype);

/**
 * Passive target. gk_win_lock() returns when the lock on PE pe's part is
 * held: SHARED with other readers, EXCLUSIVE alone. Writers are granted in
 * the order they asked; a reader that asks after a waiting writer waits for
 * it, so readers cannot starve writers. flags: 0 or GK_WIN_NOCHECK (no lock
 * is taken: the caller promises no conflicting lock). gk_win_unlock()
 * completes this PE's operations to pe, then releases. Locking a target
 * twice in one epoch, unlocking what is not locked, and mixing lock with
 * lock_all are GK_ERR_EPOCH.
 *
 * A PE on another host (reached through the network) is locked lazily, as
 * MPI allows: gk_win_lock() returns at once, and the lock is asked for by
 * the epoch's first window operation on pe, gk_win_flush() of pe, or
 * gk_win_unlock(), which return once it is held (a get or put that fits
 * one remote operation, 64 KiB over UCX, travels with the request: lock +
 * get + unlock costs two round trips instead of three). No window operation of the epoch runs before
 * the lock is held, and an epoch with no operation still takes its turn.
 * Only window operations are covered: a program that needs the lock held
 * at a point of its own (before it signals another PE, or for gk_put()s
 * to the part) calls gk_win_flush(win, pe) there. A PE has at most one
 * such lock pending: asking for any other lock (gk_win_lock,
 * gk_win_try_lock, gk_win_lock_all, gk_lock_set) takes it first, so
 * locks are still taken in the order they were asked for.
 */
GK_API int gk_win_lock(gk_win_t *win, int pe, gk_lock_type_t lock_type, unsigned flags);
/** Takes the lock only if it is free now (for the type): *acquired_p 1 or 0. */
GK_API int gk_win_try_lock(gk_win_t *win, int pe, gk_lock_type_t lock_type,
                           int *acquired_p);
GK_API int gk_win_unlock(gk_win_t *win, int pe);
/** A shared lock on every PE (flags: 0 or GK_WIN_NOCHECK), and its release. */
GK_API int gk_win_lock_all(gk_win_t *win, unsigned flags);
GK_API int gk_win_unlock_all(gk_win_t *win);
/** Completes this PE's operations to pe (at the target), or to every PE;
 * the _local forms complete them at the origin (buffers reusable). */
GK_API int gk_win_flush(gk_win_t *win, int pe);
GK_API int gk_win_flush_all(gk_win_t *win);
GK_API int gk_win_flush_local(gk_win_t *win, int pe);
GK_API int gk_win_flush_local_all(gk_win_t *win);

/**
 * Active target. gk_win_fence() is collective: it completes every PE's
 * operations on the window and separates epochs (flags: NOPRECEDE,
 * NOSUCCEED as hints; NOSUCCEED ends the fence epoch). post/start/complete/
 * wait: `pes` lists PEs (n of them, no repeats). gk_win_post() exposes this
 * PE's part to the listed origins; gk_win_start() begins an access epoch to
 * the listed targets (waiting for their post); gk_win_complete() ends it
 * (operations complete at the targets); gk_win_wait() returns when every
 * origin of the last post has completed, gk_win_test() checks once.
 */
GK_API int gk_win_fence(gk_win_t *win, unsigned flags);
GK_API int gk_win_post(gk_win_t *win, const int *pes, int n, unsigned flags);
GK_API int gk_win_start(gk_win_t *win, const int *pes, int n, unsigned flags);
GK_API int gk_win_complete(gk_win_t *win);
GK_API int gk_win_wait(gk_win_t *win);
GK_API int gk_win_test(gk_win_t *win, int *done_p);

/*
 * A distributed mutex, OpenSHMEM set/test/clear semantics, on the same
 * machinery as the window lock (FIFO, waiters wait on their own memory).
 * gk_lock_t is symmetric: allocate it with gk_calloc() (zero means free)
 * on every PE, and pass the same address everywhere; the lock word lives on
 * PE 0, each PE's own copy is its queue node.
 */
typedef struct gk_lock {
    uint64_t words[24]; /* 192 bytes: the lock word and this PE's queue node */
} gk_lock_t;

/** Blocks until this PE holds the lock; holding it already is an error. */
GK_API int gk_lock_set(gk_lock_t *lock);
/** Takes the lock only if it is free: *acquired_p 1 or 0. */
GK_API int gk_lock_try_set(gk_lock_t *lock, int *acquired_p);
/** Completes this PE's operations (as gk_quiet()), then releases the lock
 * to the next PE in line; clearing a lock this PE does not hold is an error. */
GK_API int gk_lock_clear(gk_lock_t *lock);

/* ------------------------------------------------------------------------ */
/* Active messages                                                          */
/* ------------------------------------------------------------------------ */

/*
 * An active message runs a handler, chosen by index, on the target PE, from
 * the target's progress engine: inside any blocking gasket call there, or
 * gk_poll(); never in a signal handler. Three sizes (the seed
 * unified-runtime-pgas-mpi):
 *   short   up to GK_AM_MAX_ARGS 64-bit arguments, no payload;
 *   medium  the same plus a payload of up to gk_am_max_medium() bytes, which
 *           the handler reads from a buffer valid during its call;
 *   long    the same plus a payload of any size written straight into the
 *           target's symmetric heap at `dst` before the handler runs (the
 *           handler's payload pointer is dst there).
 * A handler may send one reply to the requester with the gk_am_reply_*
 * calls and its token; replies run on the requester, in its progress engine.
 *
 * Handlers are registered at start-up, after gk_init(), with the same
 * index on every PE, before any PE sends to them. A request returns when
 * its buffers may be reused; it does not wait for the handler. Between a
 * pair of PEs, active messages (requests and replies alike) run in the
 * order they were sent.
 *
 * Flow control, and what a handler may do. Outside a handler, a sender
 * whose target's inbox is full waits for room and runs its own inbox
 * meanwhile, and it runs its inbox before each message it sends, so it
 * takes in the replies it is owed. Inside a handler nothing waits: a reply
 * (or a request) to a full inbox is kept by the library and sent, in
 * order, as soon as the target makes room (by this PE's next progress:
 * any gasket call that waits, gk_poll(), or the progress thread). So PEs
 * that flood each other, or themselves, with requests whose handlers
 * reply never deadlock, at any volume and PE count. The memory kept is
 * bounded: a request to a PE that holds more than a few hundred such
 * messages waits, running the sender's own inbox, until that PE has sent
 * most of them. So a PE that computes for long without calling gasket may
 * hold up those that flood it, or flood a PE that sends to it; a PE that
 * holds messages still sleeps in its waits.
 * A handler may: reply once (request handlers only); send requests;
 * put, get and use atomics; read its payload (medium: valid only during
 * the call). It must not block, as what it waits for may need this PE's
 * progress, which it is running: gk_wait_until_* and gk_sem_wait whose
 * condition does not hold yet, gk_recv, gk_probe, gk_request_wait of an
 * incomplete request, a rendezvous-sized gk_send to another PE,
 * collectives, gk_finalize, and a window or gk_lock_t lock that is taken
 * (a free one is granted at once) return GK_ERR_UNSUPPORTED with a
 * message. It runs with no other handler of this PE running, and never
 * inside a signal handler.
 */
#define GK_AM_MAX_ARGS 16
#define GK_AM_MAX_HANDLERS 256

typedef struct gk_am_token gk_am_token_t;

typedef void (*gk_am_handler_t)(gk_am_token_t *token, void *payload, size_t nbytes,
                                const uint64_t *args, int nargs);

/** Registers `handler` at `index` (0 .. GK_AM_MAX_HANDLERS-1) on this PE. */
GK_API int gk_am_register(int index, gk_am_handler_t handler);
/** The largest medium payload, in bytes. */
GK_API size_t gk_am_max_medium(void);

GK_API int gk_am_request_short(int pe, int handler, const uint64_t *args, int nargs);
GK_API int gk_am_request_medium(int pe, int handler, const void *payload, size_t nbytes,
                                const uint64_t *args, int nargs);
/** The payload (nbytes at `payload`) lands at the symmetric address `dst`
 * on pe, then the handler runs there. */
GK_API int gk_am_request_long(int pe, int handler, void *dst, const void *payload,
                              size_t nbytes, const uint64_t *args, int nargs);
#ifdef GK__CHECK_ARGS
#define gk_am_request_long(pe, handler, dst, payload, nbytes, args, nargs)       \
    gk_am_request_long(pe, handler, dst, payload, GK__INT(nbytes), args, nargs)
#endif
/** Replies, from inside a request handler only, at most once per request. */
GK_API int gk_am_reply_short(gk_am_token_t *token, int handler, const uint64_t *args,
                             int nargs);
GK_API int gk_am_reply_medium(gk_am_token_t *token, int handler, const void *payload,
                              size_t nbytes, const uint64_t *args, int nargs);
GK_API int gk_am_reply_long(gk_am_token_t *token, int handler, void *dst,
                            const void *payload, size_t nbytes, const uint64_t *args,
                            int nargs);
#ifdef GK__CHECK_ARGS
#define gk_am_reply_long(token, handler, dst, payload, nbytes, args, nargs)      \
    gk_am_reply_long(token, handler, dst, payload, GK__INT(nbytes), args, nargs)
#endif
/** The PE that sent the message a handler is running for. */
GK_API int gk_am_token_pe(const gk_am_token_t *token);

/**
 * Runs the progress engine once: handlers of arrived active messages,
 * two-sided matching and rendezvous. Never blocks. When nothing was ready
 * on a node with more PEs than CPUs, or with the progress thread, it
 * yields the CPU, so a poll loop does not starve the PE that must answer.
 * To wait for a word a handler sets, gk_wait_until_*() is better still.
 */
GK_API int gk_poll(void);

/* ------------------------------------------------------------------------ */
/* Two-sided messages                                                       */
/* ------------------------------------------------------------------------ */

/*
 * Tagged sends and receives matched by (source PE, tag), with wildcards,
 * in MPI's non-overtaking order between a pair of PEs. Messages up to
 * gk_msg_eager_limit() bytes are copied eagerly; larger ones use a
 * rendezvous in which the receiver copies the data straight from the
 * sender's buffer (one copy), which needs nothing of the sender. The
 * exception: from a PE on another node, a large message whose buffer lies
 * outside the symmetric heap travels in pieces that the sender's progress
 * engine sends, so its receive also waits for the sender's progress (any
 * blocking call or gk_poll() there, or its progress thread); send from the
 * symmetric heap where that matters (docs/PROGRESS.md). A message longer
 * than the receive buffer completes the receive with GK_ERR_TRUNCATE in its
 * status (the buffer holds the first `capacity` bytes). Receives need the
 * receiver's progress (any blocking call or gk_poll()); one-sided
 * operations never do.
 */
#define GK_ANY_SOURCE (-1)
#define GK_ANY_TAG (-1)

typedef struct gk_msg_status {
    int source;    /* the sender */
    int tag;       /* the message's tag */
    size_t nbytes; /* the message's length (may exceed what was received) */
    int error;     /* GK_OK or GK_ERR_TRUNCATE */
} gk_msg_status_t;

typedef struct gk_request gk_request_t;

GK_API size_t gk_msg_eager_limit(void);
/** Blocking send: returns when buf may be reused. tag >= 0. */
GK_API int gk_send(int pe, int tag, const void *buf, size_t nbytes);
/** Blocking receive of at most `capacity` bytes; status_p may be NULL. */
GK_API int gk_recv(int source, int tag, void *buf, size_t capacity,
                   gk_msg_status_t *status_p);
GK_API int gk_isend(int pe, int tag, const void *buf, size_t nbytes,
                    gk_request_t **request_p);
GK_API int gk_irecv(int source, int tag, void *buf, size_t capacity,
                    gk_request_t **request_p);
/** Completes and frees *request (set to NULL); status_p may be NULL. The
 * return value is the request's error (GK_ERR_TRUNCATE for a truncated
 * receive). */
GK_API int gk_request_wait(gk_request_t **request, gk_msg_status_t *status_p);
/** *done_p 1 (completed and freed as gk_request_wait) or 0. */
GK_API int gk_request_test(gk_request_t **request, int *done_p,
                           gk_msg_status_t *status_p);
/** Waits for all; statuses may be NULL; returns the first error. */
GK_API int gk_request_wait_all(gk_request_t **requests, size_t count,
                               gk_msg_status_t *statuses);
#ifdef GK__CHECK_ARGS
#define gk_request_wait_all(requests, count, statuses)                         \
    gk_request_wait_all(requests, GK__INT(count), statuses)
#endif
/** Blocks until a matching message has arrived; does not receive it. */
GK_API int gk_probe(int source, int tag, gk_msg_status_t *status_p);
GK_API int gk_iprobe(int source, int tag, int *found_p, gk_msg_status_t *status_p);

/* ------------------------------------------------------------------------ */
/* Threads and contexts                                                     */
/* ------------------------------------------------------------------------ */

/*
 * Thread levels, as MPI's. gk_init() gives GK_THREAD_SINGLE. With
 * GK_THREAD_MULTIPLE any thread may call the one-sided, atomic, signaling,
 * active-message and two-sided calls at any time; collective calls
 * (barrier, allocation, broadcast, reductions, collect, all-to-all,
 * window creation, fence)
 * stay with one thread at a time, and so do a window's epochs.
 */
typedef enum gk_thread_level {
    GK_THREAD_SINGLE = 0,
    GK_THREAD_FUNNELED = 1,
    GK_THREAD_SERIALIZED = 2,
    GK_THREAD_MULTIPLE = 3
} gk_thread_level_t;

/** gk_init() at thread level `requested`; *provided_p gets the level given
 * (every level is supported, so it is `requested`). */
GK_API int gk_init_thread(gk_thread_level_t requested, gk_thread_level_t *provided_p);
/** *provided_p = the thread level gasket was initialized with. */
GK_API int gk_thread_query(gk_thread_level_t *provided_p);
/** Deprecated name of gk_thread_query(), to be removed. */
GK__DEPRECATED("use gk_thread_query")
static inline int gk_query_thread(gk_thread_level_t *provided_p)
{
    return gk_thread_query(provided_p);
}

/*
 * Contexts (OpenSHMEM-style): independent ordering and completion streams.
 * gk_ctx_quiet(ctx) and gk_ctx_fence(ctx) order and complete what was
 * issued on ctx; a thread's operations never wait for another thread's,
 * and no lock is shared between contexts (the wake-ups puts owe are kept
 * per thread). GK_CTX_DEFAULT (NULL) is the context of the plain calls.
 * Options: GK_CTX_PRIVATE (only the creating thread uses it),
 * GK_CTX_SERIALIZED (its users serialize their calls); both are hints.
 * gk_ctx_destroy() completes the context's operations first.
 */
typedef struct gk_ctx gk_ctx_t;
#define GK_CTX_DEFAULT ((gk_ctx_t *)0)
#define GK_CTX_PRIVATE 0x1u
#define GK_CTX_SERIALIZED 0x2u

GK_API int gk_ctx_create(unsigned options, gk_ctx_t **ctx_p);
GK_API int gk_ctx_destroy(gk_ctx_t *ctx);

/* The context form of every one-sided, atomic and signaling call. */
GK_API int gk_ctx_put(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes);
GK_API int gk_ctx_get(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes);
GK_API int gk_ctx_put_nbi(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                          size_t nbytes);
GK_API int gk_ctx_get_nbi(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                          size_t nbytes);
GK_API int gk_ctx_put_nb(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                         gk_handle_t *handle_p);
GK_API int gk_ctx_get_nb(gk_ctx_t *ctx, int pe, void *dst, const void *src, size_t nbytes,
                         gk_handle_t *handle_p);
GK_API int gk_ctx_quiet(gk_ctx_t *ctx);
GK_API int gk_ctx_fence(gk_ctx_t *ctx);
GK_API int gk_ctx_put_u8(gk_ctx_t *ctx, int pe, uint8_t *dst, uint8_t value);
GK_API int gk_ctx_put_u16(gk_ctx_t *ctx, int pe, uint16_t *dst, uint16_t value);
GK_API int gk_ctx_put_u32(gk_ctx_t *ctx, int pe, uint32_t *dst, uint32_t value);
GK_API int gk_ctx_put_u64(gk_ctx_t *ctx, int pe, uint64_t *dst, uint64_t value);
GK_API int gk_ctx_get_u8(gk_ctx_t *ctx, int pe, const uint8_t *src, uint8_t *value_p);
GK_API int gk_ctx_get_u16(gk_ctx_t *ctx, int pe, const uint16_t *src, uint16_t *value_p);
GK_API int gk_ctx_get_u32(gk_ctx_t *ctx, int pe, const uint32_t *src, uint32_t *value_p);
GK_API int gk_ctx_get_u64(gk_ctx_t *ctx, int pe, const uint64_t *src, uint64_t *value_p);

#define GK__CTX_ATOMIC_DECLARE(T, ctype)                                       \
    GK_API int gk_ctx_atomic_fetch_##T(gk_ctx_t *ctx, int pe, const ctype *src,   \
                                       ctype *value_p);                        \
    GK_API int gk_ctx_atomic_set_##T(gk_ctx_t *ctx, int pe, ctype *dst, ctype value); \
    GK_API int gk_ctx_atomic_swap_##T(gk_ctx_t *ctx, int pe, ctype *dst, ctype value, \
                                      ctype *old_p);                           \
    GK_API int gk_ctx_atomic_compare_swap_##T(gk_ctx_t *ctx, int pe, ctype *dst,  \
                                              ctype expected, ctype desired,   \
                                              ctype *old_p);                   \
    GK_API int gk_ctx_atomic_fetch_add_##T(gk_ctx_t *ctx, int pe, ctype *dst,     \
                                           ctype value, ctype *old_p);         \
    GK_API int gk_ctx_atomic_add_##T(gk_ctx_t *ctx, int pe, ctype *dst, ctype value); \
    GK_API int gk_ctx_atomic_fetch_and_##T(gk_ctx_t *ctx, int pe, ctype *dst,     \
                                           ctype value, ctype *old_p);         \
    GK_API int gk_ctx_atomic_fetch_or_##T(gk_ctx_t *ctx, int pe, ctype *dst,      \
                                          ctype value, ctype *old_p);          \
    GK_API int gk_ctx_atomic_fetch_xor_##T(gk_ctx_t *ctx, int pe, ctype *dst,     \
                                           ctype value, ctype *old_p);         \
    GK_API int gk_ctx_atomic_and_##T(gk_ctx_t *ctx, int pe, ctype *dst, ctype value); \
    GK_API int gk_ctx_atomic_or_##T(gk_ctx_t *ctx, int pe, ctype *dst, ctype value);  \
    GK_API int gk_ctx_atomic_xor_##T(gk_ctx_t *ctx, int pe, ctype *dst, ctype value);

GK__CTX_ATOMIC_DECLARE(i32, int32_t)
GK__CTX_ATOMIC_DECLARE(u32, uint32_t)
GK__CTX_ATOMIC_DECLARE(i64, int64_t)
GK__CTX_ATOMIC_DECLARE(u64, uint64_t)

GK_API int gk_ctx_put_sem(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                          size_t nbytes, gk_sem_t sem, uint64_t n);
GK_API int gk_ctx_put_sem_nbi(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                              size_t nbytes, gk_sem_t sem, uint64_t n);
GK_API int gk_ctx_put_sem_nb(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                             size_t nbytes, gk_sem_t sem, uint64_t n,
                             gk_handle_t *handle_p);
GK_API int gk_ctx_put_signal(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                             size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                             gk_signal_op_t sig_op);
GK_API int gk_ctx_put_signal_nbi(gk_ctx_t *ctx, int pe, void *dst, const void *src,
                                 size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                 gk_signal_op_t sig_op);
GK_API int gk_ctx_sem_post(gk_ctx_t *ctx, gk_sem_t sem);
GK_API int gk_ctx_sem_post_n(gk_ctx_t *ctx, gk_sem_t sem, uint64_t n);

/*
 * Deprecated: gk_put_inline, gk_put_buffered and gk_put_bulk are gk_put()
 * under other names (gk_put_inline also refuses more than
 * GK_PUT_INLINE_MAX bytes), with gk_put()'s completion: `src` may be
 * reused on return. Call gk_put(); these names will be removed.
 */
#define GK_PUT_INLINE_MAX 64
GK_API GK__DEPRECATED("use gk_put") int gk_put_inline(int pe, void *dst,
                                                      const void *src, size_t nbytes);
GK_API GK__DEPRECATED("use gk_put") int gk_put_buffered(int pe, void *dst,
                                                        const void *src, size_t nbytes);
GK_API GK__DEPRECATED("use gk_put") int gk_put_bulk(int pe, void *dst,
                                                    const void *src, size_t nbytes);

#ifdef __cplusplus
}
#endif

/* Derived datatypes (gk_type_t) and the puts and gets that take them. */
#include "gasket_dtype.h"

/* Inline fast paths of gk_put, gk_put_nbi, the value puts, gk_fence,
 * gk_quiet and gk_wait_until_* (same results, same errors); -DGK_NO_INLINE
 * turns them off. */
#include "gasket_inline.h"

#endif /* GASKET_H */

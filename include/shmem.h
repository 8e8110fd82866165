/*
 * shmem.h: the OpenSHMEM 1.5 C API, as a layer over gasket's native API
 * (gasket.h). Both share one runtime: shmem_init() starts it with
 * gk_init(), and a program may mix shmem_* and gk_* calls. What is
 * implemented, section by section, is listed in docs/OPENSHMEM.md; the
 * semantics are the specification's, the notes below say where gasket
 * fixes what the specification leaves open.
 *
 *  - Errors: a routine without a return code that is misused (a PE out of
 *    range, an address outside the symmetric heap, a misaligned atomic)
 *    logs the native API's message and ends the job (gk_abort), with a
 *    non-zero exit status. Collectives return non-zero, with a message,
 *    for SHMEM_TEAM_INVALID.
 *  - Profiling: every routine is defined as pshmem_<name> (pshmem.h), and
 *    shmem_<name> is a weak alias of it, so a tool may define shmem_<name>
 *    itself and call pshmem_<name>.
 *  - Symmetric data objects are those of the symmetric heap (shmem_malloc
 *    and friends) and the executable's global and static variables, which
 *    shmem_init() moves into shared memory (docs/OPENSHMEM.md); those of
 *    shared libraries are not symmetric.
 *  - The heap's size: SHMEM_SYMMETRIC_SIZE, read by shmem_init(), takes
 *    precedence over GK_HEAP_SIZE (docs/OPENSHMEM.md).
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SHMEM_API __attribute__((visibility("default")))
#define SHMEM_NORETURN __attribute__((noreturn))
#define SHMEM_DEPRECATED __attribute__((deprecated))
#else
#define SHMEM_API
#define SHMEM_NORETURN
#define SHMEM_DEPRECATED
#endif

/* ------------------------------------------------------------------------ */
/* Library constants                                                        */
/* ------------------------------------------------------------------------ */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "gasket"
/* Deprecated spellings (OpenSHMEM 1.3). */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* Thread levels: the same values as gasket's gk_thread_level_t. */
#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Comparisons of the point-to-point waits: the values of gk_cmp_t. */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Signal operations of the signaling puts: the values of gk_signal_op_t. */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Hints of shmem_malloc_with_hints(); gasket's heap has one kind of memory,
 * so they are accepted and change nothing. */
#define SHMEM_MALLOC_ATOMICS_REMOTE 0x1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 0x2L

/* ------------------------------------------------------------------------ */
/* Teams                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct shmem_team *shmem_team_t;
/* The predefined teams are objects in the library, of the same kind as the
 * teams a split makes: SHMEM_TEAM_WORLD, every PE, and SHMEM_TEAM_SHARED,
 * the PEs whose memory this PE maps (shmem_ptr() gives a pointer): the PEs
 * of its node, or itself alone where GK_NET_INDIRECT=1. */
extern SHMEM_API struct shmem_team shmem__team_world;
extern SHMEM_API struct shmem_team shmem__team_shared;
#define SHMEM_TEAM_WORLD (&shmem__team_world)
#define SHMEM_TEAM_SHARED (&shmem__team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* A team's configuration. gasket keeps num_contexts (get_config returns
 * it) but reserves nothing for it: contexts are not limited per team. */
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* The deprecated active-set collectives' work arrays: pSync holds (in
 * longs) at least these, each SHMEM_SYNC_VALUE before the first call;
 * pWrk is not used. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 40
#define SHMEM_BARRIER_SYNC_SIZE 40
#define SHMEM_BCAST_SYNC_SIZE 40
#define SHMEM_REDUCE_SYNC_SIZE 40
#define SHMEM_COLLECT_SYNC_SIZE 40
#define SHMEM_ALLTOALL_SYNC_SIZE 40
#define SHMEM_ALLTOALLS_SYNC_SIZE 40
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ------------------------------------------------------------------------ */
/* Communication contexts                                                   */
/* ------------------------------------------------------------------------ */

/*
 * A context is an ordering and completion stream of its own: every RMA,
 * AMO and signaling routine has a shmem_ctx_ form whose first argument is
 * the context, and the routines without one act on SHMEM_CTX_DEFAULT.
 * Each context is one of gasket's (gk_ctx_create()); what shmem_ctx_quiet
 * and shmem_ctx_fence complete and order is in docs/OPENSHMEM.md
 * ("Contexts"). Using a destroyed context, or a value that is no context,
 * logs which and ends the job; SHMEM_CTX_INVALID is a value to compare
 * handles with, never a context to communicate on.
 */
typedef struct shmem_ctx *shmem_ctx_t;
/* The context of the routines without one; an object in the library, like
 * the world team. */
extern SHMEM_API struct shmem_ctx shmem__ctx_default;
#define SHMEM_CTX_DEFAULT (&shmem__ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
/* Options of shmem_ctx_create(), to be ORed: hints that gasket passes on
 * as GK_CTX_SERIALIZED and GK_CTX_PRIVATE; NOSTORE is accepted and
 * changes nothing (quiet and fence still complete and order stores). */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* ------------------------------------------------------------------------ */
/* Type tables: every family below is generated from these                  */
/* ------------------------------------------------------------------------ */

/* The standard RMA types: X(TYPE, TYPENAME). */
#define SHMEM_RMA_TYPES(X)                                                     \
    X(float, float)                                                            \
    X(double, double)                                                          \
    X(long double, longdouble)                                                 \
    X(char, char)                                                              \
    X(signed char, schar)                                                      \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)                                                     \
    X(unsigned char, uchar)                                                    \
    X(unsigned short, ushort)                                                  \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int8_t, int8)                                                            \
    X(int16_t, int16)                                                          \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint8_t, uint8)                                                          \
    X(uint16_t, uint16)                                                        \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)                                                        \
    X(size_t, size)                                                            \
    X(ptrdiff_t, ptrdiff)

/* The sized RMA routines: X(SIZE in bits, bytes). */
#define SHMEM_RMA_SIZES(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)

/* The standard AMO types (inc, add, compare_swap and the extended ops). */
#define SHMEM_AMO_STD_TYPES(X)                                                 \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)                                                     \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)                                                        \
    X(size_t, size)                                                            \
    X(ptrdiff_t, ptrdiff)

/* The extended AMO types (fetch, set, swap): the standard ones and these. */
#define SHMEM_AMO_EXT_ONLY_TYPES(X) X(float, float) X(double, double)

/* The bitwise AMO types (and, or, xor). */
#define SHMEM_AMO_BIT_TYPES(X)                                                 \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)

/* The point-to-point synchronization types (wait_until, test). */
#define SHMEM_P2P_TYPES(X)                                                     \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)                                                     \
    X(unsigned short, ushort)                                                  \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)                                                        \
    X(size_t, size)                                                            \
    X(ptrdiff_t, ptrdiff)

/* The reduction types: bitwise (and, or, xor), arithmetic (min, max,
 * sum, prod) and complex (sum, prod). */
#define SHMEM_REDUCE_BIT_TYPES(X)                                              \
    X(unsigned char, uchar)                                                    \
    X(unsigned short, ushort)                                                  \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int8_t, int8)                                                            \
    X(int16_t, int16)                                                          \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint8_t, uint8)                                                          \
    X(uint16_t, uint16)                                                        \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)                                                        \
    X(size_t, size)
#define SHMEM_REDUCE_ARITH_TYPES(X)                                            \
    X(char, char)                                                              \
    X(signed char, schar)                                                      \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)                                                     \
    X(ptrdiff_t, ptrdiff)                                                      \
    X(unsigned char, uchar)                                                    \
    X(unsigned short, ushort)                                                  \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int8_t, int8)                                                            \
    X(int16_t, int16)                                                          \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint8_t, uint8)                                                          \
    X(uint16_t, uint16)                                                        \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)                                                        \
    X(size_t, size)                                                            \
    X(float, float)                                                            \
    X(double, double)                                                          \
    X(long double, longdouble)

#define SHMEM_REDUCE_COMPLEX_TYPES(X)                                          \
    X(float _Complex, complexf)                                                \
    X(double _Complex, complexd)

/* The deprecated active-set reductions (_to_all): bitwise and arithmetic
 * (with the complex types for sum and prod). */
#define SHMEM_TO_ALL_BIT_TYPES(X)                                              \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)
#define SHMEM_TO_ALL_ARITH_TYPES(X)                                            \
    SHMEM_TO_ALL_BIT_TYPES(X)                                                  \
    X(float, float)                                                            \
    X(double, double)                                                          \
    X(long double, longdouble)

/* The deprecated AMO names (OpenSHMEM 1.3): finc, inc, fadd, add, cswap
 * for these, and fetch, set, swap for these and float and double. */
#define SHMEM_DEPR_AMO_TYPES(X)                                                \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)
#define SHMEM_DEPR_AMO_EXT_ONLY_TYPES(X) X(float, float) X(double, double)
/* The deprecated shmem_TYPENAME_wait. */
#define SHMEM_DEPR_WAIT_TYPES(X)                                               \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)

/* ------------------------------------------------------------------------ */
/* Declarations, for a prefix P (shmem here, pshmem in pshmem.h)             */
/* ------------------------------------------------------------------------ */

#define SHMEM__DECLARE_SETUP(P)                                                \
    SHMEM_API void P##_init(void);                                             \
    SHMEM_API int P##_init_thread(int requested, int *provided);               \
    SHMEM_API int P##_query_thread(int *provided);                             \
    SHMEM_API void P##_finalize(void);                                         \
    SHMEM_API SHMEM_NORETURN void P##_global_exit(int status);                 \
    SHMEM_API int P##_my_pe(void);                                             \
    SHMEM_API int P##_n_pes(void);                                             \
    SHMEM_API int P##_pe_accessible(int pe);                                   \
    SHMEM_API int P##_addr_accessible(const void *addr, int pe);               \
    SHMEM_API void *P##_ptr(const void *dest, int pe);                         \
    SHMEM_API void P##_info_get_version(int *major, int *minor);               \
    SHMEM_API void P##_info_get_name(char *name);                              \
    SHMEM_API void P##_pcontrol(int level, ...);                               \
    SHMEM_API void *P##_malloc(size_t size);                                   \
    SHMEM_API void *P##_malloc_with_hints(size_t size, long hints);            \
    SHMEM_API void *P##_calloc(size_t count, size_t size);                     \
    SHMEM_API void *P##_align(size_t alignment, size_t size);                  \
    SHMEM_API void *P##_realloc(void *ptr, size_t size);                       \
    SHMEM_API void P##_free(void *ptr);                                        \
    SHMEM_API void P##_fence(void);                                            \
    SHMEM_API void P##_quiet(void);                                            \
    SHMEM_API void P##_set_lock(long *lock);                                   \
    SHMEM_API void P##_clear_lock(long *lock);                                 \
    SHMEM_API int P##_test_lock(long *lock);                                   \
    SHMEM_API uint64_t P##_signal_fetch(const uint64_t *sig_addr);             \
    SHMEM_API uint64_t P##_signal_wait_until(uint64_t *sig_addr, int cmp,      \
                                             uint64_t cmp_value);              \
    SHMEM_API void P##_barrier_all(void);                                      \
    SHMEM_API void P##_sync_all(void);                                         \
    SHMEM_API int P##_team_my_pe(shmem_team_t team);                           \
    SHMEM_API int P##_team_n_pes(shmem_team_t team);                           \
    SHMEM_API int P##_team_sync(shmem_team_t team);                            \
    SHMEM_API int P##_broadcastmem(shmem_team_t team, void *dest,              \
                                   const void *source, size_t nelems,          \
                                   int PE_root);                               \
    SHMEM_API int P##_fcollectmem(shmem_team_t team, void *dest,               \
                                  const void *source, size_t nelems);          \
    SHMEM_API int P##_alltoallmem(shmem_team_t team, void *dest,               \
                                  const void *source, size_t nelems);

#define SHMEM__DECLARE_RMA(P, T, N)                                            \
    SHMEM_API void P##_##N##_put(T *dest, const T *source, size_t nelems,      \
                                 int pe);                                      \
    SHMEM_API void P##_##N##_get(T *dest, const T *source, size_t nelems,      \
                                 int pe);                                      \
    SHMEM_API void P##_##N##_put_nbi(T *dest, const T *source, size_t nelems,  \
                                     int pe);                                  \
    SHMEM_API void P##_##N##_get_nbi(T *dest, const T *source, size_t nelems,  \
                                     int pe);                                  \
    SHMEM_API void P##_##N##_p(T *dest, T value, int pe);                      \
    SHMEM_API T P##_##N##_g(const T *source, int pe);                          \
    SHMEM_API void P##_##N##_iput(T *dest, const T *source, ptrdiff_t dst,     \
                                  ptrdiff_t sst, size_t nelems, int pe);       \
    SHMEM_API void P##_##N##_iget(T *dest, const T *source, ptrdiff_t dst,     \
                                  ptrdiff_t sst, size_t nelems, int pe);       \
    SHMEM_API void P##_##N##_put_signal(T *dest, const T *source,              \
                                        size_t nelems, uint64_t *sig_addr,     \
                                        uint64_t signal, int sig_op, int pe);  \
    SHMEM_API void P##_##N##_put_signal_nbi(T *dest, const T *source,          \
                                            size_t nelems, uint64_t *sig_addr, \
                                            uint64_t signal, int sig_op,       \
                                            int pe);                           \
    SHMEM_API int P##_##N##_broadcast(shmem_team_t team, T *dest,              \
                                      const T *source, size_t nelems,          \
                                      int PE_root);                            \
    SHMEM_API int P##_##N##_fcollect(shmem_team_t team, T *dest,               \
                                     const T *source, size_t nelems);          \
    SHMEM_API int P##_##N##_alltoall(shmem_team_t team, T *dest,               \
                                     const T *source, size_t nelems);

/* The sized forms and the mem forms: S is the size's name (8 ... 128, mem). */
#define SHMEM__DECLARE_RMA_SIZED(P, S)                                         \
    SHMEM_API void P##_put##S(void *dest, const void *source, size_t nelems,   \
                              int pe);                                         \
    SHMEM_API void P##_get##S(void *dest, const void *source, size_t nelems,   \
                              int pe);                                         \
    SHMEM_API void P##_put##S##_nbi(void *dest, const void *source,            \
                                    size_t nelems, int pe);                    \
    SHMEM_API void P##_get##S##_nbi(void *dest, const void *source,            \
                                    size_t nelems, int pe);                    \
    SHMEM_API void P##_put##S##_signal(void *dest, const void *source,         \
                                       size_t nelems, uint64_t *sig_addr,      \
                                       uint64_t signal, int sig_op, int pe);   \
    SHMEM_API void P##_put##S##_signal_nbi(void *dest, const void *source,     \
                                           size_t nelems, uint64_t *sig_addr,  \
                                           uint64_t signal, int sig_op,        \
                                           int pe);
#define SHMEM__DECLARE_RMA_STRIDED(P, S)                                       \
    SHMEM_API void P##_iput##S(void *dest, const void *source, ptrdiff_t dst,  \
                               ptrdiff_t sst, size_t nelems, int pe);          \
    SHMEM_API void P##_iget##S(void *dest, const void *source, ptrdiff_t dst,  \
                               ptrdiff_t sst, size_t nelems, int pe);

#define SHMEM__DECLARE_AMO_EXT(P, T, N)                                        \
    SHMEM_API T P##_##N##_atomic_fetch(const T *source, int pe);               \
    SHMEM_API void P##_##N##_atomic_set(T *dest, T value, int pe);             \
    SHMEM_API T P##_##N##_atomic_swap(T *dest, T value, int pe);               \
    SHMEM_API void P##_##N##_atomic_fetch_nbi(T *fetch, const T *source,       \
                                              int pe);                         \
    SHMEM_API void P##_##N##_atomic_swap_nbi(T *fetch, T *dest, T value,       \
                                             int pe);
#define SHMEM__DECLARE_AMO_STD(P, T, N)                                        \
    SHMEM__DECLARE_AMO_EXT(P, T, N)                                            \
    SHMEM_API T P##_##N##_atomic_compare_swap(T *dest, T cond, T value,        \
                                              int pe);                         \
    SHMEM_API T P##_##N##_atomic_fetch_inc(T *dest, int pe);                   \
    SHMEM_API void P##_##N##_atomic_inc(T *dest, int pe);                      \
    SHMEM_API T P##_##N##_atomic_fetch_add(T *dest, T value, int pe);          \
    SHMEM_API void P##_##N##_atomic_add(T *dest, T value, int pe);             \
    SHMEM_API void P##_##N##_atomic_compare_swap_nbi(T *fetch, T *dest,        \
                                                     T cond, T value, int pe); \
    SHMEM_API void P##_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);  \
    SHMEM_API void P##_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value,  \
                                                  int pe);
#define SHMEM__DECLARE_AMO_BIT(P, T, N)                                        \
    SHMEM_API T P##_##N##_atomic_fetch_and(T *dest, T value, int pe);          \
    SHMEM_API T P##_##N##_atomic_fetch_or(T *dest, T value, int pe);           \
    SHMEM_API T P##_##N##_atomic_fetch_xor(T *dest, T value, int pe);          \
    SHMEM_API void P##_##N##_atomic_and(T *dest, T value, int pe);             \
    SHMEM_API void P##_##N##_atomic_or(T *dest, T value, int pe);              \
    SHMEM_API void P##_##N##_atomic_xor(T *dest, T value, int pe);             \
    SHMEM_API void P##_##N##_atomic_fetch_and_nbi(T *fetch, T *dest, T value,  \
                                                  int pe);                     \
    SHMEM_API void P##_##N##_atomic_fetch_or_nbi(T *fetch, T *dest, T value,   \
                                                 int pe);                      \
    SHMEM_API void P##_##N##_atomic_fetch_xor_nbi(T *fetch, T *dest, T value,  \
                                                  int pe);

#define SHMEM__DECLARE_P2P(P, T, N)                                            \
    SHMEM_API void P##_##N##_wait_until(T *ivar, int cmp, T cmp_value);        \
    SHMEM_API void P##_##N##_wait_until_all(T *ivars, size_t nelems,           \
                                            const int *status, int cmp,        \
                                            T cmp_value);                      \
    SHMEM_API size_t P##_##N##_wait_until_any(T *ivars, size_t nelems,         \
                                              const int *status, int cmp,      \
                                              T cmp_value);                    \
    SHMEM_API size_t P##_##N##_wait_until_some(T *ivars, size_t nelems,        \
                                               size_t *indices,                \
                                               const int *status, int cmp,     \
                                               T cmp_value);                   \
    SHMEM_API void P##_##N##_wait_until_all_vector(T *ivars, size_t nelems,    \
                                                   const int *status, int cmp, \
                                                   T *cmp_values);             \
    SHMEM_API size_t P##_##N##_wait_until_any_vector(                          \
        T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);   \
    SHMEM_API size_t P##_##N##_wait_until_some_vector(                         \
        T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,  \
        T *cmp_values);                                                        \
    SHMEM_API int P##_##N##_test(T *ivar, int cmp, T cmp_value);               \
    SHMEM_API int P##_##N##_test_all(T *ivars, size_t nelems,                  \
                                     const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t P##_##N##_test_any(T *ivars, size_t nelems,               \
                                        const int *status, int cmp,            \
                                        T cmp_value);                          \
    SHMEM_API size_t P##_##N##_test_some(T *ivars, size_t nelems,              \
                                         size_t *indices, const int *status,   \
                                         int cmp, T cmp_value);                \
    SHMEM_API int P##_##N##_test_all_vector(T *ivars, size_t nelems,           \
                                            const int *status, int cmp,        \
                                            T *cmp_values);                    \
    SHMEM_API size_t P##_##N##_test_any_vector(T *ivars, size_t nelems,        \
                                               const int *status, int cmp,     \
                                               T *cmp_values);                 \
    SHMEM_API size_t P##_##N##_test_some_vector(                               \
        T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,  \
        T *cmp_values);

#define SHMEM__DECLARE_REDUCE(P, T, N, OP)                                     \
    SHMEM_API int P##_##N##_##OP##_reduce(shmem_team_t team, T *dest,          \
                                          const T *source, size_t nreduce);
#define SHMEM__DECLARE_REDUCE_BIT(P, T, N)                                     \
    SHMEM__DECLARE_REDUCE(P, T, N, and)                                        \
    SHMEM__DECLARE_REDUCE(P, T, N, or)                                         \
    SHMEM__DECLARE_REDUCE(P, T, N, xor)
#define SHMEM__DECLARE_REDUCE_ARITH(P, T, N)                                   \
    SHMEM__DECLARE_REDUCE(P, T, N, max)                                        \
    SHMEM__DECLARE_REDUCE(P, T, N, min)                                        \
    SHMEM__DECLARE_REDUCE(P, T, N, sum)                                        \
    SHMEM__DECLARE_REDUCE(P, T, N, prod)

/* Contexts: management, ordering, and the context form of every RMA, AMO
 * and signaling routine (the plain routine with a leading shmem_ctx_t). */
#define SHMEM__DECLARE_CTX(P)                                                  \
    SHMEM_API int P##_ctx_create(long options, shmem_ctx_t *ctx);              \
    SHMEM_API int P##_team_create_ctx(shmem_team_t team, long options,         \
                                      shmem_ctx_t *ctx);                       \
    SHMEM_API void P##_ctx_destroy(shmem_ctx_t ctx);                           \
    SHMEM_API int P##_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);       \
    SHMEM_API void P##_ctx_fence(shmem_ctx_t ctx);                             \
    SHMEM_API void P##_ctx_quiet(shmem_ctx_t ctx);

#define SHMEM__DECLARE_CTX_RMA(P, T, N)                                        \
    SHMEM_API void P##_ctx_##N##_put(shmem_ctx_t ctx, T *dest,                 \
                                     const T *source, size_t nelems, int pe);  \
    SHMEM_API void P##_ctx_##N##_get(shmem_ctx_t ctx, T *dest,                 \
                                     const T *source, size_t nelems, int pe);  \
    SHMEM_API void P##_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest,             \
                                         const T *source, size_t nelems,       \
                                         int pe);                              \
    SHMEM_API void P##_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest,             \
                                         const T *source, size_t nelems,       \
                                         int pe);                              \
    SHMEM_API void P##_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API T P##_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);     \
    SHMEM_API void P##_ctx_##N##_iput(shmem_ctx_t ctx, T *dest,                \
                                      const T *source, ptrdiff_t dst,          \
                                      ptrdiff_t sst, size_t nelems, int pe);   \
    SHMEM_API void P##_ctx_##N##_iget(shmem_ctx_t ctx, T *dest,                \
                                      const T *source, ptrdiff_t dst,          \
                                      ptrdiff_t sst, size_t nelems, int pe);   \
    SHMEM_API void P##_ctx_##N##_put_signal(                                   \
        shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,              \
        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);              \
    SHMEM_API void P##_ctx_##N##_put_signal_nbi(                               \
        shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,              \
        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

#define SHMEM__DECLARE_CTX_RMA_SIZED(P, S)                                     \
    SHMEM_API void P##_ctx_put##S(shmem_ctx_t ctx, void *dest,                 \
                                  const void *source, size_t nelems, int pe);  \
    SHMEM_API void P##_ctx_get##S(shmem_ctx_t ctx, void *dest,                 \
                                  const void *source, size_t nelems, int pe);  \
    SHMEM_API void P##_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest,           \
                                        const void *source, size_t nelems,     \
                                        int pe);                               \
    SHMEM_API void P##_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest,           \
                                        const void *source, size_t nelems,     \
                                        int pe);                               \
    SHMEM_API void P##_ctx_put##S##_signal(                                    \
        shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,        \
        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);              \
    SHMEM_API void P##_ctx_put##S##_signal_nbi(                                \
        shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,        \
        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
#define SHMEM__DECLARE_CTX_RMA_STRIDED(P, S)                                   \
    SHMEM_API void P##_ctx_iput##S(shmem_ctx_t ctx, void *dest,                \
                                   const void *source, ptrdiff_t dst,          \
                                   ptrdiff_t sst, size_t nelems, int pe);      \
    SHMEM_API void P##_ctx_iget##S(shmem_ctx_t ctx, void *dest,                \
                                   const void *source, ptrdiff_t dst,          \
                                   ptrdiff_t sst, size_t nelems, int pe);

#define SHMEM__DECLARE_CTX_AMO_EXT(P, T, N)                                    \
    SHMEM_API T P##_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source,   \
                                           int pe);                            \
    SHMEM_API void P##_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, \
                                            int pe);                           \
    SHMEM_API T P##_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value,   \
                                          int pe);                             \
    SHMEM_API void P##_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch,   \
                                                  const T *source, int pe);    \
    SHMEM_API void P##_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch,    \
                                                 T *dest, T value, int pe);
#define SHMEM__DECLARE_CTX_AMO_STD(P, T, N)                                    \
    SHMEM__DECLARE_CTX_AMO_EXT(P, T, N)                                        \
    SHMEM_API T P##_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest,    \
                                                  T cond, T value, int pe);    \
    SHMEM_API T P##_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest,       \
                                               int pe);                        \
    SHMEM_API void P##_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe); \
    SHMEM_API T P##_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest,       \
                                               T value, int pe);               \
    SHMEM_API void P##_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, \
                                            int pe);                           \
    SHMEM_API void P##_ctx_##N##_atomic_compare_swap_nbi(                      \
        shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe);          \
    SHMEM_API void P##_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx,         \
                                                      T *fetch, T *dest,       \
                                                      int pe);                 \
    SHMEM_API void P##_ctx_##N##_atomic_fetch_add_nbi(                         \
        shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define SHMEM__DECLARE_CTX_AMO_BIT(P, T, N)                                    \
    SHMEM_API T P##_ctx_##N##_atomic_fetch_and(shmem_ctx_t ctx, T *dest,       \
                                               T value, int pe);               \
    SHMEM_API T P##_ctx_##N##_atomic_fetch_or(shmem_ctx_t ctx, T *dest,        \
                                              T value, int pe);                \
    SHMEM_API T P##_ctx_##N##_atomic_fetch_xor(shmem_ctx_t ctx, T *dest,       \
                                               T value, int pe);               \
    SHMEM_API void P##_ctx_##N##_atomic_and(shmem_ctx_t ctx, T *dest, T value, \
                                            int pe);                           \
    SHMEM_API void P##_ctx_##N##_atomic_or(shmem_ctx_t ctx, T *dest, T value,  \
                                           int pe);                            \
    SHMEM_API void P##_ctx_##N##_atomic_xor(shmem_ctx_t ctx, T *dest, T value, \
                                            int pe);                           \
    SHMEM_API void P##_ctx_##N##_atomic_fetch_and_nbi(                         \
        shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);                  \
    SHMEM_API void P##_ctx_##N##_atomic_fetch_or_nbi(                          \
        shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);                  \
    SHMEM_API void P##_ctx_##N##_atomic_fetch_xor_nbi(                         \
        shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);

/* Every context declaration for prefix P (shmem here, pshmem in pshmem.h). */
#define SHMEM__D_CTX_RMA_S(P, B, bytes)                                        \
    SHMEM__DECLARE_CTX_RMA_SIZED(P, B) SHMEM__DECLARE_CTX_RMA_STRIDED(P, B)
#define SHMEM__DECLARE_CTX_ALL(P)                                              \
    SHMEM__DECLARE_CTX(P)                                                      \
    SHMEM__DECLARE_CTX_RMA_SIZED(P, mem)                                       \
    SHMEM_RMA_SIZES(SHMEM__D_CTX_RMA_S_##P)                                    \
    SHMEM_RMA_TYPES(SHMEM__D_CTX_RMA_T_##P)                                    \
    SHMEM_AMO_STD_TYPES(SHMEM__D_CTX_AMO_STD_##P)                              \
    SHMEM_AMO_EXT_ONLY_TYPES(SHMEM__D_CTX_AMO_EXT_##P)                         \
    SHMEM_AMO_BIT_TYPES(SHMEM__D_CTX_AMO_BIT_##P)
#define SHMEM__D_CTX_RMA_S_shmem(B, bytes) SHMEM__D_CTX_RMA_S(shmem, B, bytes)
#define SHMEM__D_CTX_RMA_T_shmem(T, N) SHMEM__DECLARE_CTX_RMA(shmem, T, N)
#define SHMEM__D_CTX_AMO_STD_shmem(T, N) SHMEM__DECLARE_CTX_AMO_STD(shmem, T, N)
#define SHMEM__D_CTX_AMO_EXT_shmem(T, N) SHMEM__DECLARE_CTX_AMO_EXT(shmem, T, N)
#define SHMEM__D_CTX_AMO_BIT_shmem(T, N) SHMEM__DECLARE_CTX_AMO_BIT(shmem, T, N)

/* Declarations of every routine for prefix P (here shmem). */
#define SHMEM__D_RMA_S(P, B, bytes) SHMEM__DECLARE_RMA_SIZED(P, B) SHMEM__DECLARE_RMA_STRIDED(P, B)
#define SHMEM__D_RMA_S_shmem(B, bytes) SHMEM__D_RMA_S(shmem, B, bytes)
#define SHMEM__D_RMA_T_shmem(T, N) SHMEM__DECLARE_RMA(shmem, T, N)
#define SHMEM__D_AMO_STD_shmem(T, N) SHMEM__DECLARE_AMO_STD(shmem, T, N)
#define SHMEM__D_AMO_EXT_shmem(T, N) SHMEM__DECLARE_AMO_EXT(shmem, T, N)
#define SHMEM__D_AMO_BIT_shmem(T, N) SHMEM__DECLARE_AMO_BIT(shmem, T, N)
#define SHMEM__D_P2P_shmem(T, N) SHMEM__DECLARE_P2P(shmem, T, N)
#define SHMEM__D_RED_BIT_shmem(T, N) SHMEM__DECLARE_REDUCE_BIT(shmem, T, N)
#define SHMEM__D_RED_ARITH_shmem(T, N) SHMEM__DECLARE_REDUCE_ARITH(shmem, T, N)

SHMEM__DECLARE_SETUP(shmem)
SHMEM__DECLARE_RMA_SIZED(shmem, mem)
SHMEM_RMA_SIZES(SHMEM__D_RMA_S_shmem)
SHMEM_RMA_TYPES(SHMEM__D_RMA_T_shmem)
SHMEM_AMO_STD_TYPES(SHMEM__D_AMO_STD_shmem)
SHMEM_AMO_EXT_ONLY_TYPES(SHMEM__D_AMO_EXT_shmem)
SHMEM_AMO_BIT_TYPES(SHMEM__D_AMO_BIT_shmem)
SHMEM_P2P_TYPES(SHMEM__D_P2P_shmem)
SHMEM_REDUCE_BIT_TYPES(SHMEM__D_RED_BIT_shmem)
SHMEM_REDUCE_ARITH_TYPES(SHMEM__D_RED_ARITH_shmem)
SHMEM__DECLARE_CTX_ALL(shmem)

/* Teams and the collectives not declared above. */
#define SHMEM__DECLARE_TEAMS(P)                                                \
    SHMEM_API int P##_team_split_strided(                                      \
        shmem_team_t parent_team, int start, int stride, int size,             \
        const shmem_team_config_t *config, long config_mask,                   \
        shmem_team_t *new_team);                                               \
    SHMEM_API int P##_team_split_2d(                                           \
        shmem_team_t parent_team, int xrange,                                  \
        const shmem_team_config_t *xaxis_config, long xaxis_mask,              \
        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,     \
        long yaxis_mask, shmem_team_t *yaxis_team);                            \
    SHMEM_API int P##_team_translate_pe(shmem_team_t src_team, int src_pe,     \
                                        shmem_team_t dest_team);               \
    SHMEM_API int P##_team_get_config(shmem_team_t team, long config_mask,     \
                                      shmem_team_config_t *config);            \
    SHMEM_API void P##_team_destroy(shmem_team_t team);                        \
    SHMEM_API void *P##_team_ptr(shmem_team_t team, const void *dest, int pe); \
    SHMEM_API int P##_collectmem(shmem_team_t team, void *dest,                \
                                 const void *source, size_t nelems);           \
    SHMEM_API int P##_alltoallsmem(shmem_team_t team, void *dest,              \
                                   const void *source, ptrdiff_t dst,          \
                                   ptrdiff_t sst, size_t nelems);              \
    SHMEM_API void P##_barrier(int PE_start, int logPE_stride, int PE_size,    \
                               long *pSync);                                   \
    SHMEM_API void P##_sync(int PE_start, int logPE_stride, int PE_size,       \
                            long *pSync);                                      \
    SHMEM_API void P##_wait(long *ivar, long cmp_value);                       \
    SHMEM_API void P##_wait_until(long *ivar, int cmp, long cmp_value);
#define SHMEM__DECLARE_COLL(P, T, N)                                           \
    SHMEM_API int P##_##N##_collect(shmem_team_t team, T *dest,                \
                                    const T *source, size_t nelems);           \
    SHMEM_API int P##_##N##_alltoalls(shmem_team_t team, T *dest,              \
                                      const T *source, ptrdiff_t dst,          \
                                      ptrdiff_t sst, size_t nelems);
#define SHMEM__DECLARE_ASET_SIZED(P, B)                                        \
    SHMEM_API void P##_broadcast##B(void *dest, const void *source,            \
                                    size_t nelems, int PE_root, int PE_start,  \
                                    int logPE_stride, int PE_size,             \
                                    long *pSync);                              \
    SHMEM_API void P##_collect##B(void *dest, const void *source,              \
                                  size_t nelems, int PE_start,                 \
                                  int logPE_stride, int PE_size, long *pSync); \
    SHMEM_API void P##_fcollect##B(void *dest, const void *source,             \
                                   size_t nelems, int PE_start,                \
                                   int logPE_stride, int PE_size,              \
                                   long *pSync);                               \
    SHMEM_API void P##_alltoall##B(void *dest, const void *source,             \
                                   size_t nelems, int PE_start,                \
                                   int logPE_stride, int PE_size,              \
                                   long *pSync);                               \
    SHMEM_API void P##_alltoalls##B(void *dest, const void *source,            \
                                    ptrdiff_t dst, ptrdiff_t sst,              \
                                    size_t nelems, int PE_start,               \
                                    int logPE_stride, int PE_size,             \
                                    long *pSync);
#define SHMEM__DECLARE_TO_ALL(P, T, N, OP)                                     \
    SHMEM_API void P##_##N##_##OP##_to_all(T *dest, const T *source,           \
                                           int nreduce, int PE_start,          \
                                           int logPE_stride, int PE_size,      \
                                           T *pWrk, long *pSync);
#define SHMEM__DECLARE_TO_ALL_BIT(P, T, N)                                     \
    SHMEM__DECLARE_TO_ALL(P, T, N, and)                                        \
    SHMEM__DECLARE_TO_ALL(P, T, N, or)                                         \
    SHMEM__DECLARE_TO_ALL(P, T, N, xor)
#define SHMEM__DECLARE_TO_ALL_SUMPROD(P, T, N)                                 \
    SHMEM__DECLARE_TO_ALL(P, T, N, sum)                                        \
    SHMEM__DECLARE_TO_ALL(P, T, N, prod)
#define SHMEM__DECLARE_TO_ALL_ARITH(P, T, N)                                   \
    SHMEM__DECLARE_TO_ALL(P, T, N, max)                                        \
    SHMEM__DECLARE_TO_ALL(P, T, N, min)                                        \
    SHMEM__DECLARE_TO_ALL_SUMPROD(P, T, N)
#define SHMEM__DECLARE_REDUCE_COMPLEX(P, T, N)                                 \
    SHMEM__DECLARE_REDUCE(P, T, N, sum)                                        \
    SHMEM__DECLARE_REDUCE(P, T, N, prod)                                       \
    SHMEM__DECLARE_TO_ALL_SUMPROD(P, T, N)
#define SHMEM__DECLARE_DEPR_AMO_EXT(P, T, N)                                   \
    SHMEM_API T P##_##N##_fetch(const T *source, int pe);                      \
    SHMEM_API void P##_##N##_set(T *dest, T value, int pe);                    \
    SHMEM_API T P##_##N##_swap(T *dest, T value, int pe);
#define SHMEM__DECLARE_DEPR_AMO(P, T, N)                                       \
    SHMEM__DECLARE_DEPR_AMO_EXT(P, T, N)                                       \
    SHMEM_API T P##_##N##_finc(T *dest, int pe);                               \
    SHMEM_API void P##_##N##_inc(T *dest, int pe);                             \
    SHMEM_API T P##_##N##_fadd(T *dest, T value, int pe);                      \
    SHMEM_API void P##_##N##_add(T *dest, T value, int pe);                    \
    SHMEM_API T P##_##N##_cswap(T *dest, T cond, T value, int pe);
/* Cache management, deprecated since OpenSHMEM 1.3. */
#define SHMEM__DECLARE_CACHE(P)                                                \
    SHMEM_API SHMEM_DEPRECATED void P##_set_cache_inv(void);                   \
    SHMEM_API SHMEM_DEPRECATED void P##_set_cache_line_inv(void *dest);        \
    SHMEM_API SHMEM_DEPRECATED void P##_clear_cache_inv(void);                 \
    SHMEM_API SHMEM_DEPRECATED void P##_clear_cache_line_inv(void *dest);      \
    SHMEM_API SHMEM_DEPRECATED void P##_udcflush(void);                        \
    SHMEM_API SHMEM_DEPRECATED void P##_udcflush_line(void *dest);
#define SHMEM__DECLARE_DEPR_WAIT(P, T, N)                                      \
    SHMEM_API void P##_##N##_wait(T *ivar, T cmp_value);

#define SHMEM__D_COLL_shmem(T, N) SHMEM__DECLARE_COLL(shmem, T, N)
#define SHMEM__D_ASET_shmem(B, bytes) SHMEM__DECLARE_ASET_SIZED(shmem, B)
#define SHMEM__D_TO_ALL_BIT_shmem(T, N) SHMEM__DECLARE_TO_ALL_BIT(shmem, T, N)
#define SHMEM__D_TO_ALL_ARITH_shmem(T, N) SHMEM__DECLARE_TO_ALL_ARITH(shmem, T, N)
#define SHMEM__D_RED_CPLX_shmem(T, N) SHMEM__DECLARE_REDUCE_COMPLEX(shmem, T, N)
#define SHMEM__D_DEPR_AMO_shmem(T, N) SHMEM__DECLARE_DEPR_AMO(shmem, T, N)
#define SHMEM__D_DEPR_AMO_EXT_shmem(T, N) SHMEM__DECLARE_DEPR_AMO_EXT(shmem, T, N)
#define SHMEM__D_DEPR_WAIT_shmem(T, N) SHMEM__DECLARE_DEPR_WAIT(shmem, T, N)

SHMEM__DECLARE_TEAMS(shmem)
SHMEM_RMA_TYPES(SHMEM__D_COLL_shmem)
SHMEM__D_ASET_shmem(32, 4)
SHMEM__D_ASET_shmem(64, 8)
SHMEM_TO_ALL_BIT_TYPES(SHMEM__D_TO_ALL_BIT_shmem)
SHMEM_TO_ALL_ARITH_TYPES(SHMEM__D_TO_ALL_ARITH_shmem)
SHMEM_REDUCE_COMPLEX_TYPES(SHMEM__D_RED_CPLX_shmem)
SHMEM_DEPR_AMO_TYPES(SHMEM__D_DEPR_AMO_shmem)
SHMEM_DEPR_AMO_EXT_ONLY_TYPES(SHMEM__D_DEPR_AMO_EXT_shmem)
SHMEM_DEPR_WAIT_TYPES(SHMEM__D_DEPR_WAIT_shmem)
SHMEM__DECLARE_CACHE(shmem)

/* Deprecated routines (OpenSHMEM 1.2 and earlier), still in the spec. */
SHMEM_API SHMEM_DEPRECATED void start_pes(int npes);
SHMEM_API SHMEM_DEPRECATED int _my_pe(void);
SHMEM_API SHMEM_DEPRECATED int _num_pes(void);
SHMEM_API SHMEM_DEPRECATED void *shmalloc(size_t size);
SHMEM_API SHMEM_DEPRECATED void shfree(void *ptr);
SHMEM_API SHMEM_DEPRECATED void *shmemalign(size_t alignment, size_t size);
SHMEM_API SHMEM_DEPRECATED void *shrealloc(void *ptr, size_t size);

/* ------------------------------------------------------------------------ */
/* C11 generic interfaces                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Selected by the type the symmetric pointer points to, for every type of
 * the specification's table for the routine: the C types, then the
 * exact-width, size_t and ptrdiff_t typedefs (SHMEM__G_W_*, below).
 *
 * The RMA, AMO and signaling names take a context first, or not, as the
 * specification's do: shmem_put(dest, source, nelems, pe) and
 * shmem_put(ctx, dest, source, nelems, pe). SHMEM__G_CTX looks at the
 * first argument's type: a shmem_ctx_t picks the shmem_ctx_ family, and
 * the second argument picks the type; anything else picks the plain
 * family by the first. No argument is evaluated more than once.
 */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* The first and second arguments; the "~" keeps "..." from being empty. */
#define SHMEM__ARG0_(a, ...) a
#define SHMEM__ARG0(...) SHMEM__ARG0_(__VA_ARGS__, ~)
#define SHMEM__ARG1_(a, b, ...) b
#define SHMEM__ARG1(...) SHMEM__ARG1_(__VA_ARGS__, ~)
/* The typed pointer of a call with or without a context (not evaluated:
 * only ever a controlling expression). */
#define SHMEM__G_PTR(...)                                                      \
    _Generic(SHMEM__ARG0(__VA_ARGS__),                                         \
        shmem_ctx_t: SHMEM__ARG1(__VA_ARGS__),                                 \
        default: SHMEM__ARG0(__VA_ARGS__))
/* G(x, P, op) selects P_<type>_op by *x; P is shmem or shmem_ctx. */
#define SHMEM__G_CTX(G, op, ...)                                               \
    _Generic(SHMEM__ARG0(__VA_ARGS__),                                         \
        shmem_ctx_t: G(SHMEM__G_PTR(__VA_ARGS__), shmem_ctx, op),              \
        default: G(SHMEM__G_PTR(__VA_ARGS__), shmem, op))(__VA_ARGS__)

/*
 * The exact-width and size types of the tables are typedefs of the C
 * types above (int32_t is int, int64_t long here), but which one differs
 * between platforms, and one _Generic must not name a type twice. So each
 * list names the distinct C types first, and its default looks again
 * among the exact-width types (SHMEM__G_W_*), then size_t and ptrdiff_t
 * (SHMEM__G_S_*); a type none of them lists selects
 * shmem__generic_type_not_in_the_table, which takes no argument: the
 * call does not compile.
 */
void shmem__generic_type_not_in_the_table(void);
#define SHMEM__G_NONE shmem__generic_type_not_in_the_table
#define SHMEM__G_S_SIZE(x, P, op)                                              \
    _Generic(*(x), size_t: P##_size_##op, default: SHMEM__G_NONE)
#define SHMEM__G_S_BOTH(x, P, op)                                              \
    _Generic(*(x),                                                             \
        size_t: P##_size_##op,                                                 \
        ptrdiff_t: P##_ptrdiff_##op,                                           \
        default: SHMEM__G_NONE)
#define SHMEM__G_W_ALL(x, P, op, S)                                            \
    _Generic(*(x),                                                             \
        int8_t: P##_int8_##op,                                                 \
        int16_t: P##_int16_##op,                                               \
        int32_t: P##_int32_##op,                                               \
        int64_t: P##_int64_##op,                                               \
        uint8_t: P##_uint8_##op,                                               \
        uint16_t: P##_uint16_##op,                                             \
        uint32_t: P##_uint32_##op,                                             \
        uint64_t: P##_uint64_##op,                                             \
        default: S(x, P, op))
#define SHMEM__G_W_32_64(x, P, op, S)                                          \
    _Generic(*(x),                                                             \
        int32_t: P##_int32_##op,                                               \
        int64_t: P##_int64_##op,                                               \
        uint32_t: P##_uint32_##op,                                             \
        uint64_t: P##_uint64_##op,                                             \
        default: S(x, P, op))
#define SHMEM__G_S_NONE(x, P, op) SHMEM__G_NONE

#define SHMEM__G_RMA_P(x, P, op)                                               \
    _Generic(*(x),                                                             \
        float: P##_float_##op,                                                 \
        double: P##_double_##op,                                               \
        long double: P##_longdouble_##op,                                      \
        char: P##_char_##op,                                                   \
        signed char: P##_schar_##op,                                           \
        short: P##_short_##op,                                                 \
        int: P##_int_##op,                                                     \
        long: P##_long_##op,                                                   \
        long long: P##_longlong_##op,                                          \
        unsigned char: P##_uchar_##op,                                         \
        unsigned short: P##_ushort_##op,                                       \
        unsigned int: P##_uint_##op,                                           \
        unsigned long: P##_ulong_##op,                                         \
        unsigned long long: P##_ulonglong_##op,                                \
        default: SHMEM__G_W_ALL(x, P, op, SHMEM__G_S_BOTH))
#define SHMEM__G_RMA(x, op) SHMEM__G_RMA_P(x, shmem, op)

/* shmem_put([ctx,] dest, source, nelems, pe) and so on. */
#define shmem_put(...) SHMEM__G_CTX(SHMEM__G_RMA_P, put, __VA_ARGS__)
#define shmem_get(...) SHMEM__G_CTX(SHMEM__G_RMA_P, get, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEM__G_CTX(SHMEM__G_RMA_P, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEM__G_CTX(SHMEM__G_RMA_P, get_nbi, __VA_ARGS__)
#define shmem_p(...) SHMEM__G_CTX(SHMEM__G_RMA_P, p, __VA_ARGS__)
#define shmem_g(...) SHMEM__G_CTX(SHMEM__G_RMA_P, g, __VA_ARGS__)
#define shmem_iput(...) SHMEM__G_CTX(SHMEM__G_RMA_P, iput, __VA_ARGS__)
#define shmem_iget(...) SHMEM__G_CTX(SHMEM__G_RMA_P, iget, __VA_ARGS__)
#define shmem_put_signal(...)                                                  \
    SHMEM__G_CTX(SHMEM__G_RMA_P, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...)                                              \
    SHMEM__G_CTX(SHMEM__G_RMA_P, put_signal_nbi, __VA_ARGS__)

/* The AMOs: the standard types (int, long, long long, their unsigned
 * forms, the 32- and 64-bit exact-width types, size_t, ptrdiff_t), with
 * float and double for fetch, set and swap; the bitwise types (unsigned
 * int, long, long long, and the 32- and 64-bit exact-width types, int32_t
 * and int64_t included) for and, or and xor. The _nbi forms are selected
 * by their first pointer, fetch, which has the type of dest. */
#define SHMEM__G_AMO_STD_P(x, P, op)                                           \
    _Generic(*(x),                                                             \
        int: P##_int_##op,                                                     \
        long: P##_long_##op,                                                   \
        long long: P##_longlong_##op,                                          \
        unsigned int: P##_uint_##op,                                           \
        unsigned long: P##_ulong_##op,                                         \
        unsigned long long: P##_ulonglong_##op,                                \
        default: SHMEM__G_W_32_64(x, P, op, SHMEM__G_S_BOTH))
#define SHMEM__G_AMO_EXT_P(x, P, op)                                           \
    _Generic(*(x),                                                             \
        float: P##_float_##op,                                                 \
        double: P##_double_##op,                                               \
        int: P##_int_##op,                                                     \
        long: P##_long_##op,                                                   \
        long long: P##_longlong_##op,                                          \
        unsigned int: P##_uint_##op,                                           \
        unsigned long: P##_ulong_##op,                                         \
        unsigned long long: P##_ulonglong_##op,                                \
        default: SHMEM__G_W_32_64(x, P, op, SHMEM__G_S_BOTH))
#define SHMEM__G_AMO_BIT_P(x, P, op)                                           \
    _Generic(*(x),                                                             \
        unsigned int: P##_uint_##op,                                           \
        unsigned long: P##_ulong_##op,                                         \
        unsigned long long: P##_ulonglong_##op,                                \
        default: SHMEM__G_W_32_64(x, P, op, SHMEM__G_S_NONE))
#define SHMEM__G_AMO_STD(x, op) SHMEM__G_AMO_STD_P(x, shmem, op)
#define SHMEM__G_AMO_EXT(x, op) SHMEM__G_AMO_EXT_P(x, shmem, op)
#define SHMEM__G_AMO_BIT(x, op) SHMEM__G_AMO_BIT_P(x, shmem, op)

#define shmem_atomic_fetch(...)                                              \
    SHMEM__G_CTX(SHMEM__G_AMO_EXT_P, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...)                                                \
    SHMEM__G_CTX(SHMEM__G_AMO_EXT_P, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...)                                               \
    SHMEM__G_CTX(SHMEM__G_AMO_EXT_P, atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)                                          \
    SHMEM__G_CTX(SHMEM__G_AMO_EXT_P, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)                                           \
    SHMEM__G_CTX(SHMEM__G_AMO_EXT_P, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                       \
    SHMEM__G_CTX(SHMEM__G_AMO_STD_P, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)                                          \
    SHMEM__G_CTX(SHMEM__G_AMO_STD_P, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...)                                                \
    SHMEM__G_CTX(SHMEM__G_AMO_STD_P, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)                                          \
    SHMEM__G_CTX(SHMEM__G_AMO_STD_P, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...)                                                \
    SHMEM__G_CTX(SHMEM__G_AMO_STD_P, atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                   \
    SHMEM__G_CTX(SHMEM__G_AMO_STD_P, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                      \
    SHMEM__G_CTX(SHMEM__G_AMO_STD_P, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                      \
    SHMEM__G_CTX(SHMEM__G_AMO_STD_P, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)                                          \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)                                           \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)                                          \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_and(...)                                                \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_and, __VA_ARGS__)
#define shmem_atomic_or(...)                                                 \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_or, __VA_ARGS__)
#define shmem_atomic_xor(...)                                                \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                      \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                       \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                      \
    SHMEM__G_CTX(SHMEM__G_AMO_BIT_P, atomic_fetch_xor_nbi, __VA_ARGS__)

/* The point-to-point waits and tests. */
#define SHMEM__G_P2P(x, op)                                                    \
    _Generic(*(x),                                                             \
        short: shmem_short_##op,                                               \
        int: shmem_int_##op,                                                   \
        long: shmem_long_##op,                                                 \
        long long: shmem_longlong_##op,                                        \
        unsigned short: shmem_ushort_##op,                                     \
        unsigned int: shmem_uint_##op,                                         \
        unsigned long: shmem_ulong_##op,                                       \
        unsigned long long: shmem_ulonglong_##op,                              \
        default: SHMEM__G_W_32_64(x, shmem, op, SHMEM__G_S_BOTH))
#define shmem_wait_until(ivar, cmp, cmp_value)                                 \
    SHMEM__G_P2P(ivar, wait_until)(ivar, cmp, cmp_value)
#define shmem_wait_until_all(ivars, nelems, status, cmp, cmp_value)            \
    SHMEM__G_P2P(ivars, wait_until_all)(ivars, nelems, status, cmp, cmp_value)
#define shmem_wait_until_any(ivars, nelems, status, cmp, cmp_value)            \
    SHMEM__G_P2P(ivars, wait_until_any)(ivars, nelems, status, cmp, cmp_value)
#define shmem_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value)  \
    SHMEM__G_P2P(ivars, wait_until_some)(ivars, nelems, indices, status, cmp,  \
                                         cmp_value)
#define shmem_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values)    \
    SHMEM__G_P2P(ivars, wait_until_all_vector)(ivars, nelems, status, cmp,     \
                                               cmp_values)
#define shmem_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values)    \
    SHMEM__G_P2P(ivars, wait_until_any_vector)(ivars, nelems, status, cmp,     \
                                               cmp_values)
#define shmem_wait_until_some_vector(ivars, nelems, indices, status, cmp,      \
                                     cmp_values)                               \
    SHMEM__G_P2P(ivars, wait_until_some_vector)(ivars, nelems, indices,        \
                                                status, cmp, cmp_values)
#define shmem_test(ivar, cmp, cmp_value)                                       \
    SHMEM__G_P2P(ivar, test)(ivar, cmp, cmp_value)
#define shmem_test_all(ivars, nelems, status, cmp, cmp_value)                  \
    SHMEM__G_P2P(ivars, test_all)(ivars, nelems, status, cmp, cmp_value)
#define shmem_test_any(ivars, nelems, status, cmp, cmp_value)                  \
    SHMEM__G_P2P(ivars, test_any)(ivars, nelems, status, cmp, cmp_value)
#define shmem_test_some(ivars, nelems, indices, status, cmp, cmp_value)        \
    SHMEM__G_P2P(ivars, test_some)(ivars, nelems, indices, status, cmp,        \
                                   cmp_value)
#define shmem_test_all_vector(ivars, nelems, status, cmp, cmp_values)          \
    SHMEM__G_P2P(ivars, test_all_vector)(ivars, nelems, status, cmp,           \
                                         cmp_values)
#define shmem_test_any_vector(ivars, nelems, status, cmp, cmp_values)          \
    SHMEM__G_P2P(ivars, test_any_vector)(ivars, nelems, status, cmp,           \
                                         cmp_values)
#define shmem_test_some_vector(ivars, nelems, indices, status, cmp,            \
                               cmp_values)                                     \
    SHMEM__G_P2P(ivars, test_some_vector)(ivars, nelems, indices, status, cmp, \
                                          cmp_values)

/* The team collectives: broadcast, collect, fcollect, alltoall and
 * alltoalls on the standard RMA types; the reductions on the types each
 * operation has (and, or, xor: the unsigned types, the exact-width ones,
 * int8_t to int64_t included, and size_t). */
#define shmem_broadcast(team, dest, source, nelems, PE_root)                   \
    SHMEM__G_RMA(dest, broadcast)(team, dest, source, nelems, PE_root)
#define shmem_collect(team, dest, source, nelems)                              \
    SHMEM__G_RMA(dest, collect)(team, dest, source, nelems)
#define shmem_fcollect(team, dest, source, nelems)                             \
    SHMEM__G_RMA(dest, fcollect)(team, dest, source, nelems)
#define shmem_alltoall(team, dest, source, nelems)                             \
    SHMEM__G_RMA(dest, alltoall)(team, dest, source, nelems)
#define shmem_alltoalls(team, dest, source, dst, sst, nelems)                  \
    SHMEM__G_RMA(dest, alltoalls)(team, dest, source, dst, sst, nelems)
#define SHMEM__G_RED_BIT(x, op)                                                \
    _Generic(*(x),                                                             \
        unsigned char: shmem_uchar_##op,                                       \
        unsigned short: shmem_ushort_##op,                                     \
        unsigned int: shmem_uint_##op,                                         \
        unsigned long: shmem_ulong_##op,                                       \
        unsigned long long: shmem_ulonglong_##op,                              \
        default: SHMEM__G_W_ALL(x, shmem, op, SHMEM__G_S_SIZE))
#define SHMEM__G_RED_MINMAX(x, op)                                             \
    _Generic(*(x),                                                             \
        char: shmem_char_##op,                                                 \
        signed char: shmem_schar_##op,                                         \
        short: shmem_short_##op,                                               \
        int: shmem_int_##op,                                                   \
        long: shmem_long_##op,                                                 \
        long long: shmem_longlong_##op,                                        \
        unsigned char: shmem_uchar_##op,                                       \
        unsigned short: shmem_ushort_##op,                                     \
        unsigned int: shmem_uint_##op,                                         \
        unsigned long: shmem_ulong_##op,                                       \
        unsigned long long: shmem_ulonglong_##op,                              \
        float: shmem_float_##op,                                               \
        double: shmem_double_##op,                                             \
        long double: shmem_longdouble_##op,                                    \
        default: SHMEM__G_W_ALL(x, shmem, op, SHMEM__G_S_BOTH))
#define SHMEM__G_RED_SUMPROD(x, op)                                            \
    _Generic(*(x),                                                             \
        char: shmem_char_##op,                                                 \
        signed char: shmem_schar_##op,                                         \
        short: shmem_short_##op,                                               \
        int: shmem_int_##op,                                                   \
        long: shmem_long_##op,                                                 \
        long long: shmem_longlong_##op,                                        \
        unsigned char: shmem_uchar_##op,                                       \
        unsigned short: shmem_ushort_##op,                                     \
        unsigned int: shmem_uint_##op,                                         \
        unsigned long: shmem_ulong_##op,                                       \
        unsigned long long: shmem_ulonglong_##op,                              \
        float: shmem_float_##op,                                               \
        double: shmem_double_##op,                                             \
        long double: shmem_longdouble_##op,                                    \
        float _Complex: shmem_complexf_##op,                                   \
        double _Complex: shmem_complexd_##op,                                  \
        default: SHMEM__G_W_ALL(x, shmem, op, SHMEM__G_S_BOTH))
#define shmem_and_reduce(team, dest, source, nreduce)                          \
    SHMEM__G_RED_BIT(dest, and_reduce)(team, dest, source, nreduce)
#define shmem_or_reduce(team, dest, source, nreduce)                           \
    SHMEM__G_RED_BIT(dest, or_reduce)(team, dest, source, nreduce)
#define shmem_xor_reduce(team, dest, source, nreduce)                          \
    SHMEM__G_RED_BIT(dest, xor_reduce)(team, dest, source, nreduce)
#define shmem_max_reduce(team, dest, source, nreduce)                          \
    SHMEM__G_RED_MINMAX(dest, max_reduce)(team, dest, source, nreduce)
#define shmem_min_reduce(team, dest, source, nreduce)                          \
    SHMEM__G_RED_MINMAX(dest, min_reduce)(team, dest, source, nreduce)
#define shmem_sum_reduce(team, dest, source, nreduce)                          \
    SHMEM__G_RED_SUMPROD(dest, sum_reduce)(team, dest, source, nreduce)
#define shmem_prod_reduce(team, dest, source, nreduce)                         \
    SHMEM__G_RED_SUMPROD(dest, prod_reduce)(team, dest, source, nreduce)

/* The deprecated generic AMO names of OpenSHMEM 1.3 (no context): finc,
 * inc, fadd, add and cswap on int, long and long long; fetch, set and
 * swap on those and float and double. */
#define SHMEM__G_DEPR_AMO(x, op)                                               \
    _Generic(*(x),                                                             \
        int: shmem_int_##op,                                                   \
        long: shmem_long_##op,                                                 \
        long long: shmem_longlong_##op)
#define SHMEM__G_DEPR_AMO_EXT(x, op)                                           \
    _Generic(*(x),                                                             \
        float: shmem_float_##op,                                               \
        double: shmem_double_##op,                                             \
        int: shmem_int_##op,                                                   \
        long: shmem_long_##op,                                                 \
        long long: shmem_longlong_##op)
#define shmem_finc(dest, pe) SHMEM__G_DEPR_AMO(dest, finc)(dest, pe)
#define shmem_inc(dest, pe) SHMEM__G_DEPR_AMO(dest, inc)(dest, pe)
#define shmem_fadd(dest, value, pe) SHMEM__G_DEPR_AMO(dest, fadd)(dest, value, pe)
#define shmem_add(dest, value, pe) SHMEM__G_DEPR_AMO(dest, add)(dest, value, pe)
#define shmem_cswap(dest, cond, value, pe)                                     \
    SHMEM__G_DEPR_AMO(dest, cswap)(dest, cond, value, pe)
#define shmem_fetch(source, pe) SHMEM__G_DEPR_AMO_EXT(source, fetch)(source, pe)
#define shmem_set(dest, value, pe) SHMEM__G_DEPR_AMO_EXT(dest, set)(dest, value, pe)
#define shmem_swap(dest, value, pe) SHMEM__G_DEPR_AMO_EXT(dest, swap)(dest, value, pe)

/* shmem_sync(team) is shmem_team_sync; with four arguments it is the
 * deprecated active-set shmem_sync. */
#define SHMEM__SYNC_PICK(_1, _2, _3, _4, name, ...) name
#define shmem_sync(...)                                                        \
    SHMEM__SYNC_PICK(__VA_ARGS__, shmem_sync, shmem_sync, shmem_sync,          \
                     shmem_team_sync, -)(__VA_ARGS__)

#endif /* C11 */

/* ------------------------------------------------------------------------ */
/* What shmem4py may use                                                    */
/* ------------------------------------------------------------------------ */

/* shmem4py, the Python bindings, recognises the implementations it knows
 * by macros of their own; for any other it defines static stand-ins for
 * the OpenSHMEM 1.5 routines it may lack, which clash with the
 * declarations above and stop its build. It leaves a group of routines
 * alone where its PySHMEM_HAVE_ macro is defined: each line says that
 * gasket has that group, so shmem4py builds unchanged with this oshcc. */
#define PySHMEM_HAVE_shmem_malloc_with_hints 1
#define PySHMEM_HAVE_shmem_team_t 1
#define PySHMEM_HAVE_SHMEM_CTX_INVALID 1
#define PySHMEM_HAVE_shmem_amo_nbi 1
#define PySHMEM_HAVE_shmem_put_signal 1
#define PySHMEM_HAVE_shmem_signal_fetch 1
#define PySHMEM_HAVE_shmem_signal_wait_until 1
#define PySHMEM_HAVE_shmem_broadcast 1
#define PySHMEM_HAVE_shmem_collect 1
#define PySHMEM_HAVE_shmem_fcollect 1
#define PySHMEM_HAVE_shmem_alltoall 1
#define PySHMEM_HAVE_shmem_alltoalls 1
#define PySHMEM_HAVE_shmem_broadcastmem 1
#define PySHMEM_HAVE_shmem_collectmem 1
#define PySHMEM_HAVE_shmem_fcollectmem 1
#define PySHMEM_HAVE_shmem_alltoallmem 1
#define PySHMEM_HAVE_shmem_alltoallsmem 1
#define PySHMEM_HAVE_shmem_reduce 1
#define PySHMEM_HAVE_shmem_wait_test_many 1
#define PySHMEM_HAVE_shmem_pcontrol 1

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_H */

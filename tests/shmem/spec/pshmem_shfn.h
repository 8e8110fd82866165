/*
 * pshmem_shfn.h: the profiling example without weak symbols: one body,
 * included twice by pshmem_long_put.c, defines pshmem_spec_no_weak with
 * BUILD_PSHMEM_INTERFACES and shmem_spec_no_weak without it.
 */
#undef SHFN
#ifdef BUILD_PSHMEM_INTERFACES
#define SHFN(fn) p##fn
#define SHFN_CALLS 1000
#else
#define SHFN(fn) fn
#define SHFN_CALLS 100
#endif

void SHFN(shmem_spec_no_weak)(void)
{
    example_calls += SHFN_CALLS;
}
#undef SHFN_CALLS

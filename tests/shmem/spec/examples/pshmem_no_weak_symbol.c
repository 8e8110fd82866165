/* OpenSHMEM 1.5, section "OpenSHMEM Profiling Interface": the specification's example, verbatim. */
#ifdef BUILD_PSHMEM_INTERFACES
#define SHFN(fn) p##fn
#else
#define SHFN(fn) fn
#endif

void SHFN(shmem_example)(/* appropriate arguments */) { /* function body */
}

/* OpenSHMEM 1.5, section "OpenSHMEM Profiling Interface": the specification's example, verbatim. */
#pragma weak shmem_example = pshmem_example

void pshmem_example(/* appropriate arguments */) { /* function body */
}

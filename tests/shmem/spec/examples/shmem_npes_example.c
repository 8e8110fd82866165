/* OpenSHMEM 1.5, section "SHMEM_N_PES": the specification's example, verbatim. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  int mype = shmem_my_pe();
  int npes = shmem_n_pes();
  printf("I am #%d of %d PEs executing this program\n", mype, npes);
  shmem_finalize();
  return 0;
}

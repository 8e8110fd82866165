/*
 * layout_sem: a program that uses a semaphore, so that, linked
 * statically, its segment holds the semaphore pool (layout_mismatch.sh).
 */
#include <stdio.h>

#include "gasket.h"

int main(void)
{
    gk_sem_t sem;
    int status = gk_init();
    if (status == GK_OK)
        status = gk_sem_alloc(0u, &sem);
    printf("layout_sem: %s\n", gk_strerror(status));
    if (status == GK_OK)
        gk_finalize();
    return status == GK_OK ? 0 : 1;
}

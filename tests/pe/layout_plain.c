/*
 * layout_plain: gk_init and gk_finalize alone. Linked statically, it
 * carries none of the semaphores' code, so its segment has no semaphore
 * pool; layout_mismatch.sh runs it beside layout_sem, which has one.
 */
#include <stdio.h>

#include "gasket.h"

int main(void)
{
    int status = gk_init();
    printf("layout_plain: gk_init: %s\n", gk_strerror(status));
    if (status == GK_OK)
        gk_finalize();
    return status == GK_OK ? 0 : 1;
}

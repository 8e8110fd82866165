/*
 * time.c: gk_wtime, the public face of the monotonic clock of time.h.
 */
#include "base/time.h"

#include "gasket.h"

double gk_wtime(void)
{
    uint64_t ns = gk__now_ns();
    /* Whole seconds and the rest apart: the sum keeps every nanosecond
     * while the seconds stay below 2^22 (48 days of uptime), and rounds
     * to a few after that. */
    return (double)(ns / 1000000000u) + (double)(ns % 1000000000u) * 1e-9;
}

/*
 * pshmem_long_put.c: the specification's profiling examples. The program
 * defines shmem_long_put itself, as a tool would, timing each call and
 * forwarding it to pshmem_long_put; the library's shmem_long_put is a
 * weak alias, so the program's calls reach this one: one call counted,
 * its data delivered. The three examples of how a library provides both
 * names (a #pragma weak alias, an alias attribute, and one source
 * compiled with and without the p prefix) are tried here on a routine of
 * the program's own: each shmem_ name reaches its pshmem_ body.
 */
#include <pshmem.h>
#include <shmem.h>
#include <sys/time.h>

#include "spec_check.h"

static double total_put_time = 0.0;
static double avg_put_time = 0.0;
static long put_count = 0;

static double get_wtime(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1.0e6;
}

void shmem_long_put(long *dest, const long *source, size_t nelems, int pe)
{
    double t_start = get_wtime();
    pshmem_long_put(dest, source, nelems, pe);
    total_put_time += get_wtime() - t_start;
    put_count += 1;
    avg_put_time = total_put_time / (double)put_count;
}

/* The library-side techniques, on routines of this program. */
static int example_calls;

void pshmem_spec_weak_pragma(void);
void shmem_spec_weak_pragma(void);
void pshmem_spec_weak_pragma(void)
{
    example_calls += 1;
}
#pragma weak shmem_spec_weak_pragma = pshmem_spec_weak_pragma

void pshmem_spec_weak_alias(void);
void shmem_spec_weak_alias(void);
void pshmem_spec_weak_alias(void)
{
    example_calls += 10;
}
void shmem_spec_weak_alias(void) __attribute__((weak, alias("pshmem_spec_weak_alias")));

void pshmem_spec_no_weak(void);
void shmem_spec_no_weak(void);
#define BUILD_PSHMEM_INTERFACES
#include "pshmem_shfn.h"
#undef BUILD_PSHMEM_INTERFACES
#include "pshmem_shfn.h"

int main(void)
{
    static long dest[4];
    long source[4] = {1, 2, 3, 4};
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_long_put(dest, source, 4, (me + 1) % npes);
    shmem_barrier_all();
    SPEC_CHECK(put_count, 1);
    SPEC_CHECK(total_put_time >= 0.0 && avg_put_time == total_put_time, 1);
    for (int i = 0; i < 4; i++)
        SPEC_CHECK(dest[i], i + 1);
    /* Through the generic name too. */
    shmem_put(dest, source, 2, (me + 1) % npes);
    SPEC_CHECK(put_count, 2);

    shmem_spec_weak_pragma();
    shmem_spec_weak_alias();
    shmem_spec_no_weak();
    pshmem_spec_no_weak();
    SPEC_CHECK(example_calls, 1 + 10 + 100 + 1000);
    shmem_finalize();
    return 0;
}

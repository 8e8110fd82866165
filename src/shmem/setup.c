/*
 * setup.c: start-up, shut-down and the queries of the OpenSHMEM layer
 * (spec sections "Library Setup, Exit, and Query Routines" and "Thread
 * Support"), the deprecated start_pes/_my_pe/_num_pes, and the layer's
 * error exit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "shmem/shmem_int.h"

void gk__shmem_fail(const char *routine, int status)
{
    char why[160];
    snprintf(why, sizeof(why), "%s failed: %s", routine, gk_strerror(status));
    gk_abort(status < 0 ? -status : 1, why);
}

size_t gk__shmem_bytes(const char *routine, size_t nelems, size_t size)
{
    size_t nbytes;
    if (__builtin_mul_overflow(nelems, size, &nbytes)) {
        gk__error("%s: %zu elements of %zu bytes overflow size_t", routine, nelems,
                  size);
        gk__shmem_fail(routine, GK_ERR_INVALID_ARG);
    }
    return nbytes;
}

/*
 * SHMEM_SYMMETRIC_SIZE is the OpenSHMEM program's own name for the heap's
 * size, so it wins over GK_HEAP_SIZE: gasket reads its configuration from
 * the environment in gk_init(), so the value is handed over as
 * GK_HEAP_SIZE. A value gasket cannot parse ends the job here, with the
 * variable's name, rather than as a GK_HEAP_SIZE error the user never set.
 */
static void setup_symmetric_size(void)
{
    const char *text = getenv("SHMEM_SYMMETRIC_SIZE");
    size_t size;
    if (text == NULL)
        return;
    if (gk__config_parse_size(text, &size) != GK_OK || size == 0) {
        gk__error("SHMEM_SYMMETRIC_SIZE=%s is not a size (a number of bytes, with "
                  "an optional K, M, G or T suffix)",
                  text);
        gk__shmem_fail("shmem_init", GK_ERR_CONFIG);
    }
    if (setenv("GK_HEAP_SIZE", text, 1) != 0)
        gk__shmem_fail("shmem_init", GK_ERR_SYSTEM);
}

/*
 * Programs written before OpenSHMEM 1.3 (start_pes, and OSU's benchmarks
 * built without OSHM_1_3) never call shmem_finalize: their PEs simply
 * return from main. So a runtime the layer started is finalized at exit
 * if the program did not, as SOS and OSHMEM do; otherwise each such PE
 * would end the job as one that exited without finalizing.
 */
static void setup_finalize(void)
{
    /* gk_finalize() logs what went wrong (messages never received, a
     * collective mismatch) and has released everything all the same; the
     * routine has no way to report it further. */
    if (gk_initialized()) {
        gk__shmem_locks_check_finalize();
        gk__shmem_ctx_fini();
        gk__shmem_teams_fini();
        (void)gk_finalize();
    }
}

/*
 * Both APIs share the runtime: a program that called gk_init() first may
 * call shmem_init() (it does nothing then), and shmem_finalize() after
 * gk_finalize() does nothing either.
 */
static int setup_init(const char *routine, int requested, int *provided)
{
    static int at_exit_registered;
    gk_thread_level_t level = GK_THREAD_SINGLE;
    if (gk_initialized()) {
        SHMEM_CHECK(routine, gk_thread_query(&level));
    } else {
        setup_symmetric_size();
        /* OpenSHMEM's global and static variables are symmetric (the
         * spec's symmetric data objects); a user's GK_SYMMETRIC_DATA=0
         * stays. */
        if (setenv("GK_SYMMETRIC_DATA", "1", 0) != 0)
            gk__shmem_fail(routine, GK_ERR_SYSTEM);
        SHMEM_CHECK(routine, gk_init_thread((gk_thread_level_t)requested, &level));
        if (!at_exit_registered && atexit(setup_finalize) == 0)
            at_exit_registered = 1;
    }
    gk__shmem_teams_init(routine);
    if (provided != NULL)
        *provided = (int)level;
    return 0;
}

SHMEM_DEFINE(void, init, (void))
{
    setup_init("shmem_init", SHMEM_THREAD_SINGLE, NULL);
}

SHMEM_DEFINE(int, init_thread, (int requested, int *provided))
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        gk__error("shmem_init_thread: requested thread level %d is not one of "
                  "SHMEM_THREAD_SINGLE .. SHMEM_THREAD_MULTIPLE",
                  requested);
        return -1;
    }
    return setup_init("shmem_init_thread", requested, provided);
}

SHMEM_DEFINE(int, query_thread, (int *provided))
{
    gk_thread_level_t level;
    SHMEM_CHECK("shmem_query_thread", gk_thread_query(&level));
    *provided = (int)level;
    return 0;
}

SHMEM_DEFINE(void, finalize, (void))
{
    setup_finalize();
}

/* The job's exit status is `status` as the program gave it, 0 included:
 * a program may end the job early on success. The PE's buffered output
 * goes out first, as exit() would send it. */
SHMEM_DEFINE(void, global_exit, (int status))
{
    char why[64];
    snprintf(why, sizeof(why), "shmem_global_exit(%d)", status);
    fflush(NULL);
    gk_exit_job(status, why);
}

SHMEM_DEFINE(int, my_pe, (void))
{
    return gk_my_pe();
}

SHMEM_DEFINE(int, n_pes, (void))
{
    return gk_n_pes();
}

SHMEM_DEFINE(int, pe_accessible, (int pe))
{
    return pe >= 0 && pe < gk_n_pes();
}

/* Every PE reaches every other (through a mapping or a transport), so an
 * address is accessible when it is symmetric: inside this PE's heap. */
SHMEM_DEFINE(int, addr_accessible, (const void *addr, int pe))
{
    return pshmem_pe_accessible(pe) && gk_ptr(addr, gk_my_pe()) != NULL;
}

/* gk_ptr gives a global or static variable's address in the mapped
 * segment, which for the calling PE is an alias of the variable itself;
 * the program's own address is the one it expects back (as the heap's). */
SHMEM_DEFINE(void *, ptr, (const void *dest, int pe))
{
    void *p = gk_ptr(dest, pe);
    return p != NULL && pe == gk_my_pe() ? (void *)dest : p;
}

SHMEM_DEFINE(void, info_get_version, (int *major, int *minor))
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

SHMEM_DEFINE(void, info_get_name, (char *name))
{
    _Static_assert(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN,
                   "the vendor string fits SHMEM_MAX_NAME_LEN");
    memcpy(name, SHMEM_VENDOR_STRING, sizeof(SHMEM_VENDOR_STRING));
}

/* Profiling control: gasket has no profiling levels; tools interpose it. */
SHMEM_DEFINE(void, pcontrol, (int level, ...))
{
}

void start_pes(int npes)
{
    (void)npes; /* the launcher decides the number of PEs */
    setup_init("start_pes", SHMEM_THREAD_SINGLE, NULL);
}

int _my_pe(void)
{
    return gk_my_pe();
}

int _num_pes(void)
{
    return gk_n_pes();
}

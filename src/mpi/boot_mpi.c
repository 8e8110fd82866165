/*
 * boot_mpi.c: libgasket_mpi: gasket's bootstrap over an MPI communicator
 * (src/boot/boot.h's back-end table), gk_init_mpi() and
 * gk_init_thread_mpi().
 *
 * The back end works on a duplicate of the user's communicator, so its
 * collectives never match the application's. Rank 0 draws the job key
 * (which names the node's shared-memory segments) and broadcasts it; the
 * exchange of the bootstrap is MPI_Allgather; a PE that dies is MPI's
 * business (mpirun ends the job), so the liveness check has nothing to do;
 * gk_abort() ends the job with MPI_Abort; finalize leaves MPI alone (the
 * program finalizes it).
 *
 * gasket calls MPI only inside gk_init_mpi() and gk_abort(). The duplicate
 * is freed by MPI itself: an attribute on MPI_COMM_SELF whose delete
 * callback runs at the start of the program's MPI_Finalize (MPI-3.1
 * section 8.7.1), not by gk_finalize(), so gk_finalize() makes no MPI call.
 */
#include "mpi/boot_mpi.h"

#include <gasket_mpi.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* gasket's duplicate of the user's communicator, from gk__boot_mpi_open()
 * until the program's MPI_Finalize. */
static MPI_Comm boot_comm = MPI_COMM_NULL;
/* Set while gk_init_mpi() runs: MPI calls are allowed then. */
static int boot_in_init;
static int boot_keyval = MPI_KEYVAL_INVALID;

static void boot_mpi_error(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    int rank = -1, initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank >= 0)
        fprintf(stderr, "gasket[PE %d] error: %s\n", rank, line);
    else
        fprintf(stderr, "gasket[PE ?] error: %s\n", line);
}

static int mpi_allgather(struct gk__boot *boot, const void *mine, void *all, size_t len)
{
    (void)boot;
    int rc;
    if (len == 0) /* the out-of-band barrier */
        rc = MPI_Barrier(boot_comm);
    else if (len > INT_MAX)
        return GK_ERR_INVALID_ARG;
    else
        rc = MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, boot_comm);
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int text_len = 0;
        MPI_Error_string(rc, text, &text_len);
        boot_mpi_error("bootstrap: MPI_%s failed: %s", len == 0 ? "Barrier" : "Allgather",
                       text);
        return GK_ERR_BOOT;
    }
    return GK_OK;
}

static int mpi_finalize(struct gk__boot *boot)
{
    (void)boot;
    return GK_OK; /* the program finalizes MPI */
}

static void mpi_end(int status)
{
    /* MPI_COMM_WORLD, not our duplicate: MPICH's abort of another
     * communicator waits on progress of its other ranks, which may sit in
     * gasket (a barrier) and never answer; over MPI_COMM_WORLD both Open MPI
     * and MPICH have the launcher end every process at once. */
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Abort(MPI_COMM_WORLD, status);
    /* MPI is gone: the caller exits this process alone. */
}

static void mpi_abort(struct gk__boot *boot, int exit_code, const char *why)
{
    (void)boot;
    (void)why; /* gk_abort() has printed it */
    mpi_end(gk__boot_abort_status(exit_code));
}

static void mpi_exit_job(struct gk__boot *boot, int status, const char *why)
{
    (void)boot;
    (void)why;
    mpi_end(status & 0xff);
}

static int mpi_check_alive(struct gk__boot *boot)
{
    (void)boot;
    return GK_OK; /* mpirun ends the job when a rank dies */
}

static void mpi_fini(struct gk__boot *boot)
{
    (void)boot;
    /* A start that failed inside gk_init_mpi() frees its duplicate now;
     * after a successful start the duplicate lives until MPI_Finalize. */
    if (boot_in_init && boot_comm != MPI_COMM_NULL)
        MPI_Comm_free(&boot_comm);
}

static const struct gk__boot_ops mpi_ops = {
    .name = "mpi",
    .allgather = mpi_allgather,
    .finalize = mpi_finalize,
    .abort = mpi_abort,
    .exit_job = mpi_exit_job,
    .check_alive = mpi_check_alive,
    .fini = mpi_fini,
};

/* Runs at the start of MPI_Finalize, while MPI still works. */
static int boot_comm_free_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    if (boot_comm != MPI_COMM_NULL)
        MPI_Comm_free(&boot_comm);
    return MPI_SUCCESS;
}

/* 32 random hex digits, the form gasket-run's GK_JOB_KEY has. */
static void boot_draw_job_key(char *key, size_t size)
{
    uint64_t word[2];
    if (getrandom(word, sizeof(word), 0) != (ssize_t)sizeof(word)) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        word[0] = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
        word[1] = ((uint64_t)getpid() << 32) ^ (uint64_t)gethostid() ^ (uint64_t)clock();
    }
    snprintf(key, size, "%016llx%016llx", (unsigned long long)word[0],
             (unsigned long long)word[1]);
}

int gk__boot_mpi_open(struct gk__boot *boot, void *arg)
{
    MPI_Comm user = *(MPI_Comm *)arg;
    if (boot_comm != MPI_COMM_NULL) /* left by an earlier start that failed */
        MPI_Comm_free(&boot_comm);
    if (MPI_Comm_dup(user, &boot_comm) != MPI_SUCCESS) {
        boot_mpi_error("gk_init_mpi: MPI_Comm_dup failed");
        boot_comm = MPI_COMM_NULL;
        return GK_ERR_BOOT;
    }
    /* Errors in the bootstrap come back as gk_init_mpi()'s status. */
    MPI_Comm_set_errhandler(boot_comm, MPI_ERRORS_RETURN);
    if (boot_keyval == MPI_KEYVAL_INVALID) {
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, boot_comm_free_at_finalize,
                                   &boot_keyval, NULL) != MPI_SUCCESS ||
            MPI_Comm_set_attr(MPI_COMM_SELF, boot_keyval, NULL) != MPI_SUCCESS) {
            boot_mpi_error("gk_init_mpi: cannot attach to MPI_COMM_SELF");
            MPI_Comm_free(&boot_comm);
            return GK_ERR_BOOT;
        }
    }
    MPI_Comm_rank(boot_comm, &boot->rank);
    MPI_Comm_size(boot_comm, &boot->size);
    boot->ops = &mpi_ops;
    boot->backend = &boot_comm;

    char key[sizeof(boot->job_key)];
    memset(key, 0, sizeof(key));
    if (boot->rank == 0)
        boot_draw_job_key(key, sizeof(key));
    int rc = MPI_Bcast(key, (int)sizeof(key), MPI_CHAR, 0, boot_comm);
    if (rc != MPI_SUCCESS) {
        boot_mpi_error("gk_init_mpi: MPI_Bcast of the job key failed");
        MPI_Comm_free(&boot_comm);
        boot->ops = NULL;
        return GK_ERR_BOOT;
    }
    memcpy(boot->job_key, key, sizeof(boot->job_key));
    boot->job_key[sizeof(boot->job_key) - 1] = '\0';
    return GK_OK;
}

/* gk_init() (threaded == 0) or gk_init_thread() over `comm`. */
static int boot_mpi_start(const char *who, MPI_Comm comm, int threaded,
                          gk_thread_level_t requested, gk_thread_level_t *provided_p)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        boot_mpi_error("%s: MPI is %s (call it between MPI_Init and MPI_Finalize)", who,
                       finalized ? "finalized" : "not initialized");
        return GK_ERR_BOOT;
    }
    if (comm == MPI_COMM_NULL) {
        boot_mpi_error("%s: the communicator is MPI_COMM_NULL", who);
        return GK_ERR_INVALID_ARG;
    }
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
        boot_mpi_error("%s: the communicator is an intercommunicator", who);
        return GK_ERR_INVALID_ARG;
    }
    static MPI_Comm user;
    user = comm;
    gk__boot_use_external(gk__boot_mpi_open, &user);
    boot_in_init = 1;
    int status = threaded ? gk_init_thread(requested, provided_p) : gk_init();
    boot_in_init = 0;
    /* gk_init() consumes the opener; one that refused early did not. */
    gk__boot_use_external(NULL, NULL);
    return status;
}

int gk_init_mpi(MPI_Comm comm)
{
    return boot_mpi_start("gk_init_mpi", comm, 0, 0, NULL);
}

int gk_init_thread_mpi(MPI_Comm comm, gk_thread_level_t requested,
                       gk_thread_level_t *provided_p)
{
    return boot_mpi_start("gk_init_thread_mpi", comm, 1, requested, provided_p);
}

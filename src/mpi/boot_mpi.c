/*
 * boot_mpi.c: libgasket_mpi: gasket's bootstrap over an MPI communicator
 * (src/boot/boot.h's back-end table), and gk_init_mpi().
 *
 * The back end works on a duplicate of the user's communicator, so its
 * collectives never match the application's. Rank 0 draws the job key
 * (which names the node's shared-memory segments) and broadcasts it; the
 * exchange of the bootstrap is MPI_Allgather; a PE that dies is MPI's
 * business (mpirun ends the job), so the liveness check has nothing to do;
 * gk_abort() ends the job with MPI_Abort. After start-up gasket does not
 * call MPI again, so the program's MPI thread level is its own affair.
 */
#include <gasket_mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"

static MPI_Comm boot_comm = MPI_COMM_NULL;

static int mpi_allgather(struct gk__boot *boot, const void *mine, void *all, size_t len)
{
    (void)boot;
    if (len == 0) /* the out-of-band barrier */
        return MPI_Barrier(boot_comm) == MPI_SUCCESS ? GK_OK : GK_ERR_BOOT;
    int rc = MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, boot_comm);
    return rc == MPI_SUCCESS ? GK_OK : GK_ERR_BOOT;
}

static int mpi_finalize(struct gk__boot *boot)
{
    (void)boot;
    return GK_OK;
}

static void mpi_abort(struct gk__boot *boot, int exit_code, const char *why)
{
    (void)boot;
    fprintf(stderr, "gasket: %s\n", why != NULL ? why : "gk_abort");
    MPI_Abort(boot_comm != MPI_COMM_NULL ? boot_comm : MPI_COMM_WORLD, exit_code);
}

static int mpi_check_alive(struct gk__boot *boot)
{
    (void)boot;
    return GK_OK;
}

static void mpi_fini(struct gk__boot *boot)
{
    (void)boot;
    /* MPI may be finalized already when gasket is torn down by an exit
     * path; a communicator we cannot free is freed by MPI_Finalize. */
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && boot_comm != MPI_COMM_NULL)
        MPI_Comm_free(&boot_comm);
    boot_comm = MPI_COMM_NULL;
}

static const struct gk__boot_ops mpi_ops = {
    .name = "mpi",
    .allgather = mpi_allgather,
    .finalize = mpi_finalize,
    .abort = mpi_abort,
    .check_alive = mpi_check_alive,
    .fini = mpi_fini,
};

static int mpi_open(struct gk__boot *boot, void *arg)
{
    MPI_Comm user = *(MPI_Comm *)arg;
    if (MPI_Comm_dup(user, &boot_comm) != MPI_SUCCESS)
        return GK_ERR_BOOT;
    MPI_Comm_rank(boot_comm, &boot->rank);
    MPI_Comm_size(boot_comm, &boot->size);
    boot->ops = &mpi_ops;
    /* The job key: random on rank 0 (the same form as gasket-run's). */
    char key[sizeof(boot->job_key)];
    memset(key, 0, sizeof(key));
    if (boot->rank == 0) {
        unsigned long long a = 0, b = 0;
        FILE *f = fopen("/dev/urandom", "r");
        if (f == NULL || fread(&a, sizeof(a), 1, f) != 1 || fread(&b, sizeof(b), 1, f) != 1)
            a = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20),
            b = (unsigned long long)clock();
        if (f != NULL)
            fclose(f);
        snprintf(key, sizeof(key), "m%016llx%08llx", a, b & 0xffffffffULL);
    }
    if (MPI_Bcast(key, (int)sizeof(key), MPI_CHAR, 0, boot_comm) != MPI_SUCCESS)
        return GK_ERR_BOOT;
    memcpy(boot->job_key, key, sizeof(boot->job_key));
    boot->job_key[sizeof(boot->job_key) - 1] = '\0';
    return GK_OK;
}

int gk_init_mpi(MPI_Comm comm)
{
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        fprintf(stderr, "gasket: gk_init_mpi: MPI is not initialized (call MPI_Init first)\n");
        return GK_ERR_BOOT;
    }
    static MPI_Comm arg;
    arg = comm;
    gk__boot_use_external(mpi_open, &arg);
    return gk_init();
}

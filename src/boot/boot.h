/*
 * boot.h: the bootstrap interface. It answers who am I, how many PEs there
 * are and which share my node, and offers an exchange of small blobs
 * (allgather) and an out-of-band barrier. Back ends: our launcher
 * (boot_launcher.c), a resource manager's PMIx server (boot_pmix.c: srun
 * --mpi=pmix, mpirun), a single PE started without one (boot_single.c),
 * and an MPI communicator (libgasket_mpi's, plugged in from outside).
 */
#ifndef GK_BOOT_BOOT_H
#define GK_BOOT_BOOT_H

#include <stddef.h>
#include <sys/types.h>

struct gk__boot;

struct gk__boot_ops {
    const char *name;
    /* Gathers `len` bytes from every PE into `all` (size * len), rank order. */
    int (*allgather)(struct gk__boot *boot, const void *mine, void *all, size_t len);
    /* Tells the back end this PE finalized cleanly (after the last barrier). */
    int (*finalize)(struct gk__boot *boot);
    /* Asks the back end to end the job with gk__boot_abort_status(exit_code)
     * (exit_code as gk_abort() was given it, for reports); may return (the
     * caller then exits). */
    void (*abort)(struct gk__boot *boot, int exit_code, const char *why);
    /* Asks the back end to end the job with exactly `status` modulo 256,
     * 0 included: a program's own ending of the job (shmem_global_exit),
     * not a failure. May return (the caller then exits with it). */
    void (*exit_job)(struct gk__boot *boot, int status, const char *why);
    /* GK_OK while the job lives; an error once the launcher is gone. */
    int (*check_alive)(struct gk__boot *boot);
    void (*fini)(struct gk__boot *boot);
};

struct gk__boot {
    const struct gk__boot_ops *ops;
    int rank;
    int size;
    /* The job key names the job's shared-memory segments (launcher_proto.h). */
    char job_key[40];
    /* Node map: node_id[pe] is the lowest PE number on pe's node. */
    int *node_id;
    int node_size;  /* PEs on my node */
    int node_index; /* my position among them, 0 .. node_size-1 */
    int node_cpus;  /* CPUs the job may use on this node; 0: not told */
    int node_cpu_sharers; /* the PEs that share them; 0: this node's */
    /* Back-end state. */
    int fd;
    pid_t launcher_pid;
    void *backend; /* an external back end's own (the MPI communicator) */
};

/* The exit status of gk_abort(exit_code): exit_code modulo 256, as exit()
 * takes it, or 1 where that is 0: an abort never passes for success. */
static inline int gk__boot_abort_status(int exit_code)
{
    return (exit_code & 0xff) != 0 ? exit_code & 0xff : 1;
}

/* Chooses the back end from the environment and builds the node map. */
int gk__boot_init(struct gk__boot *boot);
void gk__boot_fini(struct gk__boot *boot);

static inline int gk__boot_allgather(struct gk__boot *boot, const void *mine,
                                     void *all, size_t len)
{
    return boot->ops->allgather(boot, mine, all, len);
}

/* The out-of-band barrier: an allgather of nothing. */
static inline int gk__boot_barrier(struct gk__boot *boot)
{
    return boot->ops->allgather(boot, NULL, NULL, 0);
}

/* Back ends. */
int gk__boot_launcher_open(struct gk__boot *boot);
int gk__boot_single_open(struct gk__boot *boot);
#ifdef GK_HAVE_PMIX
#define GK__BOOT_HAVE_PMIX 1
int gk__boot_pmix_open(struct gk__boot *boot);
/* The PMIx library's version string. */
const char *gk__boot_pmix_version(void);
#else
#define GK__BOOT_HAVE_PMIX 0
#endif

/* The back ends gk__boot_init chooses among (not the external one). */
enum gk__boot_kind { GK__BOOT_LAUNCHER, GK__BOOT_PMIX, GK__BOOT_SINGLE, GK__BOOT_INVALID };
/* Which one gk__boot_init would open here: GK_BOOTSTRAP, else the
 * environment (gasket-run's GK_BOOT_FD, then PMIx's PMIX_RANK, else a
 * single PE). *why_p says why in words (for GK__BOOT_INVALID: the value). */
enum gk__boot_kind gk__boot_choose(const char **why_p);
const char *gk__boot_kind_name(enum gk__boot_kind kind);

/*
 * An external back end (libgasket_mpi's, over an MPI communicator): the
 * next gk__boot_init() calls open(boot, arg) instead of choosing from the
 * environment, once. Exported for libgasket_mpi only; not public API.
 */
typedef int (*gk__boot_open_fn)(struct gk__boot *boot, void *arg);
__attribute__((visibility("default"))) void gk__boot_use_external(gk__boot_open_fn open,
                                                                    void *arg);

#endif /* GK_BOOT_BOOT_H */

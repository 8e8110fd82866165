/*
 * gasket_run_hosts.c: simulated hosts for gasket-run --hosts K. The job's
 * PEs are spread over K hosts in contiguous blocks, and each host is a set
 * of namespaces of its own: UTS (its own hostname, so the bootstrap's node
 * map, built from host name and boot id, sees K nodes), IPC (System V IPC
 * and POSIX message queues) and mount, with a fresh tmpfs on /dev/shm. The
 * network namespace stays the launcher's, so every host reaches every
 * other over loopback, which is what an off-node transport must use.
 *
 * Each host's namespaces are made by a short-lived child of the launcher
 * (unshare, private mount propagation, the tmpfs, sethostname). Once it
 * says it is ready the launcher opens its /proc/<pid>/ns files and lets it
 * go; those descriptors keep the namespaces alive until every PE has
 * entered its host's (setns, in the PE between fork and exec) and are then
 * closed. So no process but the PEs (and what they start) lives in a host,
 * and a host's /dev/shm vanishes with its last process: nothing of a job
 * run with --hosts is ever left in /dev/shm, whether the launcher exits or
 * is killed. The PEs remain the launcher's own children, so noticing and
 * reporting a failed PE works as without --hosts.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gasket_run.h"

static const struct {
    const char *name; /* under /proc/<pid>/ns/ */
    int type;
} host_ns[RUN_HOST_NS] = {
    {"uts", CLONE_NEWUTS}, {"ipc", CLONE_NEWIPC}, {"mnt", CLONE_NEWNS}};

/* What the set-up child says: the step that failed and its errno, or none. */
enum host_step { HOST_READY, HOST_UNSHARE, HOST_PRIVATE, HOST_TMPFS, HOST_HOSTNAME };

struct host_report {
    int step;
    int err;
};

static const char *host_step_text(int step)
{
    switch (step) {
    case HOST_UNSHARE:
        return "unshare(CLONE_NEWUTS|CLONE_NEWIPC|CLONE_NEWNS)";
    case HOST_PRIVATE:
        return "making the mounts private (mount --make-rprivate /)";
    case HOST_TMPFS:
        return "mounting a tmpfs on /dev/shm";
    case HOST_HOSTNAME:
        return "sethostname";
    default:
        return "setting up";
    }
}

int run_host_of(const struct run_job *job, int rank)
{
    return job->hosts > 0 ? (int)((int64_t)rank * job->hosts / job->npes) : 0;
}

static void host_name(int host, char *name, size_t size)
{
    snprintf(name, size, "gk-host%d", host);
}

/* The set-up child: makes the namespaces, says how it went, and waits
 * until the launcher has opened them (or is gone). */
static void host_setup_main(int host, int sock, pid_t launcher, const char *tmpfs_options)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher)
        _exit(1);
    /* A ^C during the set-up is the launcher's to handle (it dies, and we
     * with it); we must not be the one to fail. */
    int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
        signal(ignored[i], SIG_IGN);
    char name[64];
    host_name(host, name, sizeof(name));
    struct host_report report = {HOST_READY, 0};
    const unsigned long tmpfs_flags = MS_NOSUID | MS_NODEV; /* as the machine's */
    if (unshare(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS) != 0)
        report = (struct host_report){HOST_UNSHARE, errno};
    /* Private, or our tmpfs would show up on the launcher's /dev/shm
     * (where / is a shared mount, as under systemd). */
    else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        report = (struct host_report){HOST_PRIVATE, errno};
    else if (mount("tmpfs", "/dev/shm", "tmpfs", tmpfs_flags, tmpfs_options) != 0)
        report = (struct host_report){HOST_TMPFS, errno};
    else if (sethostname(name, strlen(name)) != 0)
        report = (struct host_report){HOST_HOSTNAME, errno};
    ssize_t unused = write(sock, &report, sizeof(report));
    (void)unused;
    char byte;
    while (read(sock, &byte, 1) < 0 && errno == EINTR)
        ;
    _exit(0);
}

static void host_report_error(const struct run_job *job, int host,
                              const struct host_report *report)
{
    if (report->err == EPERM)
        run_error("--hosts needs root (CAP_SYS_ADMIN) to give each simulated host its "
                  "own namespaces: %s failed: %s",
                  host_step_text(report->step), strerror(report->err));
    else
        run_error("--hosts %d: cannot set up simulated host %d: %s failed: %s",
                  job->hosts, host, host_step_text(report->step), strerror(report->err));
}

/* Makes host `host`'s namespaces and opens them into job->host_ns. */
static int host_setup(struct run_job *job, int host, const char *tmpfs_options)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        run_error("--hosts: socketpair failed: %s", strerror(errno));
        return -1;
    }
    pid_t launcher = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(pair[0]);
        host_setup_main(host, pair[1], launcher, tmpfs_options);
    }
    close(pair[1]);
    if (pid < 0) {
        run_error("--hosts: fork failed for simulated host %d: %s", host,
                  strerror(errno));
        close(pair[0]);
        return -1;
    }
    struct host_report report;
    ssize_t got;
    do
        got = read(pair[0], &report, sizeof(report));
    while (got < 0 && errno == EINTR);
    int status = 0;
    if (got != (ssize_t)sizeof(report)) {
        run_error("--hosts: the process setting up simulated host %d ended early", host);
        status = -1;
    } else if (report.step != HOST_READY) {
        host_report_error(job, host, &report);
        status = -1;
    }
    for (int i = 0; i < RUN_HOST_NS && status == 0; i++) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, host_ns[i].name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            run_error("--hosts: cannot open %s for simulated host %d: %s", path, host,
                      strerror(errno));
            status = -1;
        }
        job->host_ns[host * RUN_HOST_NS + i] = fd;
    }
    close(pair[0]); /* lets it go */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return status;
}

int run_hosts_start(struct run_job *job)
{
    size_t n_fds = (size_t)job->hosts * RUN_HOST_NS;
    job->host_ns = malloc(n_fds * sizeof(int));
    if (job->host_ns == NULL) {
        run_error("out of memory for %d simulated hosts", job->hosts);
        return -1;
    }
    for (size_t i = 0; i < n_fds; i++)
        job->host_ns[i] = -1;
    /* Each host's /dev/shm as large as this machine's: a simulated host is
     * this machine, as far as the PEs can tell. */
    char tmpfs_options[64] = "mode=1777";
    struct statvfs fs;
    if (statvfs("/dev/shm", &fs) == 0 && fs.f_blocks > 0)
        snprintf(tmpfs_options, sizeof(tmpfs_options), "mode=1777,size=%llu",
                 (unsigned long long)fs.f_blocks * fs.f_frsize);
    for (int host = 0; host < job->hosts; host++) {
        if (host_setup(job, host, tmpfs_options) != 0) {
            run_hosts_release(job);
            return -1;
        }
    }
    return 0;
}

int run_host_enter(const struct run_job *job, int rank, const char *cwd)
{
    int host = run_host_of(job, rank);
    for (int i = 0; i < RUN_HOST_NS; i++) {
        if (setns(job->host_ns[host * RUN_HOST_NS + i], host_ns[i].type) != 0) {
            run_error("--hosts: PE %d cannot enter simulated host %d (setns %s): %s",
                      rank, host, host_ns[i].name, strerror(errno));
            return -1;
        }
    }
    /* Entering a mount namespace moves us to its root; the same path is
     * our working directory there (the host's mounts are copies of ours). */
    if (cwd != NULL && chdir(cwd) != 0) {
        run_error("--hosts: PE %d cannot change to %s in simulated host %d: %s", rank,
                  cwd, host, strerror(errno));
        return -1;
    }
    return 0;
}

void run_hosts_release(struct run_job *job)
{
    if (job->host_ns == NULL)
        return;
    for (int i = 0; i < job->hosts * RUN_HOST_NS; i++)
        if (job->host_ns[i] >= 0)
            close(job->host_ns[i]);
    free(job->host_ns);
    job->host_ns = NULL;
}

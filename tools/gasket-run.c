/*
 * gasket-run: starts a gasket job of N PEs on this node and watches it.
 *
 * It forks the PEs, serves their bootstrap requests (src/boot/
 * launcher_proto.h) over one socket each, forwards their output (prefixed
 * with --tag), and ends the whole job as soon as one PE fails: killed by a
 * signal, exited non-zero before gk_finalize, exited without gk_finalize
 * while others still run, closed its connection before gk_finalize while it
 * runs on, or called gk_abort. It then stops the other PEs (SIGTERM,
 * SIGKILL a second later), says which PE failed and how in one line,
 * removes the job's shared-memory names and exits non-zero. The loop that
 * does this is gasket_run_loop.c; this file reads the command line and
 * starts the PEs.
 *
 * The PEs die with the launcher (PR_SET_PDEATHSIG), so a killed launcher
 * leaves no orphans; a small clean-up helper outlives it just long enough
 * to remove the job's shared-memory names, so it leaves no segments either.
 * With --hosts the PEs run on simulated hosts (gasket_run_hosts.c), each
 * with a /dev/shm of its own that vanishes with its last PE, and neither
 * the helper nor the launcher's own clean-up is needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../include/gasket.h" /* GASKET_VERSION_*, nothing else */
#include "gasket_run.h"

/* The signals the launcher handles; each reaches the loop as one byte on the
 * self-pipe. All but SIGCHLD are passed on to the PEs. */
static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
#define N_HANDLED (sizeof(handled_signals) / sizeof(handled_signals[0]))

static int signal_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char byte = (unsigned char)sig;
    ssize_t unused = write(signal_pipe[1], &byte, 1);
    (void)unused;
    errno = saved;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: gasket-run -n N [options] program [args...]\n"
            "Starts N gasket PEs of program on this node.\n"
            "  -n N, --np N   number of PEs (1 to %d)\n"
            "  --tag          prefix every output line with [PE r]\n"
            "  --bind         pin PE r to the r-th allowed CPU (modulo their number)\n"
            "  --check        check mode for every PE (GK_CHECK=1): non-blocking\n"
            "                 operations take effect at their completion point\n"
            "  --timeout S    stop the job after S seconds and exit 124; 0: no limit\n"
            "                 (default: $GASKET_RUN_TIMEOUT, else none)\n"
            "  --hosts K      spread the PEs over K simulated hosts (1 to N) in blocks,\n"
            "                 each with its own hostname, IPC and /dev/shm, talking\n"
            "                 over loopback (needs root: CAP_SYS_ADMIN)\n"
            "  -h, --help     this text\n"
            "  --version      the version\n",
            RUN_MAX_PES);
}

/* A number of seconds, fractions allowed; 0 means no limit. */
static int parse_seconds(const char *text, double *value_p)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    /* The comparisons also turn away NaN and infinity. */
    if (errno != 0 || end == text || *end != '\0' || !(value >= 0 && value <= 1e9))
        return -1;
    *value_p = value;
    return 0;
}

/*
 * If argv[*arg] is option `short_name` ("-n 4", "-n4") or `long_name`
 * ("--np 4", "--np=4"), stores its value (NULL when missing) in *value_p,
 * moves *arg past it and returns 1; otherwise returns 0.
 */
static int option_value(int argc, char **argv, int *arg, const char *short_name,
                        const char *long_name, const char **value_p)
{
    const char *opt = argv[*arg];
    size_t len;
    if (short_name != NULL && strncmp(opt, short_name, strlen(short_name)) == 0) {
        len = strlen(short_name);
        if (opt[len] != '\0') {
            *value_p = opt + len;
            return 1;
        }
    } else if (strncmp(opt, long_name, strlen(long_name)) == 0) {
        len = strlen(long_name);
        if (opt[len] == '=') {
            *value_p = opt + len + 1;
            return 1;
        }
        if (opt[len] != '\0')
            return 0; /* --npx is not --np */
    } else {
        return 0;
    }
    *value_p = *arg + 1 < argc ? argv[++*arg] : NULL;
    return 1;
}

/* ---- checks before starting ---- */

/* Whether execvp() would find an executable file `program`; if not, errno
 * says why, so a typo gives one message instead of one per PE. */
static int program_runnable(const char *program)
{
    struct stat st;
    if (strchr(program, '/') != NULL) {
        if (stat(program, &st) != 0)
            return 0;
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return 0;
        }
        return access(program, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    int saw_denied = 0;
    for (;;) {
        size_t len = strcspn(path, ":");
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)len, len ? path : ".",
                 program);
        if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(candidate, X_OK) == 0)
                return 1;
            saw_denied = 1;
        }
        if (path[len] == '\0')
            break;
        path += len + 1;
    }
    errno = saw_denied ? EACCES : ENOENT;
    return 0;
}

/* With fd 0, 1 or 2 closed, a socket could land there and --tag's dup2()
 * would overwrite it; put /dev/null in their place. */
static void open_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", O_RDWR) != fd)
            break;
}

/* Each PE costs a socket, and under --tag two pipes. Raises the soft limit
 * on open files as far as needed; PEs get the original limit back. */
static struct rlimit original_nofile;
static int nofile_raised;

static int raise_fd_limit(const struct run_job *job)
{
    rlim_t need =
        32 + (rlim_t)job->npes * (job->tag ? 3 : 1) + (rlim_t)job->hosts * RUN_HOST_NS;
    if (getrlimit(RLIMIT_NOFILE, &original_nofile) != 0)
        return 0;
    if (original_nofile.rlim_cur == RLIM_INFINITY || original_nofile.rlim_cur >= need)
        return 0;
    if (original_nofile.rlim_max != RLIM_INFINITY && original_nofile.rlim_max < need) {
        run_error("-n %d%s needs %llu open files, but the limit is %llu (ulimit -Hn)",
                  job->npes, job->tag ? " --tag" : "", (unsigned long long)need,
                  (unsigned long long)original_nofile.rlim_max);
        return -1;
    }
    struct rlimit raised = {need, original_nofile.rlim_max};
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
        run_error("cannot raise the limit on open files to %llu: %s",
                  (unsigned long long)need, strerror(errno));
        return -1;
    }
    nofile_raised = 1;
    return 0;
}

static int make_job_key(struct run_job *job)
{
    unsigned char raw[16];
    ssize_t got;
    do
        got = getrandom(raw, sizeof(raw), 0);
    while (got < 0 && errno == EINTR);
    if (got != (ssize_t)sizeof(raw)) {
        run_error("getrandom failed: %s", got < 0 ? strerror(errno) : "short read");
        return -1;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(job->key + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

static void unlink_segments(const struct run_job *job)
{
    char name[128];
    for (int r = 0; r < job->npes; r++) {
        snprintf(name, sizeof(name), GK_SHM_NAME_FORMAT, job->key, r);
        shm_unlink(name); /* ENOENT is the usual case: the PEs unlinked it */
    }
}

/* ---- the clean-up helper ---- */

/*
 * If gasket-run is killed it cannot unlink the job's shared-memory names,
 * and a PE that died between creating its segment and unlinking it would
 * leave the segment behind. So before starting the PEs it forks this helper,
 * detached by setsid() (so signals to the job's process group miss it),
 * with the read end of a pipe. The launcher writes each PE's pid into the
 * pipe. When the pipe reaches end-of-file without the launcher's "done"
 * (pid 0), the launcher has died; the helper waits (at most 3 s) for the
 * PEs to die too, which PR_SET_PDEATHSIG makes them do, so none can create
 * a segment after the clean-up; then it unlinks every name and exits.
 */
static void janitor_wait_gone(pid_t pid, int64_t deadline)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    int fd = -1;
#endif
    if (fd >= 0) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int64_t now = run_now_ns();
        if (now < deadline)
            poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1);
        close(fd);
        return;
    }
    /* No pidfds (old kernel): look at /proc, every 10 ms. */
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    while (run_now_ns() < deadline) {
        char stat_line[256] = "";
        int sfd = open(path, O_RDONLY | O_CLOEXEC);
        if (sfd < 0)
            return;
        ssize_t n = read(sfd, stat_line, sizeof(stat_line) - 1);
        close(sfd);
        const char *state = n > 0 ? strrchr(stat_line, ')') : NULL;
        if (state == NULL || state[1] == '\0' || state[2] == 'Z' || state[2] == 'X')
            return;
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

static void janitor_main(const struct run_job *job, int fd)
{
    setsid();
    int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
        signal(ignored[i], SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Hold nothing the launcher's caller may wait on (its pipes). */
    int null_fd = open("/dev/null", O_RDWR);
    for (int std = 0; std < 3 && null_fd >= 0; std++)
        dup2(null_fd, std);
    if (fd != 3) {
        dup2(fd, 3);
        fd = 3;
    }
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
#endif
    {
        long max_fd = sysconf(_SC_OPEN_MAX);
        for (long other = 4; other < (max_fd > 0 && max_fd < 65536 ? max_fd : 65536);
             other++)
            close((int)other);
    }

    pid_t *pids = malloc((size_t)job->npes * sizeof(pid_t));
    size_t count = 0, got = 0;
    char buf[sizeof(pid_t) * 64];
    for (;;) {
        ssize_t n = read(fd, buf + got, sizeof(buf) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        size_t whole = got - got % sizeof(pid_t);
        for (size_t off = 0; off < whole; off += sizeof(pid_t)) {
            pid_t pid;
            memcpy(&pid, buf + off, sizeof(pid));
            if (pid == 0)
                _exit(0); /* the launcher cleaned up itself */
            if (pids != NULL && count < (size_t)job->npes)
                pids[count++] = pid;
        }
        memmove(buf, buf + whole, got - whole);
        got -= whole;
    }
    int64_t deadline = run_now_ns() + (int64_t)3 * 1000000000;
    for (size_t i = 0; i < count; i++)
        janitor_wait_gone(pids[i], deadline);
    unlink_segments(job);
    _exit(0);
}

/* Starts the helper; returns its pid and the pipe's write end in *fd_p, or
 * -1 (the job runs without it). */
static pid_t janitor_start(const struct run_job *job, int *fd_p)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        janitor_main(job, p[0]);
    }
    close(p[0]);
    if (pid < 0) {
        close(p[1]);
        return -1;
    }
    *fd_p = p[1];
    return pid;
}

static void janitor_tell(int fd, pid_t pid)
{
    if (fd >= 0) {
        ssize_t unused = write(fd, &pid, sizeof(pid));
        (void)unused;
    }
}

/* ---- starting PEs ---- */

struct start_plan {
    pid_t launcher;
    const char *cwd; /* --hosts: the PEs' working directory, kept in their host */
    int *cpus;       /* --bind: the CPUs we may use, in order */
    int n_cpus;
    int janitor_fd;
    int node_cpus; /* CPUs the job may use here (our affinity); 0: unknown */
};

static void child_exec(struct run_job *job, const struct start_plan *plan, int rank,
                       int sock, int out_pipe[2][2], char **argv)
{
    /* Die with the launcher, and do not start if it is already gone. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != plan->launcher)
        _exit(127);
    if (job->hosts > 0 && run_host_enter(job, rank, plan->cwd) != 0)
        _exit(126);
    /* The program starts with the signal state the launcher started with,
     * not ours (handlers, SIGPIPE ignored, signals blocked around fork). */
    for (size_t i = 0; i < N_HANDLED; i++)
        signal(handled_signals[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (nofile_raised)
        setrlimit(RLIMIT_NOFILE, &original_nofile);

    if (job->tag) {
        dup2(out_pipe[0][1], STDOUT_FILENO);
        dup2(out_pipe[1][1], STDERR_FILENO);
    }
    if (job->bind && plan->n_cpus > 0) {
        int cpu = plan->cpus[rank % plan->n_cpus];
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof(one), &one) != 0)
            fprintf(stderr, "gasket-run: --bind: cannot pin PE %d to CPU %d: %s\n", rank,
                    cpu, strerror(errno));
    }
    int flags = fcntl(sock, F_GETFD);
    fcntl(sock, F_SETFD, flags & ~FD_CLOEXEC);

    char value[64];
    snprintf(value, sizeof(value), "%d", rank);
    setenv("GK_RANK", value, 1);
    snprintf(value, sizeof(value), "%d", job->npes);
    setenv("GK_SIZE", value, 1);
    snprintf(value, sizeof(value), "%d", sock);
    setenv("GK_BOOT_FD", value, 1);
    setenv("GK_JOB_KEY", job->key, 1);
    snprintf(value, sizeof(value), "%d", (int)plan->launcher);
    setenv("GK_LAUNCHER_PID", value, 1);
    snprintf(value, sizeof(value), "%d", GK__LAUNCHER_PROTOCOL);
    setenv("GK_LAUNCHER_PROTOCOL", value, 1);
    if (plan->node_cpus > 0) { /* the PEs' own affinity may be one CPU (--bind) */
        /* Simulated hosts share this machine's CPUs: every PE of the job
         * shares them, so a host, even of one PE, is oversubscribed when
         * the machine is. */
        if (job->hosts > 0)
            snprintf(value, sizeof(value), "%d/%d", plan->node_cpus, job->npes);
        else
            snprintf(value, sizeof(value), "%d", plan->node_cpus);
        setenv("GK_NODE_CPUS", value, 1);
    }
    if (job->hosts > 0) {
        snprintf(value, sizeof(value), "%d", run_host_of(job, rank));
        setenv("GASKET_RUN_HOST", value, 1);
        snprintf(value, sizeof(value), "%d", job->hosts);
        setenv("GASKET_RUN_HOSTS", value, 1);
        /* Traffic between simulated hosts stays on loopback; UCX would
         * otherwise also offer the machine's real interfaces. */
        if (job->hosts > 1)
            setenv("UCX_NET_DEVICES", "lo", 0);
    }
    execvp(argv[0], argv);
    int err = errno;
    fprintf(stderr, "gasket-run: cannot run %s: %s\n", argv[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

static int set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

static int start_one(struct run_job *job, const struct start_plan *plan, int rank,
                     char **argv)
{
    struct run_pe *pe = &job->pes[rank];
    int pair[2] = {-1, -1};
    int out_pipe[2][2] = {{-1, -1}, {-1, -1}};
    const char *what = "socketpair";
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0 ||
        set_nonblocking(pair[0]) != 0)
        goto err;
    what = "pipe";
    for (int s = 0; job->tag && s < 2; s++)
        if (pipe2(out_pipe[s], O_CLOEXEC) != 0 || set_nonblocking(out_pipe[s][0]) != 0)
            goto err;
    what = "fork";
    pid_t pid = fork();
    if (pid < 0)
        goto err;
    if (pid == 0)
        child_exec(job, plan, rank, pair[1], out_pipe, argv);
    close(pair[1]);
    pe->pid = pid;
    pe->sock = pair[0];
    pe->running = 1;
    job->running++;
    for (int s = 0; s < 2; s++) {
        pe->out[s].fd = out_pipe[s][0];
        if (out_pipe[s][1] >= 0)
            close(out_pipe[s][1]);
    }
    janitor_tell(plan->janitor_fd, pid);
    return 0;

err:
    run_error("%s failed for PE %d: %s; stopping the job", what, rank, strerror(errno));
    for (int i = 0; i < 2; i++) {
        if (pair[i] >= 0)
            close(pair[i]);
        for (int s = 0; s < 2; s++)
            if (out_pipe[s][i] >= 0)
                close(out_pipe[s][i]);
    }
    return -1;
}

static int start_pes(struct run_job *job, int janitor_fd, char **argv)
{
    struct start_plan plan = {getpid(), NULL, NULL, 0, janitor_fd, 0};
    char cwd[PATH_MAX];
    if (job->hosts > 0 && getcwd(cwd, sizeof(cwd)) != NULL)
        plan.cwd = cwd;
    cpu_set_t allowed;
    /* The runtime compares the node's PEs with this to tell an
     * oversubscribed node (a container's cpuset, taskset) from a big one. */
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
        plan.node_cpus = CPU_COUNT(&allowed);
    if (job->bind) {
        if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
            (plan.cpus = malloc(sizeof(int) * (size_t)CPU_COUNT(&allowed))) != NULL) {
            for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &allowed))
                    plan.cpus[plan.n_cpus++] = cpu;
        } else {
            run_error(
                "--bind: cannot read the CPUs this process may use: %s; not binding",
                strerror(errno));
        }
    }
    /* Block our signals while forking: a child must not run our handler
     * (it would write to our self-pipe) before it resets them. */
    sigset_t handled, old;
    sigemptyset(&handled);
    for (size_t i = 0; i < N_HANDLED; i++)
        sigaddset(&handled, handled_signals[i]);
    sigprocmask(SIG_BLOCK, &handled, &old);
    int status = 0;
    for (int rank = 0; rank < job->npes && status == 0; rank++)
        status = start_one(job, &plan, rank, argv);
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(plan.cpus);
    /* The hosts live on in their PEs, and end with them. */
    run_hosts_release(job);
    return status;
}

static int install_signals(struct run_job *job)
{
    if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        run_error("pipe failed: %s", strerror(errno));
        return -1;
    }
    job->signal_fd = signal_pipe[0];
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigset_t handled;
    sigemptyset(&handled);
    for (size_t i = 0; i < N_HANDLED; i++) {
        sigaction(handled_signals[i], &sa, NULL);
        sigaddset(&handled, handled_signals[i]);
    }
    /* Our caller may have blocked them; the loop depends on them. */
    sigprocmask(SIG_UNBLOCK, &handled, NULL);
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* ---- the command line ---- */

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct run_job *job, int *prog_p)
{
    const char *env_timeout = getenv("GASKET_RUN_TIMEOUT");
    if (env_timeout != NULL && *env_timeout != '\0') {
        if (parse_seconds(env_timeout, &job->timeout_s) != 0) {
            run_error("GASKET_RUN_TIMEOUT=%s is not valid: expected a number of seconds "
                      "(0 for no limit)",
                      env_timeout);
            return 2;
        }
        job->timeout_text = env_timeout;
    }
    const char *hosts_text = NULL;
    int arg = 1;
    for (; arg < argc; arg++) {
        const char *opt = argv[arg], *value;
        if (opt[0] != '-' || opt[1] == '\0')
            break;
        if (strcmp(opt, "--") == 0) {
            arg++;
            break;
        } else if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(opt, "--version") == 0) {
            printf("gasket-run (gasket) %d.%d.%d\n", GASKET_VERSION_MAJOR,
                   GASKET_VERSION_MINOR, GASKET_VERSION_PATCH);
            return 0;
        } else if (strcmp(opt, "--tag") == 0) {
            job->tag = 1;
        } else if (strcmp(opt, "--bind") == 0) {
            job->bind = 1;
        } else if (strcmp(opt, "--check") == 0) {
            setenv("GK_CHECK", "1", 1); /* the PEs inherit it (docs/CHECK.md) */
        } else if (option_value(argc, argv, &arg, "-n", "--np", &value)) {
            char *end;
            errno = 0;
            long n = value != NULL ? strtol(value, &end, 10) : 0;
            if (value == NULL) {
                run_error("%s needs a number of PEs", opt);
                return 2;
            }
            if (errno != 0 || end == value || *end != '\0' || n < 1 || n > RUN_MAX_PES) {
                run_error("-n %s is not valid: expected a number of PEs from 1 to %d",
                          value, RUN_MAX_PES);
                return 2;
            }
            job->npes = (int)n;
        } else if (option_value(argc, argv, &arg, NULL, "--hosts", &value)) {
            if (value == NULL) {
                run_error("--hosts needs a number of hosts");
                return 2;
            }
            hosts_text = value; /* checked against -n, which may come later */
        } else if (option_value(argc, argv, &arg, NULL, "--timeout", &value)) {
            if (value == NULL || parse_seconds(value, &job->timeout_s) != 0) {
                run_error("--timeout %s is not valid: expected a number of seconds "
                          "(0 for no limit)",
                          value != NULL ? value : "(missing)");
                return 2;
            }
            job->timeout_text = value;
        } else {
            run_error("unknown option %s", opt);
            usage(stderr);
            return 2;
        }
    }
    if (job->npes < 0) {
        run_error("-n N is required");
        usage(stderr);
        return 2;
    }
    if (hosts_text != NULL) {
        char *end;
        errno = 0;
        long k = strtol(hosts_text, &end, 10);
        if (errno != 0 || end == hosts_text || *end != '\0' || k < 1 || k > job->npes) {
            run_error("--hosts %s is not valid: expected a number of hosts from 1 to %d "
                      "(-n %d)",
                      hosts_text, job->npes, job->npes);
            return 2;
        }
        job->hosts = (int)k;
    }
    if (arg >= argc) {
        run_error("no program to run");
        usage(stderr);
        return 2;
    }
    *prog_p = arg;
    return -1;
}

int main(int argc, char **argv)
{
    struct run_job job;
    memset(&job, 0, sizeof(job));
    job.npes = -1;
    job.signal_fd = -1;
    int prog;
    int code = parse_args(argc, argv, &job, &prog);
    if (code >= 0)
        return code;
    if (!program_runnable(argv[prog])) {
        int err = errno;
        run_error("cannot run %s: %s", argv[prog], strerror(err));
        return err == ENOENT ? 127 : 126;
    }
    open_std_fds();
    if (raise_fd_limit(&job) != 0 || make_job_key(&job) != 0)
        return 1;

    job.pes = calloc((size_t)job.npes, sizeof(*job.pes));
    if (job.pes == NULL) {
        run_error("out of memory for %d PEs", job.npes);
        return 1;
    }
    for (int r = 0; r < job.npes; r++) {
        struct run_pe *pe = &job.pes[r];
        pe->sock = -1;
        for (int s = 0; s < 2; s++) {
            pe->out[s].fd = -1;
            pe->out[s].target = s == 0 ? STDOUT_FILENO : STDERR_FILENO;
            if (job.tag && (pe->out[s].buf = malloc(RUN_LINE_MAX)) == NULL) {
                run_error("out of memory for %d PEs' output", job.npes);
                run_release(&job);
                return 1;
            }
        }
    }

    if (job.hosts > 0 && run_hosts_start(&job) != 0) {
        run_release(&job);
        return 1;
    }
    /* With --hosts the segments are in the hosts' own /dev/shm, out of our
     * reach and gone with their PEs. */
    int janitor_fd = -1;
    pid_t janitor = job.hosts > 0 ? 0 : janitor_start(&job, &janitor_fd);
    if (janitor < 0)
        run_error("cannot start the clean-up helper: %s; going on without it",
                  strerror(errno));

    if (install_signals(&job) != 0) {
        code = 1;
    } else {
        if (start_pes(&job, janitor_fd, argv + prog) != 0)
            run_stop_job(&job, 1); /* the PEs started so far */
        code = run_loop(&job);
    }
    if (job.hosts == 0)
        unlink_segments(&job);
    if (janitor > 0) {
        janitor_tell(janitor_fd, 0);
        close(janitor_fd);
        waitpid(janitor, NULL, 0);
    }
    run_release(&job);
    return code;
}

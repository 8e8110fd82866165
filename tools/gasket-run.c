/*
 * gasket-run: starts a gasket job of N PEs on this node and watches it.
 *
 * It forks the PEs, serves their bootstrap requests (src/boot/
 * launcher_proto.h) over one socket each, forwards their output (prefixed
 * with --tag), and ends the whole job as soon as one PE fails: killed by a
 * signal, exited non-zero before gk_finalize, or exited without gk_finalize
 * while others still run. It then stops the other PEs (SIGTERM, SIGKILL a
 * second later), says which PE failed and how in one line, removes the job's
 * shared-memory names and exits non-zero.
 *
 * One poll() loop does everything; signals reach it through a self-pipe.
 * The PEs die with the launcher (PR_SET_PDEATHSIG), so a killed launcher
 * leaves no orphans.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot/fd_io.h"
#include "boot/launcher_proto.h"

#define RUN_MAX_PES 4096
#define RUN_GRACE_MS 1000 /* SIGTERM to SIGKILL */

enum pe_state { PE_RUNNING, PE_EXITED };

struct out_stream {
    int fd;        /* read end of the PE's pipe, or -1 */
    int target;    /* STDOUT_FILENO or STDERR_FILENO */
    char buf[4096];
    size_t len;
};

struct pe {
    pid_t pid;
    int sock; /* launcher's end, -1 once closed */
    enum pe_state state;
    int said_hello, finalized;
    /* The allgather in progress: this PE's blob, once it has sent it. */
    char *blob;
    uint64_t blob_len;
    int blob_ready;
    struct out_stream out[2];
};

struct job {
    int npes;
    int tag, bind;
    double timeout_s;
    char key[33];
    struct pe *pes;
    int running;
    int exit_code;    /* the job's status once decided */
    int stopping;     /* the job is being stopped */
    int stop_signal;  /* what the launcher itself received, or 0 */
    int64_t kill_at_ms; /* when survivors get SIGKILL */
};

static int signal_pipe[2] = {-1, -1};

static void run_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run_error(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if (len > (int)sizeof(line) - 2)
        len = (int)sizeof(line) - 2;
    /* One write, so the line is not torn by PEs writing beside us. */
    char out[1100];
    int n = snprintf(out, sizeof(out), "gasket-run: %.*s\n", len, line);
    ssize_t unused = write(STDERR_FILENO, out, (size_t)n);
    (void)unused;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char byte = (unsigned char)sig;
    ssize_t unused = write(signal_pipe[1], &byte, 1);
    (void)unused;
    errno = saved;
}

static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
                 {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
                 {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
                 {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
                 {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
                 {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "unknown signal";
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: gasket-run -n N [options] program [args...]\n"
            "Starts N gasket PEs of program on this node.\n"
            "  -n N           number of PEs (1 to %d)\n"
            "  --tag          prefix every output line with [PE r]\n"
            "  --bind         pin PE r to the r-th allowed CPU (modulo their number)\n"
            "  --timeout S    stop the job after S seconds and exit 124\n"
            "                 (default: $GASKET_RUN_TIMEOUT, else none)\n"
            "  -h, --help     this text\n"
            "  --version      the version\n",
            RUN_MAX_PES);
}

static int parse_seconds(const char *text, double *value_p)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(value > 0) || value > 1e7)
        return -1;
    *value_p = value;
    return 0;
}

/* ---- starting PEs ---- */

/* Whether execvp() would find an executable `program` (errno says why not),
 * so a typo gives one message instead of one per PE. */
static int program_runnable(const char *program)
{
    if (strchr(program, '/') != NULL)
        return access(program, X_OK) == 0;
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    int saw_denied = 0;
    while (*path != '\0') {
        size_t len = strcspn(path, ":");
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)len, len ? path : ".",
                 program);
        if (access(candidate, X_OK) == 0)
            return 1;
        saw_denied |= errno == EACCES;
        path += len + (path[len] == ':');
    }
    errno = saw_denied ? EACCES : ENOENT;
    return 0;
}

static void child_exec(struct job *job, int rank, int sock, int out_pipe[2][2],
                       pid_t launcher, char **argv)
{
    /* Die with the launcher, and do not start if it is already gone. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher)
        _exit(127);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (job->tag) {
        dup2(out_pipe[0][1], STDOUT_FILENO);
        dup2(out_pipe[1][1], STDERR_FILENO);
    }
    if (job->bind) {
        cpu_set_t allowed, one;
        if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) > 0) {
            int want = rank % CPU_COUNT(&allowed), seen = 0;
            for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
                if (!CPU_ISSET(cpu, &allowed))
                    continue;
                if (seen++ == want) {
                    CPU_ZERO(&one);
                    CPU_SET(cpu, &one);
                    sched_setaffinity(0, sizeof(one), &one);
                    break;
                }
            }
        }
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
    snprintf(value, sizeof(value), "%d", (int)launcher);
    setenv("GK_LAUNCHER_PID", value, 1);
    execvp(argv[0], argv);
    int err = errno;
    fprintf(stderr, "gasket-run: cannot run %s: %s\n", argv[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

static int start_pes(struct job *job, char **argv)
{
    pid_t launcher = getpid();
    for (int rank = 0; rank < job->npes; rank++) {
        struct pe *pe = &job->pes[rank];
        int pair[2];
        int out_pipe[2][2] = {{-1, -1}, {-1, -1}};
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
            run_error("socketpair failed for PE %d: %s", rank, strerror(errno));
            return -1;
        }
        if (job->tag && (pipe2(out_pipe[0], O_CLOEXEC) != 0 || pipe2(out_pipe[1], O_CLOEXEC) != 0)) {
            run_error("pipe failed for PE %d: %s", rank, strerror(errno));
            return -1;
        }
        pid_t pid = fork();
        if (pid < 0) {
            run_error("fork failed for PE %d: %s", rank, strerror(errno));
            return -1;
        }
        if (pid == 0)
            child_exec(job, rank, pair[1], out_pipe, launcher, argv);
        close(pair[1]);
        pe->pid = pid;
        pe->sock = pair[0];
        pe->state = PE_RUNNING;
        for (int s = 0; s < 2; s++) {
            pe->out[s].fd = out_pipe[s][0];
            pe->out[s].target = s == 0 ? STDOUT_FILENO : STDERR_FILENO;
            if (out_pipe[s][1] >= 0)
                close(out_pipe[s][1]);
        }
        job->running++;
    }
    return 0;
}

/* ---- stopping ---- */

static void stop_job(struct job *job, int exit_code)
{
    if (job->stopping)
        return;
    job->stopping = 1;
    job->exit_code = exit_code;
    for (int r = 0; r < job->npes; r++)
        if (job->pes[r].state == PE_RUNNING)
            kill(job->pes[r].pid, SIGTERM);
    job->kill_at_ms = now_ms() + RUN_GRACE_MS;
}

static void kill_survivors(struct job *job)
{
    for (int r = 0; r < job->npes; r++)
        if (job->pes[r].state == PE_RUNNING)
            kill(job->pes[r].pid, SIGKILL);
}

static void unlink_segments(const struct job *job)
{
    char name[128];
    for (int r = 0; r < job->npes; r++) {
        snprintf(name, sizeof(name), GK_SHM_NAME_FORMAT, job->key, r);
        shm_unlink(name);
    }
}

/* ---- output forwarding (--tag) ---- */

static void emit_line(int rank, struct out_stream *s, const char *line, size_t len)
{
    char prefix[32];
    int plen = snprintf(prefix, sizeof(prefix), "[PE %d] ", rank);
    char out[sizeof(prefix) + sizeof(s->buf) + 1];
    memcpy(out, prefix, (size_t)plen);
    memcpy(out + plen, line, len);
    out[(size_t)plen + len] = '\n';
    gk__fd_write_full(s->target, out, (size_t)plen + len + 1, 0);
}

static void forward_output(int rank, struct out_stream *s)
{
    ssize_t n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        if (s->len > 0)
            emit_line(rank, s, s->buf, s->len);
        s->len = 0;
        close(s->fd);
        s->fd = -1;
        return;
    }
    s->len += (size_t)n;
    size_t start = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->buf[i] == '\n') {
            emit_line(rank, s, s->buf + start, i - start);
            start = i + 1;
        }
    }
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
    if (s->len == sizeof(s->buf)) { /* a line longer than the buffer */
        emit_line(rank, s, s->buf, s->len);
        s->len = 0;
    }
}

/* ---- the bootstrap service ---- */

static void close_sock(struct pe *pe)
{
    if (pe->sock >= 0)
        close(pe->sock);
    pe->sock = -1;
}

/* When every PE has sent its blob, answer each with all of them. */
static void allgather_complete(struct job *job)
{
    for (int r = 0; r < job->npes; r++)
        if (!job->pes[r].blob_ready)
            return;
    uint64_t len = job->pes[0].blob_len;
    for (int r = 1; r < job->npes; r++) {
        if (job->pes[r].blob_len != len) {
            run_error("PE %d sent %llu bytes to an exchange where PE 0 sent %llu; "
                      "stopping the job",
                      r, (unsigned long long)job->pes[r].blob_len, (unsigned long long)len);
            stop_job(job, 1);
            return;
        }
    }
    struct gk__lmsg_header header = {GK__LMSG_MAGIC, GK__LMSG_ALLGATHER, len * (uint64_t)job->npes};
    for (int r = 0; r < job->npes; r++) {
        struct pe *pe = &job->pes[r];
        if (pe->sock < 0)
            continue;
        if (gk__fd_write_full(pe->sock, &header, sizeof(header), 1) != 0)
            continue; /* its exit will be noticed */
        for (int from = 0; from < job->npes && len > 0; from++)
            if (gk__fd_write_full(pe->sock, job->pes[from].blob, len, 1) != 0)
                break;
    }
    for (int r = 0; r < job->npes; r++) {
        free(job->pes[r].blob);
        job->pes[r].blob = NULL;
        job->pes[r].blob_ready = 0;
        job->pes[r].blob_len = 0;
    }
}

static void serve_message(struct job *job, int rank)
{
    struct pe *pe = &job->pes[rank];
    struct gk__lmsg_header header;
    if (gk__fd_read_full(pe->sock, &header, sizeof(header)) != 0) {
        close_sock(pe); /* the PE is exiting; waitpid tells how */
        return;
    }
    if (header.magic != GK__LMSG_MAGIC || header.length > GK__LMSG_MAX_PAYLOAD ||
        header.type < GK__LMSG_HELLO || header.type > GK__LMSG_ABORT) {
        run_error("PE %d (pid %d) sent a malformed bootstrap message (type %u, %llu bytes); "
                  "stopping the job",
                  rank, (int)pe->pid, header.type, (unsigned long long)header.length);
        close_sock(pe);
        stop_job(job, 1);
        return;
    }
    char *payload = NULL;
    if (header.length > 0) {
        payload = malloc(header.length);
        if (payload == NULL || gk__fd_read_full(pe->sock, payload, header.length) != 0) {
            free(payload);
            close_sock(pe);
            return;
        }
    }
    switch (header.type) {
    case GK__LMSG_HELLO:
        pe->said_hello = 1;
        free(payload);
        break;
    case GK__LMSG_FINALIZE:
        pe->finalized = 1;
        free(payload);
        break;
    case GK__LMSG_ALLGATHER:
        if (pe->blob_ready) {
            run_error("PE %d (pid %d) started a second exchange before the first ended; "
                      "stopping the job",
                      rank, (int)pe->pid);
            free(payload);
            stop_job(job, 1);
            return;
        }
        pe->blob = payload;
        pe->blob_len = header.length;
        pe->blob_ready = 1;
        allgather_complete(job);
        break;
    case GK__LMSG_ABORT: {
        int32_t code = 1;
        if (header.length >= sizeof(code))
            memcpy(&code, payload, sizeof(code));
        int text_len = header.length > sizeof(code) ? (int)(header.length - sizeof(code)) : 0;
        run_error("PE %d called gk_abort(%d): %.*s; stopping the job", rank, (int)code, text_len,
                  payload ? payload + sizeof(code) : "");
        free(payload);
        stop_job(job, code != 0 ? code & 0xff : 1);
        if (job->exit_code == 0)
            job->exit_code = 1;
        break;
    }
    }
}

/* ---- exits ---- */

static int socket_readable_now(int fd)
{
    struct pollfd pfd = {fd, POLLIN, 0};
    return poll(&pfd, 1, 0) > 0;
}

static void reap(struct job *job)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int rank = -1;
        for (int r = 0; r < job->npes; r++)
            if (job->pes[r].pid == pid && job->pes[r].state == PE_RUNNING)
                rank = r;
        if (rank < 0)
            continue;
        struct pe *pe = &job->pes[rank];
        /* A PE's last messages (FINALIZE, ABORT) may still sit in its socket:
         * read them before judging how it ended. Only what is there now: a
         * process the PE forked may still hold the socket open, so waiting
         * for end-of-file could block the launcher. */
        while (pe->sock >= 0 && socket_readable_now(pe->sock))
            serve_message(job, rank);
        pe->state = PE_EXITED;
        job->running--;
        if (job->stopping)
            continue; /* we are stopping it; no more reports */
        if (WIFSIGNALED(status)) {
            int sig = WTERMSIG(status);
            run_error("PE %d (pid %d) was killed by signal %d (%s); stopping the job", rank,
                      (int)pid, sig, signal_name(sig));
            stop_job(job, 128 + sig);
        } else if (WEXITSTATUS(status) != 0) {
            int code = WEXITSTATUS(status);
            if (pe->finalized) {
                if (job->exit_code == 0)
                    job->exit_code = code;
            } else {
                run_error("PE %d (pid %d) exited with status %d%s; stopping the job", rank,
                          (int)pid, code, pe->said_hello ? " before gk_finalize" : "");
                stop_job(job, code);
            }
        } else if (pe->said_hello && !pe->finalized && job->running > 0) {
            run_error("PE %d (pid %d) exited without calling gk_finalize; stopping the job",
                      rank, (int)pid);
            stop_job(job, 1);
        }
    }
}

/* ---- the loop ---- */

static int run_loop(struct job *job)
{
    int64_t deadline = job->timeout_s > 0 ? now_ms() + (int64_t)(job->timeout_s * 1000) : -1;
    size_t max_fds = 1 + 3 * (size_t)job->npes;
    struct pollfd *fds = calloc(max_fds, sizeof(*fds));
    int *owner = calloc(max_fds, sizeof(int)), *kind = calloc(max_fds, sizeof(int));
    if (fds == NULL || owner == NULL || kind == NULL) {
        run_error("out of memory");
        return 1;
    }
    for (;;) {
        int pending_output = 0;
        for (int r = 0; r < job->npes; r++)
            for (int s = 0; s < 2; s++)
                pending_output |= job->pes[r].out[s].fd >= 0;
        if (job->running == 0 && !pending_output)
            break;
        nfds_t n = 0;
        fds[n] = (struct pollfd){signal_pipe[0], POLLIN, 0};
        kind[n++] = 0;
        for (int r = 0; r < job->npes; r++) {
            struct pe *pe = &job->pes[r];
            if (pe->sock >= 0) {
                fds[n] = (struct pollfd){pe->sock, POLLIN, 0};
                owner[n] = r;
                kind[n++] = 1;
            }
            for (int s = 0; s < 2; s++) {
                if (pe->out[s].fd >= 0) {
                    fds[n] = (struct pollfd){pe->out[s].fd, POLLIN, 0};
                    owner[n] = r;
                    kind[n++] = 2 + s;
                }
            }
        }
        int wait_ms = -1;
        int64_t now = now_ms();
        if (deadline >= 0 && !job->stopping)
            wait_ms = deadline > now ? (int)(deadline - now) : 0;
        if (job->stopping)
            wait_ms = job->kill_at_ms > now ? (int)(job->kill_at_ms - now) : 0;
        /* Exited PEs are found through SIGCHLD; poll at least every 200 ms
         * as a guard against a lost wake-up. */
        if (wait_ms < 0 || wait_ms > 200)
            wait_ms = 200;
        int ready = poll(fds, n, wait_ms);
        if (ready < 0 && errno != EINTR) {
            run_error("poll failed: %s", strerror(errno));
            stop_job(job, 1);
        }
        for (nfds_t i = 0; ready > 0 && i < n; i++) {
            if (fds[i].revents == 0)
                continue;
            if (kind[i] == 0) {
                unsigned char sigs[64];
                ssize_t got = read(signal_pipe[0], sigs, sizeof(sigs));
                for (ssize_t k = 0; k < got; k++) {
                    int sig = sigs[k];
                    if (sig == SIGCHLD)
                        continue;
                    if (!job->stopping) {
                        run_error("received %s; passing it to every PE and stopping the job",
                                  signal_name(sig));
                        for (int r = 0; r < job->npes; r++)
                            if (job->pes[r].state == PE_RUNNING)
                                kill(job->pes[r].pid, sig);
                        job->stopping = 1;
                        job->exit_code = 128 + sig;
                        job->kill_at_ms = now_ms() + RUN_GRACE_MS;
                    }
                }
            } else if (kind[i] == 1) {
                serve_message(job, owner[i]);
            } else {
                forward_output(owner[i], &job->pes[owner[i]].out[kind[i] - 2]);
            }
        }
        reap(job);
        now = now_ms();
        if (deadline >= 0 && !job->stopping && now >= deadline && job->running > 0) {
            run_error("job exceeded --timeout %g s; stopping the job", job->timeout_s);
            stop_job(job, 124);
        }
        if (job->stopping && now >= job->kill_at_ms)
            kill_survivors(job);
    }
    free(fds);
    free(owner);
    free(kind);
    return job->exit_code;
}

int main(int argc, char **argv)
{
    struct job job;
    memset(&job, 0, sizeof(job));
    job.npes = -1;
    const char *env_timeout = getenv("GASKET_RUN_TIMEOUT");
    if (env_timeout != NULL && *env_timeout != '\0' && parse_seconds(env_timeout, &job.timeout_s) != 0) {
        run_error("GASKET_RUN_TIMEOUT=%s is not a positive number of seconds", env_timeout);
        return 2;
    }
    int arg = 1;
    for (; arg < argc && argv[arg][0] == '-'; arg++) {
        const char *opt = argv[arg];
        if (strcmp(opt, "--") == 0) {
            arg++;
            break;
        } else if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(opt, "--version") == 0) {
            printf("gasket-run (gasket) 0.1.0\n");
            return 0;
        } else if (strcmp(opt, "--tag") == 0) {
            job.tag = 1;
        } else if (strcmp(opt, "--bind") == 0) {
            job.bind = 1;
        } else if (strcmp(opt, "-n") == 0 || strcmp(opt, "--np") == 0) {
            if (arg + 1 >= argc) {
                run_error("%s needs a number of PEs", opt);
                return 2;
            }
            char *end;
            errno = 0;
            long n = strtol(argv[++arg], &end, 10);
            if (errno != 0 || *end != '\0' || end == argv[arg] || n < 1 || n > RUN_MAX_PES) {
                run_error("-n %s is not valid: expected a number of PEs from 1 to %d", argv[arg],
                          RUN_MAX_PES);
                return 2;
            }
            job.npes = (int)n;
        } else if (strcmp(opt, "--timeout") == 0) {
            if (arg + 1 >= argc || parse_seconds(argv[arg + 1], &job.timeout_s) != 0) {
                run_error("--timeout %s is not valid: expected a positive number of seconds",
                          arg + 1 < argc ? argv[arg + 1] : "(missing)");
                return 2;
            }
            arg++;
        } else {
            run_error("unknown option %s", opt);
            usage(stderr);
            return 2;
        }
    }
    if (job.npes < 0) {
        run_error("-n N is required");
        usage(stderr);
        return 2;
    }
    if (arg >= argc) {
        run_error("no program to run");
        usage(stderr);
        return 2;
    }

    if (!program_runnable(argv[arg])) {
        run_error("cannot run %s: %s", argv[arg], strerror(errno));
        return errno == ENOENT ? 127 : 126;
    }

    unsigned char raw[16];
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
        run_error("getrandom failed: %s", strerror(errno));
        return 1;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(job.key + 2 * i, 3, "%02x", raw[i]);
    job.pes = calloc((size_t)job.npes, sizeof(*job.pes));
    if (job.pes == NULL) {
        run_error("out of memory for %d PEs", job.npes);
        return 1;
    }
    for (int r = 0; r < job.npes; r++) {
        job.pes[r].sock = -1;
        job.pes[r].out[0].fd = job.pes[r].out[1].fd = -1;
    }

    if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        run_error("pipe failed: %s", strerror(errno));
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
    for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
        sigaction(forwarded[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int code;
    if (start_pes(&job, argv + arg) != 0) {
        stop_job(&job, 1);
        kill_survivors(&job);
        code = 1;
        while (wait(NULL) > 0)
            ;
    } else {
        code = run_loop(&job);
    }
    unlink_segments(&job);
    for (int r = 0; r < job.npes; r++) {
        close_sock(&job.pes[r]);
        free(job.pes[r].blob);
    }
    free(job.pes);
    return code;
}

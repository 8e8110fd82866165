/*
 * gasket_run_loop.c: gasket-run's event loop. One poll() waits on the
 * self-pipe that carries signals (SIGCHLD included), every PE's bootstrap
 * socket and, under --tag, every PE's output pipes; nothing else wakes it
 * but the --timeout deadline and the SIGKILL that follows a stop's grace
 * period.
 *
 * Nothing here blocks on a PE. Sockets and pipes are nonblocking: a message
 * is read as far as it has arrived and finished on a later wake-up, and an
 * ALLGATHER answer is written as far as the PE's socket takes it, the rest
 * when poll() says it has room. So a PE that stops reading (hung, stopped,
 * or busy writing output that only we can drain) cannot stall the launcher,
 * and the launcher always sees the next death, signal or deadline.
 *
 * A PE's end is judged when waitpid() reports it. Before the judgement the
 * loop takes whatever the PE left in its socket and pipes (its FINALIZE or
 * ABORT may still sit there, its last words should come before our report),
 * but only what is there now: a process the PE started may hold them open.
 * The first failure prints the one line that names the PE and the cause and
 * stops the job; what dies after that is the stop's doing and goes unsaid.
 *
 * A PE that said HELLO and closes its socket before FINALIZE has left the
 * job: the others would wait for it in the next exchange or wait for good.
 * End-of-file usually means the PE is dying, and then its exit status is
 * the report to give, so the loss is judged a failure of its own only if
 * the PE is still running RUN_EOF_GRACE_MS later.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot/fd_io.h"
#include "gasket_run.h"

#define RUN_TX_IOV 64         /* blobs written per sendmsg() */
#define RUN_READS_PER_WAKE 16 /* output reads per pipe per wake-up */
#define RUN_DRAIN_READS 1024  /* reads when emptying a dead PE's pipe */

void run_error(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if (len > (int)sizeof(line) - 1)
        len = (int)sizeof(line) - 1;
    /* One write, so the line is not torn by PEs writing beside us. */
    char out[sizeof(line) + 16];
    int n = snprintf(out, sizeof(out), "gasket-run: %.*s\n", len, line);
    gk__fd_write_full(STDERR_FILENO, out, (size_t)n, 0);
}

const char *run_signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},      {SIGQUIT, "SIGQUIT"},
                 {SIGILL, "SIGILL"},       {SIGTRAP, "SIGTRAP"},    {SIGABRT, "SIGABRT"},
                 {SIGBUS, "SIGBUS"},       {SIGFPE, "SIGFPE"},      {SIGKILL, "SIGKILL"},
                 {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"},    {SIGUSR2, "SIGUSR2"},
                 {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"},    {SIGTERM, "SIGTERM"},
                 {SIGXCPU, "SIGXCPU"},     {SIGXFSZ, "SIGXFSZ"},    {SIGSYS, "SIGSYS"},
                 {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},    {SIGIO, "SIGIO"},
                 {SIGPWR, "SIGPWR"},       {SIGSTKFLT, "SIGSTKFLT"}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].sig == sig)
            return names[i].name;
    if (sig >= SIGRTMIN && sig <= SIGRTMAX)
        return "a real-time signal";
    return "unknown signal";
}

int64_t run_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* poll()'s timeout until `when`, rounded up so we never wake early. */
static int ms_until(int64_t when, int64_t now)
{
    if (when <= now)
        return 0;
    int64_t ms = (when - now + 999999) / 1000000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* ---- stopping ---- */

static void signal_running(struct run_job *job, int sig)
{
    for (int r = 0; r < job->npes; r++)
        if (job->pes[r].running)
            kill(job->pes[r].pid, sig);
}

void run_stop_job(struct run_job *job, int exit_code)
{
    if (job->stopping)
        return;
    job->stopping = 1;
    job->exit_code = exit_code;
    signal_running(job, SIGTERM);
    job->kill_at_ns = run_now_ns() + (int64_t)RUN_GRACE_MS * 1000000;
}

/* The first failure says what happened and stops the job; a later one is
 * most likely the stop's own doing and is not reported. */
static void fail_job(struct run_job *job, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_job(struct run_job *job, int exit_code, const char *fmt, ...)
{
    if (job->stopping)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    run_error("%s", line);
    run_stop_job(job, exit_code);
}

/* A signal the launcher received (not SIGCHLD): pass it on, so the PEs see
 * what the user sent; a second one while stopping means "now". */
static void launcher_signalled(struct run_job *job, int sig)
{
    if (job->stopping) {
        if (!job->killed) {
            run_error("received %s while stopping the job; killing every PE now",
                      run_signal_name(sig));
            signal_running(job, SIGKILL);
            job->killed = 1;
        }
        return;
    }
    run_error("received %s; passing it to every PE and stopping the job",
              run_signal_name(sig));
    job->stopping = 1;
    job->exit_code = 128 + sig;
    signal_running(job, sig);
    job->kill_at_ns = run_now_ns() + (int64_t)RUN_GRACE_MS * 1000000;
}

/* ---- exchanges (ALLGATHER) ---- */

static void exchange_unref(struct run_job *job, struct run_exchange *ex)
{
    if (--ex->refs > 0)
        return;
    for (int r = 0; r < job->npes; r++)
        free(ex->blobs[r]);
    free(ex->blobs);
    free(ex);
}

static void pe_close_sock(struct run_job *job, int rank)
{
    struct run_pe *pe = &job->pes[rank];
    if (pe->sock >= 0)
        close(pe->sock);
    pe->sock = -1;
    free(pe->rx_payload);
    pe->rx_payload = NULL;
    pe->rx_header_got = 0;
    pe->rx_payload_got = 0;
    while (pe->tx_head != NULL) {
        struct run_delivery *d = pe->tx_head;
        pe->tx_head = d->next;
        exchange_unref(job, d->ex);
        free(d);
    }
    pe->tx_tail = NULL;
    pe->tx_off = 0;
}

/* The PE's socket is done (end-of-file, or an error): close our end and,
 * for a PE in the job that did not finalize, start the clock on it. */
static void pe_lost(struct run_job *job, int rank)
{
    struct run_pe *pe = &job->pes[rank];
    pe_close_sock(job, rank);
    if (pe->running && pe->said_hello && !pe->finalized && pe->lost_at_ns == 0)
        pe->lost_at_ns = run_now_ns();
}

/* Fails the job for a PE whose socket closed RUN_EOF_GRACE_MS ago while it
 * runs on; returns the earliest time a lost PE is due, or -1. */
static int64_t check_lost(struct run_job *job, int64_t now)
{
    int64_t next = -1;
    for (int r = 0; r < job->npes && !job->stopping; r++) {
        struct run_pe *pe = &job->pes[r];
        if (!pe->running || pe->lost_at_ns == 0)
            continue;
        int64_t due = pe->lost_at_ns + (int64_t)RUN_EOF_GRACE_MS * 1000000;
        if (now >= due)
            fail_job(job, 1,
                     "PE %d (pid %d) closed its connection to the launcher before "
                     "gk_finalize; stopping the job",
                     r, (int)pe->pid);
        else if (next < 0 || due < next)
            next = due;
    }
    return job->stopping ? -1 : next;
}

/* Writes as much of the PE's pending answers as its socket takes now. */
static void pe_send(struct run_job *job, int rank)
{
    struct run_pe *pe = &job->pes[rank];
    while (pe->tx_head != NULL && pe->sock >= 0) {
        struct run_exchange *ex = pe->tx_head->ex;
        struct gk__lmsg_header header = {GK__LMSG_MAGIC, GK__LMSG_ALLGATHER,
                                         ex->len * (uint64_t)job->npes};
        uint64_t total = sizeof(header) + header.length;
        struct iovec iov[RUN_TX_IOV];
        int n = 0;
        uint64_t off = pe->tx_off;
        if (off < sizeof(header)) {
            iov[n++] = (struct iovec){(char *)&header + off, sizeof(header) - off};
            off = 0;
        } else {
            off -= sizeof(header);
        }
        if (ex->len > 0) {
            uint64_t within = off % ex->len;
            for (uint64_t from = off / ex->len;
                 from < (uint64_t)job->npes && n < RUN_TX_IOV; from++, within = 0)
                iov[n++] = (struct iovec){ex->blobs[from] + within, ex->len - within};
        }
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t sent = sendmsg(pe->sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                pe_lost(job, rank);
            return;
        }
        pe->tx_off += (uint64_t)sent;
        if (pe->tx_off == total) {
            struct run_delivery *d = pe->tx_head;
            pe->tx_head = d->next;
            if (pe->tx_head == NULL)
                pe->tx_tail = NULL;
            pe->tx_off = 0;
            exchange_unref(job, ex);
            free(d);
        }
    }
}

static void exchange_deliver(struct run_job *job, struct run_exchange *ex)
{
    for (int r = 0; r < job->npes; r++) {
        struct run_pe *pe = &job->pes[r];
        pe->in_exchange = 0;
        if (pe->sock < 0)
            continue;
        struct run_delivery *d = malloc(sizeof(*d));
        if (d == NULL) {
            fail_job(job, 1, "out of memory answering an exchange; stopping the job");
            break;
        }
        *d = (struct run_delivery){ex, NULL};
        ex->refs++;
        if (pe->tx_tail != NULL)
            pe->tx_tail->next = d;
        else
            pe->tx_head = d;
        pe->tx_tail = d;
        pe_send(job, r);
    }
}

/*
 * A PE that has exited without sending its blob can never complete the
 * exchange the others wait in: without this check they would wait for good
 * (a PE that never said HELLO, or one past FINALIZE, may exit 0). Only
 * reaped PEs count: one whose socket just closed is most likely dying, and
 * its exit status, not this, is the report to give.
 */
static void exchange_check_stall(struct run_job *job)
{
    if (job->collecting == NULL || job->stopping)
        return;
    for (int r = 0; r < job->npes; r++) {
        struct run_pe *pe = &job->pes[r];
        if (pe->in_exchange || pe->running)
            continue;
        fail_job(job, 1,
                 "PE %d (pid %d) exited while other PEs wait for it in a bootstrap "
                 "exchange; stopping the job",
                 r, (int)pe->pid);
        return;
    }
}

static void exchange_add(struct run_job *job, int rank, char *payload, uint64_t len)
{
    struct run_pe *pe = &job->pes[rank];
    struct run_exchange *ex = job->collecting;
    if (pe->in_exchange) {
        free(payload);
        fail_job(job, 1,
                 "PE %d (pid %d) started a second exchange before the first ended; "
                 "stopping the job",
                 rank, (int)pe->pid);
        return;
    }
    if (ex == NULL) {
        ex = calloc(1, sizeof(*ex));
        char **blobs = calloc((size_t)job->npes, sizeof(char *));
        if (ex == NULL || blobs == NULL) {
            free(ex);
            free(blobs);
            free(payload);
            fail_job(job, 1, "out of memory for an exchange; stopping the job");
            return;
        }
        *ex = (struct run_exchange){.len = len, .first = rank, .refs = 1, .blobs = blobs};
        job->collecting = ex;
    } else if (len != ex->len) {
        free(payload);
        fail_job(job, 1,
                 "PE %d sent %llu bytes to an exchange where PE %d sent %llu; "
                 "stopping the job",
                 rank, (unsigned long long)len, ex->first, (unsigned long long)ex->len);
        return;
    }
    ex->blobs[rank] = payload;
    pe->in_exchange = 1;
    if (++ex->arrived < job->npes) {
        exchange_check_stall(job);
        return;
    }
    job->collecting = NULL;
    exchange_deliver(job, ex);
    exchange_unref(job, ex); /* the collecting reference */
}

/* ---- messages from PEs ---- */

static int header_valid(const struct gk__lmsg_header *h)
{
    if (h->magic != GK__LMSG_MAGIC || h->length > GK__LMSG_MAX_PAYLOAD)
        return 0;
    switch (h->type) {
    case GK__LMSG_HELLO:
    case GK__LMSG_FINALIZE:
        return h->length == 0;
    case GK__LMSG_ALLGATHER:
        return 1;
    case GK__LMSG_ABORT:
    case GK__LMSG_EXIT:
        return h->length >= sizeof(int32_t);
    default:
        return 0;
    }
}

/* ABORT (a failure: status 0 becomes 1) and EXIT (the program ends the
 * job, shmem_global_exit: its status as is, 0 included). */
static void serve_abort(struct run_job *job, int rank, const char *payload, uint64_t len,
                        int exact)
{
    int32_t code;
    memcpy(&code, payload, sizeof(code));
    /* The message goes on one line of ours: no control characters. */
    char why[512];
    size_t why_len = (size_t)len - sizeof(code);
    if (why_len > sizeof(why) - 1)
        why_len = sizeof(why) - 1;
    for (size_t i = 0; i < why_len; i++) {
        unsigned char c = (unsigned char)payload[sizeof(code) + i];
        why[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    why[why_len] = '\0';
    int status = code & 0xff;
    if (exact)
        fail_job(job, status, "PE %d ended the job with status %d: %s; stopping the job",
                 rank, status, why);
    else
        fail_job(job, status != 0 ? status : 1,
                 "PE %d called gk_abort(%d): %s; stopping the job", rank, (int)code, why);
}

static void serve_message(struct run_job *job, int rank, const struct gk__lmsg_header *h,
                          char *payload)
{
    struct run_pe *pe = &job->pes[rank];
    switch (h->type) {
    case GK__LMSG_HELLO:
        pe->said_hello = 1;
        break;
    case GK__LMSG_FINALIZE:
        pe->finalized = 1;
        break;
    case GK__LMSG_ALLGATHER:
        exchange_add(job, rank, payload, h->length);
        return; /* the exchange owns the payload now */
    case GK__LMSG_ABORT:
    case GK__LMSG_EXIT:
        serve_abort(job, rank, payload, h->length, h->type == GK__LMSG_EXIT);
        break;
    }
    free(payload);
}

/* Reads up to `len` bytes from the PE's socket: 1 when some came, 0 when
 * nothing is there now or the socket is done (then it is closed). */
static int pe_recv(struct run_job *job, int rank, void *buf, size_t len, size_t *got_p)
{
    for (;;) {
        ssize_t n = read(job->pes[rank].sock, buf, len);
        if (n > 0) {
            *got_p = (size_t)n;
            return 1;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        /* End of file or an error: the PE is most likely going, and
         * waitpid will say how. A message cut short here is lost with it. */
        pe_lost(job, rank);
        return 0;
    }
}

/* Reads and serves every whole message the PE's socket holds now. */
static void pe_read(struct run_job *job, int rank)
{
    struct run_pe *pe = &job->pes[rank];
    while (pe->sock >= 0) {
        size_t got;
        if (pe->rx_header_got < sizeof(pe->rx_header)) {
            if (!pe_recv(job, rank, (char *)&pe->rx_header + pe->rx_header_got,
                         sizeof(pe->rx_header) - pe->rx_header_got, &got))
                return;
            pe->rx_header_got += got;
            if (pe->rx_header_got < sizeof(pe->rx_header))
                continue;
            const struct gk__lmsg_header *h = &pe->rx_header;
            if (!header_valid(h)) {
                fail_job(
                    job, 1,
                    "PE %d (pid %d) sent a malformed bootstrap message (magic 0x%08x, "
                    "type %u, %llu bytes); stopping the job",
                    rank, (int)pe->pid, h->magic, h->type, (unsigned long long)h->length);
                pe_close_sock(job, rank);
                return;
            }
            if (h->length > 0 && (pe->rx_payload = malloc(h->length)) == NULL) {
                fail_job(
                    job, 1,
                    "out of memory for a %llu-byte message from PE %d; stopping the job",
                    (unsigned long long)h->length, rank);
                pe_close_sock(job, rank);
                return;
            }
            pe->rx_payload_got = 0;
        }
        if (pe->rx_payload_got < pe->rx_header.length) {
            if (!pe_recv(job, rank, pe->rx_payload + pe->rx_payload_got,
                         (size_t)(pe->rx_header.length - pe->rx_payload_got), &got))
                return;
            pe->rx_payload_got += got;
            if (pe->rx_payload_got < pe->rx_header.length)
                continue;
        }
        struct gk__lmsg_header h = pe->rx_header;
        char *payload = pe->rx_payload;
        pe->rx_payload = NULL;
        pe->rx_header_got = 0;
        pe->rx_payload_got = 0;
        serve_message(job, rank, &h, payload);
    }
}

/* ---- output forwarding (--tag) ---- */

/*
 * Forwards the stream's whole lines, each as "[PE r] line", in as few
 * writes as fit our buffer; with `flush_partial`, an unfinished last line
 * too (with a newline added). A line longer than RUN_LINE_MAX goes out in
 * pieces, each tagged.
 */
static void stream_emit(int rank, struct run_stream *s, int flush_partial)
{
    char out[4 * RUN_LINE_MAX];
    char prefix[24];
    size_t plen = (size_t)snprintf(prefix, sizeof(prefix), "[PE %d] ", rank);
    size_t used = 0, start = 0;
    while (start < s->len) {
        char *nl = memchr(s->buf + start, '\n', s->len - start);
        size_t line_len;
        if (nl != NULL)
            line_len = (size_t)(nl - (s->buf + start)) + 1;
        else if (flush_partial || (start == 0 && s->len == RUN_LINE_MAX))
            line_len = s->len - start;
        else
            break;
        if (used + plen + line_len + 1 > sizeof(out)) {
            gk__fd_write_full(s->target, out, used, 0);
            used = 0;
        }
        memcpy(out + used, prefix, plen);
        memcpy(out + used + plen, s->buf + start, line_len);
        used += plen + line_len;
        if (nl == NULL)
            out[used++] = '\n';
        start += line_len;
    }
    /* A failed write (our reader went away) drops the output. */
    if (used > 0)
        gk__fd_write_full(s->target, out, used, 0);
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
}

static void stream_close(int rank, struct run_stream *s)
{
    stream_emit(rank, s, 1);
    close(s->fd);
    s->fd = -1;
}

/* Forwards what the pipe holds, up to `max_reads` reads (so one chatty PE
 * cannot starve the loop). */
static void stream_read(int rank, struct run_stream *s, int max_reads)
{
    for (int reads = 0; s->fd >= 0 && reads < max_reads; reads++) {
        ssize_t n = read(s->fd, s->buf + s->len, RUN_LINE_MAX - s->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            stream_close(rank, s);
            return;
        }
        s->len += (size_t)n;
        stream_emit(rank, s, 0);
    }
}

/* ---- PEs' ends ---- */

static void pe_judge(struct run_job *job, int rank, int status)
{
    struct run_pe *pe = &job->pes[rank];
    int pid = (int)pe->pid;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        fail_job(job, 128 + sig,
                 "PE %d (pid %d) was killed by signal %d (%s); stopping the job", rank,
                 pid, sig, run_signal_name(sig));
    } else if (WEXITSTATUS(status) != 0) {
        int code = WEXITSTATUS(status);
        if (pe->finalized) {
            /* Its own business after gk_finalize: the job's status, no stop.
             * A job already stopping keeps the status it stops with (a
             * shmem_global_exit(0) stays 0). */
            if (job->exit_code == 0 && !job->stopping)
                job->exit_code = code;
        } else {
            fail_job(job, code,
                     "PE %d (pid %d) exited with status %d%s; stopping the job", rank,
                     pid, code, pe->said_hello ? " before gk_finalize" : "");
        }
    } else if (pe->said_hello && !pe->finalized && job->running > 0) {
        fail_job(job, 1,
                 "PE %d (pid %d) exited without calling gk_finalize; stopping the job",
                 rank, pid);
    }
    exchange_check_stall(job);
}

static void pe_exited(struct run_job *job, int rank, int status)
{
    struct run_pe *pe = &job->pes[rank];
    /* Take its last messages (FINALIZE, ABORT) and output before judging,
     * without waiting for end-of-file. */
    pe_read(job, rank);
    pe_close_sock(job, rank);
    for (int s = 0; s < 2; s++)
        if (pe->out[s].fd >= 0)
            stream_read(rank, &pe->out[s], RUN_DRAIN_READS);
    pe->running = 0;
    job->running--;
    pe_judge(job, rank, status);
}

static void reap(struct run_job *job)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int r = 0; r < job->npes; r++) {
            if (job->pes[r].pid == pid && job->pes[r].running) {
                pe_exited(job, r, status);
                break;
            }
        }
        /* Not a PE: the clean-up helper, which ends only with us. */
    }
}

static void read_signals(struct run_job *job)
{
    unsigned char sigs[64];
    ssize_t got;
    while ((got = read(job->signal_fd, sigs, sizeof(sigs))) > 0)
        for (ssize_t k = 0; k < got; k++)
            if (sigs[k] != SIGCHLD)
                launcher_signalled(job, sigs[k]);
}

/* ---- the loop ---- */

enum { FD_SIGNALS, FD_SOCK, FD_STDOUT, FD_STDERR };

int run_loop(struct run_job *job)
{
    int64_t deadline =
        job->timeout_s > 0 ? run_now_ns() + (int64_t)(job->timeout_s * 1e9) : -1;
    int64_t lost_due = -1; /* when the next PE whose socket closed is due */
    size_t max_fds = 1 + 3 * (size_t)job->npes;
    struct pollfd *fds = calloc(max_fds, sizeof(*fds));
    int *owner = calloc(max_fds, sizeof(int));
    int *kind = calloc(max_fds, sizeof(int));
    if (fds == NULL || owner == NULL || kind == NULL) {
        free(fds);
        fds = NULL;
        run_error("out of memory for the event loop; stopping the job");
        run_stop_job(job, 1);
        job->killed = 1;
        signal_running(job, SIGKILL);
    }
    while (job->running > 0) {
        nfds_t n = 0;
        if (fds != NULL) {
            fds[n] = (struct pollfd){job->signal_fd, POLLIN, 0};
            kind[n++] = FD_SIGNALS;
            for (int r = 0; r < job->npes; r++) {
                struct run_pe *pe = &job->pes[r];
                if (pe->sock >= 0) {
                    short events = POLLIN | (pe->tx_head != NULL ? POLLOUT : 0);
                    fds[n] = (struct pollfd){pe->sock, events, 0};
                    owner[n] = r;
                    kind[n++] = FD_SOCK;
                }
                for (int s = 0; s < 2; s++) {
                    if (pe->out[s].fd >= 0) {
                        fds[n] = (struct pollfd){pe->out[s].fd, POLLIN, 0};
                        owner[n] = r;
                        kind[n++] = FD_STDOUT + s;
                    }
                }
            }
        }
        int64_t now = run_now_ns();
        int wait_ms = -1;
        if (job->stopping && !job->killed) {
            wait_ms = ms_until(job->kill_at_ns, now);
        } else if (!job->stopping) {
            int64_t wake = deadline;
            if (lost_due >= 0 && (wake < 0 || lost_due < wake))
                wake = lost_due;
            if (wake >= 0)
                wait_ms = ms_until(wake, now);
        }
        int ready = fds != NULL ? poll(fds, n, wait_ms) : -1;
        if (ready < 0 && (fds == NULL || errno != EINTR)) {
            /* Cannot watch the job: end it, and wait for its PEs plainly. */
            if (fds != NULL)
                fail_job(job, 1, "poll failed: %s; stopping the job", strerror(errno));
            signal_running(job, SIGKILL);
            for (int r = 0; r < job->npes; r++) {
                int status;
                if (job->pes[r].running && waitpid(job->pes[r].pid, &status, 0) > 0) {
                    job->pes[r].running = 0;
                    job->running--;
                }
            }
            break;
        }
        for (nfds_t i = 0; ready > 0 && i < n; i++) {
            if (fds[i].revents == 0)
                continue;
            int r = owner[i];
            switch (kind[i]) {
            case FD_SIGNALS:
                read_signals(job);
                break;
            case FD_SOCK:
                if (fds[i].revents & POLLOUT)
                    pe_send(job, r);
                if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
                    pe_read(job, r);
                break;
            default:
                stream_read(r, &job->pes[r].out[kind[i] - FD_STDOUT], RUN_READS_PER_WAKE);
                break;
            }
        }
        reap(job);
        now = run_now_ns();
        lost_due = check_lost(job, now);
        if (deadline >= 0 && now >= deadline && job->running > 0)
            fail_job(job, 124, "job exceeded --timeout %s s; stopping the job",
                     job->timeout_text);
        if (job->stopping && !job->killed && now >= job->kill_at_ns) {
            signal_running(job, SIGKILL);
            job->killed = 1;
        }
    }
    /* Every PE is gone: forward what its pipes still hold, not waiting for
     * processes it may have left behind with them open. */
    for (int r = 0; r < job->npes; r++) {
        for (int s = 0; s < 2; s++) {
            struct run_stream *st = &job->pes[r].out[s];
            if (st->fd >= 0)
                stream_read(r, st, RUN_DRAIN_READS);
            if (st->fd >= 0)
                stream_close(r, st);
        }
    }
    free(fds);
    free(owner);
    free(kind);
    return job->exit_code;
}

void run_release(struct run_job *job)
{
    run_hosts_release(job);
    if (job->pes == NULL)
        return;
    for (int r = 0; r < job->npes; r++) {
        pe_close_sock(job, r);
        for (int s = 0; s < 2; s++) {
            if (job->pes[r].out[s].fd >= 0)
                close(job->pes[r].out[s].fd);
            free(job->pes[r].out[s].buf);
        }
    }
    if (job->collecting != NULL) {
        job->collecting->refs = 1;
        exchange_unref(job, job->collecting);
        job->collecting = NULL;
    }
    free(job->pes);
    job->pes = NULL;
}

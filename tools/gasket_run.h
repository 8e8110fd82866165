/*
 * gasket_run.h: the state gasket-run's parts share. gasket-run.c owns
 * the command line, starting the PEs and the clean-up helper; gasket_run_loop.c
 * owns the event loop: the bootstrap service, output forwarding, noticing
 * and reporting a failed PE, and stopping the job; gasket_run_hosts.c owns
 * the simulated hosts of --hosts.
 */
#ifndef GASKET_RUN_H
#define GASKET_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "boot/launcher_proto.h"

#define RUN_MAX_PES 4096
#define RUN_GRACE_MS 1000 /* from SIGTERM to SIGKILL when stopping the job */
/* From a PE's end-of-file (before FINALIZE) to calling that its failure,
 * unless its exit is reaped first and reported instead. */
#define RUN_EOF_GRACE_MS 1000
#define RUN_LINE_MAX 4096 /* a longer output line is forwarded in pieces */
#define RUN_HOST_NS 3     /* namespaces per simulated host: UTS, IPC, mount */

/*
 * One ALLGATHER round. PEs' blobs arrive one by one into the collecting
 * exchange; when all npes are in, every PE gets a delivery of it: the header
 * and the blobs in rank order, written without blocking as its socket takes
 * them. The exchange is freed when its last delivery is done or dropped.
 */
struct run_exchange {
    uint64_t len; /* every blob's length, fixed by the first to arrive */
    int first;    /* the rank whose blob fixed len */
    int arrived;  /* blobs in so far */
    int refs;     /* one while collecting, one per unfinished delivery */
    char **blobs; /* npes entries; NULL for empty blobs */
};

struct run_delivery {
    struct run_exchange *ex;
    struct run_delivery *next;
};

/* One of a PE's output pipes, under --tag. */
struct run_stream {
    int fd;     /* read end, nonblocking, or -1 */
    int target; /* STDOUT_FILENO or STDERR_FILENO */
    size_t len; /* bytes of an unfinished line in buf */
    char *buf;  /* RUN_LINE_MAX bytes */
};

struct run_pe {
    pid_t pid;
    int running;
    int sock; /* launcher's end, nonblocking, or -1 once closed */
    int said_hello, finalized;
    int64_t lost_at_ns; /* its end of the socket closed before FINALIZE; 0: not */
    int in_exchange;    /* its blob is in the collecting exchange */
    /* The message being read: header, then payload. */
    struct gk__lmsg_header rx_header;
    size_t rx_header_got;
    char *rx_payload;
    uint64_t rx_payload_got;
    /* ALLGATHER answers still to be written; tx_off counts bytes of the
     * first one (header included) already written. */
    struct run_delivery *tx_head, *tx_tail;
    uint64_t tx_off;
    struct run_stream out[2];
};

struct run_job {
    int npes;
    int tag, bind;
    int hosts;                /* --hosts K; 0: the PEs run in the launcher's namespaces */
    int *host_ns;             /* RUN_HOST_NS descriptors per host, until the PEs are in */
    double timeout_s;         /* 0: none */
    const char *timeout_text; /* as the user wrote it, for the message */
    char key[33];
    struct run_pe *pes;
    int running; /* PEs not yet reaped */
    struct run_exchange *collecting;
    int exit_code;      /* the job's status, once decided */
    int stopping;       /* SIGTERM (or a forwarded signal) sent */
    int killed;         /* SIGKILL sent to the survivors */
    int64_t kill_at_ns; /* when the survivors get SIGKILL */
    int signal_fd;      /* read end of the self-pipe */
};

/* Prints "gasket-run: <message>\n" to stderr in one write. */
void run_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

const char *run_signal_name(int sig);
int64_t run_now_ns(void);

/* Ends the job with `exit_code`: SIGTERM to every running PE now, SIGKILL
 * to those left after RUN_GRACE_MS. Only the first call counts. */
void run_stop_job(struct run_job *job, int exit_code);

/* Serves the job until every PE has been reaped; returns its exit status. */
int run_loop(struct run_job *job);

/* Frees what the loop left (sockets, buffers, exchanges) and the hosts. */
void run_release(struct run_job *job);

/* --hosts: the host PE `rank` runs on. */
int run_host_of(const struct run_job *job, int rank);

/* Makes the job->hosts simulated hosts' namespaces, held in job->host_ns;
 * on failure says why and returns -1, nothing left running. */
int run_hosts_start(struct run_job *job);

/* In PE `rank`'s child, before exec: enters its host, keeping `cwd` as its
 * working directory. Says why and returns -1 on failure. */
int run_host_enter(const struct run_job *job, int rank, const char *cwd);

/* Closes the hosts' namespaces; they live on while PEs are in them. */
void run_hosts_release(struct run_job *job);

#endif /* GASKET_RUN_H */

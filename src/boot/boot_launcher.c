/*
 * boot_launcher.c: the bootstrap back end for PEs started by gasket-run. It
 * talks to the launcher over the inherited socket (launcher_proto.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "boot/boot.h"
#include "boot/fd_io.h"
#include "boot/launcher_proto.h"
#include "gasket.h"

static int launcher_send(struct gk__boot *boot, enum gk__lmsg_type type,
                         const void *payload, size_t len)
{
    struct gk__lmsg_header header = {GK__LMSG_MAGIC, (uint32_t)type, len};
    if (gk__fd_write_full(boot->fd, &header, sizeof(header), 1) != 0 ||
        (len > 0 && gk__fd_write_full(boot->fd, payload, len, 1) != 0)) {
        gk__error("bootstrap: lost the connection to gasket-run: %s", strerror(errno));
        return GK_ERR_BOOT;
    }
    return GK_OK;
}

static int launcher_allgather(struct gk__boot *boot, const void *mine, void *all,
                              size_t len)
{
    int status = launcher_send(boot, GK__LMSG_ALLGATHER, mine, len);
    if (status != GK_OK)
        return status;
    struct gk__lmsg_header header;
    if (gk__fd_read_full(boot->fd, &header, sizeof(header)) != 0) {
        gk__error("bootstrap: gasket-run closed the connection during an exchange");
        return GK_ERR_BOOT;
    }
    size_t expected = len * (size_t)boot->size;
    if (header.magic != GK__LMSG_MAGIC || header.type != GK__LMSG_ALLGATHER ||
        header.length != expected) {
        gk__error("bootstrap: bad answer from gasket-run (type %u, %llu bytes, "
                  "expected %zu)",
                  header.type, (unsigned long long)header.length, expected);
        return GK_ERR_BOOT;
    }
    if (expected > 0 && gk__fd_read_full(boot->fd, all, expected) != 0) {
        gk__error("bootstrap: gasket-run closed the connection during an exchange");
        return GK_ERR_BOOT;
    }
    return GK_OK;
}

static int launcher_finalize(struct gk__boot *boot)
{
    return launcher_send(boot, GK__LMSG_FINALIZE, NULL, 0);
}

/* ABORT and EXIT: the code, then the reason, cut to fit. */
static void launcher_send_end(struct gk__boot *boot, enum gk__lmsg_type type, int exit_code,
                              const char *why)
{
    char msg[512];
    int32_t code = exit_code;
    size_t why_len = why ? strlen(why) : 0;
    if (why_len > sizeof(msg) - sizeof(code))
        why_len = sizeof(msg) - sizeof(code);
    memcpy(msg, &code, sizeof(code));
    if (why_len)
        memcpy(msg + sizeof(code), why, why_len);
    launcher_send(boot, type, msg, sizeof(code) + why_len);
}

static void launcher_abort(struct gk__boot *boot, int exit_code, const char *why)
{
    launcher_send_end(boot, GK__LMSG_ABORT, exit_code, why);
}

static void launcher_exit_job(struct gk__boot *boot, int status, const char *why)
{
    launcher_send_end(boot, GK__LMSG_EXIT, status, why);
}

/*
 * The launcher is alive while its end of our socket is open. (Not "our
 * parent is the launcher": a PE may run under a wrapper such as `sh -c` or
 * `time`, whose child it is.) The launcher never writes unasked, so
 * anything readable outside an exchange is its end-of-file.
 */
static int launcher_check_alive(struct gk__boot *boot)
{
    struct pollfd pfd = {.fd = boot->fd, .events = POLLIN | POLLRDHUP};
    if (poll(&pfd, 1, 0) <= 0)
        return GK_OK;
    char byte;
    if ((pfd.revents & (POLLHUP | POLLRDHUP | POLLERR)) == 0 &&
        recv(boot->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) != 0)
        return GK_OK;
    gk__error("gasket-run (pid %d) is gone; ending this PE", (int)boot->launcher_pid);
    return GK_ERR_BOOT;
}

static void launcher_fini(struct gk__boot *boot)
{
    if (boot->fd >= 0)
        close(boot->fd);
    boot->fd = -1;
}

static const struct gk__boot_ops launcher_ops = {
    .name = "launcher",
    .allgather = launcher_allgather,
    .finalize = launcher_finalize,
    .abort = launcher_abort,
    .exit_job = launcher_exit_job,
    .check_alive = launcher_check_alive,
    .fini = launcher_fini,
};

static int launcher_env_int(const char *name, long min, long max, long *value_p)
{
    const char *text = gk__config_getenv(NULL, name);
    char *end;
    long value = text ? strtol(text, &end, 10) : 0;
    if (text == NULL || *text == '\0' || *end != '\0' || value < min || value > max) {
        gk__error("bootstrap: GK_%s=%s is not valid; start PEs with gasket-run", name,
                  text ? text : "(unset)");
        return GK_ERR_BOOT;
    }
    *value_p = value;
    return GK_OK;
}

int gk__boot_launcher_open(struct gk__boot *boot)
{
    long size, rank, fd, pid;
    if (launcher_env_int("SIZE", 1, 1 << 20, &size) != GK_OK ||
        launcher_env_int("RANK", 0, size - 1, &rank) != GK_OK ||
        launcher_env_int("BOOT_FD", 0, 1 << 20, &fd) != GK_OK ||
        launcher_env_int("LAUNCHER_PID", 1, 1L << 30, &pid) != GK_OK)
        return GK_ERR_BOOT;
    /* Unset: a gasket-run from before the variable, which spoke version 1. */
    long protocol = 1;
    if (gk__config_getenv(NULL, "LAUNCHER_PROTOCOL") != NULL &&
        launcher_env_int("LAUNCHER_PROTOCOL", 0, 1L << 30, &protocol) != GK_OK)
        return GK_ERR_BOOT;
    if (protocol != GK__LAUNCHER_PROTOCOL) {
        gk__error("bootstrap: this gasket-run speaks launcher protocol %ld, this program's "
                  "libgasket speaks %d: start it with the gasket-run of the gasket it was "
                  "built with",
                  protocol, GK__LAUNCHER_PROTOCOL);
        return GK_ERR_BOOT;
    }
    const char *key = gk__config_getenv(NULL, "JOB_KEY");
    if (key == NULL || strlen(key) != 32 || strspn(key, "0123456789abcdef") != 32) {
        gk__error("bootstrap: GK_JOB_KEY=%s is not 32 hex digits", key ? key : "(unset)");
        return GK_ERR_BOOT;
    }
    /* Programs this PE runs (system(), exec) must not inherit the socket:
     * they would keep it open after the PE dies. */
    int fd_flags = fcntl((int)fd, F_GETFD);
    if (fd_flags < 0 || fcntl((int)fd, F_SETFD, fd_flags | FD_CLOEXEC) != 0) {
        gk__error("bootstrap: GK_BOOT_FD=%ld is not an open descriptor: %s", fd,
                  strerror(errno));
        return GK_ERR_BOOT;
    }
    boot->ops = &launcher_ops;
    boot->rank = (int)rank;
    boot->size = (int)size;
    boot->fd = (int)fd;
    boot->launcher_pid = (pid_t)pid;
    snprintf(boot->job_key, sizeof(boot->job_key), "%s", key);
    /* Optional (gasket-run sets it): the CPUs the launcher may use, and
     * after a slash how many PEs share them, where those are not just this
     * node's (simulated hosts share one machine's CPUs). */
    const char *cpus = gk__config_getenv(NULL, "NODE_CPUS");
    char *end = NULL;
    long n_cpus = cpus != NULL ? strtol(cpus, &end, 10) : 0, sharers = 0;
    if (cpus != NULL && end != cpus && *end == '/') {
        const char *at = end + 1;
        sharers = strtol(at, &end, 10);
        if (end == at || sharers <= 0 || sharers >= (1L << 20))
            n_cpus = 0;
    }
    int valid = cpus != NULL && end != cpus && *end == '\0' && n_cpus > 0 && n_cpus < (1L << 20);
    boot->node_cpus = valid ? (int)n_cpus : 0;
    boot->node_cpu_sharers = valid ? (int)sharers : 0;
    return launcher_send(boot, GK__LMSG_HELLO, NULL, 0);
}

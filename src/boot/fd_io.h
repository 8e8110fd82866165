/*
 * fd_io.h: whole-buffer reads and writes on a file descriptor, retrying
 * after EINTR and short transfers. Shared by the launcher's two ends (the
 * PE's bootstrap back end and tools/gasket-run.c). Writes use send() with
 * MSG_NOSIGNAL on sockets so a dead peer is an error, not a SIGPIPE.
 */
#ifndef GK_BOOT_FD_IO_H
#define GK_BOOT_FD_IO_H

#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>
#include <unistd.h>

/* 0 when all `len` bytes moved; -1 on error or end of file. */
static inline int gk__fd_read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* As above; `is_socket` selects send(MSG_NOSIGNAL) over write(). */
static inline int gk__fd_write_full(int fd, const void *buf, size_t len, int is_socket)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = is_socket ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

#endif /* GK_BOOT_FD_IO_H */

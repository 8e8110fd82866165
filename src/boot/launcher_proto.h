/*
 * launcher_proto.h: the wire protocol between gasket-run (tools/gasket-run.c)
 * and the launcher bootstrap back end in each PE (src/boot/boot_launcher.c).
 *
 * gasket-run starts each PE with a connected AF_UNIX SOCK_STREAM socket
 * inherited across exec, and these environment variables:
 *
 *   GK_RANK          this PE's number, 0 .. GK_SIZE-1
 *   GK_SIZE          the number of PEs
 *   GK_BOOT_FD       the inherited socket's file descriptor number
 *   GK_JOB_KEY       32 random hex digits, unique to the job; it names the
 *                    job's shared-memory segments, GK_SHM_NAME_FORMAT below
 *   GK_LAUNCHER_PID  gasket-run's pid, so a PE can tell its launcher is gone
 *   GK_LAUNCHER_PROTOCOL  GK__LAUNCHER_PROTOCOL below: a PE whose library
 *                    speaks another version refuses to start and says so,
 *                    instead of misreading messages (a program built
 *                    against one installation, started by another's
 *                    gasket-run). Unset means 1, the version before the
 *                    variable existed.
 *
 * Every message in either direction is a struct gk__lmsg_header followed by
 * `length` bytes of payload. Messages from a PE to the launcher:
 *
 *   HELLO      no payload. Sent by gk_init(): this PE uses gasket, so exiting
 *              without FINALIZE while others run is a failure, and so is
 *              closing the socket without FINALIZE while running on.
 *   ALLGATHER  this PE's blob. Every PE must send the same length. When all
 *              PEs have sent theirs, the launcher answers each PE with one
 *              ALLGATHER message whose payload is the size blobs in rank
 *              order. A blob of length 0 is the out-of-band barrier.
 *              Different lengths end the job with an error.
 *   FINALIZE   no payload. Sent by gk_finalize() after its last barrier.
 *   ABORT      payload: int32_t exit code, then a message (not terminated).
 *              The launcher prints "gasket-run: PE r called gk_abort(code):
 *              message; stopping the job", stops every PE, and exits with
 *              the code.
 *
 * The launcher sends nothing but ALLGATHER answers. It unlinks every name
 * GK_SHM_NAME_FORMAT can produce for the job when the job ends, so a PE that
 * dies between creating its segment and unlinking it leaves nothing behind.
 */
#ifndef GK_BOOT_LAUNCHER_PROTO_H
#define GK_BOOT_LAUNCHER_PROTO_H

#include <stdint.h>

#define GK__LMSG_MAGIC 0x676b6c6dU /* "gklm" */

/* The protocol's version: raise it with any change to what is below. */
#define GK__LAUNCHER_PROTOCOL 2

enum gk__lmsg_type {
    GK__LMSG_HELLO = 1,
    GK__LMSG_ALLGATHER = 2,
    GK__LMSG_FINALIZE = 3,
    GK__LMSG_ABORT = 4,
    /* The job ends with the status sent, as is (shmem_global_exit); the
     * payload is laid out as ABORT's. */
    GK__LMSG_EXIT = 5
};

struct gk__lmsg_header {
    uint32_t magic;  /* GK__LMSG_MAGIC */
    uint32_t type;   /* enum gk__lmsg_type */
    uint64_t length; /* payload bytes that follow */
};

_Static_assert(sizeof(struct gk__lmsg_header) == 16, "wire layout");

/* The largest payload either side accepts; bigger is a protocol error. */
#define GK__LMSG_MAX_PAYLOAD (64u << 20)

/* shm_open() name of PE `rank`'s segment: printf(FORMAT, job_key, rank). */
#define GK_SHM_NAME_FORMAT "/gk-%s-%d"
/* The file under /dev/shm that name appears as. */
#define GK_SHM_DEV_FORMAT "/dev/shm/gk-%s-%d"

#endif /* GK_BOOT_LAUNCHER_PROTO_H */

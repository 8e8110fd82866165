/*
 * fake_pe: a PE that speaks the launcher protocol (src/boot/launcher_proto.h)
 * by hand, without the library, so gasket-run's failure handling is tested
 * on its own. usage: fake_pe MODE [VICTIM]
 *
 * Unless MODE says otherwise every PE creates a shared-memory segment under
 * the job's name and never unlinks it (gasket-run must), says HELLO and
 * takes part in one exchange, so that all PEs are mid-run; then the victim
 * (PE 1, or VICTIM) fails as MODE says while the others wait in a second
 * exchange that can complete only if it does not.
 *
 *   ok        everyone finishes (two exchanges, FINALIZE, exit 0)
 *   kill      the victim raises SIGKILL
 *   nofin     the victim exits 0 without FINALIZE
 *   abort     the victim calls abort()
 *   exit3     the victim exits 3 before FINALIZE
 *   gkabort   the victim sends ABORT(5, a two-line message), then waits
 *   late3     everyone finalizes; then the victim exits 3
 *   leave     the victim finalizes and exits 0 while the others exchange
 *   badmagic  the victim sends a header with a wrong magic number
 *   badtype   the victim sends a message of type 9
 *   huge      the victim announces a 1 GiB blob (over GK__LMSG_MAX_PAYLOAD)
 *   badlen    the victim's second blob is longer than the others'
 *   closefd   the victim closes its socket and runs on (until signalled)
 *   exitfin   the victim finalizes, all exchange again, then the last PE
 *             ends the job with EXIT(0) (shmem_global_exit(0)); the
 *             victim, finalized, exits 1 when the launcher stops it: the
 *             job's status stays 0
 *   hang      everyone blocks reading its socket, forever
 *   stubborn  as hang, but SIGTERM is ignored (the launcher must SIGKILL)
 *   plain     a program that is not a gasket program: no protocol, exit 0
 *   plain2    as plain, but the victim exits 2
 *   tag       prints whole and unfinished lines on stdout and stderr, then ok
 *   bigtag    sends 256 KiB blobs and writes 512 KiB of output before it
 *             reads the answer (deadlocks a launcher that blocks on a PE)
 *   bind      checks it is pinned to CPU (rank mod n) of the launcher's set
 *   hosts     under --hosts K: checks that PEs of one simulated host share
 *             a hostname, IPC and mount namespaces and /dev/shm, that PEs
 *             of different hosts share none of these, and that all share
 *             the launcher's network namespace; and the environment the
 *             launcher gives them (host, its CPUs, UCX); then ok
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/launcher_proto.h"
#include "fault_common.h"

static int boot_fd = -1, rank = -1, npes = 0;

static void die(const char *what)
{
    fprintf(stderr, "fake_pe PE %d: %s: %s\n", rank, what, strerror(errno));
    exit(99);
}

static long env_long(const char *name)
{
    const char *text = getenv(name);
    if (text == NULL) {
        fprintf(stderr, "fake_pe: %s is not set; run me under gasket-run\n", name);
        exit(99);
    }
    return strtol(text, NULL, 10);
}

static void write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("write");
        p += n;
        len -= (size_t)n;
    }
}

static void read_all(void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(boot_fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            fprintf(stderr, "fake_pe PE %d: gasket-run closed the socket\n", rank);
            exit(98);
        }
        if (n < 0)
            die("read");
        p += n;
        len -= (size_t)n;
    }
}

static void send_msg(uint32_t type, const void *payload, uint64_t len)
{
    struct gk__lmsg_header h = {GK__LMSG_MAGIC, type, len};
    write_all(boot_fd, &h, sizeof(h));
    if (len > 0)
        write_all(boot_fd, payload, len);
}

static void recv_answer(void *all, uint64_t len)
{
    struct gk__lmsg_header h;
    read_all(&h, sizeof(h));
    if (h.magic != GK__LMSG_MAGIC || h.type != GK__LMSG_ALLGATHER ||
        h.length != len * (uint64_t)npes) {
        fprintf(stderr, "fake_pe PE %d: bad answer (magic %x type %u length %llu)\n",
                rank, h.magic, h.type, (unsigned long long)h.length);
        exit(97);
    }
    read_all(all, h.length);
}

/* Exchanges this PE's rank with everyone and checks the answer. */
static void exchange_ranks(void)
{
    int32_t mine = rank, *all = malloc(sizeof(int32_t) * (size_t)npes);
    send_msg(GK__LMSG_ALLGATHER, &mine, sizeof(mine));
    recv_answer(all, sizeof(mine));
    for (int r = 0; r < npes; r++) {
        if (all[r] != r) {
            fprintf(stderr, "fake_pe PE %d: exchange slot %d holds %d\n", rank, r,
                    all[r]);
            exit(96);
        }
    }
    free(all);
}

/* Blocks until the launcher goes away (it never writes unasked). */
static void exit_one(int sig)
{
    (void)sig;
    _exit(1);
}

static void block_forever(void)
{
    char byte;
    read_all(&byte, 1);
    exit(95);
}

static void create_segment(void)
{
    char name[128];
    snprintf(name, sizeof(name), GK_SHM_NAME_FORMAT, getenv("GK_JOB_KEY"), rank);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, 4096) != 0)
        die("shm_open");
    close(fd); /* and never unlinked: gasket-run's job */
}

static void print_tagged_lines(void)
{
    char text[256];
    int len = snprintf(text, sizeof(text),
                       "out one from %d\nout two from %d\nout partial from %d", rank,
                       rank, rank);
    write_all(STDOUT_FILENO, text, (size_t)len);
    len =
        snprintf(text, sizeof(text), "err one from %d\nerr partial from %d", rank, rank);
    write_all(STDERR_FILENO, text, (size_t)len);
}

/* The second exchange with big blobs, output written while the answer is
 * pending: the launcher must keep draining our pipe while it writes the
 * answer into our socket. */
static void big_exchange(void)
{
    const size_t blob = 256 * 1024;
    char *mine = malloc(blob), *all = malloc(blob * (size_t)npes);
    memset(mine, 'a' + rank % 26, blob);
    send_msg(GK__LMSG_ALLGATHER, mine, blob);
    char line[64];
    for (int i = 0; i < 8192; i++) {
        int len = snprintf(line, sizeof(line),
                           "big %d line %05d .........................\n", rank, i);
        write_all(STDOUT_FILENO, line, (size_t)len);
    }
    recv_answer(all, blob);
    for (int r = 0; r < npes; r++)
        for (size_t i = 0; i < blob; i += 4096)
            if (all[(size_t)r * blob + i] != 'a' + r % 26) {
                fprintf(stderr, "fake_pe PE %d: big exchange slot %d is wrong\n", rank,
                        r);
                exit(96);
            }
    free(mine);
    free(all);
}

static void check_binding(void)
{
    cpu_set_t launcher, mine;
    if (sched_getaffinity(getppid(), sizeof(launcher), &launcher) != 0 ||
        sched_getaffinity(0, sizeof(mine), &mine) != 0)
        die("sched_getaffinity");
    int want = rank % CPU_COUNT(&launcher), seen = 0, cpu;
    for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &launcher) && seen++ == want)
            break;
    if (CPU_COUNT(&mine) != 1 || !CPU_ISSET(cpu, &mine)) {
        fprintf(stderr, "fake_pe PE %d: bound to %d CPUs, expected only CPU %d\n", rank,
                CPU_COUNT(&mine), cpu);
        exit(94);
    }
    printf("fake_pe PE %d bound to CPU %d\n", rank, cpu);
    fflush(stdout);
}

/* What a PE of a simulated host sees of it, exchanged between the PEs. */
struct host_card {
    int32_t host;
    char hostname[64];
    char ns[4][48]; /* uts, ipc, mnt, net: "uts:[4026532177]" */
};

static const char *const host_ns_names[4] = {"uts", "ipc", "mnt", "net"};

static void ns_link(pid_t pid, const char *ns, char *link, size_t size)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns);
    ssize_t n = readlink(path, link, size - 1);
    if (n < 0)
        die(path);
    link[n] = '\0';
}

static int host_failures;

static void host_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void host_fail(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "fake_pe PE %d: %s\n", rank, line);
    host_failures++;
}

/* The placement is gasket-run's contract: PE r on host r*K/N. */
static void check_hosts(void)
{
    int hosts = (int)env_long("GASKET_RUN_HOSTS");
    int mine = (int)env_long("GASKET_RUN_HOST");
    if (hosts < 1 || mine != rank * hosts / npes)
        host_fail("GASKET_RUN_HOST=%d with %d hosts, expected %d", mine, hosts,
                  hosts < 1 ? -1 : rank * hosts / npes);
    /* The hosts share the launcher's CPUs: every PE of the job counts
     * against them ("CPUs/PEs"). */
    cpu_set_t launcher_cpus;
    if (sched_getaffinity(getppid(), sizeof(launcher_cpus), &launcher_cpus) != 0)
        die("sched_getaffinity");
    char want_cpus[32];
    snprintf(want_cpus, sizeof(want_cpus), "%d/%d", CPU_COUNT(&launcher_cpus), npes);
    const char *node_cpus = getenv("GK_NODE_CPUS");
    if (node_cpus == NULL || strcmp(node_cpus, want_cpus) != 0)
        host_fail("GK_NODE_CPUS=%s, expected %s", node_cpus != NULL ? node_cpus : "unset",
                  want_cpus);
    const char *ucx = getenv("UCX_NET_DEVICES");
    if ((hosts > 1) != (ucx != NULL && strcmp(ucx, "lo") == 0))
        host_fail("UCX_NET_DEVICES is %s with %d hosts", ucx != NULL ? ucx : "unset",
                  hosts);

    struct host_card card, *all = calloc((size_t)npes, sizeof(card));
    memset(&card, 0, sizeof(card));
    card.host = mine;
    if (all == NULL || gethostname(card.hostname, sizeof(card.hostname) - 1) != 0)
        die("gethostname");
    for (int i = 0; i < 4; i++)
        ns_link(getpid(), host_ns_names[i], card.ns[i], sizeof(card.ns[i]));
    char want[64];
    snprintf(want, sizeof(want), "gk-host%d", mine);
    if (strcmp(card.hostname, want) != 0)
        host_fail("hostname %s, expected %s", card.hostname, want);
    /* Our /dev/shm is not the launcher's; the network is. */
    for (int i = 0; i < 4; i++) {
        char launcher_ns[48];
        ns_link(getppid(), host_ns_names[i], launcher_ns, sizeof(launcher_ns));
        if ((strcmp(launcher_ns, card.ns[i]) == 0) != (i == 3))
            host_fail("%s namespace %s, the launcher's %s", host_ns_names[i], card.ns[i],
                      launcher_ns);
    }

    /* Every PE created its segment before the first exchange. */
    send_msg(GK__LMSG_ALLGATHER, &card, sizeof(card));
    recv_answer(all, sizeof(card));
    for (int r = 0; r < npes; r++) {
        int same = r * hosts / npes == mine;
        if (all[r].host != r * hosts / npes)
            host_fail("PE %d says it is on host %d, expected %d", r, all[r].host,
                      r * hosts / npes);
        if ((strcmp(all[r].hostname, card.hostname) == 0) != same)
            host_fail("hostname %s, PE %d's %s", card.hostname, r, all[r].hostname);
        for (int i = 0; i < 4; i++)
            if ((strcmp(all[r].ns[i], card.ns[i]) == 0) != (same || i == 3))
                host_fail("%s namespace %s, PE %d's %s", host_ns_names[i], card.ns[i], r,
                          all[r].ns[i]);
        char path[160];
        snprintf(path, sizeof(path), "/dev/shm" GK_SHM_NAME_FORMAT, getenv("GK_JOB_KEY"),
                 r);
        if ((access(path, F_OK) == 0) != same)
            host_fail("PE %d's segment %s is %s", r, path,
                      same ? "missing" : "visible from another host");
    }
    free(all);
    if (host_failures > 0)
        exit(93);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int victim_rank = argc > 2 ? atoi(argv[2]) : 1;
    rank = (int)env_long("GK_RANK");
    npes = (int)env_long("GK_SIZE");
    boot_fd = (int)env_long("GK_BOOT_FD");
    int victim = rank == victim_rank % npes;
    fault_note_pid(rank);
    /* abort() should not leave core files behind. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);

    if (strncmp(mode, "plain", 5) == 0) {
        if (victim && strcmp(mode, "plain2") == 0) {
            fault_note_death();
            return 2;
        }
        return 0;
    }
    create_segment();
    send_msg(GK__LMSG_HELLO, NULL, 0);
    if (strcmp(mode, "tag") == 0)
        print_tagged_lines();
    exchange_ranks();
    fault_ready(rank);
    if (strcmp(mode, "bind") == 0)
        check_binding();
    if (strcmp(mode, "hosts") == 0)
        check_hosts();

    if (strcmp(mode, "hang") == 0)
        block_forever();
    if (strcmp(mode, "stubborn") == 0) {
        signal(SIGTERM, SIG_IGN);
        block_forever();
    }
    if (strcmp(mode, "exitfin") == 0) {
        if (victim) {
            signal(SIGTERM, exit_one);
            send_msg(GK__LMSG_FINALIZE, NULL, 0);
        }
        /* Its answer comes once the launcher has read the victim's
         * FINALIZE, which came before the victim's part of it. */
        exchange_ranks();
        if (rank == npes - 1) {
            static const char why[] = "the fault test ends the job";
            char payload[4 + sizeof(why) - 1];
            int32_t code = 0;
            memcpy(payload, &code, 4);
            memcpy(payload + 4, why, sizeof(why) - 1);
            send_msg(GK__LMSG_EXIT, payload, sizeof(payload));
        }
        block_forever();
    }
    if (victim) {
        if (strcmp(mode, "kill") == 0) {
            fault_note_death();
            raise(SIGKILL);
        } else if (strcmp(mode, "nofin") == 0) {
            fault_note_death();
            exit(0);
        } else if (strcmp(mode, "abort") == 0) {
            fault_note_death();
            abort();
        } else if (strcmp(mode, "exit3") == 0) {
            fault_note_death();
            exit(3);
        } else if (strcmp(mode, "gkabort") == 0) {
            static const char why[] = "the fault test\nasked for it";
            char payload[4 + sizeof(why) - 1];
            int32_t code = 5;
            memcpy(payload, &code, 4);
            memcpy(payload + 4, why, sizeof(why) - 1);
            fault_note_death();
            send_msg(GK__LMSG_ABORT, payload, sizeof(payload));
            block_forever();
        } else if (strcmp(mode, "leave") == 0) {
            fault_note_death();
            send_msg(GK__LMSG_FINALIZE, NULL, 0);
            exit(0);
        } else if (strcmp(mode, "badmagic") == 0) {
            struct gk__lmsg_header h = {0xdeadbeef, GK__LMSG_ALLGATHER, 8};
            fault_note_death();
            write_all(boot_fd, &h, sizeof(h));
            block_forever();
        } else if (strcmp(mode, "badtype") == 0 || strcmp(mode, "huge") == 0) {
            int huge = strcmp(mode, "huge") == 0;
            struct gk__lmsg_header h = {GK__LMSG_MAGIC, huge ? GK__LMSG_ALLGATHER : 9,
                                        huge ? (uint64_t)1 << 30 : 0};
            fault_note_death();
            write_all(boot_fd, &h, sizeof(h));
            block_forever();
        } else if (strcmp(mode, "closefd") == 0) {
            fault_note_death();
            close(boot_fd);
            for (;;)
                pause();
        } else if (strcmp(mode, "badlen") == 0) {
            char blob[16] = {0};
            fault_note_death();
            send_msg(GK__LMSG_ALLGATHER, blob, sizeof(blob));
            block_forever();
        }
    }
    if (strcmp(mode, "bigtag") == 0)
        big_exchange();
    else
        exchange_ranks();
    send_msg(GK__LMSG_FINALIZE, NULL, 0);
    if (strcmp(mode, "late3") == 0 && victim)
        return 3;
    return 0;
}

/*
 * raw-floor: what the hardware gives without any runtime; the floor under
 * gasket's numbers. Same command line and tables as gk-bench:
 *
 *   raw-floor flag_pingpong [CPU0 CPU1] [--iters N] [--warmup N] [--max-size B]
 *       Two processes (fork) share an anonymous MAP_SHARED mapping, each
 *       pinned to its own CPU (default: the first two CPUs this process may
 *       use, which is where gasket-run --bind puts PEs 0 and 1). The sender
 *       memcpy's the payload into the peer's mailbox and release-stores a
 *       sequence number into the peer's flag; the receiver spins on an
 *       acquire load of its flag, then answers the same way. One-way time
 *       (half the round trip), 8 B to 64 KiB.
 *   raw-floor flag_pingpong_owned [CPU0 CPU1] ...
 *       The same, but each side's flag and mailbox live in a shared-memory
 *       object of their own (two shm_open segments), as in a runtime where
 *       the receiver owns the memory it is signalled in. For information.
 *   raw-floor memcpy_bw [CPU] ...
 *       memcpy of `size` bytes between two page-aligned buffers, in windows
 *       of 64 copies to the same destination, as put_bw does: MB/s, 1 B to
 *       4 MiB, pinned to CPU (default: the first allowed CPU, PE 0's).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../bench_common.h"

static const char usage[] =
    "usage: raw-floor flag_pingpong [CPU0 CPU1] [--iters N] [--warmup N] [--max-size BYTES]\n"
    "       raw-floor flag_pingpong_owned [CPU0 CPU1] [options]\n"
    "       raw-floor memcpy_bw [CPU] [options]\n"
    "CPUs default to the first two this process may run on.\n";

#define PP_MAX 65536

/* Each side's flag on a line of its own, and each side's mailbox. */
struct shared {
    struct {
        _Alignas(64) _Atomic uint64_t flag;
    } line[2];
    _Alignas(64) unsigned char box[2][PP_MAX];
};

static void die(const char *what)
{
    fprintf(stderr, "raw-floor: %s failed: %s\n", what, strerror(errno));
    exit(1);
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        die("sched_setaffinity");
}

/* The n-th CPU (from 0) this process may run on, as gasket-run --bind picks. */
static int allowed_cpu(int n)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        die("sched_getaffinity");
    int count = CPU_COUNT(&set);
    if (count == 0)
        return 0;
    n %= count;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set) && n-- == 0)
            return cpu;
    return 0;
}

static int cpu_arg(const struct bench_opts *opts, int index)
{
    if (index < opts->n_args) {
        char *end;
        long cpu = strtol(opts->args[index], &end, 10);
        if (*end != '\0' || cpu < 0 || cpu >= CPU_SETSIZE) {
            fprintf(stderr, "raw-floor: bad CPU number %s\n%s", opts->args[index], usage);
            exit(2);
        }
        return (int)cpu;
    }
    return allowed_cpu(index);
}

/* Side s waits on segs[s]->line[s] and writes segs[1-s]'s line and box. */
static void pingpong_side(struct shared *segs[2], int side, size_t size, long iters,
                          uint64_t *seq, const unsigned char *src)
{
    struct shared *mine = segs[side], *peer = segs[1 - side];
    for (long i = 0; i < iters; i++) {
        for (int turn = 0; turn < 2; turn++) {
            ++*seq;
            if (turn == side) {
                memcpy(peer->box[1 - side], src, size);
                atomic_store_explicit(&peer->line[1 - side].flag, *seq, memory_order_release);
            } else {
                while (atomic_load_explicit(&mine->line[side].flag, memory_order_acquire) < *seq)
                    __builtin_ia32_pause();
            }
        }
    }
}

/* One segment per side: line[side] and box[side] of segment `side` are used. */
static struct shared *owned_segment(int side)
{
    char name[64];
    snprintf(name, sizeof(name), "/gk-raw-floor-%d-%d", (int)getpid(), side);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        die("shm_open");
    shm_unlink(name);
    struct shared *seg = MAP_FAILED;
    if (ftruncate(fd, sizeof(struct shared)) == 0)
        seg = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (seg == MAP_FAILED)
        die("mapping the segment");
    return seg;
}

static void flag_pingpong(const struct bench_opts *opts, int owned)
{
    int cpu0 = cpu_arg(opts, 0), cpu1 = cpu_arg(opts, 1);
    struct shared *segs[2];
    if (owned) {
        segs[0] = owned_segment(0);
        segs[1] = owned_segment(1);
    } else {
        segs[0] = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (segs[0] == MAP_FAILED)
            die("mmap");
        segs[1] = segs[0];
    }
    static unsigned char src[PP_MAX];
    memset(src, 1, sizeof(src));
    char note[96];
    snprintf(note, sizeof(note), "%s; CPUs %d and %d",
             owned ? "one shared-memory segment per side" : "one anonymous shared mapping",
             cpu0, cpu1);
    bench_header(opts->name, "raw", 2, note, "us one-way");
    BENCH_FOR_SIZES(opts, size, 8, PP_MAX) {
        long iters = bench_iters(opts, size, 100000);
        long warmup = bench_warmup(opts, size, 100000);
        atomic_store(&segs[0]->line[0].flag, 0);
        atomic_store(&segs[1]->line[1].flag, 0);
        fflush(stdout);
        pid_t child = fork();
        if (child < 0)
            die("fork");
        if (child == 0) {
            pin(cpu1);
            uint64_t seq = 0;
            pingpong_side(segs, 1, size, warmup + iters, &seq, src);
            _exit(0);
        }
        pin(cpu0);
        uint64_t seq = 0;
        pingpong_side(segs, 0, size, warmup, &seq, src);
        double t0 = bench_now_us();
        pingpong_side(segs, 0, size, iters, &seq, src);
        double us = bench_now_us() - t0;
        int status;
        if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "raw-floor: the second process failed\n");
            exit(1);
        }
        bench_row_lat(opts, size, us / (double)iters / 2.0);
    }
}

static void memcpy_bw(const struct bench_opts *opts)
{
    int cpu = cpu_arg(opts, 0);
    unsigned char *src, *dst;
    pin(cpu);
    if (posix_memalign((void **)&src, 4096, BENCH_MAX_MSG) != 0 ||
        posix_memalign((void **)&dst, 4096, BENCH_MAX_MSG) != 0) {
        fprintf(stderr, "raw-floor: no memory for the buffers\n");
        exit(1);
    }
    memset(src, 1, BENCH_MAX_MSG);
    memset(dst, 0, BENCH_MAX_MSG);
    char note[96];
    snprintf(note, sizeof(note), "windows of 64 memcpy to one buffer; CPU %d", cpu);
    bench_header("memcpy_bw", "raw", 1, note, "MB/s");
    BENCH_FOR_SIZES(opts, size, 1, BENCH_MAX_MSG) {
        long loops = bench_bw_loops(opts, size), warmup = bench_bw_warmup(opts, loops);
        double t0 = 0;
        BENCH_TIMED_LOOP(l, warmup, loops, t0) {
            for (int w = 0; w < BENCH_BW_WINDOW; w++) {
                memcpy(dst, src, size);
                /* Keep every copy: the compiler may not merge or drop them. */
                __asm__ __volatile__("" ::"r"(dst) : "memory");
            }
        }
        bench_row_bw_windows(size, loops, bench_now_us() - t0);
    }
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    struct bench_opts opts;
    if (bench_parse(argc, argv, usage, &opts) != 0)
        return 2;
    if (strcmp(opts.name, "flag_pingpong") == 0 || strcmp(opts.name, "flag_pingpong_owned") == 0) {
        if (opts.n_args != 0 && opts.n_args != 2) {
            fprintf(stderr, "raw-floor: %s takes two CPUs or none\n%s", opts.name, usage);
            return 2;
        }
        flag_pingpong(&opts, strcmp(opts.name, "flag_pingpong_owned") == 0);
    } else if (strcmp(opts.name, "memcpy_bw") == 0) {
        if (opts.n_args > 1) {
            fprintf(stderr, "raw-floor: memcpy_bw takes one CPU or none\n%s", usage);
            return 2;
        }
        memcpy_bw(&opts);
    } else {
        fprintf(stderr, "raw-floor: unknown benchmark %s\n%s", opts.name, usage);
        return 2;
    }
    return 0;
}

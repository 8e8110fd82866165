/*
 * raw-floor: what the hardware gives without any runtime, the floor for
 * gasket's numbers.
 *
 *   raw-floor flag_pingpong [CPU0 CPU1]   two processes sharing an anonymous
 *       MAP_SHARED mapping, each pinned to its own CPU: copy the payload,
 *       release-store a flag; the other spins on an acquire load and
 *       answers the same way. One-way time, 8 B to 64 KiB.
 *   raw-floor flag_pingpong_owned [CPU0 CPU1]   the same, but each side's
 *       flag and mailbox live in a shared-memory segment of its own (two
 *       shm_open objects), as in any runtime where the receiver owns the
 *       memory it is signalled in. On the 2-vCPU EPYC VM this layout alone
 *       costs ~10 ns per one-way over the single mapping above.
 *   raw-floor memcpy_bw [CPU]             memcpy of size bytes between two
 *       buffers, repeated like put_bw's window: MB/s, 1 B to 4 MiB; pinned
 *       to CPU (default 0, where gasket-run --bind puts PE 0).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../bench_common.h"

#define MAX_MSG ((size_t)4 << 20)

/* Each side's flag and mailbox on lines of their own. */
struct shared {
    struct {
        _Alignas(64) _Atomic uint64_t flag;
    } line[2];
    _Alignas(64) unsigned char box[2][65536];
};

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

/* Side s waits on segs[s]->line[s] and writes segs[1-s]'s line and box. */
static void pingpong_side(struct shared *segs[2], int side, size_t size, long iters,
                          uint64_t *seq, unsigned char *src)
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
        return NULL;
    shm_unlink(name);
    struct shared *seg = NULL;
    if (ftruncate(fd, sizeof(struct shared)) == 0)
        seg = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return seg == MAP_FAILED ? NULL : seg;
}

static void flag_pingpong(const char *name, int cpu0, int cpu1, int owned)
{
    struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    struct shared *segs[2] = {sh, sh};
    if (owned) {
        segs[0] = owned_segment(0);
        segs[1] = owned_segment(1);
        if (segs[0] == NULL || segs[1] == NULL) {
            fprintf(stderr, "raw-floor: cannot create the segments\n");
            exit(1);
        }
    }
    unsigned char src[65536];
    memset(src, 1, sizeof(src));
    bench_header(name, owned ? "raw, one segment per side" : "raw shared memory", 2,
                 "us one-way");
    BENCH_FOR_SIZES(size, 8, 65536) {
        long iters = bench_iters(size, 100000);
        atomic_store(&segs[0]->line[0].flag, 0);
        atomic_store(&segs[1]->line[1].flag, 0);
        pid_t child = fork();
        if (child == 0) {
            pin(cpu1);
            uint64_t seq = 0;
            pingpong_side(segs, 1, size, iters / 10 + iters, &seq, src);
            _exit(0);
        }
        pin(cpu0);
        uint64_t seq = 0;
        pingpong_side(segs, 0, size, iters / 10, &seq, src);
        double t0 = bench_now_us();
        pingpong_side(segs, 0, size, iters, &seq, src);
        double us = bench_now_us() - t0;
        waitpid(child, NULL, 0);
        bench_row(size, us / (double)iters / 2.0);
    }
}

static void memcpy_bw(void)
{
    unsigned char *src, *dst;
    if (posix_memalign((void **)&src, 4096, MAX_MSG) || posix_memalign((void **)&dst, 4096, MAX_MSG))
        return;
    memset(src, 1, MAX_MSG);
    memset(dst, 0, MAX_MSG);
    bench_header("memcpy_bw", "memcpy", 1, "MB/s");
    BENCH_FOR_SIZES(size, 1, MAX_MSG) {
        long loops = bench_bw_loops(size, 64);
        double t0 = 0;
        for (long l = -2; l < loops; l++) {
            if (l == 0)
                t0 = bench_now_us();
            for (int w = 0; w < 64; w++) {
                memcpy(dst, src, size);
                __asm__ __volatile__("" ::"r"(dst) : "memory");
            }
        }
        bench_row(size, (double)size * 64 * (double)loops / (bench_now_us() - t0));
    }
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "";
    if (strcmp(name, "flag_pingpong") == 0 || strcmp(name, "flag_pingpong_owned") == 0) {
        flag_pingpong(name, argc > 3 ? atoi(argv[2]) : 0, argc > 3 ? atoi(argv[3]) : 1,
                      strcmp(name, "flag_pingpong_owned") == 0);
    } else if (strcmp(name, "memcpy_bw") == 0) {
        /* On the CPU gk-bench's PE 0 uses: the CPUs of a VM differ. */
        pin(argc > 2 ? atoi(argv[2]) : 0);
        memcpy_bw();
    } else {
        fprintf(stderr, "usage: raw-floor flag_pingpong[_owned] [CPU0 CPU1] | memcpy_bw [CPU]\n");
        return 2;
    }
    return 0;
}

/*
 * rndv_pipe_test: the rendezvous pipeline (src/msg/rndv_pipe.h) for large
 * messages from private memory, data checked in every case.
 *
 *  1. A sender that makes no gasket call while its receive runs: PE 0
 *     starts two large sends to PE 1, then watches a heap word with plain
 *     loads; PE 1 must receive the first by reading the sender's memory
 *     itself (a receive that waited for the sender would hang: the
 *     launcher's time limit fails the test), then sets the word. The
 *     second is received while PE 0 waits in gk_request_wait, after PE 0
 *     has run the first message's late GO, which must change nothing.
 *     Where PE 1 is not mapped at PE 0 (another host, or GK_NET_INDIRECT),
 *     only a send from the symmetric heap is reachable without the
 *     sender (docs/PROGRESS.md): PE 0 sends from there, and PE 1 gets it.
 *  2. Every other PE sends PE 0 messages of sizes that end mid-chunk, at a
 *     chunk's end and one byte past it; PE 0 receives them from any source
 *     (the pipeline goes from sender to sender).
 *  3. A receive smaller than the message: truncated, the bytes that fit
 *     are right, the buffer's tail untouched.
 *  4. Forty messages of 300 KiB in a row: the receiver tries cross-memory
 *     attach for a whole message every 32 (or keeps to it, if faster), so
 *     both ways are checked.
 *  5. Cross-memory attach refused (PE 0 not dumpable, PE 1 without
 *     CAP_SYS_PTRACE): PE 1's receive finds the sender silent, fails its
 *     own read, gives up the pipeline and pulls the message in pieces once
 *     PE 0 runs its engine again. Skipped where the refusal cannot be
 *     arranged (PE 1 checks with a read of its own).
 *  6. The sender's direct writes refused as well (PE 1 not dumpable, PE 0
 *     without CAP_SYS_PTRACE): under GK_RNDV=both the sender's first
 *     process_vm_writev fails, and it copies through the pipeline's slots
 *     instead. Skipped where that cannot be arranged (PE 0 checks with a
 *     write of its own).
 */
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pe_check.h"

static unsigned char pattern(size_t i, int from, int salt)
{
    return (unsigned char)(i * 31 + (size_t)from * 17 + (size_t)salt * 5 + (i >> 12));
}

static unsigned char *filled(size_t n, int from, int salt)
{
    unsigned char *buf = malloc(n);
    CHECK_NOT_NULL(buf);
    for (size_t i = 0; i < n; i++)
        buf[i] = pattern(i, from, salt);
    return buf;
}

static void check_filled(const unsigned char *buf, size_t n, int from, int salt)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(i, from, salt))
            CHECK_EQ(buf[i], pattern(i, from, salt)); /* reports the first */
}

/* A blocking receive of n bytes from PE `from` into `in`, checked whole
 * against what filled(n, from, salt) sent. */
static void recv_filled(unsigned char *in, size_t n, int from, int tag, int salt)
{
    gk_msg_status_t st;
    CHECK_OK(gk_recv(from, tag, in, n, &st));
    CHECK_EQ(st.nbytes, n);
    check_filled(in, n, from, salt);
}

/* filled(), in a block of the symmetric heap if `heap` is not NULL. */
static unsigned char *filled_in(unsigned char *heap, size_t n, int from, int salt)
{
    if (heap == NULL)
        return filled(n, from, salt);
    for (size_t i = 0; i < n; i++)
        heap[i] = pattern(i, from, salt);
    return heap;
}

static void sender_not_progressing(int me, uint64_t *word)
{
    const size_t first = ((size_t)1 << 20) + 12345, second = ((size_t)3 << 20) + 7;
    unsigned char *heap = gk_malloc(first + second);
    CHECK_NOT_NULL(heap);
    if (me == 0) {
        int off_node = gk_ptr(heap, 1) == NULL;
        unsigned char *a = filled_in(off_node ? heap : NULL, first, 0, 1);
        unsigned char *b = filled_in(off_node ? heap + first : NULL, second, 0, 2);
        gk_request_t *sends[2];
        CHECK_OK(gk_isend(1, 1, a, first, &sends[0]));
        CHECK_OK(gk_isend(1, 2, b, second, &sends[1]));
        /* No gasket call until PE 1 has the first message. */
        while (atomic_load_explicit((_Atomic uint64_t *)word, memory_order_acquire) == 0)
            sched_yield();
        CHECK_OK(gk_request_wait_all(sends, 2, NULL));
        if (!off_node) {
            free(a);
            free(b);
        }
    } else if (me == 1) {
        unsigned char *in = malloc(second);
        CHECK_NOT_NULL(in);
        recv_filled(in, first, 0, 1, 1);
        CHECK_OK(gk_atomic_set_u64(0, word, 1));
        recv_filled(in, second, 0, 2, 2);
        free(in);
    }
    CHECK_OK(gk_barrier());
    gk_free(heap);
}

static void many_senders_one_receiver(int me, int npes)
{
    /* Chunks are an eighth of the message in whole pages, 16 to 256 KiB. */
    const size_t sizes[] = {4097, 16384 + 1, 128 * 1024, 1000 * 1000, ((size_t)2 << 20) + 1};
    enum { N_SIZES = sizeof(sizes) / sizeof(sizes[0]) };
    if (me == 0) {
        size_t biggest = sizes[N_SIZES - 1];
        unsigned char *in = malloc(biggest);
        CHECK_NOT_NULL(in);
        for (int m = 0; m < (npes - 1) * N_SIZES; m++) {
            gk_msg_status_t st;
            CHECK_OK(gk_recv(GK_ANY_SOURCE, GK_ANY_TAG, in, biggest, &st));
            CHECK_TRUE(st.source > 0 && st.source < npes);
            CHECK_TRUE(st.tag >= 0 && st.tag < N_SIZES);
            CHECK_EQ(st.nbytes, sizes[st.tag]);
            check_filled(in, st.nbytes, st.source, 10 + st.tag);
        }
        free(in);
    } else {
        gk_request_t *sends[N_SIZES];
        unsigned char *bufs[N_SIZES];
        for (int s = 0; s < N_SIZES; s++) {
            bufs[s] = filled(sizes[s], me, 10 + s);
            CHECK_OK(gk_isend(0, s, bufs[s], sizes[s], &sends[s]));
        }
        CHECK_OK(gk_request_wait_all(sends, N_SIZES, NULL));
        for (int s = 0; s < N_SIZES; s++)
            free(bufs[s]);
    }
    CHECK_OK(gk_barrier());
}

static void truncated(int me, int npes)
{
    const size_t sent = (size_t)1 << 20, room = sent / 2 + 100, guard = 4096;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char *out = filled(sent, me, 3), *in = malloc(room + guard);
    CHECK_NOT_NULL(in);
    memset(in + room, 0xee, guard);
    gk_request_t *rq = NULL, *sq = NULL;
    gk_msg_status_t st;
    CHECK_OK(gk_irecv(left, 7, in, room, &rq));
    CHECK_OK(gk_isend(right, 7, out, sent, &sq));
    CHECK_STATUS(gk_request_wait(&rq, &st), GK_ERR_TRUNCATE);
    CHECK_EQ(st.nbytes, sent);
    check_filled(in, room, left, 3);
    for (size_t i = 0; i < guard; i++)
        CHECK_EQ(in[room + i], 0xee);
    CHECK_OK(gk_request_wait(&sq, NULL));
    free(out);
    free(in);
    CHECK_OK(gk_barrier());
}

static void repeated_large(int me)
{
    const size_t n = 300 * 1024;
    enum { COUNT = 40 };
    unsigned char *buf = malloc(n);
    CHECK_NOT_NULL(buf);
    for (int i = 0; i < COUNT; i++) {
        if (me == 0) {
            for (size_t b = 0; b < n; b++)
                buf[b] = pattern(b, 0, 40 + i);
            CHECK_OK(gk_send(1, 4, buf, n));
        } else if (me == 1) {
            recv_filled(buf, n, 0, 4, 40 + i);
        }
    }
    free(buf);
    CHECK_OK(gk_barrier());
}

static int drop_ptrace_capability(void)
{
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0)
        return -1;
    data[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
    return (int)syscall(SYS_capset, &header, data);
}

/*
 * Makes cross-memory attach from `prober` into `target` refused, if this
 * system lets a test do that: `target` stops being dumpable and `prober`
 * drops CAP_SYS_PTRACE; then `prober` tries one byte (a write if `write`,
 * else a read) and must get EPERM. Collective; 1 if refused everywhere.
 * words[1], [2] carry target's pid and the probe's address.
 */
static int refuse_attach(int me, int target, int prober, int write, uint64_t *words)
{
    static unsigned char probe = 1;
    if (me == target) {
        CHECK_EQ(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), 0);
        CHECK_OK(gk_put_u64(prober, &words[1], (uint64_t)getpid()));
        CHECK_OK(gk_put_u64(prober, &words[2], (uint64_t)(uintptr_t)&probe));
    } else if (me == prober) {
        CHECK_EQ(drop_ptrace_capability(), 0);
    }
    CHECK_OK(gk_barrier());
    int64_t allowed = 0, any_allowed = 0;
    if (me == prober) {
        unsigned char byte = 1;
        struct iovec local = {&byte, 1}, remote = {(void *)(uintptr_t)words[2], 1};
        pid_t pid = (pid_t)words[1];
        allowed = (write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
                         : process_vm_readv(pid, &local, 1, &remote, 1, 0)) == 1;
        if (!allowed)
            CHECK_EQ(errno, EPERM);
    }
    CHECK_OK(gk_allreduce(&any_allowed, &allowed, 1, GK_DTYPE_INT64, GK_OP_MAX));
    if (any_allowed && me == prober)
        printf("rndv_pipe_test: cross-memory %s still allowed; a case is skipped\n",
               write ? "writes" : "reads");
    return !any_allowed;
}

static void cma_refused(int me, uint64_t *words)
{
    /* words[0]: PE 0's go-ahead. */
    const size_t n = ((size_t)8 << 20) + 5; /* a size class no case used */
    if (!refuse_attach(me, 0, 1, 0, words))
        return;
    if (me == 0) {
        unsigned char *out = filled(n, 0, 5);
        gk_request_t *sq = NULL;
        CHECK_OK(gk_isend(1, 8, out, n, &sq));
        /* Silent until PE 1 has started its receive (and failed its read). */
        while (atomic_load_explicit((_Atomic uint64_t *)&words[0], memory_order_acquire) == 0)
            sched_yield();
        CHECK_OK(gk_request_wait(&sq, NULL));
        free(out);
    } else if (me == 1) {
        unsigned char *in = malloc(n);
        CHECK_NOT_NULL(in);
        gk_msg_status_t st;
        CHECK_OK(gk_probe(0, 8, &st)); /* the RTS is here: gk_irecv starts the copy */
        gk_request_t *rq = NULL;
        CHECK_OK(gk_irecv(0, 8, in, n, &rq));
        CHECK_OK(gk_atomic_set_u64(0, &words[0], 1));
        CHECK_OK(gk_request_wait(&rq, &st));
        CHECK_EQ(st.nbytes, n);
        check_filled(in, n, 0, 5);
        free(in);
    }
    CHECK_OK(gk_barrier());
}

static void direct_write_refused(int me, uint64_t *words)
{
    const size_t n = ((size_t)4 << 20) + 7;
    if (!refuse_attach(me, 1, 0, 1, words))
        return;
    if (me == 0) {
        unsigned char *out = filled(n, 0, 6);
        CHECK_OK(gk_send(1, 9, out, n));
        free(out);
    } else if (me == 1) {
        unsigned char *in = malloc(n);
        CHECK_NOT_NULL(in);
        recv_filled(in, n, 0, 9, 6);
        free(in);
    }
    CHECK_OK(gk_barrier());
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    uint64_t *words = gk_calloc(4, sizeof(uint64_t));
    CHECK_NOT_NULL(words);
    if (npes >= 2) {
        sender_not_progressing(me, &words[3]);
        many_senders_one_receiver(me, npes);
        repeated_large(me);
    }
    truncated(me, npes);
    if (npes >= 2) { /* last: they leave PEs 0 and 1 changed */
        cma_refused(me, words);
        direct_write_refused(me, words);
    }
    gk_free(words);
    CHECK_OK(gk_finalize());
    return 0;
}

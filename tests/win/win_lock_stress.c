/*
 * win_lock_stress [ops]: every PE takes `ops` (default 20,000) random locks on random
 * targets of one window: shared, exclusive, try-lock of either kind, with short critical
 * sections. Checks, on every target:
 *   (a) occupancy: a word updated with window atomics; a writer entering
 *       sees nobody, a reader sees no writer (readers count in the high
 *       half, writers in the low);
 *   (b) a counter incremented NON-atomically (get, +1, put) under exclusive
 *       locks equals the job's total of exclusive sections on that target;
 *   (d) readers were seen overlapping at least once (somewhere);
 *   (e) a block that writers fill with their own stamp, in two puts with a
 *       yield between, is never seen half-written: by readers (all words
 *       equal), nor by the next writer.
 * The FIFO order of writers, (c), is checked by win_lock_fifo_test.
 */
#include <sched.h>

#include "gk_random.h"
#include "pe_args.h"
#include "pe_check.h"

#define DEFAULT_OPS 20000
#define BLOCK_WORDS 32 /* a block writers fill with their id, in two halves */
#define READER_ONE ((uint64_t)1 << 32)

enum { DISP_COUNTER = 0, DISP_OCCUPANCY = 8, DISP_READERS_MAX = 16, DISP_BLOCK = 64 };

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_random(void)
{
    return gk_test_random(&rng);
}

static void check_block(const uint64_t *block, int target, const char *who)
{
    for (int w = 1; w < BLOCK_WORDS; w++)
        if (block[w] != block[0])
            PE_FAIL("%s found PE %d's block half-written: word 0 is 0x%llx, word %d "
                    "0x%llx",
                    who, target, (unsigned long long)block[0], w,
                    (unsigned long long)block[w]);
}

int main(int argc, char **argv)
{
    int ops = (int)pe_count_arg(argc, argv, "OPS", "locks per PE", DEFAULT_OPS, 1, 10000000);
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    rng += (uint64_t)me * 0x9e3779b97f4a7c15ULL;
    uint64_t *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(64 + 8 * BLOCK_WORDS, 0, (void **)&base, &win));
    /* Exclusive sections I made on each target. */
    uint64_t *mine = calloc((size_t)npes, sizeof(uint64_t));
    CHECK_NOT_NULL(mine);

    CHECK_OK(gk_barrier());
    double started = pe_now();
    for (int op = 0; op < ops; op++) {
        int target = (int)(next_random() % (uint64_t)npes);
        int kind = (int)(next_random() % 4); /* 0 shared 1 exclusive 2,3 try */
        int type = (kind == 0 || kind == 2) ? GK_LOCK_SHARED : GK_LOCK_EXCLUSIVE;
        if (kind >= 2) {
            int acquired = -1;
            CHECK_OK(gk_win_try_lock(win, target, type, &acquired));
            CHECK_TRUE(acquired == 0 || acquired == 1);
            if (!acquired)
                continue;
        } else {
            CHECK_OK(gk_win_lock(win, target, type, 0));
        }
        uint64_t old = 0;
        if (type == GK_LOCK_EXCLUSIVE) {
            uint64_t one = 1;
            CHECK_OK(gk_win_fetch_and_op(win, target, DISP_OCCUPANCY, &one, &old,
                                         GK_DTYPE_UINT64, GK_OP_SUM));
            CHECK_EQ_U64(old, 0); /* (a) a writer alone */
            uint64_t counter = 0;
            CHECK_OK(gk_win_get(win, target, &counter, DISP_COUNTER, sizeof(counter)));
            if (op % 7 == 0)
                sched_yield(); /* widen the window a lost update needs */
            counter++;
            CHECK_OK(gk_win_put(win, target, DISP_COUNTER, &counter, sizeof(counter)));
            /* (e) the block: whole as the last writer left it, then mine. */
            uint64_t block[BLOCK_WORDS];
            CHECK_OK(gk_win_get(win, target, block, DISP_BLOCK, sizeof(block)));
            check_block(block, target, "a writer");
            for (int w = 0; w < BLOCK_WORDS; w++)
                block[w] = ((uint64_t)me << 32) | (uint64_t)op;
            CHECK_OK(gk_win_put(win, target, DISP_BLOCK, block, sizeof(block) / 2));
            if (op % 3 == 0)
                sched_yield();
            CHECK_OK(gk_win_put(win, target, DISP_BLOCK + sizeof(block) / 2,
                                block + BLOCK_WORDS / 2, sizeof(block) / 2));
            uint64_t minus_one = UINT64_MAX;
            CHECK_OK(gk_win_accumulate(win, target, DISP_OCCUPANCY, &minus_one, 1,
                                       GK_DTYPE_UINT64, GK_OP_SUM));
            mine[target]++;
        } else {
            uint64_t one = READER_ONE;
            CHECK_OK(gk_win_fetch_and_op(win, target, DISP_OCCUPANCY, &one, &old,
                                         GK_DTYPE_UINT64, GK_OP_SUM));
            CHECK_EQ_U64(old & 0xffffffffu, 0); /* (a) readers see no writer */
            uint64_t readers = (old >> 32) + 1, seen = 0;
            CHECK_OK(gk_win_fetch_and_op(win, target, DISP_READERS_MAX, &readers, &seen,
                                         GK_DTYPE_UINT64, GK_OP_MAX));
            if (op % 5 == 0)
                sched_yield(); /* let other readers in */
            uint64_t block[BLOCK_WORDS];
            CHECK_OK(gk_win_get(win, target, block, DISP_BLOCK, sizeof(block)));
            check_block(block, target, "a reader");
            uint64_t minus = (uint64_t)0 - READER_ONE;
            CHECK_OK(gk_win_accumulate(win, target, DISP_OCCUPANCY, &minus, 1,
                                       GK_DTYPE_UINT64, GK_OP_SUM));
        }
        CHECK_OK(gk_win_unlock(win, target));
    }

    /* (b) per target: the counter equals every PE's exclusive sections. */
    uint64_t *total = calloc((size_t)npes, sizeof(uint64_t));
    CHECK_NOT_NULL(total);
    CHECK_OK(gk_allreduce(total, mine, (size_t)npes, GK_DTYPE_UINT64, GK_OP_SUM));
    CHECK_EQ_U64(base[DISP_COUNTER / 8], total[me]);
    CHECK_EQ_U64(base[DISP_OCCUPANCY / 8], 0);
    /* (d) readers overlapped somewhere (with 2 PEs or more, over 3000
     * operations each; shared requests are half of them). */
    uint64_t most = base[DISP_READERS_MAX / 8], most_all = 0;
    CHECK_OK(gk_allreduce(&most_all, &most, 1, GK_DTYPE_UINT64, GK_OP_MAX));
    if (npes > 1)
        CHECK_GE(most_all, 2);
    if (me == 0)
        printf("win_lock_stress: %d PEs, %d operations each in %.2f s, most readers at "
               "once %llu\n",
               npes, ops, pe_now() - started, (unsigned long long)most_all);
    free(total);
    free(mine);
    CHECK_OK(gk_win_free(win));
    return gk_finalize() == GK_OK ? 0 : 1;
}

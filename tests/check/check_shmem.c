/*
 * check_shmem: the completion bugs of check_native.c through the
 * OpenSHMEM names, and a non-blocking AMO's value read before quiet. Run
 * at 2 PEs: `check_shmem <case> wrong|right`.
 *
 *   getmem_nbi_read   PE 0 reads a shmem_getmem_nbi destination before quiet
 *   putmem_nbi_flag   PE 0 sets PE 1's flag (shmem_p) after shmem_putmem_nbi
 *                     with no shmem_fence
 *   putmem_nbi_reuse  PE 0 writes a shmem_putmem_nbi source before quiet
 *   amo_nbi_read      PE 0 reads the value of shmem_atomic_fetch_add_nbi
 *                     before quiet
 *   putmem_race       both PEs put to PE 0's words with nothing between
 *                     (right: each under shmem_set_lock)
 *   getmem_race       PE 1 gets its words while PE 0 puts to them (right:
 *                     shmem_put_signal, shmem_signal_wait_until first)
 *   putmem_past_block PE 0's shmem_putmem runs past the end of its
 *                     shmem_malloc block (into the next one)
 *   wait_all_no_writer PE 1 waits (shmem_int_wait_until_all) for words no
 *                     PE writes
 *   lock_held         PE 0 calls shmem_finalize holding a shmem_set_lock
 *
 * Stale data is reported by the program itself ("stale: ...", then
 * shmem_global_exit(1)); the reuse by the checker. As in check_native.c,
 * PE 0 polls a word of its own for PE 1's verdict in the flag case.
 */
#include <sched.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WORDS = 64 };

static long value_of(size_t i)
{
    return 0x2000 + (long)i;
}

static void expect_data(const long *got, const char *what)
{
    for (size_t i = 0; i < WORDS; i++) {
        if (got[i] != value_of(i)) {
            fprintf(stderr, "stale: PE %d: %s word %zu is %#lx, not %#lx\n", shmem_my_pe(),
                    what, i, (unsigned long)got[i], (unsigned long)value_of(i));
            shmem_global_exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: check_shmem <case> wrong|right (the cases: this file's "
                        "comment)\n");
        return 2;
    }
    const char *which = argv[1];
    int right = strcmp(argv[2], "right") == 0;
    shmem_init();
    if (shmem_n_pes() != 2) {
        fprintf(stderr, "check_shmem runs at 2 PEs\n");
        shmem_global_exit(2);
    }
    int me = shmem_my_pe();
    long *data = shmem_calloc(WORDS, sizeof(long));
    long *flag = shmem_calloc(2, sizeof(long)); /* [0] the flag, [1] the answer */
    long local[WORDS];
    for (size_t i = 0; i < WORDS; i++)
        local[i] = value_of(i);

    if (strcmp(which, "getmem_nbi_read") == 0) {
        if (me == 1)
            memcpy(data, local, sizeof(local));
        shmem_barrier_all();
        if (me == 0) {
            long got[WORDS], copy[WORDS];
            shmem_getmem_nbi(got, data, sizeof(got), 1);
            if (right)
                shmem_quiet();
            memcpy(copy, got, sizeof(copy));
            shmem_quiet();
            expect_data(copy, "shmem_getmem_nbi destination");
        }
    } else if (strcmp(which, "putmem_nbi_flag") == 0) {
        shmem_barrier_all();
        if (me == 0) {
            shmem_putmem_nbi(data, local, sizeof(local), 1);
            if (right)
                shmem_fence();
            shmem_long_p(&flag[0], 1, 1);
            while (__atomic_load_n(&flag[1], __ATOMIC_ACQUIRE) == 0)
                sched_yield(); /* PE 1 has read */
        } else {
            shmem_long_wait_until(&flag[0], SHMEM_CMP_EQ, 1);
            long copy[WORDS];
            memcpy(copy, data, sizeof(copy));
            shmem_long_p(&flag[1], 1, 0);
            expect_data(copy, "data under the flag");
        }
    } else if (strcmp(which, "putmem_nbi_reuse") == 0) {
        if (me == 0) {
            long src[WORDS];
            memcpy(src, local, sizeof(src));
            shmem_putmem_nbi(data, src, sizeof(src), 1);
            if (right)
                shmem_quiet();
            src[0] = 0xdead;
            shmem_quiet();
        }
        shmem_barrier_all();
        if (me == 1)
            expect_data(data, "the put's data");
    } else if (strcmp(which, "amo_nbi_read") == 0) {
        if (me == 1)
            data[0] = value_of(0);
        shmem_barrier_all();
        if (me == 0) {
            long fetched = 0, copy;
            shmem_long_atomic_fetch_add_nbi(&fetched, &data[0], 1, 1);
            if (right)
                shmem_quiet();
            copy = fetched;
            shmem_quiet();
            if (copy != value_of(0)) {
                fprintf(stderr, "stale: PE 0: fetched value is %#lx, not %#lx\n",
                        (unsigned long)copy, (unsigned long)value_of(0));
                shmem_global_exit(1);
            }
        }
    } else if (strcmp(which, "putmem_race") == 0) {
        /* Both PEs put to PE 0's words; right: in turn, under a lock. */
        long *lock = shmem_calloc(1, sizeof(long));
        shmem_barrier_all();
        if (right)
            shmem_set_lock(lock);
        shmem_putmem_nbi(data, local, sizeof(local), 0);
        shmem_quiet();
        if (right)
            shmem_clear_lock(lock);
        shmem_barrier_all();
        shmem_free(lock);
    } else if (strcmp(which, "getmem_race") == 0) {
        /* PE 0 puts to PE 1's words and PE 1 reads them with a get;
         * right: shmem_put_signal, and PE 1 waits for the signal. */
        uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
        shmem_barrier_all();
        if (me == 0) {
            if (right)
                shmem_putmem_signal(data, local, sizeof(local), sig, 1, SHMEM_SIGNAL_SET, 1);
            else
                shmem_putmem(data, local, sizeof(local), 1);
        } else {
            long got[WORDS];
            if (right)
                shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
            shmem_getmem(got, data, sizeof(got), 1);
        }
        shmem_barrier_all();
        shmem_free(sig);
    } else if (strcmp(which, "putmem_past_block") == 0) {
        /* data and flag are neighbours in the heap: the bounds check of
         * every build lets the longer put through. */
        if (me == 0)
            shmem_putmem(data, local, right ? sizeof(local) : sizeof(local) + sizeof(long), 1);
        shmem_barrier_all();
        if (me == 1)
            expect_data(data, "the put's data");
    } else if (strcmp(which, "wait_all_no_writer") == 0) {
        static int ivars[2]; /* symmetric: OpenSHMEM's static data */
        shmem_barrier_all();
        if (me == 0 && right) {
            shmem_int_atomic_set(&ivars[0], 1, 1);
            shmem_int_atomic_set(&ivars[1], 1, 1);
        }
        if (me == 1)
            shmem_int_wait_until_all(ivars, 2, NULL, SHMEM_CMP_EQ, 1);
        if (!right) {
            shmem_finalize(); /* a barrier first would wait for PE 1 */
            return 0;
        }
    } else if (strcmp(which, "lock_held") == 0) {
        static long lock;
        shmem_barrier_all();
        if (me == 0) {
            shmem_set_lock(&lock);
            shmem_long_atomic_inc(&flag[0], 1);
            if (right)
                shmem_clear_lock(&lock);
        }
    } else {
        fprintf(stderr, "unknown case %s\n", which);
        shmem_global_exit(2);
    }
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(data);
    shmem_finalize();
    return 0;
}

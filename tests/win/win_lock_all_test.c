/*
 * win_lock_all_test: gk_win_lock_all() against exclusive lockers must not
 * deadlock. Every PE here holds at most one lock (or one lock_all) at a
 * time and every critical section ends on its own, so by the lock's
 * contract (a shared lock on every PE; writers granted in order) the job
 * must finish.
 *
 * lock_all takes the PEs' shared locks one at a time. If two lock_all
 * callers walk the targets in different orders, each can hold a shared
 * lock that a queued writer waits for while itself queued, as a reader,
 * behind the other writer (readers behind a waiting writer wait): a cycle.
 * The scenario below drives the job into exactly that interleaving with
 * two "blockers" that hold a lock for a bounded time (6 PEs, roles by PE):
 *
 *   PE 4 holds target 1 exclusive and PE 5 holds target 4 exclusive, for
 *   0.4 s each, then release.
 *   PE 0 and PE 3 call lock_all: PE 0 takes target 0 and stops at 1 (the
 *   blocker); PE 3 takes target 3 and stops at 4 (if lock_all walks from
 *   the caller's own PE; in PE order they both stop at 1).
 *   0.15 s in, PE 1 asks for target 0 exclusive and PE 2 for target 3
 *   exclusive: both queue behind the shared holders.
 *   Then the blockers release. With the walk from the caller's PE, PE 0
 *   reaches target 3 behind PE 2's request, and PE 3 reaches target 0
 *   behind PE 1's: PE 2 waits for PE 3, PE 3 for PE 1, PE 1 for PE 0, PE 0
 *   for PE 2.
 *
 * The timings only steer the job into the bad interleaving; if they do not
 * (a PE descheduled for long), the test passes without having proved
 * anything, it cannot fail falsely. A watchdog (alarm) ends a deadlocked
 * job with a message naming the PE and its role, instead of the launcher's
 * time-out. Further rounds run the same roles with random short delays.
 */
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "gk_random.h"
#include "pe_check.h"

#define WATCHDOG_S 8
#define ROUNDS 30

static volatile sig_atomic_t role_now = -1; /* for the watchdog's message */
static const char *const role_names[] = {
    "lock_all (PE 0)", "exclusive on target 0", "exclusive on target 3",
    "lock_all (PE 3)", "blocker of target 1",   "blocker of target 4",
};

static void watchdog(int sig)
{
    (void)sig;
    char line[256];
    int r = role_now;
    int len =
        snprintf(line, sizeof(line),
                 "FAIL PE %d win_lock_all_test: no progress in %d s in the role "
                 "\"%s\": lock_all deadlocked with exclusive lockers\n",
                 gk_my_pe(), WATCHDOG_S, r >= 0 && r < 6 ? role_names[r] : "a barrier");
    ssize_t unused = write(2, line, (size_t)len);
    (void)unused;
    _exit(3);
}

static void sleep_us(long us)
{
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&t, NULL);
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t next_random(void)
{
    return gk_test_random(&rng);
}

/* One round of the scenario; delays in microseconds. */
static void round_of(gk_win_t *win, uint64_t *base, int me, long ask_us, long hold_us)
{
    static const int blocked_target[6] = {-1, -1, -1, -1, 1, 4};
    static const int writer_target[6] = {-1, 0, 3, -1, -1, -1};
    role_now = me < 6 ? me : -1;
    if (me == 4 || me == 5)
        CHECK_OK(gk_win_lock(win, blocked_target[me], GK_LOCK_EXCLUSIVE, 0));
    CHECK_OK(gk_barrier()); /* the blockers hold their targets */
    if (me == 0 || me == 3) {
        CHECK_OK(gk_win_lock_all(win, 0));
        /* Readers everywhere: nobody may be writing. */
        for (int p = 0; p < gk_n_pes(); p++) {
            uint64_t v = 1;
            CHECK_OK(gk_win_get(win, p, &v, 0, sizeof(v)));
            CHECK_EQ_U64(v, 0);
        }
        CHECK_OK(gk_win_unlock_all(win));
    } else if (me == 1 || me == 2) {
        sleep_us(ask_us);
        int t = writer_target[me];
        CHECK_OK(gk_win_lock(win, t, GK_LOCK_EXCLUSIVE, 0));
        uint64_t one = 1, zero = 0;
        CHECK_OK(gk_win_put(win, t, 0, &one, sizeof(one)));
        CHECK_OK(gk_win_flush(win, t));
        CHECK_OK(gk_win_put(win, t, 0, &zero, sizeof(zero)));
        CHECK_OK(gk_win_unlock(win, t));
    } else if (me == 4 || me == 5) {
        sleep_us(hold_us);
        CHECK_OK(gk_win_unlock(win, blocked_target[me]));
    }
    role_now = -1;
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(base[0], 0);
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    if (npes < 6) {
        if (me == 0)
            printf("win_lock_all_test: needs 6 PEs, has %d; nothing to do\n", npes);
        return gk_finalize() == GK_OK ? 0 : 1;
    }
    rng += (uint64_t)me * 0x9e3779b97f4a7c15ULL;
    uint64_t *base = NULL;
    gk_win_t *win = NULL;
    CHECK_OK(gk_win_allocate(64, 0, (void **)&base, &win));
    signal(SIGALRM, watchdog);

    alarm(WATCHDOG_S);
    round_of(win, base, me, 150000, 400000); /* the scripted interleaving */
    alarm(0);
    if (me == 0)
        printf("win_lock_all_test: the scripted round finished\n");

    for (int r = 0; r < ROUNDS; r++) {
        alarm(WATCHDOG_S);
        round_of(win, base, me, (long)(next_random() % 3000),
                 (long)(next_random() % 3000));
        alarm(0);
    }
    if (me == 0)
        printf("win_lock_all_test: %d random rounds finished\n", ROUNDS);
    CHECK_OK(gk_win_free(win));
    return gk_finalize() == GK_OK ? 0 : 1;
}

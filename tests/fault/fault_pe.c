/*
 * fault_pe: a gasket program that fails on purpose. PE 1 (the victim) fails
 * in the way argv[1] names, after a barrier, so every PE is mid-run; the
 * others block in a collective allocation or a wait that only the victim
 * could satisfy. The launcher must end the job and say why.
 *
 *   modes: kill (SIGKILL), kill-with-child (SIGKILL, leaving a process it
 *   started behind), nofin (exit 0 without gk_finalize), abort
 *   (abort()), exit3 (exit 3 before gk_finalize), gkabort (gk_abort(5)),
 *   gkabort0 and gkabort256 (gk_abort(0) and gk_abort(256): still a failure),
 *   segv (a NULL store), closefd (closes its connection to the launcher,
 *   GK_BOOT_FD, and runs on until signalled), hang (nobody fails: for
 *   --timeout and signals), ok (everyone finishes), late3 (exit 3 after
 *   gk_finalize), slow (PE 1 lingers 0.4 s before the collective, so PE 0's
 *   wait sleeps), shm-full (run with a GK_HEAP_SIZE that /dev/shm cannot
 *   hold: gk_init must fail on every PE, which then exits 1), lockheld (the
 *   victim dies holding a window lock the others queue for), midput (the
 *   victim dies while the others stream puts to it), sockets (the victim
 *   destroys its TCP connections with ss -K and goes on to a barrier: a
 *   network failure, not a death), sockets-stream (the same while the others
 *   stream puts to it: what was in flight is lost, and the job must end)
 */
#include <gasket.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fault_common.h"

/* Destroys this process's TCP connections but the launcher's (ss -K, the
 * kernel's sock_diag destroy): what a reset by the network or a peer's
 * host looks like to UCX. Sockets are found by inode, /proc/self/fd to
 * /proc/net/tcp{,6}, and killed by their local port. */
static void fault_destroy_my_sockets(void)
{
    const char *boot_fd = getenv("GK_BOOT_FD");
    char path[64], link[64];
    unsigned long boot_inode = 0;
    if (boot_fd != NULL) {
        snprintf(path, sizeof(path), "/proc/self/fd/%s", boot_fd);
        ssize_t n = readlink(path, link, sizeof(link) - 1);
        if (n > 0) {
            link[n] = 0;
            sscanf(link, "socket:[%lu]", &boot_inode);
        }
    }
    for (int v6 = 0; v6 < 2; v6++) {
        FILE *f = fopen(v6 ? "/proc/net/tcp6" : "/proc/net/tcp", "r");
        if (f == NULL)
            continue;
        char line[512];
        if (fgets(line, sizeof(line), f) == NULL) { /* the header */
            fclose(f);
            continue;
        }
        while (fgets(line, sizeof(line), f) != NULL) {
            char local[64];
            unsigned long inode;
            /* sl local rem st tx:rx tr:when retr uid timeout inode */
            if (sscanf(line, "%*s %63s %*s %*s %*s %*s %*s %*s %*s %lu", local, &inode) != 2 ||
                inode == 0 || inode == boot_inode)
                continue;
            char want[64];
            snprintf(want, sizeof(want), "socket:[%lu]", inode);
            int mine = 0;
            for (int fd = 0; fd < 1024 && !mine; fd++) {
                snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
                ssize_t n = readlink(path, link, sizeof(link) - 1);
                if (n > 0) {
                    link[n] = 0;
                    mine = strcmp(link, want) == 0;
                }
            }
            const char *colon = strrchr(local, ':');
            if (!mine || colon == NULL)
                continue;
            char cmd[128];
            snprintf(cmd, sizeof(cmd), "ss -K -t 'sport = :%lu' >/dev/null 2>&1",
                     strtoul(colon + 1, NULL, 16));
            if (system(cmd) != 0)
                fprintf(stderr, "fault_pe: %s failed\n", cmd);
        }
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    /* Before gk_init, which may fail: the script checks for leftovers. */
    const char *rank = getenv("GK_RANK");
    fault_note_pid(rank != NULL ? atoi(rank) : 0);
    if (gk_init() != GK_OK)
        return 1;
    int me = gk_my_pe();
    /* Print our pid so the no-orphans check can find us. */
    printf("fault_pe PE %d pid %d\n", me, (int)getpid());
    fflush(stdout);
    /* lockheld: the victim holds PE 0's lock before anyone is ready. */
    gk_win_t *win = NULL;
    void *win_base = NULL;
    if (strcmp(mode, "lockheld") == 0) {
        if (gk_win_allocate(4096, 0, &win_base, &win) != GK_OK)
            return 8;
        /* The flush: across hosts the lock is taken there (gasket.h). */
        if (me == 1 && (gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0) != GK_OK ||
                        gk_win_flush(win, 0) != GK_OK))
            return 8;
    }
    int stream = strcmp(mode, "midput") == 0 || strcmp(mode, "sockets-stream") == 0;
    unsigned char *sink = stream ? gk_malloc(1 << 20) : NULL;
    /* sockets-stream: each other PE streams into its own quarter of the
     * victim's sink, its first byte its number + 1. */
    const size_t quarter = (1 << 20) / 4;
    gk_barrier();
    fault_ready(me);
    static const char *const failures[] = {"kill",     "kill-with-child", "nofin", "abort",
                                           "exit3",    "gkabort",         "segv",
                                           "closefd",  "gkabort0",        "gkabort256",
                                           "lockheld", "midput",          "sockets"};
    if (strcmp(mode, "sockets-stream") == 0 && me == 1) {
        /* Once every stream has landed, some put is in flight. */
        for (int pe = 0; pe < gk_n_pes() && pe < 4; pe++)
            while (pe != 1 && ((volatile unsigned char *)sink)[(size_t)pe * quarter] != pe + 1)
                sched_yield();
        fault_note_death();
        fault_destroy_my_sockets();
        for (;;)
            pause();
    }
    for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++)
        if ((me == 1 || gk_n_pes() == 1) && strcmp(mode, failures[i]) == 0)
            fault_note_death();
    if (me == 1 || gk_n_pes() == 1) {
        if (strcmp(mode, "kill") == 0 || strcmp(mode, "lockheld") == 0 ||
            strcmp(mode, "midput") == 0)
            raise(SIGKILL);
        if (strcmp(mode, "sockets") == 0)
            fault_destroy_my_sockets();
        if (strcmp(mode, "kill-with-child") == 0) {
            /* A grandchild that outlives us must not keep the job alive. */
            if (system("sleep 5 &") != 0)
                return 9;
            raise(SIGKILL);
        }
        if (strcmp(mode, "nofin") == 0)
            exit(0);
        if (strcmp(mode, "abort") == 0)
            abort();
        if (strcmp(mode, "exit3") == 0)
            exit(3);
        if (strcmp(mode, "gkabort") == 0)
            gk_abort(5, "the fault test asked for it");
        if (strncmp(mode, "gkabort", 7) == 0)
            gk_abort(atoi(mode + 7), "the fault test asked for it");
        if (strcmp(mode, "closefd") == 0) {
            close(atoi(getenv("GK_BOOT_FD")));
            for (;;)
                pause();
        }
        if (strcmp(mode, "segv") == 0) {
            /* Never mapped, and aligned (so UBSan does not stop us first). */
            volatile int *volatile bad = (volatile int *)(uintptr_t)16;
            *bad = 1;
        }
    }
    if (strcmp(mode, "slow") == 0 && me == 1) {
        /* Not synchronisation: keeps PE 0 waiting long enough that its
         * barrier wait sleeps and checks the launcher is alive. */
        struct timespec pause = {0, 400 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    if (win != NULL) {
        /* Queued behind the dead victim: only the job's end stops this. */
        int rc = gk_win_lock(win, 0, GK_LOCK_EXCLUSIVE, 0);
        if (rc == GK_OK)
            rc = gk_win_flush(win, 0); /* where the lock is taken across hosts */
        printf("PE %d: gk_win_lock returned %d\n", me, rc);
        return 10;
    }
    if (sink != NULL && strcmp(mode, "midput") == 0) {
        static unsigned char src[1 << 20];
        for (;;)
            if (gk_put(1, sink, src, sizeof(src)) != GK_OK)
                return 10;
    }
    if (sink != NULL && me != 1 && me < 4) {
        static unsigned char src[(1 << 20) / 4];
        memset(src, me + 1, sizeof(src));
        for (;;)
            if (gk_put(1, sink + (size_t)me * quarter, src, quarter) != GK_OK)
                return 10;
    }
    uint64_t *word = gk_calloc(1, sizeof(uint64_t));
    if (strcmp(mode, "hang") == 0)
        gk_wait_until_u64(word, GK_CMP_EQ, 1);
    gk_free(word);
    gk_finalize();
    if (strcmp(mode, "late3") == 0 && me == 1)
        return 3;
    return 0;
}

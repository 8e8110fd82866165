/*
 * fault_common.h: what both fault-test PEs (fake_pe.c, fault_pe.c) do for
 * run_fault.sh, which sets FAULT_DIR and, where it must act while the PEs
 * run, FAULT_FIFO:
 *   - each PE leaves its pid in $FAULT_DIR/pid.<rank>, so the script can
 *     check afterwards that no PE outlived the job, and the job's key in
 *     $FAULT_DIR/key, so it can tell the job's /dev/shm names from others';
 *   - under gasket-run --hosts, each PE leaves its host and that host's
 *     namespaces in $FAULT_DIR/ns.<rank>, so the script can check that the
 *     PEs ran where they should and that no host outlived the job (a
 *     host's /dev/shm lives as long as its namespaces);
 *   - a PE that is mid-run writes "ready <rank>" to $FAULT_FIFO, so the
 *     script signals the launcher only once every PE is running (it blocks
 *     reading the FIFO instead of sleeping);
 *   - the PE that fails on purpose writes the wall-clock time to
 *     $FAULT_DIR/death just before, so the script can time the launcher's
 *     reaction from the failure itself.
 */
#ifndef FAULT_COMMON_H
#define FAULT_COMMON_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Writes `text` to the file $FAULT_DIR/`name`, whole or not at all. */
static void fault_write_file(const char *name, const char *text)
{
    const char *dir = getenv("FAULT_DIR");
    if (dir == NULL)
        return;
    char tmp[4096], path[4096];
    snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, name, (int)getpid());
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return;
    fputs(text, f);
    if (fclose(f) == 0)
        rename(tmp, path);
}

/* Also notes the job's key, so the script checks /dev/shm for this job's
 * names and is not misled by other jobs running on the machine. */
static void fault_note_pid(int rank)
{
    char name[32], text[64];
    snprintf(name, sizeof(name), "pid.%d", rank);
    snprintf(text, sizeof(text), "%d\n", (int)getpid());
    fault_write_file(name, text);
    const char *key = getenv("GK_JOB_KEY");
    if (key != NULL) {
        snprintf(text, sizeof(text), "%s\n", key);
        fault_write_file("key", text);
    }
    const char *host = getenv("GASKET_RUN_HOST");
    if (host != NULL) {
        /* "host=1 uts:[4026532177] ipc:[4026532178] mnt:[4026532176]" */
        char line[256];
        int len = snprintf(line, sizeof(line), "host=%s", host);
        static const char *const ns[] = {"uts", "ipc", "mnt"};
        for (int i = 0; i < 3; i++) {
            char path[64], link[64];
            snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i]);
            ssize_t n = readlink(path, link, sizeof(link) - 1);
            link[n > 0 ? n : 0] = '\0';
            len += snprintf(line + len, sizeof(line) - (size_t)len, " %s", link);
        }
        snprintf(line + len, sizeof(line) - (size_t)len, "\n");
        snprintf(name, sizeof(name), "ns.%d", rank);
        fault_write_file(name, line);
    }
}

static void fault_ready(int rank)
{
    const char *fifo = getenv("FAULT_FIFO");
    if (fifo == NULL)
        return;
    /* The script holds the FIFO open for reading, so this does not block. */
    int fd = open(fifo, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char line[32];
    int len = snprintf(line, sizeof(line), "ready %d\n", rank);
    ssize_t unused = write(fd, line, (size_t)len); /* one write: atomic in a FIFO */
    (void)unused;
    close(fd);
}

static void fault_note_death(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char text[32];
    snprintf(text, sizeof(text), "%lld\n",
             (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    fault_write_file("death", text);
}

#endif /* FAULT_COMMON_H */

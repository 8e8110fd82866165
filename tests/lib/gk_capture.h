/*
 * gk_capture.h: captures what a call writes to stderr (file descriptor 2),
 * so a test can check the library's log lines for one call: that an error
 * was reported exactly once, and that it names what it must (the PE, the
 * address, the length, the bounds). The library writes each log line with
 * one write(2) to STDERR_FILENO, so redirecting the descriptor catches it.
 *
 *   gk_capture_begin();
 *   status = gk_put(...);
 *   const char *text = gk_capture_end();   valid until the next begin
 *
 * Captured text does not reach the real stderr; gk_capture_echo() prints it
 * there with every "gasket[" rewritten to "(expected) gasket:[", so a log
 * scanner that fails a test on unexpected "gasket[PE n] error" lines does
 * not mistake the expected ones for failures.
 */
#ifndef GK_TESTS_GK_CAPTURE_H
#define GK_TESTS_GK_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GK_CAPTURE_MAX 16384

static int gk_capture_saved_fd = -1;
static FILE *gk_capture_file;
static char gk_capture_text[GK_CAPTURE_MAX];

static inline void gk_capture_die(const char *what)
{
    /* stderr may be the capture file: say it on the saved descriptor too. */
    char line[256];
    int len = snprintf(line, sizeof(line), "gk_capture: %s failed\n", what);
    ssize_t unused =
        write(gk_capture_saved_fd >= 0 ? gk_capture_saved_fd : 2, line, (size_t)len);
    (void)unused;
    _exit(99);
}

static inline void gk_capture_begin(void)
{
    if (gk_capture_saved_fd >= 0)
        gk_capture_die("nested gk_capture_begin");
    fflush(stdout);
    fflush(stderr);
    gk_capture_file = tmpfile();
    if (gk_capture_file == NULL)
        gk_capture_die("tmpfile");
    gk_capture_saved_fd = dup(2);
    if (gk_capture_saved_fd < 0 || dup2(fileno(gk_capture_file), 2) < 0)
        gk_capture_die("dup2");
}

static inline const char *gk_capture_end(void)
{
    if (gk_capture_saved_fd < 0)
        gk_capture_die("gk_capture_end without begin");
    fflush(stderr);
    if (dup2(gk_capture_saved_fd, 2) < 0)
        gk_capture_die("dup2 back");
    close(gk_capture_saved_fd);
    gk_capture_saved_fd = -1;
    size_t len = 0;
    if (fseek(gk_capture_file, 0, SEEK_SET) == 0)
        len = fread(gk_capture_text, 1, GK_CAPTURE_MAX - 1, gk_capture_file);
    gk_capture_text[len] = '\0';
    fclose(gk_capture_file);
    gk_capture_file = NULL;
    return gk_capture_text;
}

/* The number of lines of `text` that contain `needle`. */
static inline int gk_capture_count(const char *text, const char *needle)
{
    int count = 0;
    const char *line = text;
    while (*line != '\0') {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[2048];
        size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
        memcpy(buf, line, n);
        buf[n] = '\0';
        if (strstr(buf, needle) != NULL)
            count++;
        line += len + (end != NULL);
    }
    return count;
}

/* Prints captured text to stderr, defused for log scanners (see above). */
static inline void gk_capture_echo(const char *text)
{
    const char *p = text;
    while (*p != '\0') {
        const char *hit = strstr(p, "gasket[");
        if (hit == NULL) {
            fputs(p, stderr);
            break;
        }
        fwrite(p, 1, (size_t)(hit - p), stderr);
        fputs("(expected) gasket:[", stderr);
        p = hit + strlen("gasket[");
    }
}

#endif /* GK_TESTS_GK_CAPTURE_H */

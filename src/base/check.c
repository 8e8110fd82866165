/*
 * check.c: check mode's record of deferred operations (check.h): the list,
 * its completion in issue order, and the reports with their call sites.
 */
#include "base/check.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

int gk__check_on;
atomic_size_t gk__check_queued;

static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gk__check_op *check_head, **check_tail = &check_head;

/* Call sites already reported: a loop that reuses its source reports once. */
#define CHECK_SITES_MAX 64
static void *check_sites[CHECK_SITES_MAX];
static unsigned check_n_sites;

struct gk__check_op *gk__check_op_new(const char *what, size_t n)
{
    struct gk__check_op *op = malloc(sizeof(*op) + n);
    if (op == NULL)
        return NULL;
    memset(op, 0, sizeof(*op));
    op->what = what;
    op->n = n;
    /* The whole stack, not one return address: the call may come through
     * the OpenSHMEM names or the context forms, frames of the library
     * above the caller's. */
    op->n_frames = backtrace(op->frames, GK__CHECK_FRAMES);
    return op;
}

void gk__check_push(struct gk__check_op *op)
{
    op->next = NULL;
    pthread_mutex_lock(&check_lock);
    *check_tail = op;
    check_tail = &op->next;
    atomic_fetch_add_explicit(&gk__check_queued, 1, memory_order_relaxed);
    pthread_mutex_unlock(&check_lock);
}

/* Whether frame lies in the library's own code: in its shared object, or,
 * linked into the program, in a function with one of its exported
 * prefixes (called under check_lock). */
/* Frames looked at already, and whether each is ours: dladdr walks the
 * symbol tables, and the race detector asks at every put and get. */
#define CHECK_FRAME_CACHE 256
static struct {
    void *frame;
    int ours;
    const char *name; /* its function's exported name, or NULL */
} check_frame_cache[CHECK_FRAME_CACHE];

static int check_frame_ours_uncached(void *frame);

/* Whether frame is ours (check_frame_ours_uncached), and in *name_p its
 * function's exported name; called under check_lock. */
static int check_frame_lookup(void *frame, const char **name_p)
{
    unsigned slot = (unsigned)(((uintptr_t)frame >> 2) % CHECK_FRAME_CACHE);
    if (check_frame_cache[slot].frame != frame) {
        Dl_info info;
        check_frame_cache[slot].frame = frame;
        check_frame_cache[slot].ours = check_frame_ours_uncached(frame);
        check_frame_cache[slot].name =
            dladdr(frame, &info) != 0 ? info.dli_sname : NULL;
    }
    if (name_p != NULL)
        *name_p = check_frame_cache[slot].name;
    return check_frame_cache[slot].ours;
}

static int check_frame_ours(void *frame)
{
    return check_frame_lookup(frame, NULL);
}

static int check_frame_ours_uncached(void *frame)
{
    static Dl_info self;
    static int self_known, self_is_lib;
    if (!self_known) {
        self_known = dladdr((void *)check_frame_ours, &self) != 0 ? 1 : -1;
        self_is_lib = self_known == 1 && self.dli_fname != NULL &&
                      strstr(self.dli_fname, "libgasket") != NULL;
    }
    Dl_info info;
    if (self_known != 1 || dladdr(frame, &info) == 0)
        return 0;
    /* A sanitizer's interceptor (backtrace itself, under ASan) is no
     * call site either. */
    if (info.dli_fname != NULL &&
        (strstr(info.dli_fname, "/libasan.") != NULL || strstr(info.dli_fname, "/libtsan.") != NULL ||
         strstr(info.dli_fname, "/libubsan.") != NULL))
        return 1;
    if (info.dli_fbase != self.dli_fbase)
        return 0;
    if (self_is_lib)
        return 1;
    const char *name = info.dli_sname;
    return name != NULL && (strncmp(name, "gk_", 3) == 0 || strncmp(name, "shmem_", 6) == 0 ||
                            strncmp(name, "pshmem_", 7) == 0);
}

/* The caller's frame: the first above the library's own (*call_p: the
 * name of the library's function it called, where it is exported). */
static void *check_site(void *const *frames, int n_frames, const char **call_p)
{
    for (int i = 0; i < n_frames; i++) {
        if (!check_frame_ours(frames[i])) {
            const char *name = NULL;
            if (i > 0)
                (void)check_frame_lookup(frames[i - 1], &name);
            if (name != NULL)
                /* shmem_ names are aliases of the profiling pshmem_ ones:
                 * the program called the shmem_ name. */
                *call_p = name + (strncmp(name, "pshmem_", 7) == 0);
            return frames[i];
        }
    }
    return n_frames > 0 ? frames[n_frames - 1] : NULL;
}

/* Whether site was reported already; notes it if not. */
static int check_site_seen(void *site)
{
    for (unsigned i = 0; i < check_n_sites; i++)
        if (check_sites[i] == site)
            return 1;
    if (check_n_sites < CHECK_SITES_MAX)
        check_sites[check_n_sites++] = site;
    return 0;
}

void *gk__check_caller(const char **call_p)
{
    /* Deeper than an entry's stack: the race detector asks from further
     * inside the path layer. */
    void *frames[2 * GK__CHECK_FRAMES];
    int n_frames = backtrace(frames, 2 * GK__CHECK_FRAMES);
    pthread_mutex_lock(&check_lock);
    void *site = check_site(frames, n_frames, call_p);
    pthread_mutex_unlock(&check_lock);
    return site;
}

static void check_report_reuse(const struct gk__check_op *op, const char *point)
{
    const char *call = op->what;
    void *site = check_site(op->frames, op->n_frames, &call);
    if (check_site_seen(site))
        return;
    /* "prog(main+0x4c) [0x5581...]": the symbol where the program exports
     * it, the address for addr2line always. */
    char **names = site != NULL ? backtrace_symbols(&site, 1) : NULL;
    gk__warn("check: source of %s at %s was modified before %s", call,
             names != NULL ? names[0] : "an unknown call site", point);
    free(names);
}

void gk__check_drain(const char *point)
{
    pthread_mutex_lock(&check_lock);
    struct gk__check_op *op = check_head;
    check_head = NULL;
    check_tail = &check_head;
    /* Applied under the lock, and the count of entries left at zero only
     * once they are: another thread's completion point must not pass
     * entries still being applied (it would find the count zero, return,
     * and reuse a put's source before the comparison). So an apply
     * function must never reach a completion point itself. */
    while (op != NULL) {
        struct gk__check_op *next = op->next;
        if (op->apply != NULL)
            op->apply(op);
        else
            memcpy(op->local, op->data, op->n);
        if (op->src != NULL && memcmp(op->src, op->data, op->n) != 0)
            check_report_reuse(op, point);
        free(op);
        op = next;
    }
    atomic_store_explicit(&gk__check_queued, 0, memory_order_release);
    pthread_mutex_unlock(&check_lock);
}

void gk__check_defer_write(const char *what, void *dst, const void *value, size_t n)
{
    struct gk__check_op *op = gk__check_on ? gk__check_op_new(what, n) : NULL;
    if (op == NULL) {
        memcpy(dst, value, n);
        return;
    }
    op->local = dst;
    memcpy(op->data, value, n);
    memset(dst, GK__CHECK_POISON, n);
    gk__check_push(op);
}

void gk__check_fini(void)
{
    gk__check_drain("gk_finalize");
    pthread_mutex_lock(&check_lock);
    check_n_sites = 0;
    memset(check_frame_cache, 0, sizeof(check_frame_cache));
    pthread_mutex_unlock(&check_lock);
}

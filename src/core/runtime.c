/*
 * runtime.c: start-up and shut-down of a PE, and the shared error reports.
 *
 * Start-up order: configuration, bootstrap (who we are, node map), agree
 * that the node's segments fit in /dev/shm, create our segment (its pages
 * reserved, so a full /dev/shm is an error here, not a SIGBUS later),
 * agree that every PE did, open the transports (net.h: each claims its
 * peers and all agree; the first maps the segments of the node's PEs and
 * then unlinks our segment's name, which every mapping keeps alive, so a
 * crash from there on leaves nothing in /dev/shm), final agreement. Each
 * agreement is an allgather of status codes, so a failure on one PE fails
 * gk_init on all of them instead of leaving them blocked.
 */
#include "core/runtime.h"
#include "core/path.h"
#include "core/allreduce.h"
#include "core/barrier.h"
#include "core/coll_check.h"
#include "core/progress.h"

#include <poll.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/wait.h"
#include "mem/seg_region.h"

struct gk__runtime gk__rt = {.my_pe = -1};

int gk__rt_report_pe(const char *op, int pe)
{
    if (!gk__rt.initialized) {
        gk__error("%s called before gk_init()", op);
        return GK_ERR_NOT_INIT;
    }
    gk__error("%s: PE %d does not exist (the job has PEs 0 to %d)", op, pe,
              gk__rt.n_pes - 1);
    return GK_ERR_PE;
}

int gk__rt_report_range(const char *op, int pe, const void *addr, size_t n)
{
    gk__error("%s on PE %d out of bounds: address %p + %zu bytes is outside the "
              "symmetric heap [%p, %p) (GK_HEAP_SIZE=%zu)",
              op, pe, addr, n, (void *)gk__rt.heap,
              (void *)(gk__rt.heap + gk__rt.heap_span - gk__rt.local_size),
              gk__rt.heap_span - gk__rt.local_size);
    return GK_ERR_RANGE;
}

/*
 * Check mode: bytes inside the heap's symmetric range, but in no block of
 * this PE's (never allocated, freed already, a team's block this PE is
 * not a member of), or running past the end of the one they start in.
 * Every PE made the same world heap calls, so a block this PE lacks is
 * one the target cannot be relied on to hold either; across hosts such a
 * put lands in whatever the target's heap has there, or fails there.
 * Threaded programs may allocate beside the access: not looked up.
 */
int gk__rt_check_block(const char *op, int pe, const void *addr, size_t n, size_t *seg_offset_p)
{
    size_t sym = gk__rt.heap_span - gk__rt.local_size;
    size_t offset = (size_t)((uintptr_t)addr - (uintptr_t)gk__rt.heap);
    if (offset > sym || n > sym - offset)
        return gk__rt_report_range(op, pe, addr, n);
    struct gk__extent block;
    if (!gk__rt.threaded) {
        if (gk__heap_alloc_holding(&gk__rt.heap_alloc, offset, &block) != GK_OK) {
            gk__error("check: address not symmetric: %s to PE %d: address %p + %zu bytes is "
                      "in the symmetric heap but in no block allocated on PE %d (freed, "
                      "never allocated, or a team's block of a team without PE %d)",
                      op, pe, addr, n, gk__rt.my_pe, gk__rt.my_pe);
            return GK_ERR_RANGE;
        }
        if (n > block.offset + block.size - offset) {
            gk__error("check: address not symmetric: %s to PE %d: address %p + %zu bytes "
                      "runs past the end of its block [%p, %p)",
                      op, pe, addr, n, (void *)(gk__rt.heap + block.offset),
                      (void *)(gk__rt.heap + block.offset + block.size));
            return GK_ERR_RANGE;
        }
    }
    *seg_offset_p = GK__SEG_HEAP_OFFSET + offset;
    return GK_OK;
}

int gk__rt_report_null(const char *op, const char *arg, size_t n)
{
    gk__error("%s: %s is NULL with %zu bytes to transfer", op, arg, n);
    return GK_ERR_INVALID_ARG;
}

int gk__rt_report_align(const char *op, int pe, const void *addr, size_t align)
{
    gk__error("%s on PE %d: address %p is not aligned to %zu bytes", op, pe, addr,
              align);
    return GK_ERR_ALIGN;
}

/* A wait has slept: is the job alive, and (inside a collective) are the
 * PEs in the same collective call? */
static int rt_check_alive(void)
{
    int status = gk__rt.boot.ops ? gk__rt.boot.ops->check_alive(&gk__rt.boot) : GK_OK;
    if (status == GK_OK && gk__coll_depth > 0 && gk__rt.initialized)
        status = gk__coll_check_peers();
    if (status == GK_OK && (gk__coll_depth > 0 || gk__coll_waiting != NULL) &&
        gk__rt.initialized)
        status = gk__coll_check_deadlock();
    return status;
}

/* Every PE contributes its status; all return the first error, if any. */
static int rt_agree(int status)
{
    int32_t mine = status;
    int32_t *all = calloc((size_t)gk__rt.boot.size, sizeof(*all));
    if (all == NULL) /* cannot join the exchange the others wait in */
        gk_abort(1, "out of memory during start-up");
    int exchanged = gk__boot_allgather(&gk__rt.boot, &mine, all, sizeof(mine));
    int agreed = exchanged;
    for (int pe = 0; agreed == GK_OK && pe < gk__rt.boot.size; pe++) {
        if (all[pe] != GK_OK) {
            agreed = all[pe];
            /* A PE that failed itself has said why already. */
            if (mine == GK_OK)
                gk__error("start-up failed on PE %d: %s", pe, gk_strerror(all[pe]));
        }
    }
    free(all);
    return agreed;
}

/*
 * The segment's layout (mem/seg_region.h) depends on the features a
 * program links in: two executables of one job linked statically against
 * different parts of gasket could lay their segments out differently.
 * Every PE's layout digest is compared once, across all hosts, before any
 * segment exists; a PE whose layout differs from PE 0's is named.
 */
int gk__rt_allgather(const void *mine, void *all, size_t size)
{
    return gk__boot_allgather(&gk__rt.boot, mine, all, size);
}

static int rt_agree_layout(void)
{
    uint64_t mine = gk__seg_layout_digest();
    uint64_t *all = calloc((size_t)gk__rt.boot.size, sizeof(*all));
    if (all == NULL)
        gk_abort(1, "out of memory during start-up");
    int status = gk__boot_allgather(&gk__rt.boot, &mine, all, sizeof(mine));
    for (int pe = 1; status == GK_OK && pe < gk__rt.boot.size; pe++) {
        if (all[pe] != all[0]) {
            if (gk__rt.boot.rank == 0 || gk__rt.boot.rank == pe) /* not once a PE */
                gk__error("PE %d lays its segment out differently from PE 0 (layout "
                          "%#llx, PE 0 %#llx): its executable links other parts of "
                          "gasket; run one executable, or link gasket as a shared library",
                          pe, (unsigned long long)all[pe], (unsigned long long)all[0]);
            status = GK_ERR_CONFIG;
        }
    }
    free(all);
    return status;
}

/* The CPUs this node's PEs share: what the launcher was allowed to use
 * (a container's cpuset or taskset shows there, not in the CPUs online),
 * else the CPUs online. */
static long rt_node_cpus(const struct gk__boot *boot)
{
    return boot->node_cpus > 0 ? boot->node_cpus : sysconf(_SC_NPROCESSORS_ONLN);
}

/* Spinning makes no sense when the node has more PEs than cores: the PE we
 * wait for may need our core, so waits start yielding at once. (Measured
 * at 4 and 8 PEs on 2 cores: a contended lock hand-over 1.3 us with no
 * spinning, 1.6-2.2 with 20 polls; barriers and all-reduce no slower.) */
static void rt_set_wait_policy(void)
{
    gk__wait_policy.spin_count = gk__rt.config.spin_count;
    gk__wait_policy.yield_count = gk__rt.config.yield_count;
    gk__wait_policy.sleep_ms = gk__rt.config.sleep_ms ? gk__rt.config.sleep_ms : 1;
    gk__wait_policy.check_alive = rt_check_alive;
    gk__wait_policy.progress = gk__progress;
    gk__wait_policy.inbox_ready = gk__progress_inbox_ready;
    gk__wait_policy.before_sleep = gk__net_before_sleep;
    gk__path_rop_register();
    long cores = rt_node_cpus(&gk__rt.boot);
    long sharers = gk__rt.boot.node_cpu_sharers > 0 ? gk__rt.boot.node_cpu_sharers
                                                    : gk__rt.boot.node_size;
    gk__wait_policy.pes_per_cpu = cores > 0 ? (unsigned)((sharers + cores - 1) / cores) : 1;
    if (gk__wait_oversubscribed())
        gk__wait_policy.spin_count = 0;
}

/* Every way out of gk_init and gk_finalize passes here: the inline paths
 * close before the peers' mappings go. */
static void rt_detach_peers(void)
{
    gk__path_inline_close();
    gk__net_close_all(); /* after a failed start-up; gk_finalize closed them already */
    gk__net_release_all(gk__rt.peers, gk__rt.boot.size);
    free(gk__rt.peers);
    gk__rt.peers = NULL;
}

/* The peer table, and every transport's claim on its peers (net.h). */
static int rt_attach_peers(void)
{
    struct gk__boot *boot = &gk__rt.boot;
    int status = GK_OK;
    gk__rt.peers = calloc((size_t)boot->size, sizeof(*gk__rt.peers));
    if (gk__rt.peers == NULL) {
        gk__error("out of memory for the table of %d PEs", boot->size);
        status = GK_ERR_NOMEM;
    }
    struct gk__net_start start = {.boot = boot,
                                  .my_seg = &gk__rt.my_seg,
                                  .peers = gk__rt.peers,
                                  .config = &gk__rt.config,
                                  .agree = rt_agree};
    return gk__net_open_all(&start, status);
}

/* The features' declarations (GK__RT_FEATURE), made by constructors of
 * whichever of their files were linked in: a list through the
 * declarations themselves, the last declared first. */
static struct gk__rt_feature *rt_features;

void gk__rt_feature_declare(struct gk__rt_feature *feature)
{
    feature->next = rt_features;
    rt_features = feature;
}

static int rt_features_init(void)
{
    for (struct gk__rt_feature *f = rt_features; f != NULL; f = f->next) {
        if (f->init != NULL) {
            int status = f->init();
            if (status != GK_OK)
                return status;
        }
    }
    return GK_OK;
}

/* Check mode at gk_finalize: every PE is here and has completed its
 * operations (gk__path_check_finalizing) once the barrier ends, so what
 * each feature finds left is final. */
static int rt_features_check_finalize(void)
{
    int status = gk__barrier();
    if (status != GK_OK)
        return status;
    for (struct gk__rt_feature *f = rt_features; f != NULL; f = f->next)
        if (f->check_finalize != NULL)
            f->check_finalize();
    return GK_OK;
}

/* Every fini: each copes with an init that never ran or failed. */
static void rt_features_fini(void)
{
    for (struct gk__rt_feature *f = rt_features; f != NULL; f = f->next)
        if (f->fini != NULL)
            f->fini();
}

int gk_init(void)
{
    return gk__rt_init("gk_init");
}

int gk__rt_init(const char *op)
{
    if (gk__rt.initialized) {
        gk__error("%s: this process is already initialized as PE %d (a process is one "
                  "PE, initialized once)",
                  op, gk__rt.my_pe);
        return GK_ERR_ALREADY_INIT;
    }
    if (gk__rt.finalized) {
        gk__error("%s after gk_finalize: a process is one PE, initialized once", op);
        return GK_ERR_ALREADY_INIT;
    }
    /* Errors before the bootstrap should carry the PE number too. */
    const char *rank = gk__config_getenv(NULL, "RANK");
    gk__log_set_pe(rank != NULL ? atoi(rank) : 0);
    int status = gk__config_load(&gk__rt.config, NULL);
    if (status != GK_OK)
        goto err;
    status = gk__boot_init(&gk__rt.boot);
    if (status != GK_OK)
        goto err;
    struct gk__boot *boot = &gk__rt.boot;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    gk__rt.local_size = (gk__rt.config.alloc_mem_size + page - 1) & ~(page - 1);
    gk__rt.heap_span = ((gk__rt.config.heap_request + page - 1) & ~(page - 1)) + gk__rt.local_size;
    rt_set_wait_policy();
    gk__path_check_open(gk__rt.config.check); /* after the wait policy it wraps */
    struct gk__seg_data data = {NULL, 0};
    if (gk__rt.config.symmetric_data)
        gk__seg_find_data(&data);
    gk__seg_set_data(&data); /* every segment's size: before any is made */
    status = rt_agree_layout(); /* the same verdict on every PE */
    if (status != GK_OK)
        goto err_destroy_seg;
    /* Before any PE reserves its segment, so that all see the same space. */
    status = rt_agree(gk__seg_check_space(gk__rt.heap_span, boot->node_size, boot->size));
    if (status != GK_OK)
        goto err_destroy_seg;

    status = rt_agree(gk__seg_create(boot->job_key, boot->rank, boot->size,
                                     gk__rt.heap_span, &gk__rt.my_seg));
    if (status != GK_OK)
        goto err_destroy_seg;
    gk__rt.heap = gk__rt.my_seg.heap;
    gk__rt.data = data.lo;
    gk__rt.data_size = data.size;
    gk__rt.data_seg_offset = gk__rt.my_seg.size - data.size;
    /* Before anyone can map it: peers send as soon as gk_init returns. */
    status = rt_agree(gk__progress_init_inbox(gk__rt.my_seg.base, boot->size));
    if (status != GK_OK)
        goto err_destroy_seg;
    /* Agreed, and our segment's name unlinked once the node's PEs have
     * mapped it (net.h, "Start-up"). */
    status = rt_attach_peers();
    if (status != GK_OK)
        goto err_detach_peers;
    status = gk__heap_alloc_init(&gk__rt.heap_alloc, gk__rt.heap_span - gk__rt.local_size);
    if (status == GK_OK && gk__rt.local_size > 0)
        status = gk__heap_alloc_init(&gk__rt.local_alloc, gk__rt.local_size);
    if (status != GK_OK)
        goto err_detach_peers;
    gk__rt.sym_span = gk__check_on ? 0 : gk__rt.heap_span - gk__rt.local_size;
    /* Every PE learns whether every PE got this far. */
    status = rt_agree(rt_features_init());
    if (status != GK_OK)
        goto err_fini_heap;

    gk__rt.my_pe = boot->rank;
    gk__rt.n_pes = boot->size;
    gk__barrier_reset();
    gk__allreduce_reset();
    gk__coll_check_reset();
    gk__rt.initialized = 1;
    status = gk__path_inline_open();
    status = rt_agree(status == GK_OK ? gk__progress_start() : status);
    if (status != GK_OK) {
        gk__rt.initialized = 0;
        goto err_fini_heap;
    }
    /* Start-up's temporaries (the all-gathers' arrays, one entry per PE)
     * are freed, but glibc keeps their pages resident: hand them back, so
     * that a large job's PEs do not carry them for their whole run. */
    malloc_trim(0);
    gk__debug("waits: spin %u, yield %u, sleep %u ms%s", gk__wait_policy.spin_count,
              gk__wait_policy.yield_count, gk__wait_policy.sleep_ms,
              gk__wait_oversubscribed() ? " (oversubscribed)" : "");
    gk__info("initialized: PE %d of %d, %d on this node, heap %zu bytes, boot %s",
             boot->rank, boot->size, boot->node_size, gk__rt.heap_span,
             boot->ops->name);
    return GK_OK;

err_fini_heap:
    rt_features_fini();
    gk__heap_alloc_fini(&gk__rt.heap_alloc);
    if (gk__rt.local_size > 0)
        gk__heap_alloc_fini(&gk__rt.local_alloc);
err_detach_peers:
    rt_detach_peers();
err_destroy_seg:
    /* Unlink only a name we created: after a failed O_EXCL it is not ours. */
    if (gk__rt.my_seg.base != NULL)
        gk__seg_unlink(boot->job_key, boot->rank);
    gk__seg_detach(&gk__rt.my_seg);
    gk__path_check_close();
    gk__boot_fini(boot);
err:
    return status;
}

int (*gk__rt_finalize_check)(void);
uint64_t (*gk__rt_finalize_unreceived)(uint64_t *lost_from);

/*
 * Lets every message in flight arrive, then reports the two-sided messages
 * nobody received: the receiver names each one, the sender learns how many
 * of its own were lost, and both return GK_ERR_UNRECEIVED.
 */
static int rt_finalize_messages(void)
{
    int status = gk__progress_quiesce();
    if (status != GK_OK || gk__rt_finalize_unreceived == NULL)
        return status;
    size_t n = (size_t)gk__rt.n_pes;
    uint64_t *lost_from = calloc(2 * n, sizeof(uint64_t));
    if (lost_from == NULL)
        gk__error("gk_finalize: out of memory counting unreceived messages (%zu bytes)",
                  2 * n * sizeof(uint64_t));
    /* Every PE takes part in the count's all-reduce, or none does. */
    status = gk__rt_agree("gk_finalize", lost_from != NULL ? GK_OK : GK_ERR_NOMEM);
    if (status != GK_OK) {
        free(lost_from);
        return status;
    }
    uint64_t *lost_sent = lost_from + n;
    uint64_t here = gk__rt_finalize_unreceived(lost_from);
    status = gk__allreduce_u64("gk_finalize", lost_sent, lost_from, n, GK_OP_SUM);
    uint64_t mine = lost_sent[gk__rt.my_pe];
    free(lost_from);
    if (status != GK_OK)
        return status;
    if (mine > 0)
        gk__warn("gk_finalize: %llu message%s this PE sent %s never received (the "
                 "receiving PE names %s)",
                 (unsigned long long)mine, mine == 1 ? "" : "s", mine == 1 ? "was" : "were",
                 mine == 1 ? "it" : "them");
    return here > 0 || mine > 0 ? GK_ERR_UNRECEIVED : GK_OK;
}

int gk_finalize(void)
{
    if (!gk__rt.initialized)
        return gk__rt_report_pe("gk_finalize", 0);
    int in_handler = gk__progress_check_not_in_handler("gk_finalize");
    if (in_handler != GK_OK)
        return in_handler;
    if (gk__rt_finalize_check != NULL) {
        int refused = gk__rt_finalize_check();
        if (refused != GK_OK)
            return refused;
    }
    gk__debug("finalizing");
    gk__path_check_finalizing();
    /* After a collective mismatch no barrier can end: release all the same. */
    int status = gk__coll_enter(GK__COLL_FINALIZE);
    gk__coll_publish_final(status == GK_OK);
    if (status == GK_OK) {
        status = rt_finalize_messages();
        if (status == GK_OK && gk__check_on)
            status = rt_features_check_finalize();
        int barrier = gk__barrier();
        if (status == GK_OK)
            status = barrier;
        gk__coll_leave();
    }
    gk__progress_stop();
    gk__path_check_close(); /* the barrier completed all; forgets the reports */
    gk__net_close_all(); /* collective, before the bootstrap lets go */
    int boot_status = gk__rt.boot.ops->finalize(&gk__rt.boot);
    if (status == GK_OK)
        status = boot_status;
    gk__rt.initialized = 0;
    gk__rt.finalized = 1;
    gk__rt.n_pes = 0;
    gk__rt.my_pe = -1;
    gk__heap_alloc_fini(&gk__rt.heap_alloc);
    if (gk__rt.local_size > 0)
        gk__heap_alloc_fini(&gk__rt.local_alloc);
    rt_features_fini();
    rt_detach_peers();
    gk__seg_detach(&gk__rt.my_seg);
    gk__rt.heap = NULL;
    gk__rt.data = NULL;
    gk__rt.data_size = 0;
    gk__rt.heap_span = 0;
    gk__rt.sym_span = 0;
    gk__boot_fini(&gk__rt.boot);
    return status;
}

int gk_initialized(void)
{
    return gk__rt.initialized;
}

int gk_my_pe(void)
{
    return gk__rt.my_pe;
}

int gk_n_pes(void)
{
    return gk__rt.n_pes;
}

void gk_exit_job(int status, const char *why)
{
    if (gk__rt.boot.ops != NULL && gk__rt.boot.ops->exit_job != NULL) {
        gk__rt.boot.ops->exit_job(&gk__rt.boot, status, why);
        /* As gk_abort: the launcher stops every PE, this one included. */
        if (gk__rt.boot.fd >= 0) {
            struct pollfd pfd = {.fd = gk__rt.boot.fd, .events = POLLIN};
            poll(&pfd, 1, 2000);
        }
    }
    _exit(status & 0xff);
}

void gk_abort(int exit_code, const char *why)
{
    gk__error("gk_abort(%d): %s", exit_code, why ? why : "(no reason given)");
    if (gk__rt.boot.ops != NULL) {
        gk__rt.boot.ops->abort(&gk__rt.boot, exit_code, why);
        /* The launcher now stops every PE, this one included; give it a
         * moment so its report names the abort rather than our exit. */
        if (gk__rt.boot.fd >= 0) {
            struct pollfd pfd = {.fd = gk__rt.boot.fd, .events = POLLIN};
            poll(&pfd, 1, 2000);
        }
    }
    _exit(gk__boot_abort_status(exit_code));
}

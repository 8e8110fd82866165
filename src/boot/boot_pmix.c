/*
 * boot_pmix.c: the bootstrap back end for jobs that a resource manager
 * starts and serves over PMIx: Slurm's `srun --mpi=pmix`, Open MPI's
 * mpirun. Rank and size come from PMIx; an exchange is a put of this PE's
 * blob under a key of its own (one per exchange), a commit, a fence that
 * collects the data, and a get of every other PE's blob; the out-of-band
 * barrier is a fence without data; gk_abort is PMIx_Abort, which has the
 * resource manager end every process of the job.
 *
 * The job key that names the segments comes from PE 0 (random, as our
 * launcher's), with every PE's process id in the same first exchange.
 * The resource manager may let a job live on after one of its processes
 * died (Slurm does unless told --kill-on-bad-exit), so a wait that has
 * slept looks at the processes of the PEs on this node itself
 * (check_alive), and a PE that finds one gone ends the job; a PE on
 * another host that dies shows as a failed UCX connection.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <pmix.h>

#include "base/log.h"
#include "boot/boot.h"
#include "gasket.h"

struct pmix_state {
    pmix_proc_t me;
    pmix_proc_t all;  /* the whole namespace: fences and job-level keys */
    unsigned exchanges; /* numbers each exchange's key */
    pid_t *pids;        /* [PE]: its process, for check_alive */
    int alive_next;     /* the PE check_alive looks at first next time */
    int aborted;        /* PMIx_Abort called: this PE only exits now */
};

/* Logs a failed PMIx call; GK_ERR_BOOT. */
static int pmix_failed(const char *call, pmix_status_t rc)
{
    gk__error("bootstrap (PMIx): %s failed: %s", call, PMIx_Error_string(rc));
    return GK_ERR_BOOT;
}

static int pmix_fence(struct pmix_state *s, int collect)
{
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&s->all, 1, collect ? &info : NULL, collect ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    return rc == PMIX_SUCCESS ? GK_OK : pmix_failed("PMIx_Fence", rc);
}

/* PE `rank`'s blob under `key`, `len` bytes into `out`. */
static int pmix_get_blob(struct pmix_state *s, int rank, const char *key, void *out,
                         size_t len)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, s->me.nspace, (pmix_rank_t)rank);
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        return pmix_failed("PMIx_Get", rc);
    int status = GK_OK;
    if (val->type != PMIX_BYTE_OBJECT || val->data.bo.size != len) {
        gk__error("bootstrap (PMIx): PE %d's value for %s is not %zu bytes", rank, key, len);
        status = GK_ERR_BOOT;
    } else {
        memcpy(out, val->data.bo.bytes, len);
    }
    PMIX_VALUE_RELEASE(val);
    return status;
}

static int pmix_allgather(struct gk__boot *boot, const void *mine, void *all, size_t len)
{
    struct pmix_state *s = boot->backend;
    if (len == 0)
        return pmix_fence(s, 0);
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof(key), "gk.x%u", s->exchanges++);
    pmix_value_t value;
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = (char *)mine; /* PMIx_Put copies it */
    value.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &value);
    if (rc != PMIX_SUCCESS)
        return pmix_failed("PMIx_Put", rc);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return pmix_failed("PMIx_Commit", rc);
    int status = pmix_fence(s, 1);
    for (int pe = 0; status == GK_OK && pe < boot->size; pe++) {
        char *slot = (char *)all + (size_t)pe * len;
        if (pe == boot->rank)
            memcpy(slot, mine, len);
        else
            status = pmix_get_blob(s, pe, key, slot, len);
    }
    return status;
}

/* After gk_finalize's last barrier: a fence, so that no PE exits while
 * another still waits in that barrier, where it would take the exit for a
 * death (pmix_check_alive). PMIx_Finalize comes in fini. */
static int pmix_finalize(struct gk__boot *boot)
{
    return pmix_fence(boot->backend, 0);
}

/* The resource manager ends the job with `status`. */
static void pmix_end(struct gk__boot *boot, int status, const char *why)
{
    struct pmix_state *s = boot->backend;
    s->aborted = 1;
    pmix_status_t rc = PMIx_Abort(status, why, NULL, 0);
    if (rc != PMIX_SUCCESS)
        gk__error("bootstrap (PMIx): PMIx_Abort failed (%s); this PE exits alone",
                  PMIx_Error_string(rc));
}

static void pmix_abort(struct gk__boot *boot, int exit_code, const char *why)
{
    /* gk_abort() has printed `why`. */
    pmix_end(boot, gk__boot_abort_status(exit_code), why);
}

static void pmix_exit_job(struct gk__boot *boot, int status, const char *why)
{
    pmix_end(boot, status & 0xff, why);
}

/* Every process of a PE on this node still exists (top comment). */
/* PEs check_alive probes per call: a wait that sleeps probes its node's
 * PEs a batch at a time, so a node of 1024 PEs costs no 1023 system calls
 * per sleep, and a PE that died is still found within a few seconds
 * (1024 PEs: 16 sleeps of at most GK_SLEEP_MS). */
#define PMIX_ALIVE_BATCH 64

static int pmix_check_alive(struct gk__boot *boot)
{
    struct pmix_state *s = boot->backend;
    if (boot->node_id == NULL)
        return GK_OK; /* the node map is not built yet */
    int n = boot->size < PMIX_ALIVE_BATCH ? boot->size : PMIX_ALIVE_BATCH;
    for (int i = 0; i < n; i++) {
        int pe = (s->alive_next + i) % boot->size;
        if (pe == boot->rank || boot->node_id[pe] != boot->node_id[boot->rank])
            continue;
        if (kill(s->pids[pe], 0) == 0 || errno != ESRCH)
            continue;
        char why[160];
        snprintf(why, sizeof(why), "PE %d (process %d on this node) is gone; ending the job", pe,
                 (int)s->pids[pe]);
        gk__error("%s", why);
        pmix_abort(boot, 1, why);
        return GK_ERR_BOOT;
    }
    s->alive_next = (s->alive_next + n) % boot->size;
    return GK_OK;
}

static void pmix_fini(struct gk__boot *boot)
{
    struct pmix_state *s = boot->backend;
    if (s == NULL)
        return;
    if (!s->aborted)
        PMIx_Finalize(NULL, 0);
    free(s->pids);
    free(s);
    boot->backend = NULL;
}

static const struct gk__boot_ops pmix_ops = {
    .name = "pmix",
    .allgather = pmix_allgather,
    .finalize = pmix_finalize,
    .abort = pmix_abort,
    .exit_job = pmix_exit_job,
    .check_alive = pmix_check_alive,
    .fini = pmix_fini,
};

/* The first exchange: PE 0's job key and every PE's process id. */
struct pmix_hello {
    char job_key[33];
    int32_t pid;
};

int gk__boot_pmix_open(struct gk__boot *boot)
{
    struct pmix_state *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        gk__error("bootstrap (PMIx): out of memory");
        return GK_ERR_NOMEM;
    }
    pmix_status_t rc = PMIx_Init(&s->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        free(s);
        gk__error("bootstrap (PMIx): PMIx_Init failed (%s): this process was not started by "
                  "a launcher that serves PMIx (srun --mpi=pmix, mpirun)",
                  PMIx_Error_string(rc));
        return GK_ERR_BOOT;
    }
    PMIX_LOAD_PROCID(&s->all, s->me.nspace, PMIX_RANK_WILDCARD);
    boot->backend = s;
    boot->ops = &pmix_ops;
    pmix_value_t *val = NULL;
    rc = PMIx_Get(&s->all, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS) {
        pmix_failed("PMIx_Get(PMIX_JOB_SIZE)", rc);
        pmix_fini(boot);
        return GK_ERR_BOOT;
    }
    uint32_t size = val->type == PMIX_UINT32 ? val->data.uint32 : 0;
    PMIX_VALUE_RELEASE(val);
    if (size == 0 || size > (1u << 20) || s->me.rank >= size) {
        gk__error("bootstrap (PMIx): job size %u and rank %u make no job", size, s->me.rank);
        pmix_fini(boot);
        return GK_ERR_BOOT;
    }
    boot->rank = (int)s->me.rank;
    boot->size = (int)size;

    struct pmix_hello mine = {.pid = (int32_t)getpid()};
    if (boot->rank == 0) {
        unsigned char key[16];
        if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
            /* Still joins the exchange, which then fails on every PE. */
            gk__error("bootstrap: getrandom() failed; cannot name the segments");
        } else {
            for (size_t i = 0; i < sizeof(key); i++)
                snprintf(mine.job_key + 2 * i, 3, "%02x", key[i]);
        }
    }
    struct pmix_hello *all = calloc(size, sizeof(*all));
    s->pids = calloc(size, sizeof(*s->pids));
    if (all == NULL || s->pids == NULL) {
        /* The other PEs wait in the exchange: end the job. */
        gk__error("bootstrap (PMIx): out of memory for %u PEs", size);
        pmix_abort(boot, 1, "out of memory during start-up");
        free(all);
        pmix_fini(boot);
        return GK_ERR_NOMEM;
    }
    int status = pmix_allgather(boot, &mine, all, sizeof(mine));
    if (status == GK_OK && strlen(all[0].job_key) != 32) {
        gk__error("bootstrap (PMIx): PE 0 could not name the job's segments");
        status = GK_ERR_BOOT;
    }
    if (status == GK_OK) {
        snprintf(boot->job_key, sizeof(boot->job_key), "%s", all[0].job_key);
        for (uint32_t pe = 0; pe < size; pe++)
            s->pids[pe] = (pid_t)all[pe].pid;
    }
    free(all);
    if (status != GK_OK)
        pmix_fini(boot);
    return status;
}

const char *gk__boot_pmix_version(void)
{
    return PMIx_Get_version();
}

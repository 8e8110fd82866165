/*
 * boot.c: picks the bootstrap back end and builds the node map from an
 * exchange of host identities, so every back end gets node locality the same
 * way.
 */
#include "boot/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "gasket.h"

/* What identifies a node: the host name and the kernel's boot id, so two
 * containers with the same host name on different machines differ. */
struct boot_node_card {
    char host[64];
    char boot_id[40];
};

static void boot_node_card_fill(struct boot_node_card *card)
{
    memset(card, 0, sizeof(*card));
    gethostname(card->host, sizeof(card->host) - 1);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f != NULL) {
        if (fgets(card->boot_id, sizeof(card->boot_id), f) == NULL)
            card->boot_id[0] = '\0';
        fclose(f);
    }
}

static int boot_build_node_map(struct gk__boot *boot)
{
    struct boot_node_card mine;
    boot_node_card_fill(&mine);
    struct boot_node_card *cards = calloc((size_t)boot->size, sizeof(*cards));
    boot->node_id = calloc((size_t)boot->size, sizeof(int));
    if (cards == NULL || boot->node_id == NULL) {
        free(cards);
        gk__error("bootstrap: out of memory for the node map of %d PEs", boot->size);
        return GK_ERR_NOMEM;
    }
    int status = gk__boot_allgather(boot, &mine, cards, sizeof(mine));
    if (status == GK_OK) {
        boot->node_size = 0;
        for (int pe = 0; pe < boot->size; pe++) {
            int first = pe;
            for (int other = 0; other < pe; other++) {
                if (memcmp(&cards[other], &cards[pe], sizeof(cards[pe])) == 0) {
                    first = other;
                    break;
                }
            }
            boot->node_id[pe] = first;
        }
        for (int pe = 0; pe < boot->size; pe++) {
            if (boot->node_id[pe] == boot->node_id[boot->rank]) {
                if (pe == boot->rank)
                    boot->node_index = boot->node_size;
                boot->node_size++;
            }
        }
    }
    free(cards);
    return status;
}

static gk__boot_open_fn boot_external_open;
static void *boot_external_arg;

void gk__boot_use_external(gk__boot_open_fn open, void *arg)
{
    boot_external_open = open;
    boot_external_arg = arg;
}

/*
 * Without gasket-run or PMIx a program is a job of one PE. Started by
 * another launcher as one of several processes (MPICH's mpiexec on a
 * plain gk_init() program, or srun and mpirun where gasket was built
 * without PMIx), each process would quietly be "PE 0 of 1", all doing the
 * same work: refuse, and say what to do instead. The variables are the
 * process counts Open MPI's, Hydra's (MPICH, Intel MPI) and Slurm's
 * launchers set; a count of 1 is a singleton either way.
 */
static int boot_refuse_foreign_launcher(void)
{
    static const char *const counts[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        const char *value = getenv(counts[i]);
        char *end = NULL;
        long n = value != NULL ? strtol(value, &end, 10) : 0;
        if (value == NULL || end == value || n <= 1)
            continue;
        gk__error("gk_init: this process was started by another launcher as one of %ld "
                  "processes (%s=%s), not by gasket-run nor through PMIx: on its own it "
                  "would be a separate job of 1 PE. Start the program with gasket-run -n %ld%s, "
                  "or, in an MPI program, call gk_init_mpi() from libgasket_mpi after "
                  "MPI_Init()",
                  n, counts[i], value, n,
                  GK__BOOT_HAVE_PMIX ? ", srun --mpi=pmix or Open MPI's mpirun"
                                     : " (this gasket was built without PMIx, which srun and "
                                       "mpirun need)");
        return GK_ERR_BOOT;
    }
    return GK_OK;
}

const char *gk__boot_kind_name(enum gk__boot_kind kind)
{
    static const char *const names[] = {"launcher", "pmix", "single"};
    return kind >= GK__BOOT_LAUNCHER && kind <= GK__BOOT_SINGLE ? names[kind] : "invalid";
}

/* The back end GK_BOOTSTRAP names, or that the environment implies. */
enum gk__boot_kind gk__boot_choose(const char **why_p)
{
    const char *forced = gk__config_getenv(NULL, "BOOTSTRAP");
    if (forced != NULL && strcmp(forced, "auto") != 0) {
        for (int k = GK__BOOT_LAUNCHER; k <= GK__BOOT_SINGLE; k++) {
            if (strcmp(forced, gk__boot_kind_name((enum gk__boot_kind)k)) == 0) {
                *why_p = "GK_BOOTSTRAP says so";
                return (enum gk__boot_kind)k;
            }
        }
        *why_p = forced;
        return GK__BOOT_INVALID;
    }
    if (gk__config_getenv(NULL, "BOOT_FD") != NULL) {
        *why_p = "GK_BOOT_FD is set: started by gasket-run";
        return GK__BOOT_LAUNCHER;
    }
    if (getenv("PMIX_RANK") != NULL && getenv("PMIX_NAMESPACE") != NULL) {
        *why_p = "PMIX_RANK is set: started by a PMIx launcher";
        return GK__BOOT_PMIX;
    }
    *why_p = "no launcher in the environment";
    return GK__BOOT_SINGLE;
}

static int boot_open_chosen(struct gk__boot *boot)
{
    const char *why = NULL;
    switch (gk__boot_choose(&why)) {
    case GK__BOOT_LAUNCHER:
        return gk__boot_launcher_open(boot);
    case GK__BOOT_PMIX:
#if GK__BOOT_HAVE_PMIX
        return gk__boot_pmix_open(boot);
#else
        gk__error("bootstrap: GK_BOOTSTRAP=pmix, but this gasket was built without PMIx "
                  "(libpmix-dev)");
        return GK_ERR_BOOT;
#endif
    case GK__BOOT_SINGLE: {
        int status = boot_refuse_foreign_launcher();
        return status == GK_OK ? gk__boot_single_open(boot) : status;
    }
    default:
        gk__error("bootstrap: GK_BOOTSTRAP=%s is not auto, launcher, pmix or single", why);
        return GK_ERR_CONFIG;
    }
}

int gk__boot_init(struct gk__boot *boot)
{
    memset(boot, 0, sizeof(*boot));
    boot->fd = -1;
    int status;
    if (boot_external_open != NULL) {
        gk__boot_open_fn open = boot_external_open;
        boot_external_open = NULL; /* once: a failed start does not stick */
        status = open(boot, boot_external_arg);
    } else {
        status = boot_open_chosen(boot);
    }
    if (status != GK_OK)
        return status;
    gk__log_set_pe(boot->rank);
    status = boot_build_node_map(boot);
    if (status != GK_OK)
        gk__boot_fini(boot);
    return status;
}

void gk__boot_fini(struct gk__boot *boot)
{
    if (boot->ops != NULL)
        boot->ops->fini(boot);
    free(boot->node_id);
    boot->node_id = NULL;
    boot->ops = NULL;
}

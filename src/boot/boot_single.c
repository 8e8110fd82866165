/*
 * boot_single.c: the bootstrap back end for a program started without a
 * launcher: one PE, exchanges are copies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/log.h"
#include "boot/boot.h"
#include "gasket.h"

static int single_allgather(struct gk__boot *boot, const void *mine, void *all,
                            size_t len)
{
    if (len > 0)
        memcpy(all, mine, len);
    return GK_OK;
}

static int single_finalize(struct gk__boot *boot)
{
    return GK_OK;
}

static void single_abort(struct gk__boot *boot, int exit_code, const char *why)
{
}

static int single_check_alive(struct gk__boot *boot)
{
    return GK_OK;
}

static void single_fini(struct gk__boot *boot)
{
}

static const struct gk__boot_ops single_ops = {
    .name = "single",
    .allgather = single_allgather,
    .finalize = single_finalize,
    .abort = single_abort,
    .check_alive = single_check_alive,
    .fini = single_fini,
};

int gk__boot_single_open(struct gk__boot *boot)
{
    unsigned char key[16];
    if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
        gk__error("bootstrap: getrandom() failed; cannot name the segment");
        return GK_ERR_SYSTEM;
    }
    for (size_t i = 0; i < sizeof(key); i++)
        snprintf(boot->job_key + 2 * i, 3, "%02x", key[i]);
    boot->ops = &single_ops;
    boot->rank = 0;
    boot->size = 1;
    return GK_OK;
}

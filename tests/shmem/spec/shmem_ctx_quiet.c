/*
 * shmem_ctx_quiet.c: the specification's pipelined reduction on two
 * contexts: each stage's puts go out on one context while the previous
 * stage, completed by quieting the other context and a sync, is summed.
 * Every element of the result is the sum of the PEs' numbers. The
 * example lets a PE put stage p + 1 into the buffer a slower PE may
 * still be summing stage p - 1 from; a second sync after each sum closes
 * that race (the next stage's puts still overlap the sum).
 */
#include "spec_check.h"

#define LEN 8192
#define PLEN 512

static int in_buf[LEN], out_buf[LEN];

static void accumulate(int *pbuf, int stage, int npes)
{
    for (int i = 0; i < npes; i++)
        for (int j = 0; j < PLEN; j++)
            out_buf[PLEN * stage + j] += pbuf[PLEN * i + j];
}

int main(void)
{
    int *pbuf[2];
    shmem_ctx_t ctx[2];

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    pbuf[0] = shmem_malloc(PLEN * npes * sizeof(int));
    pbuf[1] = shmem_malloc(PLEN * npes * sizeof(int));
    SPEC_CHECK(shmem_ctx_create(0, &ctx[0]), 0);
    SPEC_CHECK(shmem_ctx_create(0, &ctx[1]), 0);
    for (int i = 0; i < LEN; i++) {
        in_buf[i] = me;
        out_buf[i] = 0;
    }

    int p_idx = 0, p = 0;
    for (int i = 1; i <= npes; i++)
        shmem_put_nbi(ctx[p_idx], &pbuf[p_idx][PLEN * me], &in_buf[PLEN * p], PLEN,
                      (me + i) % npes);
    for (p = 1; p < LEN / PLEN; p++) {
        p_idx ^= 1;
        for (int i = 1; i <= npes; i++)
            shmem_put_nbi(ctx[p_idx], &pbuf[p_idx][PLEN * me], &in_buf[PLEN * p], PLEN,
                          (me + i) % npes);
        shmem_ctx_quiet(ctx[p_idx ^ 1]);
        shmem_sync_all();
        accumulate(pbuf[p_idx ^ 1], p - 1, npes);
        shmem_sync_all();
    }
    shmem_ctx_quiet(ctx[p_idx]);
    shmem_sync_all();
    accumulate(pbuf[p_idx], p - 1, npes);

    for (int i = 0; i < LEN; i++)
        SPEC_CHECK(out_buf[i], npes * (npes - 1) / 2);
    shmem_ctx_destroy(ctx[0]);
    shmem_ctx_destroy(ctx[1]);
    shmem_free(pbuf[0]);
    shmem_free(pbuf[1]);
    shmem_finalize();
    return 0;
}

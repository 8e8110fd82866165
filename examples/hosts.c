/*
 * hosts.c: a job that spans hosts. Every PE says which host it runs on and
 * which PEs it can reach with plain loads and stores (gk_ptr gives a
 * pointer only for PEs of its own host); then each PE passes its number to
 * its right neighbour with a signaling put, across hosts where the ring
 * crosses one, and checks what its left neighbour sent.
 *
 *   gasket-run -n 4 --hosts 2 ./hosts
 */
#include <gasket.h>
#include <stdio.h>
#include <unistd.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != GK_OK) {                                                \
            fprintf(stderr, "%s failed: %s\n", #call, gk_strerror(status_));   \
            gk_abort(1, #call);                                                \
        }                                                                      \
    } while (0)

int main(void)
{
    CHECK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    uint64_t *from_left = gk_calloc(1, sizeof(uint64_t));
    uint64_t *signal = gk_calloc(1, sizeof(uint64_t));
    if (from_left == NULL || signal == NULL)
        gk_abort(1, "out of symmetric heap");

    char host[64] = "?";
    gethostname(host, sizeof(host) - 1);
    int mapped = 0;
    for (int pe = 0; pe < npes; pe++)
        mapped += gk_ptr(from_left, pe) != NULL;
    printf("PE %d of %d on host %s: %d PE(s) on this host, %d through the network\n", me,
           npes, host, mapped, npes - mapped);

    /* The value, then the signal word, in one call: the receiver waits on
     * the signal alone and finds the value there when it changes. */
    uint64_t mine = 100 + (uint64_t)me;
    CHECK(gk_put_signal(right, from_left, &mine, sizeof(mine), signal, 1, GK_SIGNAL_SET));
    CHECK(gk_wait_until_u64(signal, GK_CMP_EQ, 1));
    int ok = *from_left == 100 + (uint64_t)left;
    printf("PE %d got %llu from PE %d (%s): %s\n", me, (unsigned long long)*from_left, left,
           gk_ptr(from_left, left) != NULL ? "same host" : "another host",
           ok ? "ok" : "WRONG");

    CHECK(gk_barrier());
    gk_free(signal);
    gk_free(from_left);
    CHECK(gk_finalize());
    return ok ? 0 : 1;
}

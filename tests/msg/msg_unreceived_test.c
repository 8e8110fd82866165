/*
 * msg_unreceived_test: two-sided messages nobody receives, and sends to
 * oneself with no receive posted.
 *
 *   msg_unreceived_test self   blocking sends to this PE, eager and far
 *                              above the eager limit, complete before any
 *                              receive is posted; the receives then get
 *                              every byte, in order
 *   msg_unreceived_test lost   every PE but 0 sends PE 0 an eager message
 *                              (tag 5) and starts a large gk_isend (tag 7)
 *                              that PE 0 never receives: gk_finalize returns
 *                              GK_ERR_UNRECEIVED on PE 0, naming sender, tag
 *                              and size of each, and on each sender, saying
 *                              how many were lost; other PEs' finalize is
 *                              clean
 */
#include "pe_check.h"

#define BIG ((size_t)1 << 20)

static void fill(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(i * 7 + seed);
}

static void self_sends(void)
{
    int me = gk_my_pe();
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    CHECK_NOT_NULL(out);
    CHECK_NOT_NULL(in);
    /* More eager messages than an inbox holds, then two large ones: each
     * gk_send returns with no receive posted. */
    for (int i = 0; i < 1000; i++)
        CHECK_OK(gk_send(me, 1, &i, sizeof(i)));
    fill(out, BIG, 1);
    CHECK_OK(gk_send(me, 2, out, BIG));
    fill(out, BIG, 2); /* the first is a copy: changing the buffer is safe */
    gk_request_t *req = NULL;
    CHECK_OK(gk_isend(me, 2, out, BIG, &req));
    CHECK_OK(gk_request_wait(&req, NULL));
    for (int i = 0; i < 1000; i++) {
        int got = -1;
        CHECK_OK(gk_recv(me, 1, &got, sizeof(got), NULL));
        CHECK_EQ(got, i);
    }
    for (unsigned seed = 1; seed <= 2; seed++) {
        gk_msg_status_t status;
        memset(in, 0, BIG);
        CHECK_OK(gk_recv(GK_ANY_SOURCE, 2, in, BIG, &status));
        CHECK_EQ(status.source, me);
        CHECK_EQ_U64(status.nbytes, BIG);
        fill(out, BIG, seed);
        CHECK_EQ(memcmp(in, out, BIG), 0);
    }
    free(out);
    free(in);
    CHECK_OK(gk_finalize());
}

static void lost_messages(void)
{
    int me = gk_my_pe(), npes = gk_n_pes();
    unsigned char *big = calloc(1, BIG);
    CHECK_NOT_NULL(big);
    gk_request_t *req = NULL;
    if (me != 0) {
        uint64_t word = 42;
        CHECK_OK(gk_send(0, 5, &word, sizeof(word)));
        CHECK_OK(gk_isend(0, 7, big, BIG, &req)); /* never matched */
    }
    gk_capture_begin();
    int status = gk_finalize();
    const char *log = gk_capture_end();
    CHECK_EQ(status, GK_ERR_UNRECEIVED);
    if (me == 0) {
        for (int src = 1; src < npes && src <= 4; src++) {
            char eager[128], rndv[128];
            snprintf(eager, sizeof(eager), "message from PE %d (tag 5, 8 bytes)", src);
            snprintf(rndv, sizeof(rndv), "message from PE %d (tag 7, %zu bytes", src, BIG);
            if (strstr(log, eager) == NULL || strstr(log, rndv) == NULL)
                PE_FAIL("finalize's report misses PE %d's messages:\n%s", src, log);
        }
    } else if (strstr(log, "2 messages this PE sent were never received") == NULL) {
        PE_FAIL("finalize's report on a sender:\n%s", log);
    }
    gk_capture_echo(log);
    free(req); /* the unmatched send's request: the library no longer runs */
    free(big);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "self") != 0 && strcmp(argv[1], "lost") != 0)) {
        fprintf(stderr, "usage: %s self|lost\n", argv[0]);
        return 2;
    }
    CHECK_OK(gk_init());
    if (strcmp(argv[1], "self") == 0)
        self_sends();
    else if (gk_n_pes() > 1)
        lost_messages();
    else
        CHECK_OK(gk_finalize());
    return 0;
}

/*
 * msg_test: two-sided messages. Sizes 0, 1, the eager limit and one byte
 * more, 1 MiB and 16 MiB, from private memory and from the symmetric heap,
 * data checked; isend/irecv with wait, test and wait_all; wildcards (the
 * status says who and which tag); non-overtaking order between a pair with
 * eager and rendezvous sizes mixed; probe and iprobe; truncation for an
 * eager and a rendezvous message; 10,000 messages sent before any receive
 * is posted; and the errors.
 */
#include "pe_check.h"

static unsigned char pattern(size_t i, int from, int salt)
{
    return (unsigned char)(i * 7 + (size_t)from * 13 + (size_t)salt);
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t eager = gk_msg_eager_limit();
    /* 1-16 bytes take every branch of the small copy (net/shm_ring.h); 16
     * and 17 end on either side of the slot's first line, 272 and 273 on
     * either side of its header (an eager message's one argument, then its
     * data, net/shm_ring.h). */
    size_t one_mib = (size_t)1 << 20, sixteen_mib = (size_t)16 << 20;
    size_t sizes[] = {0,   1,   2,     5,         8,       11,         16,
                      17,  100, 272,   273,       eager,   eager + 1,  one_mib,
                      sixteen_mib};
    unsigned char *heap_buf = gk_malloc((size_t)16 << 20);
    CHECK_NOT_NULL(heap_buf);
    for (int in_heap = 0; in_heap < 2; in_heap++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            size_t n = sizes[s];
            unsigned char *out = in_heap ? heap_buf : malloc(n + 1);
            unsigned char *in = malloc(n + 1);
            CHECK_NOT_NULL(out);
            CHECK_NOT_NULL(in);
            for (size_t i = 0; i < n; i++)
                out[i] = pattern(i, me, (int)s);
            gk_request_t *rq = NULL, *sq = NULL;
            gk_msg_status_t st;
            CHECK_OK(gk_irecv(left, 5, in, n, &rq));
            CHECK_OK(gk_isend(right, 5, out, n, &sq));
            int done = 0;
            while (!done)
                CHECK_OK(gk_request_test(&sq, &done, NULL));
            CHECK_NULL(sq);
            CHECK_OK(gk_request_wait(&rq, &st));
            CHECK_EQ(st.source, left);
            CHECK_EQ(st.tag, 5);
            CHECK_EQ(st.nbytes, n);
            CHECK_EQ(st.error, GK_OK);
            for (size_t i = 0; i < n; i++)
                if (in[i] != pattern(i, left, (int)s))
                    CHECK_EQ(in[i], pattern(i, left, (int)s));
            free(in);
            if (!in_heap)
                free(out);
            CHECK_OK(gk_barrier()); /* heap_buf is reused */
        }
    }

    /* Order between a pair, eager and rendezvous mixed, wildcard receive.
     * The sends are non-blocking (a blocking send of a rendezvous size
     * waits for its receive, as MPI_Send may), each from its own buffer. */
    enum { ORDERED = 40 };
    unsigned char *big = malloc(eager * 4);
    unsigned char *outs = malloc((size_t)ORDERED * eager * 3);
    CHECK_NOT_NULL(big);
    CHECK_NOT_NULL(outs);
    gk_request_t *sends[ORDERED];
    for (int i = 0; i < ORDERED; i++) {
        size_t n = i % 3 == 0 ? eager * 3 : 8;
        unsigned char *out = outs + (size_t)i * eager * 3;
        memset(out, i, n);
        CHECK_OK(gk_isend(right, 100 + i % 5, out, n, &sends[i]));
    }
    unsigned char *got = malloc(eager * 4);
    CHECK_NOT_NULL(got);
    for (int i = 0; i < ORDERED; i++) {
        gk_msg_status_t st;
        CHECK_OK(gk_probe(GK_ANY_SOURCE, GK_ANY_TAG, &st));
        size_t n = i % 3 == 0 ? eager * 3 : 8;
        CHECK_EQ(st.nbytes, n);
        CHECK_OK(gk_recv(GK_ANY_SOURCE, GK_ANY_TAG, got, eager * 4, &st));
        CHECK_EQ(st.source, left);
        CHECK_EQ(st.tag, 100 + i % 5);
        CHECK_EQ(st.nbytes, n);
        CHECK_EQ(got[0], (unsigned char)i);
        CHECK_EQ(got[n - 1], (unsigned char)i);
    }
    CHECK_OK(gk_request_wait_all(sends, ORDERED, NULL));
    free(outs);
    CHECK_OK(gk_barrier());

    /* Truncation: eager and rendezvous. */
    {
        unsigned char small[16];
        gk_msg_status_t st;
        memset(big, 0x5a, eager * 3);
        gk_request_t *rq = NULL;
        CHECK_OK(gk_irecv(left, 9, small, sizeof(small), &rq));
        CHECK_OK(gk_send(right, 9, big, 100));
        CHECK_STATUS(gk_request_wait(&rq, &st), GK_ERR_TRUNCATE);
        CHECK_EQ(st.error, GK_ERR_TRUNCATE);
        CHECK_EQ(st.nbytes, 100);
        CHECK_EQ(small[15], 0x5a);
        CHECK_OK(gk_irecv(left, 10, small, sizeof(small), &rq));
        CHECK_OK(gk_send(right, 10, big, eager * 3));
        CHECK_STATUS(gk_request_wait(&rq, &st), GK_ERR_TRUNCATE);
        CHECK_EQ(st.nbytes, eager * 3);
    }
    CHECK_OK(gk_barrier());

    /* 10,000 unexpected messages: all sent before any receive is posted. */
    enum { UNEXPECTED = 10000 };
    for (int i = 0; i < UNEXPECTED; i++)
        CHECK_OK(gk_send(right, 3, &i, sizeof(i)));
    int found = 0;
    gk_msg_status_t st;
    CHECK_OK(gk_barrier());
    CHECK_OK(gk_iprobe(left, 3, &found, &st));
    CHECK_EQ(found, 1);
    CHECK_OK(gk_iprobe(left, 4, &found, &st));
    CHECK_EQ(found, 0);
    for (int i = 0; i < UNEXPECTED; i++) {
        int v = -1;
        CHECK_OK(gk_recv(left, 3, &v, sizeof(v), NULL));
        CHECK_EQ(v, i);
    }
    CHECK_OK(gk_barrier());

    /* Errors. */
    CHECK_LOGGED(GK_ERR_PE, gk_send(npes, 1, big, 8), "PE");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_send(right, -5, big, 8), "tag -5");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_recv(left, -7, big, 8, NULL), "tag -7");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_send(right, 1, NULL, 8), "buf");
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_isend(right, 1, big, 8, NULL), "request_p");
    gk_request_t *none = NULL;
    CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_request_wait(&none, NULL), "live request");
    free(got);
    free(big);
    gk_free(heap_buf);
    return gk_finalize() == GK_OK ? 0 : 1;
}

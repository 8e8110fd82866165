/*
 * coll_check_test: GK_COLL_CHECK=1 (the CMake test sets it). Broadcasts
 * whose PEs disagree on the root, the size or the radix, or where one PE's
 * arguments fail their checks, end with an error and a message on every PE
 * (without the check, the first would hang); a broadcast after each, in
 * step again, delivers the right bytes.
 */
#include "pe_check.h"

static void check_good_broadcast(int me, int root)
{
    unsigned char buf[64];
    for (int i = 0; i < 64; i++)
        buf[i] = me == root ? (unsigned char)(i * 3 + root) : 0;
    CHECK_OK(gk_broadcast(buf, buf, sizeof(buf), root));
    for (int i = 0; i < 64; i++)
        CHECK_EQ(buf[i], (unsigned char)(i * 3 + root));
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    unsigned char buf[64] = {0};
    if (npes >= 2) {
        int root = me == npes - 1 ? 1 : 0;
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_broadcast(buf, buf, 8, root), "gk_broadcast",
                     "different roots", "from 0 to 1", pe_fmt("this PE %d", root));
        check_good_broadcast(me, 0);
        size_t size = me == 0 ? 16 : 8;
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_broadcast(buf, buf, size, 0), "gk_broadcast",
                     "different sizes", "from 8 to 16");
        check_good_broadcast(me, npes - 1);
        CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_broadcast_radix(buf, buf, 8, 0, me == 1 ? 3 : 2),
                     "gk_broadcast", "different radices", "from 2 to 3");
        if (me == 1)
            CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_broadcast(NULL, buf, 8, 0), "gk_broadcast",
                         "dst");
        else
            CHECK_LOGGED(GK_ERR_INVALID_ARG, gk_broadcast(buf, buf, 8, 0), "gk_broadcast",
                         "another PE");
        if (me == 0)
            CHECK_LOGGED(GK_ERR_PE, gk_broadcast(buf, buf, 8, npes), "gk_broadcast");
        else
            CHECK_LOGGED(GK_ERR_PE, gk_broadcast(buf, buf, 8, 0), "gk_broadcast",
                         "another PE");
    }
    check_good_broadcast(me, 0);
    CHECK_OK(gk_finalize());
    if (me == 0)
        printf("coll_check_test: %d PEs ok\n", npes);
    return 0;
}

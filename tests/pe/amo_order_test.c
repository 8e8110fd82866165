/*
 * amo_order_test: an atomic is ordered after the calling PE's earlier puts
 * to the same PE, with no fence between them (gasket.h, "Atomics").
 *
 * Each PE is the producer of its right neighbour and the consumer of its
 * left one. Round r: the producer puts a block into slot r % SLOTS of the
 * right neighbour, then raises that neighbour's flag to r with an atomic;
 * the consumer waits for its flag to reach r and must find the whole block
 * of round r in the slot, then acknowledges with an atomic on the
 * producer's ack word, which lets the producer reuse the slot. The rounds
 * cycle through the kinds of put (blocking, nbi, nb, value, context) and
 * of atomic (every form that can raise the flag to r, fetching or not,
 * plain and context), and through block sizes from one word to 256 KiB, so
 * that between hosts the block and the flag travel on different lanes.
 */
#include "pe_check.h"

#define SLOTS 4
#define MAX_BYTES (256 * 1024)
#define ROUNDS 600

static const size_t sizes[] = {8, 64, 4096, 65536, MAX_BYTES};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

enum put_kind { PUT, PUT_NBI, PUT_NB, PUT_VALUE, PUT_CTX, N_PUT_KINDS };
enum amo_kind {
    AMO_ADD,
    AMO_FETCH_ADD,
    AMO_SET,
    AMO_SWAP,
    AMO_CSWAP,
    AMO_XOR,
    AMO_FETCH_XOR,
    AMO_CTX_ADD,
    AMO_CTX_SET,
    N_AMO_KINDS
};

static uint64_t word_of(uint64_t round, size_t i)
{
    return round << 32 | (uint64_t)i;
}

/*
 * Raises the flag on pe from round - 1 to round. Only puts are ordered
 * before an atomic without a fence: a non-fetching atomic is fenced from
 * the next round's, which must find it applied.
 */
static void raise_flag(gk_ctx_t *ctx, enum amo_kind kind, int pe, uint64_t *flag,
                       uint64_t round)
{
    uint64_t old = 0;
    switch (kind) {
    case AMO_ADD:
        CHECK_OK(gk_atomic_add_u64(pe, flag, 1));
        break;
    case AMO_FETCH_ADD:
        CHECK_OK(gk_atomic_fetch_add_u64(pe, flag, 1, &old));
        break;
    case AMO_SET:
        CHECK_OK(gk_atomic_set_u64(pe, flag, round));
        break;
    case AMO_SWAP:
        CHECK_OK(gk_atomic_swap_u64(pe, flag, round, &old));
        break;
    case AMO_CSWAP:
        CHECK_OK(gk_atomic_compare_swap_u64(pe, flag, round - 1, round, &old));
        break;
    case AMO_XOR:
        CHECK_OK(gk_atomic_xor_u64(pe, flag, round ^ (round - 1)));
        break;
    case AMO_FETCH_XOR:
        CHECK_OK(gk_atomic_fetch_xor_u64(pe, flag, round ^ (round - 1), &old));
        CHECK_EQ_U64(old, round - 1);
        return;
    case AMO_CTX_ADD:
        CHECK_OK(gk_ctx_atomic_add_u64(ctx, pe, flag, 1));
        CHECK_OK(gk_ctx_fence(ctx));
        return;
    case AMO_CTX_SET:
        CHECK_OK(gk_ctx_atomic_set_u64(ctx, pe, flag, round));
        CHECK_OK(gk_ctx_fence(ctx));
        return;
    default:
        PE_FAIL("atomic kind %d", (int)kind);
    }
    if (kind == AMO_FETCH_ADD || kind == AMO_SWAP || kind == AMO_CSWAP)
        CHECK_EQ_U64(old, round - 1);
    else
        CHECK_OK(gk_fence());
}

int main(void)
{
    CHECK_OK(gk_init());
    int me = gk_my_pe(), npes = gk_n_pes();
    if (npes < 2) {
        CHECK_OK(gk_finalize());
        return 0;
    }
    int right = (me + 1) % npes;
    uint64_t *slots = gk_calloc(SLOTS, MAX_BYTES);
    uint64_t *flag = gk_calloc(1, sizeof(uint64_t));
    uint64_t *ack = gk_calloc(1, sizeof(uint64_t));
    uint64_t *src = malloc((size_t)SLOTS * MAX_BYTES);
    CHECK_TRUE(slots != NULL && flag != NULL && ack != NULL && src != NULL);
    gk_ctx_t *ctx = NULL;
    CHECK_OK(gk_ctx_create(GK_CTX_PRIVATE, &ctx));
    CHECK_OK(gk_barrier());

    const size_t slot_words = MAX_BYTES / sizeof(uint64_t);
    for (uint64_t round = 1; round <= ROUNDS; round++) {
        /* Every put kind with every atomic kind and every size. */
        enum put_kind pk = (enum put_kind)(round % N_PUT_KINDS);
        enum amo_kind ak = (enum amo_kind)(round / N_PUT_KINDS % N_AMO_KINDS);
        size_t n = sizes[round / (N_PUT_KINDS * N_AMO_KINDS) % N_SIZES];
        size_t slot = round % SLOTS, words = n / sizeof(uint64_t);

        /* Producer: the slot is free once the right neighbour has checked
         * the round that last used it. */
        if (round > SLOTS)
            CHECK_OK(gk_wait_until_u64(ack, GK_CMP_GE, round - SLOTS));
        uint64_t *from = src + slot * slot_words, *to = slots + slot * slot_words;
        for (size_t i = 0; i < words; i++)
            from[i] = word_of(round, i);
        gk_handle_t handle = GK_HANDLE_NULL;
        switch (pk) {
        case PUT:
            CHECK_OK(gk_put(right, to, from, n));
            break;
        case PUT_NBI:
            CHECK_OK(gk_put_nbi(right, to, from, n));
            break;
        case PUT_NB:
            CHECK_OK(gk_put_nb(right, to, from, n, &handle));
            break;
        case PUT_VALUE: /* the block but its last word, then that word */
            if (words > 1)
                CHECK_OK(gk_put(right, to, from, n - sizeof(uint64_t)));
            CHECK_OK(gk_put_u64(right, &to[words - 1], from[words - 1]));
            break;
        case PUT_CTX:
            CHECK_OK(gk_ctx_put(ctx, right, to, from, n));
            break;
        default:
            PE_FAIL("put kind %d", (int)pk);
        }
        raise_flag(ctx, ak, right, flag, round);

        /* Consumer: the left neighbour's round. */
        CHECK_OK(gk_wait_until_u64(flag, GK_CMP_GE, round));
        const uint64_t *got = slots + slot * slot_words;
        for (size_t i = 0; i < words; i++) {
            if (got[i] != word_of(round, i))
                PE_FAIL("round %llu (put kind %d, atomic kind %d, %zu bytes): the flag came "
                        "before the data: word %zu is %#llx, expected %#llx",
                        (unsigned long long)round, (int)pk, (int)ak, n, i,
                        (unsigned long long)got[i], (unsigned long long)word_of(round, i));
        }
        CHECK_OK(gk_atomic_add_u64((me + npes - 1) % npes, ack, 1));
        /* The nb put's source is ours again once the flag told its target. */
        if (pk == PUT_NB)
            CHECK_OK(gk_handle_wait(&handle));
    }
    CHECK_OK(gk_quiet());
    CHECK_OK(gk_barrier());
    CHECK_EQ_U64(*flag, ROUNDS);
    CHECK_EQ_U64(*ack, ROUNDS);
    CHECK_OK(gk_ctx_destroy(ctx));
    free(src);
    gk_free(ack);
    gk_free(flag);
    gk_free(slots);
    CHECK_OK(gk_finalize());
    return 0;
}

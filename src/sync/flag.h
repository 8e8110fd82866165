/*
 * flag.h: flags that only their target reads, and waits for, on words of
 * the caller's choosing (the OpenSHMEM layer's team barriers, whose counts
 * live in pSync or the team's sync words): an atomic that owes this PE's
 * quiet nothing (net/net.h, GK__NET_POST_AWAITED).
 */
#ifndef GK_SYNC_FLAG_H
#define GK_SYNC_FLAG_H

#include <stdint.h>

/*
 * Adds `value` to the 64-bit word at `word` on PE pe, with pe's wake-up
 * check, as gk_atomic_add_u64() does, for a word that only pe reads and
 * that pe waits for before it goes on: to another host it goes as one
 * message that gk_quiet does not wait for (its landing is that wait's
 * business). Checked as gk_atomic_add_u64() is, errors named after `op`.
 */
int gk__flag_add_u64(const char *op, int pe, uint64_t *word, uint64_t value);

#endif /* GK_SYNC_FLAG_H */

/*
 * coll_signal.h: the signaling put the runtime's own all-reduce steps are
 * made of (core/allreduce.c: the votes of gk_malloc and its kind,
 * gk_finalize's counts): data into a peer's all-reduce scratch (a region
 * of its segment),
 * then a signal word with the sender's collective call beside it; and the
 * receiver's wait for that word. Both go through the peer's transport when
 * it is not mapped here (net/net.h).
 */
#ifndef GK_CORE_COLL_SIGNAL_H
#define GK_CORE_COLL_SIGNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A signal word on a line of its own. Beside it, the sender's collective
 * call (core/coll_check.h) and PE number, written before the signal: the
 * receiver checks that the message belongs to the call it is in. A line
 * is rewritten only once its owner is done with the last signal (the
 * collectives' flow control), so what lies beside a signal is its own.
 * Signal words hold sequence numbers that only grow, so they never need
 * resetting (as the barrier's flags).
 */
struct gk__coll_line {
    _Alignas(64) _Atomic uint64_t value;
    _Atomic uint64_t coll;
    _Atomic uint64_t from_pe;
};

/*
 * Copies n bytes into PE pe's scratch at data_offset, then sets the signal
 * word at signal_offset (the value of a struct gk__coll_line) to `seq`
 * (release, with the wake-up), our collective call beside it.
 */
int gk__coll_put_signal(int pe, size_t data_offset, const void *src, size_t n,
                        size_t signal_offset, uint64_t seq);

/* Waits until my signal word (a struct gk__coll_line's value) reaches seq
 * (acquire), and checks that its sender is in our collective call. */
int gk__coll_wait_signal(_Atomic uint64_t *signal, uint64_t seq);

#endif /* GK_CORE_COLL_SIGNAL_H */

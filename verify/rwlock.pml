/*
 * rwlock.pml: a Promela model of gasket's FIFO reader/writer lock, exactly
 * the protocol of src/win/rwlock.c (read its top comment first), for N = 3
 * PEs contending for one lock. Checked with Spin by verify/check-model.
 *
 * What is modelled, step by step as the C code does it:
 *   - The lock word's fields A, B, H, T. Each compare-and-swap loop of the
 *     C code (request_word, the no-successor release) linearizes at its
 *     successful CAS, so it is one atomic step here that computes the new
 *     word from the current one; fetch-adds are atomic steps too.
 *   - Every put is asynchronous: a PE's puts go into its own FIFO channel
 *     (the C code orders each notification after what came before it) and
 *     a delivery process applies them whenever it likes. A flush waits
 *     until the PE's channel is empty.
 *   - Each PE's node: `granted` (flag and the H value it carries), `next`
 *     (successor and its group size), its wait-for slots, and `h_seen`.
 *   - The data the lock protects: a counter on the target that a writer
 *     reads (a get: synchronous) and writes back plus one with a put
 *     (asynchronous), flushed before the release.
 *
 * Properties: mutual exclusion (a writer alone, readers only without a
 * writer: assertions at entry), no lost update (the counter equals the
 * number of writer sections at the end), writers granted in the order
 * their enqueue hit the word (a ticket taken in that atomic step), a
 * reader that asked behind a writer entering only after it (writers are
 * not starved), and no deadlock (Spin's invalid end states: every PE
 * finishes its rounds, and the lock word is free at the end).
 *
 * Cases (-D): ALL_WRITERS (3 writers), ONE_WRITER_TWO_READERS, or
 * TWO_WRITERS_ONE_READER (the only case that reaches the hand-over to a
 * writer behind a reader group: next = (Y, b > 0), the fetch-add that
 * moves H from a stale value to Y, and admit_group from that path).
 * Mutants, each must fail:
 *   MUTANT_NO_FLUSH        a writer releases without flushing its data put
 *                          (lost update: the next writer may read old data)
 *   MUTANT_NO_READER_GRANT the last reader to leave does not grant the
 *                          waiting writer (deadlock)
 *   MUTANT_STALE_H         the hand-over to a writer behind a reader group
 *                          adds the group to A but leaves H on the old
 *                          (possibly stale) writer (TWO_WRITERS_ONE_READER:
 *                          the last reader grants the wrong writer)
 */
#define N 3
#if defined(ONE_WRITER_TWO_READERS)
#define NW 1
#elif defined(TWO_WRITERS_ONE_READER)
#define NW 2
#else
#define NW 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

/* The lock word on the target. H and T hold PE + 1 (0: none). */
byte A, B, H, T;

/* Each PE's node and wait-for slots (slot[w * N + i]: reader + 1). */
bool g_flag[N];
byte g_h[N];
byte nxt[N];
byte nxt_b[N];
byte slot[N * N];

/* The protected data, and the checks' bookkeeping (not part of gasket). */
byte counter;
byte writers_in, readers_in, max_readers_in;
byte writer_sections;
byte ticket_next, ticket_served;
byte finished;

mtype = { PUT_GRANT, PUT_NEXT, PUT_SLOT, PUT_DATA };
/* kind, destination PE, a, b */
chan out[N] = [4] of { mtype, byte, byte, byte };

proctype deliver(byte p)
{
    mtype kind;
    byte d, a, b;
    /* Taking a put off the channel and applying it is one step, so an
     * empty channel means everything sent has landed. */
end:
    do
    :: atomic {
           out[p]?kind, d, a, b ->
           if
           :: kind == PUT_GRANT -> g_h[d] = a; g_flag[d] = true
           :: kind == PUT_NEXT  -> nxt_b[d] = b; nxt[d] = a
           :: kind == PUT_SLOT  -> slot[d * N + a] = b
           :: kind == PUT_DATA  -> counter = a
           fi;
           kind = 0; d = 0; a = 0; b = 0 /* no stale values in the state */
       }
    od
}

/* wait_granted(): wait for my grant, keep the H it carries, clear it. */
inline wait_granted(me, h_seen)
{
    g_flag[me];
    atomic { h_seen = g_h[me]; g_flag[me] = false }
}

/* admit_group(): grant my group's b readers, in slot order. */
inline admit_group(me, b, i, r)
{
    i = 0;
    do
    :: i < b ->
        slot[me * N + i] != 0;
        atomic { r = slot[me * N + i]; slot[me * N + i] = 0 }
        out[me]!PUT_GRANT, r - 1, 0, 0;
        i++
    :: else -> break
    od
}

proctype writer(byte me)
{
    byte round, old_t, old_a, old_b, h_seen, my_ticket, data, succ, b, i, r;
    bool freed;
    for (round : 1 .. ROUNDS) {
        /* gk__rwlock_acquire, exclusive: the CAS of request_word(). */
        atomic {
            old_t = T; old_a = A; old_b = B;
            if
            :: T == 0 -> H = me + 1; T = me + 1
            :: else -> T = me + 1; B = 0
            fi;
            my_ticket = ticket_next; ticket_next++
        }
        if
        :: old_t == 0 && old_a == 0 -> h_seen = me + 1 /* granted at once */
        :: old_t == 0 && old_a > 0 -> wait_granted(me, h_seen)
        :: old_t != 0 ->
            out[me]!PUT_NEXT, old_t - 1, me + 1, old_b;
            wait_granted(me, h_seen)
        fi;

        /* The critical section: alone, and in the order we asked. */
        atomic {
            assert(writers_in == 0 && readers_in == 0);
            assert(my_ticket == ticket_served);
            ticket_served++;
            writers_in++
        }
        data = counter;                         /* a get */
        out[me]!PUT_DATA, 0, data + 1, 0;       /* a put */
#ifndef MUTANT_NO_FLUSH
        empty(out[me]);                         /* the unlock's flush */
#endif
        atomic { writers_in--; writer_sections++ }

        /* release_exclusive() */
        freed = false;
        if
        :: nxt[me] == 0 ->
            atomic {
                if
                :: T == me + 1 ->
                    assert(H == h_seen && A == 0);
                    b = B; A = B; B = 0; H = 0; T = 0; freed = true
                :: else -> skip /* a writer queued behind me */
                fi
            }
        :: else -> skip
        fi;
        if
        :: freed -> admit_group(me, b, i, r)
        :: else ->
            nxt[me] != 0;
            atomic { succ = nxt[me]; b = nxt_b[me]; nxt[me] = 0; nxt_b[me] = 0 }
            if
            :: b == 0 -> out[me]!PUT_GRANT, succ - 1, h_seen, 0
            :: else ->
#ifndef MUTANT_STALE_H
                atomic { assert(H == h_seen); A = A + b; H = succ }
#else
                atomic { assert(H == h_seen); A = A + b }
#endif
                admit_group(me, b, i, r)
            fi
        fi
    }
    atomic { finished++ }
}

proctype reader(byte me)
{
    byte round, old_t, old_b, old_a, old_h, h_seen, writers_before;
    for (round : 1 .. ROUNDS) {
        /* gk__rwlock_acquire, shared: the CAS of request_word(). */
        atomic {
            old_t = T; old_b = B;
            if
            :: T == 0 -> A++
            :: else -> B++
            fi;
            writers_before = ticket_next /* every writer queued so far */
        }
        if
        :: old_t == 0 -> skip
        :: else ->
            out[me]!PUT_SLOT, old_t - 1, old_b, me + 1;
            wait_granted(me, h_seen)
        fi;

        atomic {
            assert(writers_in == 0);
            /* The data reads whole: every writer section so far landed. */
            assert(counter == writer_sections);
            /* Behind a writer, a reader waits for it: writers are not
             * starved by readers that come later. */
            assert(old_t == 0 || ticket_served >= writers_before);
            readers_in++;
            if
            :: readers_in > max_readers_in -> max_readers_in = readers_in
            :: else -> skip
            fi
        }
        atomic { readers_in-- }

        /* release_shared(): fetch-add A -= 1, the last one grants H. */
        atomic { old_a = A; old_h = H; A-- }
        assert(old_a > 0);
#ifndef MUTANT_NO_READER_GRANT
        if
        :: old_a == 1 && old_h != 0 -> out[me]!PUT_GRANT, old_h - 1, old_h, 0
        :: else -> skip
        fi
#endif
    }
    atomic { finished++ }
}

init {
    atomic {
        run deliver(0); run deliver(1); run deliver(2);
#if defined(ONE_WRITER_TWO_READERS)
        run writer(0); run reader(1); run reader(2)
#elif defined(TWO_WRITERS_ONE_READER)
        run writer(0); run writer(1); run reader(2)
#else
        run writer(0); run writer(1); run writer(2)
#endif
    }
    finished == N;
    /* Everything delivered: no lost update, the lock free again. */
    empty(out[0]) && empty(out[1]) && empty(out[2]);
    assert(counter == NW * ROUNDS && writer_sections == NW * ROUNDS);
    assert(A == 0 && B == 0 && H == 0 && T == 0)
}

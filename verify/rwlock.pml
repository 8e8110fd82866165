/*
 * rwlock.pml: a Promela model of gasket's FIFO reader/writer lock, exactly
 * the protocol of src/win/rwlock.c (read its top comment first), for N = 3
 * or 4 PEs contending for one lock. Checked with Spin by verify/check-model.
 *
 * What is modelled, step by step as the C code does it:
 *   - The lock word's fields A, G, H, T. Each compare-and-swap loop of the
 *     C code (request_word, the no-successor release) linearizes at its
 *     successful CAS, so it is one atomic step here that computes the new
 *     word from the current one; fetch-adds are atomic steps too.
 *   - Every put is asynchronous: a PE's puts go into its own FIFO channel
 *     (the C code orders each notification after what came before it) and
 *     a delivery process applies them whenever it likes. A flush waits
 *     until the PE's channel is empty.
 *   - Each PE's node: `granted` (flag and the value it carries), `next`
 *     (successor and the last reader of my group), `first_reader` and
 *     `next_reader` (a reader group's chain). Every notification lands in
 *     a word that holds 0 (asserted at delivery).
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
 * Cases (-D): ALL_WRITERS (3 writers), ONE_WRITER_TWO_READERS,
 * TWO_WRITERS_ONE_READER (the only case that reaches the hand-over to a
 * writer behind a reader group: next = (Y, g > 0), the fetch-add that
 * moves H from a stale value to Y, and admit_group from that path), or
 * ONE_WRITER_THREE_READERS (4 PEs: a group whose middle reader is both
 * granted by a reader and passes the grant on).
 * LAZY: PE 0 (a writer in every case) is on another host than the lock's
 * owner, and the others share the owner's host (src/win/rwlock_lazy.c): its
 * request is made at the owner, by the owner's CPU, with the first get of
 * its section in the same step when that request is granted at once; when
 * it is queued, PE 0 goes on as any PE does and gets the data once granted.
 * Mutants, each must fail:
 *   MUTANT_NO_FLUSH        a writer releases without flushing its data put
 *                          (lost update: the next writer may read old data)
 *   MUTANT_NO_READER_GRANT the last reader to leave does not grant the
 *                          waiting writer (deadlock)
 *   MUTANT_STALE_H         the hand-over to a writer behind a reader group
 *                          adds the group to A but leaves H on the old
 *                          (possibly stale) writer (TWO_WRITERS_ONE_READER:
 *                          the last reader grants the wrong writer)
 *   MUTANT_CHAIN_UNCOUNTED a reader passes the grant down its group
 *                          without counting the next reader into A (A
 *                          falls below 0: a reader leaves uncounted)
 *   MUTANT_LAZY_GET_QUEUED (LAZY) the owner makes the get with a request
 *                          that queued (the data of a section not over:
 *                          a lost update)
 *   MUTANT_LAZY_IGNORES_READERS (LAZY) the owner takes a writer's request
 *                          as granted when no writer is queued, forgetting
 *                          the active readers (a writer among readers)
 */
#if defined(ONE_WRITER_THREE_READERS)
#define N 4
#else
#define N 3
#endif
#if defined(ONE_WRITER_TWO_READERS) || defined(ONE_WRITER_THREE_READERS)
#define NW 1
#elif defined(TWO_WRITERS_ONE_READER)
#define NW 2
#else
#define NW 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

/* Whether a writer's request that found T = old_t, A = old_a holds the lock
 * at once (gk__rwlock_granted_at_once). */
#if defined(LAZY) && defined(MUTANT_LAZY_IGNORES_READERS)
#define AT_ONCE(me) (old_t == 0 && (old_a == 0 || me == 0))
#else
#define AT_ONCE(me) (old_t == 0 && old_a == 0)
#endif
/* Whether the owner makes PE me's get with its request. */
#if !defined(LAZY)
#define GET_WITH_REQUEST(me) false
#elif defined(MUTANT_LAZY_GET_QUEUED)
#define GET_WITH_REQUEST(me) (me == 0)
#else
#define GET_WITH_REQUEST(me) (me == 0 && AT_ONCE(me))
#endif

/* The lock word on the target. G, H and T hold PE + 1 (0: none). */
byte A, G, H, T;

/* Each PE's node: `granted` (flag and the value v it carries), `next`
 * (successor writer and the last reader of my group), `first_reader`,
 * `next_reader`. */
bool g_flag[N];
byte g_v[N];
byte nxt[N];
byte nxt_g[N];
byte first_r[N];
byte next_r[N];

/* The protected data, and the checks' bookkeeping (not part of gasket). */
byte counter;
byte writers_in, readers_in, max_readers_in;
byte writer_sections;
byte ticket_next, ticket_served;
byte finished;

mtype = { PUT_GRANT, PUT_NEXT, PUT_FIRST_READER, PUT_NEXT_READER, PUT_DATA };
/* kind, destination PE, a, b */
chan out[N] = [4] of { mtype, byte, byte, byte };

proctype deliver(byte p)
{
    mtype kind;
    byte d, a, b;
    /* Taking a put off the channel and applying it is one step, so an
     * empty channel means everything sent has landed. Each word written
     * holds 0 before (the protocol's notify_word). */
end:
    do
    :: atomic {
           out[p]?kind, d, a, b ->
           if
           :: kind == PUT_GRANT       -> assert(!g_flag[d]); g_v[d] = a; g_flag[d] = true
           :: kind == PUT_NEXT        -> assert(nxt[d] == 0); nxt_g[d] = b; nxt[d] = a
           :: kind == PUT_FIRST_READER -> assert(first_r[d] == 0); first_r[d] = a
           :: kind == PUT_NEXT_READER -> assert(next_r[d] == 0); next_r[d] = a
           :: kind == PUT_DATA        -> counter = a
           fi;
           kind = 0; d = 0; a = 0; b = 0 /* no stale values in the state */
       }
    od
}

/* wait_granted(): wait for my grant, keep the value it carries, clear it. */
inline wait_granted(me, v)
{
    g_flag[me];
    atomic { v = g_v[me]; g_v[me] = 0; g_flag[me] = false }
}

/* admit_group(): grant my group's first reader (already counted in A),
 * telling it the group's last reader. */
inline admit_group(me, last, r)
{
    first_r[me] != 0;
    atomic { r = first_r[me]; first_r[me] = 0 }
    out[me]!PUT_GRANT, r - 1, last, 0
}

proctype writer(byte me)
{
    byte round, old_t, old_a, old_g, h_seen, my_ticket, data, succ, g, r;
    bool freed, got;
    for (round : 1 .. ROUNDS) {
        /* gk__rwlock_acquire, exclusive: the CAS of request_word(). */
        atomic {
            old_t = T; old_a = A; old_g = G;
            if
            :: T == 0 -> H = me + 1; T = me + 1
            :: else -> T = me + 1; G = 0
            fi;
            my_ticket = ticket_next; ticket_next++;
            /* LAZY: the owner's get, in the step of the request. */
            if
            :: GET_WITH_REQUEST(me) -> data = counter; got = true
            :: else -> skip
            fi
        }
        if
        :: AT_ONCE(me) -> h_seen = me + 1 /* granted at once */
        :: old_t == 0 && !AT_ONCE(me) -> wait_granted(me, h_seen)
        :: old_t != 0 ->
            out[me]!PUT_NEXT, old_t - 1, me + 1, old_g;
            wait_granted(me, h_seen)
        fi;

        /* The critical section: alone, and in the order we asked. */
        atomic {
            assert(writers_in == 0 && readers_in == 0);
            assert(my_ticket == ticket_served);
            ticket_served++;
            writers_in++
        }
        if
        :: !got -> data = counter               /* a get */
        :: else -> got = false                  /* made with the request */
        fi;
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
                    g = G;
                    if
                    :: g != 0 -> A = 1 /* my group's first reader */
                    :: else -> skip
                    fi;
                    G = 0; H = 0; T = 0; freed = true
                :: else -> skip /* a writer queued behind me */
                fi
            }
        :: else -> skip
        fi;
        if
        :: freed && g != 0 -> admit_group(me, g, r)
        :: freed && g == 0 -> skip
        :: else ->
            nxt[me] != 0;
            atomic { succ = nxt[me]; g = nxt_g[me]; nxt[me] = 0; nxt_g[me] = 0 }
            if
            :: g == 0 -> out[me]!PUT_GRANT, succ - 1, h_seen, 0
            :: else ->
#ifndef MUTANT_STALE_H
                atomic { assert(H == h_seen); A = A + 1; H = succ }
#else
                atomic { assert(H == h_seen); A = A + 1 }
#endif
                admit_group(me, g, r)
            fi
        fi;
        g = 0; succ = 0; r = 0 /* no stale values in the state */
    }
    atomic { finished++ }
}

proctype reader(byte me)
{
    byte round, old_t, old_g, old_a, old_h, last, r, writers_before;
    for (round : 1 .. ROUNDS) {
        /* gk__rwlock_acquire, shared: the CAS of request_word(). */
        atomic {
            old_t = T; old_g = G;
            if
            :: T == 0 -> A++
            :: else -> G = me + 1
            fi;
            writers_before = ticket_next /* every writer queued so far */
        }
        if
        :: old_t == 0 -> skip
        :: else ->
            if
            :: old_g == 0 -> out[me]!PUT_FIRST_READER, old_t - 1, me + 1, 0
            :: else -> out[me]!PUT_NEXT_READER, old_g - 1, me + 1, 0
            fi;
            wait_granted(me, last);
            /* pass_to_next_reader(): count the next reader in, grant it. */
            if
            :: last != me + 1 ->
                next_r[me] != 0;
                atomic { r = next_r[me]; next_r[me] = 0 }
#ifndef MUTANT_CHAIN_UNCOUNTED
                atomic { assert(A > 0); A++ }
#endif
                out[me]!PUT_GRANT, r - 1, last, 0
            :: else -> skip
            fi
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
        fi;
#endif
        old_t = 0; old_g = 0; old_a = 0; old_h = 0; last = 0; r = 0
    }
    atomic { finished++ }
}

init {
    atomic {
        run deliver(0); run deliver(1); run deliver(2);
#if defined(ONE_WRITER_THREE_READERS)
        run deliver(3);
        run writer(0); run reader(1); run reader(2); run reader(3)
#elif defined(ONE_WRITER_TWO_READERS)
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
#if N == 4
    empty(out[3]);
#endif
    assert(counter == NW * ROUNDS && writer_sections == NW * ROUNDS);
    assert(A == 0 && G == 0 && H == 0 && T == 0)
}

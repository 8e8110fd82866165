/*
 * config_table.h: every GK_* environment variable, one line each:
 *   X(NAME, type, field, default, help)
 * The parser (config.c), gasket-info's listing and docs/CONFIG.md come from
 * this table. Types: size (bytes, suffixes K M G T, powers of 1024), uint,
 * level (a GK_LOG level name), rndv (auto, cma or pieces), tristate (auto,
 * 0 or 1), str. Variables of kind "launcher" are set by gasket-run for each
 * PE and are listed, not parsed.
 */
#ifndef GK_BASE_CONFIG_TABLE_H
#define GK_BASE_CONFIG_TABLE_H

#define GK_CONFIG_TABLE(X)                                                     \
    X(HEAP_SIZE, size, heap_request, "256M",                                   \
      "bytes in each PE's symmetric heap (suffixes K, M, G, T); reserved in "  \
      "/dev/shm at start-up, with about 2 MiB for the runtime")                \
    X(ALLOC_MEM_SIZE, size, alloc_mem_size, "0",                               \
      "bytes after each PE's symmetric heap for gk_mem_alloc's shared and "    \
      "registered memory, which each PE allocates alone; windows over it "     \
      "are accessed directly (reserved in /dev/shm with the heap; 0: none, "   \
      "and those hints fail)")                                                 \
    X(SYMMETRIC_DATA, uint, symmetric_data, "0",                               \
      "1: the program's global and static variables are symmetric, as the "    \
      "heap is: gk_init moves the executable's data and bss into the PE's "    \
      "segment, so other PEs reach them (shmem_init sets it)")                 \
    X(BOOTSTRAP, str, bootstrap, "auto",                                       \
      "how the PEs find each other: auto (gasket-run's when it started the "   \
      "program, else PMIx's when a PMIx launcher did: srun --mpi=pmix, "       \
      "mpirun; else the program is one PE), launcher, pmix or single")        \
    X(LOG, level, log_level, "warn",                                           \
      "log level: none, error, warn, info or debug")                           \
    X(SPIN_COUNT, uint, spin_count, "2000",                                    \
      "polls of a waited-on word before a wait starts yielding the CPU "       \
      "(none when the node has more PEs than cores: the PE waited for may "    \
      "need this core)")                                                       \
    X(YIELD_COUNT, uint, yield_count, "100",                                   \
      "sched_yield() calls before a wait sleeps on a futex")                   \
    X(SLEEP_MS, uint, sleep_ms, "100",                                         \
      "longest futex sleep of a wait before it checks that the job is alive "  \
      "(and, in a collective call, that the PEs are in the same call)")        \
    X(BCAST_RADIX, uint, bcast_radix, "4",                                     \
      "the radix gk_broadcast passes to gk_broadcast_radix (2 to 64): "        \
      "checked and agreed on; the tree is binomial")                       \
    X(PROGRESS_THREAD, uint, progress_thread, "0",                             \
      "1: a thread runs active messages and two-sided progress while the "     \
      "application computes or blocks in another library")                   \
    X(CHECK, uint, check, "0",                                                 \
      "1: check mode: non-blocking puts, gets and AMOs between PEs of a "     \
      "node take effect at their completion point (quiet, fence, barrier, "   \
      "handle wait), as across a network, so a read before quiet or a flag "  \
      "without a fence goes wrong on one node too; a put_nbi source changed " \
      "before completion, puts and gets of the same bytes from two PEs that " \
      "no synchronisation orders, an address in no allocated block, a wait "  \
      "no PE is left to end, and semaphores and locks left at finalize are "  \
      "reported (docs/CHECK.md)")                                              \
    X(COLL_CHECK, uint, coll_check, "0",                                       \
      "no effect, kept so existing job scripts run: every collective now "     \
      "checks that its PEs agree on root, size, type and operation, at no "    \
      "extra message")                                                         \
    X(TEAM_LEVELS, str, team_levels, "auto",                                   \
      "the team collectives' agreement rounds: hier (within each host, "       \
      "between one leader per host, within each host again), flat (over the "  \
      "team at once) or auto (hier where a team spans hosts with several of "  \
      "its PEs on one)")                                                       \
    X(TEAM_WINDOW, size, team_window, "0",                                     \
      "bytes a large message of a team collective has in flight to each "      \
      "receiver (four chunks of a quarter each, whole pages); more is "        \
      "faster between hosts and costs shared memory in every team's slot; "    \
      "must be the same on every PE (0: by the job's PE count, 128 KiB up "    \
      "to 5 PEs, 32 KiB at 16, 16 KiB from 64)")                               \
    X(TEAM_ALGO_BCAST, str, team_algo_bcast, "auto",                           \
      "team broadcast: small (the data rides in the agreement rounds), tree "  \
      "(pipelined binomial tree), hier (a tree of one PE per host, a shared "  \
      "buffer within each host; flat where the team is on one host) or auto "  \
      "(small up to 8 KiB, above that hier where the team spans hosts with "   \
      "several of its PEs on one, else tree)")                                 \
    X(TEAM_ALGO_ALLREDUCE, str, team_algo_allreduce, "auto",                   \
      "team all-reduce, reduce and reduce-scatter: gather (every block "       \
      "gathered, combined in team order), ring (reduce-scatter then "          \
      "all-gather), hier (each host reduces through a shared buffer, its "     \
      "leaders run the ring; flat where the team is on one host) or auto "     \
      "(gather for vectors up to 2 KiB, 4 MiB in all; above that hier where "  \
      "the team spans hosts with several of its PEs on one, else ring; "     \
      "rabenseifner: recursive halving then doubling)")                        \
    X(TEAM_RING_MAX, uint, team_ring_max, "16",                                \
      "the most PEs (or hosts' leaders, under hier) a ring all-reduce runs "   \
      "over; above, the all-reduce and reduce take Rabenseifner's "            \
      "algorithm (recursive halving then doubling, 2 log2 n rounds); must be " \
      "the same on every PE")                                                  \
    X(TEAM_ALGO_FCOLLECT, str, team_algo_fcollect, "auto",                     \
      "team fcollect and collect: bruck, ring, put (fcollect only: a team "   \
      "across hosts whose every dst is symmetric: each PE puts its block) or " \
      "auto (bruck for blocks up to 2 KiB, 4 MiB in all; then put for "       \
      "blocks >= 256 KiB over 16 PEs or more where it can run; then ring)")    \
    X(TEAM_ALGO_ALLTOALL, str, team_algo_alltoall, "auto",                     \
      "team all-to-all(s): small (rows up to 2 KiB), direct (a team on one "  \
      "host: each PE reads its blocks from the others' memory, one copy; "     \
      "all-to-all only), put (a team across hosts whose every dst is "         \
      "symmetric: each PE puts its blocks; all-to-all only), pairwise (jobs "  \
      "up to 16 PEs), bruck, or auto (small where it fits, then direct for "   \
      "blocks >= 64 KiB where it can run, put for blocks >= 256 KiB over 8 "   \
      "PEs or >= 16 KiB over 16 where it can run, then bruck for blocks <= "   \
      "256 bytes or jobs over 16 PEs)")                                        \
    X(TEAM_ALGO_SCAN, str, team_algo_scan, "auto",                             \
      "team scan and exscan: gather, chain (a pipeline from PE 0) or auto "    \
      "(gather for vectors up to 2 KiB, 4 MiB in all)")                        \
    X(NET_INDIRECT, uint, net_indirect, "0",                                   \
      "testing: 1 reaches the other PEs of this node only through the "        \
      "transport interface, as if they were on other hosts (no direct loads "  \
      "or stores, no inline paths), to test the off-node code paths")          \
    X(RNDV, rndv, rndv, "auto",                                                \
      "how a two-sided message larger than the eager limit, sent from "        \
      "memory outside the symmetric heap, travels: auto (the sender copies "   \
      "it into a pipeline in shared memory while the receiver copies it out, " \
      "or, at a size where that has been faster, both copy by cross-memory "   \
      "attach, the sender writing chunks into the receive buffer while the "   \
      "receiver reads others; the receiver reads chunks itself while the "     \
      "sender is busy), pipe (the pipeline always), both (cross-memory attach " \
      "from both sides always), cma (the receiver alone, with cross-memory "   \
      "attach), pieces (medium active messages, where cross-memory attach is " \
      "not allowed)")                                                          \
    X(UCX_PROGRESS_THREAD, tristate, ucx_progress_thread, "auto",              \
      "auto, 0 or 1: a thread that drives UCX while the PE computes or "       \
      "sleeps, so that other PEs' puts, gets and atomics to it (which UCX's "  \
      "TCP transport carries out at the target) and their active messages "   \
      "move on; it sleeps while nothing arrives (auto: on when some PE is "    \
      "reached through UCX). With 0 they move only while the PE calls "        \
      "gasket, and wait up to GK_SLEEP_MS while it sleeps in a wait")         \
    X(UCX_LINGER_US, uint, ucx_linger_us, "200",                               \
      "microseconds the UCX progress thread keeps polling after the last "     \
      "thing that arrived before it sleeps: a stream of other PEs' requests "  \
      "then costs no thread wake-up each (0: sleep at once)")                  \
    X(UCX_HANDOVER_US, uint, ucx_handover_us, "500",                           \
      "microseconds the UCX progress thread leaves the worker to a PE that "   \
      "drives it itself (calls gasket) before it looks whether to take it "   \
      "back: the longest an arrival may wait when the PE goes from a short "  \
      "run of gasket calls to computing without it (0: it never does; it "    \
      "sleeps on the worker's events)")                                       \
    X(UCX_HANDOVER_MAX_US, uint, ucx_handover_max_us, "4000",                  \
      "microseconds: while the PE keeps driving the worker, each look of "    \
      "the UCX progress thread that finds it so doubles the next, from "      \
      "GK_UCX_HANDOVER_US up to this: the longest an arrival may wait when "  \
      "the PE goes to computing after a long run of gasket calls (a value "  \
      "below GK_UCX_HANDOVER_US: every look GK_UCX_HANDOVER_US apart)")        \
    X(UCX_PUT_AM_MAX, uint, ucx_put_am_max, "65536",                          \
      "bytes: a put to a PE to which UCX has no RMA lane (its TCP "            \
      "transport) goes as gasket's own messages of at most this size, which "  \
      "make the target's wake-up check themselves and stream (0: every put "   \
      "is UCX's, and a wake-up message follows it; at most 65536)")            \
    X(NET, str, net, "auto",                                                   \
      "the network transport for PEs on other nodes: ucx, ofi (libfabric, "    \
      "through the provider FI_PROVIDER names, else libfabric's first choice " \
      "that reaches other nodes) or auto (ucx where this gasket is built "      \
      "with it, else ofi); the same on every PE")                              \
    X(OFI_LINGER_US, uint, ofi_linger_us, "200",                               \
      "microseconds the libfabric progress thread keeps reading the "         \
      "completion queue after the last thing that arrived, while the PE "     \
      "sleeps in a wait, before it sleeps itself: a stream of other PEs' "    \
      "requests then costs no thread wake-up each (0: sleep at once)")        \
    X(OFI_PROBE_MS, uint, ofi_probe_ms, "200",                                 \
      "milliseconds between the libfabric transport's probes of the peers "   \
      "it has operations or messages in flight to, which find what a reset "  \
      "connection lost (tcp;ofi_rxm reconnects without a word) and end the "   \
      "job, naming the peer, instead of waiting for ever; a busy peer costs "  \
      "one small message each way per round (0: no probes)")                  \
    X(NET_FORCE_UCX, uint, net_force_ucx, "0",                                 \
      "testing: 1 reaches every other PE through the network transport "       \
      "(GK_NET), even on this node (no mapping of its segment), to test it "    \
      "on one machine")

/* Set by gasket-run; listed by gasket-info, read by the boot layer. */
#define GK_CONFIG_LAUNCHER_TABLE(X)                                            \
    X(RANK, "this PE's number")                                                \
    X(SIZE, "the number of PEs in the job")                                    \
    X(BOOT_FD, "the socket to gasket-run")                                     \
    X(JOB_KEY, "random key naming the job's shared-memory segments")           \
    X(LAUNCHER_PID, "gasket-run's process id")                                 \
    X(LAUNCHER_PROTOCOL, "the version of gasket-run's protocol with the PEs "  \
                         "(a PE that speaks another refuses to start)")        \
    X(NODE_CPUS, "the CPUs gasket-run may use, and after a slash the PEs "    \
                 "that share them when not just this node's (more PEs than "  \
                 "CPUs: waits do not spin)")

#endif /* GK_BASE_CONFIG_TABLE_H */

#!/usr/bin/env python3
"""compare.py: gasket's micro-benchmarks beside Open MPI and the raw floor.

Runs gk-bench (through gasket-run --bind), mpi-peer (mpirun --bind-to core,
osc/sm forced) and raw-floor (pinned to the same two CPUs) alternately,
--reps times each, parses their OSU-style tables, and prints for each
benchmark and size the median of ours, the median of the peer, and the
ratio; then checks the targets of the issues. Standard library only; with
--plot it also draws the signaling-put latency figure (needs matplotlib).

    python3 bench/compare.py [--build build] [--reps 5] [--quick]
                             [--markdown docs/perf-run.md] [--plot docs/x.png]
"""
import argparse
import os
import statistics
import subprocess
import sys

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_osc": "sm", "OMPI_MCA_btl": "self,vader"}


def parse_table(text):
    """Returns {name: {size: value}} from one program's output."""
    tables, name = {}, None
    for line in text.splitlines():
        if line.startswith("# ") and "(" in line and "PEs" in line:
            name = line[2:].split(" ")[0]
            tables.setdefault(name, {})
        elif line and not line.startswith("#") and name is not None:
            parts = line.split()
            if len(parts) == 2:
                tables[name][int(parts[0])] = float(parts[1])
    return tables


def run(cmd, env=None, timeout=600):
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout)
    if proc.returncode != 0:
        sys.stderr.write("warning: %s exited %d\n%s" % (" ".join(cmd), proc.returncode,
                                                        proc.stderr[-2000:]))
    return parse_table(proc.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="fewer benchmarks, 3 reps")
    ap.add_argument("--markdown", help="also write the report here")
    ap.add_argument("--plot", help="draw the ping-pong latency figure into this PNG")
    args = ap.parse_args()
    reps = 3 if args.quick else args.reps
    b = args.build
    launcher = [os.path.join(b, "tools/gasket-run"), "-n", "2", "--bind"]
    ours_cmd = launcher + [os.path.join(b, "bench/gk-bench")]
    mpi_cmd = ["mpirun", "-n", "2", "--bind-to", "core", os.path.join(b, "bench/mpi-peer")]
    raw = os.path.join(b, "bench/raw-floor")

    # signal_pingpong right after flag_pingpong: they are compared.
    ours_names = ["put_lat", "get_lat", "put_bw", "fadd_lat", "cswap_lat", "barrier_lat",
                  "flag_pingpong", "signal_pingpong", "nbi_flag_pingpong", "barrier_pingpong",
                  "bcast_lat", "allreduce_lat"]
    mpi_names = ["put_lat", "get_lat", "put_bw", "fadd_lat", "cswap_lat", "barrier_lat",
                 "pingpong", "bcast_lat", "allreduce_lat"]
    if args.quick:
        ours_names = ["put_lat", "put_bw", "fadd_lat", "barrier_lat", "flag_pingpong"]
        mpi_names = ["put_lat", "fadd_lat", "barrier_lat"]

    samples = {}  # (impl, bench) -> {size: [values]}

    def add(impl, tables):
        for bench, rows in tables.items():
            for size, value in rows.items():
                samples.setdefault((impl, bench), {}).setdefault(size, []).append(value)

    have_mpi = os.path.exists(os.path.join(b, "bench/mpi-peer"))
    for rep in range(reps):
        sys.stderr.write("rep %d/%d\n" % (rep + 1, reps))
        # Alternate: ours, peer, floor, for each benchmark, so drift in the
        # machine's load hits all of them alike.
        for name in ours_names:
            add("gasket", run(ours_cmd + [name]))
            if have_mpi and name in mpi_names:
                add("mpi", run(mpi_cmd + [name], env=MPI_ENV))
            if name == "flag_pingpong":
                add("raw", run([raw, "flag_pingpong", "0", "1"]))
                add("raw", run([raw, "flag_pingpong_owned", "0", "1"]))
            if name == "put_bw":
                add("raw", run([raw, "memcpy_bw", "0"]))
            if name == "signal_pingpong" and have_mpi:
                add("mpi", run(mpi_cmd + ["pingpong"], env=MPI_ENV))

    # The collectives at more PEs than cores (4 and 8 on this machine):
    # oversubscribed, unpinned, ours then Open MPI's, the 8-byte row.
    if not args.quick:
        for npes in (4, 8):
            ours_n = [os.path.join(b, "tools/gasket-run"), "-n", str(npes),
                      os.path.join(b, "bench/gk-bench")]
            mpi_n = ["mpirun", "--oversubscribe", "-n", str(npes),
                     os.path.join(b, "bench/mpi-peer")]
            for rep in range(reps):
                for name in ("barrier_lat", "bcast_lat", "allreduce_lat"):
                    small = {"BENCH_MAX_SIZE": "8"}
                    for impl, cmd, env in (("gasket", ours_n, small),
                                           ("mpi", mpi_n, dict(MPI_ENV, **small))):
                        if impl == "mpi" and not have_mpi:
                            continue
                        table = run(cmd + [name], env=env).get(name, {})
                        value = table.get(8, table.get(npes))
                        if value is not None:
                            samples.setdefault(("np%d" % npes, impl, name), []).append(value)

    # Tight pairs for the small-message targets: one size of ours, then one
    # of the peer, each a few tens of milliseconds, repeated. Whole-table
    # runs take seconds, long enough for this kind of VM to change state
    # between ours and the peer's.
    raw_flag = [raw, "flag_pingpong", "0", "1"]
    tight = [  # key, ours, ours' table, peer, peer's table, peer's environment
        ("flag/raw", ours_cmd + ["flag_pingpong"], "flag_pingpong", raw_flag, "flag_pingpong", {})]
    if not args.quick:
        tight += [
            ("signal/raw", ours_cmd + ["signal_pingpong"], "signal_pingpong", raw_flag,
             "flag_pingpong", {}),
            ("signal/flag", ours_cmd + ["signal_pingpong"], "signal_pingpong",
             ours_cmd + ["flag_pingpong"], "flag_pingpong", {})]
        if have_mpi:
            tight += [
                ("signal/mpi", ours_cmd + ["signal_pingpong"], "signal_pingpong",
                 mpi_cmd + ["pingpong"], "pingpong", MPI_ENV),
                ("bcast/mpi", ours_cmd + ["bcast_lat"], "bcast_lat",
                 mpi_cmd + ["bcast_lat"], "bcast_lat", MPI_ENV),
                ("allreduce/mpi", ours_cmd + ["allreduce_lat"], "allreduce_lat",
                 mpi_cmd + ["allreduce_lat"], "allreduce_lat", MPI_ENV)]
    small = {"BENCH_MAX_SIZE": "8"}
    for rep in range(3 * reps):
        for key, ours_run, ours_bench, peer_run, peer_bench, peer_env in tight:
            ours_value = run(ours_run, env=small).get(ours_bench, {}).get(8)
            peer_value = run(peer_run, env=dict(peer_env, **small)).get(peer_bench, {}).get(8)
            if ours_value and peer_value:
                samples.setdefault(("tight", key), []).append(ours_value / peer_value)

    def tight_ratio(bench):
        values = samples.get(("tight", bench))
        return statistics.median(values) if values else None

    def med(impl, bench, size):
        values = samples.get((impl, bench), {}).get(size)
        return statistics.median(values) if values else None

    def paired_ratio(impl_a, bench_a, impl_b, bench_b, size):
        """Median over repetitions of a[rep] / b[rep]. The runs of one
        repetition are seconds apart, so they share the machine's state (on
        a VM the two vCPUs may sit on one physical core or on two, which
        moves latencies by 5x); ratios of overall medians would mix states."""
        a = samples.get((impl_a, bench_a), {}).get(size)
        b = samples.get((impl_b, bench_b), {}).get(size)
        if not a or not b or len(a) != len(b):
            return None
        return statistics.median(x / y for x, y in zip(a, b) if y)

    lines = []
    out = lines.append
    out("Medians of %d runs, 2 PEs pinned to CPUs 0 and 1 (gasket-run --bind, "
        "mpirun --bind-to core, Open MPI osc/sm forced; raw floor pinned the same). "
        "Ratios are medians of per-repetition ratios (ours and the peer run back to "
        "back in each repetition)." % reps)
    out("")
    comparisons = [
        ("put_lat", "gasket", "mpi", "put_lat", "put + quiet vs MPI_Put + MPI_Win_flush (us)"),
        ("get_lat", "gasket", "mpi", "get_lat", "get vs MPI_Get + MPI_Win_flush (us)"),
        ("fadd_lat", "gasket", "mpi", "fadd_lat", "fetch-add vs MPI_Fetch_and_op (us)"),
        ("cswap_lat", "gasket", "mpi", "cswap_lat", "compare-swap vs MPI_Compare_and_swap (us)"),
        ("barrier_lat", "gasket", "mpi", "barrier_lat", "barrier vs MPI_Barrier (us)"),
        ("flag_pingpong", "gasket", "raw", "flag_pingpong",
         "put+fence+flag ping-pong vs raw store/flag ping-pong (us one-way)"),
        ("flag_pingpong", "gasket", "raw", "flag_pingpong_owned",
         "put+fence+flag ping-pong vs raw ping-pong with one segment per side (us one-way)"),
        ("put_bw", "gasket", "raw", "memcpy_bw", "put bandwidth vs memcpy (MB/s)"),
        ("signal_pingpong", "gasket", "mpi", "pingpong",
         "signaling put ping-pong vs MPI_Send/Recv (us one-way)"),
        ("bcast_lat", "gasket", "mpi", "bcast_lat", "broadcast vs MPI_Bcast (us)"),
        ("allreduce_lat", "gasket", "mpi", "allreduce_lat", "all-reduce vs MPI_Allreduce (us)"),
    ]
    for ours_bench, ours_impl, peer_impl, peer_bench, title in comparisons:
        ours_rows = samples.get((ours_impl, ours_bench))
        peer_rows = samples.get((peer_impl, peer_bench))
        if not ours_rows or not peer_rows:
            continue
        out("### %s" % title)
        out("")
        out("| size | gasket | %s | ratio (paired) |" % ("Open MPI" if peer_impl == "mpi" else "floor"))
        out("|---:|---:|---:|---:|")
        for size in sorted(ours_rows):
            o, p = med(ours_impl, ours_bench, size), med(peer_impl, peer_bench, size)
            r = paired_ratio(ours_impl, ours_bench, peer_impl, peer_bench, size)
            if o is None or p is None or r is None:
                continue
            out("| %d | %.3f | %.3f | %.2f |" % (size, o, p, r))
        out("")

    targets = []

    def target(label, value, limit, higher_is_better=False):
        if value is None:
            targets.append((label, None, limit, "not measured"))
            return
        ok = value >= limit if higher_is_better else value <= limit
        targets.append((label, value, limit, "PASS" if ok else "FAIL"))


    target("put 8 B + quiet / osc/sm MPI_Put + MPI_Win_flush",
           paired_ratio("gasket", "put_lat", "mpi", "put_lat", 8), 0.8)
    target("fetch-add / osc/sm MPI_Fetch_and_op",
           paired_ratio("gasket", "fadd_lat", "mpi", "fadd_lat", 8), 1.0)
    target("flag_pingpong 8 B / raw flag ping-pong (tight pairs)",
           tight_ratio("flag/raw"), 1.3)
    target("(info) the same from the whole-table runs",
           paired_ratio("gasket", "flag_pingpong", "raw", "flag_pingpong", 8), 1.3)
    # Not a target of the issue: the same floor with gasket's memory layout.
    target("(info) flag_pingpong 8 B / raw, one segment per side",
           paired_ratio("gasket", "flag_pingpong", "raw", "flag_pingpong_owned", 8), 1.3)
    target("barrier / MPI_Barrier",
           paired_ratio("gasket", "barrier_lat", "mpi", "barrier_lat", 2), 0.5)
    size = 65536
    while size <= 4 << 20:
        target("put_bw %d B / memcpy" % size,
               paired_ratio("gasket", "put_bw", "raw", "memcpy_bw", size), 0.95,
               higher_is_better=True)
        size *= 2
    if not args.quick:
        target("signal_pingpong 8 B / raw flag ping-pong (tight pairs)",
               tight_ratio("signal/raw"), 1.3)
        target("signal_pingpong 8 B / flag_pingpong 8 B (tight pairs)",
               tight_ratio("signal/flag"), 0.7)
        target("signal_pingpong 8 B / MPI send/recv (tight pairs)",
               tight_ratio("signal/mpi"), 0.5)
        target("allreduce 1 double / MPI_Allreduce (tight pairs)",
               tight_ratio("allreduce/mpi"), 0.7)
        target("broadcast 8 B / MPI_Bcast (tight pairs)", tight_ratio("bcast/mpi"), 0.7)
        target("(info) signal / MPI send/recv, whole-table runs",
               paired_ratio("gasket", "signal_pingpong", "mpi", "pingpong", 8), 0.5)
        target("(info) allreduce / MPI_Allreduce, whole-table runs",
               paired_ratio("gasket", "allreduce_lat", "mpi", "allreduce_lat", 8), 0.7)
        target("(info) broadcast / MPI_Bcast, whole-table runs",
               paired_ratio("gasket", "bcast_lat", "mpi", "bcast_lat", 8), 0.7)
    if not args.quick:
        out("### Collectives at more PEs than the 2 cores (8 B; barrier per call)")
        out("")
        out("| PEs | operation | gasket (us) | Open MPI (us) | ratio of medians |")
        out("|---:|---|---:|---:|---:|")
        for npes in (4, 8):
            for name in ("barrier_lat", "bcast_lat", "allreduce_lat"):
                a = samples.get(("np%d" % npes, "gasket", name))
                m = samples.get(("np%d" % npes, "mpi", name))
                if a and m:
                    ma, mm = statistics.median(a), statistics.median(m)
                    out("| %d | %s | %.2f | %.2f | %.2f |" % (npes, name, ma, mm, ma / mm))
        out("")
    for key, *_ in tight:
        values = samples.get(("tight", key))
        if values:
            out("Tight pairs %s (8 B), each pair: %s" %
                (key, " ".join("%.2f" % v for v in values)))
            out("")
    out("### Targets")
    out("")
    out("| target | ratio | limit | result |")
    out("|---|---:|---:|---|")
    for label, value, limit, verdict in targets:
        out("| %s | %s | %s%.2f | %s |" % (label, "-" if value is None else "%.2f" % value,
                                           ">= " if "put_bw" in label else "<= ", limit, verdict))
    report = "\n".join(lines)
    print(report)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report + "\n")
    if args.plot:
        plot(args.plot, samples, med)
        # The seed's other two charts: SPMV and CG time breakdowns.
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__),
                                                     "apps_breakdown.py"),
                        "--build", b, "--plot-dir", os.path.dirname(args.plot) or "."],
                       check=False)
    return 0


def plot(path, samples, med):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("matplotlib is not installed (apt-get install python3-matplotlib); "
                         "no figure\n")
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    series = [("gasket", "signal_pingpong", "signaling put + semaphore"),
              ("gasket", "flag_pingpong", "put + fence + flag"),
              ("gasket", "nbi_flag_pingpong", "non-blocking put + quiet + flag"),
              ("gasket", "barrier_pingpong", "put + barrier"),
              ("mpi", "pingpong", "Open MPI send/recv"),
              ("raw", "flag_pingpong", "raw store + flag (floor)")]
    for impl, bench, label in series:
        rows = samples.get((impl, bench))
        if not rows:
            continue
        sizes = sorted(s for s in rows if s <= 16384)
        ax.plot(sizes, [med(impl, bench, s) for s in sizes], marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("payload (bytes)")
    ax.set_ylabel("one-way latency (us)")
    ax.set_title("Synchronising put, 2 PEs on one node (down is good)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())

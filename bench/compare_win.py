#!/usr/bin/env python3
"""compare_win.py: gasket's windows and locks beside MPI-3 windows.

Open MPI's osc/sm and osc/rdma, and MPICH, with compare.py's machinery.

    /usr/bin/python3 bench/compare_win.py [--build build] [--reps 7] [--plot-dir docs]
                                         [--markdown FILE]

Each repetition runs every benchmark for ours and each peer back to back,
alternating which goes first; ratios are medians over repetitions of ours /
peer from the same repetition. The 8-byte latency targets are also measured
in sandwiches (peer, ours, peer), as compare.py does on this VM, whose two
vCPUs change behaviour every few seconds. lock_contended runs at 2, 4 and 8
PEs (4 and 8 oversubscribed, unpinned). --plot-dir draws
win_lock_lat.png and win_lock_contended.png there.

Each peer is probed once first (8-byte lock_put_lat); one that cannot run
here (osc/rdma needs a btl with RDMA or atomics; MPICH may be absent) is
reported as unavailable and its columns and targets are "-" / "not
measured". The sandwiches are split by the VM's state, probed before and
after each with the raw floor's one-way time, as in compare.py.
"""
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

LAT = ["lock_put_lat", "lock_get_lat", "lock_get8_lat", "lock_all_get_lat"]
PEERS = ["sm", "rdma", "mpich"]
NAMES = {"gasket": "gasket", "sm": "Open MPI osc/sm", "rdma": "Open MPI osc/rdma",
         "mpich": "MPICH"}
# label, bench, size, peer, limit
TARGETS = [
    ("exclusive lock + 8 B put + unlock <= 1.0x osc/sm", "lock_put_lat", 8, "sm", 1.0),
    ("shared lock + 8 B get + unlock <= 1.0x osc/sm", "lock_get_lat", 8, "sm", 1.0),
    ("shared lock + 8 B get + unlock <= 0.5x osc/rdma", "lock_get_lat", 8, "rdma", 0.5),
] + [("contended: us per acquisition at %d PEs <= 1.0x osc/sm" % n,
      "lock_contended@%d" % n, 8, "sm", 1.0) for n in (2, 4, 8)]


class Runner(compare.Runner):
    def __init__(self, args):
        super().__init__(args)
        b = args.build
        self.lock_peer = os.path.join(b, "bench", "mpi-lock-peer")
        self.lock_peer_mpich = os.path.join(b, "bench", "mpi-lock-peer-mpich")
        self.have = {"sm": os.access(self.lock_peer, os.X_OK) and shutil.which("mpirun"),
                     "rdma": os.access(self.lock_peer, os.X_OK) and shutil.which("mpirun"),
                     "mpich": os.access(self.lock_peer_mpich, os.X_OK) and
                     shutil.which("mpirun.mpich")}
        self.why = {}  # peer: why it is not measured
        self.kept = {}  # sandwich label: [(ours, peer, state)]
        self.set_aside = {}  # sandwich label: count
        for impl in PEERS:
            if not self.have[impl]:
                self.why[impl] = "not built or no launcher"
                continue
            before = len(self.failures)
            if not self.lock_run(impl, "lock_put_lat", 2, ["--max-size", "8", "--iters", "100"]):
                self.have[impl] = False
                lines = self.failures[before].splitlines() if len(self.failures) > before \
                    else ["no table"]
                err = [x.strip() for x in lines[1:] if any(c.isalpha() for c in x) and
                       "ORTE_ERROR_LOG" not in x and "help message" not in x]
                self.why[impl] = "could not run here: " + (" / ".join(err[:3]) if err
                                                            else lines[0])[:240]

    def lock_run(self, impl, bench, npes=2, extra=(), tables=False):
        """One run; its table for `bench` (every table with tables=True)."""
        gk = self.ours
        if impl == "gasket":
            cmd = [gk[0], "-n", str(npes)] + (["--bind"] if npes <= 2 else []) + [gk[-1]]
            env = {}
        elif impl in ("sm", "rdma"):
            if not self.have[impl]:
                return {}
            cmd = ["mpirun", "-n", str(npes)] + (
                ["--bind-to", "core"] if npes <= 2 else ["--oversubscribe", "--bind-to", "none"]
            ) + ["--mca", "osc", impl, "--mca", "btl", "self,vader", self.lock_peer]
            env = compare.MPI_ENV
            if impl == "rdma" and npes > 2 and bench == "lock_contended":
                # 12-60 us per acquisition oversubscribed: 10000 each is
                # still seconds of contention, 50000 would be half a minute
                extra = list(extra) + ["--iters", "10000"]
        else:
            if not self.have["mpich"]:
                return {}
            cmd = ["mpirun.mpich", "-n", str(npes)] + (
                ["-bind-to", "core"] if npes <= 2 else []) + [self.lock_peer_mpich]
            env = {}
            if npes > 2:  # its oversubscribed acquisitions take milliseconds
                extra = list(extra) + ["--iters", "100"]
        cmd = cmd + [bench] + compare.DIGITS + list(extra)
        return self.run_command(cmd, env, bench, every_table=tables)


def measure(runner, reps):
    samples, ratios = compare.Samples(), {}
    for rep in compare.repetitions(reps):
        for bench in LAT + ["lock_contended@2", "lock_contended@4", "lock_contended@8"]:
            name, _, n = bench.partition("@")
            npes = int(n) if n else 2
            tables = {}
            for impl in compare.alternate(["gasket"] + PEERS, rep):
                extra = ["--max-size", "65536"] if name in LAT else []
                tables[impl] = runner.lock_run(impl, name, npes, extra)
                samples.add(impl, bench, tables[impl])
            for label, tb, size, peer, limit in TARGETS:
                if tb == bench and tables.get("gasket", {}).get(size) and \
                        tables.get(peer, {}).get(size):
                    ratios.setdefault(label, []).append(tables["gasket"][size] /
                                                        tables[peer][size])
        for impl in ["gasket"] + PEERS:
            for name, t in runner.lock_run(impl, "overlap", 2, [], tables=True).items():
                samples.add(impl, name, t)
        # Sandwiches for the 8-byte latency targets.
        for label, tb, size, peer, limit in TARGETS[:3]:
            if not runner.have[peer]:
                continue
            small = ["--max-size", "8"]
            state = runner.probe_state()
            a = runner.lock_run(peer, tb, 2, small)
            m = runner.lock_run("gasket", tb, 2, small)
            b = runner.lock_run(peer, tb, 2, small)
            if runner.probe_state() != state:
                state = None
            if not (a.get(8) and b.get(8) and m.get(8)):
                continue
            if max(a[8], b[8]) / min(a[8], b[8]) > compare.SANDWICH_SPREAD:
                runner.set_aside[label] = runner.set_aside.get(label, 0) + 1
                continue
            around = (a[8] + b[8]) / 2
            ratios.setdefault(label + " (sandwiches)", []).append(m[8] / around)
            runner.kept.setdefault(label, []).append((m[8], around, state))
    return samples.values, ratios


def report(values, ratios, reps, runner):
    out = ["# Windows and locks", "",
           "`python3 bench/compare_win.py --reps %d`; 2 PEs pinned for the latencies, "
           "lock_contended also at 4 and 8 PEs (oversubscribed, unpinned)." % reps, ""]
    out += compare.machine_lines()
    out += [""] + ["%s: %s." % (NAMES[p], runner.why[p]) for p in PEERS if p in runner.why]
    out += ["", "Medians over repetitions, us (overlap: % of a put / get hidden):", ""]
    for bench in LAT + ["lock_contended@2", "lock_contended@4", "lock_contended@8",
                        "overlap_put", "overlap_get"]:
        sizes = sorted({s for (i, b, s) in values if b == bench})
        if not sizes:
            continue
        out += ["### %s" % bench, "", "| size | " + " | ".join(NAMES[i] for i in
                                                              ["gasket"] + PEERS) + " |",
                "|---:|" + "---:|" * (1 + len(PEERS))]
        for s in sizes:
            cells = []
            for impl in ["gasket"] + PEERS:
                v = values.get((impl, bench, s))
                cells.append("%.3f" % statistics.median(v) if v else "-")
            out.append("| %d | %s |" % (s, " | ".join(cells)))
        out.append("")
    out += compare.TARGETS_HEADER
    failed = []
    rows = [(t[0], t[4]) for t in TARGETS] + [(t[0] + " (sandwiches)", t[4])
                                              for t in TARGETS[:3]]
    for label, limit in rows:
        r = ratios.get(label)
        row, ok = compare.target_row(label, r, limit, False)
        if r and not ok:
            failed.append(label)
        out.append(row)
    out += ["", "Sandwiches (8 B) by the VM's state, probed before and after each with the "
            "raw floor's one-way time: \"ht\" below %.2f us, \"cores\" above; "
            "probes that disagree count in neither:" % runner.state_us, "",
            "| target | ht: ratio | sandwiches | cores: ratio | sandwiches | set aside |",
            "|---|---:|---:|---:|---:|---:|"]
    for label, tb, size, peer, limit in TARGETS[:3]:
        kept = runner.kept.get(label, [])
        cells = []
        for state in ("ht", "cores"):
            r = [o / p for o, p, st in kept if st == state]
            cells += ["%.2f" % statistics.median(r) if r else "-", str(len(r))]
        out.append("| %s | %s | %d |" % (label, " | ".join(cells),
                                         runner.set_aside.get(label, 0)))
    out += compare.failure_lines(runner.failures, 300)
    return "\n".join(out) + "\n", failed


def plot(directory, values):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("compare_win.py: no matplotlib; no figures\n")
        return
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for ax, bench in zip(axes.flat, LAT):
        for impl in ["gasket"] + PEERS:
            sizes = sorted(s for (i, b, s) in values if i == impl and b == bench)
            if sizes:
                ax.plot(sizes, [statistics.median(values[(impl, bench, s)]) for s in sizes],
                        marker="o", label=NAMES[impl])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(bench)
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("latency (us)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Lock + RMA + unlock latency, 2 PEs (medians)")
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "win_lock_lat.png"), dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for impl in ["gasket"] + PEERS:
        xs, ys = [], []
        for n in (2, 4, 8):
            v = values.get((impl, "lock_contended@%d" % n, 8))
            if v:
                xs.append(n)
                ys.append(statistics.median(v))
        if xs:
            ax.plot(xs, ys, marker="o", label=NAMES[impl])
    ax.set_xlabel("PEs (2 cores: 4 and 8 oversubscribed)")
    ax.set_ylabel("us per acquisition (lower is better)")
    ax.set_yscale("log")
    ax.set_xticks([2, 4, 8])
    ax.set_title("Contended exclusive lock on one PE")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "win_lock_contended.png"), dpi=110)
    plt.close(fig)


def main():
    ap = compare.script_args(__doc__, 7)
    ap.add_argument("--plot-dir", metavar="DIR",
                    help="draw win_lock_lat.png and win_lock_contended.png here (matplotlib)")
    compare.add_state_us(ap)
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is not met")
    args = ap.parse_args()
    runner = Runner(args)
    start = time.time()
    values, ratios = measure(runner, args.reps)
    text, failed = report(values, ratios, args.reps, runner)
    compare.finish(text, start, args.markdown)
    if args.plot_dir:
        plot(args.plot_dir, values)
    return 1 if (args.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())

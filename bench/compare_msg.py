#!/usr/bin/env python3
"""compare_msg.py: gasket's messages and threads beside MPI and UCX.

Active messages, two-sided messages and threads on contexts beside Open
MPI, MPICH, UCX's ucx_perftest and the raw floor, with compare.py's
machinery (runners, alternation, medians of paired ratios).

    python3 bench/compare_msg.py [--build build] [--reps 7] [--markdown FILE]

Each repetition runs ours and every peer back to back, alternating which
goes first; a ratio is the median over repetitions of ours / peer from the
same repetition. The latency targets are also measured in sandwiches (the
8-byte row only: peer, ours, peer), as compare.py does, because this VM
changes state every few seconds.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (the shared machinery)

MIB = 1024 * 1024

# label, ours (impl, bench, size), peer (impl, bench, size), limit, higher is
# better, how the peer's value is scaled first (a round trip from a one-way).
TARGETS = [
    ("short AM round trip <= 2x the raw flag ping-pong round trip",
     ("gasket", "am_lat", 0), ("raw", "flag_pingpong", 8), 2.0, False, 2.0),
    ("send/recv 8 B one-way <= 0.7x Open MPI",
     ("gasket", "sendrecv_lat", 8), ("mpi", "sendrecv_lat", 8), 0.7, False, 1.0),
] + [
    ("send/recv bandwidth %d MiB >= 1.0x Open MPI" % (s // MIB),
     ("gasket", "sendrecv_bw", s), ("mpi", "sendrecv_bw", s), 1.0, True, 1.0)
    for s in (1 * MIB, 2 * MIB, 4 * MIB)
]
INFO = [
    ("send/recv 8 B one-way / MPICH",
     ("gasket", "sendrecv_lat", 8), ("mpich", "sendrecv_lat", 8), 0.7, False, 1.0),
    ("send/recv bandwidth 1 MiB / MPICH",
     ("gasket", "sendrecv_bw", MIB), ("mpich", "sendrecv_bw", MIB), 1.0, True, 1.0),
    ("short AM round trip / ucx_perftest ucp_am_lat round trip",
     ("gasket", "am_lat", 0), ("ucx", "ucp_am_lat", 8), 2.0, False, 2.0),
]
HIGHER = {"sendrecv_bw", "am_rate"}


class Runner(compare.Runner):
    """compare.Runner plus MPICH's peer and ucx_perftest."""

    def __init__(self, args):
        super().__init__(args)
        b = args.build
        self.mpich = ["mpirun.mpich", "-n", "2", "-bind-to", "core",
                      os.path.join(b, "bench", "mpi-peer-mpich")]
        self.have_mpich = (os.access(self.mpich[-1], os.X_OK) and
                           shutil.which("mpirun.mpich") is not None)
        self.have_ucx = shutil.which("ucx_perftest") is not None

    def run(self, impl, bench, extra=(), npes=None):
        if impl == "mpich":
            if not self.have_mpich:
                return {}
            return self.run_command(self.mpich + [bench] + compare.DIGITS + list(extra), {},
                                    bench)
        if impl == "ucx":
            return self.ucx_am_lat()
        return super().run(impl, bench, extra, npes)

    def ucx_am_lat(self):
        """ucx_perftest's UCP active-message latency, 8 B, server and client
        pinned like our PEs; {8: one-way us} (ucx_perftest prints half the
        round trip)."""
        if not self.have_ucx:
            return {}
        port = str(13337 + int(time.time()) % 1000)
        common = ["-t", "ucp_am_lat", "-s", "8", "-n", "100000", "-p", port]
        server = subprocess.Popen(["taskset", "-c", str(self.cpus[1]), "ucx_perftest"] + common,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(0.5)
            proc = subprocess.run(["taskset", "-c", str(self.cpus[0]), "ucx_perftest",
                                   "localhost"] + common,
                                  capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return {}
        finally:
            server.kill()
            server.wait()
        for line in proc.stdout.splitlines():
            if line.startswith("Final:"):
                return {8: float(line.split()[2])}  # the 50th percentile
        return {}


def measure(runner, reps):
    samples = compare.Samples()  # by (impl, bench, size)
    ratios = {}  # target label -> [ratios]
    thread_ratios = []
    groups = [
        ("am_lat", [("raw", "flag_pingpong"), ("ucx", "ucp_am_lat")], ["--max-size", "4096"]),
        ("am_rate", [], []),
        ("sendrecv_lat", [("mpi", "sendrecv_lat"), ("mpich", "sendrecv_lat")], []),
        ("sendrecv_bw", [("mpi", "sendrecv_bw"), ("mpich", "sendrecv_bw")], []),
        ("mt_put_lat", [], []),
    ]
    for rep in compare.repetitions(reps):
        tables = {}
        for bench, peers, extra in groups:
            for impl, name in compare.alternate([("gasket", bench)] + peers, rep):
                ex = extra if impl == "gasket" else (["--max-size", "8"] if impl == "raw"
                                                     else [])
                # mt_put_lat without --bind: --bind gives PE 0 one CPU, and
                # its threads would share it (gk-bench pins each thread to
                # a CPU of its own from what the PE may use).
                t = runner.run(impl, name, extra=ex, npes=2 if bench == "mt_put_lat" else None)
                tables[(impl, name)] = t
                samples.add(impl, name, t)
        compare.target_ratios(ratios, TARGETS + INFO, tables)
        mt = tables.get(("gasket", "mt_put_lat"), {})
        if mt.get(1) and mt.get(2):
            thread_ratios.append(mt[2] / mt[1])
        # Sandwiches for the two latency targets: peer, ours, peer.
        for label, ours, peer, limit, higher, scale in TARGETS[:2]:
            small = ["--max-size", "8" if ours[1] != "am_lat" else "1"]
            a = runner.run(peer[0], peer[1], extra=["--max-size", "8"])
            m = runner.run(ours[0], ours[1], extra=small)
            b = runner.run(peer[0], peer[1], extra=["--max-size", "8"])
            pa, pb, om = a.get(peer[2]), b.get(peer[2]), m.get(ours[2])
            if pa and pb and om and max(pa, pb) / min(pa, pb) <= compare.SANDWICH_SPREAD:
                ratios.setdefault(label + " (sandwiches)", []).append(
                    om / ((pa + pb) / 2 * scale))
                if peer[0] == "raw":  # the raw floor's time says the VM's state
                    runner.am_sandwiches.append(((pa + pb) / 2, om / ((pa + pb) / 2 * scale)))
    return samples.values, ratios, thread_ratios


def report(values, ratios, thread_ratios, reps, runner):
    out = ["# Active messages, two-sided messages and threads", "",
           "`python3 bench/compare_msg.py --reps %d`; %s." % (reps, time.strftime("%Y-%m-%d")),
           ""]
    out += compare.machine_lines() if hasattr(compare, "machine_lines") else []
    out += ["", "Medians over repetitions (us, or MB/s and messages/s where said):", ""]
    benches = [("am_lat", "gasket", "short (0) / medium AM request + short reply, us round trip"),
               ("am_rate", "gasket", "short AM requests per second"),
               ("sendrecv_lat", "gasket", "gk_send/gk_recv, us one-way"),
               ("sendrecv_lat", "mpi", "Open MPI MPI_Send/MPI_Recv, us one-way"),
               ("sendrecv_lat", "mpich", "MPICH MPI_Send/MPI_Recv, us one-way"),
               ("sendrecv_bw", "gasket", "gk_isend windows, MB/s"),
               ("sendrecv_bw", "mpi", "Open MPI MPI_Isend windows, MB/s"),
               ("sendrecv_bw", "mpich", "MPICH MPI_Isend windows, MB/s"),
               ("flag_pingpong", "raw", "raw flag ping-pong, us one-way"),
               ("ucp_am_lat", "ucx", "ucx_perftest ucp_am_lat 8 B, us one-way"),
               ("mt_put_lat", "gasket", "gk_ctx_put + quiet, us; size = threads")]
    for bench, impl, title in benches:
        sizes = sorted(s for (i, b, s) in values if i == impl and b == bench)
        if not sizes:
            out += ["- %s: not measured" % title]
            continue
        cells = ["%d: %s" % (s, ("%.0f" if bench in HIGHER else "%.3f")
                             % statistics.median(values[(impl, bench, s)]))
                 for s in sizes]
        out += ["- %s: %s" % (title, ", ".join(cells))]
    out += [""] + compare.TARGETS_HEADER
    failed = []
    rows = [(t[0], t[3], t[4]) for t in TARGETS] + \
           [(t[0] + " (sandwiches)", t[3], t[4]) for t in TARGETS[:2]] + \
           [(t[0], t[3], t[4]) for t in INFO]
    for label, limit, higher in rows:
        r = ratios.get(label)
        info = any(label == t[0] for t in INFO)
        if not r:
            out.append("| %s | - | - | 0 | %.2f | not measured |" % (label, limit))
            continue
        row, ok = compare.target_row(label, r, limit, higher, info)
        if not ok and not info:
            failed.append(label)
        out.append(row)
    if thread_ratios:
        row, ok = compare.target_row("put latency, 2 threads on own contexts <= 1.2x 1 thread",
                                     thread_ratios, 1.2, False)
        if not ok:
            failed.append("mt_put_lat")
        out.append(row)
    if runner.am_sandwiches:
        out += ["", "The AM round trip's sandwiches by the VM's state (the raw floor's "
                "one-way time, us: ratio; \"ht\" below %.2f us):" % runner.state_us, ""]
        for state in ("ht", "cores"):
            kept = sorted(p for p in runner.am_sandwiches
                          if (p[0] < runner.state_us) == (state == "ht"))
            if kept:
                out.append("- %s: median %.3f of %d (%s)" % (
                    state, statistics.median(r for _, r in kept), len(kept),
                    ", ".join("%.3f: %.2f" % p for p in kept)))
    out += compare.failure_lines(runner.failures)
    return "\n".join(out) + "\n", failed


def main():
    ap = compare.script_args(__doc__, 7)
    compare.add_state_us(ap)
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a target is not met")
    args = ap.parse_args()
    runner = Runner(args)
    runner.am_sandwiches = []  # (raw one-way us, ratio) of each kept AM sandwich
    start = time.time()
    values, ratios, thread_ratios = measure(runner, args.reps)
    text, failed = report(values, ratios, thread_ratios, args.reps, runner)
    compare.finish(text, start, args.markdown)
    return 1 if (args.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""compare_dtype.py: gasket's non-contiguous puts and gets beside MPI's.

    python3 bench/compare_dtype.py [--build build] [--reps 5] [--markdown FILE]
                                   [--hosts 2] [--strict] [--only NAME,...]

Runs gk-bench's vector_put_lat, vector_get_lat, subarray_put_lat,
subarray_get_lat and subarray_acc_lat (bench/gk_bench_dtype.c; the last
gk_accumulate_typed against MPI_Accumulate, shown without a target) and
the same benchmarks of
bench/peers/mpi_dtype_peer.c built for Open MPI (mpi-dtype-peer) and
MPICH (mpi-dtype-peer-mpich): 4 MiB moved per operation as a vector of
8 B to 64 KiB blocks (stride two blocks) or a 2-D subarray of doubles,
the same type on both sides; gk_put_typed + gk_quiet against MPI_Put +
MPI_Win_flush in a MPI_Win_lock_all epoch. Each program also times the
contiguous transfer of the same 4 MiB, alternating with the typed one
(the NAME_contig tables), and gasket's, on one node, the same runs copied
by a plain loop of memcpy (NAME_floor): what the memory allows any copy
of that layout.

On one node (the default): `gasket-run -n 2 --bind`, Open MPI with
`--mca osc sm`, MPICH's default (ch4, shared memory). With --hosts 2: the
two PEs or ranks on two simulated hosts over UCX on loopback TCP, as
compare_hosts.py makes them (its Hosts class and MPMD launch lines), with
fewer iterations (the small blocks are slow there).

Each repetition runs ours and the peers back to back, the order flipping
every repetition; a ratio is the median over repetitions of ratios taken
within one repetition. Targets, for blocks (rows) of 1 KiB and more:
typed bandwidth at least 0.9 of the contiguous one (one node), and ours /
each MPI's time at most 0.7 on one node, 1.0 across hosts; the smaller
blocks are shown for information. Exit status 0, or with --strict 1 when
a target is not met.

Standard library only.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import compare_hosts  # noqa: E402

TARGET_BENCHES = ["vector_put_lat", "vector_get_lat", "subarray_put_lat", "subarray_get_lat"]
# Typed accumulates, shown beside MPI_Accumulate; no target of their own.
BENCHES = TARGET_BENCHES + ["subarray_acc_lat"]
PEERS = ["ompi", "mpich"]
NAMES = {"gasket": "gasket", "ompi": "Open MPI", "mpich": "MPICH"}
TARGET_MIN_BLOCK = 1024
RUN_TIMEOUT = 300
HOSTS_ARGS = ["--iters", "3", "--warmup", "1"]


class LocalRunner:
    """One node: ours with gasket-run --bind, the peers with mpirun."""

    def __init__(self, args):
        b = args.build
        self.failures = []
        self.why = {}
        gk = os.path.join(b, "bench", "gk-bench")
        run = os.path.join(b, "tools", "gasket-run")
        compare.need_built("compare_dtype.py", (run, gk), b)
        self.cmds = {
            "gasket": ([run, "-n", "2", "--bind", gk], {}),
            "ompi": (["mpirun", "-n", "2", "--bind-to", "core", "--mca", "osc", "sm",
                      os.path.join(b, "bench", "mpi-dtype-peer")], dict(compare.MPI_ENV)),
            "mpich": (["mpirun.mpich", "-n", "2", "-bind-to", "core",
                       os.path.join(b, "bench", "mpi-dtype-peer-mpich")], {}),
        }
        for impl in PEERS:
            cmd = self.cmds[impl][0]
            if not os.access(cmd[-1], os.X_OK):
                self.why[impl] = "%s is not built" % os.path.basename(cmd[-1])
            elif shutil.which(cmd[0]) is None:
                self.why[impl] = "%s is not installed" % cmd[0]

    def run(self, impl, bench):
        if impl in self.why:
            return {}
        cmd, env = self.cmds[impl]
        full = dict(os.environ)
        full.update(env)
        argv = cmd + [bench] + compare.DIGITS
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, env=full,
                                  timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.failures.append("%s: timed out" % " ".join(argv))
            return {}
        tables = compare.parse_tables(proc.stdout)
        if proc.returncode != 0 or bench not in tables:
            self.failures.append("%s: exit %d: %s" % (" ".join(argv), proc.returncode,
                                                     proc.stderr.strip()[-300:]))
            sys.stderr.write("warning: %s\n" % self.failures[-1])
            return {}
        return tables


class HostsRunner:
    """Two simulated hosts: compare_hosts.Runner with the dtype peers."""

    def __init__(self, args, hosts):
        self.inner = compare_hosts.Runner(args, hosts)
        b = args.build
        self.inner.programs = {"mpich": os.path.join(b, "bench", "mpi-dtype-peer-mpich"),
                               "ompi": os.path.join(b, "bench", "mpi-dtype-peer")}
        self.why = {}
        for impl, prog in self.inner.programs.items():
            if impl in self.inner.why:
                self.why[impl] = self.inner.why[impl]
            elif not os.access(prog, os.X_OK):
                self.why[impl] = "%s is not built" % os.path.basename(prog)
        self.inner.why = dict(self.why)
        self.failures = self.inner.failures

    def run(self, impl, bench):
        return self.inner.run(impl, bench, extra=HOSTS_ARGS)


def measure(runner, reps, benches):
    values = {}  # (impl, table, size): [us]
    ratios = {}  # (kind, bench, size): [ratio]
    for rep in compare.repetitions(reps):
        for bench in benches:
            tables = {}
            for impl in compare.alternate(["gasket"] + PEERS, rep):
                tables[impl] = runner.run(impl, bench)
                for table, rows in tables[impl].items():
                    for size, v in rows.items():
                        values.setdefault((impl, table, size), []).append(v)
            ours = tables["gasket"].get(bench, {})
            contig = tables["gasket"].get(bench + "_contig", {})
            floor = tables["gasket"].get(bench + "_floor", {})
            for size, v in ours.items():
                if contig.get(size) and v > 0:
                    # bandwidth ratio: typed / contiguous = contiguous time / typed time
                    ratios.setdefault(("contig", bench, size), []).append(contig[size] / v)
                if contig.get(size) and floor.get(size):
                    # the ceiling: a loop of memcpy over the same runs, / contiguous
                    ratios.setdefault(("floor", bench, size), []).append(
                        contig[size] / floor[size])
                for impl in PEERS:
                    p = tables[impl].get(bench, {}).get(size)
                    if p:
                        ratios.setdefault((impl, bench, size), []).append(v / p)
    return values, ratios


def med(values, key):
    v = values.get(key)
    return statistics.median(v) if v else None


def cell(x, fmt="%.1f"):
    return "-" if x is None else fmt % x


def report(values, ratios, reps, runner, args):
    where = ("2 PEs on 2 simulated hosts, UCX_TLS=tcp,self, UCX_NET_DEVICES=lo"
             if args.hosts == 2 else "2 PEs on one node")
    cmd = "python3 bench/compare_dtype.py --build %s --reps %d%s" % (
        args.build, reps, " --hosts 2" if args.hosts == 2 else "")
    out = ["# Non-contiguous puts, gets and accumulates", "", "`%s`: %s." % (cmd, where), ""]
    out += compare.machine_lines()
    for impl in PEERS:
        if impl in runner.why:
            out += ["", "%s: not measured: %s." % (NAMES[impl], runner.why[impl])]
    limit = 1.0 if args.hosts == 2 else 0.7
    failed = []
    for bench in args.only:
        sizes = sorted({s for (i, t, s) in values if t == bench and i == "gasket"})
        if not sizes:
            continue
        out += ["", "## %s" % bench, "",
                "us per 4 MiB operation (median of %d runs); typed/contig: typed bandwidth "
                "over contiguous, same program, same run; loop/contig: the same for a "
                "plain loop of memcpy over the same runs (one node: the ceiling of any "
                "pack-on-the-fly copy); x MPI: ours / theirs." % reps, "",
                "| block | gasket | contig | typed/contig | loop/contig | Open MPI | "
                "x Open MPI | MPICH | x MPICH |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for size in sizes:
            row = [str(size), cell(med(values, ("gasket", bench, size))),
                   cell(med(values, ("gasket", bench + "_contig", size))),
                   cell(med(ratios, ("contig", bench, size)), "%.2f"),
                   cell(med(ratios, ("floor", bench, size)), "%.2f")]
            for impl in PEERS:
                row += [cell(med(values, (impl, bench, size))),
                        cell(med(ratios, (impl, bench, size)), "%.2f")]
            out.append("| " + " | ".join(row) + " |")
    out += ["", "## Targets (blocks of %d B and more)" % TARGET_MIN_BLOCK, "",
            "Worst size's median ratio over the sizes >= %d B." % TARGET_MIN_BLOCK, ""]
    out += ["| target | worst median ratio | at block | sizes met | limit | result |",
            "|---|---:|---:|---:|---:|---|"]
    checks = [("contig", ">=", 0.9)] if args.hosts != 2 else []
    checks += [(impl, "<=", limit) for impl in PEERS]
    for bench in [b for b in TARGET_BENCHES if b in args.only]:
        for kind, sign, lim in checks:
            meds = {s: statistics.median(v) for (k, b, s), v in ratios.items()
                    if k == kind and b == bench and s >= TARGET_MIN_BLOCK}
            label = "%s %s" % (bench, "typed/contig bandwidth" if kind == "contig"
                               else "time vs " + NAMES[kind])
            if not meds:
                out.append("| %s | - | - | 0 | %s %.2f | not measured |" % (label, sign, lim))
                failed.append(label)
                continue
            higher = sign == ">="
            worst = min(meds, key=meds.get) if higher else max(meds, key=meds.get)
            met = sum(1 for v in meds.values() if (v >= lim if higher else v <= lim))
            ok = met == len(meds)
            if not ok:
                failed.append(label)
            out.append("| %s | %.2f | %d | %d/%d | %s %.2f | %s |" % (
                label, meds[worst], worst, met, len(meds), sign, lim, "PASS" if ok else "FAIL"))
    out += compare.failure_lines(runner.failures, 200)
    return "\n".join(out) + "\n", failed


def main():
    ap = compare.script_args(__doc__, 5)
    ap.add_argument("--hosts", type=int, default=1, choices=(1, 2),
                    help="1: one node (default); 2: two simulated hosts over UCX/TCP")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a target is not met")
    ap.add_argument("--only", default=",".join(BENCHES),
                    help="the benchmarks to run, comma-separated (all: %(default)s)")
    args = ap.parse_args()
    args.only = [b for b in args.only.split(",") if b]
    for b in args.only:
        if b not in BENCHES:
            ap.error("--only: %s is not one of %s" % (b, ", ".join(BENCHES)))
    if args.reps < 1:
        ap.error("--reps must be at least 1, not %d" % args.reps)
    start = time.time()
    hosts = None
    try:
        if args.hosts == 2:
            hosts = compare_hosts.Hosts()
            runner = HostsRunner(args, hosts)
        else:
            runner = LocalRunner(args)
        values, ratios = measure(runner, args.reps, args.only)
    finally:
        if hosts is not None:
            hosts.close()
    text, failed = report(values, ratios, args.reps, runner, args)
    compare.finish(text, start, args.markdown)
    return 1 if (args.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())

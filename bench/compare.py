#!/usr/bin/env python3
"""compare.py: gasket's micro-benchmarks beside Open MPI and the raw floor.

    python3 bench/compare.py [--build build] [--reps 5] [--quick]
                             [--markdown FILE] [--plot PNG] [--strict]

Runs, in each of --reps repetitions and for each benchmark, ours
(gasket-run -n 2 --bind build/bench/gk-bench NAME) and its peer back to back:
mpi-peer under mpirun -n 2 --bind-to core --mca osc sm, or raw-floor pinned
to the same two CPUs that gasket-run --bind uses (the first two this process
may run on). The order of ours and the peer flips every repetition, so a
drift of the machine does not always favour the same side.

For the four small-message targets it also runs "sandwiches", three per
repetition: only the 8-byte row (--max-size 8) of ours, the peer, and ours
again (or peer, ours, peer), each run a few tens of milliseconds. On a
virtual machine whose vCPUs change state every few seconds (two cores,
or two hyperthreads of one core: 5x apart in latency) a ratio of two runs
taken in different states means nothing; a sandwich whose outer runs
differ by more than 25% is such a case and is set aside (counted in the
report). Those targets are checked on the median ratio of the kept
sandwiches.

Prints, per benchmark and size, our median, the peer's median, the ratio of
the medians, and the median of the per-repetition (paired) ratios; then the
targets, each checked on the median of the paired ratios, with PASS or
FAIL. --quick runs only what the targets need, 3 repetitions (unless --reps
is given). --markdown also writes the report to FILE. --plot draws the
ping-pong latency figure (needs matplotlib). Exit status 0, or with
--strict 1 when a target is not met or not measured.

Standard library only (matplotlib only for --plot).

The other compare_*.py scripts import this one for what they share: the
table parser, the runner, the samples, and the helpers below Samples
(command line, repetitions, targets table, report file).
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
DIGITS = ["--digits", "4"]  # the programs print 2 decimals by default, as OSU

# Targets: label, (ours impl, bench), (peer impl, bench), size, limit,
# higher is better, the source of the pairs ("tight" or "table").
KiB = 1024
TARGETS = [
    ("put 8 B + quiet <= 0.8x osc/sm MPI_Put + MPI_Win_flush",
     ("gasket", "put_lat"), ("mpi", "put_lat"), 8, 0.8, False, "tight"),
    ("fetch-add <= 1.0x osc/sm MPI_Fetch_and_op",
     ("gasket", "fadd_lat"), ("mpi", "fadd_lat"), 8, 1.0, False, "tight"),
    ("flag_pingpong one-way 8 B <= 1.3x raw flag ping-pong",
     ("gasket", "flag_pingpong"), ("raw", "flag_pingpong"), 8, 1.3, False, "tight"),
    ("barrier <= 0.5x Open MPI MPI_Barrier",
     ("gasket", "barrier_lat"), ("mpi", "barrier_lat"), 2, 0.5, False, "tight"),
] + [
    ("put_bw %s >= 0.95x memcpy" % (("%d KiB" % (s // KiB)) if s < 1024 * KiB
                                    else "%d MiB" % (s // (1024 * KiB))),
     ("gasket", "put_bw"), ("raw", "memcpy_bw"), s, 0.95, True, "table")
    for s in (64 * KiB, 128 * KiB, 256 * KiB, 512 * KiB, 1024 * KiB, 2048 * KiB, 4096 * KiB)
]

# Shown beside the limits of the signaling-put and collective figures, for
# information; not checked here.
INFO = [
    ("flag_pingpong 8 B / raw ping-pong, one segment per side",
     ("gasket", "flag_pingpong"), ("raw", "flag_pingpong_owned"), 8, 1.3, False, "table"),
    ("signal_pingpong 8 B / MPI_Send+MPI_Recv one-way",
     ("gasket", "signal_pingpong"), ("mpi", "pingpong"), 8, 0.5, False, "table"),
    ("bcast 8 B / MPI_Bcast", ("gasket", "bcast_lat"), ("mpi", "bcast_lat"), 8, 0.7, False,
     "table"),
    ("allreduce 1 double / MPI_Allreduce",
     ("gasket", "allreduce_lat"), ("mpi", "allreduce_lat"), 8, 0.7, False, "table"),
]

# The comparison tables: title, ours, peer.
TABLES = [
    ("put_lat: gk_put + gk_quiet vs MPI_Put + MPI_Win_flush (us)",
     ("gasket", "put_lat"), ("mpi", "put_lat")),
    ("get_lat: gk_get + gk_quiet vs MPI_Get + MPI_Win_flush (us)",
     ("gasket", "get_lat"), ("mpi", "get_lat")),
    ("put_bw: gk_put_nbi windows vs memcpy (MB/s)", ("gasket", "put_bw"), ("raw", "memcpy_bw")),
    ("put_bw: gk_put_nbi windows vs MPI_Put windows (MB/s)", ("gasket", "put_bw"),
     ("mpi", "put_bw")),
    ("get_bw: gk_get_nbi windows vs MPI_Get windows (MB/s)", ("gasket", "get_bw"),
     ("mpi", "get_bw")),
    ("fadd_lat: gk_atomic_fetch_add_u64 vs MPI_Fetch_and_op + flush (us)",
     ("gasket", "fadd_lat"), ("mpi", "fadd_lat")),
    ("cswap_lat: gk_atomic_compare_swap_u64 vs MPI_Compare_and_swap + flush (us)",
     ("gasket", "cswap_lat"), ("mpi", "cswap_lat")),
    ("barrier_lat: gk_barrier vs MPI_Barrier (us; size is the PE count)",
     ("gasket", "barrier_lat"), ("mpi", "barrier_lat")),
    ("flag_pingpong: put + fence + flag vs raw store + flag (us one-way)",
     ("gasket", "flag_pingpong"), ("raw", "flag_pingpong")),
    ("flag_pingpong vs raw, one segment per side (us one-way)",
     ("gasket", "flag_pingpong"), ("raw", "flag_pingpong_owned")),
    ("signal_pingpong: gk_put_sem + gk_sem_wait vs MPI_Send/MPI_Recv (us one-way)",
     ("gasket", "signal_pingpong"), ("mpi", "pingpong")),
    ("nbi_flag_pingpong: put_nbi + quiet + flag vs MPI_Send/MPI_Recv (us one-way)",
     ("gasket", "nbi_flag_pingpong"), ("mpi", "pingpong")),
    ("bcast_lat: gk_broadcast vs MPI_Bcast (us)", ("gasket", "bcast_lat"), ("mpi", "bcast_lat")),
    ("allreduce_lat: gk_allreduce vs MPI_Allreduce (us)",
     ("gasket", "allreduce_lat"), ("mpi", "allreduce_lat")),
]

HIGHER_IS_BETTER = {"put_bw", "get_bw", "memcpy_bw"}


def parse_tables(text):
    """{bench: {size: value}} from a program's OSU-style output."""
    tables, name = {}, None
    for line in text.splitlines():
        if line.startswith("#"):
            words = line[1:].split()
            # A table starts with "# NAME (IMPL), N PEs".
            if len(words) >= 4 and words[1].startswith("(") and words[-1] == "PEs":
                name = words[0]
                tables.setdefault(name, {})
            continue
        parts = line.split()
        if name is not None and len(parts) == 2:
            try:
                tables[name][int(parts[0])] = float(parts[1])
            except ValueError:
                pass
    return tables


def pinned_cpus():
    """The two CPUs the runs are pinned to, as gasket-run --bind pins PEs 0
    and 1: the first two this process may run on (one twice if it has one)."""
    cpus = sorted(os.sched_getaffinity(0))
    return [cpus[0], cpus[1 % len(cpus)]]


def need_built(script, paths, build):
    """Ends the script with a message when a program it runs is not built."""
    for path in paths:
        if not os.access(path, os.X_OK):
            sys.exit("%s: %s is missing; build first (cmake --build %s)" % (script, path, build))


class Runner:
    def __init__(self, args):
        b = args.build
        self.failures = []
        self.state_us = args.state_us
        self.cpus = pinned_cpus()
        self.ours = [os.path.join(b, "tools", "gasket-run"), "-n", "2", "--bind",
                     os.path.join(b, "bench", "gk-bench")]
        self.mpi = ["mpirun", "-n", "2", "--bind-to", "core", "--mca", "osc", "sm",
                    os.path.join(b, "bench", "mpi-peer")]
        self.raw = [os.path.join(b, "bench", "raw-floor")]
        need_built("compare.py", (self.ours[0], self.ours[-1], self.raw[0]), b)
        self.have_mpi = (os.access(self.mpi[-1], os.X_OK) and shutil.which("mpirun") is not None)
        if not self.have_mpi:
            sys.stderr.write("compare.py: no mpi-peer or mpirun; the MPI comparisons are "
                             "skipped\n")

    def command(self, impl, bench, extra=()):
        if impl == "gasket":
            return self.ours + [bench] + DIGITS + list(extra), {}
        if impl == "mpi":
            return self.mpi + [bench] + DIGITS + list(extra), MPI_ENV
        cpus = [str(self.cpus[0])] if bench == "memcpy_bw" else [str(c) for c in self.cpus]
        return self.raw + [bench] + cpus + DIGITS + list(extra), {}

    def probe_state(self):
        """The machine's state now, from the raw floor's 8-byte one-way
        time: "ht" below --state-us (the two CPUs share a core, as
        hyperthreads do), "cores" above it, None if it could not run."""
        table = self.run("raw", "flag_pingpong", extra=["--max-size", "8", "--iters", "20000"])
        if 8 not in table:
            return None
        return "ht" if table[8] < self.state_us else "cores"

    def run(self, impl, bench, extra=(), npes=None):
        """One program run; returns its table for `bench` ({} on failure)."""
        if impl == "mpi" and not self.have_mpi:
            return {}
        cmd, env = self.command(impl, bench, extra)
        if npes is not None:  # more PEs than cores: no pinning
            if impl == "gasket":
                cmd = [self.ours[0], "-n", str(npes), self.ours[-1]] + cmd[len(self.ours):]
            else:
                cmd = ["mpirun", "--oversubscribe", "-n", str(npes), self.mpi[-1]] + \
                      cmd[len(self.mpi):]
        return self.run_command(cmd, env, bench)

    def run_command(self, cmd, env, bench, every_table=False):
        """Runs one benchmark program; its table for `bench` (all its tables
        with every_table), {} on failure, which is recorded."""
        full_env = dict(os.environ)
        full_env.update(env)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env,
                                  timeout=300)
        except subprocess.TimeoutExpired:
            self.failures.append("%s: timed out" % " ".join(cmd))
            return {}
        tables = parse_tables(proc.stdout)
        table = tables if every_table else tables.get(bench, {})
        if proc.returncode != 0 or not table:
            self.failures.append("%s: exit %d\n%s" % (" ".join(cmd), proc.returncode,
                                                      proc.stderr[-1500:]))
            sys.stderr.write("warning: %s\n" % self.failures[-1])
        return table


class Samples:
    """Values by (impl, bench, size), and pairs of (ours, peer) values taken
    back to back, by (ours key, peer key, size, source)."""

    def __init__(self):
        self.values = {}
        self.pairs = {}
        self.unstable = {}  # sandwiches set aside, by pair key
        self.sandwiches = {}  # kept sandwiches' (ours, peer) values, by pair key

    def add(self, impl, bench, table):
        for size, value in table.items():
            self.values.setdefault((impl, bench, size), []).append(value)

    def pair(self, ours, peer, ours_table, peer_table, source):
        for size, value in ours_table.items():
            if size in peer_table and peer_table[size] > 0:
                self.pairs.setdefault((ours, peer, size, source), []).append(
                    value / peer_table[size])

    def sandwich(self, ours, peer, outer, first, middle, last, state):
        """Pairs `middle` with the mean of `first` and `last` (the other
        side's runs around it), size by size, when those two agree.
        `state` is the machine's state around the sandwich, or None."""
        for size, value in middle.items():
            a, b = first.get(size), last.get(size)
            if not a or not b or value <= 0:
                continue
            key = (ours, peer, size, "tight")
            if max(a, b) / min(a, b) > SANDWICH_SPREAD:
                self.unstable[key] = self.unstable.get(key, 0) + 1
                continue
            around = (a + b) / 2
            ours_value, peer_value = (around, value) if outer == ours else (value, around)
            self.pairs.setdefault(key, []).append(ours_value / peer_value)
            self.sandwiches.setdefault(key, []).append((ours_value, peer_value, state))

    def median(self, impl, bench, size):
        v = self.values.get((impl, bench, size))
        return statistics.median(v) if v else None

    def sizes(self, impl, bench):
        return sorted(s for (i, b, s) in self.values if i == impl and b == bench)

    def paired(self, ours, peer, size, source="table"):
        v = self.pairs.get((ours, peer, size, source))
        return (statistics.median(v), min(v), max(v), len(v)) if v else None


def script_args(doc, reps):
    """The options every compare_*.py script starts with: --build, --reps
    (default `reps`) and --markdown; the script adds its own after them."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--build", default="build", help="the build directory (build)")
    ap.add_argument("--reps", type=int, default=reps, help="repetitions (%d)" % reps)
    ap.add_argument("--markdown", metavar="FILE", help="also write the report here")
    return ap


def add_state_us(ap):
    ap.add_argument("--state-us", type=float, default=0.1,
                    help="raw one-way time (us) that splits the VM's states (0.1)")


def repetitions(reps):
    """range(reps), saying on stderr which repetition starts."""
    for rep in range(reps):
        sys.stderr.write("repetition %d of %d\n" % (rep + 1, reps))
        yield rep


def alternate(order, rep):
    """The runs of one group in repetition `rep`: `order` in even
    repetitions, reversed in odd ones, so that a drift of the machine does
    not always favour the same side."""
    return list(order[::-1] if rep % 2 else order)


def target_ratios(ratios, targets, tables):
    """Adds each target's ratio from one repetition to ratios[label]:
    ours / (the peer's value * scale), when both were measured. A target is
    (label, (impl, bench, size) ours, (impl, bench, size) peer, limit,
    higher is better, scale); tables are {(impl, bench): {size: value}}."""
    for label, ours, peer, limit, higher, scale in targets:
        o = tables.get(ours[:2], {}).get(ours[2])
        p = tables.get(peer[:2], {}).get(peer[2])
        if o and p:
            ratios.setdefault(label, []).append(o / (p * scale))


TARGETS_HEADER = ["| target | ratio (median) | range | pairs | limit | result |",
                  "|---|---:|---:|---:|---:|---|"]


def target_row(label, ratios, limit, higher, info=False, unmeasured="not measured"):
    """A row of a TARGETS_HEADER table, and whether the target is met: the
    median of `ratios` against the limit (ours >= limit when higher is
    better, else <=), their range and count; PASS, FAIL, or "info" for a
    target shown for information. No ratios: a row of dashes whose result
    is `unmeasured`, and not met."""
    sign = ">=" if higher else "<="
    if not ratios:
        return "| %s | - | - | 0 | %s %.2f | %s |" % (label, sign, limit, unmeasured), False
    med = statistics.median(ratios)
    ok = med >= limit if higher else med <= limit
    return ("| %s | %.3f | %.2f-%.2f | %d | %s %.2f | %s |" % (
        label, med, min(ratios), max(ratios), len(ratios), sign, limit,
        "info" if info else ("PASS" if ok else "FAIL")), ok)


def failure_lines(failures, width=None):
    """The report's list of failed runs, the first line of each (at most
    `width` characters)."""
    if not failures:
        return []
    return ["", "Runs that failed:", ""] + ["    " + f.splitlines()[0][:width] for f in failures]


def finish(text, start, markdown):
    """Prints the report with the time the script took since `start`, and
    writes it to the --markdown file if one was named."""
    text += "\n(%.0f s)\n" % (time.time() - start)
    sys.stdout.write(text)
    if markdown:
        with open(markdown, "w") as f:
            f.write(text)


def plan(quick):
    """Groups run back to back in one repetition: ours, then its peers."""
    groups = [
        ("put_lat", [("mpi", "put_lat")]),
        ("put_bw", [("raw", "memcpy_bw")] + ([] if quick else [("mpi", "put_bw")])),
        ("fadd_lat", [("mpi", "fadd_lat")]),
        ("barrier_lat", [("mpi", "barrier_lat")]),
        ("flag_pingpong", [("raw", "flag_pingpong")] +
         ([] if quick else [("raw", "flag_pingpong_owned")])),
    ]
    if not quick:
        groups[1:1] = [("get_lat", [("mpi", "get_lat")])]
        groups += [
            ("get_bw", [("mpi", "get_bw")]),
            ("cswap_lat", [("mpi", "cswap_lat")]),
            ("signal_pingpong", [("mpi", "pingpong")]),
            ("nbi_flag_pingpong", []),
            ("barrier_pingpong", []),
            ("bcast_lat", [("mpi", "bcast_lat")]),
            ("allreduce_lat", [("mpi", "allreduce_lat")]),
        ]
    return groups


# The sandwiched targets: ours, the peer.
TIGHT = [(("gasket", "put_lat"), ("mpi", "put_lat")),
         (("gasket", "fadd_lat"), ("mpi", "fadd_lat")),
         (("gasket", "barrier_lat"), ("mpi", "barrier_lat")),
         (("gasket", "flag_pingpong"), ("raw", "flag_pingpong"))]
SANDWICH_SPREAD = 1.25  # outer runs further apart than this: set aside


def measure(runner, samples, reps, quick):
    groups = plan(quick)
    small = ["--max-size", "8"]
    for rep in repetitions(reps):
        flip = rep % 2 == 1
        for bench, peers in groups:
            # Ours first in even repetitions, last in odd ones.
            order = [("gasket", bench)] + peers
            if flip:
                order = order[1:] + order[:1]
            tables = {}
            for impl, name in order:
                tables[(impl, name)] = runner.run(impl, name)
                samples.add(impl, name, tables[(impl, name)])
            for peer in peers:
                samples.pair(("gasket", bench), peer, tables[("gasket", bench)],
                             tables[peer], "table")
        for ours, peer in TIGHT:
            for k in range(3):
                outer, inner = (ours, peer) if (rep + k) % 2 == 0 else (peer, ours)
                before = runner.probe_state()
                first = runner.run(*outer, extra=small)
                middle = runner.run(*inner, extra=small)
                last = runner.run(*outer, extra=small)
                after = runner.probe_state()
                samples.sandwich(ours, peer, outer, first, middle, last,
                                 before if before == after else None)
    if quick:
        return
    # Collectives with more PEs than the two cores: oversubscribed, unpinned.
    for npes in (4, 8):
        for rep in range(reps):
            for bench in ("barrier_lat", "bcast_lat", "allreduce_lat"):
                t = {}
                for impl in ("gasket", "mpi"):
                    t[impl] = runner.run(impl, bench, extra=small, npes=npes)
                    samples.add(impl, "%s@%d" % (bench, npes), t[impl])
                samples.pair(("gasket", "%s@%d" % (bench, npes)),
                             ("mpi", "%s@%d" % (bench, npes)), t["gasket"], t["mpi"], "table")


def fmt(value, bench):
    if value is None:
        return "-"
    return "%.1f" % value if bench in HIGHER_IS_BETTER else "%.4f" % value


def machine_lines():
    model, cores = platform.processor() or "unknown", os.cpu_count()
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    mpi = "-"
    if shutil.which("mpirun"):
        mpi = subprocess.run(["mpirun", "--version"], capture_output=True,
                             text=True).stdout.splitlines()[0]
    return ["Machine: %s, %d CPUs (%d allowed), Linux %s; %s; %s." %
            (model, cores, len(os.sched_getaffinity(0)), platform.release(), mpi,
             time.strftime("%Y-%m-%d %H:%M"))]


def report(samples, reps, quick, runner):
    lines = []
    out = lines.append
    out("## Results")
    out("")
    out(machine_lines()[0])
    out("")
    out("%d repetitions; in each, ours and the peer ran back to back (gasket-run -n 2 --bind; "
        "mpirun -n 2 --bind-to core --mca osc sm; raw-floor on CPUs %d and %d). "
        "\"median\" columns are medians over repetitions; \"ratio\" is ours' median over "
        "the peer's; \"paired\" is the median of the per-repetition ratios ours/peer "
        "(for bandwidth, higher is better)." % (reps, runner.cpus[0], runner.cpus[1]))
    out("")
    for title, ours, peer in TABLES:
        sizes = [s for s in samples.sizes(*ours) if samples.median(*peer, s) is not None]
        if not sizes:
            continue
        out("### %s" % title)
        out("")
        out("| size | gasket | %s | ratio | paired |" % ("Open MPI" if peer[0] == "mpi"
                                                         else "raw floor"))
        out("|---:|---:|---:|---:|---:|")
        for size in sizes:
            o, p = samples.median(*ours, size), samples.median(*peer, size)
            pr = samples.paired(ours, peer, size)
            out("| %d | %s | %s | %.2f | %s |" % (size, fmt(o, ours[1]), fmt(p, peer[1]),
                                                  o / p, "%.2f" % pr[0] if pr else "-"))
        out("")
    if not quick:
        rows = []
        for npes in (4, 8):
            for bench in ("barrier_lat", "bcast_lat", "allreduce_lat"):
                key = "%s@%d" % (bench, npes)
                size = npes if bench == "barrier_lat" else 8
                o, p = samples.median("gasket", key, size), samples.median("mpi", key, size)
                pr = samples.paired(("gasket", key), ("mpi", key), size)
                if o is not None and p is not None:
                    rows.append("| %d | %s | %.3f | %.3f | %.2f | %s |" %
                                (npes, bench, o, p, o / p, "%.2f" % pr[0] if pr else "-"))
        if rows:
            out("### Collectives at more PEs than cores (8 B; oversubscribed, unpinned; us)")
            out("")
            out("| PEs | benchmark | gasket | Open MPI | ratio | paired |")
            out("|---:|---|---:|---:|---:|---:|")
            lines.extend(rows)
            out("")

    def check_rows(targets):
        verdicts = []
        out("| target | ratio (median) | range | from | limit | result |")
        out("|---|---:|---:|---:|---:|---|")
        for label, ours, peer, size, limit, higher, source in targets:
            pr = samples.paired(ours, peer, size, source)
            set_aside = samples.unstable.get((ours, peer, size, source), 0)
            how = ("%d sandwiches (%d set aside)" if source == "tight" else "%d pairs")
            if pr is None:
                verdict = "not measured"
                out("| %s | - | - | %s | %s %.2f | %s |" %
                    (label, how % ((0, set_aside) if source == "tight" else (0,)),
                     ">=" if higher else "<=", limit, verdict))
            else:
                ok = pr[0] >= limit if higher else pr[0] <= limit
                verdict = "PASS" if ok else "FAIL"
                out("| %s | %.3f | %.2f-%.2f | %s | %s %.2f | %s |" %
                    (label, pr[0], pr[1], pr[2],
                     how % ((pr[3], set_aside) if source == "tight" else (pr[3],)),
                     ">=" if higher else "<=", limit, verdict))
            verdicts.append(verdict)
        out("")
        return verdicts

    out("## Targets")
    out("")
    out("Each ratio is ours / the peer's value at that size, the median over pairs of runs. "
        "The latency targets use sandwiches: the 8-byte row only, ours between two runs of the "
        "peer or the peer between two of ours, three per repetition; a sandwich whose outer "
        "runs differ by more than %d%% (the machine changed state) is set aside. The bandwidth "
        "targets use the whole-table runs of each repetition." %
        round((SANDWICH_SPREAD - 1) * 100))
    out("")
    verdicts = check_rows([t for t in TARGETS
                           if quick is False or t[1][1] in ("put_lat", "fadd_lat",
                                                            "flag_pingpong", "barrier_lat",
                                                            "put_bw")])
    out("By the machine's state, probed before and after each sandwich with the raw floor's "
        "8-byte one-way time: \"ht\" below %.2f us (the two CPUs behave as hyperthreads of "
        "one core), \"cores\" above (two cores); a sandwich whose two probes disagree counts "
        "only above." % runner.state_us)
    out("")
    out("| target | ht: ratio | sandwiches | cores: ratio | sandwiches |")
    out("|---|---:|---:|---:|---:|")
    for ours, peer in TIGHT:
        size = 2 if ours[1] == "barrier_lat" else 8
        kept = samples.sandwiches.get((ours, peer, size, "tight"), [])
        cells = []
        for state in ("ht", "cores"):
            ratios = [o / p for o, p, st in kept if st == state]
            cells += ["%.2f" % statistics.median(ratios) if ratios else "-", str(len(ratios))]
        out("| %s vs %s %s | %s |" % (ours[1], "Open MPI" if peer[0] == "mpi" else "raw",
                                     peer[1], " | ".join(cells)))
    out("")
    out("Every kept sandwich, ours / peer in us (state):")
    out("")
    for ours, peer in TIGHT:
        size = 2 if ours[1] == "barrier_lat" else 8
        kept = sorted(samples.sandwiches.get((ours, peer, size, "tight"), []),
                      key=lambda item: (str(item[2]), item[1]))
        if kept:
            out("- %s: %s" % (ours[1], " ".join("%.4f/%.4f (%s)" % (o, p, st or "?")
                                                for o, p, st in kept)))
    out("")
    if not quick:
        out("For information (signaling put and collectives; limits not checked here):")
        out("")
        check_rows(INFO)
    if runner.failures:
        out("Runs that failed:")
        out("")
        for failure in runner.failures:
            out("    " + failure.replace("\n", "\n    "))
        out("")
    return "\n".join(lines), verdicts


def plot(path, samples):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("compare.py: matplotlib is not installed; no figure\n")
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for impl, bench, label in [("gasket", "signal_pingpong", "signaling put + semaphore"),
                               ("gasket", "flag_pingpong", "put + fence + flag"),
                               ("gasket", "nbi_flag_pingpong", "put_nbi + quiet + flag"),
                               ("gasket", "barrier_pingpong", "put + barrier"),
                               ("mpi", "pingpong", "Open MPI send/recv"),
                               ("raw", "flag_pingpong", "raw store + flag (floor)")]:
        sizes = [s for s in samples.sizes(impl, bench) if s <= 16384]
        if sizes:
            ax.plot(sizes, [samples.median(impl, bench, s) for s in sizes], marker="o",
                    label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("payload (bytes)")
    ax.set_ylabel("one-way latency (us)")
    ax.set_title("Synchronising put, 2 PEs on one node (down is good)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="the build directory (build)")
    ap.add_argument("--reps", type=int, help="repetitions (5; 3 with --quick)")
    ap.add_argument("--quick", action="store_true", help="only what the targets need")
    ap.add_argument("--markdown", metavar="FILE", help="also write the report here")
    ap.add_argument("--plot", metavar="PNG", help="draw the ping-pong figure (matplotlib)")
    add_state_us(ap)
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a target is not met or not measured")
    args = ap.parse_args()
    reps = args.reps if args.reps else (3 if args.quick else 5)
    if reps < 1:
        ap.error("--reps must be at least 1")
    runner = Runner(args)
    samples = Samples()
    start = time.time()
    measure(runner, samples, reps, args.quick)
    text, verdicts = report(samples, reps, args.quick, runner)
    text += "\n(%.0f s)\n" % (time.time() - start)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.plot:
        plot(args.plot, samples)
    if args.strict and any(v != "PASS" for v in verdicts):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

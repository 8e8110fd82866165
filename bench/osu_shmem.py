#!/usr/bin/env python3
"""osu_shmem.py: the OSU micro-benchmarks' OpenSHMEM programs, built unchanged
with gasket's oshcc and with Open MPI's, run side by side on this node.

The OSU sources are not part of gasket: download OSU Micro-Benchmarks (7.x)
from mvapich.cse.ohio-state.edu, unpack it anywhere, and pass its top
folder with --osu. Each program is compiled from c/openshmem/ and
c/util/osu_util*.c with -DOSHM_1_3 (what OSU's configure defines where
shmem_finalize exists, as it does in both), into --work (outside the
repository). A program that does not compile or run with one side is
reported and left out.

Each repetition runs every benchmark with both sides, alternating which
goes first; the table gives each side's median over the repetitions and
the ratio gasket / OSHMEM (latency: lower is better). OSU prints two
decimals, so latencies under 0.1 us are coarse: the ratio of medians is
what the table reports, and the raw values are printed with --verbose.

With --hosts 2 every job is spread over two simulated hosts, both sides
over UCX on loopback TCP (UCX_TLS=tcp,self, UCX_NET_DEVICES=lo): ours is
`oshrun --hosts 2`, OSHMEM (spml ucx) starts half its PEs inside each of
two host namespaces made as compare_hosts.py makes them (needs root); the
targets are then 1.0.

  python3 bench/osu_shmem.py --osu ~/osu-micro-benchmarks-7.4 --build build
  python3 bench/osu_shmem.py --osu ~/osu-micro-benchmarks-7.4 --hosts 2
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_hosts  # noqa: E402  (simulated hosts for the peer)

PROGRAMS = ["put", "get", "atomics", "barrier", "broadcast", "fcollect", "collect",
            "reduce", "put_nb", "get_nb"]
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
TIMEOUT = 300

# What the table shows: label, program, its arguments, PEs, how to read the
# value from the output (a function of the output's text), the target ratio.
def size_row(size):
    def read(text):
        m = re.search(r"^%d\s+([0-9.]+)\s*$" % size, text, re.M)
        return float(m.group(1)) if m else None
    return read


def atomic_row(name):
    def read(text):
        m = re.search(r"^%s\s+[0-9.]+\s+([0-9.]+)\s*$" % re.escape(name), text, re.M)
        return float(m.group(1)) if m else None
    return read


def barrier_row(text):
    m = re.search(r"Avg Latency\(us\)\s*\n\s*([0-9.]+)", text)
    return float(m.group(1)) if m else None


ROWS = [
    ("osu_oshm_put 8 B (us)", "put", ["heap"], 2, size_row(8), 0.7),
    ("osu_oshm_get 8 B (us)", "get", ["heap"], 2, size_row(8), 0.7),
    ("osu_oshm_put 64 KiB (us)", "put", ["heap"], 2, size_row(65536), None),
    ("osu_oshm_atomics fetch-add (us)", "atomics", ["heap"], 2,
     atomic_row("shmem_int_fadd"), 0.7),
    ("osu_oshm_atomics compare-swap (us)", "atomics", ["heap"], 2,
     atomic_row("shmem_int_cswap"), None),
    ("osu_oshm_barrier, 2 PEs (us)", "barrier", [], 2, barrier_row, 0.7),
    ("osu_oshm_barrier, 4 PEs (us)", "barrier", [], 4, barrier_row, 0.7),
    ("osu_oshm_put 8 B to a global (us)", "put", ["global"], 2, size_row(8), None),
]


def compile_side(args, side, cc, env):
    out = os.path.join(args.work, side)
    os.makedirs(out, exist_ok=True)
    util = os.path.join(args.osu, "c", "util")
    built = {}
    for prog in PROGRAMS:
        src = os.path.join(args.osu, "c", "openshmem", "osu_oshm_%s.c" % prog)
        exe = os.path.join(out, "osu_oshm_" + prog)
        cmd = [cc, "-O2", "-DOSHM_1_3", '-DPACKAGE_VERSION="osu"', "-I" + util, "-o", exe,
               src, os.path.join(util, "osu_util.c"), os.path.join(util, "osu_util_pgas.c")]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode == 0:
            built[prog] = exe
        else:
            first = (r.stderr.strip().splitlines() or ["?"])[0]
            sys.stderr.write("osu_shmem.py: %s: osu_oshm_%s does not compile: %s\n" %
                             (side, prog, first))
    return built


def run(cmd, env):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT,
                           start_new_session=True)
        return r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        return (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
            else (e.stdout or "")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--osu", required=True, help="the OSU Micro-Benchmarks source folder")
    p.add_argument("--build", default="build", help="gasket's build folder (build)")
    p.add_argument("--work", default="/tmp/gk-osu", help="where the programs go")
    p.add_argument("--reps", type=int, default=5, help="repetitions (5)")
    p.add_argument("--verbose", action="store_true", help="print every value")
    p.add_argument("--hosts", type=int, default=1, choices=(1, 2),
                   help="simulated hosts the PEs are spread over (1)")
    args = p.parse_args()
    if not os.path.isdir(os.path.join(args.osu, "c", "openshmem")):
        sys.exit("osu_shmem.py: %s has no c/openshmem" % args.osu)
    env = dict(os.environ, **MPI_ENV)
    tools = os.path.abspath(os.path.join(args.build, "tools"))
    sides = {"gasket": compile_side(args, "gasket", os.path.join(tools, "oshcc"), env)}
    hosts = None
    if args.hosts == 2:
        hosts = compare_hosts.Hosts(2)
        if hosts.error:
            sys.exit("osu_shmem.py: %s" % hosts.error)
        env.update(compare_hosts.UCX_ENV)
    launch = {"gasket": gasket_launch(tools, args.hosts)}
    if shutil.which("oshcc") and shutil.which("oshrun"):
        sides["oshmem"] = compile_side(args, "oshmem", shutil.which("oshcc"), env)
        launch["oshmem"] = oshmem_launch(hosts)
    else:
        sys.stderr.write("osu_shmem.py: no oshcc/oshrun of Open MPI: gasket only\n")
    try:
        values = measure(args, sides, launch, env)
    finally:
        if hosts is not None:
            hosts.close()
    report(args, sides, values)


def gasket_launch(tools, nhosts):
    """Ours: oshrun (gasket-run), with --hosts where asked."""
    def cmd(n, prog):
        spread = ["--hosts", str(nhosts)] if nhosts > 1 else []
        return [os.path.join(tools, "oshrun"), "-n", str(n), "--bind"] + spread + prog
    return cmd


def oshmem_launch(hosts):
    """Open MPI's oshrun: on this node, or half the PEs in each simulated
    host (an MPMD line whose parts enter the host namespaces), over UCX."""
    def cmd(n, prog):
        if hosts is None:
            return ["oshrun", "-n", str(n), "--bind-to", "core", "--oversubscribe"] + prog
        # One node to Open MPI: keep its shared memory out (compare_hosts.py).
        line = ["oshrun", "--bind-to", "core", "--oversubscribe", "--mca", "spml", "ucx",
                "--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any", "--mca",
                "pml_ucx_devices", "any", "--mca", "osc", "ucx", "--mca", "btl", "self,tcp"]
        for key in sorted(compare_hosts.UCX_ENV):
            line += ["-x", key]
        half = n // 2
        return (line + ["-n", str(n - half)] + hosts.enter(0) + prog + [":", "-n", str(half)] +
                hosts.enter(1) + prog)
    return cmd


def measure(args, sides, launch, env):
    values = {(row[0], side): [] for row in ROWS for side in sides}
    for rep in range(args.reps):
        order = list(sides) if rep % 2 == 0 else list(reversed(list(sides)))
        cache = {}
        for label, prog, pargs, n, read, _ in ROWS:
            for side in order:
                if prog not in sides[side]:
                    continue
                key = (side, prog, tuple(pargs), n)
                if key not in cache:
                    cache[key] = run(launch[side](n, [sides[side][prog]] + pargs), env)
                v = read(cache[key])
                if args.verbose:
                    print("rep %d %s %s: %s" % (rep, side, label, v))
                if v is not None:
                    values[(label, side)].append(v)
    return values


def report(args, sides, values):
    names = list(sides)
    if args.hosts == 2:
        print("`python3 bench/osu_shmem.py --hosts 2 --reps %d`: medians of %d repetitions, "
              "two simulated hosts, UCX over loopback TCP on both sides; OSHMEM with "
              "spml ucx." % (args.reps, args.reps))
    else:
        print("`python3 bench/osu_shmem.py --reps %d`: medians of %d repetitions, one node; "
              "OSHMEM is Open MPI's (its default spml)." % (args.reps, args.reps))
    print()
    print("| benchmark | " + " | ".join(names) + " | ratio | target |")
    print("|---|" + "---:|" * (len(names) + 2))
    for label, _, _, _, _, target in ROWS:
        med = {s: statistics.median(values[(label, s)]) if values[(label, s)] else None
               for s in names}
        cells = ["%.2f" % med[s] if med[s] is not None else "fails" for s in names]
        ratio = ""
        if len(names) == 2 and None not in med.values() and med["oshmem"] > 0:
            ratio = "%.2f" % (med["gasket"] / med["oshmem"])
        if target and args.hosts == 2:
            target = 1.0
        print("| %s | %s | %s | %s |" % (label, " | ".join(cells), ratio,
                                         "<= %.1f" % target if target else ""))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""sos_compare.py: one OpenSHMEM program on gasket (ucx and ofi) and on Sandia
OpenSHMEM (SOS) over the same libfabric, side by side.

    python3 bench/sos_compare.py --sos-prefix /work/sos [--build build]
                                 [--work /tmp/gk-sos] [--reps 3] [--iters 1000]
                                 [--markdown FILE] [--verbose]

SOS is not part of gasket: build it outside the repository (its configure
needs --enable-hard-polling --enable-manual-progress for libfabric's
tcp;ofi_rxm, which has neither remote counters nor automatic progress; see
docs/TRANSPORTS.md) and pass its install prefix. The program is
bench/peers/oshmem_peer.c with bench_common.c, compiled unchanged by
gasket's oshcc (BUILD/tools/oshcc) and by SOS's (PREFIX/bin/oshcc) into
--work, outside the repository. Three sides, every one over TCP on the
loopback interface:

- gasket ucx: `gasket-run -n 2 --hosts 2` with GK_NET=ucx UCX_TLS=tcp
  UCX_NET_DEVICES=lo (two simulated hosts, so the network transport);
- gasket ofi: the same with GK_NET=ofi FI_PROVIDER=tcp FI_TCP_IFACE=lo;
- SOS ofi: `mpiexec.hydra -n 2` (PMI-1 simple) with FI_PROVIDER=tcp
  FI_TCP_IFACE=lo SHMEM_OFI_PROVIDER='tcp;ofi_rxm'. Both PEs run on this
  host: SOS cannot join gasket's simulated hosts, but built without XPMEM
  and CMA it has no on-node path (its SHMEM_INFO says "On-node transport:
  none") and FI_PROVIDER=tcp leaves libfabric's shm provider out, so every
  operation goes through tcp;ofi_rxm, as gasket's do between its hosts.

Each repetition runs every benchmark on every side, the order of the sides
rotating from one repetition to the next; the table gives each side's
median over the repetitions and, in brackets, its best (the lowest
latency, the highest bandwidth: on a machine shared with other jobs, the
run the others disturbed least); --verbose prints every value. A run that
fails or times out is reported with its last lines and left out of the
medians.

Standard library only; needs root (gasket-run --hosts makes namespaces).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (parse_tables, DIGITS)
import compare_hosts  # noqa: E402  (running a job in a session of its own)

KiB, MiB = 1024, 1024 * 1024
SIDES = ["gasket-ucx", "gasket-ofi", "sos-ofi"]
TITLES = {"gasket-ucx": "gasket ucx (UCX_TLS=tcp)", "gasket-ofi": "gasket ofi (tcp;ofi_rxm)",
          "sos-ofi": "SOS ofi (tcp;ofi_rxm)"}
ENV = {
    "gasket-ucx": {"GK_NET": "ucx", "UCX_TLS": "tcp", "UCX_NET_DEVICES": "lo"},
    "gasket-ofi": {"GK_NET": "ofi", "FI_PROVIDER": "tcp", "FI_TCP_IFACE": "lo"},
    "sos-ofi": {"FI_PROVIDER": "tcp", "FI_TCP_IFACE": "lo",
                "SHMEM_OFI_PROVIDER": "tcp;ofi_rxm"},
}
# The program puts 2 x 4 MiB in the symmetric heap; both sides get the same.
HEAP = "64M"
RUN_TIMEOUT = 120

# Rows: label, benchmark, message size, whether higher is better.
ROWS = [
    ("put 8 B + quiet (us)", "put_lat", 8, False),
    ("get 8 B (us)", "get_lat", 8, False),
    ("fetch-add 8 B (us)", "fadd_lat", 8, False),
    ("fetch-add 8 B, PE 1 asleep outside OpenSHMEM (us)", "fadd_passive", 8, False),
    ("put bandwidth 64 KiB (MB/s, windows of 64 put_nbi + quiet)", "put_bw", 64 * KiB, True),
    ("put bandwidth 1 MiB (MB/s)", "put_bw", MiB, True),
]


def bench_args(bench, iters):
    if bench == "put_bw":
        return ["--sizes", "%d,%d" % (64 * KiB, MiB), "--iters", str(max(iters // 10, 20))]
    if bench == "fadd_lat":
        return ["--iters", str(iters)]
    if bench == "fadd_passive":
        return ["--iters", str(max(iters // 10, 10))]
    return ["--min-size", "8", "--max-size", "8", "--iters", str(iters)]


def build(args):
    """Compiles the program with each side's oshcc; {"gasket": exe, "sos": exe}."""
    here = os.path.dirname(os.path.abspath(__file__))
    srcs = [os.path.join(here, "peers", "oshmem_peer.c"), os.path.join(here, "bench_common.c")]
    os.makedirs(args.work, exist_ok=True)
    ccs = {"gasket": os.path.join(os.path.abspath(args.build), "tools", "oshcc"),
           "sos": os.path.join(args.sos_prefix, "bin", "oshcc")}
    exes = {}
    for side, cc in ccs.items():
        if not os.access(cc, os.X_OK):
            sys.exit("sos_compare.py: %s: no oshcc at %s" % (side, cc))
        exe = os.path.join(args.work, "oshmem-peer-" + side)
        cmd = [cc, "-O2", "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra",
               '-DPEER_IMPL="%s"' % side, "-I" + here] + srcs + ["-o", exe]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("sos_compare.py: %s: %s failed:\n%s" % (side, " ".join(cmd), r.stderr))
        exes[side] = exe
    return exes


def command(args, exes, side, bench):
    """The command line and environment of one run."""
    prog_args = [bench] + compare.DIGITS + bench_args(bench, args.iters)
    env = dict(os.environ, **ENV[side])
    if side == "sos-ofi":
        env["SHMEM_SYMMETRIC_SIZE"] = HEAP
        return ["mpiexec.hydra", "-n", "2", exes["sos"]] + prog_args, env
    env["GK_HEAP_SIZE"] = HEAP
    return ([os.path.join(os.path.abspath(args.build), "tools", "gasket-run"), "-n", "2",
             "--hosts", "2", "--timeout", str(RUN_TIMEOUT - 10), exes["gasket"]] + prog_args,
            env)


def sos_version(prefix):
    """SOS's version from its pkg-config file, or "?"."""
    try:
        with open(os.path.join(prefix, "lib", "pkgconfig", "sandia-openshmem.pc")) as f:
            m = re.search(r"^Version:\s*(\S+)", f.read(), re.M)
        return m.group(1) if m else "?"
    except OSError:
        return "?"


def check_sos_path(exes):
    """Ends the script unless SOS runs with no on-node transport."""
    env = dict(os.environ, **ENV["sos-ofi"], SHMEM_INFO="1", SHMEM_SYMMETRIC_SIZE=HEAP)
    cmd = ["mpiexec.hydra", "-n", "2", exes["sos"], "fadd_lat", "--iters", "10"]
    status, out, err = compare_hosts.Runner.execute(cmd, env, RUN_TIMEOUT)
    text = out + err
    m = re.search(r"On-node transport:\s*(\S+)", text)
    if status != 0 or m is None:
        sys.exit("sos_compare.py: SOS does not run (exit %s):\n%s" %
                 (status, "\n".join(text.splitlines()[-15:])))
    if m.group(1) != "none":
        sys.exit("sos_compare.py: SOS uses an on-node transport (%s): rebuild it "
                 "--without-xpmem --without-cma" % m.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sos-prefix", required=True, help="where SOS is installed")
    p.add_argument("--build", default="build", help="gasket's build folder (build)")
    p.add_argument("--work", default="/tmp/gk-sos", help="where the programs go")
    p.add_argument("--reps", type=int, default=3, help="repetitions (3)")
    p.add_argument("--iters", type=int, default=1000,
                   help="latency iterations; bandwidth windows are a tenth (1000)")
    p.add_argument("--markdown", help="also write the table to FILE")
    p.add_argument("--verbose", action="store_true", help="print every value")
    args = p.parse_args()
    for name, value in (("--reps", args.reps), ("--iters", args.iters)):
        if value < 1:
            sys.exit("sos_compare.py: %s must be at least 1 (got %d)" % (name, value))
    args.sos_prefix = os.path.abspath(args.sos_prefix)
    if not os.access(os.path.join(args.sos_prefix, "bin", "oshcc"), os.X_OK):
        sys.exit("sos_compare.py: --sos-prefix %s has no bin/oshcc: pass SOS's install prefix"
                 % args.sos_prefix)
    if not os.access(os.path.join(args.build, "tools", "gasket-run"), os.X_OK):
        sys.exit("sos_compare.py: --build %s has no tools/gasket-run: build gasket first"
                 % args.build)
    if shutil.which("mpiexec.hydra") is None:
        sys.exit("sos_compare.py: mpiexec.hydra (MPICH's hydra, PMI-1) is not installed")
    exes = build(args)
    check_sos_path(exes)

    benches = list(dict.fromkeys(row[1] for row in ROWS))
    load_before = os.getloadavg()[0]
    values = {(side, b, size): [] for side in SIDES for _, b, size, _ in ROWS}
    failures = []
    for rep in range(args.reps):
        order = SIDES[rep % len(SIDES):] + SIDES[:rep % len(SIDES)]
        for bench in benches:
            for side in order:
                cmd, env = command(args, exes, side, bench)
                status, out, err = compare_hosts.Runner.execute(cmd, env, RUN_TIMEOUT)
                tables = compare.parse_tables(out).get(bench, {})
                if status != 0 or not tables:
                    tail = (err or out).strip().splitlines()[-3:]
                    failures.append("%s %s rep %d: %s: %s" % (
                        side, bench, rep + 1,
                        "timed out" if status is None else "exit %d" % status,
                        " | ".join(tail)))
                    continue
                for (s, b, size) in values:
                    if s == side and b == bench and size in tables:
                        values[(s, b, size)].append(tables[size])
                if args.verbose:
                    print("rep %d %-10s %-8s %s" % (rep + 1, side, bench, tables), flush=True)

    # A machine shared with other jobs moves these numbers by 2x and more:
    # the load beside them says how shared it was.
    lines = ["SOS %s at %s; %d repetitions, median (best); load average %.1f before, %.1f after "
             "(%d CPUs)" % (sos_version(args.sos_prefix), args.sos_prefix, args.reps,
                            load_before, os.getloadavg()[0], os.cpu_count()), "",
             "| benchmark | " + " | ".join(TITLES[s] for s in SIDES) + " |",
             "|---|" + "---|" * len(SIDES)]
    for label, bench, size, higher in ROWS:
        cells = []
        for side in SIDES:
            v = values[(side, bench, size)]
            if not v:
                cells.append("-")
                continue
            best = max(v) if higher else min(v)
            cells.append("%.1f (%.1f)" % (statistics.median(v), best))
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    print("\n".join(lines))
    if failures:
        print("\nFailed runs (left out):\n" + "\n".join("  " + f for f in failures))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

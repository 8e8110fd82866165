#!/usr/bin/env python3
"""footprint.py: a gasket job's start-up time and what one PE costs beyond
its symmetric heap, against the PE count (docs/PERFORMANCE.md, "Footprint").

Runs `gasket-run -n N gk-footprint` for each N (one host), and with --hosts
also spread over 2 simulated hosts (root), where half the peers go through
UCX. Start-up is the time from just before gasket-run is started to the end
of the job's first barrier. Prints a markdown table; with --plot, draws it
(matplotlib).
"""
import argparse
import os
import subprocess
import sys
import time

KEYS = ["startup_s", "private_kib", "segment_kib", "window_kib", "semaphore_kib",
        "remote_peers"]


def run(args, n, hosts):
    cmd = [os.path.join(args.build, "tools", "gasket-run"), "-n", str(n),
           "--timeout", str(args.timeout)]
    if hosts > 1:
        cmd += ["--hosts", str(hosts)]
    cmd.append(os.path.join(args.build, "bench", "gk-footprint"))
    env = dict(os.environ)
    env["GK_HEAP_SIZE"] = args.heap
    env.setdefault("UCX_TLS", "tcp")
    env["GK_FOOTPRINT_T0"] = str(time.time_ns())
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                          timeout=args.timeout + 30)
    values = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in KEYS:
            values[parts[0]] = parts[1]
    if proc.returncode != 0 or len(values) != len(KEYS):
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        sys.stderr.write("footprint.py: -n %d%s failed (exit %d): %s\n" %
                         (n, " --hosts %d" % hosts if hosts > 1 else "", proc.returncode,
                          " | ".join(tail)))
        return None
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="the build directory (build)")
    ap.add_argument("--pes", default="2,16,64,256,1024", help="PE counts (2,16,64,256,1024)")
    ap.add_argument("--hosts-pes", default="2,16,64",
                    help="PE counts also run on 2 simulated hosts ('' for none)")
    ap.add_argument("--heap", default="1M", help="GK_HEAP_SIZE of every PE (1M)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds a job may take (600)")
    ap.add_argument("--plot", metavar="PNG", help="draw the table into this file")
    args = ap.parse_args()
    rows = []
    for hosts, counts in ((1, args.pes), (2, args.hosts_pes)):
        for n in [int(x) for x in counts.split(",") if x]:
            values = run(args, n, hosts)
            if values is not None:
                rows.append((n, hosts, values))
                print("ran -n %d on %d host(s): %s" % (n, hosts, values), file=sys.stderr)
    print("`python3 bench/footprint.py --build %s --heap %s`: one job per row, "
          "the largest value over its PEs.\n" % (args.build, args.heap))
    print("| PEs | hosts | start-up (s) | private RSS (KiB) | segment beyond heap (KiB) "
          "| window (KiB) | 64 semaphores (KiB) | peers through UCX |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, hosts, v in rows:
        print("| %d | %d | %s | %s | %s | %s | %s | %s |" % (
            n, hosts, v["startup_s"], v["private_kib"], v["segment_kib"], v["window_kib"],
            v["semaphore_kib"], v["remote_peers"]))
    if args.plot:
        plot(args.plot, rows)
    return 0


def plot(path, rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("footprint.py: no matplotlib (python3-matplotlib); no plot\n")
        return
    one = [(n, v) for n, h, v in rows if h == 1]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ns = [n for n, _ in one]
    ax1.plot(ns, [float(v["startup_s"]) for _, v in one], marker="o")
    ax1.set_title("start-up (gasket-run to the first barrier's end)")
    ax1.set_ylabel("s")
    ax1.set_yscale("log")
    for key, label in (("private_kib", "private RSS"), ("segment_kib", "segment beyond heap")):
        ax2.plot(ns, [float(v[key]) / 1024 for _, v in one], marker="o", label=label)
    windows = [(n, v) for n, v in one if v["window_kib"] != "none"]
    ax2.plot([n for n, _ in windows], [float(v["window_kib"]) / 1024 for _, v in windows],
             marker="o", label="one window")
    ax2.plot(ns, [2 + n / 1024 for n in ns], linestyle="--", label="target: 2 MiB + 1 KiB x PEs")
    ax2.set_title("memory of one PE beyond its heap")
    ax2.set_ylabel("MiB")
    ax2.legend(loc="center right")
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("PEs")
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    sys.exit(main())

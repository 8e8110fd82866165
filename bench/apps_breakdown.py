#!/usr/bin/env python3
"""apps_breakdown.py: the signaling-put-upc seed's SPMV and CG charts for gasket's kernels.

Runs apps/spmv and apps/cg (all four halo variants) --reps times through
gasket-run, takes the median of each time component, prints Markdown
tables and, when matplotlib is there, draws stacked bars (computation,
send, receive-wait, barrier, and all-reduce for CG) per variant.

    /usr/bin/python3 bench/apps_breakdown.py [--build build] [--npes 2]
        [--n 1024] [--reps 3] [--plot-dir docs]
"""
import argparse
import os
import statistics
import subprocess
import sys


def run_table(cmd):
    """Rows of a kernel's table: {variant: [numbers...]}, check column last."""
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        sys.exit("%s failed:\n%s%s" % (" ".join(cmd), out.stdout, out.stderr))
    rows = {}
    for line in out.stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        # The variant name has spaces; the numbers follow it.
        parts = line.split()
        first_number = next(i for i, p in enumerate(parts) if p[0].isdigit())
        name = " ".join(parts[:first_number])
        rows[name] = [float(p) for p in parts[first_number:-1]] + [parts[-1]]
    return rows


def medians(runs):
    result = {}
    for name in runs[0]:
        columns = list(zip(*(run[name] for run in runs)))
        result[name] = [statistics.median(c) for c in columns[:-1]] + [columns[-1][0]]
    return result


def plot(path, title, table, labels, first, unit):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("no matplotlib (apt-get install python3-matplotlib): no %s\n" % path)
        return
    names = list(table)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    bottom = [0.0] * len(names)
    for k, label in enumerate(labels):
        values = [table[n][first + k] for n in names]
        ax.bar(names, values, bottom=bottom, label=label)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_ylabel(unit)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="the build directory (build)")
    ap.add_argument("--npes", type=int, default=2, help="PEs (2)")
    ap.add_argument("--n", type=int, default=1024,
                    help="SPMV's grid side (1024); CG's is half of it")
    ap.add_argument("--reps", type=int, default=3, help="runs of each kernel (3)")
    ap.add_argument("--plot-dir", metavar="DIR",
                    help="draw spmv_breakdown.png and cg_breakdown.png here (matplotlib)")
    args = ap.parse_args()
    launch = [os.path.join(args.build, "tools/gasket-run"), "-n", str(args.npes), "--bind"]
    spmv = medians([run_table(launch + [os.path.join(args.build, "apps/spmv"), "--n",
                                        str(args.n), "--iters", "50"])
                    for _ in range(args.reps)])
    cg = medians([run_table(launch + [os.path.join(args.build, "apps/cg"), "--n",
                                      str(args.n // 2)])
                  for _ in range(args.reps)])

    print("SPMV, %d x %d grid, %d PEs, ms per product (medians of %d runs)\n" %
          (args.n, args.n, args.npes, args.reps))
    print("| variant | total | compute | send | recv wait | barrier | check |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, v in spmv.items():
        print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s |" % (name, *v[:5], v[5]))
    print("\nCG, %d x %d grid, %d PEs, ms in all (medians of %d runs)\n" %
          (args.n // 2, args.n // 2, args.npes, args.reps))
    print("| variant | iterations | total | compute | send | recv wait | barrier | all-reduce | check |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, v in cg.items():
        print("| %s | %d | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %s |" %
              (name, v[0], *v[1:7], v[8]))
    if args.plot_dir:
        plot(os.path.join(args.plot_dir, "spmv_breakdown.png"),
             "SPMV %dx%d, %d PEs: where the time goes" % (args.n, args.n, args.npes),
             spmv, ["computation", "send", "receive wait", "barrier"], 1, "ms per product")
        plot(os.path.join(args.plot_dir, "cg_breakdown.png"),
             "CG %dx%d, %d PEs: where the time goes" % (args.n // 2, args.n // 2, args.npes),
             cg, ["computation", "send", "receive wait", "barrier", "all-reduce"], 2, "ms")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""ft_compare.py: NAS FT's gasket variants beside its MPI all-to-all version.

    /usr/bin/python3 bench/ft_compare.py [--build build] [--reps 3]
        [--classes A B] [--configs node hosts] [--iters-b N]
        [--variants all|NAME,...] [--pieces K] [--progress-thread]
        [--markdown FILE] [--plot PNG] [--strict]

Two configurations, each class (A and B by default) in each:

- node: 2 PEs on this node. Ours: gasket-run -n 2 --bind apps/ft (packed,
  slabs, pencils, alltoall, alltoall-nb, or those --variants names; slabs
  and pencils store into the other PE's mapped buffer), and apps/ft --puts
  --variant slabs,pencils (the same sent with gk_put_nbi). The peer: mpirun -n 2 --bind-to core apps/ft_mpi (Open MPI,
  MPI_Alltoall over its shared-memory transport).
- hosts: 4 PEs over 2 simulated hosts (2 each), UCX over loopback TCP
  (UCX_TLS=tcp,self, UCX_NET_DEVICES=lo) between hosts. Ours: gasket-run
  -n 4 --hosts 2 apps/ft (shared memory within a host), and the same with
  GK_NET_FORCE_UCX=1 (every pair over UCX, as the peer's). The peer:
  apps/ft_mpi under Open MPI's mpirun with pml ucx, two ranks in each of
  two host namespaces made as gasket-run --hosts makes them (compare_hosts.py):
  Open MPI starts all four from one mpirun, so it sees one node and its
  ranks on one host also talk over TCP.

Each repetition runs ours and the peer back to back, the order flipping
every repetition. Reported per class and configuration: the median time
and its split (fft, wait, other; ft's own lines) and Mop/s of each
variant, and the ratio MPI time / time of our best variant (the one with
the lowest median), as the median of the per-repetition ratios, and the
same ratio for alltoall-nb (the non-blocking team all-to-all, in --pieces
pieces a transpose) where it ran. --progress-thread adds a run of
alltoall-nb with GK_PROGRESS_THREAD=1 in each configuration ("gasket
thread": gasket's progress thread moves the calls in flight too).
Targets: the best variant >= 1.1 on one node, >= 1.2 across hosts;
alltoall-nb >= 1.2 in both. --plot draws the splits (matplotlib). Exit status 0, or with --strict 1 when a target is
not met or a run failed.

Needs root for the simulated hosts (as gasket-run --hosts).
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (machine description, report helpers)
import compare_hosts  # noqa: E402  (host namespaces, UCX settings)

CLASS_POINTS = {"S": 64 ** 3, "W": 128 * 128 * 32, "A": 256 * 256 * 128, "B": 512 * 256 * 256}
LINE = re.compile(r"^(ft|ft_mpi) class (\w) variant (\S+): VERIFICATION (\w+) time ([\d.]+) s "
                  r"\(fft ([\d.]+), wait ([\d.]+), other ([\d.]+)\) Mop/s ([\d.]+)")
TARGETS = {"node": 1.1, "hosts": 1.2}
NB_VARIANT = "alltoall-nb"
NB_TARGETS = {"node": 1.2, "hosts": 1.2}
CONFIG_TITLES = {"node": "2 PEs, one node", "hosts": "4 PEs, 2 simulated hosts"}
RUN_TIMEOUT = 1800


def heap_size(cls, npes):
    """GK_HEAP_SIZE for ft's two symmetric buffers, with room to spare."""
    return "%dM" % ((2 * 16 * CLASS_POINTS[cls] // npes >> 20) + 64)


class Runner:
    def __init__(self, args, hosts):
        b = args.build
        self.hosts = hosts
        self.failures = []
        self.loads = []  # the load average as each run started
        self.iters = {"B": args.iters_b} if args.iters_b else {}
        self.variants = ["--variant", args.variants] if args.variants != "all" else []
        self.pieces = ["--pieces", str(args.pieces)] if args.pieces else []
        self.progress_thread = args.progress_thread
        self.run_ = os.path.join(b, "tools", "gasket-run")
        self.ft = os.path.join(b, "apps", "ft")
        self.ft_mpi = os.path.join(b, "apps", "ft_mpi")
        compare.need_built("ft_compare.py", (self.run_, self.ft, self.ft_mpi), b)

    def args(self, cls):
        extra = ["--iters", str(self.iters[cls])] if cls in self.iters else []
        return ["--class", cls] + extra

    def commands(self, config, cls):
        """{label: (command, environment)} of one class in one configuration."""
        ft = [self.ft] + self.args(cls) + self.pieces
        mpi = [self.ft_mpi] + self.args(cls)
        nb = ["--variant", NB_VARIANT]
        if config == "node":
            env = {"GK_HEAP_SIZE": heap_size(cls, 2)}
            gasket = [self.run_, "-n", "2", "--bind", "--timeout", str(RUN_TIMEOUT - 60)]
            cmds = {
                "gasket": (gasket + ft + self.variants, env),
                "gasket puts": (gasket + ft + ["--puts", "--variant", "slabs,pencils"], env),
                "mpi": (["mpirun", "-n", "2", "--bind-to", "core"] + mpi, dict(compare.MPI_ENV)),
            }
            if self.progress_thread:
                cmds["gasket thread"] = (gasket + ft + nb, dict(env, GK_PROGRESS_THREAD="1"))
            return cmds
        env = dict(compare_hosts.UCX_ENV, GK_HEAP_SIZE=heap_size(cls, 4))
        gasket = [self.run_, "-n", "4", "--hosts", "2", "--timeout", str(RUN_TIMEOUT - 60)]
        cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "pml", "ucx",
               "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any",
               "--mca", "btl", "self,tcp"]
        for key in sorted(compare_hosts.UCX_ENV):
            cmd += ["-x", key]
        cmd += (["-n", "2"] + self.hosts.enter(0) + mpi + [":", "-n", "2"] +
                self.hosts.enter(1) + mpi)
        cmds = {
            "gasket": (gasket + ft + self.variants, env),
            "gasket all-UCX": (gasket + ft + self.variants, dict(env, GK_NET_FORCE_UCX="1")),
            "mpi": (cmd, dict(compare.MPI_ENV, **compare_hosts.UCX_ENV)),
        }
        if self.progress_thread:
            cmds["gasket thread"] = (gasket + ft + nb, dict(env, GK_PROGRESS_THREAD="1"))
        return cmds

    def run(self, what, cmd, env):
        """The rows {variant: (time, fft, wait, other, mops)} of one run;
        {} after a failure (recorded). The run has a session of its own, so
        that a timeout ends the whole tree."""
        full = dict(os.environ)
        full.update(env)
        load = os.getloadavg()[0]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=full, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT)
            status = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            status = None
        except BaseException:  # interrupted: the run must not outlive us
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        rows = {}
        for line in out.splitlines():
            m = LINE.match(line)
            if m and m.group(4) == "SUCCESSFUL":
                rows[m.group(3)] = tuple(float(m.group(i)) for i in range(5, 10))
            elif m:
                self.failures.append("%s: variant %s did not verify" % (what, m.group(3)))
        if status != 0:
            why = "timed out" if status is None else "exit %s" % status
            tail = (err or out).strip().splitlines()[-1:] or [""]
            self.failures.append("%s: %s: %s" % (what, why, tail[0]))
            return {}
        sys.stderr.write("  %-30s load %4.1f  %s\n" % (
            what, load, " ".join("%s %.2f" % (v, r[0]) for v, r in rows.items())))
        self.loads.append(load)
        return rows


def measure(runner, configs, classes, reps):
    """samples[(config, class, label, variant)] = [(time, fft, wait, other, mops)];
    ratios[(config, class)] = [MPI time / our best time, per repetition];
    nb_ratios[(config, class)] = [MPI time / alltoall-nb's time, per repetition]."""
    samples, per_rep = {}, []
    for rep in compare.repetitions(reps):
        for config in configs:
            for cls in classes:
                cmds = runner.commands(config, cls)
                rows = {}
                for label in compare.alternate(list(cmds), rep):
                    cmd, env = cmds[label]
                    rows[label] = runner.run("%s %s %s" % (config, cls, label), cmd, env)
                    for variant, row in rows[label].items():
                        samples.setdefault((config, cls, label, variant), []).append(row)
                per_rep.append((config, cls, rows))
    best = {}
    for (config, cls, label, variant), rows in samples.items():
        if label == "gasket":
            t = statistics.median(r[0] for r in rows)
            if (config, cls) not in best or t < best[(config, cls)][1]:
                best[(config, cls)] = (variant, t)
    ratios, nb_ratios = {}, {}
    for config, cls, rows in per_rep:
        variant = best.get((config, cls), (None,))[0]
        ours = rows.get("gasket", {}).get(variant)
        nb = rows.get("gasket", {}).get(NB_VARIANT)
        mpi = rows.get("mpi", {}).get("alltoall")
        if ours and mpi:
            ratios.setdefault((config, cls), []).append(mpi[0] / ours[0])
        if nb and mpi:
            nb_ratios.setdefault((config, cls), []).append(mpi[0] / nb[0])
    return samples, best, ratios, nb_ratios


def medians(rows):
    return tuple(statistics.median(column) for column in zip(*rows))


def report(samples, best, ratios, nb_ratios, configs, classes, reps, runner):
    lines = ["# NAS FT: gasket's variants and MPI_Alltoall", ""]
    lines += compare.machine_lines()
    if runner.loads:
        lines += ["Load average (1 min) as the runs started: %.1f to %.1f, median %.1f." % (
            min(runner.loads), max(runner.loads), statistics.median(runner.loads))]
    lines += ["", "Seconds for the whole timed run (max over PEs), its split (average over "
              "PEs), medians of %d repetitions; ratio = MPI's time / ours." % reps]
    met = True
    for config in configs:
        for cls in classes:
            lines += ["", "## Class %s, %s" % (cls, CONFIG_TITLES[config]), "",
                      "| run | variant | time | fft | wait | other | Mop/s | MPI / this |",
                      "|---|---|---:|---:|---:|---:|---:|---:|"]
            keys = sorted(k for k in samples if k[0] == config and k[1] == cls)
            mpi = samples.get((config, cls, "mpi", "alltoall"))
            mpi_time = medians(mpi)[0] if mpi else None
            for key in keys:
                m = medians(samples[key])
                ratio = "%.2f" % (mpi_time / m[0]) if mpi_time else "-"
                lines.append("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.0f | %s |" % (
                    key[2], key[3], m[0], m[1], m[2], m[3], m[4], ratio))
            label = "best gasket variant (%s) >= %.1fx MPI_Alltoall" % (
                best.get((config, cls), ("-",))[0], TARGETS[config])
            lines += [""] + compare.TARGETS_HEADER
            row, ok = compare.target_row(label, ratios.get((config, cls), []),
                                         TARGETS[config], True)
            lines.append(row)
            met = met and ok
            if (config, cls, "gasket", NB_VARIANT) in samples:
                row, ok = compare.target_row(
                    "%s >= %.1fx MPI_Alltoall" % (NB_VARIANT, NB_TARGETS[config]),
                    nb_ratios.get((config, cls), []), NB_TARGETS[config], True)
                lines.append(row)
                met = met and ok
    lines += compare.failure_lines(runner.failures)
    return "\n".join(lines) + "\n", met


def plot(path, samples, configs, classes):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("no matplotlib (apt-get install python3-matplotlib): no %s\n" % path)
        return
    panels = [(c, k) for c in configs for k in classes]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.6), squeeze=False)
    for ax, (config, cls) in zip(axes[0], panels):
        keys = sorted(k for k in samples if k[0] == config and k[1] == cls)
        names = [("%s\n%s" % (k[2], k[3])).replace("gasket ", "") for k in keys]
        meds = [medians(samples[k]) for k in keys]
        bottom = [0.0] * len(keys)
        for i, part in ((1, "fft"), (2, "wait"), (3, "other")):
            values = [m[i] for m in meds]
            ax.bar(range(len(keys)), values, bottom=bottom, label=part)
            bottom = [b + v for b, v in zip(bottom, values)]
        ax.scatter(range(len(keys)), [m[0] for m in meds], marker="_", s=300, color="black",
                   label="time (max over PEs)", zorder=3)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(names, fontsize=7, rotation=45, ha="right")
        ax.set_title("class %s, %s" % (cls, CONFIG_TITLES[config]), fontsize=9)
        ax.set_ylabel("seconds")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("NAS FT: where the time goes (medians)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="the build directory (build)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (3)")
    ap.add_argument("--classes", nargs="+", default=["A", "B"], choices=sorted(CLASS_POINTS))
    ap.add_argument("--configs", nargs="+", default=["node", "hosts"], choices=list(TARGETS))
    ap.add_argument("--iters-b", type=int, help="class B's iterations (NPB's 20)")
    ap.add_argument("--variants", default="all",
                    help="ft's variants in the gasket runs (ft --variant; all)")
    ap.add_argument("--pieces", type=int,
                    help="alltoall-nb's pieces a transpose (ft --pieces; ft's default)")
    ap.add_argument("--progress-thread", action="store_true",
                    help="also run alltoall-nb with GK_PROGRESS_THREAD=1")
    ap.add_argument("--markdown", metavar="FILE", help="also write the report here")
    ap.add_argument("--plot", metavar="PNG", help="draw the time splits here (matplotlib)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a target is not met or a run failed")
    args = ap.parse_args()
    start = time.time()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("ft_compare.py: terminated"))
    hosts = compare_hosts.Hosts(2) if "hosts" in args.configs else None
    if hosts is not None and hosts.error:
        sys.exit("ft_compare.py: %s" % hosts.error)
    try:
        runner = Runner(args, hosts)
        samples, best, ratios, nb_ratios = measure(runner, args.configs, args.classes,
                                                   args.reps)
    finally:
        if hosts is not None:
            hosts.close()
    text, met = report(samples, best, ratios, nb_ratios, args.configs, args.classes,
                       args.reps, runner)
    if args.plot:
        plot(args.plot, samples, args.configs, args.classes)
    compare.finish(text, start, args.markdown)
    return 1 if args.strict and (not met or runner.failures) else 0


if __name__ == "__main__":
    sys.exit(main())

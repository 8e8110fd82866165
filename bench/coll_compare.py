#!/usr/bin/env python3
"""coll_compare.py: gasket's team collectives beside Open MPI's and OSHMEM's.

    python3 bench/coll_compare.py [--build build] [--reps 5] [--iters N]
        [--pes 4,8,16] [--hosts 1,2,4] [--sizes 8,64K,1M]
        [--ops barrier,bcast,allreduce,reduce,fcollect,alltoall[,alltoall_sym][,overlap]]
        [--impls gasket,ompi-tuned,ompi-han,oshmem[,mpich]] [--quick]
        [--plot DIR] [--markdown FILE] [--raw DIR] [--timeout S]
        [--wait-quiet S]
    python3 bench/coll_compare.py --from-raw DIR [--plot DIR] [--markdown FILE]

The operations, on every PE of the job (sizes are bytes; fcollect and
alltoall move `size` bytes from / to each PE):

| op        | gasket (gk-bench)   | MPI (mpi-coll-peer) | OpenSHMEM (shmem-coll-peer)   |
|-----------|---------------------|---------------------|-------------------------------|
| barrier   | gk_team_barrier     | MPI_Barrier         | shmem_barrier_all             |
| bcast     | gk_team_broadcast   | MPI_Bcast           | shmem_broadcast64 (1.4)       |
| allreduce | gk_team_allreduce   | MPI_Allreduce       | shmem_double_sum_to_all (1.4) |
| reduce    | gk_team_reduce      | MPI_Reduce          | (none in OpenSHMEM)           |
| fcollect  | gk_team_fcollect    | MPI_Allgather       | shmem_fcollect64 (1.4)        |
| alltoall  | gk_team_alltoall    | MPI_Alltoall        | shmem_alltoall64 (1.4)        |
| fcollect_sym | gk_team_fcollect into gk_malloc'd dst | as fcollect | as fcollect |
| alltoall_sym | gk_team_alltoall into gk_malloc'd dst | as alltoall | as alltoall |

(reductions: sums of doubles; the OpenSHMEM peer uses the 1.5 teams calls
where the library has them, Open MPI 4.1's OSHMEM is 1.4). Every program
times `iters` calls after a warm-up and a barrier, then a barrier, and
prints rank 0's time per call (bench/gk_bench_team.c). The sides:

- gasket: `gasket-run -n N [--hosts K] gk-bench team_*_lat ...`;
- ompi-tuned: Open MPI's MPI with `--mca coll ^han` (coll tuned decides);
- ompi-han: the same with `--mca coll_han_priority 100` (Open MPI 4.1.4
  ships han at priority 0, below tuned's 30: this is what selects it);
- oshmem: Open MPI's OSHMEM, `oshrun --mca spml ucx` (its scoll picks
  scoll/mpi, which runs the MPI collectives, alltoall excepted);
- mpich (only if asked): MPICH's mpirun with mpi-coll-peer-mpich.

The Open MPI sides run `--mca pml ucx` (and osc ucx: osc rdma crashes
OSHMEM's finalize in 4.1.4), so that every side reaches the PEs of its host
through shared memory and those of other hosts through UCX over TCP on
loopback: UCX_TLS=self,sm,tcp and UCX_NET_DEVICES=lo for every side.

Simulated hosts: gasket-run --hosts K makes its own (docs/LAUNCHER.md).
For the peers this script makes K host namespaces the same way
(compare_hosts.Hosts: UTS, IPC and mount namespaces, a fresh /dev/shm,
host names bench-host<k>) and hands Open MPI a hostfile of K "nodes",
127.0.0.2 .. 127.0.0.(K+1), each with N/K slots, and a launch agent
(--mca plm_rsh_agent) that runs the daemon of node k inside host k; MPICH
gets the same through hydra's rsh launcher. The runtimes then see K real
nodes: their node maps, han's hierarchy and their shared memory follow the
hosts, and PE r is on host r*K/N, as with gasket-run.

The machine has fewer CPUs than PEs: no side is pinned (gasket-run without
--bind, --bind-to none --oversubscribe for mpirun and oshrun), and Open MPI
is told to yield when idle (mpi_yield_when_idle 1, what it does by itself
when it knows it is oversubscribed; on simulated hosts it cannot know).
gasket yields by itself: gasket-run --hosts tells each PE how many PEs
share the machine's CPUs (GK_NODE_CPUS). MPICH spins, and is slow here
for that reason.

Each repetition runs every configuration (PEs x hosts) and in it every
side, one launch each for all the operations, the order of the sides
reversed every other repetition. A table gives each side's median over
the repetitions and gasket's median over the best peer's (the lowest
median of the other sides), and the same ratio of each side's fastest
repetition; below 1 gasket is faster. How each side
reached its peers comes from one run of each with UCX_LOG_LEVEL=info: the
host names and the transports of UCX's endpoints (ep_cfg lines).

With "overlap" in --ops, gk-bench team_overlap and mpi-coll-peer
team_overlap (Open MPI, coll tuned/libnbc) run too, with and without
--poll, and gasket with GK_PROGRESS_THREAD=1: a 1 MiB non-blocking
allreduce and alltoall behind 50 ms of computation.

Other work on the machine spoils the figures: before each launch the
script reads how many other processes are runnable, the report gives the
median and maximum, and --wait-quiet S waits up to S seconds for them to
go before each launch.

--plot DIR writes DIR/coll_<op>.png (time against PEs, one line per side,
a column of panels per host count, a row per size) when matplotlib is
installed; without it the script says so and goes on. --raw DIR keeps
every run's output; --from-raw DIR makes the report and plots again from
such a folder, running nothing. Needs root (namespaces), like gasket-run --hosts.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (table parser, machine line)
import compare_hosts  # noqa: E402  (host namespaces)

KiB, MiB = 1024, 1024 * 1024
UCX_ENV = {"UCX_TLS": "self,sm,tcp", "UCX_NET_DEVICES": "lo"}
OPS = ["barrier", "bcast", "allreduce", "reduce", "fcollect", "alltoall", "fcollect_sym",
       "alltoall_sym"]
TITLES = {
    "barrier": "barrier (gk_team_barrier, MPI_Barrier, shmem_barrier_all)",
    "bcast": "broadcast from PE 0 (gk_team_broadcast, MPI_Bcast, shmem_broadcast)",
    "allreduce": "allreduce, sum of doubles (gk_team_allreduce, MPI_Allreduce, "
                 "shmem_double_sum_to_all)",
    "reduce": "reduce to PE 0, sum of doubles (gk_team_reduce, MPI_Reduce; not in OpenSHMEM)",
    "fcollect": "fcollect / allgather, size bytes from each PE (gk_team_fcollect, "
                "MPI_Allgather, shmem_fcollect)",
    "alltoall": "alltoall, size bytes to each PE (gk_team_alltoall, MPI_Alltoall, "
                "shmem_alltoall)",
    "fcollect_sym": "fcollect into symmetric memory, size bytes from each PE "
                    "(gk_team_fcollect into gk_malloc'd dst; the peers as fcollect)",
    "alltoall_sym": "alltoall into symmetric memory, size bytes to each PE "
                    "(gk_team_alltoall into gk_malloc'd dst; the peers as alltoall: "
                    "MPI_Alltoall, shmem_alltoall, whose dst is symmetric)",
}
IMPLS = ["gasket", "ompi-tuned", "ompi-han", "oshmem", "mpich"]
DEFAULT_IMPLS = ["gasket", "ompi-tuned", "ompi-han", "oshmem"]
NAMES = {"gasket": "gasket", "ompi-tuned": "OMPI tuned", "ompi-han": "OMPI han",
         "oshmem": "OSHMEM", "mpich": "MPICH",
         "gasket-poll": "gasket, gk_poll", "gasket-thread": "gasket, progress thread",
         "ompi-tuned-poll": "OMPI tuned, MPI_Test"}
MPI_ENV = dict(compare.MPI_ENV)


def others_running(samples=10, gap=0.005):
    """How many processes other than this one are runnable, on average over
    `samples` readings of /proc/loadavg's running count `gap` s apart:
    taken between launches, near 0 on a quiet machine."""
    total = 0
    for _ in range(samples):
        try:
            with open("/proc/loadavg") as f:
                total += int(f.read().split()[3].split("/")[0]) - 1
        except (OSError, ValueError, IndexError):
            return None
        time.sleep(gap)
    return max(0.0, total / samples)


def bench_name(op, label="gasket"):
    """The benchmark that times op on side `label`: only gasket's
    all-to-all and fcollect have forms into symmetric memory (the peers'
    *_sym are their plain ones)."""
    if op.endswith("_sym") and not label.startswith("gasket"):
        op = op[:-len("_sym")]
    return "team_%s_lat" % op


def bench_names(ops, label):
    names = []
    for op in ops:
        name = bench_name(op, label)
        if name not in names:
            names.append(name)
    return ",".join(names)


def parse_list(text, kind=int):
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if kind is int:
            out.append(int(item))
        elif kind == "size":
            m = re.fullmatch(r"(\d+)([kKmM]?)", item)
            if not m:
                raise argparse.ArgumentTypeError("bad size %r" % item)
            v = int(m.group(1)) << {"": 0, "k": 10, "m": 20}[m.group(2).lower()]
            if v <= 0 or v & (v - 1):
                raise argparse.ArgumentTypeError("size %r is not a power of two" % item)
            out.append(v)
        else:
            out.append(item)
    return out


def size_label(s):
    if s >= MiB and s % MiB == 0:
        return "%d MiB" % (s // MiB)
    if s >= KiB and s % KiB == 0:
        return "%d KiB" % (s // KiB)
    return "%d B" % s


class PeerHosts:
    """Simulated hosts for the peers: compare_hosts.Hosts namespaces, and
    the agent and hostfiles that make Open MPI and MPICH start a node's
    processes inside its host."""

    def __init__(self, count, workdir):
        self.count = count
        self.error = None
        self.hosts = compare_hosts.Hosts(count) if count > 1 else None
        if self.hosts is not None and self.hosts.error:
            self.error = self.hosts.error
            return
        self.dir = workdir
        self.agent = os.path.join(workdir, "host-agent.sh")
        if self.hosts is None:
            return
        lines = ["#!/bin/sh",
                 "# coll_compare.py's launch agent: HOST COMMAND... runs COMMAND in host",
                 "# HOST's namespaces, as ssh would on a real node.",
                 "host=$1; shift", "case $host in"]
        for k in range(count):
            lines.append("  %s) pid=%d;;" % (self.node(k), self.hosts.holders[k].pid))
        lines += ["  *) echo \"host-agent: unknown host $host\" >&2; exit 1;;", "esac",
                  "exec nsenter --target $pid --uts --ipc --mount --wd=%s sh -c \"$*\"" %
                  os.getcwd(), ""]
        with open(self.agent, "w") as f:
            f.write("\n".join(lines))
        os.chmod(self.agent, 0o755)

    @staticmethod
    def node(k):
        return "127.0.0.%d" % (k + 2)

    def hostfile(self, npes, nhosts):
        path = os.path.join(self.dir, "hostfile-%d-%d" % (npes, nhosts))
        with open(path, "w") as f:
            for k in range(nhosts):
                f.write("%s slots=%d\n" % (self.node(k), self.per_host(npes, nhosts, k)))
        return path

    @staticmethod
    def per_host(npes, nhosts, k):
        """PEs on host k when PE r is on host r*K/N (gasket-run's blocks)."""
        return sum(1 for r in range(npes) if r * nhosts // npes == k)

    def namespaces(self):
        """The mount-namespace links of the hosts (to find what runs in them)."""
        if self.hosts is None:
            return set()
        out = set()
        for proc in self.hosts.holders:
            try:
                out.add(os.readlink("/proc/%d/ns/mnt" % proc.pid))
            except OSError:
                pass
        return out

    def reap(self):
        """Kills what a killed job left running inside the hosts (its
        daemons are not in its process group): the processes in the hosts'
        mount namespaces, the holders excepted."""
        spaces = self.namespaces()
        if not spaces:
            return
        holders = {p.pid for p in self.hosts.holders}
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in holders:
                continue
            try:
                if os.readlink("/proc/%s/ns/mnt" % entry) in spaces:
                    os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass

    def close(self):
        if self.hosts is not None:
            self.reap()
            self.hosts.close()


class Runner:
    def __init__(self, args, peer_hosts):
        b = args.build
        self.args = args
        self.hosts = peer_hosts
        self.failures = []  # one line per failed run
        self.hung = {}  # (impl, npes, nhosts): runs killed after their tables
        self.why = {}  # impl: why it is not measured
        self.raw_count = 0
        self.busy = []  # others_running() before each launch
        self.waited = 0.0  # seconds spent waiting for a quiet machine
        self.gasket_run = os.path.join(b, "tools", "gasket-run")
        self.programs = {"gasket": os.path.join(b, "bench", "gk-bench"),
                         "ompi-tuned": os.path.join(b, "bench", "mpi-coll-peer"),
                         "ompi-han": os.path.join(b, "bench", "mpi-coll-peer"),
                         "oshmem": os.path.join(b, "bench", "shmem-coll-peer"),
                         "mpich": os.path.join(b, "bench", "mpi-coll-peer-mpich")}
        launchers = {"gasket": self.gasket_run, "ompi-tuned": "mpirun", "ompi-han": "mpirun",
                     "oshmem": "oshrun", "mpich": "mpirun.mpich"}
        for impl in args.impls:
            prog, launcher = self.programs[impl], launchers[impl]
            if not os.access(prog, os.X_OK):
                self.why[impl] = "%s is not built" % os.path.relpath(prog)
            elif shutil.which(launcher) is None:
                self.why[impl] = "%s is not installed" % launcher
            elif peer_hosts.error and max(args.hosts) > 1 and impl != "gasket":
                self.why[impl] = peer_hosts.error

    def command(self, impl, npes, nhosts, names, extra):
        """The command line and extra environment of one launch."""
        prog = [self.programs[impl], names] + list(extra)
        if impl == "gasket":
            spread = ["--hosts", str(nhosts)] if nhosts > 1 else []
            return ([self.gasket_run, "-n", str(npes)] + spread +
                    ["--timeout", str(max(10, self.args.timeout - 10))] + prog,
                    {})
        if impl == "mpich":
            if nhosts == 1:
                return ["mpirun.mpich", "-n", str(npes)] + prog, {}
            hosts = ",".join("%s:%d" % (self.hosts.node(k),
                                        self.hosts.per_host(npes, nhosts, k))
                             for k in range(nhosts))
            return (["mpirun.mpich", "-launcher", "rsh", "-launcher-exec", self.hosts.agent,
                     "-hosts", hosts, "-n", str(npes), "-genvlist",
                     ",".join(sorted(k for k in os.environ if k.startswith("UCX_")) +
                              sorted(UCX_ENV))] + prog, {})
        launcher = "oshrun" if impl == "oshmem" else "mpirun"
        cmd = [launcher, "-n", str(npes), "--bind-to", "none", "--oversubscribe",
               "--mca", "mpi_yield_when_idle", "1",
               "--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any",
               "--mca", "pml_ucx_devices", "any", "--mca", "osc", "ucx"]
        if nhosts > 1:
            cmd += ["--hostfile", self.hosts.hostfile(npes, nhosts),
                    "--mca", "plm_rsh_agent", self.hosts.agent,
                    "--mca", "plm_rsh_no_tree_spawn", "1"]
        if impl == "ompi-tuned":
            cmd += ["--mca", "coll", "^han"]
        elif impl == "ompi-han":
            cmd += ["--mca", "coll_han_priority", "100"]
        else:
            cmd += ["--mca", "spml", "ucx"]
        for key in sorted(set(UCX_ENV) | {k for k in os.environ if k.startswith("UCX_")}):
            cmd += ["-x", key]
        return cmd + prog, dict(MPI_ENV)

    def execute(self, cmd, env):
        """Runs cmd in a session of its own (a timeout ends the whole tree
        and what it left in the hosts); (status, stdout, stderr), status
        None on a timeout."""
        full = dict(os.environ)
        full.update(UCX_ENV)
        full.update(env)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=full, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            self.hosts.reap()
            return None, out, err
        return proc.returncode, out, err

    def run(self, impl, npes, nhosts, names, extra=(), env=None, label=None):
        """One launch; (tables, its stdout and stderr). A failure is
        recorded and gives {}."""
        if impl in self.why:
            return {}, ""
        cmd, cmd_env = self.command(impl, npes, nhosts, names, extra)
        cmd_env.update(env or {})
        busy = self.wait_quiet()
        t0 = time.time()
        status, out, err = self.execute(cmd, cmd_env)
        took = time.time() - t0
        text = out + err
        self.keep_raw(label or impl, npes, nhosts, cmd, cmd_env, status, took, busy, text)
        tables = compare.parse_tables(out)
        if status is None and tables:
            self.hung[(impl, npes, nhosts)] = self.hung.get((impl, npes, nhosts), 0) + 1
        elif status != 0 or not tables:
            self.fail(impl, npes, nhosts, "timed out" if status is None else "exit %d" % status,
                      text)
            if status != 0:
                tables = {}
        return tables, text

    def wait_quiet(self):
        """Before a launch: waits (at most --wait-quiet seconds in all, per
        launch) until fewer than 0.5 other processes are runnable; returns
        the last reading, which the report summarises."""
        busy = others_running()
        deadline = time.time() + self.args.wait_quiet
        while busy is not None and busy >= 0.5 and time.time() < deadline:
            time.sleep(0.5)
            self.waited += 0.5
            busy = others_running()
        if busy is not None:
            self.busy.append(busy)
        return busy

    def keep_raw(self, label, npes, nhosts, cmd, env, status, took, busy, text):
        if not self.args.raw:
            return
        self.raw_count += 1
        path = os.path.join(self.args.raw, "%04d-%s-n%d-h%d.txt" % (self.raw_count, label, npes,
                                                                     nhosts))
        with open(path, "w") as f:
            f.write("# %s\n# env: %s\n# exit: %s after %.1f s; other runnable processes "
                    "before: %s\n" %
                    (" ".join(cmd), " ".join("%s=%s" % kv for kv in sorted(env.items())),
                     "timeout" if status is None else status, took,
                     "?" if busy is None else "%.1f" % busy))
            f.write(text)

    def fail(self, impl, npes, nhosts, what, text):
        lines = [x.strip() for x in text.splitlines()
                 if re.search(r"error|failed|abort|refused|cannot|signal", x, re.I)]
        detail = " / ".join(lines[:3])[:400] or " / ".join(text.strip().splitlines()[-3:])
        self.failures.append("%s, %d PEs on %d host(s): %s: %s" %
                             (NAMES.get(impl, impl), npes, nhosts, what, detail[-400:]))
        sys.stderr.write("warning: %s\n" % self.failures[-1])


# Where the processes ran and over what: "[host:pid:thread]" and ep_cfg.
HOST_RE = re.compile(r"\[([^\s:\]]+):\s*\d+\s*:\s*\d+\]")
SHM_TLS = ("self", "sysv", "posix", "cma", "xpmem", "knem")


def probe(runner, args):
    """Each side once with UCX_LOG_LEVEL=info, on one host and on the most
    hosts asked for, smallest PE count: {(impl, nhosts): (host names seen,
    transports seen, whether it ran)}."""
    seen = {}
    npes = min(args.pes)
    for nhosts in sorted({1, max(args.hosts)}):
        if nhosts > npes:
            continue
        for impl in args.impls:
            if impl in runner.why:
                continue
            tables, text = runner.run(impl, npes, nhosts, bench_name("allreduce"),
                                      ["--sizes", "8", "--iters", "20", "--warmup", "2"],
                                      env={"UCX_LOG_LEVEL": "info"}, label="probe-" + impl)
            seen[(impl, nhosts)] = transports(text) + (bool(tables),)
    return seen


def transports(text):
    """(host names, UCX transports) from a run's output at UCX_LOG_LEVEL=info."""
    hosts, tls = set(), set()
    for line in text.splitlines():
        if " UCX " not in line:
            continue
        hosts.update(HOST_RE.findall(line)[:1])
        if "ep_cfg[" in line:
            tls.update("%s/%s" % t for t in
                       re.findall(r"\b(\w+)/(\w+)\b", line.split("ep_cfg[", 1)[1]))
    return sorted(hosts), sorted(tls)


def configs(args):
    return [(n, k) for n in args.pes for k in args.hosts if k <= n]


def measure(runner, args):
    """{(impl, op, npes, nhosts, size): [us per repetition]}, and the
    overlap rows {(impl, op, npes, nhosts): [(compute, coll, both, ratio)]}."""
    values, overlap = {}, {}
    lat_ops = [op for op in args.ops if op != "overlap"]
    extra = ["--sizes", ",".join(str(s) for s in args.sizes)]
    if args.iters:
        extra += ["--iters", str(args.iters)]
    impls = [i for i in args.impls if i not in runner.why]
    for rep in compare.repetitions(args.reps):
        for npes, nhosts in configs(args):
            sys.stderr.write("  %d PEs on %d host(s)\n" % (npes, nhosts))
            if lat_ops:
                for impl in compare.alternate(impls, rep):
                    tables, _ = runner.run(impl, npes, nhosts, bench_names(lat_ops, impl),
                                           extra)
                    ingest(values, overlap, impl, npes, nhosts, tables, "")
            if "overlap" in args.ops:
                # (side, how it progresses): "" nothing but the final wait,
                # "poll" a call every 1 ms, "thread" gasket's progress thread.
                sides = [(i, how) for i in ("gasket", "ompi-tuned") if i in impls
                         for how in ("", "poll", "thread") if how != "thread" or i == "gasket"]
                for impl, how in compare.alternate(sides, rep):
                    label = impl + ("-" + how if how else "")
                    _, text = runner.run(impl, npes, nhosts, "team_overlap",
                                         ["--poll"] if how == "poll" else [],
                                         env={"GK_PROGRESS_THREAD": "1"} if how == "thread"
                                         else None, label=label)
                    ingest(values, overlap, label, npes, nhosts, {}, text)
    return values, overlap


def ingest(values, overlap, label, npes, nhosts, tables, text):
    """Adds one launch's latency tables and team_overlap rows."""
    for op in OPS:
        for size, us in tables.get(bench_name(op, label), {}).items():
            key = (label, op, npes, nhosts, npes if op == "barrier" else size)
            values.setdefault(key, []).append(us)
    for op, row in parse_overlap(text).items():
        overlap.setdefault((label, op, npes, nhosts), []).append(row)


class RawRuns:
    """What report() needs of a Runner, read back from a --raw folder."""

    def __init__(self, directory, args):
        self.failures, self.hung, self.why, self.busy, self.waited = [], {}, {}, [], 0.0
        self.values, self.overlap, self.seen = {}, {}, {}
        for name in sorted(os.listdir(directory)):
            m = re.fullmatch(r"\d+-(.+)-n(\d+)-h(\d+)\.txt", name)
            if not m:
                continue
            label, npes, nhosts = m.group(1), int(m.group(2)), int(m.group(3))
            with open(os.path.join(directory, name)) as f:
                text = f.read()
            head = re.search(r"^# exit: (\S+) after [0-9.]+ s; other runnable processes "
                             r"before: (\S+)", text, re.M)
            status = head.group(1) if head else "?"
            if head and head.group(2) != "?":
                self.busy.append(float(head.group(2)))
            tables = compare.parse_tables(text)
            if label.startswith("probe-"):
                self.seen[(label[6:], nhosts)] = transports(text) + (bool(tables),)
                continue
            if status == "timeout" and tables:
                key = (label, npes, nhosts)
                self.hung[key] = self.hung.get(key, 0) + 1
            elif status != "0":
                self.failures.append("%s, %d PEs on %d host(s): exit %s (%s)" %
                                     (NAMES.get(label, label), npes, nhosts, status, name))
                continue
            ingest(self.values, self.overlap, label, npes, nhosts, tables, text)
        found = {k[0] for k in self.values}
        args.impls = [i for i in IMPLS if i in found]
        args.pes = sorted({k[2] for k in self.values})
        args.hosts = sorted({k[3] for k in self.values})
        args.sizes = sorted({k[4] for k in self.values if k[1] != "barrier"})
        args.ops = [op for op in OPS if any(k[1] == op for k in self.values)]
        if self.overlap:
            args.ops.append("overlap")
        args.reps = max((len(v) for v in self.values.values()), default=0)


def parse_overlap(text):
    """{allreduce|alltoall: (compute, coll, both, ratio)} from team_overlap."""
    rows, name = {}, None
    for line in text.splitlines():
        m = re.match(r"# team_overlap_(\w+) \(", line)
        if m:
            name = m.group(1)
            continue
        parts = line.split()
        if name and len(parts) == 5 and not line.startswith("#"):
            try:
                rows[name] = tuple(float(x) for x in parts[1:])
            except ValueError:
                pass
    return rows


def median(v):
    return statistics.median(v) if v else None


def fmt_us(v):
    if v is None:
        return "-"
    return "%.1f" % v if v >= 100 else "%.2f" % v


def report(values, overlap, seen, runner, args, took):
    impls = args.impls
    peers = [i for i in impls if i != "gasket"]
    out = ["# Collectives: gasket beside Open MPI and OSHMEM", ""]
    cmdline = "python3 bench/coll_compare.py " + " ".join(sys.argv[1:])
    out += ["`%s`" % cmdline.strip(), ""]
    out += compare.machine_lines()
    out += ["",
            "%d repetitions; in each, every configuration and in it every side once (one "
            "launch for all operations), the order of the sides reversed every other "
            "repetition. Cells are medians over repetitions of us per call (rank 0's time "
            "for `iters` calls after a warm-up and a barrier, a closing barrier included); "
            "\"gasket/best\" is gasket's median over the lowest peer median; \"min: "
            "gasket/best\" the same with each side's fastest repetition, which other work on "
            "the machine disturbs least. Sizes are bytes "
            "per call; fcollect and alltoall move that much from / to each PE." % args.reps,
            "",
            "%d CPUs, 4-16 PEs: every job oversubscribes the machine. No side is pinned "
            "(gasket-run without --bind; mpirun/oshrun --bind-to none --oversubscribe), and "
            "every side is told to yield when it waits (Open MPI mpi_yield_when_idle 1, "
            "gasket by itself, from GK_NODE_CPUS). UCX_TLS=%s, UCX_NET_DEVICES=%s for every side; Open MPI "
            "with pml ucx (and osc ucx). Simulated hosts: gasket-run --hosts K for gasket; "
            "for the peers K host namespaces made alike, entered by Open MPI's daemons "
            "through a launch agent, so that Open MPI sees K nodes." %
            (len(os.sched_getaffinity(0)), UCX_ENV["UCX_TLS"], UCX_ENV["UCX_NET_DEVICES"]),
            ""]
    if runner.busy:
        b = sorted(runner.busy)
        out += ["Other load: processes other than this script's runnable just before each "
                "launch (0 on a quiet machine): median %.1f, 90th percentile %.1f, max %.1f "
                "over %d launches%s." %
                (statistics.median(b), b[int(0.9 * (len(b) - 1))], b[-1], len(b),
                 "; %.0f s spent waiting for quiet (--wait-quiet %d)" %
                 (runner.waited, args.wait_quiet) if runner.waited else ""), ""]
    out += ["## How each side reached its peers", "",
            "One run of each (allreduce, 8 B, %d PEs) with UCX_LOG_LEVEL=info: the host names "
            "in UCX's log lines and the transports of the UCX endpoints it made (ep_cfg). "
            "Shared memory: self, sysv, posix, cma; network: tcp/lo. gasket reaches the PEs "
            "of its own host through its own shared memory, outside UCX, so only its "
            "endpoints to other hosts appear." % min(args.pes), "",
            "| side | hosts | host names | UCX transports | |", "|---|---:|---|---|---|"]
    for (impl, nhosts), (hosts, tls, ok) in sorted(seen.items(),
                                                   key=lambda kv: (impls.index(kv[0][0]),
                                                                   kv[0][1])):
        shm = [t for t in tls if t.split("/")[0] in SHM_TLS]
        net = [t for t in tls if t not in shm]
        if not ok:
            note = "probe run failed"
        elif nhosts == 1:
            note = ("shared memory only" if not net else "**network inside one host: %s**" %
                    ", ".join(net)) if tls else "no UCX endpoint (own shared memory)"
        else:
            bad = [t for t in net if t != "tcp/lo"]
            note = ("shared memory in a host, tcp/lo across" if shm and net and not bad else
                    "tcp/lo across; no UCX shared memory" if net and not bad else
                    "**%s**" % ", ".join(bad or ["no network endpoint"]))
        out.append("| %s | %d | %s | %s | %s |" % (NAMES[impl], nhosts, ", ".join(hosts) or "-",
                                                   ", ".join(tls) or "-", note))
    for impl in impls:
        if impl in runner.why:
            out.append("| %s | - | - | - | not measured: %s |" % (NAMES[impl], runner.why[impl]))
    out.append("")
    for op in [o for o in args.ops if o != "overlap"]:
        out += ["## %s" % TITLES[op], "",
                "| PEs | hosts | size | " + " | ".join(NAMES[i] for i in impls) +
                " | best peer | gasket/best | min: gasket/best |",
                "|---:|---:|---:|" + "---:|" * len(impls) + "---|---:|---:|"]
        sizes = [None] if op == "barrier" else args.sizes
        for npes, nhosts in configs(args):
            for size in sizes:
                key_size = npes if size is None else size
                med = {i: median(values.get((i, op, npes, nhosts, key_size))) for i in impls}
                cells = []
                for i in impls:
                    if op == "reduce" and i == "oshmem":
                        cells.append("n/a")
                    else:
                        cells.append(fmt_us(med[i]))
                best = [(med[p], p) for p in peers if med[p] is not None]
                best_cell, ratio = "-", "-"
                if best:
                    b_val, b_impl = min(best)
                    best_cell = NAMES[b_impl]
                    if med["gasket"] is not None and b_val > 0:
                        ratio = "%.2f" % (med["gasket"] / b_val)
                low = {i: min(values.get((i, op, npes, nhosts, key_size), [0])) for i in impls}
                low_peers = [low[p] for p in peers if low[p] > 0]
                low_ratio = ("%.2f" % (low["gasket"] / min(low_peers))
                             if low_peers and low["gasket"] > 0 else "-")
                out.append("| %d | %d | %s | %s | %s | %s | %s |" %
                           (npes, nhosts, "-" if size is None else size_label(size),
                            " | ".join(cells), best_cell, ratio, low_ratio))
        out.append("")
    if overlap:
        out += ["## Overlap: a 1 MiB non-blocking collective behind 50 ms of computation", "",
                "gk-bench team_overlap (gk_team_allreduce_nb, gk_team_alltoall_nb of 1 MiB to "
                "each PE) and mpi-coll-peer team_overlap (MPI_Iallreduce, MPI_Ialltoall, coll "
                "tuned/libnbc), without and with a progress call (gk_poll, MPI_Test) about every "
                "1 ms of the computation, and gasket with GK_PROGRESS_THREAD=1 and no call. "
                "us, medians over repetitions of each run's medians "
                "of the slowest PE; both/compute is 1.0 when the collective is wholly hidden.",
                "", "| PEs | hosts | op | side | compute | collective | both | both/compute |",
                "|---:|---:|---|---|---:|---:|---:|---:|"]
        for npes, nhosts in configs(args):
            for op in ("allreduce", "alltoall"):
                for label in ("gasket", "gasket-poll", "gasket-thread", "ompi-tuned",
                              "ompi-tuned-poll"):
                    rows = overlap.get((label, op, npes, nhosts))
                    if not rows:
                        continue
                    cols = [median([r[k] for r in rows]) for k in range(4)]
                    out.append("| %d | %d | %s | %s | %.0f | %.0f | %.0f | %.3f |" %
                               (npes, nhosts, op, NAMES[label], cols[0], cols[1], cols[2],
                                cols[3]))
        out.append("")
    for (impl, npes, nhosts), n in sorted(runner.hung.items()):
        out += ["%s, %d PEs on %d host(s): %d run(s) did not end within %d s and were killed; "
                "the rows they had printed count." % (NAMES[impl], npes, nhosts, n,
                                                      args.timeout), ""]
    out += compare.failure_lines(runner.failures)
    if took:
        out += ["", "(%.0f s)" % took]
    out.append("")
    return "\n".join(out)


def plot(values, args, directory):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("coll_compare.py: %s has no matplotlib (Debian's "
                         "python3-matplotlib serves /usr/bin/python3); no plots\n" %
                         sys.executable)
        return []
    os.makedirs(directory, exist_ok=True)
    written = []
    hosts = [k for k in args.hosts if any(k <= n for n in args.pes)]
    for op in [o for o in args.ops if o != "overlap"]:
        sizes = [None] if op == "barrier" else args.sizes
        fig, axes = plt.subplots(len(sizes), len(hosts), squeeze=False, sharex=True,
                                 figsize=(4.2 * len(hosts), 3.3 * len(sizes)))
        for row, size in enumerate(sizes):
            for col, nhosts in enumerate(hosts):
                ax = axes[row][col]
                for impl in args.impls:
                    pts = [(n, median(values.get((impl, op, n, nhosts, n if size is None
                                                  else size))))
                           for n in args.pes if nhosts <= n]
                    pts = [(n, v) for n, v in pts if v is not None]
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                                label=NAMES[impl])
                ax.set_xscale("log", base=2)
                ax.set_xticks(args.pes)
                ax.set_xticklabels([str(n) for n in args.pes])
                ax.set_yscale("log")
                ax.grid(True, alpha=0.3)
                ax.set_title("%d host%s%s" % (nhosts, "" if nhosts == 1 else "s",
                                              "" if size is None else ", " + size_label(size)),
                             fontsize=9)
                if row == len(sizes) - 1:
                    ax.set_xlabel("PEs")
                if col == 0:
                    ax.set_ylabel("us per call")
        handles, labels = axes[0][0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="lower center", ncol=len(handles), fontsize=8)
        fig.suptitle("%s, us per call (down is good)" % TITLES[op].split(" (")[0], fontsize=11)
        fig.tight_layout(rect=(0, 0.07, 1, 0.95))
        path = os.path.join(directory, "coll_%s.png" % op)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="the build directory (build)")
    ap.add_argument("--reps", type=int, help="repetitions (5; 3 with --quick)")
    ap.add_argument("--iters", type=int,
                    help="iterations at sizes up to 4 KiB, fewer above (the programs' "
                         "default: 1000 at 4 PEs, 200 above)")
    ap.add_argument("--pes", type=lambda t: parse_list(t), help="PE counts (4,8,16)")
    ap.add_argument("--hosts", type=lambda t: parse_list(t), help="host counts (1,2,4)")
    ap.add_argument("--sizes", type=lambda t: parse_list(t, "size"),
                    help="message sizes, powers of two (8,64K,1M)")
    ap.add_argument("--ops", type=lambda t: parse_list(t, str),
                    help="operations: %s, and overlap (default all but overlap)" %
                         ",".join(OPS))
    ap.add_argument("--impls", type=lambda t: parse_list(t, str),
                    help="sides: %s (default %s)" % (",".join(IMPLS), ",".join(DEFAULT_IMPLS)))
    ap.add_argument("--quick", action="store_true",
                    help="4 and 8 PEs, 1 and 2 hosts, 8 B and 64 KiB, 3 repetitions (options "
                         "given win)")
    ap.add_argument("--plot", metavar="DIR", help="write DIR/coll_<op>.png (matplotlib)")
    ap.add_argument("--markdown", metavar="FILE", help="also write the report here")
    ap.add_argument("--raw", metavar="DIR", help="keep every run's output in DIR")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per launch (300)")
    ap.add_argument("--from-raw", metavar="DIR",
                    help="measure nothing: write the report and plots of the runs a --raw "
                         "DIR holds")
    ap.add_argument("--wait-quiet", type=int, default=0, metavar="S",
                    help="before each launch wait up to S s for other processes to stop "
                         "running (0: do not wait; the report says how busy it was)")
    args = ap.parse_args()
    args.reps = args.reps or (3 if args.quick else 5)
    args.pes = args.pes or ([4, 8] if args.quick else [4, 8, 16])
    args.hosts = args.hosts or ([1, 2] if args.quick else [1, 2, 4])
    args.sizes = args.sizes or ([8, 64 * KiB] if args.quick else [8, 64 * KiB, MiB])
    args.ops = args.ops or [op for op in OPS if not op.endswith("_sym")]
    args.impls = args.impls or list(DEFAULT_IMPLS)
    for op in args.ops:
        if op not in OPS + ["overlap"]:
            ap.error("unknown operation %s (%s, overlap)" % (op, ",".join(OPS)))
    for impl in args.impls:
        if impl not in IMPLS:
            ap.error("unknown side %s (%s)" % (impl, ",".join(IMPLS)))
    if "gasket" not in args.impls:
        args.impls.insert(0, "gasket")
    if args.reps < 1 or min(args.pes) < 2 or min(args.hosts) < 1 or max(args.sizes) > MiB:
        ap.error("need --reps >= 1, PEs >= 2, hosts >= 1, sizes <= 1 MiB")
    if not configs(args):
        ap.error("no configuration has hosts <= PEs")
    if args.from_raw:
        start = time.time()
        raw = RawRuns(args.from_raw, args)
        if not raw.values:
            sys.exit("coll_compare.py: no runs in %s" % args.from_raw)
        text = report(raw.values, raw.overlap, raw.seen, raw, args, 0)
        return finish(text, raw.values, args)
    if args.raw:
        os.makedirs(args.raw, exist_ok=True)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            sys.stderr.write("coll_compare.py: %s has no matplotlib; --plot will write "
                             "nothing\n" % sys.executable)
    compare.need_built("coll_compare.py",
                       (os.path.join(args.build, "tools", "gasket-run"),
                        os.path.join(args.build, "bench", "gk-bench")), args.build)
    start = time.time()
    workdir = tempfile.mkdtemp(prefix="coll-compare-")
    peer_hosts = PeerHosts(max(args.hosts), workdir)
    try:
        runner = Runner(args, peer_hosts)
        seen = probe(runner, args)
        for (impl, nhosts), (_, _, ok) in seen.items():
            if not ok and nhosts == 1 and impl != "gasket":
                runner.why[impl] = "its probe run failed (see below)"
        values, overlap = measure(runner, args)
    finally:
        peer_hosts.close()
        shutil.rmtree(workdir, ignore_errors=True)
    text = report(values, overlap, seen, runner, args, time.time() - start)
    return finish(text, values, args)


def finish(text, values, args):
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.plot:
        for path in plot(values, args, args.plot):
            sys.stderr.write("wrote %s\n" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""compare_hosts.py: gasket between two simulated hosts, beside its UCX peers.

    python3 bench/compare_hosts.py [--build build] [--reps 5] [--markdown FILE]
                                   [--strict]

Two PEs on two simulated hosts (docs/LAUNCHER.md, `--hosts`), every side
over UCX on loopback TCP: UCX_TLS=tcp,self and UCX_NET_DEVICES=lo in the
environment of every run. Ours is `gasket-run -n 2 --hosts 2 --bind
gk-bench NAME`. The peers run on two hosts made the same way: this script
makes two host namespaces (unshare --uts --ipc --mount, a fresh tmpfs on
/dev/shm, a host name of its own), held open by a process each for the whole
run, and starts rank r of a peer inside host r with nsenter, through an
MPMD command line (`mpirun -n 1 nsenter <host 0> prog : -n 1 nsenter <host
1> prog`), so no wrapper has to find its rank. The peers:

- Open MPI's OSHMEM (oshrun --mca spml ucx), bench/peers/oshmem_peer.c:
  put + quiet, get and fetch-add latency, put bandwidth;
- ucx_perftest: ucp_put_bw and ucp_get at 64 KiB, 1 MiB and 4 MiB, ucp_am_lat 8 B
  (server on host 1, client on host 0);
- MPICH (ch4:ucx): exclusive window lock + 8 B get + unlock
  (mpi-lock-peer-mpich lock_xget_lat);
- Open MPI's MPI_Send/MPI_Recv with pml ucx (mpi-peer sendrecv_lat).

Every implementation first runs once with UCX_LOG_LEVEL=info: the hosts its
processes ran on and the UCX transports of their endpoints (ep_cfg lines)
are reported, and a side whose endpoints use anything but tcp/lo (and self)
is flagged.

Each repetition runs ours and its peers back to back, the order flipping
every repetition; a ratio is the median over repetitions of ours / peer
from the same repetition. Until gasket has a transport between hosts its
side fails in gk_init: the report says why and its targets are "not
measured". Exit status 0, or with --strict 1 when a target is not met or
not measured.

Standard library only; needs root (namespaces), like gasket-run --hosts.
"""
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (the shared machinery)

KiB, MiB = 1024, 1024 * 1024
UCX_ENV = {"UCX_TLS": "tcp,self", "UCX_NET_DEVICES": "lo"}
BW_SIZES = (64 * KiB, MiB, 4 * MiB)
RUN_TIMEOUT = 120
# MPICH 4.0.2 and Open MPI 4.1.4 over UCX 1.13's tcp now and then hang in
# MPI_Finalize, after their tables: their latency runs take seconds, so
# they get less time (bandwidth runs keep RUN_TIMEOUT).
TIMEOUTS = {"mpich": 60, "ompi": 60, "oshmem": 60}
NAMES = {"gasket": "gasket", "oshmem": "Open MPI OSHMEM (spml ucx)",
         "ucx": "ucx_perftest", "mpich": "MPICH (ch4:ucx)", "ompi": "Open MPI (pml ucx)"}

# 5000 round trips: 0.1 s at TCP's 10 us, seconds where a wake-up takes a
# millisecond (a machine shared with other jobs).
LAT_ITERS = 5000
LAT8 = ["--min-size", "8", "--max-size", "8", "--iters", str(LAT_ITERS)]
# The command line of each (impl, bench): what the tables need, no more.
ARGS = {
    "put_lat": LAT8, "get_lat": LAT8, "fadd_lat": ["--iters", str(LAT_ITERS)],
    # 0.1-1.3 GiB a size (bench_bw_loops), not 1 GiB: TCP on a shared
    # machine may give 400 MB/s.
    "put_bw": ["--min-size", str(64 * KiB), "--max-size", str(4 * MiB), "--iters", "400"],
    "get_bw": ["--min-size", str(64 * KiB), "--max-size", str(4 * MiB), "--iters", "400"],
    "signal_pingpong": LAT8, "flag_pingpong": LAT8, "nbi_flag_pingpong": LAT8,
    "lock_xget_lat": LAT8,
    "sendrecv_lat": LAT8, "am_lat": ["--max-size", "1", "--iters", str(LAT_ITERS)],
    "passive_busy": [],
}

# Groups run back to back in a repetition: ours, then its peers (impl, bench).
GROUPS = [
    ("put_lat", [("oshmem", "put_lat")]),
    ("get_lat", [("oshmem", "get_lat")]),
    ("fadd_lat", [("oshmem", "fadd_lat")]),
    ("put_bw", [("oshmem", "put_bw"), ("ucx", "ucp_put_bw")]),
    ("get_bw", [("oshmem", "get_bw"), ("ucx", "ucp_get")]),
    ("signal_pingpong", [("gasket", "flag_pingpong"), ("gasket", "nbi_flag_pingpong")]),
    ("lock_xget_lat", [("mpich", "lock_xget_lat")]),
    ("sendrecv_lat", [("ompi", "sendrecv_lat")]),
    ("am_lat", [("ucx", "ucp_am_lat")]),
    ("passive_busy", []),
]


def size_name(s):
    return "%d MiB" % (s // MiB) if s >= MiB else "%d KiB" % (s // KiB)


# label, ours (impl, table, size), peer (impl, table, size), limit, higher
# is better, the factor on the peer's value (a round trip from a one-way).
TARGETS = [
    ("put 8 B + quiet <= 1.0x OSHMEM shmem_putmem + shmem_quiet",
     ("gasket", "put_lat", 8), ("oshmem", "put_lat", 8), 1.0, False, 1.0),
    ("get 8 B <= 1.0x OSHMEM shmem_getmem",
     ("gasket", "get_lat", 8), ("oshmem", "get_lat", 8), 1.0, False, 1.0),
    ("fetch-add <= 1.0x OSHMEM shmem_atomic_fetch_add",
     ("gasket", "fadd_lat", 8), ("oshmem", "fadd_lat", 8), 1.0, False, 1.0),
] + [
    # Bandwidth, put and get: >= 1.0x OSHMEM and >= 0.9x ucx_perftest, each size.
    ("%s bandwidth %s >= %.1fx %s" % (what, size_name(s), limit, peer_name),
     ("gasket", bench, s), (peer, peer_bench, s), limit, True, 1.0)
    for what, bench, perftest in (("put", "put_bw", "ucp_put_bw"), ("get", "get_bw", "ucp_get"))
    for peer, peer_bench, peer_name, limit in (
        ("oshmem", bench, "OSHMEM", 1.0),
        ("ucx", perftest, "ucx_perftest " + perftest, 0.9))
    for s in BW_SIZES
] + [
    ("signal ping-pong 8 B one-way <= 0.7x our put + fence + flag ping-pong",
     ("gasket", "signal_pingpong", 8), ("gasket", "flag_pingpong", 8), 0.7, False, 1.0),
    ("exclusive lock + get 8 B + unlock <= 0.5x MPICH",
     ("gasket", "lock_xget_lat", 8), ("mpich", "lock_xget_lat", 8), 0.5, False, 1.0),
    ("lock + put 1 MiB + unlock, target computing 50 ms <= 1.5x target idle",
     ("gasket", "passive_put_busy", MiB), ("gasket", "passive_put_idle", MiB), 1.5, False, 1.0),
    ("lock + get 1 MiB + unlock, target computing 50 ms <= 1.5x target idle",
     ("gasket", "passive_get_busy", MiB), ("gasket", "passive_get_idle", MiB), 1.5, False, 1.0),
    ("send/recv 8 B one-way <= 1.0x Open MPI pml ucx",
     ("gasket", "sendrecv_lat", 8), ("ompi", "sendrecv_lat", 8), 1.0, False, 1.0),
    ("short AM round trip <= 1.2x twice ucx_perftest ucp_am_lat one-way",
     ("gasket", "am_lat", 0), ("ucx", "ucp_am_lat", 8), 1.2, False, 2.0),
]
INFO = [
    ("signal ping-pong 8 B one-way / put_nbi + quiet + flag ping-pong",
     ("gasket", "signal_pingpong", 8), ("gasket", "nbi_flag_pingpong", 8), 0.7, False, 1.0),
    ("lock + put 8 B + unlock, target computing / idle",
     ("gasket", "passive_put_busy", 8), ("gasket", "passive_put_idle", 8), 1.5, False, 1.0),
    ("lock + get 8 B + unlock, target computing / idle",
     ("gasket", "passive_get_busy", 8), ("gasket", "passive_get_idle", 8), 1.5, False, 1.0),
]
HIGHER = {"put_bw", "ucp_put_bw", "get_bw", "ucp_get"}


class Hosts:
    """Two simulated hosts for the peers, as gasket-run --hosts makes them:
    each a holder process in its own UTS, IPC and mount namespaces with a
    fresh /dev/shm. A holder lives until this script closes its stdin (or
    dies), and a host until the last process inside it ends."""

    def __init__(self, count=2):
        self.holders = []
        self.error = None
        if shutil.which("unshare") is None or shutil.which("nsenter") is None:
            self.error = "unshare or nsenter (util-linux) is missing"
            return
        for k in range(count):
            script = ("mount -t tmpfs tmpfs /dev/shm && hostname bench-host%d && echo ready "
                      "&& exec cat >/dev/null" % k)
            proc = subprocess.Popen(["unshare", "--uts", "--ipc", "--mount", "--propagation",
                                     "private", "sh", "-c", script],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            if proc.stdout.readline().strip() != "ready":
                proc.wait()
                self.error = ("could not make a host namespace (needs root): %s" %
                              proc.stderr.read().strip()[:200])
                self.close()
                return
            self.holders.append(proc)

    def enter(self, k):
        """The command prefix that runs a program on host k."""
        return ["nsenter", "--target", str(self.holders[k].pid), "--uts", "--ipc", "--mount",
                "--wd=" + os.getcwd()]

    def close(self):
        for proc in self.holders:
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.holders = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    """True when a socket listens on `port` (TCP, IPv4 or IPv6); the network
    namespace is shared, so this sees the hosts' sockets."""
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


class Runner:
    def __init__(self, args, hosts):
        b = args.build
        self.hosts = hosts
        self.failures = []  # one line per failed run
        self.hung = {}  # (impl, bench): runs that timed out after a table, kept
        self.why = {}  # impl: why it is not measured
        self.transports = {}  # impl: (hosts seen, transports seen)
        self.gasket = [os.path.join(b, "tools", "gasket-run"), "-n", "2", "--hosts", "2",
                       "--bind", "--timeout", str(RUN_TIMEOUT - 10),
                       os.path.join(b, "bench", "gk-bench")]
        self.programs = {"oshmem": os.path.join(b, "bench", "oshmem-peer"),
                         "mpich": os.path.join(b, "bench", "mpi-lock-peer-mpich"),
                         "ompi": os.path.join(b, "bench", "mpi-peer")}
        launchers = {"oshmem": "oshrun", "mpich": "mpirun.mpich", "ompi": "mpirun"}
        self.cpus = compare.pinned_cpus()
        compare.need_built("compare_hosts.py", (self.gasket[0], self.gasket[-1]), b)
        for impl, prog in self.programs.items():
            if hosts.error:
                self.why[impl] = hosts.error
            elif not os.access(prog, os.X_OK):
                self.why[impl] = "%s is not built" % os.path.basename(prog)
            elif shutil.which(launchers[impl]) is None:
                self.why[impl] = "%s is not installed" % launchers[impl]
        if hosts.error:
            self.why["ucx"] = hosts.error
        elif shutil.which("ucx_perftest") is None:
            self.why["ucx"] = "ucx_perftest (ucx-utils) is not installed"

    def command(self, impl, bench, extra):
        """The command line and extra environment of one run."""
        args = [bench] + compare.DIGITS + ARGS.get(bench, []) + list(extra)
        if impl == "gasket":
            return self.gasket + args, {}
        prog = [self.programs[impl]] + args
        if impl == "mpich":
            # Hydra puts both ranks on this machine's name, so MPICH would
            # join them by shared memory, which hosts do not share: NOLOCAL
            # makes every peer remote.
            return (["mpirun.mpich", "-bind-to", "core", "-n", "1"] + self.hosts.enter(0) +
                    prog + [":", "-n", "1"] + self.hosts.enter(1) + prog,
                    {"MPIR_CVAR_NOLOCAL": "1"})
        # Open MPI sees one node too: btl self,tcp keeps vader's shared
        # memory out; pml ucx wants InfiniBand unless told any device will
        # do; osc ucx, because osc rdma crashes OSHMEM's finalize (4.1.4).
        launcher = "oshrun" if impl == "oshmem" else "mpirun"
        cmd = [launcher, "--bind-to", "core", "--mca", "pml", "ucx", "--mca", "pml_ucx_tls",
               "any", "--mca", "pml_ucx_devices", "any", "--mca", "osc", "ucx", "--mca", "btl",
               "self,tcp"]
        if impl == "oshmem":
            cmd += ["--mca", "spml", "ucx"]
        for key in sorted(set(UCX_ENV) | {k for k in os.environ if k.startswith("UCX_")}):
            cmd += ["-x", key]
        return (cmd + ["-n", "1"] + self.hosts.enter(0) + prog + [":", "-n", "1"] +
                self.hosts.enter(1) + prog, dict(compare.MPI_ENV))

    @staticmethod
    def timeout(impl, bench):
        return RUN_TIMEOUT if bench.endswith("_bw") else TIMEOUTS.get(impl, RUN_TIMEOUT)

    @staticmethod
    def execute(cmd, env, timeout=RUN_TIMEOUT):
        """Runs cmd in a session of its own (a timeout ends the whole tree);
        (exit status, stdout, stderr), status None on a timeout. UCX_ENV
        comes first, env after it. sos_compare.py runs its jobs with it."""
        full = dict(os.environ)
        full.update(UCX_ENV)
        full.update(env)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=full, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return None, out, err
        return proc.returncode, out, err

    def run(self, impl, bench, extra=(), env=None, raw=False):
        """One run; its tables ({} on failure, which is recorded), or with
        raw=True (tables, stdout + stderr)."""
        if impl in self.why:
            return ({}, "") if raw else {}
        if impl == "ucx":
            tables, text = self.perftest(bench, env or {})
        else:
            cmd, cmd_env = self.command(impl, bench, extra)
            cmd_env.update(env or {})
            status, out, err = self.execute(cmd, cmd_env, self.timeout(impl, bench))
            tables, text = compare.parse_tables(out), out + err
            if status is None and tables:
                # The measurement is complete; only the exit hung.
                self.hung[(impl, bench)] = self.hung.get((impl, bench), 0) + 1
            elif status != 0 or not tables:
                self.fail(impl, bench, "timed out" if status is None else "exit %d" % status,
                          err or out)
                tables = {}
        return (tables, text) if raw else tables

    def fail(self, impl, bench, what, text):
        lines = [x.strip() for x in text.splitlines()
                 if re.search(r"error|failed|abort|refused|cannot", x, re.I)]
        detail = " / ".join(lines[:3])[:400] or " / ".join(text.strip().splitlines()[-3:])
        self.failures.append("%s %s: %s: %s" % (NAMES[impl], bench, what, detail[-400:]))
        sys.stderr.write("warning: %s\n" % self.failures[-1])

    def perftest(self, test, env):
        """ucx_perftest, server on host 1 and CPU 1, client on host 0 and
        CPU 0: ({test: {size: value}}, output). ucp_am_lat: us one-way (the
        average; ucx_perftest halves the round trip); ucp_put_bw and
        ucp_get: MB/s (10^6 bytes; it prints 2^20)."""
        sizes = BW_SIZES if test in ("ucp_put_bw", "ucp_get") else (8,)
        table, text = {}, ""
        for size in sizes:
            n = LAT_ITERS if test == "ucp_am_lat" else max(100, min(20000, (1 << 28) // size))
            port = free_port()
            common = ["ucx_perftest", "-t", test, "-s", str(size), "-n", str(n),
                      "-p", str(port)]
            full = dict(os.environ)
            full.update(UCX_ENV)
            full.update(env)
            server = subprocess.Popen(self.hosts.enter(1) + ["taskset", "-c", str(self.cpus[1])]
                                      + common, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, env=full,
                                      start_new_session=True)
            deadline = time.time() + 10
            while not listening(port) and server.poll() is None and time.time() < deadline:
                time.sleep(0.02)
            status, out, err = self.execute(self.hosts.enter(0) + ["taskset", "-c",
                                                                   str(self.cpus[0])] +
                                            common[:1] + ["127.0.0.1"] + common[1:], env)
            try:
                server_out = server.communicate(timeout=10)[0]
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server_out = server.communicate()[0]
            text += out + err + server_out
            final = [line.split() for line in out.splitlines() if line.startswith("Final:")]
            if status != 0 or not final or len(final[0]) < 9:
                self.fail("ucx", test, "timed out" if status is None else "exit %d" % status,
                          err + out + server_out)
                continue
            f = final[0]
            table[size] = (float(f[3]) if test == "ucp_am_lat"
                           else float(f[6]) * MiB / 1e6)
        return ({test: table} if table else {}), text

    def probe(self):
        """Each implementation once, with UCX's log at info: does it run,
        on which hosts, over which UCX transports."""
        probes = [("gasket", "put_lat", ["--iters", "200"]),
                  ("oshmem", "put_lat", ["--iters", "200"]),
                  ("ompi", "sendrecv_lat", ["--iters", "200"]),
                  ("mpich", "lock_xget_lat", ["--iters", "200"]),
                  ("ucx", "ucp_am_lat", [])]
        for impl, bench, extra in probes:
            if impl in self.why:
                continue
            before = len(self.failures)
            tables, text = self.run(impl, bench, extra, env={"UCX_LOG_LEVEL": "info"}, raw=True)
            hosts = sorted(set(re.findall(r"\[([^\s:\]]+):\d+:\d+\]\s+\S+:\d+\s+UCX", text)))
            tls = set()
            for line in text.splitlines():
                if "ep_cfg[" in line:
                    tls.update(re.findall(r"\b(\w+)/(\w+)\b", line.split("ep_cfg[", 1)[1]))
            self.transports[impl] = (hosts, sorted("%s/%s" % t for t in tls))
            if not tables:
                detail = (self.failures[before].split(": ", 2)[-1].split(" / ")[0]
                          if len(self.failures) > before else "no table")
                self.why[impl] = "does not run across hosts: " + detail
                del self.failures[before:]


def measure(runner, reps):
    samples = compare.Samples()  # by (impl, table, size)
    ratios = {}  # label: [ratios]
    for rep in compare.repetitions(reps):
        tables = {}
        for bench, peers in GROUPS:
            for impl, name in compare.alternate([("gasket", bench)] + peers, rep):
                for table, rows in runner.run(impl, name).items():
                    tables[(impl, table)] = rows
                    samples.add(impl, table, rows)
        compare.target_ratios(ratios, TARGETS + INFO, tables)
    return samples.values, ratios


def report(values, ratios, reps, runner, args):
    out = ["# Across hosts", "",
           "`python3 bench/compare_hosts.py --build %s --reps %d`: 2 PEs on 2 simulated "
           "hosts, UCX_TLS=tcp,self and UCX_NET_DEVICES=lo for every side, PE r pinned to "
           "CPU %d or %d." % (args.build, reps, runner.cpus[0], runner.cpus[1]), ""]
    out += compare.machine_lines()
    out += ["", "## Who ran, where, over what", "",
            "From one run of each with UCX_LOG_LEVEL=info: the host names in UCX's log "
            "lines and the transports of the endpoints it configured (ep_cfg).", "",
            "| side | hosts | UCX transports | |", "|---|---|---|---|"]
    for impl in ["gasket", "oshmem", "ucx", "mpich", "ompi"]:
        hosts, tls = runner.transports.get(impl, ([], []))
        if impl in runner.why:
            note = "not measured: " + runner.why[impl]
        elif not tls:
            note = "no UCX endpoint seen"
        elif all(t == "tcp/lo" or t.startswith("self/") for t in tls):
            note = "tcp/lo only"
        else:
            note = "**not tcp/lo only**"
        out.append("| %s | %s | %s | %s |" % (NAMES[impl], ", ".join(hosts) or "-",
                                             ", ".join(tls) or "-", note))
    out += ["", "## Medians over repetitions", "",
            "us (one-way for ping-pongs and send/recv, round trip for am_lat), or MB/s "
            "(10^6 bytes) for bandwidth.", "",
            "| side | benchmark | size | median | runs |", "|---|---|---:|---:|---:|"]
    for impl, table, size in sorted(values, key=lambda k: (list(NAMES).index(k[0]), k[1], k[2])):
        v = values[(impl, table, size)]
        fmt = "%.1f" if table in HIGHER else "%.3f"
        out.append("| %s | %s | %d | %s | %d |" % (NAMES[impl], table, size,
                                                   fmt % statistics.median(v), len(v)))
    out += ["", "## Targets", "",
            "Each ratio is ours / the peer's value (times the factor the target names), "
            "the median over repetitions of ratios taken within one repetition.", ""]
    out += compare.TARGETS_HEADER
    failed = []
    for label, ours, peer, limit, higher, scale in TARGETS + INFO:
        info = (label, ours, peer, limit, higher, scale) in INFO
        missing = [NAMES[i] for i in dict.fromkeys((ours[0], peer[0])) if i in runner.why]
        row, ok = compare.target_row(
            label, ratios.get(label), limit, higher, info,
            ("info" if info else "not measured") +
            (" (%s: see above)" % ", ".join(missing) if missing else ""))
        if not ok and not info:
            failed.append(label)
        out.append(row)
    for (impl, bench), n in sorted(runner.hung.items()):
        out += ["", "%s %s: %d run(s) did not end within %d s and were killed; the rows they "
                "had printed count." % (NAMES[impl], bench, n, runner.timeout(impl, bench))]
    out += compare.failure_lines(runner.failures)
    return "\n".join(out) + "\n", failed


def main():
    ap = compare.script_args(__doc__, 5)
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a target is not met or not measured")
    ap.add_argument("--groups", metavar="LIST",
                    help="run only these groups, by their first benchmark (e.g. "
                         "put_bw,get_bw); the targets of the others are not measured")
    args = ap.parse_args()
    if args.groups:
        wanted = args.groups.split(",")
        unknown = [g for g in wanted if g not in [b for b, _ in GROUPS]]
        if unknown:
            ap.error("unknown group %s (%s)" % (",".join(unknown),
                                                ",".join(b for b, _ in GROUPS)))
        GROUPS[:] = [(b, p) for b, p in GROUPS if b in wanted]
    if args.reps < 1:
        ap.error("--reps must be at least 1, not %d" % args.reps)
    start = time.time()
    hosts = Hosts()
    try:
        runner = Runner(args, hosts)
        runner.probe()
        values, ratios = measure(runner, args.reps)
    finally:
        hosts.close()
    text, failed = report(values, ratios, args.reps, runner, args)
    compare.finish(text, start, args.markdown)
    return 1 if (args.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())

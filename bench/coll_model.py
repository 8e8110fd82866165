#!/usr/bin/env python3
"""coll_model.py: a cost model of gasket's team collectives, and its check.

    python3 bench/coll_model.py [--a-l S] [--b-l S] [--a-r S] [--b-r S]
                                [--gamma S] [--o-l S] [--o-r S]
                                [--params FILE [--recheck]] [--measure [--reps N]]
                                [--save FILE] [--check] [--check-max N]
                                [--cpus N] [--build build] [--markdown FILE]

The model (docs/COLLECTIVES-MODEL.md) prices each algorithm of
src/team/coll.c and src/team/p1.c in messages: one message of p bytes costs
a + p * b, a and b for shared memory (a_l, b_l) or between hosts (a_r,
b_r); a round of messages waits for the slowest, so a round in which any
message crosses hosts costs a_r. A stream longer than the 2 chunks in
flight also waits a round trip (2 a) per 2 chunks beyond the first 2.
Combining costs gamma seconds per byte. PEs sit on hosts in blocks of m
(gasket-run --hosts), n = m * H; the job's PE count sizes the teams'
scratch, so it sets how many agreement and bulk boxes there are.

The parameters: the ones measured on the reference machine (DEFAULTS
below), overridden by those of --params (a JSON file written by --save),
by a --measure run here, then by --a-l ... values. --measure runs
bench/coll_model_probe.c's ping-pong on one host and across two simulated
hosts (needs root, like gasket-run --hosts), its combining loop and a 2-PE
barrier (o_l, o_r: the engine's round beyond a message), each --reps
times, and takes the medians. --params FILE --recheck redoes the check
table from the points FILE holds, with the parameters given.

Output: the parameters, the teams' scratch by job size, then per
operation and size (8 B, 64 KiB, 1 MiB)
the algorithm the build picks, its rounds, bytes per PE and per host, and
the predicted time at 64, 1,024, 16,384 and 131,072 PEs with 16, 64 and 128
PEs per host, as Markdown. --check runs the probe's barrier and 8-byte
all-reduce at 2 .. --check-max PEs on one host and at 4, 8, 16 PEs on 2 and
4 simulated hosts, and prints measured against predicted, with a fitted
per-round cost of time-slicing (more PEs than CPUs).

Standard library only.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

KiB, MiB = 1024, 1024 * 1024

# The build's constants (src/team/engine.h, engine.c, coll.h).
PAGE = 4096
HDR = 64                # a chunk's header: one cache line
CHUNK = PAGE - HDR      # GK__TEAM_CHUNK: an agreement chunk and its header fill a page
DEPTH = 2               # GK__TEAM_P1_DEPTH: chunks in flight per agreement stream
BULK_DEPTH = 4          # GK__TEAM_BULK_DEPTH: chunks in flight per bulk stream
WINDOW_MIN, WINDOW_MAX = 4 * PAGE, 128 * KiB  # a bulk box's window (engine.c)
MAX_BOXES = 64          # GK__TEAM_MAX_BOXES (the ack words are sized by it)
ACKS = 2 * MAX_BOXES * 64  # GK__TEAM_ACKS_SIZE
BCAST_SMALL_MAX = 8192  # GK__TEAM_BCAST_SMALL_MAX
GATHER_BLOCK_MAX = 2048  # GK__TEAM_GATHER_BLOCK_MAX (a PE's block)
GATHER_TOTAL_MAX = 4 * MiB  # GK__TEAM_GATHER_TOTAL_MAX (n x block)
ALLTOALL_BRUCK_MAX = 256  # GK__TEAM_ALLTOALL_BRUCK_MAX
RING_MAX = 16           # GK_TEAM_RING_MAX's default: above, Rabenseifner's all-reduce
HB_PIECE = 64 * KiB     # host_buf.c: a host buffer's piece
HB_LOCAL_MAX = 63       # GK__HB_LOCAL_MAX: the most PEs of a host a host buffer serves


# Measured on the reference machine (docs/COLLECTIVES-MODEL.md): seconds
# and seconds per byte.
DEFAULTS = {"a_l": 0.157e-6, "b_l": 0.16473e-9, "a_r": 28.806e-6, "b_r": 0.34800e-9,
            "gamma": 0.10294e-9, "o_l": 0.527e-6, "o_r": -3.754e-6}
UNITS = {"a_l": "s", "b_l": "s/B", "a_r": "s", "b_r": "s/B", "gamma": "s/B",
         "o_l": "s", "o_r": "s"}

OPS = ("barrier", "broadcast", "allreduce", "fcollect", "collect", "alltoall", "scan")
SIZES = (8, 64 * KiB, MiB)
PES = (64, 1024, 16384, 131072)
PER_HOST = (16, 64, 128)


def clog2(x):
    r = 0
    while (1 << r) < x:
        r += 1
    return r


def window(N, bulk):
    """team_window_auto: a bulk box's window in a job of N PEs."""
    budget = 512 * KiB if N <= 16 else (8 * MiB) // N
    w = WINDOW_MAX
    while w > WINDOW_MIN and w * bulk > budget:
        w //= 2
    return w


def bulk_chunk(N):
    """A bulk box's chunk: a quarter of the window (its header apart)."""
    return window(N, layout(N)[1]) // BULK_DEPTH


def layout(N):
    """gk__team_layout_for: the boxes of a slot in a job of N PEs, and the
    slot's bytes (16 KiB per agreement box: 2 parities x DEPTH chunks of a
    page; a window per bulk box; then the ack words)."""
    lg = clog2(N)
    p1 = lg + lg // 2 + 2
    bulk = N - 1 if N <= 16 and N - 1 > lg else lg
    bulk = max(bulk, 1)
    hdrs = -(-bulk * BULK_DEPTH * HDR // PAGE) * PAGE  # the bulk boxes' headers
    size = 2 * p1 * DEPTH * PAGE + hdrs + bulk * window(N, bulk) + ACKS
    return p1, bulk, size


def gather_fits(block, total):
    """gk__team_gather_fits: the gathers (in the agreement) or a ring/chain."""
    return block <= GATHER_BLOCK_MAX and total <= GATHER_TOTAL_MAX


def hdrs(payload, chunk=CHUNK):
    """The header bytes of a stream of payload bytes: one per chunk, at
    least one (an empty stream is a header)."""
    return max(1, -(-int(payload) // chunk)) * HDR


def human(nbytes):
    for unit, size in (("GiB", 1024 * MiB), ("MiB", MiB), ("KiB", KiB)):
        if nbytes >= size:
            v = nbytes / size
            return ("%.3g %s" if v < 1000 else "%.0f %s") % (v, unit)
    return "%.0f B" % nbytes


def human_s(t):
    if t < 1e-3:
        return "%.3g us" % (t * 1e6)
    if t < 1:
        return "%.3g ms" % (t * 1e3)
    return "%.3g s" % t


class Topo:
    """n PEs in blocks of m per host (the last host may hold fewer), a team
    of a job of N PEs (N = n unless given): N sizes the slots' boxes."""

    def __init__(self, n, m, N=None):
        self.n = n
        self.m = min(m, n)
        self.H = -(-n // self.m)
        self.N = max(N or n, n)
        self.p1_boxes, self.bulk_boxes, self.slot = layout(self.N)
        self.bulk_chunk = bulk_chunk(self.N)

    def link(self):
        return "l" if self.H == 1 else "r"

    def cross(self, d):
        """PEs of a host whose partner at distance d (mod n) is elsewhere."""
        if self.H == 1:
            return 0
        d %= self.n
        return min(d, self.m, self.n - d)

    def spans(self):
        """The team spans hosts with several of its PEs on one."""
        return 1 < self.H < self.n

    def hb_usable(self):
        """gk__hb_usable and gk__hb_shares: the hierarchical algorithms
        (host buffers) can run and save messages."""
        return self.spans() and self.m <= HB_LOCAL_MAX

    def levels_fit(self):
        return 2 * clog2(self.m) + clog2(self.H) <= self.p1_boxes

    def levels(self):
        """The agreement's shape, as p1_hier() picks it: "hier" (levels) or
        "flat"."""
        return "hier" if self.spans() and self.levels_fit() else "flat"

    def notes(self):
        out = []
        if self.spans() and not self.levels_fit():
            out.append("flat")     # levels do not fit: flat over the team
        return out


_tree_cache = {}


def tree_cross_edges(topo):
    """The binomial tree from team PE 0 (the broadcast's, and the small
    broadcast's spread): the most edges leaving one host."""
    key = (topo.n, topo.m)
    if key in _tree_cache:
        return _tree_cache[key]
    n, m = topo.n, topo.m
    best = 0
    if topo.H > 1:
        for h in range(topo.H):
            cnt = 0
            for v in range(h * m, min(n, h * m + m)):
                j = v.bit_length()  # children v + 2^j for 2^j > v
                while v + (1 << j) < n:
                    if (v + (1 << j)) // m != h:
                        cnt += 1
                    j += 1
            best = max(best, cnt)
    _tree_cache[key] = best
    return best


class Cost:
    def __init__(self, algo):
        self.algo = algo
        self.t = 0.0
        self.rounds = 0
        self.rounds_r = 0
        self.pe_bytes = 0.0
        self.host_bytes = 0.0
        self.notes = []

    def msgs(self, p, link, payload, rounds=1, box=None):
        """rounds rounds of one stream of payload bytes on the critical path,
        through an agreement box, or a bulk box (box: the Topo).
        A stream of k chunks has depth in flight; chunk j waits for the
        acknowledgement of chunk j - depth: a round trip (2 a) per depth
        chunks beyond the first depth. Each latency counts as a round."""
        a, b = (p.a_l, p.b_l) if link == "l" else (p.a_r, p.b_r)
        chunk, depth = (CHUNK, DEPTH) if box is None else (box.bulk_chunk, BULK_DEPTH)
        lat = 1 + 2 * -(-max(0, -(-int(payload) // chunk) - depth) // depth)
        self.t += rounds * (lat * a + payload * b)
        self.rounds += rounds * lat
        if link == "r":
            self.rounds_r += rounds * lat


def agreement(p, topo, mode, s, c):
    """The agreement rounds (p1.c) into c; mode none, bcast (s bytes from
    PE 0), gather (s per PE), reduce (s per PE, combined)."""
    n, m, H = topo.n, topo.m, topo.H
    if topo.levels() == "hier":
        L1, LH = clog2(m), clog2(H)
        # level 0: in each host; 1: between leaders; 2: each host again
        for lvl, (g, link) in enumerate(((m, "l"), (H, "r"), (m, "l"))):
            for r in range(clog2(g)):
                d = 1 << r
                if mode == "none":
                    pay = 0
                elif mode == "bcast":
                    pay = s
                elif lvl == 2:
                    pay = n * s if mode == "gather" else s
                else:
                    unit = s * (m if (lvl == 1 and mode == "gather") else 1)
                    pay = min(d, g - d) * unit
                c.msgs(p, link, pay)
                c.pe_bytes += pay + hdrs(pay)
                if lvl == 1:
                    c.host_bytes += pay + hdrs(pay)
        if mode == "reduce":
            c.t += p.gamma * ((m - 1) + (H - 1)) * s
        return c
    link = topo.link()
    for r in range(clog2(n)):
        d = 1 << r
        if mode == "none":
            pay = 0
        elif mode == "bcast":
            pay = s
        else:
            pay = min(d, n - d) * s
        c.msgs(p, link, pay)
        c.pe_bytes += pay + hdrs(pay)
        c.host_bytes += topo.cross(d) * (hdrs(pay) + (pay if mode in ("gather", "reduce") else 0))
    if mode == "bcast":
        c.host_bytes += tree_cross_edges(topo) * s
    if mode == "reduce":
        c.t += p.gamma * (n - 1) * s
    return c


def stream(c, p, topo, steps, payload):
    """steps flat steps of one payload message each (a ring): one PE of
    each host sends across per step."""
    c.msgs(p, topo.link(), payload, steps, box=topo)
    c.pe_bytes += steps * (payload + hdrs(payload, topo.bulk_chunk))
    if topo.H > 1:
        c.host_bytes += steps * (payload + hdrs(payload, topo.bulk_chunk))


def rabenseifner(c, p, g, link, s, topo, cross=None):
    """Rabenseifner's all-reduce over g members on link (coll.c): the
    fold of the first 2r (g = 2^L + r), L halvings, L doublings, the
    unfold. cross(d): members of a host whose partner at distance d is
    elsewhere (None: every message leaves its host)."""
    L = g.bit_length() - 1
    r = g - (1 << L)
    steps = []
    if r:
        steps += [(s, 1), (s, 1)]
    for k in range(L):
        d = (1 << L) >> (k + 1)
        steps += [(s / (1 << (k + 1)), d)] * 2
    for pay, d in steps:
        c.msgs(p, link, pay, box=topo)
        c.pe_bytes += pay + hdrs(pay, topo.bulk_chunk)
        c.host_bytes += (cross(d) if cross else 1) * (pay + hdrs(pay, topo.bulk_chunk))
    c.t += p.gamma * (s * (1 - 1 / (1 << L)) + (s if r else 0))


def model(p, op, topo, s, algo=None):
    """The cost of op with s bytes (per PE; broadcast: in all) on topo,
    with the build's choice of algorithm unless algo is given."""
    n, m, H = topo.n, topo.m, topo.H
    if op == "barrier":
        c = agreement(p, topo, "none", 0, Cost("agreement"))
    elif op == "broadcast":
        algo = algo or ("small" if s <= BCAST_SMALL_MAX
                        else "hier" if topo.hb_usable() else "tree")
        if algo == "small":
            c = agreement(p, topo, "bcast", s, Cost(algo))
        elif algo == "hier":
            # a pipelined tree between one PE per host, each copying its
            # pieces into the host's buffer, which the host's PEs copy out
            c = agreement(p, topo, "none", 0, Cost(algo))
            cc = min(s, topo.bulk_chunk)
            c.msgs(p, "r", cc, clog2(H) + -(-s // cc) - 1, box=topo)
            c.t += 2 * p.gamma * min(s, HB_PIECE)
            c.pe_bytes += clog2(H) * (s + hdrs(s, topo.bulk_chunk))
            c.host_bytes += clog2(H) * s
        else:
            c = agreement(p, topo, "none", 0, Cost(algo))
            cc = min(s, topo.bulk_chunk)
            stages = clog2(n) + -(-s // cc) - 1
            c.msgs(p, topo.link(), cc, stages, box=topo)
            c.pe_bytes += clog2(n) * (s + hdrs(s, topo.bulk_chunk))
            c.host_bytes += tree_cross_edges(topo) * s
    elif op == "allreduce":
        algo = algo or ("gather" if gather_fits(s, n * s)
                        else "hier" if topo.hb_usable()
                        else "ring" if n <= RING_MAX else "rabenseifner")
        if algo == "gather":
            c = agreement(p, topo, "reduce", s, Cost(algo))
        elif algo == "hier":
            # the host's vectors into its leader's buffer, combined there;
            # the leaders' ring (or Rabenseifner's); the result out
            c = agreement(p, topo, "none", 0, Cost(algo))
            c.t += p.gamma * (m + 1) * s
            if H <= RING_MAX:
                c.msgs(p, "r", s / H, 2 * (H - 1), box=topo)
                c.pe_bytes += 2 * (H - 1) * (s / H + hdrs(s / H, topo.bulk_chunk))
                c.host_bytes += 2 * (H - 1) * (s / H + hdrs(s / H, topo.bulk_chunk))
                c.t += p.gamma * (H - 1) / H * s
            else:
                rabenseifner(c, p, H, "r", s, topo)
        elif algo == "rabenseifner":
            c = agreement(p, topo, "none", 0, Cost(algo))
            rabenseifner(c, p, n, topo.link(), s, topo, topo.cross if H > 1 else None)
            if H == 1:
                c.host_bytes = 0
        else:
            c = agreement(p, topo, "none", 0, Cost(algo))
            stream(c, p, topo, 2 * (n - 1), s / n)
            c.t += p.gamma * (n - 1) / n * s
    elif op == "fcollect":
        algo = algo or ("bruck" if gather_fits(s, n * s) else "ring")
        if algo == "bruck":
            c = agreement(p, topo, "gather", s, Cost(algo))
        else:
            c = agreement(p, topo, "none", 0, Cost(algo))
            stream(c, p, topo, n - 1, s)
    elif op == "collect":
        # the sizes (16 B per PE) in the agreement, then, all sizes s,
        # Bruck's gather flat over the team on the bulk boxes, or the ring
        algo = algo or ("bruck" if gather_fits(s, n * s) and clog2(n) <= topo.bulk_boxes
                        else "ring")
        c = agreement(p, topo, "gather", 16, Cost(algo))
        if algo == "bruck":
            for r in range(clog2(n)):
                d = 1 << r
                pay = min(d, n - d) * s
                c.msgs(p, topo.link(), pay, box=topo)
                c.pe_bytes += pay + hdrs(pay, topo.bulk_chunk)
                c.host_bytes += topo.cross(d) * (pay + hdrs(pay, topo.bulk_chunk))
        else:
            stream(c, p, topo, n - 1, s)
    elif op == "alltoall":
        # pairwise takes a bulk box per exchange: n - 1 of them
        forced = n - 1 > topo.bulk_boxes
        algo = algo or ("bruck" if s <= ALLTOALL_BRUCK_MAX or forced else "pairwise")
        c = agreement(p, topo, "none", 0, Cost(algo))
        if algo == "pairwise":
            c.msgs(p, topo.link(), s, n - 1, box=topo)
            c.pe_bytes += (n - 1) * (s + hdrs(s, topo.bulk_chunk))
            c.host_bytes += sum(topo.cross(r) for r in range(1, n)) * (s + hdrs(s, topo.bulk_chunk))
        else:
            copied = 2 * n * s
            for r in range(clog2(n)):
                d = 1 << r
                blocks = (n >> (r + 1)) * d + max(0, n % (2 * d) - d)
                c.msgs(p, topo.link(), blocks * s, box=topo)
                c.pe_bytes += blocks * s + hdrs(blocks * s, topo.bulk_chunk)
                c.host_bytes += topo.cross(d) * (blocks * s + hdrs(blocks * s, topo.bulk_chunk))
                copied += 2 * blocks * s
            c.t += p.gamma * copied
            if forced and s > ALLTOALL_BRUCK_MAX:
                c.notes.append("bruck-forced")
        if 5 * n * s > 4 * 1024 * MiB:
            c.notes.append("memory")
    elif op == "scan":
        algo = algo or ("gather" if gather_fits(s, n * s) else "chain")
        if algo == "gather":
            c = agreement(p, topo, "gather", s, Cost(algo))
            c.t += p.gamma * (n - 1) * s
        else:
            c = agreement(p, topo, "none", 0, Cost(algo))
            c.msgs(p, "l", s, n - H, box=topo)
            c.msgs(p, "r" if H > 1 else "l", s, H - 1, box=topo)
            c.t += p.gamma * (n - 1) * s
            c.pe_bytes += s + hdrs(s, topo.bulk_chunk)
            c.host_bytes += (s + hdrs(s, topo.bulk_chunk)) if H > 1 else 0
    else:
        raise ValueError(op)
    c.notes = topo.notes() + c.notes
    return c


MARKS = {"flat": "‡", "bruck-forced": "§", "memory": "¶"}
MARK_TEXT = {
    "flat": "the levels do not fit in the agreement's boxes (2 L(m) + L(H) > L(N) + floor(L(N) / 2) + 2): "
            "the agreement runs flat, every round across hosts.",
    "bruck-forced": "Bruck's all-to-all where the pairwise exchange would be chosen: "
                    "the exchange takes n - 1 bulk boxes, and a job of more than 16 PEs "
                    "has L(N).",
    "memory": "the call needs more than 4 GiB per PE (src, dst and Bruck's 3 n s of "
              "work space)."}


def prediction_tables(p):
    out = []
    seen = set()
    for m in PER_HOST:
        out.append("### %d PEs per host\n" % m)
        out.append("| operation | size | " + " | ".join("%s PEs" % format(n, ",") for n in PES) + " |")
        out.append("|---|---|" + "---|" * len(PES))
        for op in OPS:
            for s in ((0,) if op == "barrier" else SIZES):
                cells = []
                for n in PES:
                    topo = Topo(n, m)
                    c = model(p, op, topo, s)
                    seen.update(x for x in c.notes if x in MARKS)
                    marks = "".join(MARKS[x] for x in c.notes if x in MARKS)
                    cells.append("%s%s %d r · %s · %s · **%s**" % (
                        c.algo, marks, c.rounds, human(c.pe_bytes),
                        human(c.host_bytes) if topo.H > 1 else "-", human_s(c.t)))
                out.append("| %s | %s | %s |" % (op, "-" if op == "barrier" else human(s),
                                                 " | ".join(cells)))
        out.append("")
    legend = ("A cell: the algorithm, its rounds (r), the bytes the busiest PE sends, "
              "the bytes leaving the busiest host, and **the predicted time**, for the "
              "world team of a job of that many PEs. Rounds: latencies on the critical "
              "path (message steps, a pipelined broadcast's chunk stages, and the round "
              "trips a stream waits for acknowledgements beyond its first %d chunks, %d "
              "in an agreement box), the agreement's included; bytes include the "
              "%d-byte header of every chunk (%d bytes of payload in an agreement box, "
              "a quarter of the window in a bulk box)."
              % (BULK_DEPTH, DEPTH, HDR, CHUNK))
    out.append(" ".join([legend] + ["%s %s" % (MARKS[k], MARK_TEXT[k])
                                    for k in MARKS if k in seen]))
    return "\n".join(out)


def footprint_table(jobs=(2, 4, 16, 17, 64, 1024, 4096, 16384, 131072), host=128):
    """The teams' scratch (gk__team_layout_for): per slot, and the world's
    and node's slots that every PE reserves at start-up."""
    out = ["| PEs in the job | agreement boxes | bulk boxes | a slot | per PE at start-up "
           "(world + node) | per host (up to %d PEs) |" % host,
           "|---|---|---|---|---|---|"]
    for N in jobs:
        p1, bulk, slot = layout(N)
        out.append("| %s | %d | %d | %s | %s | %s |" % (
            format(N, ","), p1, bulk, human(slot), human(2 * slot),
            human(2 * slot * min(N, host))))
    out.append("")
    out.append("A slot: 16 KiB per agreement box (2 call parities x %d chunks of a "
               "%d-byte page), a window per bulk box (%d chunk slots; %s per box up to "
               "512 KiB for the bulk boxes up to 16 PEs, 8 MiB / PEs above, %s at least) "
               "and %d bytes of ack words; %d boxes at most (GK__TEAM_MAX_BOXES). A split "
               "team takes one more slot on each of its members when it is made."
               % (DEPTH, PAGE, BULK_DEPTH, human(WINDOW_MAX), human(WINDOW_MIN), ACKS,
                  MAX_BOXES))
    return "\n".join(out)


ALTERNATIVES = {"broadcast": ("small", "tree"), "allreduce": ("gather", "ring"),
                "fcollect": ("bruck", "ring"), "collect": ("bruck", "ring"),
                "alltoall": ("bruck", "pairwise"), "scan": ("gather", "chain")}


def alternatives_table(p, factor=2.0):
    """Where the other algorithm of an operation is predicted at least
    `factor` times faster than the build's choice (times at the first of
    the listed host sizes)."""
    out = ["| operation | size | PEs | PEs per host | the build's choice | the other | "
           "the other's note |", "|---|---|---|---|---|---|---|"]
    for op, algos in ALTERNATIVES.items():
        for s in SIZES:
            for n in PES:
                hits = []
                for m in PER_HOST:
                    topo = Topo(n, m)
                    if topo.m < m:
                        continue
                    c = model(p, op, topo, s)
                    other = [a for a in algos if a != c.algo][0]
                    o = model(p, op, topo, s, algo=other)
                    if o.t * factor <= c.t:
                        hits.append((m, c, o))
                if not hits:
                    continue
                m, c, o = hits[0]
                notes = []
                bulk = Topo(n, m).bulk_boxes
                if op == "alltoall" and o.algo == "pairwise" and n - 1 > bulk:
                    notes.append("needs %d bulk boxes (the job has %d)" % (n - 1, bulk))
                if o.algo in ("gather", "bruck") and op != "alltoall":
                    stage = n * s * (2 if Topo(n, m).levels() == "hier" else 1)
                    if stage >= 256 * MiB:
                        notes.append("a %s stage per PE" % human(stage))
                out.append("| %s | %s | %s | %s | %s %s | %s %s | %s |" % (
                    op, human(s), format(n, ","), ", ".join(str(h[0]) for h in hits),
                    c.algo, human_s(c.t), o.algo, human_s(o.t), "; ".join(notes)))
    return "\n".join(out)


# ---- Measuring ----

def run(cmd, env=None, timeout=600):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def shm_entries():
    """gasket's names in /dev/shm (GK_SHM_NAME_FORMAT, /gk-KEY-PE): other
    jobs' among them while they run."""
    try:
        return sorted(x for x in os.listdir("/dev/shm") if x.startswith("gk-"))
    except OSError:
        return []


def loadavg():
    """Other tasks ready to run, now: the mean of 5 samples of
    /proc/loadavg's running count over 0.2 s, less this script."""
    got = []
    for _ in range(5):
        try:
            with open("/proc/loadavg") as f:
                got.append(int(f.read().split()[3].split("/")[0]) - 1)
        except (OSError, ValueError, IndexError):
            return float("nan")
        time.sleep(0.05)
    return sum(got) / len(got)


UCX_ENV = {"UCX_TLS": "tcp,self", "UCX_NET_DEVICES": "lo"}


def launcher(build, n, hosts, args, timeout=600, taskset=None, bind=False):
    cmd = ["taskset", "-c", taskset] if taskset else []
    cmd += [os.path.join(build, "tools", "gasket-run"), "-n", str(n), "--timeout", str(timeout)]
    if bind:
        cmd.append("--bind")
    if hosts > 1:
        cmd += ["--hosts", str(hosts)]
    cmd += [os.path.join(build, "bench", "gk-coll-model-probe")] + args
    env = {"GK_HEAP_SIZE": "1M"}
    if hosts > 1:
        env.update(UCX_ENV)
    return run(cmd, env, timeout + 30)


def fit_line(pts):
    """Least squares t = a + b s."""
    k = len(pts)
    sx = sum(x for x, _ in pts)
    sy = sum(y for _, y in pts)
    sxx = sum(x * x for x, _ in pts)
    sxy = sum(x * y for x, y in pts)
    b = (k * sxy - sx * sy) / (k * sxx - sx * sx)
    return (sy - b * sx) / k, b


def pingpong(build, hosts, iters, rounds):
    """One run of the probe's ping-pong, the PEs bound to CPUs 0 and 1:
    a = the header-only message (0 B payload), b = the least-squares slope
    from 512 B to 64 KiB, on the median rounds."""
    rc, out, err = launcher(build, 2, hosts, ["pingpong", str(iters), str(rounds)], bind=True)
    if rc != 0:
        raise SystemExit("pingpong on %d host(s) failed (%d): %s" % (hosts, rc, err.strip()))
    pts = []
    for mm in re.finditer(r"^pingpong (\d+) ([\d.]+) ([\d.]+)$", out, re.M):
        pts.append((int(mm.group(1)), float(mm.group(2)) * 1e-6, float(mm.group(3)) * 1e-6))
    a = pts[0][2]
    _, b = fit_line([(s, t) for s, _, t in pts if s >= 512])
    return a, b, pts


def measure(build, reps):
    """The parameters, each the median of reps runs (the machine's other
    load comes and goes, and so does the VM's placement of its two vCPUs;
    a run's figure is already a median over its rounds)."""
    load0 = loadavg()
    runs = []
    probe = os.path.join(build, "bench", "gk-coll-model-probe")
    keys = ("a_l", "b_l", "a_r", "b_r", "gamma", "e_l", "e_r")
    for _ in range(reps):
        got = {}
        got["a_l"], got["b_l"], got["points_l"] = pingpong(build, 1, 500, 100)
        got["a_r"], got["b_r"], got["points_r"] = pingpong(build, 2, 50, 40)
        got["gamma"] = float(re.search(r"gamma ([\d.]+)", run([probe, "gamma"])[1]).group(1)) \
            * 1e-9 / KiB
        # One engine round: a 2-PE barrier (one agreement round), bound
        # as the ping-pong is.
        e_l, why, _ = coll_point(build, 2, 1, "barrier", 0, 1000, 21, bind=True)
        e_r, why_r, _ = coll_point(build, 2, 2, "barrier", 0, 100, 21, bind=True)
        if e_l is None or e_r is None:
            raise SystemExit("2-PE barrier failed: %s" % (why or why_r))
        got["e_l"], got["e_r"] = e_l[1], e_r[1]
        runs.append(got)
        print("# measured: %s" % " ".join("%s=%.3g" % (k, got[k]) for k in keys),
              file=sys.stderr)
    best = {k: sorted(r[k] for r in runs)[len(runs) // 2] for k in keys}
    mid = sorted(runs, key=lambda r: r["a_l"])[len(runs) // 2]
    best["points_l"] = mid["points_l"]
    mid = sorted(runs, key=lambda r: r["a_r"])[len(runs) // 2]
    best["points_r"] = mid["points_r"]
    best["o_l"] = best["e_l"] - best["a_l"]
    best["o_r"] = best["e_r"] - best["a_r"]
    best["load"] = [load0, loadavg()]
    return best


def coll_point(build, n, hosts, op, size, iters, rounds, taskset=None, bind=False):
    """(fastest, median) round's seconds per call, or None; why; what the
    job left in /dev/shm (its segments, gk-KEY-PE)."""
    rc, out, err = launcher(build, n, hosts,
                            ["coll", op, str(size), str(iters), str(rounds)],
                            timeout=400, taskset=taskset, bind=bind)
    key = re.search(r"^job (\S+)$", out, re.M)
    left = [x for x in shm_entries() if key and x.startswith("gk-%s-" % key.group(1))]
    if rc != 0:
        why = [x for x in err.strip().splitlines() if x.strip()]
        return None, "exit %d: %s" % (rc, why[-1] if why else "no message"), left
    mm = re.search(r"^coll \S+ \d+ \d+ ([\d.]+) ([\d.]+)$", out, re.M)
    res = (float(mm.group(1)) * 1e-6, float(mm.group(2)) * 1e-6)
    if left:
        return res, "left in /dev/shm: %s" % " ".join(left), left
    return res, None, []


def check(p, build, max_n, cpus):
    """The measured points: one host, 2 .. max_n PEs; one CPU, 2 PEs;
    2 and 4 simulated hosts."""
    points = [(2, 1, "0")]
    n = 2
    while n <= max_n:
        points.append((n, 1, None))
        n *= 2
    points += [(4, 2, None), (8, 2, None), (16, 2, None), (8, 4, None), (16, 4, None)]
    rows = []
    for n, hosts, taskset in points:
        for op in ("barrier", "allreduce"):
            size = 0 if op == "barrier" else 8
            if hosts == 1:
                iters, rounds = max(3, min(1000, 4000 // n)), (7 if n <= 64 else 3)
            else:
                iters, rounds = 20, 15
            load = loadavg()
            t0 = time.time()
            meas, why, _ = coll_point(build, n, hosts, op, size, iters, rounds, taskset)
            m = -(-n // hosts)
            topo = Topo(n, m)
            c = model(p, op, topo, size)
            rows.append({"n": n, "hosts": hosts, "cpus": 1 if taskset else cpus, "op": op,
                         "meas": meas, "why": why, "pred": c.t, "rounds": c.rounds,
                         "rounds_r": c.rounds_r, "load": load, "wall": time.time() - t0,
                         "topo": topo, "levels": topo.levels()})
            print("# %s n=%d hosts=%d%s: %s (%s) predicted %s, load %.1f, %.0f s" % (
                op, n, hosts, " one CPU" if taskset else "",
                human_s(meas[0]) if meas else "-", why or "ok", human_s(c.t), load,
                time.time() - t0), file=sys.stderr)
    return rows


def engine(r, p):
    """The prediction with the engine's own cost per round (o_l, o_r: a
    2-PE barrier's round beyond the ping-pong's message)."""
    return r["pred"] + (r["rounds"] - r["rounds_r"]) * p.o_l + r["rounds_r"] * p.o_r


def excess_q(r):
    """q - 1, q = PEs per CPU (the simulated hosts share the machine's CPUs)."""
    return max(0.0, r["n"] / r["cpus"] - 1)


def fit_slice(rows, p):
    """Time-slicing: each round costs t_1 (q - 1)^k more than the engine's
    round; t_1 and k by least squares on the logarithms over the measured
    barriers on one host with q > 1."""
    pts = []
    for r in rows:
        if r["meas"] is None or r["op"] != "barrier" or r["hosts"] != 1 or excess_q(r) == 0:
            continue
        y = (r["meas"][0] - engine(r, p)) / r["rounds"]
        if y > 0:
            pts.append((math.log(excess_q(r)), math.log(y)))
    if len(pts) < 2:
        return 0.0, 1.0
    ln_t1, k = fit_line(pts)
    return math.exp(ln_t1), k


def sliced(r, p, fit):
    t_1, k = fit
    return engine(r, p) + r["rounds"] * t_1 * excess_q(r) ** k


def check_table(rows, p, fit):
    out = ["| PEs | hosts | CPUs | agreement | operation | measured: fastest; median round | "
           "model | measured / model | model, engine rounds | with time-slicing | "
           "measured / time-slicing | per round and PE per CPU | other tasks |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        topo = r["topo"]
        if r["levels"] == "flat":
            shape = "flat, %d r" % clog2(topo.n)
        else:
            shape = "levels %d+%d+%d" % (clog2(topo.m), clog2(topo.H), clog2(topo.m))
        what = "barrier" if r["op"] == "barrier" else "all-reduce 8 B"
        eng = engine(r, p)
        sl = sliced(r, p, fit)
        head = "| %d | %d | %d | %s | %s |" % (r["n"], r["hosts"], r["cpus"], shape, what)
        if r["meas"] is None:
            out.append("%s failed: %s | %s | | %s | %s | | | %.1f |" % (
                head, r["why"], human_s(r["pred"]), human_s(eng), human_s(sl), r["load"]))
            continue
        m0, m1 = r["meas"]
        per = (m0 - eng) / r["rounds"] / excess_q(r) if excess_q(r) else float("nan")
        out.append("%s %s; %s | %s | %.3g | %s | %s | %.3g | %s | %.1f |" % (
            head, human_s(m0), human_s(m1), human_s(r["pred"]), m0 / r["pred"], human_s(eng),
            human_s(sl), m0 / sl, "-" if per != per else human_s(per), r["load"]))
    out.append("")
    out.append("Measured: the fastest and the median of the rounds of back-to-back calls "
               "(a round's figure is its slowest PE's). Model: the parameters above; engine "
               "rounds: a_l + o_l and a_r + o_r per round; time-slicing: the fit above. "
               "Per round and PE per CPU: (measured - engine rounds) / rounds / (q - 1). "
               "Other tasks: tasks of other jobs ready to run as the point started.")
    return "\n".join(out)


class Params:
    def __init__(self, d):
        self.__dict__.update({k: d[k] for k in DEFAULTS})


def params_text(p):
    return ("| parameter | value | from |\n|---|---|---|\n"
            "| a_l: one message, shared memory | %.3g us | ping-pong, 0 B payload (median round) |\n"
            "| b_l | %.3g ns/KiB (%.2f GB/s) | ping-pong slope, 512 B to 64 KiB |\n"
            "| a_r: one message, between hosts | %.3g us | ping-pong, 0 B payload (median round) |\n"
            "| b_r | %.3g ns/KiB (%.2f GB/s) | ping-pong slope, 512 B to 64 KiB |\n"
            "| gamma: combining (sum of doubles) | %.3g ns/KiB (%.2f GB/s) | loop in cache |\n"
            "| o_l: an engine round beyond a_l | %.3g us | 2-PE barrier (median round) - a_l |\n"
            "| o_r: an engine round beyond a_r | %.3g us | 2-PE barrier, 2 hosts (median round) - a_r |" % (
                p.a_l * 1e6, p.b_l * 1e9 * KiB, 1e-9 / p.b_l,
                p.a_r * 1e6, p.b_r * 1e9 * KiB, 1e-9 / p.b_r,
                p.gamma * 1e9 * KiB, 1e-9 / p.gamma, p.o_l * 1e6, p.o_r * 1e6))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for k in DEFAULTS:
        ap.add_argument("--" + k.replace("_", "-"), type=float, dest=k,
                        help="%s (default %.3g, measured on the reference machine)" % (
                            UNITS[k], DEFAULTS[k]))
    ap.add_argument("--params", help="a JSON file of parameters (--save's)")
    ap.add_argument("--measure", action="store_true",
                    help="measure the parameters here (needs root for --hosts)")
    ap.add_argument("--reps", type=int, default=5,
                    help="--measure: runs of each measurement; the median counts")
    ap.add_argument("--save", help="write the parameters (and the check) to this JSON file")
    ap.add_argument("--check", action="store_true", help="measured against predicted")
    ap.add_argument("--recheck", action="store_true",
                    help="with --params: the check table from the file's measured points")
    ap.add_argument("--check-max", type=int, default=1024, help="largest one-host PE count")
    ap.add_argument("--cpus", type=int, default=os.cpu_count(),
                    help="CPUs the PEs share, for the time-slicing fit")
    ap.add_argument("--build", default="build")
    ap.add_argument("--markdown", help="also write the output to this file")
    args = ap.parse_args()

    d = dict(DEFAULTS)
    saved = {}
    if args.params:
        with open(args.params) as f:
            saved = json.load(f)
        d.update({k: saved[k] for k in DEFAULTS if k in saved})
    info = None
    if args.measure:
        info = measure(args.build, args.reps)
        d.update({k: info[k] for k in DEFAULTS})
    for k in DEFAULTS:
        if getattr(args, k) is not None:
            d[k] = getattr(args, k)
    p = Params(d)

    text = ["## Parameters\n", params_text(p), ""]
    if info:
        text.append("Ping-pong (the run with the median a), one-way us by payload: fastest round "
                    "(median round). A 2-PE barrier's median round (bound too): %.3g us on one host, "
                    "%.3g us across 2 hosts. Each parameter is the median of %d runs. Other tasks "
                    "ready to run: %.1f before, %.1f after.\n" % (
                        info["e_l"] * 1e6, info["e_r"] * 1e6, args.reps, *info["load"]))
        for name, key in (("one host", "points_l"), ("two hosts", "points_r")):
            text.append("- %s: %s" % (name, ", ".join(
                "%s: %.3g (%.3g)" % (human(s), t0 * 1e6, t1 * 1e6)
                for s, t0, t1 in info[key])))
        text.append("")
    text += ["## Team scratch\n", footprint_table(), "",
             "## Predicted\n", prediction_tables(p), "",
             "## Where the other algorithm is predicted at least twice as fast\n",
             alternatives_table(p), ""]
    rows = None
    if args.check or (args.params and "check" in saved and args.recheck):
        if args.check:
            rows = check(p, args.build, args.check_max, args.cpus)
        else:
            rows = saved["check"]
            for r in rows:
                r["topo"] = Topo(r["n"], -(-r["n"] // r["hosts"]))
                c = model(p, r["op"], r["topo"], 0 if r["op"] == "barrier" else 8)
                r.update(pred=c.t, rounds=c.rounds, rounds_r=c.rounds_r,
                         levels=r["topo"].levels())
        fit = fit_slice(rows, p)
        text += ["## Measured against predicted\n",
                 "Time-slicing fit (one-host barriers): each round costs %.3g us x (q - 1)^%.2f "
                 "more than the engine's round, q = PEs per CPU (%d CPUs).\n" % (
                     fit[0] * 1e6, fit[1], args.cpus),
                 check_table(rows, p, fit), ""]
    out = "\n".join(text)
    print(out)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(out + "\n")
    if args.save:
        blob = dict(d)
        if info:
            blob.update({k: info[k] for k in ("points_l", "points_r", "e_l", "e_r", "load")})
        if rows:
            blob["check"] = [{k: v for k, v in r.items() if k != "topo"} for r in rows]
            blob["slicing"] = list(fit)
        with open(args.save, "w") as f:
            json.dump(blob, f, indent=1)


if __name__ == "__main__":
    main()

# shmem4py_check.py: OpenSHMEM from Python (shmem4py) on gasket, under
# oshrun: a put around the ring, a signaling put, an atomic, a lock, and
# the team collectives, each result checked on every PE. Each PE prints
# "PE <me> of <n>: ok, job <key>" when all hold (the key names the job's
# segments in /dev/shm). The argument, if any, is the directory whose
# libgasket this process must have loaded: the build under test, not the
# one shmem4py was built against.
import os
import sys

import numpy as np
from shmem4py import shmem


def check(what, got, want):
    if isinstance(got, np.ndarray):
        ok = np.array_equal(got, want)
    else:
        ok = got == want
    if not ok:
        # Ends every PE: one that just exited would leave the others
        # waiting in the next collective until the launcher's timeout.
        print(f"PE {shmem.my_pe()}: {what}: got {got}, want {want}",
              file=sys.stderr, flush=True)
        shmem.global_exit(1)


if len(sys.argv) > 1:
    want_dir = sys.argv[1]
    with open("/proc/self/maps") as maps:
        libs = {l.split()[-1] for l in maps if "/libgasket.so" in l}
    want = {os.path.realpath(os.path.join(want_dir, "libgasket.so.0"))}
    check("libgasket loaded", {os.path.realpath(p) for p in libs}, want)

me, npes = shmem.my_pe(), shmem.n_pes()
nxt, prv = (me + 1) % npes, (me - 1) % npes
check("vendor", shmem.info_get_name(), "gasket")
check("version", shmem.info_get_version(), (1, 5))

dst = shmem.full(4, -1, dtype="i")
shmem.barrier_all()
shmem.put(dst, np.arange(4, dtype="i") + 10 * me, nxt)
shmem.barrier_all()
check("put", dst, np.arange(4, dtype="i") + 10 * prv)

sig = shmem.new_signal()
data = shmem.zeros(2, dtype="l")
shmem.barrier_all()
shmem.put_signal(data, np.array([me, -me], dtype="l"), nxt, sig, 1,
                 shmem.SIGNAL_SET)
check("signal", shmem.signal_wait_until(sig, shmem.CMP_EQ, 1), 1)
check("put_signal", data, [prv, -prv])

counter = shmem.zeros(1, dtype="l")
shmem.barrier_all()
shmem.atomic_fetch_add(counter, me + 1, 0)
shmem.barrier_all()
if me == 0:
    check("fetch_add", counter[0], npes * (npes + 1) // 2)

lock = shmem.Lock()
total = shmem.zeros(1, dtype="i")
val = np.zeros(1, dtype="i")
with lock:
    shmem.get(val, total, 0)
    val[0] += 1
    shmem.put(total, val, 0)
shmem.barrier_all()
shmem.get(val, total, 0)
check("lock", val[0], npes)

src = shmem.array([me + 1, 2 * me], dtype="l")
red = shmem.zeros(2, dtype="l")
shmem.sum_reduce(red, src)
check("sum_reduce", red, [npes * (npes + 1) // 2, npes * (npes - 1)])
shmem.max_reduce(red, src)
check("max_reduce", red, [npes, 2 * (npes - 1)])
bc = shmem.zeros(2, dtype="l")
shmem.broadcast(bc, src, npes - 1)
check("broadcast", bc, [npes, 2 * (npes - 1)])
fc = shmem.zeros(npes, dtype="i")
shmem.fcollect(fc, shmem.array([me], dtype="i"))
check("fcollect", fc, np.arange(npes))
a2a = shmem.zeros(npes, dtype="i")
shmem.alltoall(a2a, shmem.array(np.arange(npes) + 100 * me, dtype="i"))
check("alltoall", a2a, 100 * np.arange(npes) + me)

print(f"PE {me} of {npes}: ok, job {os.environ['GK_JOB_KEY']}")

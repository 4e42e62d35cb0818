"""Where the time of tack.algorithms' sum and sort goes on a GPU (docs/performance.md,
"`tack.algorithms` on the GPU"): the sum's fixed cost (the result box against the download it
replaced, one and two launches, torch), the radix sort's phases each timed alone, sort against
argsort and torch, and the kept table's bound (nothing kept against kept).

    PYTHONPATH=python:bench python3 bench/algorithms_phases.py          # CUDA, 2^28
    PYTHONPATH=python:bench python3 bench/algorithms_phases.py --sim    # the simulator, 2^14
    PYTHONPATH=python:bench python3 bench/algorithms_phases.py --sim --quick  # a smoke run

LOG2 in the environment sets the size. Ratios as in bench/algorithms.py (interleaved rounds,
bench/_stats.py): another variant's time / the first variant's, per round. The exit status is 1
when a checked result (a sum, a sort) is wrong."""
import argparse
import functools
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import tack
from _stats import fmt_ratio, ratio_stats
from algorithms import _check, _rounds
from tack import algorithms as A
from tack.algorithms import _scratch as S
from tack.algorithms import radix as RX
from tack.algorithms import reduce as R
from tack.algorithms import sorting as SO
from tack.algorithms.scans import exclusive_scan, steps

# Set by main(): the device, whether it is the GPU, torch when present, the timing rounds
# (None: each section's own), the wrong results seen.
dev = eng = torch = None
GPU = True
ROUNDS: int | None = None
WRONG: list[str] = []


def sync():
    tack.sync(dev)


def tsync():
    if torch is not None and GPU:
        torch.cuda.synchronize()


def show(title, impls, rounds=7, reps=5):
    print(f"## {title}", flush=True)
    times = _rounds(impls, ROUNDS or rounds, 1 if ROUNDS else reps)
    names = list(impls)
    base = times[names[0]]
    for nm in names:
        med = statistics.median(times[nm])
        extra = "" if nm == names[0] else "  " + fmt_ratio(ratio_stats(base, times[nm]))
        print(f"  {nm:38s} {med * 1e3:9.4f} ms{extra}", flush=True)


@functools.cache
def sum_steps():
    """reduce_groups' compile-time arguments for a sum on the device (its workgroup tree: warp
    shuffles on CUDA), asked once, after main selects the device."""
    return (*R.GROUP_STEPS["sum"], R.group_tree(tack.zeros(1)))


def old_sum(a, n):
    """The previous path: a kept total downloaded (a wait, a copy, a wait)."""
    g = min(R.GROUPS, -(-n // 256))
    part = S.kept(dev, tack.f32, "groups", g)
    R.reduce_groups(a, part, n, *sum_steps())
    out = S.kept(dev, tack.f32, "total", 1)
    R.reduce_groups(part, out, g, *sum_steps())
    return out.numpy()[0]


def sum_section(log2):
    n = 1 << log2
    x = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    a = tack.array(x)
    g = min(R.GROUPS, -(-n // 256))
    part = S.kept(dev, tack.f32, "groups", g)
    want = float(np.sum(x, dtype=np.float64))
    got, old = a.sum(), old_sum(a, n)
    print(f"# sum 2^{log2}: new {got!r} old {old!r} f64 {want!r} same={got == old}")
    if max(abs(got - want), abs(old - want)) > 1e-3 * float(np.abs(x).sum()):
        WRONG.append(f"sum 2^{log2}")
    impls = {"a.sum() (box)": (a.sum, sync), "old path (download)": (lambda: old_sum(a, n), sync),
             "reduce_groups only": (lambda: R.reduce_groups(a, part, n, *sum_steps()), sync),
             "both launches, no read": (lambda: (R.reduce_groups(a, part, n, *sum_steps()),
                                                 R.reduce_groups(part, part, g, *sum_steps())),
                                        sync)}
    if torch is not None and GPU:
        tx = torch.from_numpy(x).cuda()
        impls["torch.sum(x)"] = (lambda: torch.sum(tx), tsync)
        impls["torch.sum(x).item()"] = (lambda: torch.sum(tx).item(), tsync)
    show(f"sum f32 2^{log2}", impls)
    for op in ("min", "max", "mean"):
        print(f"  {op}: {getattr(a, op)()!r} numpy {getattr(x, op)()!r}")


def host_costs(calls=2000):
    a = tack.array(np.ones(1 << 12, np.float32))
    part = S.kept(dev, tack.f32, "groups", 16)
    R.reduce_groups(a, part, 1 << 12, *sum_steps())
    sync()
    for label, fn in (("launch (no wait)", lambda: R.reduce_groups(a, part, 1 << 12, *sum_steps())),
                      ("sync on an idle stream", sync), ("a.sum() at 2^12", a.sum)):
        fn()
        sync()
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        print(f"  host: {label:28s} {(time.perf_counter() - t) / calls * 1e6:8.2f} us")


def timed(fn, *args):
    """ms of one call fn(*args), between waits."""
    sync()
    t = time.perf_counter()
    fn(*args)
    sync()
    return (time.perf_counter() - t) * 1e3


def sort_phases(k, n):
    """_workgroup_passes with a wait after each launch (ms per phase)."""
    udt = tack.u32
    lo, passes = SO._passes(k, n)
    low = tack.Array._from_host(np.array([lo % 2 ** 32], np.uint32), dev)
    groups = -(-n // (8 * RX.STILE))
    perm, operm = tack.zeros(n, tack.i32), tack.zeros(n, tack.i32)
    ukeys, okeys = tack.zeros(n, udt), tack.zeros(n, udt)
    zero = tack.zeros(1, udt)
    hist = tack.zeros(256 * 8 * groups, tack.i32)
    src = k
    rows = []
    for p in range(passes):
        c = timed(RX.radix_counts, src, okeys, low, hist, n, 8 * p, groups)
        s = timed(exclusive_scan, hist, hist)
        w = timed(RX.radix_scatter, src, low, perm, okeys, operm, okeys, low, hist, n, 8 * p,
                  groups, int(p == 0), 1, steps(k)[1])
        rows.append((c, s, w))
        src, low, ukeys, okeys, perm, operm = okeys, zero, okeys, ukeys, operm, perm
    out = tack.zeros(n, k.dtype)
    kf = timed(SO.keys_from_offsets, ukeys, out, low, n)
    mm = timed(R.min_max, k, n)
    return rows, kf, mm


def sort_section(log2):
    n = 1 << log2
    keys = np.random.default_rng(1).integers(-2 ** 31, 2 ** 31, n, dtype=np.int32)
    k = tack.array(keys)
    s, p = A.sort(k)
    checked = _check('sort', (s, p), None, keys)
    print(f"# sort 2^{log2} checked: {checked}", flush=True)
    if not checked:
        WRONG.append(f"sort 2^{log2}")
    for _ in range(1 if ROUNDS else 2):  # the second time warm
        rows, kf, mm = sort_phases(k, n)
    for i, (c, sc, w) in enumerate(rows):
        print(f"  pass {i}: counts {c:.3f} ms, scan {sc:.3f} ms, scatter {w:.3f} ms")
    print(f"  keys_from_offsets {kf:.3f} ms, min_max {mm:.3f} ms", flush=True)
    def unfused():
        SO.FUSED_KEYS = False
        try:
            return A.sort(k)
        finally:
            SO.FUSED_KEYS = True

    s2, p2 = unfused()
    checked = _check('sort', (s2, p2), None, keys)
    print(f"# unfused sort checked: {checked}", flush=True)
    if not checked:
        WRONG.append(f"unfused sort 2^{log2}")
    impls = {"A.sort(k)": (lambda: A.sort(k), sync), "A.argsort(k)": (lambda: A.argsort(k), sync),
             "A.sort(k), keys converted after": (unfused, sync)}
    if torch is not None and GPU:
        tk = torch.from_numpy(keys).cuda()
        impls["torch.sort(stable)"] = (lambda: torch.sort(tk, stable=True), tsync)
        impls["torch.argsort(stable)"] = (lambda: torch.argsort(tk, stable=True), tsync)
    show(f"sort i32 2^{log2}", impls, rounds=5, reps=3)
    bound = S.BYTES

    def unkept():
        S.BYTES = 0
        try:
            return A.argsort(k)
        finally:
            S.BYTES = bound

    show("argsort: work arrays kept vs made each call (BYTES = 0)",
         {"kept": (lambda: A.argsort(k), sync), "not kept": (unkept, sync)}, rounds=5, reps=3)
    print(f"  kept bytes on the device: {S.kept_bytes(dev)}")


def main(argv=None) -> int:
    global dev, eng, torch, GPU, ROUNDS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", action="store_true", help="the simulator (CPU memory), no GPU")
    ap.add_argument("--quick", action="store_true", help="2^10 elements, one round of one call")
    a = ap.parse_args(argv)
    GPU = not a.sim
    log2 = int(os.environ.get("LOG2", "10" if a.quick else "28" if GPU else "14"))
    ROUNDS = 1 if a.quick else None
    if GPU:
        try:
            import torch as _torch
        except ImportError:
            _torch = None
        torch = _torch
    tack.set_default_device("cuda" if GPU else "cpu", **({} if GPU else {"engine": "sim"}))
    dev = tack.devices.default_device()
    eng = dev.engine
    print(f"# {dev!r} {eng!r}")
    host_costs(5 if a.quick else 2000)
    for size in sorted({min(log2, 18 if GPU else 12), log2}):
        sum_section(size)
    sort_section(log2)
    if WRONG:
        print(f"WRONG: {', '.join(WRONG)}")
    return 1 if WRONG else 0


if __name__ == "__main__":
    sys.exit(main())

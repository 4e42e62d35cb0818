#!/usr/bin/env python
"""tack.algorithms beside NumPy (CPU) or torch and CuPy (--gpu), side by side in one process.

    PYTHONPATH=python python3 bench/algorithms.py                 # CPU, 2^24 elements
    PYTHONPATH=python python3 bench/algorithms.py --gpu           # CUDA, 2^28 elements
    PYTHONPATH=python python3 bench/algorithms.py --log2 20       # another size
    PYTHONPATH=python python3 bench/algorithms.py --quick         # 2^12, one round: a smoke run

Rows: sum, min, max and mean of f32 (GB/s, 4 B/element; torch's as device tensors), inclusive
scan of f32 (GB/s, 8 B/element: read and write; the path the device gets, and on the GPU each of
its two scans, `tack.algorithms.tuning(scan=...)`), stable argsort of i32 keys and sort (`tack.algorithms.sort`:
the sorted keys and the stable permutation, what torch.sort returns; NumPy: argsort, then the
keys taken; CuPy's sort returns keys only) in Gkeys/s. On the GPU the rows "(shared)" run the
same calls on the shared-memory workgroup steps (`tack.algorithms.tuning(warps=False)`, what
the Julia engine takes) instead of the warp shuffles CUDA takes. The peers:
NumPy on the CPU; torch and CuPy on the GPU, where `a.sum()`'s Python float is also compared with
`torch.sum(x).item()` (row "sum→float"), since torch.sum alone returns a device tensor.

Each implementation runs once and is checked against NumPy, then timed in interleaved rounds
(`--rounds`, default 7): per round one block of `--reps` calls of each implementation back to
back, the order rotating, each call ended by a device synchronize on the GPU; its time is the
block's median. The table gives the median over rounds; the ratio is per round, peer time / Tack
time (above 1: Tack is faster), as a median and interquartile range with a verdict only where the
whole range lies on one side of 1 (bench/_stats.py). Goals (docs/algorithms.md, "Performance"):
CPU ≥ 1.0× NumPy for sums and scans; GPU sum, min and max ≥ 1.0× torch, scans ≥ 1.2× torch's
cumsum, argsort ≥ 0.8× torch, sort ≥ 0.6× CuPy.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import tack
from _stats import fmt_ratio, median_time, ratio_stats
from tack import algorithms as A


def _forced_scan(a, d, n, look_back: bool):
    with A.tuning(scan="look_back" if look_back else "two_pass"):
        return A.inclusive_scan(a, d, n)


def _shared_steps(fn):
    """fn with tack.algorithms' workgroup kernels forced onto their shared-memory steps (the
    Julia engine's), where CUDA takes warp shuffles: the rows "(shared)"."""

    def run():
        with A.tuning(warps=False):
            return fn()

    return run


def _tack_rows(n: int, x: np.ndarray, keys: np.ndarray, gpu: bool):
    a, d, k = tack.array(x), tack.zeros(n), tack.array(keys)
    rows = {"sum": (lambda: a.sum(), None), "scan": (lambda: A.inclusive_scan(a, d, n), d)}
    if gpu:
        rows["sum→float"] = rows["sum"]
        rows["scan (two-pass)"] = (lambda: _forced_scan(a, d, n, False), d)
        rows["scan (look-back)"] = (lambda: _forced_scan(a, d, n, True), d)
    rows.update({"min": (lambda: a.min(), None), "max": (lambda: a.max(), None),
                 "mean": (lambda: a.mean(), None)})
    rows["argsort"] = (lambda: A.argsort(k), None)
    rows["sort"] = (lambda: A.sort(k), None)  # the sorted keys and the permutation
    if gpu:  # the warp steps against the shared-memory ones they replace on CUDA
        for row in ("sum", "min", "max", "scan", "argsort", "sort"):
            rows[f"{row} (shared)"] = (_shared_steps(rows[row][0]), rows[row][1])
    return rows


def _check(row: str, out, x, keys) -> bool:
    """Tack's first result of a row against NumPy, in O(n) work (no host sort at 2^28): sums
    and scan totals to within 1e-3 of Σ|x|, a permutation that orders the keys with ties in
    index order, sorted keys with the keys' sum."""
    row = row.removesuffix(" (shared)")
    if row in ("min", "max"):
        return out == float(getattr(x, row)())
    if row == "mean":
        return abs(out - float(np.mean(x, dtype=np.float64))) <= 1e-3 * float(np.abs(x).mean())
    if row.startswith(("sum", "scan")):
        return abs(out - float(np.sum(x, dtype=np.float64))) <= 1e-3 * float(np.abs(x).sum())
    if row == "argsort":
        return _stable_permutation(out.numpy(), keys)[0]
    got, perm = (a.numpy() for a in out)
    ok, k = _stable_permutation(perm, keys)
    return ok and bool((got == k).all())


def _stable_permutation(perm, keys):
    """(whether perm is a permutation that orders the keys, ties in index order; keys[perm])."""
    seen = np.zeros(len(keys), bool)
    seen[perm] = True
    k = keys[perm]
    ties = k[1:] == k[:-1]
    ok = seen.all() and (k[1:] >= k[:-1]).all() and (perm[1:][ties] > perm[:-1][ties]).all()
    return bool(ok), k


def _numpy_rows(x, keys):
    return {
        "sum": lambda: np.sum(x),
        "scan": lambda: np.cumsum(x),
        "min": lambda: np.min(x), "max": lambda: np.max(x), "mean": lambda: np.mean(x),
        "argsort": lambda: np.argsort(keys, kind="stable"),
        "sort": lambda: _numpy_sort(keys),
    }


def _numpy_sort(keys):
    """What tack's sort and torch.sort return: the sorted keys and the stable permutation."""
    perm = np.argsort(keys, kind="stable")
    return keys[perm], perm


def _gpu_peers(x, keys):
    peers = {}

    def shared(rows: dict) -> dict:  # the "(shared)" rows beside the same peers
        return {**rows, **{f"{r} (shared)": f for r, f in rows.items()}}

    try:
        import torch

        tx, tk = torch.from_numpy(x).cuda(), torch.from_numpy(keys).cuda()
        peers["torch"] = ({"sum": lambda: torch.sum(tx), "sum→float": lambda: torch.sum(tx).item(),
                           "min": lambda: torch.min(tx), "max": lambda: torch.max(tx),
                           "mean": lambda: torch.mean(tx),
                           "scan": lambda: torch.cumsum(tx, 0),
                           "scan (two-pass)": lambda: torch.cumsum(tx, 0),
                           "scan (look-back)": lambda: torch.cumsum(tx, 0),
                           "argsort": lambda: torch.argsort(tk, stable=True),
                           "sort": lambda: torch.sort(tk, stable=True)},
                          torch.cuda.synchronize)
        peers["torch"] = (shared(peers["torch"][0]), peers["torch"][1])
    except ImportError as exc:
        print(f"# torch: not installed ({exc})")
    try:
        import cupy

        cx, ck = cupy.asarray(x), cupy.asarray(keys)
        sync = cupy.cuda.Device().synchronize
        peers["cupy"] = ({"sum": lambda: cupy.sum(cx), "sum→float": lambda: float(cupy.sum(cx)),
                          "scan": lambda: cupy.cumsum(cx),
                          "scan (two-pass)": lambda: cupy.cumsum(cx),
                          "scan (look-back)": lambda: cupy.cumsum(cx),
                          "argsort": lambda: cupy.argsort(ck), "sort": lambda: cupy.sort(ck)},
                         sync)
        peers["cupy"] = (shared(peers["cupy"][0]), peers["cupy"][1])
    except ImportError as exc:
        print(f"# cupy: not installed ({exc})")
    return peers


def _unit(row: str, n: int, seconds: float) -> str:
    if row.startswith(("sum", "min", "max", "mean")):
        return f"{4 * n / seconds / 1e9:8.1f} GB/s"
    if row.startswith("scan"):
        return f"{8 * n / seconds / 1e9:8.1f} GB/s"
    return f"{n / seconds / 1e9:8.3f} Gkeys/s"


def _rounds(impls: dict, rounds: int, reps: int) -> dict:
    """{name: [per-round block medians]} for impls {name: (fn, sync)}, the order rotating."""
    names = list(impls)
    times = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn, sync = impls[name]
            times[name].append(median_time(fn, sync, reps))
    return times


def _row(row, tack_fn, sync, peers, args, n, x, keys) -> bool:
    """Check and time one row; whether Tack's result was right."""
    out = tack_fn()
    sync()
    ok = _check(row, out, x, keys)
    impls = {"tack": (tack_fn, sync)}
    for name, (fns, psync) in peers.items():
        if row in fns:
            fns[row]()
            psync()
            impls[name] = (fns[row], psync)
    times = _rounds(impls, args.rounds, args.reps)
    t_tack = statistics.median(times["tack"])
    print(f"{row:17s} {'tack':6s} {t_tack * 1e3:10.3f} {_unit(row, n, t_tack):>16s}"
          f"{'':>10s}  {'checked' if ok else 'WRONG'}")
    for name in impls:
        if name != "tack":
            t = statistics.median(times[name])
            print(f"{row:17s} {name:6s} {t * 1e3:10.3f} {_unit(row, n, t):>16s} "
                  f"{t / t_tack:9.2f}x  {fmt_ratio(ratio_stats(times['tack'], times[name]))}")
    return ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", action="store_true", help="CUDA beside torch and CuPy")
    ap.add_argument("--log2", type=int, default=None, help="log2 of the element count")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds")
    ap.add_argument("--reps", type=int, default=3, help="calls per block")
    ap.add_argument("--rows", default=None, help="comma-separated rows (default: all)")
    ap.add_argument("--quick", action="store_true", help="2^12 elements, one round of one call")
    args = ap.parse_args(argv)
    if args.quick:
        args.log2, args.rounds, args.reps = args.log2 or 12, 1, 1
    n = 1 << (args.log2 or (28 if args.gpu else 24))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    keys = rng.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    if args.gpu:
        tack.set_default_device("cuda")
    dev = tack.devices.default_device()

    def sync():
        tack.sync(dev)

    rows = _tack_rows(n, x, keys, args.gpu)
    wanted = args.rows.split(",") if args.rows else list(rows)
    peers = _gpu_peers(x, keys) if args.gpu else {"numpy": (_numpy_rows(x, keys), lambda: None)}
    threads = getattr(dev.engine, "num_threads", "?")
    print(f"# {dev!r}, n = 2^{n.bit_length() - 1}, engine threads: {threads}, "
          f"{args.rounds} rounds of {args.reps} calls")
    print(f"{'row':17s} {'impl':6s} {'time (ms)':>10s} {'rate':>16s} {'peer/tack':>10s}  "
          "per-round ratio")
    if args.gpu and not args.quick:  # the first row measured 6-10 % slower than the same
        t0 = time.perf_counter()  # call later (the clocks rising from idle?): a second of the
        while time.perf_counter() - t0 < 1.0:  # first row's work first
            rows[wanted[0]][0]()
            sync()
    wrong = [row for row in wanted if not _row(row, rows[row][0], sync, peers, args, n, x, keys)]
    if wrong:
        print(f"WRONG: {', '.join(wrong)}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

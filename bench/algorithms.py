#!/usr/bin/env python
"""tack.algorithms beside NumPy (CPU) or torch and CuPy (--gpu), side by side in one process.

    PYTHONPATH=python python3 bench/algorithms.py                 # CPU, 2^24 elements
    PYTHONPATH=python python3 bench/algorithms.py --gpu           # CUDA, 2^28 elements
    PYTHONPATH=python python3 bench/algorithms.py --log2 20       # another size

Rows: sum of f32 (GB/s, 4 B/element), inclusive scan of f32 (GB/s, 8 B/element: read and
write), argsort and sort of i32 keys (Gkeys/s). Each implementation runs once and is checked,
then is timed as the median of 5 calls (each ended by a device synchronize on the GPU). The ratio
column is peer time / Tack time: above 1 means Tack is faster. Goals (docs/algorithms.md,
"Performance"): CPU ≥ 1.0× NumPy for sums and scans; GPU sum ≥ 0.95× torch, scans ≥ 1.2× torch's
cumsum, sort ≥ 0.5× torch.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import tack
from tack import algorithms as A


def _time(fn, sync, reps: int = 5) -> float:
    fn()
    sync()
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def _tack_rows(n: int, x: np.ndarray, keys: np.ndarray, sync):
    a, d, k = tack.array(x), tack.zeros(n), tack.array(keys)
    return {
        "sum": lambda: a.sum(),
        "scan": lambda: A.inclusive_scan(a, d, n),
        "argsort": lambda: A.argsort(k),
    }


def _numpy_rows(x, keys):
    return {
        "sum": lambda: np.sum(x),
        "scan": lambda: np.cumsum(x),
        "argsort": lambda: np.argsort(keys, kind="stable"),
    }


def _gpu_peers(x, keys):
    peers = {}
    try:
        import torch

        tx, tk = torch.from_numpy(x).cuda(), torch.from_numpy(keys).cuda()
        peers["torch"] = ({"sum": lambda: torch.sum(tx), "scan": lambda: torch.cumsum(tx, 0),
                           "argsort": lambda: torch.argsort(tk, stable=True),
                           "sort": lambda: torch.sort(tk, stable=True)},
                          torch.cuda.synchronize)
    except ImportError as exc:
        print(f"# torch: not installed ({exc})")
    try:
        import cupy

        cx, ck = cupy.asarray(x), cupy.asarray(keys)
        sync = cupy.cuda.Device().synchronize
        peers["cupy"] = ({"sum": lambda: cupy.sum(cx), "scan": lambda: cupy.cumsum(cx),
                          "argsort": lambda: cupy.argsort(ck), "sort": lambda: cupy.sort(ck)},
                         sync)
    except ImportError as exc:
        print(f"# cupy: not installed ({exc})")
    return peers


def _unit(row: str, n: int, seconds: float) -> str:
    if row == "sum":
        return f"{4 * n / seconds / 1e9:8.1f} GB/s"
    if row == "scan":
        return f"{8 * n / seconds / 1e9:8.1f} GB/s"
    return f"{n / seconds / 1e9:8.3f} Gkeys/s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", action="store_true", help="CUDA beside torch and CuPy")
    ap.add_argument("--log2", type=int, default=None, help="log2 of the element count")
    args = ap.parse_args(argv)
    n = 1 << (args.log2 or (28 if args.gpu else 24))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    keys = rng.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    if args.gpu:
        tack.set_default_device("cuda")
    dev = tack.devices.default_device()
    def sync():
        tack.sync(dev)

    tack_rows = _tack_rows(n, x, keys, sync)
    peers = _gpu_peers(x, keys) if args.gpu else {"numpy": (_numpy_rows(x, keys), lambda: None)}
    threads = getattr(dev.engine, "num_threads", "?")
    print(f"# {dev!r}, n = 2^{n.bit_length() - 1}, engine threads: {threads}")
    print(f"{'row':8s} {'impl':7s} {'time (ms)':>10s} {'rate':>16s} {'peer/tack':>10s}")
    for row, fn in tack_rows.items():
        t_tack = _time(fn, sync)
        print(f"{row:8s} {'tack':7s} {t_tack * 1e3:10.2f} {_unit(row, n, t_tack):>16s}")
        for name, (rows, psync) in peers.items():
            if row in rows:
                t = _time(rows[row], psync)
                print(f"{row:8s} {name:7s} {t * 1e3:10.2f} {_unit(row, n, t):>16s} "
                      f"{t / t_tack:9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

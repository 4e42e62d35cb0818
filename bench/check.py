#!/usr/bin/env python
"""What `tack.check` costs: checked launches (simulator + recording + race analysis) beside the
same launches on the simulator alone, warm (the second call of each is timed).

    PYTHONPATH=python:. python3 bench/check.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

import numpy as np
import tack

from tests.cuda.test_cuda_workgroups import nbody_tiled
from tests.kernels.corpus import block_reduce, saxpy


def rows():
    g = np.random.default_rng(0)
    n = 1 << 20
    x, y = (g.normal(size=n).astype(np.float32) for _ in range(2))
    d = np.ones(1 << 16, np.float32)
    pos = np.c_[g.normal(size=(2048, 3)), np.ones(2048)].astype(np.float32)
    yield "saxpy 2^20", saxpy, lambda: (2.5, tack.array(x), tack.array(y), tack.zeros(n))
    yield "block_reduce 2^16", block_reduce, lambda: (tack.array(d), tack.zeros(1), len(d))
    yield "nbody_tiled 2048", nbody_tiled, lambda: (tack.array(pos), tack.zeros((2048, 3)),
                                                     2048, 0.01)


def timed(fn) -> float:
    fn()
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> int:
    print("| kernel | tack.check (s) | simulator alone (s) |\n|---|---|---|")
    for label, k, make in rows():
        checked = timed(lambda k=k, make=make: tack.check(k, *make()).require_clean())
        tack.set_default_device("sim")
        plain = timed(lambda k=k, make=make: k(*make()))
        tack.set_default_device("cpu")
        print(f"| {label} | {checked:.2f} | {plain:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

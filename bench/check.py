#!/usr/bin/env python
"""What `tack.check` costs: checked launches (simulator + recording + race analysis) beside the
same launches on the simulator alone, warm (the second call of each is timed).

    PYTHONPATH=python:. python3 bench/check.py
    PYTHONPATH=python:. python3 bench/check.py --quick     # small sizes: a smoke run
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

import numpy as np
import tack

from tests.cuda.test_cuda_workgroups import nbody_tiled
from tests.kernels.corpus import block_reduce, saxpy


def rows(quick: bool = False):
    g = np.random.default_rng(0)
    log2, reduced, bodies = (12, 10, 256) if quick else (20, 16, 2048)
    n = 1 << log2
    x, y = (g.normal(size=n).astype(np.float32) for _ in range(2))
    d = np.ones(1 << reduced, np.float32)
    pos = np.c_[g.normal(size=(bodies, 3)), np.ones(bodies)].astype(np.float32)
    yield f"saxpy 2^{log2}", saxpy, lambda: (2.5, tack.array(x), tack.array(y), tack.zeros(n))
    yield f"block_reduce 2^{reduced}", block_reduce, lambda: (tack.array(d), tack.zeros(1),
                                                              len(d))
    yield f"nbody_tiled {bodies}", nbody_tiled, lambda: (tack.array(pos),
                                                         tack.zeros((bodies, 3)), bodies, 0.01)


def timed(fn) -> float:
    fn()
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    a = ap.parse_args(argv)
    print("| kernel | tack.check (s) | simulator alone (s) |\n|---|---|---|")
    for label, k, make in rows(a.quick):
        checked = timed(lambda k=k, make=make: tack.check(k, *make()).require_clean())
        tack.set_default_device("sim")
        plain = timed(lambda k=k, make=make: k(*make()))
        tack.set_default_device("cpu")
        print(f"| {label} | {checked:.2f} | {plain:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""What the Ctrl-C polls of long loops cost (passes/polls.py, render/llvm/polls.py): each kernel
compiled twice in one process, with its polls and with none, and timed interleaved on one thread.

    PYTHONPATH=python python bench/polls.py [--pairs 15]
    PYTHONPATH=python python bench/polls.py --quick     # small inputs, one pair: a smoke run

Thread CPU time (time.thread_time) of one-thread launches, the median of --pairs interleaved
pairs: on a loaded machine it varies far less than wall time, and both variants see the same
arrays, caches and neighbours. The disk cache is off (the variant without polls must not be
stored under the kernel's key). bench/cpu.py's saxpy, stencil and n-body kernels get no polls at
its sizes (no loop, or constant loops within POLL_WORK), so their code is unchanged.
"""
from __future__ import annotations

import argparse
import os
import time
from unittest import mock

os.environ["TACK_CACHE"] = "off"

import numpy as np
import tack
from tack.render.llvm import polls as llvm_polls
from tack.runtime.cpu import engine as cpu


def _kernels():
    @tack.kernel
    def nbody_rt(pos, mass, eps2, acc, n):  # the inner trip count is a runtime value
        for i in range(n):
            xi = pos[i, 0]
            yi = pos[i, 1]
            zi = pos[i, 2]
            ax = 0.0
            ay = 0.0
            az = 0.0
            for j in range(n):
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                dz = pos[j, 2] - zi
                inv = 1.0 / sqrt(dx * dx + dy * dy + dz * dz + eps2)  # noqa: F821 (a builtin)
                s = mass[j] * inv * inv * inv
                ax += dx * s
                ay += dy * s
                az += dz * s
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az

    @tack.kernel
    def stencil_rt(a, out, m):  # a runtime row length: polled, and still vectorized
        for i in range(1, a.shape[0] // m - 1):
            for j in range(1, m - 1):
                out[i * m + j] = 0.2 * (a[i * m + j] + a[(i - 1) * m + j] + a[(i + 1) * m + j]
                                        + a[i * m + j - 1] + a[i * m + j + 1])

    @tack.kernel
    def mandel(out, w, h, maxit):  # a while loop: polled by a countdown
        for p in range(w * h):
            cx = -2.0 + 3.0 * (p % w) / w
            cy = -1.5 + 3.0 * (p // w) / h
            x = 0.0
            y = 0.0
            k = 0
            while x * x + y * y < 4.0 and k < maxit:
                x, y = x * x - y * y + cx, 2.0 * x * y + cy
                k += 1
            out[p] = k

    @tack.kernel
    def spmv(rowptr, col, val, x, y):  # CSR: a short runtime-bound loop per row
        for i in range(y.shape[0]):
            s = 0.0
            for k in range(rowptr[i], rowptr[i + 1]):
                s += val[k] * x[col[k]]
            y[i] = s

    return nbody_rt, stencil_rt, mandel, spmv


def _cases(quick: bool = False):
    """name -> f(kernels) launching one kernel of `_kernels()` on its inputs."""
    rs = np.random.default_rng(0)
    nb, side, px, log2 = (256, 256, 64, 12) if quick else (4096, 4096, 512, 20)
    pos = tack.array(rs.random((nb, 3), dtype=np.float32))
    mass, acc = tack.array(rs.random(nb, dtype=np.float32)), tack.zeros((nb, 3))
    a, out = tack.array(rs.random(side * side, dtype=np.float32)), tack.zeros(side * side)
    om = tack.zeros(px * px, dtype=tack.i32)
    cases = {
        f"n-body, runtime n ({nb} bodies)": lambda k: k[0](pos, mass, 0.01, acc, nb),
        f"stencil, runtime row length ({side}^2)": lambda k: k[1](a, out, side),
        f"mandelbrot while ({px}^2, 256 its)": lambda k: k[2](om, px, px, 256)}
    for deg in (1, 3, 8):
        nr = 1 << log2
        csr = (tack.array(np.arange(nr + 1, dtype=np.int64) * deg),
               tack.array(rs.integers(0, nr, nr * deg).astype(np.int64)),
               tack.array(rs.random(nr * deg, dtype=np.float32)),
               tack.array(rs.random(nr, dtype=np.float32)), tack.zeros(nr))
        cases[f"CSR spmv, {deg} per row (2^{log2} rows)"] = lambda k, csr=csr: k[3](*csr)
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=15, help="interleaved timing pairs")
    ap.add_argument("--quick", action="store_true", help="small inputs, one pair (a smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.pairs = 1
    tack.set_default_device("cpu", num_threads=1)
    polled, plain = _kernels(), _kernels()
    print(f"{'kernel':40s} {'polled ms':>10s} {'no polls ms':>12s} {'ratio':>6s}")
    for name, run in _cases(args.quick).items():
        run(polled)
        # patch.object refuses a name the module no longer has: a renamed hook fails here
        # instead of timing two polled variants
        with mock.patch.object(llvm_polls, "poll_plan", lambda kir: {}), \
                mock.patch.object(cpu, "poll_plan", lambda kir: {}):
            run(plain)  # compiled now, without polls
        ta, tb = [], []
        for _ in range(args.pairs):
            for variant, times in ((polled, ta), (plain, tb)):
                t0 = time.thread_time()
                run(variant)
                times.append(time.thread_time() - t0)
        a, b = sorted(ta)[len(ta) // 2], sorted(tb)[len(tb) // 2]
        print(f"{name:40s} {a * 1e3:10.2f} {b * 1e3:12.2f} {a / b:6.3f}")


if __name__ == "__main__":
    main()

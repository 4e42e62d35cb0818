#!/usr/bin/env python
"""Simulator benchmark: Tack's `sim` engine against Numba's CUDA simulator, in one run.

    PYTHONPATH=python python bench/sim.py            # needs numba for the peer column
    PYTHONPATH=python python bench/sim.py --numba-scale 16
    PYTHONPATH=python python bench/sim.py --quick     # 2^12 and 2^10 elements: a smoke run

Kernels (float32; the same algorithm written for each, launched in 256-thread blocks):
  elementwise  out = a*x + y over 2**20 elements
  reduction    the block reduction of docs/examples (shared memory tree, a barrier per
               level) over 2**16 elements, one partial sum per block
Each is run once and checked against NumPy, then timed (median of --runs calls). Numba's
simulator (NUMBA_ENABLE_CUDASIM=1, set here before numba is imported) runs one Python thread per
GPU thread; at full size it takes minutes, so by default it runs 1/--numba-scale of the elements
(whole blocks) and its time is scaled up linearly (its cost per thread is constant: every thread
is the same Python code). --numba-scale 1 times it at full size. Targets: elementwise < 1 s,
reduction < 2 s, and >= 100x faster than Numba's simulator on both.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before any numba import
HERE = os.path.dirname(os.path.abspath(__file__))
if importlib.util.find_spec("tack") is None:  # not on PYTHONPATH: use this checkout's
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import numpy as np
import tack
from tack.ir.ops import WORKGROUP

BLOCK = WORKGROUP


@tack.kernel
def saxpy(a, x, y, out):
    for i in range(len(x)):
        out[i] = a * x[i] + y[i]


@tack.kernel
def block_reduce(data, partial_sums, n):
    for i in range(n):
        smem = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        smem[tid] = data[i]
        tack.barrier()
        stride = 128
        while stride > 0:
            if tid < stride:
                smem[tid] = smem[tid] + smem[tid + stride]
            tack.barrier()
            stride = stride // 2
        if tid == 0:
            partial_sums[i // 256] = smem[0]


try:  # the peer: Numba's simulator (its kernels must use `cuda` as a module global)
    from numba import cuda, float32
except ImportError:
    cuda = None

if cuda is not None:
    @cuda.jit
    def nb_saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = a * x[i] + y[i]

    @cuda.jit
    def nb_reduce(data, partial_sums):
        smem = cuda.shared.array(256, float32)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        smem[tid] = data[i]
        cuda.syncthreads()
        stride = 128
        while stride > 0:
            if tid < stride:
                smem[tid] = smem[tid] + smem[tid + stride]
            cuda.syncthreads()
            stride //= 2
        if tid == 0:
            partial_sums[cuda.blockIdx.x] = smem[0]


def timed(fn, runs: int) -> float:
    fn()  # compile / warm
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--numba-scale", type=int, default=16)
    ap.add_argument("--numba-runs", type=int, default=1)
    ap.add_argument("--quick", action="store_true",
                    help="2^12 and 2^10 elements, one timed call, no targets (a smoke run)")
    opts = ap.parse_args()
    if opts.quick:
        opts.runs, opts.numba_scale = 1, 1
    tack.set_default_device("sim")
    rng = np.random.default_rng(0)
    n_e, n_r = (1 << 12, 1 << 10) if opts.quick else (1 << 20, 1 << 16)
    x, y = rng.normal(size=n_e).astype(np.float32), rng.normal(size=n_e).astype(np.float32)
    d = rng.normal(size=n_r).astype(np.float32)
    tx, ty, tout = tack.array(x), tack.array(y), tack.zeros(n_e)
    td, tsums = tack.array(d), tack.zeros(n_r // BLOCK)
    sims = {"elementwise": timed(lambda: saxpy(np.float32(2.0), tx, ty, tout), opts.runs),
            "reduction": timed(lambda: block_reduce(td, tsums, n_r), opts.runs)}
    np.testing.assert_allclose(tout.numpy(), 2.0 * x.astype(np.float64) + y, rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(tsums.numpy(), d.astype(np.float64).reshape(-1, BLOCK).sum(1),
                               rtol=1e-5, atol=1e-5)
    peers = numba_peers(opts, x, y, d)
    print(f"{'kernel':<12} {'elements':>9} {'tack sim s':>11} {'target':>7} "
          f"{'numba sim s':>12} {'numba n':>8} {'ratio':>8}")
    ok = True
    for name, n, target in (("elementwise", n_e, 1.0), ("reduction", n_r, 2.0)):
        t = sims[name]
        ok &= t < target
        if peers is None:
            print(f"{name:<12} {n:>9} {t:>11.4f} {target:>7.1f} {'(no numba)':>12}")
            continue
        pt, pn = peers[name]
        full = pt * n / pn
        ok &= full / t >= 100
        print(f"{name:<12} {n:>9} {t:>11.4f} {target:>7.1f} {full:>12.2f} {pn:>8} "
              f"{full / t:>7.0f}x")
    print("numba sim s: per full-size call (timed at 'numba n' elements, scaled linearly)")
    if opts.quick:  # the targets are for the full sizes; the results were checked above
        return 0
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


def numba_peers(opts, x, y, d):
    if cuda is None:
        return None
    ne = max(BLOCK, len(x) // opts.numba_scale // BLOCK * BLOCK)
    nr = max(BLOCK, len(d) // opts.numba_scale // BLOCK * BLOCK)
    xs, ys, out = x[:ne].copy(), y[:ne].copy(), np.zeros(ne, np.float32)
    ds, sums = d[:nr].copy(), np.zeros(nr // BLOCK, np.float32)
    te = timed(lambda: nb_saxpy[ne // BLOCK, BLOCK](np.float32(2.0), xs, ys, out),
               opts.numba_runs)
    tr = timed(lambda: nb_reduce[nr // BLOCK, BLOCK](ds, sums), opts.numba_runs)
    np.testing.assert_allclose(out, 2.0 * xs.astype(np.float64) + ys, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(sums, ds.astype(np.float64).reshape(-1, BLOCK).sum(1),
                               rtol=1e-5, atol=1e-5)
    return {"elementwise": (te, ne), "reduction": (tr, nr)}


if __name__ == "__main__":
    sys.exit(main())

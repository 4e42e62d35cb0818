"""tack.ops beside its peers, in one process, with ratios.

    python bench/ops.py            # CPU: Tack, NumPy, Numba parallel (fastmath off and on)
    python bench/ops.py --rounds 15 --only softmax,matmul   # more rounds, some rows
    python bench/ops.py --gpu      # CUDA: Tack against PyTorch on the same GPU
    python bench/ops.py --quick    # small sizes, one round of one call (a smoke run)
    python bench/ops.py --dtypes float16   # some precisions (default: float32, float16, bfloat16)

Every implementation runs once and is checked against a float64 NumPy reference (a mismatch is
printed and makes the exit status 1), then all are timed in interleaved blocks (median of 7
blocks of calls, each block ending with the device's synchronization). On the CPU the blocks
interleave round by round (Tack, then each peer, `--rounds` times), so that a burst of load from
another process hits both sides of a ratio: a row prints the median rate and, for each peer, the
median per-round ratio with its interquartile range and a verdict only where that range lies on
one side of 1 (bench/_stats.py). Tack writes into
preallocated outputs (`out=`), as the peers do. Rows print the achieved rate (GB/s of
compulsory traffic: each input read once, each output written once; TFLOP/s for matmul and
attention) and its ratio to each peer; `--gpu` also prints the rate beside the card's limits
(H200: about 4.3 TB/s measured on a device-to-device copy, about 67 TFLOP/s of plain f32 FMA
by the datasheet, no tensor cores since TF32 is off).

Half rows (f16, bf16: inputs rounded to the half type, the reference on their exact values,
tolerance 2e-2) compare Tack's half op with its f32 op on the widened inputs on the CPU (what
computing in half costs beside f32), and with PyTorch's half op on the GPU (tensor cores for
matmul and attention; Tack's half matmul runs on tensor cores too, docs/ops.md "Tensor cores",
and its half attention of head_dim 64 or 128: ops/flash_attention.py). The `long attention`
rows (bfloat16 only; (4, 16, 4096, 128) on the GPU) run the head_dim 128 kernel on a long
sequence.

The `long` rows (softmax, layer_norm, rms_norm on rows of 65536 on the GPU, 16384 on the CPU)
are past the 256 × 32 elements a workgroup holds in registers: the online softmax and the norms'
long-row kernels, which read a row once per sweep.

The `tack-det` lines of softmax, log_softmax, gelu_tanh and silu (every precision) run the same
op in deterministic mode (`with tack.deterministic():`, docs/numerics.md "Deterministic mode":
tack.lib's exp, log and tanh on the GPU instead of the device library's, the CPU engine's bits);
the ratio `tack/tack-det` is the mode's time over the default's, and `--gpu` prints it against
the contract's target of 1.25.

The `sum`, `min` and `max` rows are `a.sum()`, `a.min()`, `a.max()` (tack.algorithms: a Python
float) of the rows' f32 input, beside `np.sum`/`np.min`/`np.max` and torch's (a device tensor).

The `matmul ... tf32` row is Tack's matmul with `precision="tf32"` (each f32 operand rounded to
TF32, docs/ops.md "Precision"), printed after the f32 one on the same inputs and checked
against the declared bound (`tack.testing.bounds.tf32_matmul_bound`, the tensor cores' form);
its peers are NumPy's f32 matmul on the CPU and PyTorch's matmul with TF32 allowed for that row
alone on the GPU (tensor cores, as Tack's on a GPU). On the GPU the tensor-core rows print their
rate beside the card's dense tensor-core peak (TENSOR_LIMITS) instead of the f32 FMA one.

The `hopper N^3` rows are matmul at 4096^3 and 8192^3 in bfloat16, float16 and TF32 beside
PyTorch's, in every `--gpu` run, with TFLOP/s: on an sm_90 GPU (H100, H200) they run the Hopper
path (ops/matmul_wgmma.py; the run says whether the GPU takes it), whose targets are 0.85x torch
at 4096^3 and 0.9x at 8192^3. Each row runs once per tile of `--hopper-tiles` (HOPPER_TILES:
ops.matmul's 128 x 128 tile with four stages, then a 256-wide tile and a three-stage ring that
lets two blocks share an SM; a tile spelled with a "tma" suffix, `128x4x2tma`, has its slabs
brought by tensor copies, the TMA), so one run says which serves best. `--quick` on the CPU runs
ops.matmul's tile (others when named) at 130^3 on the simulator asked for the Hopper kernels
(`tack.device("sim", sm=90)`), checked like every row.

On a GPU where Triton is installed, every matmul and hopper row also runs a Triton kernel
(bench/_triton_matmul.py: the tutorial's grouped tiles, autotuned) with the row's precision
asked for explicitly: `input_precision="ieee"` for the f32 row, `"tf32"` for the TF32 row;
`--no-triton` leaves it out (its autotuning takes tens of seconds a row).
"""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import _triton_matmul
import ml_dtypes
import tack
from _stats import fmt_ratio, ratio_stats
from tack import ops
from tack.capabilities import runs_wgmma
from tack.ops import matmul_wgmma
from tack.testing.bounds import tf32_matmul_bound

DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
HALF_TOL = (2e-2, 2e-2)  # tack.testing's half row, doubled for reductions and transcendentals

LIMITS = {"GB/s": 4300.0, "TFLOP/s": 67.0}  # H200: copy bandwidth measured, f32 FMA datasheet
# H100/H200 SXM datasheet, dense: f16/bf16 989 TFLOP/s, TF32 494 (the tensor-core matmul rows)
TENSOR_LIMITS = {"float16": {"TFLOP/s": 989.0}, "bfloat16": {"TFLOP/s": 989.0},
                 "tf32": {"TFLOP/s": 494.0}}
# "long attention": a bfloat16 row only (the tensor-core kernels' head_dim 128)
SIZES = {
    "gpu": {"rows": (8192, 8192), "long rows": (1024, 65536), "matmul": 4096, "attention": (8, 16, 1024, 64),
            "long attention": (4, 16, 4096, 128), "hopper": (4096, 8192)},
    "cpu": {"rows": (2048, 2048), "long rows": (64, 16384), "matmul": 1024, "attention": (1, 4, 512, 64),
            "long attention": (1, 2, 1024, 128), "hopper": ()},
    "quick": {"rows": (256, 1000), "long rows": (3, 8200), "matmul": 200, "attention": (1, 2, 100, 16),
              "long attention": (1, 2, 130, 128), "hopper": (130,)},
}
HOPPER_KINDS = ("bfloat16", "float16", "tf32")
# The Hopper kernels' tiles the rows compare (WIDTHxSTAGESxAHEAD, matmul_wgmma.tile_kernel):
# ops.matmul's; 256 wide: four 48 KiB stages, one block a SM; 3 stages: 96 KiB, two a SM. A
# "tma" suffix (--hopper-tiles 128x4x2,128x4x2tma) names the same ring filled by tensor copies
# (matmul_wgmma.tma_tile_kernel)
OWN_TILE = f"{matmul_wgmma.WIDTH}x{matmul_wgmma.STAGES}x{matmul_wgmma.AHEAD}"
HOPPER_TILES = (OWN_TILE, "256x4x2", "128x3x1")
FAILED: list = []
NO_TRITON = False  # --no-triton: the matmul rows without the Triton peer (its autotuning)


def timed(fn, sync, calls: int, blocks: int = 7) -> float:
    """Median seconds per call over `blocks` blocks of `calls` calls."""
    out = []
    for _ in range(blocks):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        out.append((time.perf_counter() - t0) / calls)
    return statistics.median(out)


def calibrate(fn, sync, budget: float) -> int:
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = max(time.perf_counter() - t0, 1e-6)
    return max(1, min(200, int(budget / one)))


def check(name, impl, got, want, rtol, atol):
    got = np.asarray(got, np.float64)
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
        err = np.abs(got - want).max() if got.shape == want.shape else "shape"
        print(f"  MISMATCH {name} {impl}: max error {err}", flush=True)
        FAILED.append((name, impl))


def compare(name, impls: dict, want, amount: float, unit: str, tol, budget: float, limits):
    """Check, time and print one benchmark: impls maps a label to (run, result, sync)."""
    for label, (run, result, sync) in impls.items():
        run()
        sync()
        check(name, label, result(), want, *tol)
    calls = {k: calibrate(r, s, budget / 7) for k, (r, _, s) in impls.items()}
    rate = {k: amount / timed(r, s, calls[k]) for k, (r, _, s) in impls.items()}
    peers = [k for k in rate if k != "tack"]
    for label, v in rate.items():
        ratios = "" if label != "tack" else "  ".join(
            f"{v / rate[p]:5.2f}x {p}" for p in peers)
        lim = f"  ({100 * v / limits[unit]:4.1f}% of {limits[unit]:g})" if limits else ""
        print(f"  {name:24s} {label:12s} {v:9.3f} {unit:8s}{lim}  {ratios}", flush=True)
    if "tack-det" in rate:
        cost = rate["tack"] / rate["tack-det"]
        print(f"  {name:24s} deterministic mode: {cost:.2f}x the default's time "
              f"({'within' if cost <= 1.25 else 'OVER'} the 1.25x target)", flush=True)


# -- references (float64, from the definitions) ------------------------------------------------
def ref_softmax(x, log=False):
    x = x.astype(np.float64)
    z = x - x.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True)) if log else np.exp(z) / np.exp(z).sum(
        -1, keepdims=True)


def ref_layer_norm(x, w, b):
    x = x.astype(np.float64)
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * w + b


def ref_rms_norm(x, w):
    x = x.astype(np.float64)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w


def ref_gelu(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def ref_silu(x):
    x = x.astype(np.float64)
    return x / (1 + np.exp(-x))


def ref_attention(q, k, v, causal):
    """One (batch, head) at a time: the scores of a 4096-long sequence take 128 MiB each."""
    out = np.empty(q.shape, np.float64)
    mask = np.tril(np.ones((q.shape[-2], k.shape[-2]), bool)) if causal else None
    for b, h in np.ndindex(*q.shape[:2]):
        qq, kk, vv = (a[b, h].astype(np.float64) for a in (q, k, v))
        s = qq @ kk.T / math.sqrt(q.shape[-1])
        if causal:
            s = np.where(mask, s, -np.inf)
        p = np.exp(s - s.max(-1, keepdims=True))
        out[b, h] = (p / p.sum(-1, keepdims=True)) @ vv
    return out


# -- the benchmarks: inputs, reference, work, and each implementation --------------------------
def _np_softmax(x, out):
    np.subtract(x, x.max(-1, keepdims=True), out=out)
    np.exp(out, out=out)
    out /= out.sum(-1, keepdims=True)


def _np_log_softmax(x, out):
    np.subtract(x, x.max(-1, keepdims=True), out=out)
    out -= np.log(np.exp(out).sum(-1, keepdims=True))


def _np_layer_norm(x, w, b, out):
    mu = x.mean(-1, keepdims=True)
    np.subtract(x, mu, out=out)
    out *= 1 / np.sqrt((out * out).mean(-1, keepdims=True) + np.float32(1e-5))
    out *= w
    out += b


def _np_gelu(x, out):
    c = np.float32(math.sqrt(2 / math.pi))
    np.multiply(x, x, out=out)
    out *= np.float32(0.044715) * x
    out += x
    out *= c
    np.tanh(out, out=out)
    out += 1
    out *= x * np.float32(0.5)


def benchmarks(sz, rng, dtype=np.float32):
    """(name, inputs, reference, work, unit, tolerance, tack, numpy, numba name, torch) each, on
    inputs of `dtype`: a half row's inputs are the float32 ones rounded, its reference is taken
    on their exact values, its tolerance is HALF_TOL and it has no NumPy or Numba peer."""
    if dtype is np.float32:
        yield from _benchmarks(sz, rng)
        return
    for name, inputs, _, work, unit, _, tk, _, _, tf in _benchmarks(sz, rng, dtype):
        ref = REFS["matmul" if name.startswith("matmul") else name.removesuffix(" long")]
        yield (f"{name} {np.dtype(dtype).name}", inputs, ref(*inputs),
               work / 2 if unit == "GB/s" else work, unit, HALF_TOL, tk, None, None, tf)


def _row_benchmarks(x, w, b, suffix=""):
    """softmax, log_softmax (not on the long rows), layer_norm and rms_norm over the rows of x."""
    c, nb, f32 = x.shape[1], x.size * 4 / 1e9, (2e-5, 2e-6)
    yield (f"softmax{suffix}", [x], ref_softmax(x), 2 * nb, "GB/s", f32,
           lambda t, out: ops.softmax(t, out=out), _np_softmax, "softmax",
           lambda T, F: (lambda a: T.softmax(a, -1)))
    if not suffix:
        yield ("log_softmax", [x], ref_softmax(x, True), 2 * nb, "GB/s", (2e-5, 2e-5),
               lambda t, out: ops.log_softmax(t, out=out), _np_log_softmax, None,
               lambda T, F: (lambda a: T.log_softmax(a, -1)))
    yield (f"layer_norm{suffix}", [x, w, b], ref_layer_norm(x, w, b), 2 * nb, "GB/s",
           (1e-4, 1e-4), lambda t, tw, tb, out: ops.layer_norm(t, tw, tb, out=out),
           _np_layer_norm, "layer_norm",
           lambda T, F: (lambda a, aw, ab: F.layer_norm(a, (c,), aw, ab)))
    yield (f"rms_norm{suffix}", [x, w], ref_rms_norm(x, w), 2 * nb, "GB/s", (1e-4, 1e-4),
           lambda t, tw, out: ops.rms_norm(t, tw, out=out), None, None,
           lambda T, F: (lambda a, aw: F.rms_norm(a, (c,), aw, 1e-6)))


def _benchmarks(sz, rng, dtype=np.float32):
    r, c = sz["rows"]
    x = rng.normal(size=(r, c)).astype(np.float32) * 3
    y = rng.normal(size=(r, c)).astype(np.float32)
    w, b = rng.normal(size=c).astype(np.float32), rng.normal(size=c).astype(np.float32)
    x, y, w, b = (v.astype(dtype) for v in (x, y, w, b))
    nb = x.size * 4 / 1e9
    f32 = (2e-5, 2e-6)
    yield from _row_benchmarks(x, w, b)
    # rows past 256 * 32 elements: the online softmax and the norms' long-row kernels on a GPU
    lr, lc = sz["long rows"]
    xl = (rng.normal(size=(lr, lc)).astype(np.float32) * 3).astype(dtype)
    wl, bl = (rng.normal(size=lc).astype(np.float32).astype(dtype) for _ in range(2))
    yield from _row_benchmarks(xl, wl, bl, " long")
    yield ("gelu_tanh", [x], ref_gelu(x), 2 * nb, "GB/s", f32,
           lambda t, out: ops.gelu(t, out=out), _np_gelu, "gelu",
           lambda T, F: (lambda a: F.gelu(a, approximate="tanh")))
    yield ("silu", [x], ref_silu(x), 2 * nb, "GB/s", f32,
           lambda t, out: ops.silu(t, out=out), None, None,
           lambda T, F: (lambda a: F.silu(a)))
    yield ("add", [x, y], x.astype(np.float64) + y, 3 * nb, "GB/s", f32,
           lambda t, u, out: ops.add(t, u, out=out), lambda a, u, out: np.add(a, u, out=out),
           None, lambda T, F: (lambda a, u: T.add(a, u)))
    if dtype is np.float32:  # whole-array reductions (tack.algorithms), in f32 only
        yield from _reductions(x, nb)
    n = sz["matmul"]
    a, bm = (rng.normal(size=(n, n)).astype(np.float32).astype(dtype) for _ in range(2))
    yield (f"matmul {n}^3", [a, bm], a.astype(np.float64) @ bm, 2 * n ** 3 / 1e12, "TFLOP/s",
           (1e-4, 1e-3 * math.sqrt(n)), lambda t, u, out: ops.matmul(t, u, out=out),
           lambda p, q, out: np.matmul(p, q, out=out), None,
           lambda T, F: (lambda p, q: T.matmul(p, q)))
    if dtype is np.float32:  # TF32 products (docs/ops.md, "Precision"), within their bound
        # the bound of a GPU's tensor-core sums, which holds for the CPU's float32 sums too
        bound = tf32_matmul_bound(n, gpu=True) * float(
            (np.abs(a).astype(np.float64) @ np.abs(bm)).max())
        yield (f"matmul {n}^3 tf32", [a, bm], a.astype(np.float64) @ bm, 2 * n ** 3 / 1e12,
               "TFLOP/s", (0.0, bound),
               lambda t, u, out: ops.matmul(t, u, out=out, precision="tf32"),
               lambda p, q, out: np.matmul(p, q, out=out), None, _torch_tf32_matmul)
    yield from _attention(sz["attention"], "attention", rng, dtype)
    if dtype is ml_dtypes.bfloat16:
        yield from _attention(sz["long attention"], "long attention", rng, dtype)


def hopper_rows(sizes, rng, wanted=lambda name: True):
    """The Hopper path's rows: (name, inputs, reference, work, unit, tolerance, tack, torch)
    of an n^3 matmul per size and kind (HOPPER_KINDS; the halves against HALF_TOL, TF32 within
    its declared bound of a GPU's sums)."""
    for n in sizes:
        a32, b32 = (rng.normal(size=(n, n)).astype(np.float32) for _ in range(2))
        for kind in HOPPER_KINDS:
            if not wanted(f"hopper {n}^3 {kind}"):  # no reference for a row not run
                continue
            dtype = np.float32 if kind == "tf32" else DTYPES[kind]
            a, b = a32.astype(dtype), b32.astype(dtype)
            want = a.astype(np.float64) @ b.astype(np.float64)
            if kind == "tf32":
                tol = (0.0, tf32_matmul_bound(n, gpu=True) * float(
                    (np.abs(a).astype(np.float64) @ np.abs(b)).max()))
                yield (f"hopper {n}^3 {kind}", [a, b], want, 2 * n ** 3 / 1e12, "TFLOP/s", tol,
                       lambda t, u, out: ops.matmul(t, u, out=out, precision="tf32"),
                       _torch_tf32_matmul)
            else:
                yield (f"hopper {n}^3 {kind}", [a, b], want, 2 * n ** 3 / 1e12, "TFLOP/s",
                       HALF_TOL, lambda t, u, out: ops.matmul(t, u, out=out),
                       lambda T, F: (lambda p, q: T.matmul(p, q)))


def _attention(shape, name, rng, dtype):
    q, k, v = (rng.normal(size=shape).astype(np.float32).astype(dtype) for _ in range(3))
    flops = 4 * shape[0] * shape[1] * shape[2] ** 2 * shape[3] / 1e12
    for causal in (False, True):
        yield (f"{name}{' causal' if causal else ''}", [q, k, v],
               ref_attention(q, k, v, causal), flops / (2 if causal else 1), "TFLOP/s",
               (1e-4, 1e-4), lambda t, u, s, out, c=causal: ops.attention(t, u, s, causal=c,
                                                                          out=out),
               None, None, lambda T, F, c=causal: (
                   lambda p, kk, vv: F.scaled_dot_product_attention(p, kk, vv, is_causal=c)))


def _reductions(x, nb):
    """`a.sum()`, `a.min()`, `a.max()` of the rows' input (a Python float, the row's result, of
    shape ()) beside NumPy's and torch's; the sum within 1e-5 of Σ|x| (any order's error at
    these sizes is below 2e-6 of it), min and max exact."""
    exact = {"sum": math.fsum(x.astype(np.float64).ravel()), "min": float(x.min()),
             "max": float(x.max())}
    for op in ("sum", "min", "max"):
        tol = (0.0, 1e-5 * float(np.abs(x).sum())) if op == "sum" else (0.0, 0.0)
        yield (op, [x], np.array(exact[op]), nb, "GB/s", tol,
               lambda t, op=op: getattr(t, op)(),
               lambda a, out, op=op: out.__setitem__((), getattr(a, op)()), None,
               lambda T, F, op=op: getattr(T, op))


def _torch_tf32_matmul(T, F):
    """PyTorch's matmul with TF32 allowed for this call only (the other rows multiply in f32)."""
    def run(p, q):
        T.backends.cuda.matmul.allow_tf32 = True
        try:
            return T.matmul(p, q)
        finally:
            T.backends.cuda.matmul.allow_tf32 = False
    return run


# the float64 references of the half rows, by row name, on the exact values of the inputs
REFS = {"softmax": ref_softmax, "log_softmax": lambda x: ref_softmax(x, True),
        "layer_norm": ref_layer_norm, "rms_norm": ref_rms_norm, "gelu_tanh": ref_gelu,
        "silu": ref_silu,
        "add": lambda x, y: x.astype(np.float64) + y.astype(np.float64),
        "matmul": lambda a, b: a.astype(np.float64) @ b.astype(np.float64),
        "attention": lambda q, k, v: ref_attention(q, k, v, False),
        "attention causal": lambda q, k, v: ref_attention(q, k, v, True),
        "long attention": lambda q, k, v: ref_attention(q, k, v, False),
        "long attention causal": lambda q, k, v: ref_attention(q, k, v, True)}


# rows timed in deterministic mode too ("tack-det", docs/numerics.md "Deterministic mode"): its
# cost is the default's rate over its rate, the target at most 1.25
DETERMINISTIC = ("softmax", "log_softmax", "gelu_tanh", "silu")


def _deterministic(fn):
    def run(*args):
        with tack.deterministic():
            return fn(*args)
    return run


def _tack_impls(name, tk, inputs, want_shape) -> dict:
    """Tack's implementation, and beside it the same op in deterministic mode for the rows of
    DETERMINISTIC (of any precision)."""
    impls = {"tack": _tack_impl(tk, inputs, want_shape)}
    if name.split()[0] in DETERMINISTIC:
        impls["tack-det"] = _tack_impl(_deterministic(tk), inputs, want_shape)
    return impls


def _tack_impl(fn, inputs, want_shape):
    targs = [tack.array(a) for a in inputs]
    if want_shape == ():  # a reduction: the Python float it returns is the result
        box = {}

        def run():
            box["v"] = fn(*targs)
        return (run, lambda: np.float64(box["v"]), tack.sync)
    out = tack.empty(want_shape, targs[0].dtype)
    return (lambda: fn(*targs, out), out.numpy, tack.sync)


def _numba_peers(key, inputs, want_shape):
    try:
        import _ops_numba
        peers = {}
        for fm in (False, True):
            k = _ops_numba.kernels(fm)[key]
            out = np.empty(want_shape, np.float32)
            peers["numba-fm" if fm else "numba"] = (
                lambda k=k, out=out: k(*inputs, out), lambda out=out: out, lambda: None)
        return peers
    except ImportError as exc:
        print(f"  (numba not installed: {exc})")
        return {}


def compare_rounds(name, impls: dict, want, amount: float, unit: str, tol, budget: float,
                   rounds: int):
    """compare() with the blocks interleaved: each round times one block of every
    implementation back to back; prints each rate (median over rounds, its range) and Tack's
    per-round ratio to each peer (peer time / Tack time), with its spread and verdict."""
    for label, (run, result, sync) in impls.items():
        run()
        sync()
        check(name, label, result(), want, *tol)
    if unit == "TFLOP/s":  # a CPU's rates read better in GFLOP/s
        amount, unit = amount * 1e3, "GFLOP/s"
    calls = {k: calibrate(r, s, budget / rounds) for k, (r, _, s) in impls.items()}
    times = {k: [] for k in impls}
    for _ in range(rounds):
        for k, (r, _, s) in impls.items():
            times[k].append(timed(r, s, calls[k], blocks=1))
    for label, ts in times.items():
        rates = sorted(amount / t for t in ts)
        line = (f"  {name:24s} {label:9s} {statistics.median(rates):8.3f} {unit:7s} "
                f"(rounds {rates[0]:.3f}-{rates[-1]:.3f})")
        if label != "tack":
            line += f"  tack/{label}: {fmt_ratio(ratio_stats(times['tack'], ts))}"
        print(line, flush=True)


def _rows(sz, dtypes):
    for d in dtypes:
        yield from benchmarks(sz, rng(), DTYPES[d])


def run_cpu(sz, budget, rounds=7, only=None, dtypes=("float32",), tiles=HOPPER_TILES):
    tack.set_default_device("cpu")
    run_hopper(sz["hopper"], budget, rounds, only, tiles, gpu=False)
    for name, inputs, want, work, unit, tol, tk, npf, nbk, _ in _rows(sz, dtypes):
        if only and not any(name.startswith(o) for o in only):
            continue
        impls = _tack_impls(name, tk, inputs, want.shape)
        if inputs[0].dtype != np.float32:  # a half row: beside Tack's f32 op on the same values
            impls["tack-f32"] = _tack_impl(tk, [a.astype(np.float32) for a in inputs],
                                           want.shape)
        if npf is not None:
            out = np.empty(want.shape, np.float32)
            impls["numpy"] = (lambda f=npf, o=out, i=inputs: f(*i, o), lambda o=out: o, lambda: None)
        if nbk is not None:
            impls.update(_numba_peers(nbk, inputs, want.shape))
        compare_rounds(name, impls, want, work, unit, tol, budget, rounds)


@contextlib.contextmanager
def hopper_tile(spec: str):
    """ops.matmul's Hopper kernels (ops/matmul_wgmma.py) made with the tile `spec`
    ("WIDTHxSTAGESxAHEAD", e.g. 256x4x2; with a "tma" suffix, 128x4x2tma, the tile whose slabs
    come by tensor copies, `matmul_wgmma.tma_tile_kernel`) while the block runs: tuning,
    compared in one run."""
    tma = spec.endswith("tma")
    width, stages, ahead = (int(v) for v in spec.removesuffix("tma").split("x"))
    make = matmul_wgmma.tma_tile_kernel if tma else matmul_wgmma.tile_kernel
    saved = dict(matmul_wgmma.KERNELS)
    matmul_wgmma.KERNELS.update(half=make(False, stages, ahead, width),
                                tf32=make(True, stages, ahead, width))
    try:
        yield
    finally:
        matmul_wgmma.KERNELS.update(saved)


def run_hopper(sizes, budget, rounds, only, tiles, torch=None, F=None, gpu=True):
    """The Hopper rows, for each tile of `tiles` (the first is ops.matmul's own): beside torch
    on a GPU (`compare`), or on the simulator asked for the Hopper kernels, where the rows'
    code and the kernels' results are checked without a GPU and the rates say nothing."""
    def wanted(name):  # "hopper" (or a prefix of it) takes every row, a longer prefix its rows
        return not only or any("hopper".startswith(o) or name.startswith(o) for o in only)
    if not sizes or only and not any(o.startswith("hop") or "hopper".startswith(o)
                                     for o in only):
        return
    if not gpu:
        tack.set_default_device("sim", sm=90)
    for name, inputs, want, work, unit, tol, tk, tf in hopper_rows(sizes, rng(), wanted):
        peers = {}
        if torch is not None:
            targs = [_torch_array(torch, a) for a in inputs]
            fn, box = tf(torch, F), {}

            def run(fn=fn, targs=targs, box=box):
                box["out"] = fn(*targs)
            peers["torch"] = (run, lambda box=box: box["out"].float().cpu().numpy(),
                              torch.cuda.synchronize)
            if _triton_matmul.AVAILABLE and not NO_TRITON:
                peers["triton"] = _triton_peer(
                    targs, "tf32" if name.endswith("tf32") else "ieee", torch.cuda.synchronize)
        for spec in tiles:
            with hopper_tile(spec):
                impls = {"tack": _tack_impl(tk, inputs, want.shape), **peers}
                label = name if spec == OWN_TILE else f"{name} {spec}"
                if gpu:
                    compare(label, impls, want, work, unit, tol, budget,
                            TENSOR_LIMITS[name.split()[-1]])
                else:
                    compare_rounds(label, impls, want, work, unit, tol, budget, rounds)
    if not gpu:
        tack.set_default_device("cpu")


def _torch_array(torch, a):
    if a.dtype == np.float32 or a.dtype == np.float16:
        return torch.from_numpy(a).cuda()
    return torch.from_numpy(a.astype(np.float32)).cuda().to(torch.bfloat16)


def run_gpu(sz, budget, dtypes=("float32",), tiles=HOPPER_TILES, only=()):
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        torch = None
        print("torch is not installed: Tack's rows alone", flush=True)
    else:
        torch.backends.cuda.matmul.allow_tf32 = False  # plain f32 on both sides
        torch.backends.cudnn.allow_tf32 = False
    tack.set_default_device("cuda")
    for name, inputs, want, work, unit, tol, tk, _, _, tf in _rows(sz, dtypes):
        if only and not any(name.startswith(o) for o in only):
            continue
        impls = _tack_impls(name, tk, inputs, want.shape)
        kind = name.split()[-1]
        limits = TENSOR_LIMITS[kind] if name.startswith("matmul") and kind in TENSOR_LIMITS \
            else LIMITS
        if torch is None:
            compare(name, impls, want, work, unit, tol, budget, limits)
            continue
        sync = torch.cuda.synchronize
        targs = [_torch_array(torch, a) for a in inputs]
        fn = tf(torch, F)
        box = {}

        def run(fn=fn, targs=targs, box=box):
            box["out"] = fn(*targs)
        impls["torch"] = (run, lambda box=box: box["out"].float().cpu().numpy(), sync)
        if name.startswith("matmul") and _triton_matmul.AVAILABLE and not NO_TRITON:
            impls["triton"] = _triton_peer(targs, "tf32" if kind == "tf32" else "ieee", sync)
        compare(name, impls, want, work, unit, tol, budget, limits)
    dev = tack.default_device()
    print(f"hopper rows: {dev.name} " + ("takes the Hopper path (ops/matmul_wgmma.py)"
          if runs_wgmma(dev) else f"is {dev.engine.arch}: NOT the Hopper path"), flush=True)
    run_hopper(sz["hopper"], budget, 1, only, tiles, torch, F if torch is not None else None)


def _triton_peer(targs, precision, sync):
    """The Triton matmul (bench/_triton_matmul.py) on the torch row's inputs, with the row's
    precision asked for explicitly; it autotunes on its first call (the calibration's)."""
    box = {}

    def run():
        box["out"] = _triton_matmul.matmul(*targs, precision)
    return run, lambda: box["out"].float().cpu().numpy(), sync


def rng():  # one seed for every run
    return np.random.default_rng(0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpu", action="store_true", help="CUDA against PyTorch")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--budget", type=float, default=1.5, help="seconds of timing per row")
    p.add_argument("--rounds", type=int, default=7, help="interleaved rounds per row (CPU)")
    p.add_argument("--only", default="", help="comma-separated row names (prefixes)")
    p.add_argument("--dtypes", default=",".join(DTYPES),
                   help=f"comma-separated precisions, of {', '.join(DTYPES)}")
    p.add_argument("--hopper-tiles", default=None,
                   help="the Hopper rows' tiles, WIDTHxSTAGESxAHEAD[tma], comma-separated "
                        "(a 'tma' suffix: slabs by tensor copies; rows of another tile than "
                        f"ops.matmul's, {OWN_TILE}, are named by it; default "
                        f"{','.join(HOPPER_TILES)}, with --quick {OWN_TILE} alone)")
    p.add_argument("--no-triton", action="store_true",
                   help="no Triton peer on the matmul rows (it autotunes for tens of seconds)")
    a = p.parse_args(argv)
    global NO_TRITON
    NO_TRITON = a.no_triton
    if a.hopper_tiles is None:  # a smoke run takes ops.matmul's tile (tests/ops runs them all)
        a.hopper_tiles = OWN_TILE if a.quick else ",".join(HOPPER_TILES)
    tiles = tuple(t for t in a.hopper_tiles.split(",") if t)
    if a.quick:  # one calibrated call per implementation: checked, timed once
        a.budget, a.rounds = 1e-6, 1
    dtypes = [d for d in a.dtypes.split(",") if d]
    bad = [d for d in dtypes if d not in DTYPES]
    if bad or not dtypes:
        p.error(f"--dtypes takes {', '.join(DTYPES)}, got {a.dtypes!r}")
    sz = SIZES["quick" if a.quick else ("gpu" if a.gpu else "cpu")]
    print(f"tack.ops benchmark ({'gpu' if a.gpu else 'cpu'}, sizes {sz}), {', '.join(dtypes)}",
          flush=True)
    if a.gpu:
        run_gpu(sz, a.budget, dtypes, tiles, [o for o in a.only.split(",") if o])
    else:
        run_cpu(sz, a.budget * a.rounds / 7, a.rounds, [o for o in a.only.split(",") if o],
                dtypes, tiles)
    if FAILED:
        print(f"MISMATCHES: {FAILED}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())

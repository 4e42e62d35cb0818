"""The shared kernel corpus: every engine runs these against independent references.

Each `Case` names a kernel, builds its arguments from a seeded RNG and a size, and computes the
expected contents of the arrays the kernel writes, with NumPy in float64 or exact integers.
The Julia renderer's goldens and the CUDA engine's tests use the same cases.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import tack

PAIR = tack.constant(2)
SCALE = tack.constant(0.1, tack.f64)


@dataclass
class Case:
    name: str
    kernel: object
    make: Callable  # (rng, n) -> list of args (NumPy arrays become tack arrays)
    expect: Callable  # (args as NumPy / scalars) -> {arg position: expected array}
    sizes: tuple = (1, 7, 1025)
    rtol: float = 0.0
    atol: float = 0.0
    tags: set = field(default_factory=set)


@tack.kernel
def transform(x, out):
    for i in range(x.shape[0]):
        out[i] = sqrt(abs(x[i]))


@tack.kernel
def saxpy(a, x, y, out):
    for i in range(len(x)):
        out[i] = a * x[i] + y[i]


@tack.kernel
def stencil5(u, out):
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]


@tack.kernel
def nbody(pos, acc, n, eps2):
    for i in range(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        xi = pos[i, 0]
        yi = pos[i, 1]
        zi = pos[i, 2]
        for j in range(n):
            dx = pos[j, 0] - xi
            dy = pos[j, 1] - yi
            dz = pos[j, 2] - zi
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = 1.0 / sqrt(r2)
            s = pos[j, 3] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@tack.kernel
def softmax_rows(x, out):
    for r in range(x.shape[0]):
        m = x[r, 0]
        for c in range(1, x.shape[1]):
            m = max(m, x[r, c])
        total = 0.0
        for c in range(x.shape[1]):
            e = exp(x[r, c] - m)
            out[r, c] = e
            total += e
        inv = 1.0 / total
        for c in range(x.shape[1]):
            out[r, c] = out[r, c] * inv


@tack.kernel
def int_divmod(a, b, q, r):
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@tack.kernel
def float_divmod(a, b, q, r):
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@tack.kernel
def wrap_u8(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * a[i] + 200


@tack.kernel
def collatz_steps(start, steps):
    for i in range(start.shape[0]):
        v = start[i]
        k = 0
        while v != 1:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            k += 1
            if k >= 500:
                break
        steps[i] = k


@tack.kernel
def strided_loops(out, n):
    for i in range(n):
        t = 0
        for k in range(i, -1, -3):
            if k % 5 == 0:
                continue
            t += k
        for k in range(0, i, 4):
            t += 1
        out[i] = t


@tack.kernel
def stepped_launch(out, start, stop):
    for i in range(start, stop, 3):
        out[i] = i * 2 + 1


@tack.kernel
def chained_select(x, out, lo, hi):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 1.0 if lo < v <= hi else (-1.0 if v < lo or v != v else 0.0)


@tack.kernel
def scalar_param_reassign(out, bias):
    for i in range(out.shape[0]):
        if i % 2 == 0:
            bias = bias * 2
        out[i] = bias


@tack.kernel
def sequential_sees_writes(buf, out):
    for i in range(out.shape[0]):
        buf[i, 0] = i
        for k in range(1, buf.shape[1]):
            buf[i, k] = buf[i, k - 1] + k
        out[i] = buf[i, buf.shape[1] - 1]


@tack.kernel
def flat_index_2d(a, out):
    for i in range(a.shape[0] * a.shape[1]):
        out[i] = a[i] * 2.0


@tack.kernel
def weak_literals_f64(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 0.1 + SCALE + 1 / 3 + PAIR


@tack.kernel
def casts_and_pow(x, out_i, out_f):
    for i in range(x.shape[0]):
        n = int(x[i])
        out_i[i] = n ** 3 + tack.i8(n) + tack.u8(-1)
        out_f[i] = float(n) ** 0.5 + pow(x[i], 2.0) + floor(x[i]) + ceil(-x[i])


@tack.kernel
def math_builtins(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = (sin(v) + cos(v) + tanh(v) + exp(-v * v) + log(1.0 + v * v) + atan2(v, 1.5)
                  + min(v, 0.25, 0.5) + max(abs(v), 0.1) + math.pi)


@tack.kernel
def prologue_local(x, out):
    scale = 3
    n = x.shape[0]
    for i in range(n):
        scale = scale + 1
        out[i] = x[i] * scale


@tack.kernel
def bit_ops(a, b, out):
    for i in range(a.shape[0]):
        s = b[i] & 7
        out[i] = ((a[i] << s) ^ (a[i] >> 1)) | (~a[i] & 0xFF)


@tack.kernel
def row_energy(data, out):
    for row in range(data.shape[0]):
        scratch = tack.local_array_like(data, PAIR * data.shape[1])
        for column in range(data.shape[1]):
            x = data[row, column]
            scratch[PAIR * column] = x
            scratch[PAIR * column + 1] = x * x
        total = 0.0
        for column in range(PAIR * data.shape[1]):
            total += scratch[column]
        out[row] = total


@tack.kernel
def histogram(data, bins, n):
    for i in range(n):
        idx = int(data[i] * 10.0)
        tack.atomic_add(bins, idx, 1)


@tack.kernel
def count_positive_slots(values, flags, count):
    for i in range(values.shape[0]):
        if values[i] > 0.0:
            slot = tack.atomic_add(count, 0, 1)
            flags[i] = slot + 1


@tack.kernel
def atomic_extremes(x, lo, hi):
    for i in range(x.shape[0]):
        tack.atomic_min(lo, 0, x[i])
        tack.atomic_max(hi, 0, x[i])


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
            tack.atomic_add(partial_sums, 0, smem[0])


def _f32(rng, n):
    return rng.normal(size=n).astype(np.float32)


def _wrap(values, dtype):
    bits = np.dtype(dtype).itemsize * 8
    return np.array([(v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)) for v in values],
                    dtype=dtype)


def _ref_divmod_int(a, b):
    q = _wrap([int(x) // int(y) for x, y in zip(a, b)], a.dtype)
    r = _wrap([int(x) % int(y) for x, y in zip(a, b)], a.dtype)
    return q, r


def _collatz(v):
    k = 0
    while v != 1 and k < 500:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        k += 1
    return k


def _strided(i):
    t = sum(k for k in range(i, -1, -3) if k % 5 != 0)
    return t + len(range(0, i, 4))


def _nbody_ref(pos, eps2):
    p = pos.astype(np.float64)
    d = p[None, :, :3] - p[:, None, :3]
    r2 = (d * d).sum(-1) + eps2
    s = p[None, :, 3] / r2 ** 1.5
    return (d * s[..., None]).sum(1)


def _softmax_ref(x):
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _casts_ref(x):
    n = np.trunc(x.astype(np.float64)).astype(np.int64)
    oi = ((n ** 3) % (1 << 32) + ((n + 128) % 256 - 128) + 255).astype(np.int64)
    oi = ((oi + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)
    xf = x.astype(np.float64)
    of = np.sqrt(n.astype(np.float64)) + xf ** 2 + np.floor(xf) + np.ceil(-xf)
    return oi, of


def _math_ref(x):
    v = x.astype(np.float64)
    return (np.sin(v) + np.cos(v) + np.tanh(v) + np.exp(-v * v) + np.log(1 + v * v)
            + np.arctan2(v, 1.5) + np.minimum(v, 0.25) + np.maximum(np.abs(v), 0.1) + math.pi)


def _bits_ref(a, b):
    a64, s = a.astype(np.int64), (b.astype(np.int64) & 7)
    r = ((a64 << s) ^ (a64 >> 1)) | (~a64 & 0xFF)
    return ((r + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


def _i32(rng, n, lo=-1000, hi=1000):
    return rng.integers(lo, hi, size=n).astype(np.int32)


def _nonzero(rng, n, dtype):
    b = rng.integers(-9, 10, size=n)
    b[b == 0] = 3
    return b.astype(dtype)


CASES = [
    Case("transform", transform, lambda g, n: [_f32(g, n), np.zeros(n, np.float32)],
         lambda a: {1: np.sqrt(np.abs(a[0].astype(np.float64)))}, rtol=2e-6, atol=1e-7),
    Case("saxpy", saxpy, lambda g, n: [2.5, _f32(g, n), _f32(g, n), np.zeros(n, np.float32)],
         lambda a: {3: 2.5 * a[1].astype(np.float64) + a[2]}, rtol=1e-6, atol=1e-6),
    Case("stencil5", stencil5,
         lambda g, n: [g.normal(size=(n + 2, n + 3)).astype(np.float32),
                       np.zeros((n + 2, n + 3), np.float32)],
         lambda a: {1: _stencil_ref(a[0])}, sizes=(1, 5, 64), rtol=1e-5, atol=1e-5),
    Case("nbody", nbody,
         lambda g, n: [np.c_[g.normal(size=(n, 3)), g.uniform(0.5, 1, n)].astype(np.float32),
                       np.zeros((n, 3), np.float32), n, 0.01],
         lambda a: {1: _nbody_ref(a[0], 0.01)}, sizes=(1, 7, 129), rtol=2e-4, atol=2e-4),
    Case("softmax_rows", softmax_rows,
         lambda g, n: [g.normal(size=(n, 37)).astype(np.float32), np.zeros((n, 37), np.float32)],
         lambda a: {1: _softmax_ref(a[0])}, sizes=(1, 5, 33), rtol=1e-5, atol=1e-7),
    Case("int_divmod", int_divmod,
         lambda g, n: [_i32(g, n), _nonzero(g, n, np.int32), np.zeros(n, np.int32),
                       np.zeros(n, np.int32)],
         lambda a: dict(zip((2, 3), _ref_divmod_int(a[0], a[1])))),
    Case("int_divmod_i8", int_divmod,
         lambda g, n: [_i32(g, n, -128, 128).astype(np.int8), _nonzero(g, n, np.int8),
                       np.zeros(n, np.int8), np.zeros(n, np.int8)],
         lambda a: dict(zip((2, 3), _ref_divmod_int(a[0], a[1])))),
    Case("float_divmod", float_divmod,
         lambda g, n: [g.normal(scale=10, size=n), g.normal(scale=3, size=n) + 0.1,
                       np.zeros(n), np.zeros(n)],
         lambda a: {2: np.floor_divide(a[0], a[1]), 3: np.mod(a[0], a[1])}, rtol=1e-12, atol=1e-12),
    Case("wrap_u8", wrap_u8, lambda g, n: [g.integers(0, 256, n).astype(np.uint8),
                                            np.zeros(n, np.int32)],
         lambda a: {1: (a[0] * a[0]).astype(np.int32) + 200}),  # u8 * u8 wraps at u8
    Case("collatz_steps", collatz_steps,
         lambda g, n: [g.integers(1, 10000, n).astype(np.int64), np.zeros(n, np.int32)],
         lambda a: {1: np.array([_collatz(int(v)) for v in a[0]], np.int32)}),
    Case("strided_loops", strided_loops, lambda g, n: [np.zeros(n, np.int32), n],
         lambda a: {0: np.array([_strided(i) for i in range(a[1])], np.int32)}),
    Case("stepped_launch", stepped_launch, lambda g, n: [np.zeros(n + 10, np.int64), 2, n + 7],
         lambda a: {0: _stepped_ref(a)}),
    Case("chained_select", chained_select,
         lambda g, n: [np.where(g.uniform(size=n) < 0.1, np.nan, g.normal(size=n)).astype(
             np.float32), np.zeros(n, np.float32), -0.5, 0.5],
         lambda a: {1: np.where((-0.5 < a[0]) & (a[0] <= 0.5), 1.0,
                                np.where((a[0] < -0.5) | np.isnan(a[0]), -1.0, 0.0))}),
    Case("scalar_param_reassign", scalar_param_reassign, lambda g, n: [np.zeros(n, np.int32), 5],
         lambda a: {0: np.where(np.arange(len(a[0])) % 2 == 0, 10, 5).astype(np.int32)}),
    Case("sequential_sees_writes", sequential_sees_writes,
         lambda g, n: [np.zeros((n, 6), np.int64), np.zeros(n, np.int64)],
         lambda a: {1: np.arange(len(a[1])) + 15}),
    Case("flat_index_2d", flat_index_2d,
         lambda g, n: [g.normal(size=(n, 3)).astype(np.float32), np.zeros(3 * n, np.float32)],
         lambda a: {1: a[0].ravel().astype(np.float64) * 2}, rtol=1e-7),
    Case("weak_literals_f64", weak_literals_f64, lambda g, n: [g.normal(size=n), np.zeros(n)],
         lambda a: {1: a[0] * 0.1 + 0.1 + np.float64(np.float32(1) / np.float32(3)) + 2},
         rtol=1e-15, atol=1e-15),
    Case("casts_and_pow", casts_and_pow,
         lambda g, n: [g.uniform(0, 40, n).astype(np.float32), np.zeros(n, np.int32),
                       np.zeros(n, np.float32)],
         lambda a: dict(zip((1, 2), _casts_ref(a[0]))), rtol=1e-6, atol=1e-5),
    Case("math_builtins", math_builtins, lambda g, n: [_f32(g, n), np.zeros(n, np.float32)],
         lambda a: {1: _math_ref(a[0])}, rtol=1e-5, atol=1e-5),
    Case("prologue_local", prologue_local, lambda g, n: [_f32(g, n), np.zeros(n, np.float32)],
         lambda a: {1: a[0].astype(np.float64) * 4}, rtol=1e-7),
    Case("bit_ops", bit_ops, lambda g, n: [_i32(g, n, -5000, 5000), _i32(g, n, 0, 100),
                                           np.zeros(n, np.int32)],
         lambda a: {2: _bits_ref(a[0], a[1])}),
]


CASES += [
    Case("row_energy", row_energy,
         lambda g, n: [g.integers(-20, 20, size=(n, 7)).astype(np.float32),
                       np.zeros(n, np.float32)],
         lambda a: {1: (a[0] + a[0] * a[0]).sum(axis=1)}),
    Case("histogram", histogram,
         lambda g, n: [g.uniform(0, 1, n).astype(np.float32), np.zeros(10, np.int32), n],
         lambda a: {1: np.bincount((a[0] * np.float32(10)).astype(np.int32), minlength=10)}),
    Case("atomic_extremes", atomic_extremes,
         lambda g, n: [g.normal(size=n).astype(np.float32), np.full(1, np.inf, np.float32),
                       np.full(1, -np.inf, np.float32)],
         lambda a: {1: a[0].min(keepdims=True), 2: a[0].max(keepdims=True)}),
]

# Kernels that need workgroups (GPU engines): rendered and run where the engine supports them.
WORKGROUP_CASES = [
    Case("block_reduce", block_reduce,
         lambda g, n: [g.normal(size=256 * n).astype(np.float32), np.zeros(1, np.float32),
                       256 * n],
         lambda a: {1: a[0].astype(np.float64).sum(keepdims=True)}, sizes=(1, 4, 33),
         rtol=1e-4, atol=1e-3),
]


def _stencil_ref(u):
    u = u.astype(np.float64)
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]) - u[1:-1, 1:-1]
    return out


def _stepped_ref(a):
    out = np.zeros_like(a[0])
    for i in range(a[1], a[2], 3):
        out[i] = i * 2 + 1
    return out


def run_case(case: Case, n: int, seed: int = 0):
    """Run a case on the current default device; returns (actual, expected) dicts."""
    rng = np.random.default_rng(seed)
    host = case.make(rng, n)
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
    case.kernel(*args)
    expected = case.expect(host)
    actual = {k: args[k].numpy() for k in expected}
    return actual, expected

"""The shared kernel corpus: every engine runs these against independent references.

Each `Case` names a kernel, builds its arguments from a seeded RNG and a size, and computes the
expected contents of the arrays the kernel writes, with NumPy in float64 or exact integers.
The Julia renderer's goldens and the CUDA engine's tests use the same cases.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import tack

# ruff: noqa: F821, PLR0124 - kernel builtins (sqrt, exp, ...) are unbound in Python; v != v is NaN
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


def host_view(arg):
    """What `expect` sees of an argument `make` built: a tack array as a NumPy copy, a
    device-class object as a namespace of its attributes (arrays copied, objects recursively)."""
    from types import SimpleNamespace

    from tack.frontend.objects import is_device_class

    if isinstance(arg, tack.Array):
        return arg.numpy().copy()
    if is_device_class(arg):
        return SimpleNamespace(**{k: host_view(v) for k, v in vars(arg).items()},
                               **{k: getattr(arg, k) for k in dir(type(arg))
                                  if not k.startswith("_") and k not in vars(arg)
                                  and isinstance(getattr(arg, k), (int, float))})
    return arg


def written(args, key):
    """The array an `expect` key names: an argument position, or (position, attribute, ...) for
    an array held by a device-class object."""
    if isinstance(key, tuple):
        obj = args[key[0]]
        for name in key[1:]:
            obj = getattr(obj, name)
        return obj.numpy()
    return args[key].numpy()


def run_case(case: Case, n: int, seed: int = 0):
    """Run a case on the current default device; returns (actual, expected) dicts. `make` may
    return NumPy arrays (made tack arrays here), tack arrays (vector/matrix arrays) and
    device-class objects holding tack arrays; `expect` sees them through `host_view`."""
    rng = np.random.default_rng(seed)
    made = case.make(rng, n)
    host = [host_view(a) for a in made]
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in made]
    case.kernel(*args)
    expected = case.expect(host)
    actual = {k: written(args, k) for k in expected}
    return actual, expected


# -- language breadth: vectors and matrices, device functions and classes, random
# numbers, textures, ndrange, tack.math, vector/matrix constants ------------------------------
from tack import math as tm
from tack import random as trandom

W3 = tack.constant((0.25, 0.5, 0.25))
ROT90 = tack.constant(((0.0, -1.0), (1.0, 0.0)))
PRIMES = tack.constant((2, 3, 5, 7), tack.i32)


@tack.kernel
def vec_geometry(a, b, out, dots, flags):
    for i in range(a.shape[0]):
        u = a[i]
        v = b[i]
        n = u.cross(v).normalized()
        d = u.dot(v)
        m = u > v
        w = tack.select(m, u, v) + n * d
        w.z = w.z + (u @ v) - d
        out[i] = w
        dots[i] = d + u.norm() * v.length()
        flags[i] = any(m) + 2 * all(u < 0.5) + 4 * m.sum()


@tack.kernel
def mat2_solve(A, rhs, x, det):
    for p in range(A.shape[0]):
        M = A[p]
        det[p] = M.determinant()
        x[p] = M.inverse() @ rhs[p] + M.transpose() @ [1.0, 2.0]


@tack.kernel
def mat3_f64(F, u, F_inv, out):
    for p in range(F.shape[0]):
        A = F[p]
        B = A @ A.transpose() + tack.Matrix.identity(3) * A.determinant()
        F_inv[p] = A.inverse()
        w = u[p]
        out[p] = B @ w + w @ A + w.outer_product(w) @ w + A[1, 2] * A.trace()


@tack.func
def _square(x):
    return x * x


@tack.func
def _sum_squares(a, b):
    return _square(a) + _square(b)  # a nested call


@tack.func
def _ordered(a, b):
    if a < b:
        return a, b  # an early tuple return
    return b, a


@tack.func
def _clip_magnitude(x, limit):
    if abs(x) <= limit:
        return x  # an early return
    return copysign(limit, x)


@tack.func
def _fill_powers(buf, x, k):
    p = 1.0
    for j in range(k):
        buf[j] = p  # writes the caller's local array
        p = p * x


@tack.kernel
def device_funcs(x, y, lo, hi, out):
    for i in range(x.shape[0]):
        a = x[i]
        b = y[i]
        small, large = _ordered(a, b)
        lo[i] = small
        hi[i] = large
        buf = tack.local_array(tack.f32, 4)
        _fill_powers(buf, _clip_magnitude(a, 1.0), 4)
        out[i] = _sum_squares(a, b) + buf[0] + buf[1] + buf[2] + buf[3]


@tack.device_class
class CellSetExplicit:
    points_per_cell = 4  # fixed topology; compile-time allocation size

    def __init__(self, connectivity, visits, weight):
        self.connectivity = connectivity  # an array parameter
        self.visits = visits  # an array the kernel writes
        self.weight = weight  # a runtime scalar

    @tack.func
    def get_cell_points(self, cell_id, pts):
        for v in range(self.points_per_cell):
            pts[v] = self.connectivity[cell_id * self.points_per_cell + v]

    @tack.func
    def visit(self, point):
        tack.atomic_add(self.visits, point, 1)


@tack.kernel
def cell_average(cs, data, out, n_cells):
    for c in range(n_cells):
        pts = tack.local_array(tack.i32, cs.points_per_cell)
        cs.get_cell_points(c, pts)      # fills pts in one call
        total = 0.0
        for v in range(cs.points_per_cell):
            total = total + data[pts[v]]
            cs.visit(pts[v])
        out[c] = cs.weight * total / float(cs.points_per_cell)


@tack.kernel
def init_particles(pos, vel, n, frame):
    for i in range(n):
        state = trandom.seed(i, frame)          # element i of this frame
        u, state = trandom.uniform(state)       # f32 in [0, 1)
        z, state = trandom.normal(state)        # standard normal
        d, state = trandom.direction3(state)    # a unit 3-vector; direction2 for 2-D
        pos[i] = d * (0.4 + 0.6 * u)
        vel[i] = d * z


@tack.kernel
def random_bits(states, us, n, frame):
    for i in range(n):
        s = trandom.seed(i, frame)
        states[i, 0] = s
        u, s = trandom.uniform(s)
        us[i, 0] = u
        states[i, 1] = s
        u, s = trandom.uniform(s)
        us[i, 1] = u
        states[i, 2] = s


@tack.func
def _probe(tex, u, v, w):
    return tex.sample(u, v, w)


@tack.kernel
def texture_sample(tex, coords, out, outf):
    for i in range(coords.shape[0]):
        c = coords[i]
        out[i] = tex.sample(c.x, c.y, c.z)
        outf[i] = _probe(tex, c.z, c.x, c.y)  # sampling inside a @tack.func


@tack.kernel
def ndrange_2d(a, out):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        out[i, j] = a[i, j] * i - j


@tack.kernel
def ndrange_3d(out, a, b):
    for i, j, k in tack.ndrange((1, a), (2, b), out.shape[2]):
        out[i, j, k] = i * 100 + j * 10 + k


@tack.kernel
def tm_helpers(x, v, w, out, out3):
    for i in range(x.shape[0]):
        a = x[i]
        out[i] = (tm.fract(a) + tm.mix(1.0, 3.0, a) + tm.clamp(a, -0.5, 0.75) + tm.saturate(a)
                  + tm.smoothstep(-1.0, 1.0, a) + tm.step(0.25, a) + tm.sign(a)
                  + tm.length(v[i]) + tm.distance(v[i], w[i]))
        out3[i] = tm.normalize(v[i]) + tm.mix(v[i], w[i], 0.25) + tm.clamp(w[i], -0.5, 0.5) \
            + tm.sign(v[i]) + tm.fract(w[i])


@tack.kernel
def vec_constants(v, k, out, outs):
    for i in range(v.shape[0]):
        p = v[i]
        out[i] = ROT90 @ p + ROT90[k[i] % 2] * W3[k[i]]
        w = W3
        primes = PRIMES
        outs[i] = W3[k[i]] + PRIMES[k[i]] + w.dot([p.x, p.y, 1.0]) + primes.sum()


# references ----------------------------------------------------------------------------------

def _vec_geometry_ref(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    c = np.cross(a, b)
    n = c / np.linalg.norm(c, axis=1, keepdims=True)
    d = (a * b).sum(1)
    m = a > b
    w = np.where(m, a, b) + n * d[:, None]
    dots = d + np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    flags = m.any(1) + 2 * (a < 0.5).all(1) + 4 * m.sum(1)
    return {2: w, 3: dots, 4: flags.astype(np.int32)}


def _mat2_ref(A, rhs):
    A, rhs = A.astype(np.float64), rhs.astype(np.float64)
    x = np.einsum("pij,pj->pi", np.linalg.inv(A), rhs) + A[:, 0, :] + 2 * A[:, 1, :]
    return {2: x, 3: np.linalg.det(A)}


def _mat3_ref(F, u):
    det = np.linalg.det(F)
    B = F @ np.transpose(F, (0, 2, 1)) + det[:, None, None] * np.eye(3)
    out = (np.einsum("pij,pj->pi", B, u) + np.einsum("pi,pij->pj", u, F)
           + u * (u * u).sum(1, keepdims=True)
           + (F[:, 1, 2] * np.trace(F, axis1=1, axis2=2))[:, None])
    return {2: np.linalg.inv(F), 3: out}


def _device_funcs_ref(x, y):
    a, b = x.astype(np.float64), y.astype(np.float64)
    c = np.clip(a, -1.0, 1.0)
    return {2: np.minimum(x, y), 3: np.maximum(x, y),
            4: a * a + b * b + 1 + c + c * c + c ** 3}


def _cell_average_ref(cs, data, n_cells):
    conn = cs.connectivity.astype(np.int64)[:4 * n_cells].reshape(n_cells, 4)
    visits = cs.visits.astype(np.int64).copy()
    np.add.at(visits, conn.ravel(), 1)
    return {2: cs.weight * data.astype(np.float64)[conn].sum(1) / 4,
            (0, "visits"): visits.astype(np.int32)}


def _pcg_advance(s: int) -> int:
    """docs/language.md, "Random numbers", in Python integers: an LCG step, then RXS-M-XS."""
    x = (s * 747796405 + 2891336453) & 0xFFFFFFFF
    w = (((x >> ((x >> 28) + 4)) ^ x) * 277803737) & 0xFFFFFFFF
    return (w >> 22) ^ w


def _random_bits_ref(n, frame):
    states = np.zeros((n, 3), np.uint32)
    us = np.zeros((n, 2), np.float32)
    for i in range(n):
        s = _pcg_advance((i & 0xFFFFFFFF) ^ _pcg_advance(frame & 0xFFFFFFFF))
        states[i, 0] = s
        for k in range(2):
            us[i, k] = (s >> 8) / 16777216.0  # exact in f32
            s = _pcg_advance(s)
            states[i, k + 1] = s
    return {0: states, 1: us}


def _init_particles_ref(n, frame):
    s = trandom.np_seed(np.arange(n), frame)
    u, s = trandom.np_uniform(s)
    z, s = trandom.np_normal(s)
    d, s = trandom.np_direction3(s)
    d = d.astype(np.float64)
    return {0: d * (0.4 + 0.6 * u.astype(np.float64))[:, None], 1: d * z[:, None]}


def _trilinear_ref(vol, u, v, w):
    """Trilinear sampling of a (D, H, W) volume, clamped to the edge, texel centres at 0 and 1."""
    D, H, W = vol.shape
    vol = vol.astype(np.float64)

    def axis(c, m):
        x = np.clip(c.astype(np.float64), 0.0, 1.0) * (m - 1)
        i0 = np.minimum(np.floor(x).astype(np.int64), m - 1)
        return i0, np.minimum(i0 + 1, m - 1), x - i0

    i0, i1, fx = axis(u, W)
    j0, j1, fy = axis(v, H)
    k0, k1, fz = axis(w, D)
    out = np.zeros(len(u))
    for kk, wz in ((k0, 1 - fz), (k1, fz)):
        for jj, wy in ((j0, 1 - fy), (j1, fy)):
            for ii, wx in ((i0, 1 - fx), (i1, fx)):
                out += wz * wy * wx * vol[kk, jj, ii]
    return out


def _texture_make(g, n):
    vol = g.normal(size=(3, 4, 5)).astype(np.float32)  # (D, H, W)
    tex = tack.texture3d(tack.array(vol.ravel()), shape=(5, 4, 3))
    coords = g.uniform(-0.25, 1.25, (n, 3)).astype(np.float32)
    return [tex, tack.array(coords, dtype=tack.vec3), np.zeros(n, np.float32),
            np.zeros(n, np.float32)]


def _texture_ref(a):
    vol = a[0].data.reshape(a[0].D, a[0].H, a[0].W)
    c = a[1]
    return {2: _trilinear_ref(vol, c[:, 0], c[:, 1], c[:, 2]),
            3: _trilinear_ref(vol, c[:, 2], c[:, 0], c[:, 1])}


def _ndrange_3d_ref(out, a, b):
    want = np.zeros_like(out)
    for i in range(1, a):
        for j in range(2, b):
            for k in range(out.shape[2]):
                want[i, j, k] = i * 100 + j * 10 + k
    return want


def _smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3 - 2 * t)


def _tm_ref(x, v, w):
    x, v, w = (t.astype(np.float64) for t in (x, v, w))
    out = (x - np.floor(x) + (1.0 * (1 - x) + 3.0 * x) + np.clip(x, -0.5, 0.75) + np.clip(x, 0, 1)
           + _smoothstep(-1.0, 1.0, x) + (x >= 0.25) + np.sign(x)
           + np.linalg.norm(v, axis=1) + np.linalg.norm(v - w, axis=1))
    out3 = (v / np.linalg.norm(v, axis=1, keepdims=True) + v * 0.75 + w * 0.25
            + np.clip(w, -0.5, 0.5) + np.sign(v) + (w - np.floor(w)))
    return {3: out, 4: out3}


def _vec_constants_ref(v, k):
    w3 = np.array([0.25, 0.5, 0.25])
    primes = np.array([2, 3, 5, 7])
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    kc = np.minimum(k, 2)  # a runtime index outside the table reads its last value
    v = v.astype(np.float64)
    out = v @ rot.T + rot[k % 2] * w3[kc][:, None]
    outs = w3[kc] + primes[np.minimum(k, 3)] + v[:, 0] * 0.25 + v[:, 1] * 0.5 + 0.25 + 17
    return {2: out, 3: outs}


def _vec3(g, n, scale=1.0):
    return tack.array((g.normal(size=(n, 3)) * scale).astype(np.float32), dtype=tack.vec3)


def _well_conditioned(g, n, k, dtype):
    return (np.eye(k) * 3.0 + g.normal(scale=0.5, size=(n, k, k))).astype(dtype)


CASES += [
    Case("vec_geometry", vec_geometry,
         lambda g, n: [_vec3(g, n), _vec3(g, n), tack.zeros(n, tack.vec3),
                       np.zeros(n, np.float32), np.zeros(n, np.int32)],
         lambda a: _vec_geometry_ref(a[0], a[1]), sizes=(1, 7, 257), rtol=1e-5, atol=1e-5),
    Case("mat2_solve", mat2_solve,
         lambda g, n: [tack.array(_well_conditioned(g, n, 2, np.float32), dtype=tack.mat2),
                       tack.array(g.normal(size=(n, 2)).astype(np.float32), dtype=tack.vec2),
                       tack.zeros(n, tack.vec2), np.zeros(n, np.float32)],
         lambda a: _mat2_ref(a[0], a[1]), sizes=(1, 7, 257), rtol=1e-5, atol=1e-5),
    Case("mat3_f64", mat3_f64,
         lambda g, n: [tack.array(_well_conditioned(g, n, 3, np.float64),
                                  dtype=tack.matrix(3, 3, tack.f64)),
                       tack.array(g.normal(size=(n, 3)), dtype=tack.vector(3, tack.f64)),
                       tack.zeros(n, tack.matrix(3, 3, tack.f64)),
                       tack.zeros(n, tack.vector(3, tack.f64))],
         lambda a: _mat3_ref(a[0], a[1]), sizes=(1, 7, 129), rtol=1e-10, atol=1e-10),
    Case("device_funcs", device_funcs,
         lambda g, n: [g.normal(scale=1.5, size=n).astype(np.float32),
                       g.normal(size=n).astype(np.float32)] + [np.zeros(n, np.float32)] * 3,
         lambda a: _device_funcs_ref(a[0], a[1]), rtol=1e-5, atol=1e-5),
    Case("cell_average", cell_average,
         lambda g, n: [CellSetExplicit(tack.array(g.integers(0, n + 3, 4 * n).astype(np.int32)),
                                       tack.array(g.integers(0, 5, n + 3).astype(np.int32)),
                                       0.5),
                       g.normal(size=n + 3).astype(np.float32), np.zeros(n, np.float32), n],
         lambda a: _cell_average_ref(a[0], a[1], a[3]), rtol=1e-6, atol=1e-6),
    Case("init_particles", init_particles,
         lambda g, n: [tack.zeros(n, tack.vec3), tack.zeros(n, tack.vec3), n, 7],
         lambda a: _init_particles_ref(a[2], a[3]), rtol=1e-5, atol=1e-5),
    Case("random_bits", random_bits,
         lambda g, n: [np.zeros((n, 3), np.uint32), np.zeros((n, 2), np.float32), n, 123456],
         lambda a: _random_bits_ref(a[2], a[3])),  # bit-exact: states and uniform
    Case("texture_sample", texture_sample, _texture_make, _texture_ref, sizes=(1, 7, 513),
         rtol=1e-5, atol=1e-5),
    Case("ndrange_2d", ndrange_2d,
         lambda g, n: [g.normal(size=(n, n + 2)).astype(np.float32),
                       np.zeros((n, n + 2), np.float32)],
         lambda a: {1: a[0].astype(np.float64) * np.arange(len(a[0]))[:, None]
                    - np.arange(a[0].shape[1])}, sizes=(1, 5, 40), rtol=1e-6, atol=1e-6),
    Case("ndrange_3d", ndrange_3d,
         lambda g, n: [np.zeros((n + 1, n + 3, 3), np.int32), n, n + 2],
         lambda a: {0: _ndrange_3d_ref(a[0], a[1], a[2])}, sizes=(1, 4, 16)),
    Case("tm_helpers", tm_helpers,
         lambda g, n: [g.normal(size=n).astype(np.float32), _vec3(g, n), _vec3(g, n, 2.0),
                       np.zeros(n, np.float32), tack.zeros(n, tack.vec3)],
         lambda a: _tm_ref(a[0], a[1], a[2]), rtol=1e-5, atol=1e-5),
    Case("vec_constants", vec_constants,
         lambda g, n: [tack.array(g.normal(size=(n, 2)).astype(np.float32), dtype=tack.vec2),
                       g.integers(0, 6, n).astype(np.int32), tack.zeros(n, tack.vec2),
                       np.zeros(n, np.float32)],
         lambda a: _vec_constants_ref(a[0], a[1]), rtol=1e-6, atol=1e-6),
]


# -- performance hints: tack.unroll (results are those of the plain loops) ---------------------
UNROLL_BY = tack.constant(2)


@tack.kernel
def unroll_hints(x, out, steps, n):
    for i in range(x.shape[0]):
        acc = 0.0
        for j in tack.unroll(range(n), 4):  # a count, a runtime trip count
            acc = acc * 0.5 + x[(i + j) % n]
        for c in tack.unroll(range(3)):  # full: a constant trip count
            acc += c * x[i]
        t = 0
        for k in tack.unroll(range(i, -1, -3), UNROLL_BY):  # a negative step, continue, break
            if k % 5 == 0:
                continue
            if t > 600:
                break
            t += k
        out[i] = acc
        steps[i] = t


def _unroll_ref(x, n):
    """acc = Σ_j x[(i + j) % n] / 2^(n-1-j) + 3·x[i]; t sums k in range(i, -1, -3) that 5 does
    not divide, stopping once above 600."""
    i, j = np.arange(len(x))[:, None], np.arange(n)[None, :]
    acc = (x.astype(np.float64)[(i + j) % n] * 0.5 ** (n - 1 - j)).sum(axis=1) + 3.0 * x
    steps = []
    for i in range(len(x)):
        t = 0
        for k in range(i, -1, -3):
            if k % 5 == 0:
                continue
            if t > 600:
                break
            t += k
        steps.append(t)
    return {1: acc, 2: np.array(steps, np.int32)}


CASES += [
    Case("unroll_hints", unroll_hints,
         lambda g, n: [_f32(g, n), np.zeros(n, np.float32), np.zeros(n, np.int32), n],
         lambda a: _unroll_ref(a[0], a[3]), rtol=1e-5, atol=1e-5),
]


# -- `for c in obj` over a device-class object that declares __tack_iterate__ ------------------
@tack.device_class
class Plate:
    """A (ny, nx) field iterated cell by cell: c[0] runs over nx (fastest), c[1] over ny."""

    __tack_iterate__ = ("nx", "ny")

    def __init__(self, temp, out):
        self.temp = temp
        self.out = out
        self.ny, self.nx = temp.shape  # instance ints: runtime sizes


@tack.kernel
def iterate_plate(p, scale):
    for c in p:
        p.out[c[1], c[0]] = p.temp[c[1], c[0]] * scale + (c.x - 2 * c.y)


def _plate_make(g, n):
    temp = tack.array(g.normal(size=(n, n + 2)).astype(np.float32))
    return [Plate(temp, tack.zeros((n, n + 2))), 0.5]


def _plate_ref(a):
    p = a[0]
    y, x = np.indices(p.temp.shape)
    return {(0, "out"): p.temp.astype(np.float64) * a[1] + (x - 2 * y)}


CASES += [
    Case("iterate_plate", iterate_plate, _plate_make, _plate_ref, sizes=(1, 7, 40),
         rtol=1e-6, atol=1e-6),
]


# -- language forms: ndrange of rank 4 and 5 (parallel and nested), unpacking before the loop,
# locals after it, conditional expressions with a scalar arm, matrix entries, returned vectors --
@tack.kernel
def ndrange_4d(a, out, sums):
    for i, j, k, m in tack.ndrange(a.shape[0], (1, a.shape[1]), a.shape[2], a.shape[3]):
        out[i, j, k, m] = a[i, j, k, m] * 2.0 + (i * 1000 + j * 100 + k * 10 + m)
        c = 0
        for p, q, r, s in tack.ndrange(i + 1, (j, 3), 2, (m, m + 2)):  # sequential, rank 4
            c += p * 1000 + q * 100 + r * 10 + s
        sums[i, j, k, m] = c


@tack.kernel
def ndrange_5d(out, stop):
    d0, d1, d2, d3, d4 = out.shape  # noqa: RUF059 - every extent, d2 unused
    for i, j, k, m, q in tack.ndrange(d0, d1, (2, stop), d3, d4):
        out[i, j, k, m, q] = i * 10000 + j * 1000 + k * 100 + m * 10 + q
    unused = stop * 2  # noqa: F841 - a local after the loop: typed, never run


@tack.func
def _spread(a):
    return tack.vec3(a, a * 2.0, a * 3.0)


@tack.kernel
def vector_forms(img, v, m, out, outv, scale):
    h, w = img.shape
    for r, c in tack.ndrange(h, w):
        x, y, z = _spread(img[r, c])  # a returned vector unpacks like a local one
        p, q, s = v[c]
        mm = m[c]
        e = mm[0, 1] + mm[r % 2, c % 2] + ROT90[0, 1] + ROT90[c % 2, r % 2]
        outv[r, c] = ((v[c] if img[r, c] > 0.0 else 0.0)
                      + (-1.0 if img[r, c] < 0.5 else v[c] * scale))
        out[r, c] = x + y * 10.0 + z * 100.0 + p + q + s + e * scale
    unused = scale * 2.0  # noqa: F841 - a local after the loop: typed, never run


def _ndrange_4d_ref(a):
    i, j, k, m = np.indices(a.shape)
    out = np.where(j >= 1, a.astype(np.float64) * 2.0 + (i * 1000 + j * 100 + k * 10 + m), 0.0)
    sums = np.zeros(a.shape, np.int32)
    for ii, jj, kk, mm in np.ndindex(a.shape):
        if jj < 1:
            continue
        sums[ii, jj, kk, mm] = sum(p * 1000 + q * 100 + r * 10 + s for p in range(ii + 1)
                                   for q in range(jj, 3) for r in range(2)
                                   for s in range(mm, mm + 2))
    return {1: out, 2: sums}


def _ndrange_5d_ref(out, stop):
    i, j, k, m, q = np.indices(out.shape)
    inside = (k >= 2) & (k < stop)
    return {0: np.where(inside, i * 10000 + j * 1000 + k * 100 + m * 10 + q, 0).astype(np.int32)}


def _vector_forms_ref(img, v, m, scale):
    img, v, m = (x.astype(np.float64) for x in (img, v, m))
    h, w = img.shape
    r, c = np.indices((h, w))
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    e = m[c, 0, 1] + m[c, r % 2, c % 2] + rot[0, 1] + rot[c % 2, r % 2]
    out = img * 321.0 + v.sum(1)[c] + e * scale
    vc, x = v[c], img[..., None]
    outv = np.where(x > 0.0, vc, 0.0) + np.where(x < 0.5, -1.0, vc * scale)
    return {3: out, 4: outv}


CASES += [
    Case("ndrange_4d", ndrange_4d,
         lambda g, n: [g.normal(size=(n, 3, 5, 7)).astype(np.float32),
                       np.zeros((n, 3, 5, 7), np.float32), np.zeros((n, 3, 5, 7), np.int32)],
         lambda a: _ndrange_4d_ref(a[0]), sizes=(1, 3, 7), rtol=1e-6, atol=1e-6),
    Case("ndrange_5d", ndrange_5d,
         lambda g, n: [np.zeros((n, 1, 7, 3, 5), np.int32), 6],
         lambda a: _ndrange_5d_ref(a[0], a[1]), sizes=(1, 2, 5)),
    Case("vector_forms", vector_forms,
         lambda g, n: [g.normal(size=(n, n + 2)).astype(np.float32),
                       tack.array(g.normal(size=(n + 2, 3)).astype(np.float32), dtype=tack.vec3),
                       tack.array(g.normal(size=(n + 2, 2, 2)).astype(np.float32),
                                  dtype=tack.mat2),
                       np.zeros((n, n + 2), np.float32), tack.zeros((n, n + 2), tack.vec3), 0.5],
         lambda a: _vector_forms_ref(a[0], a[1], a[2], a[5]), sizes=(1, 5, 33), rtol=1e-5,
         atol=1e-5),
]


@tack.kernel
def literal_exprs(a, out, top):
    """Integer expressions of literals are computed exactly (docs/language.md, "Literals")."""
    for i in range(a.shape[0]):
        out[i] = (a[i] * 2**40 + (10**12 // 7 - (1 << 33))) ^ ~(2**40)  # exact: i64 literals
        top[i] = tack.u64(a[i] & 255) + (2**64 - 256)  # the u64 literal 2**64 - 256


CASES += [
    Case("literal_exprs", literal_exprs,
         lambda g, n: [_i32(g, n, -1000, 1000), np.zeros(n, np.int64), np.zeros(n, np.uint64)],
         lambda a: {1: (a[0].astype(np.int64) * 2**40 + (10**12 // 7 - (1 << 33))) ^ ~(2**40),
                    2: (a[0] & 255).astype(np.uint64) + np.uint64(2**64 - 256)}),
]


def assert_matches(case: Case, actual: dict, expected: dict) -> None:
    """`run_case`'s results against its references: exact for integers when the case asks for
    no tolerance, else within the case's rtol/atol (NaN where NaN is expected)."""
    for k, exp in expected.items():
        got = actual[k]
        if got.dtype.kind in "iu" and case.rtol == 0 and case.atol == 0:
            np.testing.assert_array_equal(got, exp)
        else:
            np.testing.assert_allclose(got, exp, rtol=case.rtol, atol=case.atol, equal_nan=True)

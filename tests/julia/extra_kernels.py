"""Kernels that exercise what the Julia renderer must get right beyond the shared corpus: `continue`
in the parallel loop (both rewrites), integer casts and shifts by signedness, typed special float
literals, math outside its real domain (NaN, never a Julia DomainError), lazy `if`-expressions and
`and` guarding out-of-range loads (Julia's bounds checks would catch an eager arm); the old values
atomics return (integer, unsigned and the float compare-and-swap path, NaN included); and barriers
inside `for`, `while` and `if` and the library's block reductions (`barrier_shapes`, `block_stats`:
they need workgroups, so the Julia engine only).

Cases use the shared corpus's `Case`, so any engine can run them against their NumPy references.
"""
# ruff: noqa: F821, PLR0124  (Tack builtins are unbound in Python; `v != v` is the NaN test)
from __future__ import annotations

import math

import numpy as np
import tack

from tests.kernels.corpus import Case


@tack.kernel
def skip_negative(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        if v < 0.0:
            continue
        out[i] = sqrt(v)


@tack.kernel
def nested_continue(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        if v > 0.0:
            if v > 1.0:
                continue
            v = v * 2.0
        else:
            v = v - 1.0
        out[i] = v


@tack.kernel
def int_casts(a, o8, ou8, o64, ou64, of):
    for i in range(a.shape[0]):
        v = a[i]
        o8[i] = tack.i8(v)
        ou8[i] = tack.u8(v)
        o64[i] = tack.i64(tack.u8(v))
        ou64[i] = tack.u64(tack.i8(v))
        of[i] = float(v) / 3.0


@tack.kernel
def shifts(a, u, s, out_a, out_u):
    for i in range(a.shape[0]):
        out_a[i] = (a[i] >> s) ^ ~(a[i] << 3)
        out_u[i] = (u[i] >> s) | (u[i] << 1)


@tack.kernel
def float_specials(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        r = 0.0
        if v != v:
            r = -math.inf
        elif v > 3.0e38:
            r = math.inf
        elif v == 0.0:
            r = copysign(1.0e-7, v)
        else:
            r = v * 1.5e-7 + 2.5e6
        out[i] = r


@tack.kernel
def math_domain(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i, 0] = sqrt(v)
        out[i, 1] = log(v)
        out[i, 2] = log2(v)
        out[i, 3] = log10(v)
        out[i, 4] = asin(v)
        out[i, 5] = acos(v)
        out[i, 6] = sin(v)
        out[i, 7] = cos(v)
        out[i, 8] = pow(v, 0.5)
        out[i, 9] = pow(v, 3.0)


@tack.kernel
def int_misc(a, e, out):
    for i in range(a.shape[0]):
        v = a[i]
        out[i] = v ** e[i] + min(v, 7) - max(v, -7) + abs(v) + (v ^ -2147483648)


@tack.kernel
def lazy_guards(x, out, n):
    for i in range(n):
        r = x[i + 1] if i + 1 < n else -1.0
        if i + 1 < n and x[i + 1] > 0.0:
            r = r + 10.0
        out[i] = r


@tack.kernel
def atomic_returns(a, u, lo, hi, x, v, old_a, old_u, old_lo, old_hi):
    for i in range(x.shape[0]):
        old_a[i] = tack.atomic_add(a, i, 3)
        old_u[i] = tack.atomic_max(u, i, v[i])
        old_lo[i] = tack.atomic_min(lo, i, x[i])
        old_hi[i] = tack.atomic_max(hi, i, x[i])


@tack.kernel
def barrier_shapes(data, out, n):
    for i in range(n):
        sh = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        sh[tid] = data[i]
        tack.barrier()
        for level in range(8):  # a for holding a barrier
            half = 128 >> level
            if tid < half:
                sh[tid] += sh[tid + half]
            tack.barrier()
        total = sh[0]
        tack.barrier()
        rounds = 0
        while rounds < 3:  # a while whose barrier sits in an if
            if rounds != 1:
                sh[tid] = data[i] + rounds
                tack.barrier()
            rounds += 1
        if n > 256:  # an if holding a barrier (a scalar argument: uniform, as barriers need)
            w = sh[(tid + 1) % 256]
            tack.barrier()
            out[i] = w / total
        else:
            out[i] = -data[i]


@tack.kernel
def block_stats(data, sums, maxs, n):
    for i in range(n):
        s = tack.block_sum(data[i])  # library reductions: Tack code with shared memory + barriers
        m = tack.block_max(data[i])
        if tack.thread_id() == 0:
            sums[i // 256] = s
            maxs[i // 256] = m


def _f32(g, n):
    return g.normal(size=n).astype(np.float32)


def _specials_input(g, n):
    base = np.array([np.nan, 3.3e38, 0.0, -0.0, 1.0, -2.0], np.float32)
    return np.resize(np.concatenate([base, _f32(g, n)]), n)


def _specials_ref(x):
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.where(x == 0, np.copysign(np.float64(np.float32(1e-7)), x),
                       np.float32(x * np.float32(1.5e-7)) + np.float32(2.5e6))
    out = np.where(x > 3.0e38, np.inf, out)
    return np.where(np.isnan(x), -np.inf, out)


def _domain_input(g, n):
    base = np.array([-2, -0.5, 0, 0.5, 2, np.inf, -np.inf, np.nan, -1, 1], np.float32)
    return np.resize(np.concatenate([base, g.uniform(-3, 3, n).astype(np.float32)]), n)


def _c_pow_half(v):
    # C99's pow(-inf, 0.5) is +inf (Annex F.10.4.4, as math.pow and Tack's engines give);
    # NumPy's power takes a sqrt shortcut for 0.5 and gives NaN
    with np.errstate(all="ignore"):
        return np.where(v == -np.inf, np.inf, np.power(v, 0.5))


def _domain_ref(x):
    v = x.astype(np.float64)
    with np.errstate(all="ignore"):
        cols = [np.sqrt(v), np.log(v), np.log2(v), np.log10(v), np.arcsin(v), np.arccos(v),
                np.sin(v), np.cos(v), _c_pow_half(v), np.power(v, 3.0)]
    return np.stack(cols, 1)


def _int_misc_ref(a, e):
    out = []
    for v, k in zip(a.tolist(), e.tolist()):
        r = pow(v, k, 1 << 32) + min(v, 7) - max(v, -7) + abs(v) + (v ^ -2147483648)
        out.append((r + (1 << 31)) % (1 << 32) - (1 << 31))
    return np.array(out, np.int32)


def _lazy_ref(x, n):
    x = x.astype(np.float64)
    r = np.full(n, -1.0)
    r[:n - 1] = x[1:n]
    r[:n - 1] += np.where(x[1:n] > 0, 10.0, 0.0)
    return r


def _atomic_inputs(g, n):
    x, lo, hi = _f32(g, n), _f32(g, n), _f32(g, n)
    x[::5], lo[1::7], hi[2::7] = np.nan, np.nan, np.nan  # C fmin/fmax: the number wins
    return [g.integers(-2**31, 2**31 - 3, n).astype(np.int32),
            g.integers(0, 2**32, n).astype(np.uint32), lo, hi, x,
            g.integers(0, 2**32, n).astype(np.uint32), np.zeros(n, np.int32),
            np.zeros(n, np.uint32), np.zeros(n, np.float32), np.zeros(n, np.float32)]


def _fminmax(a, b, lo: bool):
    better = (a < b) if lo else (a > b)
    return np.where(better | np.isnan(b), a, b)


def _atomic_ref(a):
    return {0: a[0] + np.int32(3), 1: np.maximum(a[1], a[5]), 2: _fminmax(a[2], a[4], True),
            3: _fminmax(a[3], a[4], False), 6: a[0], 7: a[1], 8: a[2], 9: a[3]}


def _barrier_input(g, n):
    groups = g.uniform(0.1, 1.0, (n, 256)).astype(np.float32)
    groups[1::2] *= -1  # sums of either sign, never near 0
    return [groups.reshape(-1), np.zeros(256 * n, np.float32), 256 * n]


def _barrier_ref(data):
    d = data.astype(np.float64).reshape(-1, 256)
    total = d.sum(axis=1, keepdims=True)
    w = np.roll(d, -1, axis=1) + 2.0
    return (w / total if d.size > 256 else -d).reshape(-1)


def _casts_ref(a):
    return {1: a.astype(np.int8), 2: a.astype(np.uint8), 3: a.astype(np.uint8).astype(np.int64),
            4: a.astype(np.int8).astype(np.uint64),
            5: a.astype(np.float32).astype(np.float64) / 3.0}


EXTRA_CASES = [
    Case("skip_negative", skip_negative, lambda g, n: [_f32(g, n), np.full(n, 7, np.float32)],
         lambda a: {1: np.where(a[0] < 0, 7.0, np.sqrt(np.abs(a[0].astype(np.float64))))},
         rtol=2e-6, atol=1e-7),
    Case("nested_continue", nested_continue,
         lambda g, n: [(2 * _f32(g, n)), np.full(n, 7, np.float32)],
         lambda a: {1: np.where(a[0] > 1, 7.0, np.where(a[0] > 0, a[0] * 2.0, a[0] - 1.0))},
         rtol=1e-6, atol=1e-6),
    Case("int_casts", int_casts,
         lambda g, n: [g.integers(-70000, 70000, n).astype(np.int32), np.zeros(n, np.int8),
                       np.zeros(n, np.uint8), np.zeros(n, np.int64), np.zeros(n, np.uint64),
                       np.zeros(n, np.float32)],
         lambda a: _casts_ref(a[0]), rtol=1e-6),
    Case("shifts", shifts,
         lambda g, n: [g.integers(-2**31, 2**31, n).astype(np.int32),
                       g.integers(0, 2**32, n).astype(np.uint32), 5, np.zeros(n, np.int32),
                       np.zeros(n, np.uint32)],
         lambda a: {3: (a[0] >> 5) ^ ~(a[0] << np.int32(3)),
                    4: (a[1] >> np.uint32(5)) | (a[1] << np.uint32(1))}),
    Case("float_specials", float_specials, lambda g, n: [_specials_input(g, n),
                                                         np.zeros(n, np.float32)],
         lambda a: {1: _specials_ref(a[0])}, sizes=(6, 9, 100), rtol=1e-6),
    Case("math_domain", math_domain, lambda g, n: [_domain_input(g, n),
                                                   np.zeros((n, 10), np.float32)],
         lambda a: {1: _domain_ref(a[0])}, sizes=(10, 11, 100), rtol=2e-6, atol=2e-6),
    Case("int_misc", int_misc,
         lambda g, n: [g.integers(-50, 50, n).astype(np.int32),
                       g.integers(0, 9, n).astype(np.int32), np.zeros(n, np.int32)],
         lambda a: {2: _int_misc_ref(a[0], a[1])}),
    Case("lazy_guards", lazy_guards, lambda g, n: [_f32(g, n), np.zeros(n, np.float32), n],
         lambda a: {1: _lazy_ref(a[0], a[2])}, rtol=1e-6, atol=1e-6),
    Case("atomic_returns", atomic_returns, _atomic_inputs, _atomic_ref),
    Case("barrier_shapes", barrier_shapes, _barrier_input, lambda a: {1: _barrier_ref(a[0])},
         sizes=(1, 2, 5), rtol=1e-5, atol=1e-6, tags={"workgroups"}),  # 1 group: `else`
    Case("block_stats", block_stats,
         lambda g, n: [_f32(g, 256 * n), np.zeros(n, np.float32), np.zeros(n, np.float32),
                       256 * n],
         lambda a: {1: a[0].astype(np.float64).reshape(-1, 256).sum(1),
                    2: a[0].reshape(-1, 256).max(1)},
         sizes=(1, 3), rtol=1e-5, atol=1e-5, tags={"workgroups"}),
]

"""Kernels and helpers the half-precision tests share (tests/exec/test_half.py, the Julia tier's
rendering checks): the half types with their NumPy dtypes, the special values of each, bit-exact
comparison, and one kernel per operation."""
import math

import ml_dtypes
import numpy as np
import tack

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
HALVES = {"f16": (tack.f16, F16), "bf16": (tack.bf16, BF16)}


def specials(np_t) -> np.ndarray:
    """Every class of value of the half type, both signs."""
    info = ml_dtypes.finfo(np_t)
    tiny, sub = float(info.smallest_normal), float(info.smallest_subnormal)
    one_ulp = float(info.eps)
    base = [0.0, sub, 2 * sub, 3 * sub, tiny - sub, tiny, 1.0, 1.0 + one_ulp, 1.5, 2.0, 3.0,
            float(info.max), float(info.max) / 2, 1.0 / 3.0, math.pi, 100.0, 0.1,
            math.inf, math.nan]
    vals = np.array(base + [-v for v in base], np.float64).astype(np_t)
    return vals


def sample(np_t, n: int, seed: int = 0) -> np.ndarray:
    """`n` values: the specials, then random ones across the exponent range (any bit pattern)."""
    rng = np.random.default_rng(seed)
    s = specials(np_t)
    bits = rng.integers(0, 1 << 16, max(n - s.size, 0), dtype=np.uint16).view(np_t)
    return np.concatenate([s, bits])[:n]


def pairs(np_t, n_random: int = 300):
    """Every pair of special values, then random pairs: the two operand arrays."""
    s = specials(np_t)
    a, b = np.meshgrid(s, s)
    ra, rb = sample(np_t, n_random, 1)[-n_random:], sample(np_t, n_random, 2)[-n_random:]
    return np.concatenate([a.ravel(), ra]), np.concatenate([b.ravel(), rb])


def same_bits(got: np.ndarray, want: np.ndarray, what: str, zeros_equal: bool = False) -> None:
    """Equal bit patterns, a NaN matching any NaN (and, for min/max, +0 matching -0)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    g32, w32 = got.astype(np.float32), want.astype(np.float32)
    bits = got.view(np.uint16) == want.view(np.uint16)
    ok = bits | (np.isnan(g32) & np.isnan(w32))
    if zeros_equal:
        ok |= (g32 == 0) & (w32 == 0)
    bad = np.flatnonzero(~ok)
    assert not bad.size, (f"{what}: {bad.size} of {got.size} differ, e.g. at {bad[:5]}: got "
                          f"{got[bad[:5]]} want {want[bad[:5]]}")


# ---- kernels ------------------------------------------------------------------------------------
@tack.kernel
def k_add(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]


@tack.kernel
def k_sub(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] - b[i]


@tack.kernel
def k_mul(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] * b[i]


@tack.kernel
def k_div(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] / b[i]


@tack.kernel
def k_min(a, b, out):
    for i in range(out.shape[0]):
        out[i] = min(a[i], b[i])


@tack.kernel
def k_max(a, b, out):
    for i in range(out.shape[0]):
        out[i] = max(a[i], b[i])


@tack.kernel
def k_floordiv(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] // b[i]


@tack.kernel
def k_mod(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] % b[i]


@tack.kernel
def k_muladd(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] * b[i] + a[i]  # two roundings: half never fuses


@tack.kernel
def k_copysign(a, b, out):
    for i in range(out.shape[0]):
        out[i] = tack.copysign(a[i], b[i])


@tack.kernel
def k_compare(a, b, out):
    for i in range(a.shape[0]):
        x, y = a[i], b[i]
        out[i, 0] = x < y
        out[i, 1] = x <= y
        out[i, 2] = x == y
        out[i, 3] = x != y
        out[i, 4] = x > y
        out[i, 5] = x >= y
        out[i, 6] = x != x  # noqa: PLR0124 - true for NaN


@tack.kernel
def k_unary(a, out):
    for i in range(a.shape[0]):
        x = a[i]
        out[i, 0] = -x
        out[i, 1] = abs(x)
        out[i, 2] = tack.sqrt(x)
        out[i, 3] = tack.floor(x)
        out[i, 4] = tack.ceil(x)
        out[i, 5] = tack.trunc(x)
        out[i, 6] = x * 0.1  # a weak literal becomes the half type: rounded to it first
        out[i, 7] = x + 1


@tack.kernel
def k_math(a, out):
    for i in range(a.shape[0]):
        x = a[i]
        out[i, 0] = tack.exp(x)
        out[i, 1] = tack.log(x)
        out[i, 2] = tack.sin(x)
        out[i, 3] = tack.tanh(x)
        out[i, 4] = tack.exp2(x)
        out[i, 5] = tack.atan(x)


@tack.kernel
def k_convert(a, out):
    for i in range(out.shape[0]):
        out[i] = a[i]  # a store converts to the array's dtype


BINARY = {
    "add": (k_add, np.add), "sub": (k_sub, np.subtract), "mul": (k_mul, np.multiply),
    "div": (k_div, np.divide), "min": (k_min, np.fmin), "max": (k_max, np.fmax),
    "muladd": (k_muladd, lambda a, b: a * b + a), "copysign": (k_copysign, np.copysign),
    "floordiv": (k_floordiv, np.floor_divide), "mod": (k_mod, np.remainder),
}

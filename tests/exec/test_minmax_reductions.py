"""Loops that reduce with `min`/`max` (`m = max(m, x[i, j])`), on every engine of the `engine`
fixture, against a Python fold of the documented rule (docs/language.md: a NaN loses to a
number), with NaN, ±0.0 and ±inf at the first, a middle and the last position, over lengths 1,
2, primes and 1025, along rows, down columns and with a stride.

Every engine gives +0.0 for max and -0.0 for min on a tie of zeros in either order
(docs/language.md), so every bit must be the ordered fold's, the sign of a zero included; the
CPU engine carries float reductions in integer keys so that they vectorize (passes/minmax.py).
A NaN result is checked as a NaN: its payload is not specified.
"""
import math

import ml_dtypes
import numpy as np
import pytest
import tack

LENGTHS = [1, 2, 7, 31, 127, 1025]
SPECIALS = [math.nan, -0.0, 0.0, math.inf, -math.inf]


@tack.kernel
def row_max(x, out):
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            m = max(m, x[i, j])
        out[i] = m


@tack.kernel
def row_min_swapped(x, out):
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            m = min(x[i, j], m)
        out[i] = m


@tack.kernel
def row_both(x, lo, hi):
    for i in range(x.shape[0]):
        a = x[i, 0]
        b = x[i, 0]
        for j in range(x.shape[1]):
            v = x[i, j]
            a = min(a, v)
            b = max(b, v)
        lo[i] = a
        hi[i] = b


@tack.kernel
def column_max(x, out):
    for j in range(x.shape[1]):
        m = x[0, j]
        for i in range(1, x.shape[0]):
            m = max(m, x[i, j])
        out[j] = m


@tack.kernel
def strided_min(x, step, out):
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, (x.shape[1] + step - 1) // step):
            m = min(m, x[i, j * step])
        out[i] = m


def rule(op: str, a, b):
    """One step of the fold: a NaN loses; on a tie of zeros max gives +0.0 unless both are
    -0.0, min gives -0.0 unless both are +0.0 (the CPU engine's choice)."""
    if math.isnan(b):
        return a
    if math.isnan(a):
        return b
    if a == b:
        neg = (math.copysign(1, a) < 0) and (math.copysign(1, b) < 0) if op == "max" else \
            (math.copysign(1, a) < 0) or (math.copysign(1, b) < 0)
        return math.copysign(abs(a), -1.0 if neg else 1.0) if a == 0 else a
    return max(a, b) if op == "max" else min(a, b)  # distinct numbers here


def fold(op: str, xs):
    m = float(xs[0])
    for v in xs[1:]:
        m = rule(op, m, float(v))
    return m


def rows(n: int, dtype, sign: float = -1.0) -> np.ndarray:
    """Rows of length n: plain values of `sign` (so zeros are the maximum for sign -1 and the
    minimum for +1), each special at the first, a middle and the last position, ties of
    zeros, all NaN, and a NaN everywhere but one position."""
    rng = np.random.default_rng(n)
    base = sign * (1.0 + rng.random(n))
    out = [base.copy(), rng.standard_normal(n)]
    for s in SPECIALS:
        for p in sorted({0, n // 2, n - 1}):
            r = base.copy()
            r[p] = s
            out.append(r)
    for p in sorted({0, n // 2, n - 1}):
        for z, rest in ((0.0, -0.0), (-0.0, 0.0)):
            r = base.copy()
            r[rng.random(n) < 0.5] = rest
            r[p] = z
            out.append(r)
        r = np.full(n, math.nan)
        r[p] = sign
        out.append(r)
    out += [np.full(n, math.nan), np.full(n, -0.0), np.full(n, 0.0),
            np.where(np.arange(n) % 2 == 0, 0.0, -0.0), np.full(n, math.inf),
            np.where(np.arange(n) % 3 == 0, math.nan, -math.inf)]
    return np.array(out, dtype)


def check(got, want, what) -> None:
    """Every bit of `got` but a NaN's payload is `want`'s, the zeros' signs included."""
    got, want = np.asarray(got), np.asarray(want, got.dtype)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), (what, got, want)
    assert np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan])), (what, got, want)
    assert np.array_equal(got[~nan], want[~nan]), (what, got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", LENGTHS)
def test_row_reductions_match_the_fold(engine, dtype, n):
    for sign in (-1.0, 1.0):
        x = rows(n, dtype, sign)
        out = tack.zeros(len(x), tack.f32 if dtype == np.float32 else tack.f64)
        row_max(tack.array(x), out)
        check(out.numpy(), [fold("max", r) for r in x], ("max", sign))
        row_min_swapped(tack.array(x), out)
        # min(x, m): the fold's arguments in the kernel's order
        want = []
        for r in x:
            m = float(r[0])
            for v in r[1:]:
                m = rule("min", float(v), m)
            want.append(m)
        check(out.numpy(), want, ("min", sign))


@pytest.mark.parametrize("n", [1, 31, 1025])
def test_min_and_max_in_one_loop(engine, n):
    x = rows(n, np.float32, -1.0)
    lo, hi = tack.zeros(len(x)), tack.zeros(len(x))
    row_both(tack.array(x), lo, hi)
    check(lo.numpy(), [fold("min", r) for r in x], "min")
    check(hi.numpy(), [fold("max", r) for r in x], "max")


@pytest.mark.parametrize("n", [1, 7, 1025])
def test_column_and_strided_reductions(engine, n):
    x = rows(n, np.float32, 1.0)
    out = tack.zeros(x.shape[1])
    column_max(tack.array(x), out)
    check(out.numpy(), [fold("max", c) for c in x.T], "column")
    for step in (2, 3):
        out = tack.zeros(len(x))
        strided_min(tack.array(x), step, out)
        check(out.numpy(), [fold("min", r[::step]) for r in x], ("step", step))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.int8])
@pytest.mark.parametrize("n", [1, 31, 1025])
def test_integer_reductions(engine, dtype, n):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(n)
    x = rng.integers(info.min, info.max, (6, n), dtype=dtype, endpoint=True)
    x[1, -1], x[2, 0], x[3, n // 2] = info.max, info.min, info.max
    x[4] = info.min
    out = tack.array(np.zeros(6, dtype))
    row_max(tack.array(x), out)
    assert np.array_equal(out.numpy(), x.max(1))
    row_min_swapped(tack.array(x), out)
    assert np.array_equal(out.numpy(), x.min(1))


@tack.kernel
def pair_minmax(a, b, out):
    for i in range(a.shape[0]):
        out[i, 0] = max(a[i], b[i])
        out[i, 1] = min(a[i], b[i])


TACK_DTYPES = {np.float32: tack.f32, np.float64: tack.f64, np.float16: tack.f16,
               ml_dtypes.bfloat16: tack.bf16}


@pytest.mark.parametrize("dtype", list(TACK_DTYPES), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("copies", [1, 21])
def test_zero_tie_is_ordered_in_either_order(engine, dtype, copies):
    """Each pair of specials, the zeros' tie included, alone and in a launch of 1029 lanes (the
    simulator's NumPy gave either zero depending on the array's length and the lane)."""
    vals = [0.0, -0.0, 1.5, -1.5, math.nan, math.inf, -math.inf]
    pairs = [(p, q) for p in vals for q in vals] * copies
    a, b = (np.array([p[k] for p in pairs], dtype) for k in (0, 1))
    out = tack.zeros((len(pairs), 2), TACK_DTYPES[dtype])
    pair_minmax(tack.array(a), tack.array(b), out)
    got = out.numpy().astype(np.float64)
    check(got[:, 0], [rule("max", p, q) for p, q in pairs], "max")
    check(got[:, 1], [rule("min", p, q) for p, q in pairs], "min")


@tack.kernel
def with_constants(a, out):
    for i in range(a.shape[0]):
        out[i, 0] = max(a[i], 0.0)
        out[i, 1] = max(a[i], -0.0)
        out[i, 2] = min(a[i], 0.0)
        out[i, 3] = min(a[i], -0.0)
        out[i, 4] = max(0.0, a[i])
        out[i, 5] = max(-0.0, a[i])
        out[i, 6] = min(0.0, a[i])
        out[i, 7] = min(-0.0, a[i])
        out[i, 8] = max(a[i], 1.5)
        out[i, 9] = min(-1.5, a[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zero_tie_with_a_constant_zero(engine, dtype):
    """A constant operand skips the tie's code only where the select already gives it."""
    vals = [0.0, -0.0, 1.5, -1.5, math.nan, math.inf, -math.inf, 2.0]
    a = np.array(vals, dtype)
    out = tack.zeros((len(vals), 10), tack.f32 if dtype == np.float32 else tack.f64)
    with_constants(tack.array(a), out)
    got = out.numpy()
    consts = [("max", None, 0.0), ("max", None, -0.0), ("min", None, 0.0), ("min", None, -0.0),
              ("max", 0.0, None), ("max", -0.0, None), ("min", 0.0, None), ("min", -0.0, None),
              ("max", None, 1.5), ("min", -1.5, None)]
    for c, (op, left, right) in enumerate(consts):
        want = [rule(op, v if left is None else left, v if right is None else right)
                for v in vals]
        check(got[:, c], want, (op, left, right))

"""The simulator's multiply-add (runtime/sim/fma.py) is rounded once, as an FMA instruction:
against the exact a*b + c (Python fractions) rounded to the dtype, on inputs where rounding twice
(the product and sum in float64, then float32; or float64 product, then sum) differs from it."""
from fractions import Fraction

import numpy as np
import pytest
from tack.runtime.sim.fma import fma32, fma64


def _exact(a, b, c, dtype):
    """a*b + c rounded once to `dtype` (ties to even), from the exact rational value."""
    x = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if dtype is np.float64:
        return np.float64(float(x))  # float(Fraction) rounds correctly
    near = np.float32(float(x))  # may be off by one after the float64 rounding: pick the nearest
    cands = [np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf))]
    return min(cands, key=lambda v: (abs(Fraction(float(v)) - x),
                                     int(np.asarray(v).view(np.uint32)) & 1))


def _hard(dtype, n=4000, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    near = -(a.astype(np.float64) * b) * (1 + rng.choice([0, 1e-7, 1e-16, 2.0**-52], n))
    c = near.astype(dtype)
    c[::3] = (rng.standard_normal(n)[::3] * 1e-8).astype(dtype)
    if dtype is np.float32:  # exactly 1 + 2^-24 + 2^-60: float64 drops 2^-60, leaving a tie
        a[0], b[0], c[0] = 2.0**-12 + 2.0**-30, -(2.0**-12 - 2.0**-30), 1 + 2.0**-23
    return a, b, c


@pytest.mark.parametrize("dtype,fma", [(np.float32, fma32), (np.float64, fma64)])
def test_rounded_once(dtype, fma):
    a, b, c = _hard(dtype)
    got = fma(a, b, c)
    want = np.array([_exact(x, y, z, dtype) for x, y, z in zip(a, b, c)], dtype)
    np.testing.assert_array_equal(got, want)
    if dtype is np.float32:
        twice = (a.astype(np.float64) * b + c).astype(np.float32)
    else:
        twice = a * b + c
    assert (twice != want).any()  # the inputs are ones where rounding twice is wrong


def test_scalars_and_specials():
    assert fma32(np.float32(2), np.float32(3), np.float32(1)) == np.float32(7)
    assert isinstance(fma32(np.float32(2), np.float32(3), np.float32(1)), np.float32)
    assert fma64(0.1, 3.0, -0.3) == 2.7755575615628914e-17  # the exact 0.1*3 - 0.3, rounded
    x = np.array([np.inf, np.nan, 1e300, 0.0])
    got = fma64(x, np.array([1.0, 1.0, 1e300, -1.0]), np.array([1.0, 1.0, 1.0, 0.0]))
    assert np.isinf(got[0]) and np.isnan(got[1]) and np.isinf(got[2])
    assert got[3] == 0.0

"""The hyperbolic tangent of a float32, in plain Tack arithmetic so that loops calling it
vectorize (the builtin calls the C library's scalar `tanhf` once per element on the CPU). The
CPU, simulator and Julia engines take it for the builtin `tanh` on float32
(`tack.lib.builtin_math`), so they give the same bits.

Algorithm: computed in float64 and rounded to float32 once. For a = |x| (at most 10: from 9.01
on, tanh rounds to 1 in float32), E = expm1(2a) and tanh(a) = E / (E + 2), which keeps its
relative accuracy down to the smallest subnormal. expm1(y) with y = k ln2 + r, |r| <= ln2/2
(ln2 in two parts, k ln2_hi exact): expm1(r) by its Taylor series to r^11 (truncation below
2e-14 relative), then expm1(y) = 2^k expm1(r) + (2^k - 1), no cancellation for k >= 1, and
expm1(r) itself for k = 0. The truncation stays far below the 1e-4 ulp of float32 (6e-12
relative) that the result's rounding needs: terms to r^13 would cost two more float64
multiply-adds a lane (at half the float32 rate or less on GPUs) and change no result.

Accuracy (tests/ops/test_libm_f32.py, against float64 NumPy over a dense sweep and 1e6 random
points): the float32 result is the correctly rounded one but within 1e-4 ulp of a rounding
boundary: at most 0.5001 ulp. tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN gives NaN (the
argument itself).
"""
from ..dtypes import f32, f64, i64
from ..frontend.inline import func
from ..intrinsics import bitcast, select


@func
def _expm1_f64(y):
    """e^y - 1 for a float64 y in [0, 20], to about 2e-14 relative."""
    k = floor(y * 1.4426950408889634 + 0.5)  # noqa: F821 - a kernel builtin
    r = y - k * 6.93147180369123816490e-01  # fdlibm's ln2_hi: 32 bits, so k ln2_hi is exact
    r = r - k * 1.90821492927058770002e-10  # ln2_lo
    em = r * (1.0 + r * (0.5 + r * (0.16666666666666666 + r * (0.041666666666666664 + r * (
        0.008333333333333333 + r * (0.001388888888888889 + r * (0.0001984126984126984 + r * (
            2.48015873015873e-05 + r * (2.7557319223985893e-06 + r * (
                2.755731922398589e-07 + r * 2.505210838544172e-08))))))))))
    p = bitcast(i64(k + 1023.0) << 52, f64)  # 2^k
    return select(k == 0.0, em, p * em + (p - 1.0))


@func
def tanh_f32(x):
    """tanh(x) for a float32 x, within 0.5001 ulp (see the module's docstring)."""
    e = _expm1_f64(2.0 * min(f64(abs(x)), 10.0))
    v = f32(e / (e + 2.0))
    return select(x != x, x, copysign(v, x))  # noqa: F821, PLR0124 - NaN in, NaN out

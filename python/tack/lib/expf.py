"""e**x to float32 accuracy in plain Tack arithmetic, so that LLVM's loop vectorizer widens the
loops that call it: the builtin `exp` lowers to `llvm.exp`, which the CPU backend turns into one
call of the C library's scalar `expf` per element even inside a vectorized loop (about 4 ns an
element on a 2-core x86-64; this one runs 8 lanes at a time). `tack.ops` uses it in its
portable (CPU) float32 kernels; `bench/exp_vector.py` measures it.

Algorithm (Cody and Waite's range reduction): x = k ln2 + r with k = round(x / ln2), so that
|r| <= ln2 / 2, ln2 split in a part with few significant bits (k * hi is exact) and the rest;
exp(r) by a polynomial of degree 7 (the Taylor series: the truncation error r^8 / 8! is below
6e-9 relative); then exp(x) = exp(r) 2^k. 2^k is two normal powers of two built from their bits
(k = h + (k - h) with h = k >> 1, both in [-75, 64]: `bitcast((h + 127) << 23, f32)`), so
exp(r) 2^h is exact and only the last product rounds, gradual underflow included: two integer
adds, two shifts and two multiplies a lane.

Accuracy (tests/ops/test_expf.py, against float64 NumPy over every 2^-10 step of the range and
1e6 random points): at most 1 ulp of float32 from x = -103.97 (the last argument whose result
rounds to the smallest subnormal) to 88.72 (the last finite result); below, 0; above, +inf;
-inf gives 0, +inf gives +inf and NaN gives NaN. Every operation is IEEE arithmetic with the
multiply-adds the IR fixes (docs/language.md, "Integer and float rules"), so every engine gives
the same bits. For a float64 argument the arithmetic is float64 but the accuracy stays float32's:
use the builtin `exp` there.
"""
from ..dtypes import f32
from ..frontend.inline import func
from ..intrinsics import bitcast, select


@func
def _pow2(e):
    """2^e for an integer e in [-126, 127]: the float32 whose exponent field is e + 127."""
    return bitcast((e + 127) << 23, f32)


@func
def exp_f32(x):
    """e**x, within 1 ulp of float32 (see the module's docstring)."""
    t = min(max(x, -104.0), 89.0)  # beyond: 0 and +inf by the arithmetic itself
    kf = floor(t * 1.4426950408889634 + 0.5)  # noqa: F821 - a kernel builtin
    r = t - kf * 0.693359375  # ln2 = 0.693359375 - 2.12194440e-4 (+ below float32's reach)
    r = r - kf * -2.12194440054690583e-4
    p = 1.0 + r * (1.0 + r * (0.5 + r * (0.16666666666666666 + r * (
        0.041666666666666664 + r * (0.008333333333333333 + r * (
            0.001388888888888889 + r * 0.0001984126984126984))))))
    k = int(kf)  # in [-150, 128]
    h = k >> 1  # in [-75, 64], as k - h
    v = p * _pow2(h) * _pow2(k - h)
    return select(x != x, x, v)  # noqa: PLR0124 - NaN in, NaN out

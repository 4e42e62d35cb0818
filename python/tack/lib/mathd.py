"""exp, log and tanh of a float64 in plain Tack arithmetic, so that loops calling them vectorize
(the builtins become one scalar C library call per element on the CPU) and every engine that
takes the library's math computes the same bits (docs/numerics.md; `tack.lib.builtin_math`
registers them for the builtins `exp`, `log` and `tanh` of an f64).

The algorithms are fdlibm's (Sun's freely distributable libm, as FreeBSD and musl carry it:
https://git.musl-libc.org/cgit/musl/tree/src/math/exp.c, log.c in musl 1.1, expm1.c, tanh.c),
written without branches: every case is computed and the right one selected, so that a vector
lane takes any argument.

- exp: x = k ln2 + r with |r| <= ln2 / 2 (ln2 in two parts, k ln2_hi exact), exp(r) by a
  rational form of degree 5 in r^2, then 2^k applied in two exact-or-final steps (2^(k/2) twice),
  so a subnormal result is rounded once.
- log: x = 2^k m with m in [sqrt(1/2), sqrt(2)) (a subnormal x scaled by 2^54 first), f = m - 1,
  s = f / (2 + f), log(1 + f) = f - s (f - R(s^2)) with fdlibm's degree-7 polynomial R.
- tanh: through expm1 (fdlibm's, with its correction term c for the reduced argument):
  1 - 2 / (expm1(2|x|) + 2) from |x| = 1 on, -expm1(-2|x|) / (expm1(-2|x|) + 2) below; 1 from
  |x| = 22 on.

Multiply-adds fuse as the IR decides (docs/language.md), which only removes roundings from
fdlibm's arithmetic. Accuracy (tests/ops/test_libm_f64.py, against NumPy's long double over
dense sweeps, every binade, subnormals and random points; `tack.testing.bounds.MATH_ULPS`):
within 1 ulp. Special values as IEEE and the C library give them: exp(-inf) = 0,
exp(+inf) = +inf, log(+-0) = -inf, log(x < 0) = NaN, tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN in
gives the same NaN back.
"""
import math

from ..constants import constant
from ..dtypes import f64, i64
from ..frontend.inline import func
from ..intrinsics import bitcast, select

NAN = constant(math.nan, f64)
INF = constant(math.inf, f64)
LN2_HI = constant(6.93147180369123816490e-01, f64)  # 32 significant bits: k ln2_hi is exact
LN2_LO = constant(1.90821492927058770002e-10, f64)
INV_LN2 = constant(1.44269504088896338700e+00, f64)
SQRT_HALF_BITS = constant(0x3FE6A09E667F3BCD, i64)  # float64 sqrt(1/2)'s bits
ONE_MINUS_SQRT_HALF_BITS = constant(0x3FF0000000000000 - 0x3FE6A09E667F3BCD, i64)
MANTISSA = constant(0x000FFFFFFFFFFFFF, i64)


@func
def _pow2(n):
    """2^n as a float64, for an integer n in [-1022, 1023]."""
    return bitcast(i64(n + 1023) << 52, f64)


@func
def exp_f64(x):
    """e**x for a float64 x, within 1 ulp (see the module's docstring)."""
    t = min(max(x, -746.0), 710.0)  # beyond: 0 and +inf by the arithmetic itself
    kf = floor(t * INV_LN2 + 0.5)  # noqa: F821 - a kernel builtin
    hi = t - kf * LN2_HI
    lo = kf * LN2_LO
    r = hi - lo
    z = r * r
    c = r - z * (1.66666666666666019037e-01 + z * (-2.77777777770155933842e-03 + z * (
        6.61375632143793436117e-05 + z * (-1.65339022054652515390e-06
                                          + z * 4.13813679705723846039e-08))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    k = i64(kf)  # in [-1077, 1024]
    half = k >> 1
    v = y * _pow2(half) * _pow2(k - half)  # the first product exact, the second rounds once
    return select(x != x, x, v)  # noqa: PLR0124 - NaN in, NaN out


@func
def log_f64(x):
    """log(x) for a float64 x, within 1 ulp (see the module's docstring)."""
    sub = x < 2.2250738585072014e-308
    xs = select(sub, x * 18014398509481984.0, x)  # 2^54: a subnormal becomes normal
    u = bitcast(xs, i64) + ONE_MINUS_SQRT_HALF_BITS  # m >= sqrt(2) carries into k
    dk = f64((u >> 52) - 1023 - select(sub, 54, 0))
    f = bitcast((u & MANTISSA) + SQRT_HALF_BITS, f64) - 1.0
    hfsq = 0.5 * f * f
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01
                                              + w * 1.531383769920937332e-01))
    t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01 + w * (
        1.818357216161805012e-01 + w * 1.479819860511658591e-01)))
    v = s * (hfsq + (t2 + t1)) + dk * LN2_LO - hfsq + f + dk * LN2_HI
    v = select(x == INF, x, v)
    v = select(x == 0.0, -INF, v)
    return select(x < 0.0, NAN, select(x != x, x, v))  # noqa: PLR0124 - NaN in, NaN out


@func
def expm1_f64(x):
    """e**x - 1 for a float64 x in [-50, 50], within 1 ulp (fdlibm's expm1)."""
    big = abs(x) > 0.34657359027997264  # ln2 / 2: reduce
    kf = select(big, trunc(x * INV_LN2 + copysign(0.5, x)), 0.0)  # noqa: F821 - builtins
    hi = x - kf * LN2_HI
    lo = kf * LN2_LO
    xr = select(big, hi - lo, x)
    c = select(big, (hi - xr) - lo, 0.0)  # the rounding error of xr
    hfx = 0.5 * xr
    hxs = xr * hfx
    r1 = 1.0 + hxs * (-3.33333333333331316428e-02 + hxs * (1.58730158725481460165e-03 + hxs * (
        -7.93650757867487942473e-05 + hxs * (4.00821782732936239552e-06
                                             + hxs * -2.01099218183624371326e-07))))
    t = 3.0 - r1 * hfx
    e = hxs * ((r1 - t) / (6.0 - xr * t))
    at0 = xr - (xr * e - hxs)
    e = (xr * (e - c) - c) - hxs
    k = i64(kf)
    p = _pow2(k)
    far = (1.0 - (e - xr)) * p - 1.0  # k <= -2 or k > 56
    near = ((1.0 - _pow2(-k)) - (e - xr)) * p  # 2 <= k < 20
    mid = ((xr - (e + _pow2(-k))) + 1.0) * p  # 20 <= k <= 56
    v = select(k <= -2, far, select(k < 20, near, select(k <= 56, mid, far)))
    v = select(k == 1, select(xr < -0.25, -2.0 * (e - (xr + 0.5)), 1.0 + 2.0 * (xr - e)), v)
    v = select(k == -1, 0.5 * (xr - e) - 0.5, v)
    return select(k == 0, at0, v)


@func
def tanh_f64(x):
    """tanh(x) for a float64 x, within 1 ulp (see the module's docstring)."""
    a = min(abs(x), 22.0)
    one = a >= 1.0
    t = expm1_f64(select(one, 2.0 * a, -2.0 * a))
    v = select(one, 1.0 - 2.0 / (t + 2.0), -t / (t + 2.0))
    return select(x != x, x, copysign(v, x))  # noqa: F821, PLR0124 - NaN in, NaN out

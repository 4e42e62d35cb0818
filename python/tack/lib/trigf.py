"""sin and cos of a float32, in plain Tack arithmetic so that loops calling them vectorize (the
builtins' `llvm.sin`/`llvm.cos` become one scalar C library call per element on the CPU). The
CPU, simulator and Julia engines take them for the builtins `sin` and `cos` on float32
(`tack.lib.builtin_math`), so they give the same bits.

Algorithm: computed in float64 and rounded to float32 once. The argument reduction is exact
for every float32, however large (Payne and Hanek's, as fdlibm's `__kernel_rem_pio2f` does it,
https://github.com/JuliaMath/openlibm/blob/master/src/k_rem_pio2.c, with float64 products):
|x| = m 2^e with an integer m < 2^24, and 2/pi's binary fraction is cut in 24-bit chunks
C_j (exact float64 integers), so each m C_j 2^(e - 24(j+1)) is an exact float64. The chunks
whose term is a multiple of 4 are skipped (they change no quadrant), the next two are reduced
modulo 4 exactly, and the following four are added with an error-free sum (Knuth's TwoSum):
|x| 2/pi = q + f exactly to about 2^-70, q an integer and |f| <= 1/2 (a little more at worst).
Then r = f pi/2 (|r| <= pi/4) and sin r, cos r by their Taylor series to r^13 and r^16
(truncation below 3e-14); the quadrant q mod 4 picks and signs them.

Accuracy (tests/ops/test_libm_f32.py, against float64 NumPy over a dense sweep, 1e6 random
points and arguments up to 3.4e38, NumPy's own reduction being exact too): the float32 result
is the correctly rounded one but within 1e-4 ulp of a rounding boundary: at most 0.5001 ulp.
sin(+-0) = +-0, cos(+-0) = 1, +-inf give NaN, NaN gives NaN (the argument itself).
"""
import math

from ..constants import constant
from ..dtypes import f32, f64, i32, i64
from ..frontend.inline import func
from ..intrinsics import bitcast, select

NAN = constant(math.nan, f32)
INF = constant(math.inf, f32)
# 2/pi = sum of C_j 2^(-24(j+1)): 240 bits (fdlibm's `ipio2` table, the same digits)
C0, C1, C2, C3, C4 = (constant(float(c), f64) for c in (
    10680707, 7228996, 1387004, 2578385, 16069853))
C5, C6, C7, C8, C9 = (constant(float(c), f64) for c in (
    12639074, 9804092, 4427841, 16666979, 11263675))
PIO2 = constant(math.pi / 2, f64)


@func
def _chunk(j):
    """C_j for j in [0, 9]."""
    lo = select(j == 0, C0, select(j == 1, C1, select(j == 2, C2, select(j == 3, C3, C4))))
    hi = select(j == 5, C5, select(j == 6, C6, select(j == 7, C7, select(j == 8, C8, C9))))
    return select(j < 5, lo, hi)


@func
def _pow2(n):
    """2^n as a float64, for an integer n in [-1022, 1023]."""
    return bitcast(i64(n + 1023) << 52, f64)


@func
def _mod4(t):
    """t mod 4 for a float64 t >= 0: exact."""
    return t - 4.0 * floor(t * 0.25)  # noqa: F821 - a kernel builtin


@func
def _reduce(x):
    """(q, r): |x| = (q + f) pi/2 with r = f pi/2 in float64, |r| <= pi/4 (a little more at
    worst); q in [0, 16) (only q mod 4 matters)."""
    b = bitcast(x, i32) & 0x7FFFFFFF
    e = b >> 23
    m = f64(select(e == 0, b, (b & 0x7FFFFF) | 0x800000))  # |x| = m 2^s
    s = select(e == 0, -149, e - 150)
    j = max(s - 2, 0) // 24  # the first chunk whose term is not a multiple of 4
    p = _pow2(s - 24 * j - 24)
    a = _mod4(m * _chunk(j) * p)  # exact: m C_j < 2^48, and p a power of two
    a1 = _mod4(m * _chunk(j + 1) * (p * 5.9604644775390625e-08))  # p 2^-24
    t2 = m * _chunk(j + 2) * (p * 3.552713678800501e-15)  # p 2^-48: below 4
    t3 = m * _chunk(j + 3) * (p * 2.117582368135751e-22)  # p 2^-72
    t45 = (m * _chunk(j + 4) * (p * 1.2621774483536189e-29)  # p 2^-96
           + m * _chunk(j + 5) * (p * 7.52316384526264e-37))  # p 2^-120
    q = floor(a + a1 + t2 + 0.5)  # noqa: F821
    u = (a - q) + a1  # exact: both terms are multiples of 2^-46 and below 16
    v = u + t2
    bv = v - u  # TwoSum(u, t2): v + err = u + t2 exactly
    err = (u - (v - bv)) + (t2 - bv)
    f = v + (err + (t3 + t45))
    return q, f * PIO2


@func
def _sin_poly(r):
    """sin(r) for |r| <= 0.8, float64: the Taylor series to r^13."""
    z = r * r
    return r * (1.0 + z * (-0.16666666666666666 + z * (0.008333333333333333 + z * (
        -0.0001984126984126984 + z * (2.7557319223985893e-06 + z * (
            -2.505210838544172e-08 + z * 1.6059043836821613e-10))))))


@func
def _cos_poly(r):
    """cos(r) for |r| <= 0.8, float64: the Taylor series to r^16."""
    z = r * r
    return 1.0 + z * (-0.5 + z * (0.041666666666666664 + z * (-0.001388888888888889 + z * (
        2.48015873015873e-05 + z * (-2.755731922398589e-07 + z * (
            2.08767569878681e-09 + z * (-1.1470745597729725e-11 + z * 4.779477332387385e-14)))))))


@func
def _sincos(x, phase):
    """sin(x + phase pi/2) for a float32 x, phase 0 (sin) or 1 (cos)."""
    q, r = _reduce(x)
    neg = bitcast(x, i32) < 0  # the sign bit: sin(-0.0) is -0.0
    k = int(q) + select(neg, -phase, phase)  # sin(-|x|) = -sin(|x|), cos(-|x|) = cos(|x|)
    v = select((k & 1) == 0, _sin_poly(r), _cos_poly(r))
    v = select((k & 2) == 0, v, -v)
    v = select(neg, -v, v)
    return select(x != x, x, select(abs(x) == INF, NAN, f32(v)))  # noqa: PLR0124 - NaN in


@func
def sin_f32(x):
    """sin(x) for a float32 x, within 0.5001 ulp (see the module's docstring)."""
    return _sincos(x, 0)


@func
def cos_f32(x):
    """cos(x) for a float32 x, within 0.5001 ulp (see the module's docstring)."""
    return _sincos(x, 1)

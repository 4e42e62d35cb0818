"""sin and cos of a float64 in plain Tack arithmetic, so that loops calling them vectorize (the
builtins become one scalar C library call per element on the CPU) and every engine that takes
the library's math computes the same bits (docs/numerics.md; `tack.lib.builtin_math` registers
them for the builtins `sin` and `cos` of an f64).

Argument reduction, exact for every float64 however large (Payne and Hanek's, with integers):
|x| = M 2^E with an integer M < 2^53 (three 24-bit limbs), and 2/pi's binary fraction is cut in
24-bit chunks C_j (`_chunk`, computed from pi by Machin's formula; the first ten are fdlibm's
`ipio2`, https://github.com/JuliaMath/openlibm/blob/master/src/k_rem_pio2.c). The chunks whose
terms are multiples of 4 are skipped (they change no quadrant); the next nine, times M, are
multiplied out exactly as 64-bit integers in base 2^24 with their carries (`_product`): 216 bits
of |x| 2/pi below the skipped ones, the binary point at least 191 bits up, so the fraction is
exact to 2^-138, beyond what the worst float64 needs (no float64 lies closer than about 2^-61 to
a multiple of pi/2, Muller, "Elementary Functions", ch. 11). Two bits above the point give the
quadrant q; the fraction f (|f| <= 1/2, as the complement 1 - f when it is above 1/2) is read
from six limbs below the point as a double-double, times pi/2 (a double-double product: its
rounding error is one fused multiply-add) gives r = y0 + y1, |r| <= pi/4. Below pi/4, r = x.

sin r and cos r by fdlibm's kernels `__kernel_sin` and `__kernel_cos` (degree-13 and degree-14
polynomials with the tail y1, https://github.com/JuliaMath/openlibm/blob/master/src/k_sin.c,
k_cos.c); the quadrant picks and signs them. Everything is computed for every argument and
selected, without branches, so a vector lane takes any argument.

Accuracy (tests/ops/test_libm_f64.py, against NumPy's long double over dense sweeps, every
binade up to 1.8e308, arguments next to multiples of pi/2 and random points;
`tack.testing.bounds.MATH_ULPS`): within 1 ulp. sin(+-0) = +-0, cos(+-0) = 1, +-inf gives NaN,
NaN gives the same NaN back.
"""
import math

from ..constants import constant
from ..dtypes import f64, i64
from ..frontend.inline import func
from ..intrinsics import bitcast, select

NAN = constant(math.nan, f64)
INF = constant(math.inf, f64)
PIO2_HI = constant(1.5707963267948966, f64)  # pi/2 rounded, and the rest
PIO2_LO = constant(6.123233995736766e-17, f64)
MANTISSA = constant(0x000FFFFFFFFFFFFF, i64)
LIMB = constant(0xFFFFFF, i64)


@func
def _chunk(j):
    """C_j: bits 24j + 1 to 24j + 24 of 2/pi's binary fraction as an integer, for j in [0, 48]:
    a tree of selects on j's bits."""
    a0 = select((j & 1) == 0, 10680707, 7228996)
    a1 = select((j & 1) == 0, 1387004, 2578385)
    a2 = select((j & 1) == 0, 16069853, 12639074)
    a3 = select((j & 1) == 0, 9804092, 4427841)
    a4 = select((j & 1) == 0, 16666979, 11263675)
    a5 = select((j & 1) == 0, 12935607, 2387514)
    a6 = select((j & 1) == 0, 4345298, 14681673)
    a7 = select((j & 1) == 0, 3074569, 13734428)
    a8 = select((j & 1) == 0, 16653803, 1880361)
    a9 = select((j & 1) == 0, 10960616, 8533493)
    a10 = select((j & 1) == 0, 3062596, 8710556)
    a11 = select((j & 1) == 0, 7349940, 6258241)
    a12 = select((j & 1) == 0, 3772886, 3769171)
    a13 = select((j & 1) == 0, 3798172, 8675211)
    a14 = select((j & 1) == 0, 12450088, 3874808)
    a15 = select((j & 1) == 0, 9961438, 366607)
    a16 = select((j & 1) == 0, 15675153, 9132554)
    a17 = select((j & 1) == 0, 7151469, 3571407)
    a18 = select((j & 1) == 0, 2607881, 12013382)
    a19 = select((j & 1) == 0, 4155038, 6285869)
    a20 = select((j & 1) == 0, 7677882, 13102053)
    a21 = select((j & 1) == 0, 15825725, 473591)
    a22 = select((j & 1) == 0, 9065106, 15363067)
    a23 = select((j & 1) == 0, 6271263, 9264392)
    a24 = 5636912
    b0 = select((j & 2) == 0, a0, a1)
    b1 = select((j & 2) == 0, a2, a3)
    b2 = select((j & 2) == 0, a4, a5)
    b3 = select((j & 2) == 0, a6, a7)
    b4 = select((j & 2) == 0, a8, a9)
    b5 = select((j & 2) == 0, a10, a11)
    b6 = select((j & 2) == 0, a12, a13)
    b7 = select((j & 2) == 0, a14, a15)
    b8 = select((j & 2) == 0, a16, a17)
    b9 = select((j & 2) == 0, a18, a19)
    b10 = select((j & 2) == 0, a20, a21)
    b11 = select((j & 2) == 0, a22, a23)
    b12 = a24
    c0 = select((j & 4) == 0, b0, b1)
    c1 = select((j & 4) == 0, b2, b3)
    c2 = select((j & 4) == 0, b4, b5)
    c3 = select((j & 4) == 0, b6, b7)
    c4 = select((j & 4) == 0, b8, b9)
    c5 = select((j & 4) == 0, b10, b11)
    c6 = b12
    d0 = select((j & 8) == 0, c0, c1)
    d1 = select((j & 8) == 0, c2, c3)
    d2 = select((j & 8) == 0, c4, c5)
    d3 = c6
    e0 = select((j & 16) == 0, d0, d1)
    e1 = select((j & 16) == 0, d2, d3)
    f0 = select((j & 32) == 0, e0, e1)
    return f0


@func
def _sel5(kb, a, b, c, d, e):
    """The argument for kb = 7, 8, 9, 10, 11."""
    return select(kb == 7, a, select(kb == 8, b, select(kb == 9, c, select(kb == 10, d, e))))


@func
def _window(o, hi, lo):
    """The 24 bits of the limbs hi:lo that start o bits into lo."""
    return ((lo | (hi << 24)) >> o) & LIMB


@func
def _reduce(a):
    """(q, y0, y1, flip): a 2/pi = q + f with |f| <= 1/2 (a little more at worst), f pi/2 =
    +-(y0 + y1) (the minus where `flip`), for a float64 a >= pi/4 (see the module's docstring)."""
    b = bitcast(a, i64)
    ex = b >> 52
    big_m = select(ex == 0, b & MANTISSA, (b & MANTISSA) | 0x0010000000000000)  # a = M 2^E
    e = select(ex == 0, -1074, ex - 1075)
    j0 = max(0, (e - 2) // 24)  # the chunks before j0 give multiples of 4
    m0 = big_m & LIMB
    m1 = (big_m >> 24) & LIMB
    m2 = big_m >> 48
    w0 = i64(_chunk(j0 + 8))
    w1 = i64(_chunk(j0 + 7))
    w2 = i64(_chunk(j0 + 6))
    w3 = i64(_chunk(j0 + 5))
    w4 = i64(_chunk(j0 + 4))
    w5 = i64(_chunk(j0 + 3))
    w6 = i64(_chunk(j0 + 2))
    w7 = i64(_chunk(j0 + 1))
    w8 = i64(_chunk(j0))
    # the product M W in base 2^24, W = C_j0 ... C_j0+8: column sums below 2^50, then carries
    t = m0 * w0  # its low 24 bits (limb 0) lie below any window read
    t = (t >> 24) + m0 * w1 + m1 * w0
    l1 = t & LIMB
    t = (t >> 24) + m0 * w2 + m1 * w1 + m2 * w0
    l2 = t & LIMB
    t = (t >> 24) + m0 * w3 + m1 * w2 + m2 * w1
    l3 = t & LIMB
    t = (t >> 24) + m0 * w4 + m1 * w3 + m2 * w2
    l4 = t & LIMB
    t = (t >> 24) + m0 * w5 + m1 * w4 + m2 * w3
    l5 = t & LIMB
    t = (t >> 24) + m0 * w6 + m1 * w5 + m2 * w4
    l6 = t & LIMB
    t = (t >> 24) + m0 * w7 + m1 * w6 + m2 * w5
    l7 = t & LIMB
    t = (t >> 24) + m0 * w8 + m1 * w7 + m2 * w6
    l8 = t & LIMB
    t = (t >> 24) + m1 * w8 + m2 * w7
    l9 = t & LIMB
    t = (t >> 24) + m2 * w8
    l10 = t & LIMB
    l11 = t >> 24
    point = 24 * (j0 + 9) - e  # the binary point, bits up from l0's lowest: 191 to 269
    kb = point // 24
    o = point % 24
    up = _sel5(kb, l8, l9, l10, l11, 0)
    at = _sel5(kb, l7, l8, l9, l10, l11)
    f1 = _sel5(kb, l6, l7, l8, l9, l10)
    f2 = _sel5(kb, l5, l6, l7, l8, l9)
    f3 = _sel5(kb, l4, l5, l6, l7, l8)
    f4 = _sel5(kb, l3, l4, l5, l6, l7)
    f5 = _sel5(kb, l2, l3, l4, l5, l6)
    f6 = _sel5(kb, l1, l2, l3, l4, l5)
    q = ((at | (up << 24)) >> o) & 3
    g1 = _window(o, at, f1)  # the fraction's bits, 24 at a time from the point down
    flip = g1 >= 0x800000  # f >= 1/2: take 1 - f (its complement, less 2^-144) and q + 1
    g1 = select(flip, LIMB - g1, g1)
    g2 = select(flip, LIMB - _window(o, f1, f2), _window(o, f1, f2))
    g3 = select(flip, LIMB - _window(o, f2, f3), _window(o, f2, f3))
    g4 = select(flip, LIMB - _window(o, f3, f4), _window(o, f3, f4))
    g5 = select(flip, LIMB - _window(o, f4, f5), _window(o, f4, f5))
    g6 = select(flip, LIMB - _window(o, f5, f6), _window(o, f5, f6))
    d_hi = f64(g1) * 5.9604644775390625e-08 + f64(g2) * 3.552713678800501e-15  # exact
    d_mid = f64(g3) * 2.117582368135751e-22 + f64(g4) * 1.262177448353619e-29  # exact
    d_lo = f64(g5) * 7.52316384526264e-37 + f64(g6) * 4.484155085839415e-44  # exact
    s = d_hi + d_mid  # TwoSum: s + err = d_hi + d_mid exactly
    bv = s - d_hi
    err = (d_hi - (s - bv)) + (d_mid - bv) + d_lo
    h = s + err
    lo = err - (h - s)
    rh = h * PIO2_HI
    # rh's rounding error, exactly, by one fused multiply-add (written with -h: the product
    # h * PIO2_HI itself would be bound to a local by passes.cse, which keeps it unfused)
    rl = (h * PIO2_LO + lo * PIO2_HI) - ((-h) * PIO2_HI + rh)
    y0 = rh + rl
    y1 = rl - (y0 - rh)
    return q + select(flip, 1, 0), y0, y1, flip


@func
def _sin_kernel(x, y):
    """sin(x + y) for |x + y| <= pi/4 (a little more at worst), |y| tiny: fdlibm's."""
    z = x * x
    w = z * z
    r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 + z * (
        2.75573137070700676789e-06)) + z * w * (-2.50507602534068634195e-08
                                                + z * 1.58969099521155010221e-10)
    v = z * x
    return x - ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01)


@func
def _cos_kernel(x, y):
    """cos(x + y) for |x + y| <= pi/4 (a little more at worst), |y| tiny: fdlibm's."""
    z = x * x
    w = z * z
    r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * (
        2.48015872894767294178e-05))) + w * w * (-2.75573143513906633035e-07 + z * (
            2.08757232129817482790e-09 + z * -1.13596475577881948265e-11))
    hz = 0.5 * z
    u = 1.0 - hz
    return u + (((1.0 - u) - hz) + (z * r - x * y))


@func
def _sincos64(x, phase):
    """sin(x + phase pi/2) for a float64 x, phase 0 (sin) or 1 (cos)."""
    a = abs(x)
    q, y0, y1, flip = _reduce(a)
    small = a < 0.7853981633974483  # pi/4: no reduction
    y0 = select(small, a, select(flip, -y0, y0))
    y1 = select(small, 0.0, select(flip, -y1, y1))
    neg = bitcast(x, i64) < 0  # the sign bit: sin(-0.0) is -0.0
    k = select(small, 0, i64(q)) + select(neg, -phase, phase)  # sin(-a) = -sin(a), cos even
    v = select((k & 1) == 0, _sin_kernel(y0, y1), _cos_kernel(y0, y1))
    v = select((k & 2) == 0, v, -v)
    v = select(neg, -v, v)
    return select(x != x, x, select(a == INF, NAN, v))  # noqa: PLR0124 - NaN in, NaN out


@func
def sin_f64(x):
    """sin(x) for a float64 x, within 1 ulp (see the module's docstring)."""
    return _sincos64(x, 0)


@func
def cos_f64(x):
    """cos(x) for a float64 x, within 1 ulp (see the module's docstring)."""
    return _sincos64(x, 1)

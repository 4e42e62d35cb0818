"""The natural logarithm of a float32, in plain Tack arithmetic so that loops calling it
vectorize (the builtin's `llvm.log` becomes one scalar `logf` call per element on the CPU).
The CPU, simulator and Julia engines take it for the builtin `log` on float32
(`tack.lib.builtin_math`), so they give the same bits.

Algorithm: computed in float64 and rounded to float32 once. x = 2^k m with m in [sqrt(1/2),
sqrt(2)) (from the bits of float64(x), which is normal even for a subnormal float32: the
exponent field is shifted so that a mantissa above sqrt(2) carries into k, as musl's `log`
does, https://git.musl-libc.org/cgit/musl/tree/src/math/log.c); f = m - 1 is exact and
log(m) = 2 atanh(s) with s = f / (2 + f), |s| <= 0.1716, by its series to s^15 (the truncation
is below 2e-12 relative); log(x) = k ln2 + log(m).

Accuracy (tests/ops/test_libm_f32.py, against float64 NumPy over every float32 of a dense sweep
and 1e6 random points): the float64 result is within 1e-11 relative of log(x), so the float32
result is the correctly rounded one but within 1e-4 ulp of a rounding boundary: at most
0.5001 ulp. log(+0) and log(-0) are -inf, log(+inf) = +inf, a negative x and NaN give NaN (a
NaN argument itself).
"""
import math

from ..constants import constant
from ..dtypes import f32, f64, i64
from ..frontend.inline import func
from ..intrinsics import bitcast, select

NAN = constant(math.nan, f32)
INF = constant(math.inf, f32)
SQRT_HALF_BITS = constant(0x3FE6A09E667F3BCD, i64)  # float64 sqrt(1/2)'s bits
ONE_MINUS_SQRT_HALF_BITS = constant(0x3FF0000000000000 - 0x3FE6A09E667F3BCD, i64)
MANTISSA = constant(0x000FFFFFFFFFFFFF, i64)


@func
def log_f32(x):
    """log(x) for a float32 x, within 0.5001 ulp (see the module's docstring)."""
    u = bitcast(f64(x), i64) + ONE_MINUS_SQRT_HALF_BITS  # m >= sqrt(2) carries into k
    k = f64((u >> 52) - 1023)
    m = bitcast((u & MANTISSA) + SQRT_HALF_BITS, f64)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    lm = s * (2.0 + z * (0.6666666666666666 + z * (0.4 + z * (0.2857142857142857 + z * (
        0.2222222222222222 + z * (0.18181818181818182 + z * (0.15384615384615385
                                                             + z * 0.13333333333333333)))))))
    v = f32(k * 0.6931471805599453 + lm)
    v = select(x == INF, x, v)
    v = select(x == 0.0, -INF, v)
    return select(x < 0.0, NAN, select(x != x, x, v))  # noqa: PLR0124 - NaN in, NaN out

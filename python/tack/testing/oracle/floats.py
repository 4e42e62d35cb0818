"""Float arithmetic with error bounds: libm helpers and the `FloatArith` part of `Runtime`."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .errors import Rejected
from .scalars import _EPS, _FMAX, INF, ST, ulp
from .values import _PYCMP, F

LIBM_ULPS = 4  # allowed error of a transcendental function, in ulps of its result


def _libm(name: str, *xs: float) -> float:
    fn = {"exp2": lambda x: math.pow(2.0, x), "pow": math.pow}.get(name) or getattr(math, name)
    try:
        return float(fn(*xs))
    except (ValueError, OverflowError, ZeroDivisionError):
        npf = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
               "pow": np.power}.get(name) or getattr(np, name)
        return float(npf(*[np.float64(x) for x in xs]))


_EXACT1 = {"sqrt": np.sqrt, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}
_TRANS1 = ("exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "tanh")
MATH1 = frozenset(_EXACT1) | frozenset(_TRANS1)
MATH2 = frozenset({"atan2", "copysign"})


def _product_error(x, y, v) -> float:
    """|x*y - v|: the exact rounding error of the product v = fl(x*y) (0 for non-finite inputs)."""
    fx, fy, fv = float(x), float(y), float(v)
    if not (math.isfinite(fx) and math.isfinite(fy)):
        return 0.0
    if not math.isfinite(fv):
        return INF
    if type(v) is np.float32:
        return abs(fx * fy - fv)  # exact: a 48-bit product minus its rounding fits a double
    return float(abs(Fraction(fx) * Fraction(fy) - Fraction(fv)))


_EXACT_AT = {("exp", 0.0): 1.0, ("exp2", 0.0): 1.0, ("cos", 0.0): 1.0, ("cosh", 0.0): 1.0,
             ("log", 1.0): 0.0, ("log2", 1.0): 0.0, ("log10", 1.0): 0.0, ("acos", 1.0): 0.0}
_ODD_ZERO = frozenset({"sin", "tan", "atan", "asin", "sinh", "tanh"})


def _exact_libm(name: str, xs: tuple, r: float) -> bool:
    """Cases where any libm returns the exact result (so no ulp allowance is needed)."""
    x = xs[0]
    if not all(math.isfinite(z) for z in xs + (r,)):
        return False
    if name in _ODD_ZERO and x == 0.0 or _EXACT_AT.get((name, x)) == r:
        return True
    if name == "exp2" and x == int(x) and abs(x) < 1000:
        return True
    if name == "log2" and x > 0 and math.frexp(x)[0] == 0.5:
        return True
    if name == "pow":
        y = xs[1]
        if y == int(y) and 0 <= y <= 64 and x == int(x):
            return Fraction(int(x)) ** int(y) == Fraction(r)
    return False


def _spread(f, center: float, points) -> float:
    """max |f(p) - f(center)| over points, or INF when NaN-ness can change."""
    c = f(center)
    worst = 0.0
    for p in points:
        try:
            v = f(p)
        except (ValueError, OverflowError):
            return INF
        if math.isnan(v) != math.isnan(c):
            return INF
        if math.isnan(v):
            continue
        d = abs(v - c)
        if math.isnan(d):  # inf - inf
            return INF
        worst = max(worst, d)
    return worst


# -- float arithmetic with error bounds ------------------------------------------------------------
class FloatArith:
    """`Runtime`'s float operators (it supplies `domain` and `taint`)."""

    def _prop(self, v, p: float, t: ST, extra: float = 0.0) -> float:
        if p == 0 and extra == 0:
            return 0.0
        fv = float(v)
        if not (math.isfinite(p) and math.isfinite(extra) and math.isfinite(fv)):
            return INF
        e = extra
        if p:
            e += p * (1 + 4 * _EPS[t]) + ulp(abs(fv) + p, t)
        return INF if abs(fv) + e >= _FMAX[t] else e

    def fbin(self, op: str, a: F, b: F, t: ST) -> F:
        x, y = a.v, b.v
        if op in ("add", "sub"):
            v = x + y if op == "add" else x - y
            return F(v, self._prop(v, a.e + b.e, t))
        if op == "mul":
            v = x * y
            p = 0.0
            if a.e or b.e:
                p = abs(float(x)) * b.e + abs(float(y)) * a.e + a.e * b.e
            # An FMA may skip this product's rounding: allow for the rounding error it had.
            return F(v, self._prop(v, p, t, _product_error(x, y, v)))
        if op == "truediv":
            v = x / y
            if not (a.e or b.e):
                return F(v, 0.0)
            den = abs(float(y)) - b.e
            if den <= 0:
                return F(v, INF)
            return F(v, self._prop(v, (a.e + abs(float(v)) * b.e) / den, t))
        if op in ("floordiv", "mod"):
            return self.fdivmod(a, b, t, op == "floordiv")
        if op in ("min", "max"):
            return self.fminmax(a, b, op == "min")
        if op == "pow":
            return self.fmath2("pow", a, b, t)
        raise Rejected(f"operator {op} on floats")

    def fminmax(self, a: F, b: F, is_min: bool) -> F:
        x, y = a.v, b.v
        if np.isnan(x) and np.isnan(y):
            return F(x, 0.0 if not (a.e or b.e) else INF)
        if np.isnan(x):
            return F(y, INF if a.e else b.e)
        if np.isnan(y):
            return F(x, INF if b.e else a.e)
        pick_x = x < y if is_min else x > y
        if abs(float(x) - float(y)) > a.e + b.e:  # a decisive choice keeps only its own error
            return F(x, a.e) if pick_x else F(y, b.e)
        e = max(a.e, b.e)
        if x == y and np.signbit(x) != np.signbit(y):
            if not e:  # exact zeros of both signs: every engine's tie, -0.0 for min, +0.0 for max
                return F(type(x)(-0.0 if is_min else 0.0), 0.0)
            e = max(e, float(np.spacing(type(x)(0))))  # inexact: either zero may be the result
        return F(x if pick_x else y, e)

    def fdivmod(self, a: F, b: F, t: ST, floor: bool) -> F:
        x, y = a.v, b.v
        if y == 0:  # NumPy's results (docs/language.md): x / 0 for //, fmod's NaN for %
            if a.e or b.e:  # an inexact zero divisor may not be zero in the kernel
                self.domain("float // or % by an inexact zero")
                return F(t.np(0.0))
            with np.errstate(all="ignore"):
                return F(x / y if floor else np.fmod(x, y), 0.0)
        one, zero = t.np(1.0), t.np(0.0)
        mod = np.fmod(x, y)  # CPython's float_divmod, step by step at precision t
        div = (x - mod) / y
        if mod:
            if (y < 0) != (mod < 0):
                mod = mod + y
                div = div - one
        else:
            mod = np.copysign(zero, y)
        if div:
            fl = np.floor(div)
            if div - fl > t.np(0.5):
                fl = fl + one
        else:
            fl = np.copysign(zero, x / y)
        v = fl if floor else mod
        if not (a.e or b.e):
            return F(v, 0.0)
        q = float(x) / float(y)
        den = abs(float(y)) - b.e
        if den <= 0 or not math.isfinite(q):
            return F(v, INF)
        eq = (a.e + abs(q) * b.e) / den
        if not math.isfinite(eq) or not math.isfinite(q + eq):
            return F(v, INF)
        jumps = math.floor(q - eq) != math.floor(q + eq)
        if floor:
            p = (math.floor(q + eq) - math.floor(q - eq)) if jumps else 0.0
            return F(v, self._prop(v, p, t, ulp(v, t)))
        p = a.e + abs(math.floor(q)) * b.e + (abs(float(y)) + b.e if jumps else 0.0)
        return F(v, self._prop(v, p, t))

    def fmath1(self, name: str, a: F, t: ST) -> F:
        x = float(a.v)
        if name in _EXACT1:
            v = _EXACT1[name](a.v)
            if not a.e:
                return F(v, 0.0)
            return F(v, self._prop(v, _spread(lambda z: float(_EXACT1[name](np.float64(z))),
                                              x, (x - a.e, x + a.e)), t))
        v = t.np(_libm(name, x))
        exact = _exact_libm(name, (x,), float(v))
        libm = LIBM_ULPS * ulp(v, t) if math.isfinite(float(v)) and not exact else 0.0
        if not a.e:
            p = 0.0
        elif not math.isfinite(a.e):
            p = INF
        elif name in ("sin", "cos"):
            p = min(a.e, 2.0)
        elif name == "tan" and (a.e >= 1.5 or math.cos(x - a.e) * math.cos(x + a.e) <= 0):
            p = INF
        else:
            p = _spread(lambda z: _libm(name, z), x, (x - a.e, x + a.e))
        return F(v, self._prop(v, p, t, libm) if (p or libm) else 0.0)

    def fmath2(self, name: str, a: F, b: F, t: ST) -> F:
        x, y = float(a.v), float(b.v)
        if name == "copysign":
            v = np.copysign(a.v, b.v)
            if math.isnan(y):  # a NaN's sign bit is the producer's choice (outside the domain)
                return F(v, max(2 * abs(x) + a.e, float(np.spacing(type(v)(0)))))
            if b.e and (y - b.e <= 0 <= y + b.e or not math.isfinite(b.e)):
                return F(v, self._prop(v, 2 * abs(x) + a.e, t))
            return F(v, a.e)
        v = t.np(_libm(name, x, y))
        exact = _exact_libm(name, (x, y), float(v))
        libm = LIBM_ULPS * ulp(v, t) if math.isfinite(float(v)) and not exact else 0.0
        p = 0.0
        if a.e or b.e:
            if not (math.isfinite(a.e) and math.isfinite(b.e)):
                p = INF
            else:
                pts = [(x + sa * a.e, y + sb * b.e) for sa in (-1, 0, 1) for sb in (-1, 0, 1)]
                p = _spread(lambda z: _libm(name, *z), (x, y), pts)
        return F(v, self._prop(v, p, t, libm) if (p or libm) else 0.0)

    def fcmp(self, op: str, a: F, b: F) -> bool:
        x, y = float(a.v), float(b.v)
        r = _PYCMP[op](x, y)
        e = a.e + b.e
        if e and (not math.isfinite(e) or not abs(x - y) > e):
            self.taint()
        return r

"""Values the rewritten kernel computes with: floats with an error bound (`F`), weak floats."""
from __future__ import annotations

import operator

from .errors import Rejected
from .scalars import BY_NP, ST, WEAK


# -- values ----------------------------------------------------------------------------------------
class F:
    """A float of type f32/f64 (`v` is a NumPy scalar) with a bound `e` on conforming deviation."""

    __slots__ = ("e", "v")

    def __init__(self, v, e=0.0):
        self.v, self.e = v, e

    def __repr__(self):
        return f"F({self.v!r}{'' if not self.e else f' ± {self.e:.3g}'})"


class Weak:
    """A weak float: `at(t)` evaluates it at precision t. `lit` is the value of a bare literal."""

    __slots__ = ("fn", "lit")

    def __init__(self, fn, lit=None):
        self.fn, self.lit = fn, lit

    def at(self, t: ST) -> F:
        return self.fn(t)

    def __repr__(self):
        return f"Weak({self.lit!r})" if self.lit is not None else "Weak(<expr>)"


def weak_const(x: float) -> Weak:
    x = float(x)
    return Weak(lambda t: F(t.np(x), 0.0), lit=x)


def typeof(x) -> ST:
    if isinstance(x, F):
        return BY_NP[type(x.v)]
    if isinstance(x, Weak):
        return WEAK
    try:
        return BY_NP[type(x)]
    except KeyError:
        raise Rejected(f"value {x!r} of unsupported type {type(x).__name__}") from None


_PYCMP = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
          "eq": operator.eq, "ne": operator.ne}

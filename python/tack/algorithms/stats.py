"""Statistics over the leading n flat elements: var, std, norm, absmax, count_nonzero, dot,
histogram (docs/algorithms.md, "Statistics"). Each is one or two map-reduce passes (terms.py)
or array reductions; histogram bins with atomics, following NumPy's bin-edge arithmetic."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as dt
from ..arrays import Array, zeros
from ..intrinsics import atomic_add
from ..kernel import kernel
from ..lib.combine import in_dtype, isnan
from . import _views as V
from .reduce import reduce_flat
from .terms import sum_terms

__all__ = ["absmax", "count_nonzero", "dot", "histogram", "norm", "std", "var"]


def _data(name: str, data, n) -> tuple[Array, int]:
    V.need_array(name, "data", data)
    if V.scalar_dtype(data) not in V.INTEGERS + V.FLOATS:
        raise V.TackTypeError(f"{name}: data must hold numbers, got {data.dtype!r}")
    x = V.flat(data)
    V.same_device(name, x)
    return x, V.count(name, n, data=x)


def _acc(*arrays: Array):
    """f32 for f16, bf16 and f32 data, f64 for f64 or integer data (integers are exact up to
    2^53)."""
    return dt.f32 if all(a.dtype in (dt.f16, dt.bf16, dt.f32) for a in arrays) else dt.f64


def var(data: Array, n=None) -> float:
    """Population variance, Σ(x − mean)² / n, in two passes; NaN when n = 0."""
    return _var("var", data, n)


def _var(name: str, data: Array, n) -> float:
    x, n = _data(name, data, n)
    if n == 0:
        return math.nan
    acc = _acc(x)
    mean = float(reduce_flat(x, n, "sum", acc)) / n
    return float(sum_terms("deviation", x, x, n, acc, mean)) / n


def std(data: Array, n=None) -> float:
    """The square root of `var`."""
    return math.sqrt(_var("std", data, n))


def absmax(data: Array, n=None) -> float:
    """max |x| (NaN if any element is NaN); ValueError when n = 0."""
    x, n = _data("absmax", data, n)
    if n == 0:
        raise V.TackValueError("absmax of no elements: there is no identity")
    return _absmax(x, n)


def _absmax(x: Array, n: int) -> float:
    return max(abs(float(reduce_flat(x, n, "min"))), abs(float(reduce_flat(x, n, "max"))))


def norm(data: Array, ord=2, n=None) -> float:
    """ord 1: Σ|x|; ord 2: sqrt(Σx²); ord inf: max |x| (0.0 when n = 0)."""
    if ord not in (1, 2, math.inf):
        raise V.TackValueError(f"norm: ord must be 1, 2 or math.inf, got {ord!r}")
    x, n = _data("norm", data, n)
    if n == 0:
        return 0.0
    if ord == math.inf:
        return _absmax(x, n)
    s = float(sum_terms("abs" if ord == 1 else "square", x, x, n, _acc(x)))
    return s if ord == 1 else math.sqrt(s)


def count_nonzero(data: Array, n=None) -> int:
    """How many elements are not zero (-0.0 is zero, NaN is not)."""
    x, n = _data("count_nonzero", data, n)
    return int(sum_terms("nonzero", x, x, n, dt.i64)) if n else 0


def dot(a: Array, b: Array, n=None) -> float:
    """Σ a·b, terms and sums in f64 if either input is f64, else f32."""
    x, _ = _data("dot", a, None)
    y, _ = _data("dot", b, None)
    if n is None and x.size != y.size:
        raise V.TackValueError(f"dot: the arrays hold {x.size} and {y.size} elements; pass n")
    n = V.count("dot", n, a=x, b=y)
    if n == 0:
        return 0.0
    acc = dt.f64 if dt.f64 in (x.dtype, y.dtype) else dt.f32
    return float(sum_terms("product", x, y, n, acc))


@kernel
def _bin(x, edges, counts, n, lo, hi, bins):
    for j in range(n):
        v = in_dtype(edges, x[j])
        if not isnan(v):  # a NaN goes to no bin
            b = 0
            if v >= hi:
                b = bins - 1  # the last edge, and above it: the last bin
            elif v > lo:
                b = min(int((v - lo) / (hi - lo) * bins), bins - 1)  # NumPy's first guess,
                if v < edges[b]:  # then corrected against the edges as NumPy does
                    b -= 1
                elif b != bins - 1 and v >= edges[b + 1]:
                    b += 1
            atomic_add(counts, b, 1)


def _edges(x: Array, n: int, bins: int, range_) -> np.ndarray:
    """NumPy's bin edges for x[:n] (https://numpy.org/doc/stable/reference/generated/
    numpy.histogram_bin_edges.html), computed by NumPy itself from what they depend on: the
    data's dtype and, without a range, its minimum and maximum (a two-element stand-in for the
    data gives the same edges: their dtype, a one-value range widened by 0.5 in that dtype,
    the refusal of NaN, inf and of bins narrower than the dtype resolves)."""
    t = x.dtype.np
    if range_ is not None:
        try:
            pair = tuple(range_)
        except TypeError:
            pair = ()
        if len(pair) != 2 or not all(isinstance(v, (int, float, np.integer, np.floating))
                                     for v in pair):
            raise V.TackTypeError(f"histogram: range must be a pair (min, max) of real "
                                  f"numbers, got {range_!r}")
        sample = np.empty(0, t)
    elif n:
        sample = np.array([reduce_flat(x, n, "min"), reduce_flat(x, n, "max")], t)
    else:
        sample = np.empty(0, t)  # NumPy's range of no data: (0, 1)
    try:
        with np.errstate(all="ignore"):
            return np.histogram_bin_edges(sample, bins, range_)
    except ValueError as exc:  # a range that is not finite or falls, bins too narrow
        raise V.TackValueError(f"histogram: {exc}") from None


def histogram(data: Array, bins=10, range=None, n=None):
    """(counts, edges): `bins` equal bins over `range` (default: the data's min and max) as an
    i32 Tack array, and the bins+1 edges as NumPy computes them (float32 for float32 data,
    float64 otherwise). Unlike NumPy, values below the range count in the first bin and values
    above it in the last; NaN counts nowhere."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise V.TackTypeError(f"histogram: bins must be an integer, got {bins!r}")
    if not 1 <= bins < 2 ** 31:
        raise V.TackValueError(f"histogram: bins must be in [1, 2**31) (a bin number is an "
                               f"i32 in the kernel), got {bins}")
    x, n = _data("histogram", data, n)
    edges = _edges(x, n, int(bins), range)
    counts = zeros(int(bins), dt.i32, device=x.device)
    if n:
        lo, hi = edges[0], edges[-1]  # NumPy's first guess, in the edges' dtype
        _bin(x, V.Array._from_host(edges, x.device), counts, n, lo, hi, int(bins))
    return counts, edges

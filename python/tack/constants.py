"""`tack.constant(value, dtype=None)`: a named compile-time value kernels may read."""
from __future__ import annotations

from . import dtypes as dt
from .dtypes import convert
from .errors import TackTypeError


class Constant:
    """Marker base: the parser turns a free name bound to one of these into a literal."""

    __slots__ = ()


class IntConstant(int, Constant):
    @property
    def value(self):
        return int(self)

    def __repr__(self):
        return f"tack.constant({int(self)}{'' if self.dtype is None else f', {self.dtype!r}'})"


class FloatConstant(float, Constant):
    @property
    def value(self):
        return float(self)

    def __repr__(self):
        return f"tack.constant({float(self)!r}{'' if self.dtype is None else f', {self.dtype!r}'})"


class TupleConstant(tuple, Constant):
    """A vector (tuple) or matrix (tuple of tuples) constant; on the host an ordinary tuple."""

    def __repr__(self):
        return f"tack.constant({tuple(self)!r}{'' if self.dtype is None else f', {self.dtype!r}'})"

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        return np.array(tuple(self), dtype=dtype if dtype is not None else (
            self.dtype.np if self.dtype is not None else None))


def constant(value, dtype=None):
    """A typed scalar constant. Without a dtype it behaves exactly like the literal would.
    A tuple gives a vector constant, a tuple of tuples a matrix constant."""
    if isinstance(value, (tuple, list)):
        items = tuple(constant(v, dtype) if not isinstance(v, (tuple, list))
                      else TupleConstant(constant(x, dtype) for x in v) for v in value)
        if not 1 <= len(items) <= 4 or any(isinstance(x, tuple) and not 1 <= len(x) <= 4
                                           for x in items):
            raise TackTypeError("vector constants have 1 to 4 components (matrices up to 4×4)")
        for x in items:
            if isinstance(x, TupleConstant):
                x.dtype = dtype
        c = TupleConstant(items)
        c.dtype = dtype
        return c
    if dtype is not None:
        dtype = dt.as_dtype(dtype)
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        if dtype is None and dt.int_literal_dtype(value) is None:
            raise TackTypeError(f"tack.constant({value}) is outside the 64-bit integer ranges")
        c = IntConstant(convert(value, dtype) if dtype is not None and dtype.is_int else value)
        if dtype is not None and dtype.is_float:
            c = FloatConstant(convert(value, dtype))
    elif isinstance(value, float):
        c = FloatConstant(convert(value, dtype) if dtype is not None and dtype.is_float else value)
        if dtype is not None and dtype.is_int:
            c = IntConstant(convert(value, dtype))
    else:
        raise TackTypeError(f"tack.constant takes an int or a float, got {type(value).__name__}")
    c.dtype = dtype
    return c

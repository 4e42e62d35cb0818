"""`tack.constant(value, dtype=None)`: a named compile-time value kernels may read."""
from __future__ import annotations

import math

from . import dtypes as dt
from .dtypes import convert
from .errors import TackTypeError, TackValueError


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
    """A vector (tuple) or matrix (tuple of tuples) constant; on the host an ordinary tuple.
    Longer than 4 entries (or rows) it is a constant table (`is_table`): kernels index it,
    and it is emitted once as read-only data (docs/language.md, "Constants")."""

    @property
    def shape(self) -> tuple:
        return (len(self), len(self[0])) if isinstance(self[0], tuple) else (len(self),)

    @property
    def is_table(self) -> bool:
        return any(n > 4 for n in self.shape)

    def __getitem__(self, key):
        """`M[i, j]` of a matrix (or table of rows) is `M[i][j]`, on the host as in kernels
        (docs/language.md, "Constants"); any other key indexes the tuple."""
        if type(key) is not tuple:
            return tuple.__getitem__(self, key)
        if len(key) != len(self.shape):
            raise TackTypeError(f"{len(key)} indices for a constant of shape {self.shape}")
        row = tuple.__getitem__(self, key[0])
        return row[key[1]] if len(key) == 2 else row

    def __repr__(self):
        return f"tack.constant({tuple(self)!r}{'' if self.dtype is None else f', {self.dtype!r}'})"

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        return np.array(tuple(self), dtype=dtype if dtype is not None else (
            self.dtype.np if self.dtype is not None else None))


# The largest constant table (entries): it is compiled into every kernel that reads it.
MAX_TABLE = 1 << 16


def _check_value(value, dtype) -> None:
    """A value the dtype holds: an integer in range, a float with an integral value for an
    integer dtype, a finite float that stays finite (ValueError otherwise; docs/language.md,
    "Constants"). Rounding to a float dtype's precision is the ordinary conversion."""
    if dtype.is_int:
        if isinstance(value, float):
            if not math.isfinite(value) or value != math.trunc(value):
                raise TackValueError(f"tack.constant({value!r}, {dtype!r}): {dtype!r} holds "
                                     "integers only; round the value explicitly")
            value = int(value)
        if not dtype.min() <= value <= dtype.max():
            raise TackValueError(f"tack.constant({value!r}, {dtype!r}) is outside {dtype!r}'s "
                                 f"range [{dtype.min()}, {dtype.max()}]")
    elif dtype.is_float:
        finite = not isinstance(value, float) or math.isfinite(value)
        if finite and not math.isfinite(convert(value, dtype)):
            raise TackValueError(f"tack.constant({value!r}, {dtype!r}) overflows {dtype!r}")


def _items(value, dtype) -> tuple:
    """A vector's (or a matrix's rows') constants; a ragged or mixed table is a TypeError."""
    nested = [isinstance(v, (tuple, list)) for v in value]
    if any(nested) and not all(nested):
        raise TackTypeError(f"tack.constant({value!r}): a matrix constant is a tuple of rows, "
                            "each a tuple; this one mixes numbers and tuples")
    if all(nested) and value and len({len(v) for v in value}) != 1:
        raise TackTypeError(f"tack.constant({value!r}): the rows of a matrix constant must "
                            "have one length (this one is ragged)")
    for v in value:
        if all(nested) and any(isinstance(x, (tuple, list)) for x in v):
            raise TackTypeError(f"tack.constant({value!r}): constants have at most two levels "
                                "(a matrix)")
    return tuple(constant(v, dtype) if not isinstance(v, (tuple, list))
                 else TupleConstant(constant(x, dtype) for x in v) for v in value)


def constant(value, dtype=None):
    """A typed scalar constant. Without a dtype it behaves exactly like the literal would.
    A tuple gives a vector constant, a tuple of tuples a matrix constant."""
    if isinstance(value, (tuple, list)):
        items = _items(value, dtype)
        if not items or any(isinstance(x, tuple) and not x for x in items):
            raise TackTypeError(f"tack.constant({value!r}): a vector or table constant needs at "
                                "least one entry (and each row at least one)")
        total = len(items) * (len(items[0]) if isinstance(items[0], tuple) else 1)
        if total > MAX_TABLE:
            raise TackTypeError(f"tack.constant: a constant table holds at most {MAX_TABLE} "
                                f"entries, this one {total}; pass a tack.Array instead")
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
    if dtype is not None and isinstance(value, (int, float)):
        _check_value(value, dtype)
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

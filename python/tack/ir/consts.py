"""Exact conversion of Python numbers to a dtype's value: shared by the typechecker, the folder
and host-side casts, so one rule decides what a literal becomes."""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import DType


def wrap_int(value: int, dt: DType) -> int:
    """Reduce modulo 2^bits and reinterpret with the dtype's signedness."""
    bits = dt.bits
    v = int(value) & ((1 << bits) - 1)
    if dt.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def convert(value, dt: DType):
    """`value` (Python int/float/bool) as a value of `dt`, with Tack's cast rules."""
    if dt.kind == "b":
        return 1 if value else 0
    if dt.is_float:
        v = float(value)
        return float(np.float32(v)) if dt.bits == 32 else v
    if isinstance(value, float):
        if not math.isfinite(value):
            return 0  # float→int of a non-finite value is outside the portable domain
        value = math.trunc(value)
    return wrap_int(int(value), dt)

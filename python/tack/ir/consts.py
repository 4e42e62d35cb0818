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
        if dt.bits == 32 and isinstance(value, int) and abs(value) > 1 << 53:
            return _int_to_f32(value)  # through a double would round twice
        v = float(value)
        if dt.bits != 32:
            return v
        with np.errstate(over="ignore"):  # an f32 overflow is inf, as at run time
            return float(np.float32(v))
    if isinstance(value, float):
        if not math.isfinite(value):
            return 0  # float→int of a non-finite value is outside the portable domain
        value = math.trunc(value)
    return wrap_int(int(value), dt)


def _int_to_f32(value: int) -> float:
    """A Python int rounded once, to nearest even, to a 24-bit significand."""
    sign, m = (-1 if value < 0 else 1), abs(value)
    shift = m.bit_length() - 24
    q, r = divmod(m, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return float(np.float32(sign * float(q) * 2.0 ** shift))

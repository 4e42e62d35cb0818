"""Scalar types (`ST`), the contract's promotion table, wrapping and float rounding."""
from __future__ import annotations

import math

import numpy as np

from .errors import Rejected


# -- scalar types ----------------------------------------------------------------------------------
class ST:
    __slots__ = ("bits", "kind", "name", "np")

    def __init__(self, name, kind, bits, np_type):
        self.name, self.kind, self.bits, self.np = name, kind, bits, np_type

    is_int = property(lambda s: s.kind in "iu")
    is_float = property(lambda s: s.kind == "f")
    lo = property(lambda s: -(1 << (s.bits - 1)) if s.kind == "i" else 0)
    hi = property(lambda s: (1 << (s.bits - 1)) - 1 if s.kind == "i" else (1 << s.bits) - 1)

    def __repr__(self):
        return self.name


I8, U8, I16, U16 = ST("i8", "i", 8, np.int8), ST("u8", "u", 8, np.uint8), \
    ST("i16", "i", 16, np.int16), ST("u16", "u", 16, np.uint16)
I32, U32, I64, U64 = ST("i32", "i", 32, np.int32), ST("u32", "u", 32, np.uint32), \
    ST("i64", "i", 64, np.int64), ST("u64", "u", 64, np.uint64)
F32, F64 = ST("f32", "f", 32, np.float32), ST("f64", "f", 64, np.float64)
WEAK = ST("weak", "w", 0, None)
TYPES = (I8, U8, I16, U16, I32, U32, I64, U64, F32, F64)
BY_NAME = {t.name: t for t in TYPES}
BY_NP = {t.np: t for t in TYPES}
_FMAX = {F32: float(np.finfo(np.float32).max), F64: float(np.finfo(np.float64).max)}
_TINY = {F32: float(np.finfo(np.float32).tiny), F64: float(np.finfo(np.float64).tiny)}
_EPS = {F32: 2.0 ** -23, F64: 2.0 ** -52}
INF = math.inf


def literal_type(v: int) -> ST:
    for t in (I32, I64, U64):
        if t.lo <= v <= t.hi:
            return t
    raise Rejected(f"integer {v} is outside the 64-bit ranges")


def promote(a: ST, b: ST) -> ST:
    """The contract's table: the narrowest type holding both ranges; floats win; weak adapts."""
    if a is b:
        return a
    if a is WEAK:
        return b if b.is_float else WEAK
    if b is WEAK:
        return a if a.is_float else WEAK
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return a if a.bits >= b.bits else b
        return a if a.is_float else b
    if a.kind == b.kind:
        return a if a.bits >= b.bits else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if u.bits < s.bits:
        return s
    if u.bits == 64:
        raise Rejected(f"{s.name} mixed with u64 has no common type")
    return BY_NAME[f"i{2 * u.bits}"]


def wrap(v: int, t: ST):
    m = int(v) & ((1 << t.bits) - 1)
    if t.kind == "i" and m >> (t.bits - 1):
        m -= 1 << t.bits
    return t.np(m)


def int_to_float(v: int, t: ST) -> float:
    """The exact integer `v` rounded once (to nearest, ties to even) to `t`."""
    v = int(v)
    if t is F64:
        return float(v)  # CPython rounds int→float correctly
    a = abs(v)
    n = a.bit_length()
    if n > 24:
        shift = n - 24
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    return float(np.float32(float(-a if v < 0 else a)))  # exact: a has at most 24 bits


def ulp(x, t: ST) -> float:
    a = abs(float(x))
    if not math.isfinite(a):
        return INF
    a = min(a, _FMAX[t])
    return float(np.spacing(t.np(a)))

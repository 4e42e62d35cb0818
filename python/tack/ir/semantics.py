"""Op semantics on Python scalars: the executable definition that constant folding uses.

Integers wrap at their dtype's width; float results are rounded to their dtype. Only the ops the
folder needs are here; an op missing from the table is simply not folded.
"""
from __future__ import annotations

import math
import operator

from ..dtypes import DType, convert, wrap_int
from .ops import Op


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trem(a: int, b: int) -> int:
    return a - b * _tdiv(a, b)


def _shr(a: int, b: int) -> int:
    return a >> b  # Python's >> on the reinterpreted value: arithmetic for signed, logical for u


_INT = {
    Op.ADD: operator.add, Op.SUB: operator.sub, Op.MUL: operator.mul, Op.AND_: operator.and_,
    Op.OR_: operator.or_, Op.XOR: operator.xor, Op.SHL: operator.lshift, Op.SHR: _shr,
    Op.MIN: min, Op.MAX: max,
}
_CMP = {Op.LT: operator.lt, Op.LE: operator.le, Op.GT: operator.gt, Op.GE: operator.ge,
        Op.EQ: operator.eq, Op.NE: operator.ne}
_FLOAT = {Op.ADD: operator.add, Op.SUB: operator.sub, Op.MUL: operator.mul}


def evaluate(op: Op, t: DType, args: list, arg_t: DType | None):
    """The value of `op` over constant `args`, or None when it is not folded."""
    if op in _CMP:
        return int(_CMP[op](*args))
    if op is Op.NOT:
        return int(not args[0])
    if op in (Op.AND_, Op.OR_, Op.XOR) and t.kind == "b":
        return int(_INT[op](bool(args[0]), bool(args[1])))
    if op is Op.CAST:
        return convert(args[0], t)
    if op is Op.ISNAN:
        return int(math.isnan(args[0]))
    if t.is_int:
        if op in _INT:
            return wrap_int(_INT[op](*args), t)
        if op is Op.NEG:
            return wrap_int(-args[0], t)
        if op is Op.INVERT:
            return wrap_int(~args[0], t)
        if op is Op.ABS:
            return wrap_int(abs(args[0]), t)
        if op in (Op.IDIV, Op.IREM) and args[1] != 0:
            return wrap_int((_tdiv if op is Op.IDIV else _trem)(*args), t)
        if op is Op.IPOW and args[1] >= 0:
            return wrap_int(pow(args[0], args[1], 1 << t.bits), t)
        return None
    if t.is_float and op in _FLOAT:
        # Exact for f64; for f32 the double result rounds correctly (53 >= 2*24 + 2 bits).
        return convert(_FLOAT[op](*args), t)
    if t.is_float and op is Op.NEG:
        return -args[0]
    return None

"""Op semantics on Python scalars: the executable definition that constant folding uses.

Integers wrap at their dtype's width; float results are rounded to their dtype. Only the ops the
folder needs are here; an op missing from the table is simply not folded. A builtin's op folds by
its entry's `fold` (builtins/registry.py), and the simulator's NumPy function of a builtin's op is
its entry's `numpy`.
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from ..builtins.registry import lowered
from ..dtypes import DType, convert, converter, saturate_int, wrapper
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
# Builtins that declare a fold (none of the math functions does: builtins/functions.py says why).
_FOLD = {op: b for op, b in lowered("numpy").items() if b.fold is not None}


def reinterpret(v, src: DType, dst: DType):
    """The Python value whose `dst` bits are those of `v` as `src` (same width: BITCAST), or
    None for a NaN, whose payload a Python float need not keep (so it is not folded)."""
    out = np.array([v], src.np).view(dst.np)[0].item()
    return None if out != out else out  # noqa: PLR0124 - NaN


def evaluate(op: Op, t: DType, args: list, arg_t: DType | None):
    """The value of `op` over constant `args`, or None when it is not folded."""
    f = evaluator(op, t, arg_t)
    return None if f is None else f(*args)


@functools.cache  # one function per (op, dtype, operand dtype): the folder asks again and again
def evaluator(op: Op, t: DType, arg_t: DType | None):
    """`evaluate` for one (op, dtype, first operand's dtype), chosen once: a function of the
    operands (None where an operand is out of the op's domain), or None when `op` is not folded
    on `t`. For interpreters that apply one op many times."""
    if op in _CMP:
        cmp = _CMP[op]
        return lambda a, b: int(cmp(a, b))
    if op is Op.NOT:
        return lambda a: int(not a)
    if op in (Op.AND_, Op.OR_, Op.XOR) and t.kind == "b":
        logic = _INT[op]
        return lambda a, b: int(logic(bool(a), bool(b)))
    if op is Op.CAST:
        return converter(t)
    if op is Op.BITCAST:
        return lambda a: reinterpret(a, arg_t, t)
    if op is Op.ISNAN:
        return lambda a: int(math.isnan(a))
    entry = _FOLD.get(op)
    if entry is not None:
        fold, to_t = entry.fold, converter(t)
        return lambda *args: to_t(fold(*args))
    if t.is_int:
        return _int_evaluator(op, t)
    if t.is_float and op in _FLOAT:
        # Exact for f64; for f32 the double result rounds correctly (53 >= 2*24 + 2 bits).
        arith, to_t = _FLOAT[op], converter(t)
        return lambda a, b: to_t(arith(a, b))
    if t.is_float and op is Op.NEG:
        return lambda a: -a
    if t.is_float and op is Op.MULADD:
        return lambda a, b, c: _muladd(a, b, c, t)
    return None


def _int_evaluator(op: Op, t: DType):
    wrap = wrapper(t)
    if op in _INT:
        arith = _INT[op]
        return lambda a, b: wrap(arith(a, b))
    if op is Op.NEG:
        return lambda a: wrap(-a)
    if op is Op.INVERT:
        return lambda a: wrap(~a)
    if op is Op.ABS:
        return lambda a: wrap(abs(a))
    if op in (Op.IDIV, Op.IREM):
        div = _tdiv if op is Op.IDIV else _trem
        return lambda a, b: wrap(div(a, b)) if b != 0 else None
    if op is Op.IPOW:
        return lambda a, b: wrap(pow(a, b, 1 << t.bits)) if b >= 0 else None
    return None


def _muladd(a, b, c, t: DType):
    """Fused: the exact a*b + c, rounded (once for f64). Exact as one ratio of integers, whose
    true division rounds correctly."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return convert(a * b + c, t)
    (na, da), (nb, db), (nc, dc) = a.as_integer_ratio(), b.as_integer_ratio(), c.as_integer_ratio()
    num, den = na * nb * dc + nc * da * db, da * db * dc
    try:
        return convert(num / den, t)
    except OverflowError:  # finite operands, an exact result beyond f64: it rounds to ±inf
        return convert(math.inf if num > 0 else -math.inf, t)


# ---- the same ops over NumPy arrays: the simulator's table (tack.runtime.sim) ----------------
# Every function takes operands already of the op's dtype (NumPy arrays or NumPy scalars) and
# returns a value of that dtype; integer arithmetic wraps because NumPy's fixed-width arrays do.
# Where a rule needs more than the NumPy ufunc (truncating division, the min/max NaN rule,
# integer power), it is written once here; tests/sim/test_semantics.py checks this table against
# `evaluate` above on every op both define.

def np_tdiv(a, b):
    """Integer division truncating toward zero (NumPy's // floors)."""
    q = np.floor_divide(a, b)
    if np.dtype(q.dtype).kind == "u":
        return q
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


def np_trem(a, b):
    return a - b * np_tdiv(a, b)


def np_ipow(base, exp):
    """Integer power by squaring, wrapping at the base's width (exp >= 0, any integer dtype)."""
    base = np.asarray(base)
    exp = np.broadcast_to(np.asarray(exp).astype(np.uint64), np.broadcast(base, exp).shape)
    out = np.ones(exp.shape, base.dtype)
    b = np.broadcast_to(base, exp.shape).copy()
    e = exp.copy()
    while e.any():
        odd = (e & np.uint64(1)).astype(bool)
        out = np.where(odd, out * b, out)
        b = b * b
        e = e >> np.uint64(1)
    return out


def _minmax(ints, floats, tie):
    """Integer min/max as NumPy's; float min/max as C's fmin/fmax (a NaN loses to a number)
    with the tie of +0.0 and -0.0 decided on every engine: +0.0 for max and -0.0 for min in
    either order (docs/language.md). NumPy leaves that tie open: its fmax of +0.0 and -0.0
    gives either zero, and which one depends on the array's length and the element's place
    (its vector loops and scalar tail differ)."""
    def f(a, b):
        dt = np.result_type(a, b)
        if dt.kind in "iub":  # (bfloat16's kind is "V": no ml_dtypes import, which costs ~1 s)
            return ints(a, b)
        picked = floats(a, b)
        zeros = (a == 0) & (b == 0)
        if not np.any(zeros):
            return picked
        return np.asarray(np.where(zeros, tie(a, b), picked), picked.dtype)[()]
    return f


def _max_tie(a, b):
    return a + b  # of two zeros, -0.0 only when both are


def _min_tie(a, b):
    return -((-a) + (-b))  # of two zeros, +0.0 only when both are


NUMPY = {
    Op.NEG: np.negative, Op.ADD: np.add, Op.SUB: np.subtract, Op.MUL: np.multiply,
    Op.FDIV: np.divide, Op.IDIV: np_tdiv, Op.IREM: np_trem, Op.FREM: np.fmod, Op.IPOW: np_ipow,
    Op.MIN: _minmax(np.minimum, np.fmin, _min_tie), Op.MAX: _minmax(np.maximum, np.fmax, _max_tie),
    Op.ABS: np.abs, Op.AND_: np.bitwise_and, Op.OR_: np.bitwise_or, Op.XOR: np.bitwise_xor,
    Op.SHL: np.left_shift, Op.SHR: np.right_shift, Op.INVERT: np.invert,
    Op.ISNAN: np.isnan,
    **{op: b.numpy for op, b in lowered("numpy").items()},  # the math functions and pow
    Op.LT: np.less, Op.LE: np.less_equal, Op.GT: np.greater, Op.GE: np.greater_equal,
    Op.EQ: np.equal, Op.NE: np.not_equal, Op.NOT: np.logical_not,
}
BOOL_BITWISE = {Op.AND_: np.logical_and, Op.OR_: np.logical_or, Op.XOR: np.logical_xor}


def np_cast(x, t: DType, src: DType):
    """CAST to `t` (ops.py): NumPy's conversions truncate or extend by the source's signedness,
    round int→float to nearest; float→int truncates and saturates (`dtypes.saturate_int`);
    `!= 0` to bool."""
    if t.kind == "b":
        return np.not_equal(x, 0)
    if t.is_int and src.is_float:
        return saturate_int(x, t)
    return np.asarray(x).astype(t.np) if np.ndim(x) else t.np.type(x)


def np_bitcast(x, t: DType, src: DType):
    """BITCAST to `t`: the same bits, NumPy's `view` (NaN payloads kept)."""
    out = np.asarray(x, src.np).view(t.np)
    return out if np.ndim(x) else out[()]


def np_evaluate(op: Op, t: DType, args: list):
    """`op` over NumPy operands (of the op's operand dtype), or KeyError when not in the table."""
    if t.kind == "b" and op in BOOL_BITWISE:
        return BOOL_BITWISE[op](*args)
    return NUMPY[op](*args)

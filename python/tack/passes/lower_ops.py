"""Python's `//` and `%`, shift counts, small integer powers and safe integer division.

Decided here once, as IR, so every renderer spells only plain target ops.
"""
from __future__ import annotations

from ..ir.nodes import Expr
from ..ir.ops import Op
from ..ir.walk import map_body
from .build import B


def lower_ops(body, fastmath: bool = False):
    def lower(e: Expr) -> Expr:
        if e.op is Op.RSQRT and not fastmath:  # exactly 1/sqrt(x), two rounded operations
            k = B(e.loc)
            return k.bin(Op.FDIV, k.const(1.0, e.dtype), k.op(Op.SQRT, e.dtype, e.args[0]))
        return _lower(e)

    return map_body(body, lower)


def _lower(e: Expr) -> Expr:
    op = e.op
    if op in (Op.FLOORDIV, Op.MOD):
        a, b = e.args
        if e.dtype.is_float:
            return _float_divmod(e, a, b, op is Op.FLOORDIV)
        return _int_divmod(e, a, b, op is Op.FLOORDIV)
    if op in (Op.SHL, Op.SHR):
        a, c = e.args
        k = B(e.loc)
        return e.replace(args=(a, k.bin(Op.AND_, c, k.const(e.dtype.bits - 1, c.dtype))))
    if op is Op.IPOW:
        return _ipow_const(e)
    return e


def _int_divmod(e: Expr, a: Expr, b: Expr, floor: bool) -> Expr:
    """Python integer // and %: round toward -inf, remainder takes the divisor's sign.

    x // 0 and x % 0 give 0 (outside the portable domain, but never a trap); MIN // -1 wraps.
    """
    k = B(e.loc)
    t = e.dtype
    zero, one = k.const(0, t), k.const(1, t)
    b_zero = k.cmp(Op.EQ, b, zero)
    if not t.is_signed:
        safe = k.sel(b_zero, one, b)
        r = k.bin(Op.IDIV if floor else Op.IREM, a, safe)
        return k.sel(b_zero, zero, r)
    b_m1 = k.cmp(Op.EQ, b, k.const(-1, t))
    safe = k.sel(k.either(b_zero, b_m1), one, b)
    q, r = k.bin(Op.IDIV, a, safe), k.bin(Op.IREM, a, safe)
    fix = k.both(k.cmp(Op.NE, r, zero), k.cmp(Op.NE, k.cmp(Op.LT, r, zero), k.cmp(Op.LT, b, zero)))
    if floor:
        res = k.sel(fix, k.bin(Op.SUB, q, one), q)
        return k.sel(b_m1, k.op(Op.NEG, t, a), k.sel(b_zero, zero, res))
    res = k.sel(fix, k.bin(Op.ADD, r, b), r)
    return k.sel(k.either(b_zero, b_m1), zero, res)


def _float_divmod(e: Expr, a: Expr, b: Expr, floor: bool) -> Expr:
    """CPython's float_divmod: fmod corrected to the divisor's sign, quotient snapped. Where
    CPython raises ZeroDivisionError (b == ±0), NumPy's rule: `a // b` is `a / b` (±inf, or NaN
    for 0 and NaN dividends) and `a % b` is fmod's NaN."""
    k = B(e.loc)
    t = e.dtype
    zero, one, half = k.const(0.0, t), k.const(1.0, t), k.const(0.5, t)
    m0 = k.bin(Op.FREM, a, b)
    m_nz = k.cmp(Op.NE, m0, zero)
    adj = k.both(m_nz, k.cmp(Op.NE, k.cmp(Op.LT, b, zero), k.cmp(Op.LT, m0, zero)))
    if not floor:
        return k.sel(m_nz, k.sel(adj, k.bin(Op.ADD, m0, b), m0), k.bin(Op.COPYSIGN, zero, b))
    div0 = k.bin(Op.FDIV, k.bin(Op.SUB, a, m0), b)
    div = k.sel(adj, k.bin(Op.SUB, div0, one), div0)
    fl = k.op(Op.FLOOR, t, div)
    snapped = k.sel(k.cmp(Op.GT, k.bin(Op.SUB, div, fl), half), k.bin(Op.ADD, fl, one), fl)
    quotient = k.sel(k.cmp(Op.NE, div, zero), snapped,
                     k.bin(Op.COPYSIGN, zero, k.bin(Op.FDIV, a, b)))
    return k.sel(k.cmp(Op.EQ, b, zero), k.bin(Op.FDIV, a, b), quotient)


def _ipow_const(e: Expr) -> Expr:
    """`x ** k` for a literal k <= 16 and a simple base: multiplications by squaring."""
    base, ex = e.args
    if ex.op is not Op.CONST or ex.arg > 16 or base.op not in (Op.VAR, Op.PARAM, Op.CONST):
        return e
    k = B(e.loc)
    n = ex.arg
    result = k.const(1, e.dtype)
    sq = base
    first = True
    while n:
        if n & 1:
            result = sq if first else k.bin(Op.MUL, result, sq)
            first = False
        n >>= 1
        if n:
            sq = k.bin(Op.MUL, sq, sq)
    return result

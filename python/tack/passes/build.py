"""Small typed-IR constructors used by the passes (so each pass reads like the rule it encodes)."""
from __future__ import annotations

from .. import dtypes as dt
from ..dtypes import DType, convert
from ..ir.nodes import Expr, Loc
from ..ir.ops import Op


class B:
    """Builds typed expressions at one location."""

    def __init__(self, loc: Loc):
        self.loc = loc

    def const(self, value, t: DType) -> Expr:
        return Expr(Op.CONST, t, (), convert(value, t), self.loc)

    def op(self, op: Op, t: DType, *args: Expr) -> Expr:
        return Expr(op, t, args, None, self.loc)

    def bin(self, op: Op, a: Expr, b: Expr) -> Expr:
        return Expr(op, a.dtype, (a, b), None, self.loc)

    def cmp(self, op: Op, a: Expr, b: Expr) -> Expr:
        return Expr(op, dt.bool_, (a, b), None, self.loc)

    def sel(self, c: Expr, a: Expr, b: Expr) -> Expr:
        return Expr(Op.SELECT, a.dtype, (c, a, b), None, self.loc)

    def both(self, a: Expr, b: Expr) -> Expr:
        return Expr(Op.AND_, dt.bool_, (a, b), None, self.loc)

    def either(self, a: Expr, b: Expr) -> Expr:
        return Expr(Op.OR_, dt.bool_, (a, b), None, self.loc)

    def cast(self, e: Expr, t: DType) -> Expr:
        if e.dtype is t:
            return e
        if e.op is Op.CONST:
            return self.const(e.arg, t)
        return Expr(Op.CAST, t, (e,), None, self.loc)

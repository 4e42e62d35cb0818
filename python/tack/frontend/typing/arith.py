"""Typing rules of the arithmetic operators: `+ - * / // % **`, min/max, bitwise ops, shifts,
unary minus, `~`, abs and the math functions.

Operands promote (`frontend/promotion.py`); `/` of two integers is f32; `**` of two integers
keeps the base's type and rejects a negative literal exponent; math functions of integers are f32.
See docs/language.md, "Integer and float rules" and "Builtins".
"""
from __future__ import annotations

from ... import dtypes as dt
from ...ir.nodes import Expr
from ...ir.ops import Op


class ArithRules:
    """Mixed into the TypeChecker (`frontend/typecheck.py`); `frontend/typing/rules.py` maps ops here."""

    def arith(self, e: Expr) -> Expr:
        """`+ - * // %`, min, max: both operands promoted to one type."""
        a, b = (self.numeric(self.expr(x)) for x in e.args)
        t = self._promote_e(a, b, e)
        return Expr(e.op, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def truediv(self, e: Expr) -> Expr:
        a, b = (self.numeric(self.expr(x)) for x in e.args)
        if a.dtype.is_int and b.dtype.is_int:
            t = dt.f32
        else:
            t = self._promote_e(a, b, e)
        return Expr(Op.FDIV, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def power(self, e: Expr) -> Expr:
        a, b = (self.numeric(self.expr(x)) for x in e.args)
        if a.dtype.is_int and b.dtype.is_int:
            if b.op is Op.CONST and b.arg < 0:
                raise self.type_error(b, "negative integer exponent",
                                      "an integer power needs an exponent >= 0; use a float base")
            return Expr(Op.IPOW, a.dtype, (a, b), None, e.loc)
        t = self._promote_e(a, b, e)
        if b.op is Op.CONST and b.arg == 2 and b.dtype.is_int:
            a = self.coerce(a, t)
            return Expr(Op.MUL, t, (a, a), None, e.loc)  # x**2 is exactly x*x
        return Expr(Op.POW, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def bitwise(self, e: Expr) -> Expr:
        """`& | ^` of integers, promoted to one type."""
        a, b = (self.integer(self.expr(x), e.op.name.lower()) for x in e.args)
        t = self._promote(a.dtype, b.dtype, e)
        return Expr(e.op, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def shift(self, e: Expr) -> Expr:
        """`<< >>`: the left operand's type; the count is cast to it."""
        a = self.integer(self.expr(e.args[0]), "shift")
        b = self.integer(self.expr(e.args[1]), "shift")
        return Expr(e.op, a.dtype, (a, self.coerce(b, a.dtype, explicit=True)), None, e.loc)

    def same_type(self, e: Expr) -> Expr:
        """Unary minus and abs keep their operand's type."""
        a = self.numeric(self.expr(e.args[0]))
        return Expr(e.op, a.dtype, (a,), None, e.loc)

    def invert(self, e: Expr) -> Expr:
        a = self.integer(self.expr(e.args[0]), "~")
        return Expr(Op.INVERT, a.dtype, (a,), None, e.loc)

    def math_unary(self, e: Expr) -> Expr:
        a = self.floating(self.expr(e.args[0]))
        return Expr(e.op, a.dtype, (a,), None, e.loc)

    def math_binary(self, e: Expr) -> Expr:
        # Integer arguments convert straight to the result's precision (f32 unless another
        # argument is f64), never through f32 first.
        a, b = (self.bool_to_int(self.expr(x)) for x in e.args)
        if a.dtype.is_float or b.dtype.is_float:
            t = self._promote_e(a, b, e)
        else:
            t = dt.f32
        return Expr(e.op, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

"""Typing rules of comparisons, `and`/`or`/`not` and the conditional expression `a if c else b`.

A comparison promotes its operands and gives a bool (0/1, an i32 when stored); `and` and `or`
short-circuit and give a bool, never an operand; the arms of a conditional expression promote
like a binary operator's operands. See docs/language.md, "Integer and float rules".
"""
from __future__ import annotations

from .. import dtypes as dt
from ..ir.nodes import Expr
from ..ir.ops import Op
from .vectors import VecVal


class LogicRules:
    """Mixed into the TypeChecker (`frontend/typecheck.py`); `frontend/rules.py` maps ops here."""

    def compare(self, e: Expr) -> Expr:
        a, b = (self.expr(x) for x in e.args)
        a, b = self.bool_to_int(a), self.bool_to_int(b)
        t = dt.concrete(self._promote_e(a, b, e))
        return Expr(e.op, dt.bool_, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def short_circuit(self, e: Expr) -> Expr:
        """`and`, `or`: the right operand may not run, so nothing in it is hoisted."""
        a, b = self.to_bool(self.expr(e.args[0])), self.to_bool(self.lazy(e.args[1]))
        return Expr(e.op, dt.bool_, (a, b), None, e.loc)

    def not_(self, e: Expr) -> Expr:
        return Expr(Op.NOT, dt.bool_, (self.to_bool(self.expr(e.args[0])),), None, e.loc)

    def ifexp(self, e: Expr):
        c = self.to_bool(self.expr(e.args[0]))
        a, b = (self.lazy(x) for x in e.args[1:])
        if isinstance(a, VecVal) or isinstance(b, VecVal):
            return self.ifexp_values(e, c, a, b)
        a, b = self.bool_to_int(a), self.bool_to_int(b)
        t = self._promote_e(a, b, e)
        return Expr(Op.IFEXP, t, (c, self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def lazy(self, e: Expr) -> Expr:
        """Type an operand that may not run: atomics inside it stay in place."""
        saved, self._eager = self._eager, False
        try:
            return self.expr(e)
        finally:
            self._eager = saved

"""Typing rules of comparisons, `and`/`or`/`not` and the conditional expression `a if c else b`.

A comparison promotes its operands and gives a bool (0/1, an i32 when stored); `and` and `or`
short-circuit and give a bool, never an operand; the arms of a conditional expression promote
like a binary operator's operands. See docs/language.md, "Integer and float rules".
"""
from __future__ import annotations

from ... import dtypes as dt
from ...ir.nodes import Expr
from ...ir.ops import Op
from ..vectors import VecVal


class LogicRules:
    """Mixed into the TypeChecker (`frontend/typecheck.py`); `frontend/typing/rules.py` maps ops here."""

    def compare(self, e: Expr) -> Expr:
        a, b = (self.expr(x) for x in e.args)
        a, b = self.bool_to_int(a), self.bool_to_int(b)
        t = dt.concrete(self._promote_e(a, b, e))
        return Expr(e.op, dt.bool_, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def short_circuit(self, e: Expr):
        """`and`, `or`: the right operand may not run, so nothing in it is hoisted. On vector
        masks (`-1.0 <= p <= 1.0`) they combine component by component."""
        a = self.expr(e.args[0])
        b = self.lazy(e.args[1])
        if isinstance(a, VecVal) or isinstance(b, VecVal):
            return self.mask_logic(e, a, b)
        return Expr(e.op, dt.bool_, (self.to_bool(a), self.to_bool(b)), None, e.loc)

    def mask_logic(self, e: Expr, a, b) -> VecVal:
        """`m1 and m2`, `m1 or m2` of masks of one shape (a scalar operand is repeated)."""
        shape = (a if isinstance(a, VecVal) else b).shape
        for x in (a, b):
            if isinstance(x, VecVal) and x.shape != shape:
                word = "and" if e.op is Op.LAND else "or"
                raise self.type_error(e, f"`{word}` of masks of shapes {a.shape} and {b.shape}")
        ca = a.comps if isinstance(a, VecVal) else [a] * len(b.comps)
        cb = b.comps if isinstance(b, VecVal) else [b] * len(a.comps)
        return VecVal(shape, [Expr(e.op, dt.bool_, (self.to_bool(x), self.to_bool(y)), None,
                                   e.loc) for x, y in zip(ca, cb)], e.loc)

    def not_(self, e: Expr):
        a = self.expr(e.args[0])
        if isinstance(a, VecVal):  # `not mask`: component by component
            return VecVal(a.shape, [Expr(Op.NOT, dt.bool_, (self.to_bool(c),), None, e.loc)
                                    for c in a.comps], e.loc)
        return Expr(Op.NOT, dt.bool_, (self.to_bool(a),), None, e.loc)

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

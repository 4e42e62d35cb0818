"""Typing rules of literals, names, explicit casts, `print` and already typed operands.

An integer literal is the narrowest of i32, i64, u64 that holds it; a float literal is weak (it
takes the floating type it meets, f32 alone); a name has its local's one type or its parameter's
spec; a cast of a literal folds it. See docs/language.md, "Integer and float rules".
"""
from __future__ import annotations

from ... import dtypes as dt
from ...dtypes import VecType, convert
from ...errors import TackNameError
from ...ir.nodes import Expr
from ...ir.ops import Op
from ...ir.semantics import reinterpret
from ..promotion import WEAK
from ..vectors import FragType, FragVal, VecVal, comp_name


class Pending(Exception):
    """A local's type is not known yet in this inference round."""


class ValueRules:
    """Mixed into the TypeChecker (`frontend/typecheck.py`); `frontend/typing/rules.py` maps ops here."""

    def typed_value(self, e: Expr):
        """An operand typed already (`vectors.typed`), or `expect_dtype(x, dtype, what)`."""
        if not isinstance(e.arg, tuple):
            return e.arg
        if e.arg[0] == "unpack":
            return self.unpacked(e, e.arg[1])
        _, want, what = e.arg
        x = self.expr(e.args[0])
        got = x.vtype() if isinstance(x, VecVal) else dt.concrete(x.dtype)
        if got is not want:
            raise self.type_error(e, f"{what} requires {want.name} input, got "
                                     f"{got.name}; use an explicit {want.name} cast",
                                  f"write {what}(tack.{want.name}(x))")
        return self.settle(x) if not isinstance(x, VecVal) else x

    def unpacked(self, e: Expr, n: int):
        """The value of `x, y = v`: a vector of n components, or a matrix of n rows."""
        x = self.expr(e.args[0])
        if not isinstance(x, VecVal):
            raise self.type_error(e, f"unpacking a scalar of type {dt.concrete(x.dtype)!r} into "
                                     f"{n} names", "only vectors and matrices unpack")
        if x.shape[0] != n:
            what = "rows" if x.is_matrix else "components"
            raise self.type_error(e, f"unpacking a {x.vtype()!r} ({x.shape[0]} {what}) into "
                                     f"{n} names", f"write one name for each of its {what}, "
                                                   "or index it (v[k], m[i])")
        return x

    def const(self, e: Expr) -> Expr:
        if e.dtype is not None:  # typed constant (tack.constant(..., dtype), True/False)
            return Expr(Op.CONST, e.dtype, (), convert(e.arg, e.dtype), e.loc)
        v = e.arg
        if isinstance(v, float):
            return Expr(Op.CONST, WEAK, (), v, e.loc)
        t = dt.int_literal_dtype(v)
        if t is None:  # an expression of literals (frontend/literals.py), or a tack.constant
            raise self.type_error(e, f"integer value {v} is outside the 64-bit ranges "
                                     f"[-2**63, 2**64 - 1]",
                                  "integer expressions of literals are computed exactly and "
                                  "typed by their value; for arithmetic that wraps at a fixed "
                                  "width, cast an operand (tack.u64(2) ** 64)")
        out = Expr(Op.CONST, t, (), v, e.loc)
        self._literals[id(out)] = out  # an integer literal: a weak float beside it stays weak
        return out

    def var(self, e: Expr):
        name = e.arg
        if name in self.rename:
            name = self.rename[name]
        elif name in self.specs and name not in self.pk.assigned:
            s = self.specs[name]
            if s.kind == "array":
                raise self.kind_error(e, f"array '{name}' used as a value",
                                      f"index it, e.g. {name}[i]")
            return Expr(Op.PARAM, s.dtype, (), name, e.loc)
        if name in self.weak_locals:
            return self.expr(self.weak_locals[name])
        if name in self.weak_shadowed:  # retyped to the shadow of the precision it meets
            return Expr(Op.VAR, WEAK, (), name, e.loc)
        if name in self.scratch:
            raise self.kind_error(e, f"scratch array '{name}' used as a value",
                                  "index it, or pass it to a @tack.func; it cannot be bound to "
                                  "another name")
        t = self.types.get(name)
        if t is None or name in self.dead:
            if not self.final:
                raise Pending()
            what = ("a for loop's variable read after its loop" if name in self.dead
                    else "used before it is assigned")
            raise TackNameError.at(e.loc, self.message(e.loc, f"name '{name}'") + f" is {what}",
                                   "assign it first")
        if isinstance(t, VecType):
            comps = [Expr(Op.VAR, t.elem, (), comp_name(name, k), e.loc) for k in range(t.size)]
            return FragVal(t, comps, e.loc) if isinstance(t, FragType) else VecVal(
                t.shape, comps, e.loc)
        return Expr(Op.VAR, dt.concrete(t), (), name, e.loc)

    def cast(self, e: Expr) -> Expr:
        a = self.expr(e.args[0])
        out = self.coerce(a, e.arg, explicit=True)
        return out.replace() if out is a else out  # a cast literal is no longer a literal

    def bitcast(self, e: Expr) -> Expr:
        """`tack.bitcast(x, T)`: x's bits as T, of x's width (docs/language.md, "Bit casts");
        a constant is folded."""
        a = self.scalar(self.expr(e.args[0]), e, "the value of a bitcast")
        a, want = self.settle(a), e.arg
        if a.dtype is dt.bool_ or a.dtype.bits != want.bits:
            raise self.type_error(e, f"bitcast of {a.dtype.name} to {want.name}: the widths "
                                     f"differ ({a.dtype.bits} and {want.bits} bits)",
                                  "bitcast keeps every bit: pick a dtype of the same width "
                                  "(f32 with u32 or i32, f64 with u64 or i64), then convert")
        if a.dtype is want:
            return a.replace()
        folded = reinterpret(a.arg, a.dtype, want) if a.op is Op.CONST else None
        if folded is not None:
            return Expr(Op.CONST, want, (), folded, e.loc)
        return Expr(Op.BITCAST, want, (a,), None, e.loc)

    def print_(self, e: Expr) -> Expr:
        vals = [self.settle(self.bool_to_int(self.scalar(self.expr(a), e, "one printed value")))
                for a in e.args]
        return e.replace(args=tuple(vals))

    def as_is(self, e: Expr) -> Expr:
        """An expression the parser typed already (`thread_id()`)."""
        return e

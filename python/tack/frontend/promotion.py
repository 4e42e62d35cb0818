"""The integer and float rules every typing rule applies: promotion, weak float literals and the
implicit conversions between scalar types.

A float literal is weak (`dtypes.weak_float`): it takes the floating type it meets, and is f32
alone or beside integer variables; promotion keeps both operands' full ranges and rejects a signed
integer with u64; a comparison's bool is an i32 wherever a number is needed. See docs/language.md,
"Integer and float rules".
"""
from __future__ import annotations

from .. import dtypes as dt
from ..dtypes import DType, VecType, convert
from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Expr
from ..ir.ops import Op
from ..passes.names import member
from .vectors import FragType, VecVal

WEAK = dt.weak_float


class Promotion:
    """Mixed into the TypeChecker (`frontend/typecheck.py`): scalar promotion and conversion."""

    def _promote(self, a: DType, b: DType, e) -> DType:
        a, b = (dt.i32 if x is dt.bool_ else x for x in (a, b))
        t = dt.promote(a, b)
        if t is None:
            raise self.type_error(e, f"operation mixes {a!r} and {b!r}",
                                  "a signed integer and u64 have no common type; cast one "
                                  "explicitly, e.g. v + tack.u64(1)")
        return t

    def _promote_e(self, a: Expr, b: Expr, e) -> DType:
        """Promotion of two operands: a weak float beside a non-literal integer is f32."""
        t = self._promote(a.dtype, b.dtype, e)
        if t is WEAK and any(x.dtype.is_int and id(x) not in self._literals for x in (a, b)):
            return dt.f32
        return t

    def _join(self, a: DType, b: DType, s) -> DType:
        """The one type of a local assigned both `a` and `b` (`s` names it)."""
        if isinstance(a, FragType) or isinstance(b, FragType):
            if a != b:
                raise self.type_error(s, f"'{s.name}' is assigned both {a!r} and {b!r}",
                                      "a fragment local keeps one kind of fragment")
            return a
        if isinstance(a, VecType) or isinstance(b, VecType):
            if not (isinstance(a, VecType) and isinstance(b, VecType)) or a.shape != b.shape:
                raise self.type_error(s, f"'{s.name}' is assigned both {a!r} and {b!r}",
                                      "a local keeps one vector width (or stays a scalar)")
            j = dt.promote(a.elem, b.elem)
            if j is None:
                raise self.type_error(s, f"'{s.name}' mixes {a!r} and {b!r}")
            return VecType(dt.concrete(j), a.shape)
        if a is dt.bool_:
            a = dt.i32
        if b is dt.bool_:
            b = dt.i32
        j = dt.promote(a, b)
        if j is None:
            raise self.type_error(s, f"'{s.name}' is assigned both {a!r} and {b!r}",
                                  "a local has one type; cast one of the values explicitly")
        return j

    def numeric(self, e: Expr) -> Expr:
        return self.bool_to_int(e)

    def bool_to_int(self, e: Expr) -> Expr:
        if isinstance(e, VecVal):  # a vector in a scalar-only place (an index, a count)
            self.scalar(e, e, "one value")
        return Expr(Op.CAST, dt.i32, (e,), None, e.loc) if e.dtype is dt.bool_ else e

    def integer(self, e: Expr, what: str) -> Expr:
        if isinstance(e, VecVal):
            self.scalar(e, e, f"one integer ({what})")
        e = self.bool_to_int(e)
        if not e.dtype.is_int:
            raise self.type_error(e, f"{what} needs an integer, got {dt.concrete(e.dtype)!r}",
                                  "convert with int(...)")
        return e

    def floating(self, e: Expr) -> Expr:
        e = self.bool_to_int(e)
        if e.dtype.is_float:
            return e
        return self.coerce(e, dt.f32)  # integer arguments (literals too) of math functions: f32

    def to_bool(self, e: Expr) -> Expr:
        if isinstance(e, VecVal):
            raise UnsupportedSyntaxError.at(
                e.loc, self.message(e.loc, "a vector mask used as a condition"),
                "reduce it with any(mask) or all(mask)")
        if e.dtype is dt.bool_:
            return e
        e = self.settle(e)
        zero = Expr(Op.CONST, e.dtype, (), convert(0, e.dtype), e.loc)
        return Expr(Op.NE, dt.bool_, (e, zero), None, e.loc)

    def settle(self, e: Expr) -> Expr:
        """A weak expression standing alone becomes f32."""
        if isinstance(e, VecVal):
            self.scalar(e, e, "one value")
        return self.coerce(e, dt.f32) if e.dtype is WEAK else e

    def coerce(self, e: Expr, t: DType, explicit: bool = False) -> Expr:
        """`e` converted to `t`: weak literals retyped exactly, constants folded, else a CAST."""
        if isinstance(e, VecVal):
            self.scalar(e, e, "one value")
        if e.dtype is t:
            return e
        if e.op is Op.CONST:
            return Expr(Op.CONST, t, (), convert(e.arg, t), e.loc)
        if e.dtype is WEAK:
            if t.is_float:
                return self.retype(e, t)
            e = self.retype(e, dt.f32)
        return Expr(Op.CAST, t, (e,), None, e.loc)

    def retype(self, e: Expr, t: DType) -> Expr:
        """Rebuild a weak float expression at precision `t`."""
        if e.dtype is not WEAK:
            return self.coerce(e, t)
        if e.op is Op.CONST:
            return Expr(Op.CONST, t, (), convert(e.arg, t), e.loc)
        if e.op is Op.LOAD:  # an untyped float table's read (frontend/typing/tables.py)
            return self.retype_table_load(e, t)
        if e.op is Op.VAR:  # a weak local assigned more than once: its shadow at precision t
            shadow = member(e.arg, t.name)
            self.types[shadow] = t
            return Expr(Op.VAR, t, (), shadow, e.loc)
        if e.op in (Op.IFEXP, Op.SELECT):  # the condition keeps its type
            c, a, b = e.args
            return e.replace(dtype=t, args=(c, self.retype(a, t), self.retype(b, t)))
        return e.replace(dtype=t, args=tuple(self.retype(a, t) for a in e.args))

"""Typed operands: `E` (a generated expression's code and Tack type) and the helpers that keep
operands well typed (casts, joins without widening, u64 pairs) and in the portable domain
(masked divisors and shift counts, clamped float-to-int conversions)."""
from __future__ import annotations

import operator
from dataclasses import dataclass

from ..oracle import F32, I32, I64, ST, U64, WEAK, Rejected, Runtime, literal_type, promote
from .grammar import CLAMP, INT_TYPES


@dataclass
class E:
    code: str
    t: ST
    lit: bool = False  # an integer literal (or True/False, or an integer expression of them):
    # weak floats stay weak beside it
    const: bool = False  # Tack folds it to a constant (a literal, or a cast of one)
    value: int | None = None  # the exact value of an integer literal expression


def _lit(v: int) -> E:
    return E(f"({v})" if v < 0 else str(v), literal_type(v), lit=True, const=True, value=v)


_CMP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
        "==": operator.eq, "!=": operator.ne}
_EXACT = {"+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_,
          "|": operator.or_, "^": operator.xor, **_CMP}


def exact(op: str, *vals: int) -> int | None:
    """Python's value of an integer operator over literals, as Tack computes a literal-only
    integer expression (docs/language.md, "Literals"); None where that is no literal: a zero
    divisor, a negative shift count or exponent, a value outside the 64-bit ranges."""
    if op == "~":
        v = ~vals[0]
    elif op == "neg":
        v = -vals[0]
    elif op == "abs":
        v = abs(vals[0])
    elif op in ("min", "max"):
        v = min(vals) if op == "min" else max(vals)
    elif op in _EXACT:
        v = int(_EXACT[op](*vals))
    else:
        a, b = vals
        if (b == 0 and op in ("//", "%")) or (b < 0 and op in ("**", "<<", ">>")):
            return None
        if op in ("**", "<<") and a not in (0, 1, -1) and b > 64:
            return None  # far outside the 64-bit ranges: not computed
        v = {"//": operator.floordiv, "%": operator.mod, "**": operator.pow,
             "<<": operator.lshift, ">>": operator.rshift}[op](a, b)
    return v if -2 ** 63 <= v < 2 ** 64 else None


def literal_expr(code: str, v: int) -> E:
    """An integer expression of literals whose exact value is v: a literal of that value."""
    return E(code, literal_type(v), lit=True, const=True, value=v)



class Operands:
    """Operand helpers of `KernelGen`: each returns an `E` whose type the oracle would compute."""

    def fit(self, e: E, t: ST) -> E:
        """`e`, or a cast of it, whose type joins into `t` without widening it."""
        try:
            if promote(t, e.t) is t:
                return self.weak_ok(e, E("", t)) if t.is_float else e
        except Rejected:
            pass
        return self.cast(e, t)

    def cast(self, e: E, t: ST) -> E:
        if e.t is t:
            return e
        if t.is_int and not e.t.is_int:
            return self.clamp(e, t, explicit=True)
        if t is I32 and self.ch.flip(0.2):
            return E(f"int({e.code})", t, const=e.const)
        if t is F32 and self.ch.flip(0.2):
            return E(f"float({e.code})", t, const=e.const)
        return E(f"tack.{t.name}({e.code})", t, const=e.const)

    def clamp(self, e: E, t: ST, explicit=False) -> E:
        lo, hi = CLAMP[t.name]
        code = f"min(max({e.code}, {lo!r}), {hi!r})"
        if explicit:
            if t is I32 and self.ch.flip(0.3):
                return E(f"int({code})", t)
            return E(f"tack.{t.name}({code})", t)
        ft = F32 if e.t is WEAK else e.t
        return E(code, ft)

    def like(self, v: int, t: ST) -> E:
        """The literal v, typed u64 when it meets a u64 operand (a signed literal cannot)."""
        if t is U64:
            return E(f"tack.u64({v})", U64, const=True)
        return _lit(v)

    def weak_ok(self, e: E, other: E) -> E:
        """Avoid known bugs where a weak float meets an integer constant: give it a type."""
        if e.t is not WEAK or not other.t.is_int:
            return e
        if "weak_typed_const" in self.avoid and other.const and not other.lit:
            return self.cast(e, F32)
        if "weak_bool" in self.avoid and other.code in ("True", "False"):
            return self.cast(e, F32)
        return e

    def unify(self, a: E, b: E) -> tuple[E, E]:
        try:
            promote(a.t, b.t)
        except Rejected:  # a signed integer with u64: cast one side
            if self.ch.flip(0.5):
                a, b = (a, self.cast(b, U64)) if a.t is U64 else (self.cast(a, U64), b)
            else:
                a, b = (self.cast(a, I64), b) if a.t is U64 else (a, self.cast(b, I64))
        return self.weak_ok(a, b), self.weak_ok(b, a)

    def int_divisor(self, e: E) -> E:
        e = self.int_of(e)
        seven, one, two = self.like(7, e.t), self.like(1, e.t), self.like(2, e.t)
        masked = self.arith("&", e, seven)
        if self.ch.flip(0.6):
            return self.arith("+", masked, one)
        shifted = self.arith("+", masked, two)
        if shifted.value is not None:  # of literals: the literal of its value
            return literal_expr(f"(-{shifted.code})", -shifted.value)
        return E(f"(-{shifted.code})", shifted.t)

    def float_divisor(self, e: E) -> E:
        pos = E(f"(abs({e.code}) + 0.5)", Runtime._pe(e.t, WEAK, e.lit, False))
        if pos.t is WEAK and e.t.is_int:
            pos.t = F32
        if self.ch.flip(0.5):
            return pos
        return E(f"(-{pos.code})", pos.t)

    def shift_count(self, t: ST) -> E:
        if self.ch.flip(0.4):
            return _lit(self.ch.integer(0, t.bits - 1))
        c = self.int_expr(1)
        return self.arith("&", c, self.like(t.bits - 1, c.t))

    def int_of(self, e: E) -> E:
        return e if e.t.is_int else self.cast(e, self.ch.choose(INT_TYPES))

    def int_expr(self, d) -> E:
        return self.int_of(self.expr(d))

    def typed(self, e: E) -> E:
        """`e` as a typed value (`tack.i64(2**40)`): no longer a literal, so an operator over it
        wraps at its width instead of being computed exactly."""
        if e.value is None:
            return e
        return E(f"tack.{e.t.name}({e.code})", e.t, const=True)

    def arith(self, op: str, a: E, b: E) -> E:
        a, b = self.unify(a, b)
        if a.value is not None and b.value is not None:  # computed exactly, typed by value
            v = exact(op, a.value, b.value)
            if v is not None:
                return literal_expr(f"({a.code} {op} {b.code})", v)
            b = self.typed(b)
        if op in ("&", "|", "^"):
            t = promote(a.t, b.t)
        else:
            t = Runtime._pe(a.t, b.t, a.lit, b.lit)
        return E(f"({a.code} {op} {b.code})", t)

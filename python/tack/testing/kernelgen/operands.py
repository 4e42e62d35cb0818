"""Typed operands: `E` (a generated expression's code and Tack type) and the helpers that keep
operands well typed (casts, joins without widening, u64 pairs) and in the portable domain
(masked divisors and shift counts, clamped float-to-int conversions)."""
from __future__ import annotations

from dataclasses import dataclass

from ..oracle import F32, I32, I64, ST, U64, WEAK, Rejected, Runtime, literal_type, promote
from .grammar import CLAMP, INT_TYPES


@dataclass
class E:
    code: str
    t: ST
    lit: bool = False  # a bare integer literal (or True/False): weak floats stay weak beside it
    const: bool = False  # Tack folds it to a constant (a literal, or a cast of one)


def _lit(v: int) -> E:
    return E(f"({v})" if v < 0 else str(v), literal_type(v), lit=True, const=True)



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
        return E(f"(-{self.arith('+', masked, two).code})", self.arith("+", masked, two).t)

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

    def arith(self, op: str, a: E, b: E) -> E:
        a, b = self.unify(a, b)
        if op in ("&", "|", "^"):
            t = promote(a.t, b.t)
        else:
            t = Runtime._pe(a.t, b.t, a.lit, b.lit)
        return E(f"({a.code} {op} {b.code})", t)

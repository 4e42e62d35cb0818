"""Integer expressions of literals only, computed exactly: `2**40`, `10**12`, `1 << 40`, `2**64 - 1`.

An operator whose operands are all integer literals (`True`/`False`, untyped integer
`tack.constant`s and class constants count, and so do such expressions) is computed with Python's
integers when the kernel is parsed, and the result is the literal of its value: the typechecker
types it like a written literal (the narrowest of i32, i64 and u64) and rejects a value outside
the 64-bit ranges at the expression. Intermediate values are not limited (`2**64 - 1` is u64).
Fixed-width wrapping begins where a typed value takes part. The one rule of every engine: the
parser folds, so nothing after it sees the operator. See docs/language.md, "Integer and float
rules".
"""
from __future__ import annotations

import operator

from ..errors import TackError, TackTypeError, TackValueError
from ..ir.nodes import Expr
from ..ir.ops import Op

# Results are computed up to this many bits: past it, no later operator of literals could bring
# a value back into the 64-bit ranges except by discarding it (`>>`, `%`, `&`), and a program
# that builds such a number is not meant (`2 ** 10 ** 10` would take minutes and gigabytes).
MAX_BITS = 1024

_BINARY = {
    Op.ADD: operator.add, Op.SUB: operator.sub, Op.MUL: operator.mul, Op.AND_: operator.and_,
    Op.OR_: operator.or_, Op.XOR: operator.xor, Op.MIN: min, Op.MAX: max,
    Op.LT: operator.lt, Op.LE: operator.le, Op.GT: operator.gt, Op.GE: operator.ge,
    Op.EQ: operator.eq, Op.NE: operator.ne,
}
_UNARY = {Op.NEG: operator.neg, Op.INVERT: operator.invert, Op.ABS: abs}
FOLDED = frozenset(_BINARY) | frozenset(_UNARY) | {Op.FLOORDIV, Op.MOD, Op.POW, Op.SHL, Op.SHR}


class LiteralError(Exception):
    """A literal-only operation with no integer value (a negative shift count: a ValueError, as
    in Python) or one too large for any integer type (a TypeError, like a value outside the
    64-bit ranges); the parser reports it at the expression as `kind`."""

    def __init__(self, message: str, kind: type[TackError]):
        super().__init__(message)
        self.kind = kind


def literal_int(e: Expr) -> int | None:
    """The value of an untyped integer literal (True/False included), else None."""
    if e.op is Op.CONST and e.dtype is None and type(e.arg) is int:
        return e.arg
    return None


def fold(e: Expr) -> Expr:
    """`e`, or the literal of its exact value when its operands are integer literals."""
    if e.op not in FOLDED:
        return e
    vals = [literal_int(a) for a in e.args]
    if not vals or any(v is None for v in vals):
        return e
    v = exact(e.op, vals)
    if v is None:
        return e
    return Expr(Op.CONST, None, (), int(v), e.loc)


def exact(op: Op, vals: list[int]) -> int | None:
    """Python's value of `op` over integers, with Tack's `x // 0 == x % 0 == 0` (docs/language.md,
    "Fixed-width integer arithmetic"); None where the typechecker gives the error (a negative
    exponent). LiteralError for a negative shift count or a result past MAX_BITS."""
    if op in _UNARY:
        return _checked(_UNARY[op](vals[0]))
    a, b = vals
    if op in _BINARY:
        return _checked(int(_BINARY[op](a, b)))
    if op in (Op.FLOORDIV, Op.MOD):
        if b == 0:
            return 0
        return a // b if op is Op.FLOORDIV else a % b
    if op is Op.POW:
        if b < 0:
            return None  # "negative integer exponent", as for any integer power
        if abs(a) > 1 and (abs(a).bit_length() - 1) * b > MAX_BITS:
            raise _too_large()
        return _checked(a ** b)
    if b < 0:
        raise LiteralError(f"negative shift count {b} in an integer expression of literals",
                           TackValueError)
    if op is Op.SHR:
        return a >> min(b, MAX_BITS + 1)
    if a != 0 and b > MAX_BITS:
        raise _too_large()
    return _checked(a << b)


def _checked(v: int) -> int:
    if v.bit_length() > MAX_BITS:
        raise _too_large()
    return v


def _too_large() -> LiteralError:
    return LiteralError(f"integer expression of literals larger than {MAX_BITS} bits, outside "
                        "the 64-bit ranges", TackTypeError)

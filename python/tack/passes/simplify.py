"""Constant folding, algebraic identities and branch selection over the typed IR, by
`ir.semantics`.

An identity drops a constant operand that leaves the other operand's value as it is, bit for
bit, on every engine: for integers (wrapping) x + 0, x - 0, x * 1, x // 1 (IDIV), x | 0, x ^ 0,
x & ~0, x << 0, x >> 0; for floats only where IEEE 754 gives x for every x, signed zeros and
infinities included: x * 1.0, x / 1.0, x - 0.0 and x + -0.0 (x + 0.0 is +0.0 for x = -0.0, so
it stays; a NaN stays a NaN, though its signalling bit is not quieted by a multiply no longer
there). The index arithmetic of the array accesses (`linearize`: row * stride + 0) is where
most such terms come from.
"""
from __future__ import annotations

import math

from ..ir import nodes as N
from ..ir.nodes import Expr
from ..ir.ops import Op
from ..ir.semantics import evaluate
from ..ir.walk import map_body, map_expr, map_stmts

# op -> (the operand positions whose constant may be dropped, the test of that constant)
_INT_IDENTITY = {
    Op.ADD: ((0, 1), lambda v, t: v == 0),
    Op.SUB: ((1,), lambda v, t: v == 0),
    Op.MUL: ((0, 1), lambda v, t: v == 1),
    Op.IDIV: ((1,), lambda v, t: v == 1),
    Op.OR_: ((0, 1), lambda v, t: v == 0),
    Op.XOR: ((0, 1), lambda v, t: v == 0),
    Op.AND_: ((0, 1), lambda v, t: v % (1 << t.bits) == (1 << t.bits) - 1),
    Op.SHL: ((1,), lambda v, t: v == 0),
    Op.SHR: ((1,), lambda v, t: v == 0),
}
_FLOAT_IDENTITY = {
    Op.MUL: ((0, 1), lambda v: v == 1.0),
    Op.FDIV: ((1,), lambda v: v == 1.0),
    Op.SUB: ((1,), lambda v: v == 0.0 and math.copysign(1.0, v) > 0),
    Op.ADD: ((0, 1), lambda v: v == 0.0 and math.copysign(1.0, v) < 0),
}


def _identity(e: Expr) -> Expr | None:
    """The operand `e` equals by an identity of the module's docstring, or None."""
    kind = e.dtype.kind if e.dtype is not None else None
    if kind in ("i", "u"):
        rule = _INT_IDENTITY.get(e.op)
        test = rule and (lambda c: rule[1](int(c.arg), c.dtype))
    elif kind == "f":
        rule = _FLOAT_IDENTITY.get(e.op)
        test = rule and (lambda c: rule[1](float(c.arg)))
    else:
        return None
    if not rule or len(e.args) != 2:
        return None
    for pos in rule[0]:
        const, other = e.args[pos], e.args[1 - pos]
        if const.op is Op.CONST and other.dtype is e.dtype and test(const):
            return other
    return None


def _fold(e: Expr) -> Expr:
    op, args = e.op, e.args
    if op in (Op.SELECT, Op.IFEXP) and args[0].op is Op.CONST:
        return args[1] if args[0].arg else args[2]
    if op in (Op.LAND, Op.LOR) and args[0].op is Op.CONST:
        first = bool(args[0].arg)
        if op is Op.LAND:
            return args[1] if first else args[0]
        return args[0] if first else args[1]
    if op in (Op.AND_, Op.OR_) and e.dtype.kind == "b":
        for x, y in ((args[0], args[1]), (args[1], args[0])):
            if x.op is Op.CONST:
                keep = (op is Op.AND_) == bool(x.arg)
                return y if keep else x
    if (op in (Op.NE, Op.EQ) and args[0].dtype.kind == "b" and args[1].op is Op.CONST
            and bool(args[1].arg) == (op is Op.EQ)):
        return args[0]
    if args and all(a.op is Op.CONST for a in args):
        v = evaluate(op, e.dtype, [a.arg for a in args], args[0].dtype)
        if v is not None:
            return Expr(Op.CONST, e.dtype, (), v, e.loc)
    same = _identity(e)
    return e if same is None else same


def simplify_expr(e: Expr) -> Expr:
    return map_expr(e, _fold)


def simplify(body: list[N.Stmt]) -> list[N.Stmt]:
    """Every expression folded; an `if` on a constant replaced by the branch it takes."""
    def select(s: N.Stmt):
        if isinstance(s, N.If) and s.cond.op is Op.CONST:
            return s.then if s.cond.arg else s.orelse
        return s

    return map_stmts(map_body(body, _fold), select)

"""Weak locals: which locals read as the weak float expression they were assigned.

A local assigned once to an expression of number literals (a float among them), to a copy of
such a local, to a conditional expression or a vector of those, is weak: each read is that
expression, typed by what it meets (docs/language.md, "Literals"). The typechecker
(`frontend/typecheck.py`, `_weak_locals`) finds them with these tests on the untyped IR.
"""
from __future__ import annotations

from ..ir.nodes import Expr
from ..ir.ops import MATH_BINARY, MATH_UNARY, Op
from ..ir.walk import iter_exprs

_LITERAL_OPS = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.TRUEDIV, Op.NEG, Op.POW, Op.FLOORDIV,
                          Op.MOD, Op.ABS, Op.MIN, Op.MAX}) | MATH_UNARY | MATH_BINARY


# The most nodes a weak local reading other weak locals may stand for (a literal expression
# alone is always weak): `b = a * a; c = b * b; ...` would otherwise grow exponentially.
WEAK_SIZE = 64


def literal_only(e: Expr) -> bool:
    """No local read: weak whatever its size (the rule before weak locals could read others)."""
    return not any(x.op is Op.VAR for x in iter_exprs(e))


def expanded_size(e: Expr, sizes: dict[str, int]) -> int:
    """Nodes of `e` with each weak local read replaced by its expression."""
    return sum(sizes.get(x.arg, 1) if x.op is Op.VAR else 1 for x in iter_exprs(e))


def weak_expr(e: Expr, weak: dict[str, Expr]) -> bool:
    """An untyped expression of number literals and weak locals, at least one of them a float;
    or a conditional expression whose arms are such (or integer literals)."""
    has_float = False

    def ok(x: Expr) -> bool:
        nonlocal has_float
        if x.op is Op.CONST:
            has_float |= isinstance(x.arg, float)
            return x.dtype is None
        if x.op is Op.VAR and x.arg in weak:
            has_float = True
            return True
        if x.op is Op.VECTOR and x.arg is None:  # [0.1, 0.2], tack.Vector([...]): per component
            return all(ok(a) for a in x.args)
        return x.op in _LITERAL_OPS and all(ok(a) for a in x.args)

    if e.op is Op.IFEXP:
        return all(ok(a) for a in e.args[1:]) and has_float
    return ok(e) and has_float


def vector_valued(e: Expr, weak: dict) -> bool:
    """Whether a weak expression is a vector or matrix (a literal, or a weak local holding one)."""
    while e.op is Op.VAR and weak.get(e.arg) is not None:
        e = weak[e.arg]
    if e.op is Op.IFEXP:
        return any(vector_valued(a, weak) for a in e.args[1:])
    return e.op is Op.VECTOR

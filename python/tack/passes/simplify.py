"""Constant folding and branch selection over the typed IR, by `ir.semantics`."""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.nodes import Expr
from ..ir.ops import Op
from ..ir.semantics import evaluate
from ..ir.walk import map_body, map_expr, map_stmts


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
    return e


def simplify_expr(e: Expr) -> Expr:
    return map_expr(e, _fold)


def simplify(body: list[N.Stmt]) -> list[N.Stmt]:
    """Every expression folded; an `if` on a constant replaced by the branch it takes."""
    def select(s: N.Stmt):
        if isinstance(s, N.If) and s.cond.op is Op.CONST:
            return s.then if s.cond.arg else s.orelse
        return s

    return map_stmts(map_body(body, _fold), select)

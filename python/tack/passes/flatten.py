"""Lazy expressions → statements, so that every remaining expression is evaluated eagerly.

`a if c else b`, `x and y`, `x or y` become a temporary assigned under an `If`; a `while` whose
condition needs statements becomes `while True: <pre>; if not c: break; ...`. Used where a pass
must insert statements before the point an expression runs (debug-mode bounds checks).
"""
from __future__ import annotations

import dataclasses

from .. import dtypes as dt
from ..ir import nodes as N
from ..ir.nodes import Expr
from ..ir.ops import ATOMIC, Op
from ..ir.walk import NodeMemo, iter_exprs, map_blocks, map_stmts
from .names import Names

LAZY = (Op.IFEXP, Op.LAND, Op.LOR)


class Flatten:
    def __init__(self, locals_: dict):
        self.fresh = Names(locals_, "lz").fresh
        self.lazy_memo = NodeMemo()  # whether a lazy op is inside
        self.lifted = NodeMemo()  # the lifted form, per list it was lifted into

    def lazy(self, e: Expr) -> bool:
        """Whether `e` holds a lazy op. Memoized by node: an expression is a DAG (inlined
        library code shares subexpressions), which a tree walk would visit exponentially often."""
        got = self.lazy_memo.get(e)
        if got is NodeMemo.MISSING:
            got = self.lazy_memo.put(e, e.op in LAZY or any(self.lazy(a) for a in e.args))
        return got

    def lift(self, e: Expr, pre: list) -> Expr:
        """`e` with its lazy parts turned into statements appended to `pre`. A node met again
        for the same `pre` reuses its temporary, assigned there before; one met in another
        list (a branch) gets statements of its own there."""
        if not self.lazy(e):
            return e
        got = self.lifted.get(e, pre)
        return self.lifted.put(e, self._lift(e, pre), pre) if got is NodeMemo.MISSING else got

    def _lift(self, e: Expr, pre: list) -> Expr:
        op = e.op
        if op is Op.IFEXP:
            c = self.lift(e.args[0], pre)
            tmp = self.fresh(e.dtype)
            then, orelse = [], []
            a = self.lift(e.args[1], then)
            b = self.lift(e.args[2], orelse)
            then.append(N.Assign(e.loc, tmp, a))
            orelse.append(N.Assign(e.loc, tmp, b))
            pre.append(N.If(e.loc, c, then, orelse))
            return Expr(Op.VAR, e.dtype, (), tmp, e.loc)
        if op in (Op.LAND, Op.LOR):
            a = self.lift(e.args[0], pre)
            tmp = self.fresh(dt.bool_)
            pre.append(N.Assign(e.loc, tmp, a))
            second: list = []
            b = self.lift(e.args[1], second)
            second.append(N.Assign(e.loc, tmp, b))
            var = Expr(Op.VAR, dt.bool_, (), tmp, e.loc)
            cond = var if op is Op.LAND else Expr(Op.NOT, dt.bool_, (var,), None, e.loc)
            pre.append(N.If(e.loc, cond, second, []))
            return var
        if not e.args:
            return e
        args = tuple(self.lift(a, pre) for a in e.args)
        return e.replace(args=args) if args != e.args else e

    def stmt(self, s: N.Stmt, walk) -> list[N.Stmt]:
        """The statements computing `s`'s own lazy parts, then `s` with its blocks rebuilt (after
        them, so temporaries are numbered in program order)."""
        pre: list[N.Stmt] = []
        if isinstance(s, N.While):
            return [self.loop(s, walk)]
        if isinstance(s, N.Store):
            idx = tuple(self.lift(i, pre) for i in s.indices)
            s = dataclasses.replace(s, indices=idx, value=self.lift(s.value, pre))
        elif isinstance(s, (N.Assign, N.ExprStmt, N.If, N.For)):  # a For's `step` stays as is
            s = dataclasses.replace(s, **{f: self.lift(getattr(s, f), pre) for f in
                                          ("value", "cond", "start", "stop") if hasattr(s, f)})
        return pre + [map_blocks(s, walk)]

    def loop(self, s: N.While, walk) -> N.While:
        """A condition that needs statements, or reads memory, is tested inside the loop:
        `while True: <pre>; if not c: break; body`."""
        cpre: list[N.Stmt] = []
        c = self.lift(s.cond, cpre)
        body = walk(s.body)
        if cpre or _reads_memory(c):
            not_c = Expr(Op.NOT, dt.bool_, (c,), None, s.loc)
            true = Expr(Op.CONST, dt.bool_, (), 1, s.loc)
            return N.While(s.loc, true, cpre + [N.If(s.loc, not_c, [N.Break(s.loc)], [])] + body)
        return N.While(s.loc, c, body)


def _reads_memory(e: Expr) -> bool:
    return any(x.op is Op.LOAD or x.op in ATOMIC for x in iter_exprs(e))


def flatten(body: list[N.Stmt], locals_: dict) -> list[N.Stmt]:
    return map_stmts(body, Flatten(locals_).stmt, top_down=True)

"""Lazy expressions → statements, so that every remaining expression is evaluated eagerly.

`a if c else b`, `x and y`, `x or y` become a temporary assigned under an `If`; a `while` whose
condition needs statements becomes `while True: <pre>; if not c: break; ...`. Used where a pass
must insert statements before the point an expression runs (debug-mode bounds checks).
"""
from __future__ import annotations

from .. import dtypes as dt
from ..ir import nodes as N
from ..ir.nodes import Expr
from ..ir.ops import Op


class Flatten:
    def __init__(self, locals_: dict):
        self.locals = locals_
        self.n = 0

    def fresh(self, t) -> str:
        self.n += 1
        name = f"_lz{self.n}"
        while name in self.locals:
            name += "_"
        self.locals[name] = t
        return name

    def lift(self, e: Expr, pre: list) -> Expr:
        """`e` with its lazy parts turned into statements appended to `pre`."""
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

    def body(self, stmts: list[N.Stmt]) -> list[N.Stmt]:
        out: list[N.Stmt] = []
        for s in stmts:
            pre: list[N.Stmt] = []
            if isinstance(s, N.Assign):
                s = N.Assign(s.loc, s.name, self.lift(s.value, pre))
            elif isinstance(s, N.Store):
                idx = tuple(self.lift(i, pre) for i in s.indices)
                s = N.Store(s.loc, s.array, idx, self.lift(s.value, pre), s.text)
            elif isinstance(s, N.ExprStmt):
                s = N.ExprStmt(s.loc, self.lift(s.value, pre))
            elif isinstance(s, N.If):
                s = N.If(s.loc, self.lift(s.cond, pre), self.body(s.then), self.body(s.orelse))
            elif isinstance(s, N.For):
                s = N.For(s.loc, s.var, self.lift(s.start, pre), self.lift(s.stop, pre), s.step,
                          self.body(s.body), unroll=s.unroll)
            elif isinstance(s, N.While):
                cpre: list[N.Stmt] = []
                c = self.lift(s.cond, cpre)
                body = self.body(s.body)
                if cpre or _reads_memory(c):
                    not_c = Expr(Op.NOT, dt.bool_, (c,), None, s.loc)
                    true = Expr(Op.CONST, dt.bool_, (), 1, s.loc)
                    s = N.While(s.loc, true, cpre + [N.If(s.loc, not_c, [N.Break(s.loc)], [])]
                                + body)
                else:
                    s = N.While(s.loc, c, body)
            out += pre
            out.append(s)
        return out


def _reads_memory(e: Expr) -> bool:
    from ..ir.ops import ATOMIC
    from ..ir.walk import iter_exprs

    return any(x.op is Op.LOAD or x.op in ATOMIC for x in iter_exprs(e))


def flatten(body: list[N.Stmt], locals_: dict) -> list[N.Stmt]:
    return Flatten(locals_).body(body)

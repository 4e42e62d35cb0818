"""Generic rebuilding of IR: apply a function to every expression or statement list."""
from __future__ import annotations

from typing import Callable

from . import nodes as N
from .nodes import Expr

ExprFn = Callable[[Expr], Expr]


def map_expr(e: Expr, fn: ExprFn, memo: dict | None = None) -> Expr:
    """Bottom-up: children first, then `fn` on the rebuilt node. Lowering shares subtrees (an
    operand of `//` is used several times), so each node is mapped once: the expression is a
    DAG, and mapping it as a tree would take exponential time."""
    if memo is None:
        memo = {}
    done = memo.get(id(e))
    if done is not None:
        return done[1]
    orig = e
    if e.args:
        args = tuple(map_expr(a, fn, memo) for a in e.args)
        if any(x is not y for x, y in zip(args, e.args)):
            e = e.replace(args=args)
    out = fn(e)
    memo[id(orig)] = (orig, out)  # keeps `orig` alive, so its id is not reused meanwhile
    return out


def map_body(body: list[N.Stmt], fn: ExprFn) -> list[N.Stmt]:
    """Every expression of every statement through `map_expr(…, fn)`."""
    out = []
    for s in body:
        if isinstance(s, N.Assign):
            out.append(N.Assign(s.loc, s.name, map_expr(s.value, fn)))
        elif isinstance(s, N.Store):
            out.append(N.Store(s.loc, s.array, tuple(map_expr(i, fn) for i in s.indices),
                               map_expr(s.value, fn), s.text))
        elif isinstance(s, N.If):
            out.append(N.If(s.loc, map_expr(s.cond, fn), map_body(s.then, fn),
                            map_body(s.orelse, fn)))
        elif isinstance(s, N.While):
            out.append(N.While(s.loc, map_expr(s.cond, fn), map_body(s.body, fn)))
        elif isinstance(s, N.For):
            out.append(N.For(s.loc, s.var, map_expr(s.start, fn), map_expr(s.stop, fn),
                             None if s.step is None else map_expr(s.step, fn),
                             map_body(s.body, fn), unroll=s.unroll))
        elif isinstance(s, N.ExprStmt):
            out.append(N.ExprStmt(s.loc, map_expr(s.value, fn)))
        else:
            out.append(s)
    return out


def iter_stmts(body: list[N.Stmt]):
    """Every statement, nested ones included, in program order."""
    for s in body:
        yield s
        for sub in ("then", "orelse", "body"):
            child = getattr(s, sub, None)
            if child:
                yield from iter_stmts(child)


def iter_exprs(e: Expr):
    yield e
    for a in e.args:
        yield from iter_exprs(a)

"""Bind repeated subexpressions of one statement to locals (`_cse1 = ...`) evaluated just before it.

Lowering Python's `//` and `%` repeats its operands; binding them keeps generated code small and
readable on every target. Only eagerly evaluated positions are bound: operands of a lazy op's
later arms (`and`/`or`/conditional expressions) stay where they are, so a guarded load never runs
unguarded, and `while` conditions are left alone because they run on every iteration.
"""
from __future__ import annotations

import dataclasses

from ..ir import nodes as N
from ..ir.nodes import Expr
from ..ir.ops import ATOMIC, LAZY, Op
from ..ir.walk import map_blocks, map_stmts
from .names import Names

_TRIVIAL = frozenset({Op.CONST, Op.VAR, Op.PARAM, Op.LAUNCH})


def _key(e: Expr, memo: dict) -> int:
    """A small integer naming `e`'s structure (hash-consing: equal structures, equal keys). The
    keys of the children stand for them, so a key is hashed in O(arity), not O(tree size)."""
    got = memo.get(id(e))
    if got is None:
        sig = (e.op, e.dtype, e.arg, tuple(_key(a, memo) for a in e.args))
        table = memo.setdefault("__intern__", {})
        got = memo[id(e)] = table.setdefault(sig, len(table))
        memo.setdefault("__alive__", []).append(e)  # ids stay unique while memo lives
    return got


def _has_atomic(exprs) -> bool:
    """Whether any expression holds an atomic, visiting shared subexpressions once."""
    seen, todo = set(), list(exprs)
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if x.op in ATOMIC:
            return True
        todo.extend(x.args)
    return False


def _trivial(e: Expr) -> bool:
    return e.op in _TRIVIAL or (e.op is Op.CAST and e.args[0].op in _TRIVIAL)


def _count(e: Expr, memo, counts, first):
    """Count eager occurrences of each non-trivial subexpression."""
    if _trivial(e):
        return
    k = _key(e, memo)
    counts[k] = counts.get(k, 0) + 1
    first.setdefault(k, e)
    if counts[k] > 1:
        return  # its children are counted once, through the first occurrence
    args = e.args[:1] if e.op in LAZY else e.args
    for a in args:
        _count(a, memo, counts, first)


class CSE:
    def __init__(self, locals_: dict):
        self.names = Names(locals_, "cse")

    def bind(self, exprs: list[Expr], loc) -> tuple[list[N.Stmt], list[Expr]]:
        if _has_atomic(exprs):
            return [], exprs  # an update's position in evaluation order must not move
        memo, counts, first = {}, {}, {}
        for e in exprs:
            _count(e, memo, counts, first)
        repeated = [k for k, c in counts.items() if c > 1]
        if not repeated:
            return [], exprs
        pre: list[N.Stmt] = []
        names: dict[tuple, Expr] = {}

        def sub(e: Expr) -> Expr:
            if _trivial(e):
                return e
            k = _key(e, memo)
            if k in names:
                return names[k]
            args = e.args
            if e.op in LAZY:
                args = (sub(args[0]),) + args[1:]
            else:
                args = tuple(sub(a) for a in args)
            e2 = e.replace(args=args) if args != e.args else e
            if counts.get(k, 0) > 1:
                name = self.names.fresh(e.dtype)
                pre.append(N.Assign(loc, name, e2))
                names[k] = Expr(Op.VAR, e.dtype, (), name, e.loc)
                return names[k]
            return e2

        return pre, [sub(e) for e in exprs]

    def stmt(self, s: N.Stmt, walk) -> list[N.Stmt]:
        """`s` after the bindings of its own repeated subexpressions; its blocks are rebuilt after
        them, so names are numbered in program order."""
        if isinstance(s, N.Assign):
            pre, (v,) = self.bind([s.value], s.loc)
            return pre + [N.Assign(s.loc, s.name, v)]
        if isinstance(s, N.Store):
            pre, es = self.bind(list(s.indices) + [s.value], s.loc)
            return pre + [N.Store(s.loc, s.array, tuple(es[:-1]), es[-1], s.text)]
        if isinstance(s, N.If):
            pre, (c,) = self.bind([s.cond], s.loc)
            return pre + [map_blocks(dataclasses.replace(s, cond=c), walk)]
        if isinstance(s, N.For):
            pre, (a, b) = self.bind([s.start, s.stop], s.loc)
            return pre + [map_blocks(dataclasses.replace(s, start=a, stop=b), walk)]
        return [map_blocks(s, walk)]  # a While's condition runs every iteration: left alone


def cse(body: list[N.Stmt], locals_: dict) -> list[N.Stmt]:
    return map_stmts(body, CSE(locals_).stmt, top_down=True)

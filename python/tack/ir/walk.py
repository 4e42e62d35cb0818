"""Generic walks over the IR: every statement, every block, every expression, visited or rebuilt.

The passes and renderers recurse into nested statement lists only through these functions, so
which statement holds which blocks is known in one place (`Stmt.BLOCKS` in `ir/nodes.py`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from . import nodes as N
from .nodes import Expr

ExprFn = Callable[[Expr], Expr]
# The fields that hold a statement's own expressions (not those of its blocks), in the order
# they are visited; `indices` (a Store's) holds a tuple of them.
EXPR_FIELDS = ("value", "cond", "start", "stop", "step")


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


class NodeMemo:
    """A result per expression node (and scope), for a pass that walks expressions itself: typed
    IR is a DAG (inlined library code shares its argument's expression), which a tree walk visits
    exponentially often. Keyed by the node's identity; the entry holds the node, so that its id
    is not reused while the memo lives. `scope` (compared by identity) ties a result to where it
    was made: the statement list a pass inserted its statements into."""

    __slots__ = ("seen",)
    MISSING = object()

    def __init__(self):
        self.seen: dict = {}

    def get(self, e: Expr, scope=None):
        got = self.seen.get(id(e))
        if got is not None and got[0] is e and got[1] is scope:
            return got[2]
        return NodeMemo.MISSING

    def put(self, e: Expr, value, scope=None):
        self.seen[id(e)] = (e, scope, value)
        return value


def blocks(s: N.Stmt) -> list[list[N.Stmt]]:
    """The statement lists `s` holds (an If's then and orelse, a loop's body), in program order."""
    return [getattr(s, f) for f in s.BLOCKS]


def map_blocks(s: N.Stmt, fn: Callable[[list[N.Stmt]], list[N.Stmt]]) -> N.Stmt:
    """`s` with each of its blocks replaced by `fn(block)`; `s` itself when it holds none."""
    if not s.BLOCKS:
        return s
    return dataclasses.replace(s, **{f: fn(getattr(s, f)) for f in s.BLOCKS})


def map_stmts(body: list[N.Stmt], fn, *, top_down: bool = False) -> list[N.Stmt]:
    """Rebuild a statement list, recursing into every block of every statement.

    Each statement, nested ones included, is replaced by what `fn` returns: a statement, or a
    list of statements spliced in its place. By default (bottom-up) `fn(s)` gets `s` with its
    blocks already rebuilt. With `top_down=True`, `fn(s, walk)` gets `s` as it stands and
    rebuilds the blocks it keeps itself, with `map_blocks(s, walk)` or `walk(block)`: for a pass
    that numbers what it creates in program order (a statement's own expressions before its
    blocks) or that must not revisit the statements it adds."""
    def walk(stmts: list[N.Stmt]) -> list[N.Stmt]:
        out: list[N.Stmt] = []
        for s in stmts:
            r = fn(s, walk) if top_down else fn(map_blocks(s, walk))
            if isinstance(r, list):
                out += r
            else:
                out.append(r)
        return out

    return walk(body)


def map_stmt_exprs(s: N.Stmt, fn: Callable[[Expr], Expr]) -> N.Stmt:
    """`s` with each of its own expressions (not those of its blocks) replaced by `fn(e)`."""
    kw = {f: fn(getattr(s, f)) for f in EXPR_FIELDS if isinstance(getattr(s, f, None), Expr)}
    if getattr(s, "indices", None):
        kw["indices"] = tuple(fn(i) for i in s.indices)
    return dataclasses.replace(s, **kw) if kw else s


def map_body(body: list[N.Stmt], fn: ExprFn) -> list[N.Stmt]:
    """Every expression of every statement through `map_expr(…, fn)`."""
    return map_stmts(body, lambda s: map_stmt_exprs(s, lambda e: map_expr(e, fn)))


def iter_stmts(body: list[N.Stmt]) -> Iterator[N.Stmt]:
    """Every statement, nested ones included, in program order. Without recursion: inlined
    calls nest statements as deep as their chain is long, and a chain of nested generators
    would pass each statement through every level."""
    stack = [iter(body)]
    while stack:
        s = next(stack[-1], None)
        if s is None:
            stack.pop()
            continue
        yield s
        stack.extend(iter(b) for b in reversed(blocks(s)))


def stmt_roots(s: N.Stmt) -> Iterator[Expr]:
    """`s`'s own expressions (not those of its blocks), the roots `stmt_exprs` walks."""
    for f in EXPR_FIELDS:
        e = getattr(s, f, None)
        if isinstance(e, Expr):
            yield e
    yield from getattr(s, "indices", ())


def unique_exprs(roots) -> Iterator[Expr]:
    """Every distinct node below `roots`, each once however often it is shared (typed IR is a
    DAG, and walking a deep one as a tree takes time quadratic in its depth)."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(x.args)


def stmt_exprs(s: N.Stmt) -> Iterator[Expr]:
    """Every expression node of `s`'s own expressions (not of its blocks), each tree in order."""
    for f in EXPR_FIELDS:
        e = getattr(s, f, None)
        if isinstance(e, Expr):
            yield from iter_exprs(e)
    for i in getattr(s, "indices", ()):
        yield from iter_exprs(i)


def iter_exprs(e: Expr) -> Iterator[Expr]:
    """`e` and every node below it, pre-order (a shared subexpression once per use). With an
    explicit stack: nested generators would cost the depth per node, and deep sums exist."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        if x.args:
            stack.extend(reversed(x.args))

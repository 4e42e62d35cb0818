"""The float32 math builtins as Tack library functions: `exp`, `log`, `sin`, `cos` and `tanh` of
an f32 become the typed IR of `tack.lib`'s `exp_f32`, `log_f32`, ... on the engines that take
them (docs/numerics.md), so that a user's loop vectorizes on the CPU (a target's `llvm.exp` is a
scalar C library call per element) and every such engine computes the same bits.

The library registers each function once (`register`, from `tack.lib.builtin_math`) as a
builder of its `Template`: the straight-line typed IR of the function applied to one scalar
parameter, made into one expression DAG in which each of its locals is a shared node. A use is
that DAG with the parameter replaced by the call's argument, every node placed at the call's
location, and the later passes see it as user code (`passes.cse` binds its repeated nodes to
locals, `passes.muladd` fuses as always).

That binding happens only where a statement evaluates its expression once and eagerly, with no
atomic beside it; elsewhere (a `while` condition, an arm of `and`/`or`/`if`-`else`, a statement
with an atomic) the DAG would be printed and simulated as a tree, millions of nodes for `sin`.
So such a statement is first taken apart, in its evaluation order: each lazy operation becomes
an `If` that assigns a fresh local, each load, atomic and math call a fresh local of its own (a
`while` condition is evaluated at the top of a `while True` loop that breaks when it is
false). Arithmetic stays inline, so what fuses into a multiply-add is unchanged.
"""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..dtypes import DType
from ..ir import nodes as N
from ..ir.nodes import Expr, KernelIR
from ..ir.ops import ATOMIC, LAZY, LEAVES, Op
from ..ir.walk import (
    map_blocks,
    map_body,
    map_expr,
    map_stmt_exprs,
    map_stmts,
    stmt_roots,
    unique_exprs,
)
from .names import Names


@dataclass(frozen=True)
class Template:
    """A function of one scalar as an expression DAG over the leaf `arg` (an `Op.PARAM`)."""

    arg: Expr
    body: Expr


def template_of(body: list[N.Stmt], param: str) -> Template:
    """The `Template` of a typed kernel body that assigns locals and ends with one store of the
    function's value, its parameter the scalar `param`: each local read becomes the expression
    last assigned to it."""
    env: dict[str, Expr] = {}
    arg: list[Expr] = []

    def resolve(e: Expr) -> Expr:
        if e.op is Op.VAR:
            return env[e.arg]
        if e.op is Op.PARAM and e.arg == param:
            if not arg:
                arg.append(e)
            return arg[0]
        return e

    result = None
    for s in body:
        if isinstance(s, N.Assign):
            env[s.name] = map_expr(s.value, resolve)
        elif isinstance(s, N.Store) and result is None:
            result = map_expr(s.value, resolve)
        else:
            raise TypeError(f"a math template is straight-line code ending in one store, "
                            f"not {type(s).__name__} at {s.loc}")
    if result is None or not arg:
        raise TypeError("a math template stores a value computed from its parameter")
    return Template(arg[0], result)


_BUILDERS: dict[tuple[Op, str], Callable[[], Template]] = {}
# library functions the type checker applies by name (`apply`), such as the TF32 rounding of an
# MMA's f32 inputs (frontend/typing/mma.py): the library's Tack source stays their one definition
_NAMED: dict[tuple[str, str], Callable[[], Template]] = {}
_BUILT: dict[tuple, Template] = {}
_LOCK = threading.Lock()


def register(op: Op, dtype: DType, build: Callable[[], Template]) -> None:
    """`build()` gives the Template that replaces `op` on `dtype` (called at the first use)."""
    _BUILDERS[(op, dtype.name)] = build


def register_function(name: str, dtype: DType, build: Callable[[], Template]) -> None:
    """`build()` gives the Template of library function `name` of one `dtype` scalar (called
    at the first `apply`)."""
    _NAMED[(name, dtype.name)] = build


def replaced() -> list[tuple[Op, str]]:
    """The (op, dtype name) pairs that have a library function."""
    return sorted(_BUILDERS, key=lambda k: (k[0].name, k[1]))


def _template(key: tuple, builders: dict) -> Template:
    got = _BUILT.get(key)
    if got is None:
        with _LOCK:
            got = _BUILT.get(key)
            if got is None:
                got = _BUILT[key] = builders[key]()
    return got


def apply(name: str, arg: Expr, loc: N.Loc) -> Expr:
    """Library function `name` (registered by `tack.lib` with `register_function`) applied to
    the typed scalar `arg`, as an expression DAG placed at `loc`."""
    key = (name, arg.dtype.name)
    if key not in _NAMED:
        raise LookupError(f"no library function {name} of {arg.dtype.name} is registered "
                          "(tack.lib registers them when tack is imported)")
    return _use(_template(key, _NAMED), arg, loc)


def _use(t: Template, arg: Expr, loc: N.Loc) -> Expr:
    def place(e: Expr) -> Expr:
        if e is t.arg:
            return arg
        return e.replace(loc=loc)

    return map_expr(t.body, place, {id(t.arg): (t.arg, arg)})


def _is_math(e: Expr) -> bool:
    return e.dtype is not None and (e.op, e.dtype.name) in _BUILDERS


def use_library_math(k: KernelIR) -> None:
    """Replace each registered math builtin in `k` by its library function (in place)."""
    if not _BUILDERS:
        return

    def sub(e: Expr) -> Expr:
        key = (e.op, e.dtype.name) if _is_math(e) else None
        return _use(_template(key, _BUILDERS), e.args[0], e.loc) if key else e

    k.body = map_stmts(k.body, _Apart(Names(k.locals, "lm")).stmt, top_down=True)
    k.body = map_body(k.body, sub)


def _lazy_math(e: Expr) -> bool:
    """Whether a math call sits in a lazily evaluated operand below `e`."""
    for x in unique_exprs([e]):
        if x.op in LAZY and any(_is_math(y) for y in unique_exprs(x.args[1:])):
            return True
    return False


class _Apart:
    """Takes apart, in evaluation order, the statements whose math calls could not be bound to
    locals where they stand (the module's docstring)."""

    def __init__(self, names: Names):
        self.names = names

    def stmt(self, s: N.Stmt, walk) -> list[N.Stmt]:
        roots = list(stmt_roots(s))
        nodes = list(unique_exprs(roots))
        if not any(_is_math(x) for x in nodes):
            return [map_blocks(s, walk)]
        if isinstance(s, N.While):
            pre: list[N.Stmt] = []
            c = self.flat(s.cond, pre, {})
            stop = N.If(s.loc, Expr(Op.NOT, c.dtype, (c,), None, s.loc), [N.Break(s.loc)], [])
            true = Expr(Op.CONST, c.dtype, (), True, s.loc)
            return [N.While(s.loc, true, walk(pre + [stop] + s.body))]
        if not any(x.op in ATOMIC for x in nodes) and not any(_lazy_math(r) for r in roots):
            return [map_blocks(s, walk)]
        pre = []
        memo: dict = {}
        if isinstance(s, N.Store):  # Python's order: the value, then the indices
            value = self.flat(s.value, pre, memo)
            s = dataclasses.replace(s, value=value,
                                    indices=tuple(self.flat(i, pre, memo) for i in s.indices))
        else:
            s = map_stmt_exprs(s, lambda e: self.flat(e, pre, memo))
        return walk(pre) + [map_blocks(s, walk)]

    def bind(self, e: Expr, pre: list) -> Expr:
        name = self.names.fresh(e.dtype)
        pre.append(N.Assign(e.loc, name, e))
        return Expr(Op.VAR, e.dtype, (), name, e.loc)

    def flat(self, e: Expr, pre: list, memo: dict) -> Expr:
        """`e` with its lazy operations, loads, atomics and math calls bound to locals by
        statements appended to `pre`, in evaluation order (operands left to right)."""
        got = memo.get(id(e))
        if got is not None:
            return got[1]
        if e.op in LEAVES:
            return e
        if e.op in LAZY:
            out = self.lazy(e, pre, memo)
        else:
            args = tuple(self.flat(a, pre, memo) for a in e.args)
            out = e.replace(args=args) if any(x is not y for x, y in zip(args, e.args)) else e
            if e.op is Op.LOAD or e.op in ATOMIC or _is_math(e):
                out = self.bind(out, pre)
        memo[id(e)] = (e, out)
        return out

    def lazy(self, e: Expr, pre: list, memo: dict) -> Expr:
        """`and`, `or`, `a if c else b` as an `If` assigning a fresh local; an arm's bindings
        stay in its block."""
        first = self.flat(e.args[0], pre, memo)
        if e.op is Op.IFEXP:
            name = self.names.fresh(e.dtype)
            arms = []
            for arm in e.args[1:]:
                block: list[N.Stmt] = []
                v = self.flat(arm, block, dict(memo))
                arms.append(block + [N.Assign(e.loc, name, v)])
            pre.append(N.If(e.loc, first, arms[0], arms[1]))
            return Expr(Op.VAR, e.dtype, (), name, e.loc)
        t = self.bind(first, pre)
        block = []
        v = self.flat(e.args[1], block, dict(memo))
        block.append(N.Assign(e.loc, t.arg, v))
        cond = t if e.op is Op.LAND else Expr(Op.NOT, t.dtype, (t,), None, e.loc)
        pre.append(N.If(e.loc, cond, block, []))
        return t

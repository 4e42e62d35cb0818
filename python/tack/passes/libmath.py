"""The float32 math builtins as Tack library functions: `exp`, `log`, `sin`, `cos` and `tanh` of
an f32 become the typed IR of `tack.lib`'s `exp_f32`, `log_f32`, ... on the engines that take
them (docs/numerics.md), so that a user's loop vectorizes on the CPU (a target's `llvm.exp` is a
scalar C library call per element) and every such engine computes the same bits.

The library registers each function once (`register`, from `tack.lib.builtin_math`) as a
builder of its `Template`: the straight-line typed IR of the function applied to one scalar
parameter, made into one expression DAG in which each of its locals is a shared node. A use is
that DAG with the parameter replaced by the call's argument, every node placed at the call's
location; it is an expression, so it goes wherever the builtin was (a `while` condition, one arm
of `and`/`or`/`if`-`else`, beside an atomic) with nothing hoisted, and the later passes see it as
user code (`passes.cse` binds its repeated nodes to locals, `passes.muladd` fuses as always).
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..dtypes import DType
from ..ir import nodes as N
from ..ir.nodes import Expr, KernelIR
from ..ir.ops import Op
from ..ir.walk import map_body, map_expr


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
_BUILT: dict[tuple[Op, str], Template] = {}
_LOCK = threading.Lock()


def register(op: Op, dtype: DType, build: Callable[[], Template]) -> None:
    """`build()` gives the Template that replaces `op` on `dtype` (called at the first use)."""
    _BUILDERS[(op, dtype.name)] = build


def replaced() -> list[tuple[Op, str]]:
    """The (op, dtype name) pairs that have a library function."""
    return sorted(_BUILDERS, key=lambda k: (k[0].name, k[1]))


def _template(op: Op, dtype: DType) -> Template:
    key = (op, dtype.name)
    got = _BUILT.get(key)
    if got is None:
        with _LOCK:
            got = _BUILT.get(key)
            if got is None:
                got = _BUILT[key] = _BUILDERS[key]()
    return got


def _use(t: Template, arg: Expr, loc: N.Loc) -> Expr:
    def place(e: Expr) -> Expr:
        if e is t.arg:
            return arg
        return e.replace(loc=loc)

    return map_expr(t.body, place, {id(t.arg): (t.arg, arg)})


def use_library_math(k: KernelIR) -> None:
    """Replace each registered math builtin in `k` by its library function (in place)."""
    if not _BUILDERS:
        return

    def sub(e: Expr) -> Expr:
        if e.dtype is not None and (e.op, e.dtype.name) in _BUILDERS:
            return _use(_template(e.op, e.dtype), e.args[0], e.loc)
        return e

    k.body = map_body(k.body, sub)

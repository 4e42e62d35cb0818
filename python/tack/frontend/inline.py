"""`@tack.func` device functions, inlined where they are called (at the AST → IR step).

A call binds each parameter to the caller's value: an object, or a name the callee only reads
(arrays and scratch arrays are thereby aliased, written in place), or else a fresh local holding
the argument's value. Every local of the callee gets a fresh name. `return` may end the function
on any path except inside a loop; each return assigns the result variable(s) and, where code
follows, sets a flag that guards the rest of the body.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..errors import TackRuntimeError, TackTypeError
from ..ir.nodes import Assign, Expr
from ..ir.ops import Op
from .source import capture, closure_values


class Func:
    """A device function: inlined into kernels; not callable from Python."""

    def __init__(self, fn):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TackTypeError(f"@tack.func decorates a function, got {type(fn).__name__}")
        self.fn = fn
        self.name = fn.__name__
        self.source = capture(fn)

    def __repr__(self) -> str:
        return f"<tack.func {self.name}>"

    def __call__(self, *args, **kwargs):
        raise TackRuntimeError(
            f"@tack.func '{self.name}' cannot be called from Python. Device functions run inside "
            "kernels: call it from a @tack.kernel's body.")

    @property
    def closure(self) -> dict:
        return closure_values(self.fn)


def func(fn) -> Func:
    """Decorator: make `fn` a device function, inlined into the kernels that call it."""
    if isinstance(fn, staticmethod):
        return staticmethod(Func(fn.__func__))
    return Func(fn)


@dataclass(frozen=True)
class ObjRef:
    """A device-class object in the frontend: its attribute path from a kernel parameter."""

    path: tuple
    info: object  # objects.ObjInfo


def _returns(tree: ast.FunctionDef) -> list[ast.Return]:
    out = []

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                continue
            if isinstance(child, ast.Return):
                out.append(child)
            walk(child)

    walk(tree)
    return out


def _arity(parser, tree, returns) -> int:
    """How many values every return gives (0: none)."""
    counts = set()
    for r in returns:
        if r.value is None:
            counts.add(0)
        elif isinstance(r.value, ast.Tuple):
            counts.add(len(r.value.elts))
        else:
            counts.add(1)
    if len(counts) > 1:
        raise parser.unsupported(tree, "device function whose returns give different numbers "
                                       "of values")
    return counts.pop() if counts else 0


def inline_call(parser, fn: Func, arg_nodes: list, node, self_ref=None) -> list[Expr]:
    """Inline `fn(*arg_nodes)` into `parser`'s current statement; return its result values."""
    from .parser import Parser, _assigned_names

    root = parser.root
    if parser.lazy_depth:
        raise parser.unsupported(node, f"call of device function '{fn.name}' inside `and`, `or`"
                                       " or a conditional expression",
                                 "assign the call's result to a local first")
    if fn in root.stack:
        raise parser.unsupported(node, f"recursive call of device function '{fn.name}'",
                                 "device functions are inlined, so they cannot recurse")
    tree = fn.source.tree
    pnames = [a.arg for a in tree.args.args]
    if tree.args.vararg or tree.args.kwarg or tree.args.kwonlyargs or tree.args.defaults:
        raise parser.unsupported(node, f"device function '{fn.name}' with *args, **kwargs, "
                                       "keyword-only or default parameters")
    bound = ([self_ref] if self_ref is not None else []) + list(arg_nodes)
    if len(bound) != len(pnames):
        raise parser.unsupported(node, f"device function '{fn.name}' takes {len(pnames)} "
                                       f"arguments, got {len(bound)}")
    assigned = _assigned_names(tree)
    rename: dict = {}
    loc = parser.src.loc(node)
    for pname, arg in zip(pnames, bound):
        if isinstance(arg, ObjRef):
            rename[pname] = arg
            continue
        fn_arg = parser.func_value(arg)
        if fn_arg is not None:  # a device function passed as an argument
            rename[pname] = fn_arg
            continue
        ref = parser.alias_of(arg)
        if isinstance(ref, ObjRef) or (ref is not None and pname not in assigned):
            rename[pname] = ref
            continue
        tmp = root.fresh(f"{fn.name}_{pname}")
        root.pre.append(Assign(parser.src.loc(arg), tmp, parser.expr(arg)))
        rename[pname] = tmp
    for name in sorted(assigned - set(pnames)):
        rename[name] = root.fresh(f"{fn.name}_{name}")
    returns = _returns(tree)
    n = _arity(parser, tree, returns)
    results = [root.fresh(f"{fn.name}_ret") for _ in range(n)]
    nested = any(not any(r is s for s in tree.body) for r in returns)
    done = root.fresh(f"{fn.name}_done") if nested else None
    sub = Parser(fn.source, fn.fn.__globals__, fn.closure, kind="Device function", root=root,
                 rename=rename, inlined_into=root.name)
    sub.ret_names, sub.done_flag = results, done
    root.stack.append(fn)
    root.call_locs.append(loc)
    try:
        body = sub.block([s for s in tree.body if not _is_doc(s)])
    finally:
        root.stack.pop()
        root.call_locs.pop()
    if done is not None:
        root.pre.append(Assign(loc, done, Expr(Op.CONST, None, (), 0, loc)))
    root.pre.extend(body)
    return [Expr(Op.VAR, None, (), r, loc) for r in results]


def _is_doc(s) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(
        s.value.value, str)

"""`@tack.func` device functions, and how a call binds the callee's names when it is inlined.

The parser inlines a call where it meets it (at the AST → IR step, `Calls.inline_call`), parsing
the body with the names `bind_arguments` gives; this module only knows the parser's interface,
never its class.

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
from ..ir.nodes import Assign
from .depth import nesting, note_func
from .source import assigned_names, capture, closure_values


class Func:
    """A device function: inlined into kernels; not callable from Python."""

    def __init__(self, fn):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TackTypeError(f"@tack.func decorates a function, got {type(fn).__name__}")
        self.fn = fn
        self.name = fn.__name__
        # help(), the API reference and other introspection see the function's own name,
        # module and docstring
        self.__name__, self.__qualname__ = fn.__name__, fn.__qualname__
        self.__module__, self.__doc__, self.__wrapped__ = fn.__module__, fn.__doc__, fn
        self.source = capture(fn)
        self.source.scope = self.source.tree.name  # its accesses name it in debug reports
        note_func(nesting(self.source.tree)[0])  # kernels inlining it nest that much deeper

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


def function_returns(tree: ast.FunctionDef) -> list[ast.Return]:
    """The function's own `return` statements (not those of nested definitions)."""
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


def return_arity(parser, tree, returns) -> int:
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


def bind_arguments(parser, fn: Func, arg_nodes: list, node, self_ref=None) -> dict:
    """The names `fn`'s body is parsed with, for the call `fn(*arg_nodes)` that `parser` is
    parsing at `node`: each parameter bound to an object, a device function, an alias of the
    caller's array or read-only local, or else a fresh local assigned the argument's value
    (that assignment goes to `parser.root.pre`); each other local of `fn` a fresh name."""
    root = parser.root
    tree = fn.source.tree
    pnames = [a.arg for a in tree.args.args]
    if tree.args.vararg or tree.args.kwarg or tree.args.kwonlyargs or tree.args.defaults:
        raise parser.unsupported(node, f"device function '{fn.name}' with *args, **kwargs, "
                                       "keyword-only or default parameters")
    bound = ([self_ref] if self_ref is not None else []) + list(arg_nodes)
    if len(bound) != len(pnames):
        raise parser.unsupported(node, f"device function '{fn.name}' takes {len(pnames)} "
                                       f"arguments, got {len(bound)}")
    assigned = assigned_names(tree)
    rename: dict = {}
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
    return rename

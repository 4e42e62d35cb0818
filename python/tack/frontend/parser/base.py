"""The parser's shared state, its error helpers, and the dispatch of `ast` nodes to visitors.

Every statement goes through `visit` and every expression through `expr`; each looks up
`visit_<ast class>` / `expr_<ast class>` on the parser (the class namespace is the dispatch
table) and rejects a node without one at its position. A foreign exception raised while a node
is visited is a bug in tack: it is wrapped once, at the innermost node, as an
`InternalCompilerError` whose `.loc` is that node's position and whose cause is the original.
"""
from __future__ import annotations

import ast

from ...errors import (
    InternalCompilerError,
    KindError,
    TackError,
    TackNameError,
    UnsupportedSyntaxError,
)
from ...ir.nodes import Stmt
from ...passes.names import numbered
from ..inline import Func, ObjRef
from ..source import Source, assigned_names

# Python constructs a kernel does not accept, named as a Python programmer would name them, with
# what to write instead (the AST class name means nothing to most users).
_CONSTRUCTS: dict[str, tuple[str, str | None]] = {
    "ListComp": ("a list comprehension", ("kernels have no lists: write a loop, and keep values "
                                          "in a tack.local_array or a tack.Vector")),
    "SetComp": ("a set comprehension", None),
    "DictComp": ("a dict comprehension", None),
    "GeneratorExp": ("a generator expression", "write a loop with an accumulator"),
    "List": ("a list", "use a tuple of values to unpack, a tack.Vector, or a tack.local_array"),
    "Set": ("a set", None),
    "Dict": ("a dict", "pass values as arguments, or use a @tack.device_class object"),
    "JoinedStr": ("an f-string", "print takes several values: print(\"x =\", x)"),
    "FormattedValue": ("an f-string", "print takes several values: print(\"x =\", x)"),
    "Lambda": ("a lambda", "define a @tack.func at module level and call it"),
    "NamedExpr": ("an assignment expression (:=)", "assign on a line of its own"),
    "Await": ("`await`", None),
    "Yield": ("`yield`", "a kernel writes its results into arrays or returns a value"),
    "YieldFrom": ("`yield from`", None),
    "Starred": ("a starred expression (*x)", "pass each value by name"),
    "Slice": ("a slice", "index one element at a time (a[i]), in a loop if needed"),
    "FunctionDef": ("a function definition inside a kernel",
                    "define a @tack.func at module level and call it"),
    "AsyncFunctionDef": ("an async function definition", None),
    "ClassDef": ("a class definition inside a kernel",
                 "define a @tack.device_class at module level"),
    "Try": ("try/except", "kernels cannot raise or catch exceptions"),
    "TryStar": ("try/except*", "kernels cannot raise or catch exceptions"),
    "Raise": ("`raise`", "kernels cannot raise: write an error flag into an array"),
    "With": ("a `with` block", None),
    "AsyncWith": ("`async with`", None),
    "AsyncFor": ("`async for`", None),
    "Import": ("import inside a kernel", "import at module level"),
    "ImportFrom": ("import inside a kernel", "import at module level"),
    "Global": ("`global`", "pass the array as an argument"),
    "Nonlocal": ("`nonlocal`", None),
    "Delete": ("`del`", None),
    "Assert": ("`assert`", ("kernels cannot raise: debug mode (tack.set_debug) checks indices, "
                           "and tack.check finds races; or write a flag into an array")),
    "Match": ("`match`", "use if/elif"),
    "TypeAlias": ("a type alias", None),
}


def construct_name(node: ast.AST) -> tuple[str, str | None]:
    """How a user would name `node`'s construct, and what to write instead (or None)."""
    return _CONSTRUCTS.get(type(node).__name__, (f"`{type(node).__name__}`", None))

class ParserBase:
    """State for one kernel body, or for one inlined device function (`root` is then the
    kernel's parser, which holds the state shared by the whole kernel)."""

    def __init__(self, source: Source, fn_globals: dict, closure: dict, kind: str = "Kernel",
                 root: ParserBase | None = None, rename: dict | None = None,
                 inlined_into: str | None = None, objects: dict | None = None):
        self.src = source
        self.globals = fn_globals
        self.closure = closure
        self.kind = kind
        self.name = source.tree.name
        self.params = [a.arg for a in source.tree.args.args]
        self.root = root or self
        self.rename: dict = dict(rename or {})
        self.inlined_into = inlined_into
        self.lazy_depth = 0
        self.ret_names = None  # device functions: the variables their returns assign
        self.done_flag = None
        if root is None:
            self.assigned: set[str] = set()
            self.pre: list[Stmt] = []  # statements an inlined call puts before the current one
            self.stack: list = []  # (function, bound object path) being inlined: recursion check
            self.call_locs: list = []  # where each of them was called
            self.extra: dict[str, tuple] = {}  # expanded object attribute -> path
            self.counter = 0
            self.effect_facts: dict = {}  # parser/order.py's memo: id(Expr) -> (Expr, bits)
            for pname, info in (objects or {}).items():  # arguments bound at parse time
                self.rename[pname] = info if isinstance(info, Func) else ObjRef((pname,), info)
        else:
            self.assigned = root.assigned
        self.local_names = assigned_names(source.tree)
        self.scratch_names, self.local_scratch = self._scan_scratch(source.tree)
        self.loop_depth = 0

    # -- errors ---------------------------------------------------------------------------------
    @property
    def title(self) -> str:
        extra = f" (inlined into kernel '{self.inlined_into}')" if self.inlined_into else ""
        return f"{self.kind} '{self.name}'{extra}"

    def unsupported(self, node: ast.AST, what: str, hint: str | None = None):
        loc = self.src.loc(node)
        msg = f"{self.title}: {what} at line {loc.line}, column {loc.col}"
        return UnsupportedSyntaxError.at(loc, msg, hint)

    def refuse_kernel_call(self, call: ast.Call) -> None:
        """A kernel called from a kernel: say so, and what to write instead."""
        fn = self._resolve(call.func, quiet=True)
        if getattr(fn, "__tack_kernel__", False):
            raise self.unsupported(
                call, f"a kernel cannot call another @tack.kernel ('{ast.unparse(call.func)}')",
                "make the callee a @tack.func (a device function, inlined into the caller), or "
                "launch the two kernels one after the other from Python")

    def kind_error(self, node: ast.AST, what: str, hint: str | None = None):
        """A value of the wrong kind for its place (errors.KindError: a TypeError)."""
        loc = self.src.loc(node)
        return KindError.at(loc, f"{self.title}: {what} at line {loc.line}, column {loc.col}",
                            hint)

    def name_error(self, node: ast.AST, name: str):
        loc = self.src.loc(node)
        msg = (f"{self.title}: name '{name}' at line {loc.line}, column {loc.col} is not "
               "defined in the kernel")
        hint = ("kernels capture no Python values: pass it as an argument, or declare it with "
                f"tack.constant (e.g. {name} = tack.constant(...)) at module scope")
        return TackNameError.at(loc, msg, hint)

    def internal_error(self, node: ast.AST, exc: Exception) -> InternalCompilerError:
        loc = self.src.loc(node)
        msg = (f"{self.title}: internal error while parsing the {type(node).__name__} at line "
               f"{loc.line}, column {loc.col}: {type(exc).__name__}: {exc}")
        return InternalCompilerError.at(loc, msg, "this is a bug in tack, not in the kernel; "
                                                  "please report it with this message")

    # -- dispatch -------------------------------------------------------------------------------
    def visit(self, node: ast.stmt) -> list[Stmt]:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            what, hint = construct_name(node)
            raise self.unsupported(node, f"{what} is not supported in tack kernels",
                                   hint or "see docs/language.md for the statements kernels "
                                           "accept")
        return self.guarded(method, node)

    def expr(self, node: ast.expr):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            what, hint = construct_name(node)
            raise self.unsupported(node, f"{what} is not supported in tack kernels",
                                   hint or "see docs/language.md for the expressions kernels "
                                           "accept")
        return self.guarded(method, node)

    def guarded(self, step, node: ast.AST):
        """`step(node)`, with a foreign exception wrapped at `node` (a TackError, raised on
        purpose or already wrapped at an inner node, passes through untouched)."""
        try:
            return step(node)
        except TackError:
            raise
        except Exception as exc:
            raise self.internal_error(node, exc) from exc

    def fresh(self, prefix: str) -> str:
        """A new local name, unique in the kernel."""
        root = self.root
        root.counter += 1
        name = numbered(prefix, root.counter)
        root.assigned.add(name)
        return name

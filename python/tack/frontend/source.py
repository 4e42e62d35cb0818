"""Source capture: the function's text, its AST, `Loc`s in file coordinates, and AST facts
shared by the kernel and device-function parses."""
from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import threading
from dataclasses import dataclass

from ..errors import TackRuntimeError, UnsupportedSyntaxError
from ..ir.nodes import Loc


@dataclass
class Source:
    file: str
    first_line: int  # file line of the first captured line
    indent: int  # columns removed by dedent
    lines: tuple[str, ...]  # the captured lines as in the file
    tree: ast.FunctionDef
    scope: str = ""  # a device function's name (its Locs carry it), "" for a kernel

    def loc(self, node: ast.AST) -> Loc:
        """A `Loc` in file coordinates for an AST node of the dedented source."""
        line = node.lineno + self.first_line - 1
        end_line = (node.end_lineno or node.lineno) + self.first_line - 1
        return Loc(self.file, line, node.col_offset + 1 + self.indent, end_line,
                   (node.end_col_offset or node.col_offset + 1) + 1 + self.indent,
                   self.lines, self.first_line, self.scope)


def capture(fn) -> Source:
    """Read and parse a function's source, or explain where kernels must be defined."""
    try:
        lines, first = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as exc:
        raise TackRuntimeError(
            f"Cannot read the source of {getattr(fn, '__qualname__', fn)!r}: Tack compiles a kernel "
            "from its Python source, so define kernels in a .py file (or a notebook cell), not with "
            "exec(), `python -c` or a bare interactive prompt."
        ) from exc
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    first_src = next((ln for ln in lines if ln.strip()), "")
    first_ded = next((ln for ln in dedented.splitlines() if ln.strip()), "")
    indent = len(first_src) - len(first_src.lstrip()) - (len(first_ded) - len(first_ded.lstrip()))
    try:
        module = parse(dedented)
    except RecursionError:  # deeper than Python's own limit lets ast build
        raise UnsupportedSyntaxError(
            f"{getattr(fn, '__qualname__', fn)!r} at {file}:{first} nests too deeply for "
            f"Python's recursion limit ({sys.getrecursionlimit()}) to parse it; split the "
            "expression into partial sums assigned to locals") from None
    tree = next((n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
                None)
    if tree is None or getattr(fn, "__name__", "") == "<lambda>":
        raise UnsupportedSyntaxError(
            f"{getattr(fn, '__qualname__', fn)!r} at {file}:{first} is not a function defined "
            "with `def`: kernels and device functions are written as `def name(...):` with a "
            "body (a lambda has no statements)")
    return Source(file, first, indent, tuple(ln.rstrip("\n") for ln in lines), tree)


_parse_lock = threading.Lock()


def parse(text: str, mode: str = "exec") -> ast.AST:
    """`ast.parse`, one thread at a time: CPython 3.11 keeps the AST converter's recursion
    depth in interpreter-wide state, and concurrent parses can corrupt it ("SystemError: AST
    constructor recursion depth mismatch"). Tack parses at decoration and when it builds a call
    path (tack.call.fast), always through here."""
    with _parse_lock:
        return ast.parse(text, mode=mode)


def closure_values(fn) -> dict:
    """The values of `fn`'s closure cells by name; a cell not yet assigned is left out (the name
    then resolves like any other unknown name)."""
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # an empty cell: the enclosing function has not assigned it yet
            pass
    return out


def is_docstring(s: ast.stmt) -> bool:
    """A bare string statement (a docstring, or a string used as a comment): no effect."""
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(
        s.value.value, str)


def assigned_names(tree: ast.FunctionDef) -> frozenset:
    """Every name the function stores to anywhere: its locals, by Python's scoping rule."""
    return frozenset(n.id for n in ast.walk(tree)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))

"""The untyped IR's own nodes: statements only the frontend builds, and the parsed kernel.

The parser produces them; the typechecker consumes them (turning each into typed `ir.nodes`
statements), so both import them from here and neither imports the other.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.nodes import Assign, Expr, Loc, Stmt
from .hostrange import HostRange
from .source import Source


@dataclass
class DeclScratch(Stmt):
    """Frontend-only: `name = tack.local_array(dtype, size)` and friends. The typechecker turns it
    into a `KernelIR.scratch` entry once the size is a known constant."""

    name: str = ""
    space: str = "local"
    dtype: object = None  # a DType, or the name of an array parameter (`*_like`)
    size: Expr | None = None
    what: str = ""


@dataclass
class SetComponent(Stmt):
    """Frontend-only: `v.y = e`, `v[k] = e`, `vf[i][c] = e`, `F[p][0, 1] = e`: one component of a
    vector/matrix local or array element. `container` is the untyped value (a VAR or a LOAD)."""

    container: Expr | None = None
    index: tuple = ()
    value: Expr | None = None


@dataclass
class TupleTemp(Assign):
    """Frontend-only: a hidden temporary of a tuple assignment (`d, e = 0.1, d`), which holds one
    value until every value is computed. `target` is the statement that later stores it (an
    Assign, Store or SetComponent reading this temporary). The typechecker gives the temporary
    the type its target gives the value, so that the program types as if the target were
    assigned the value directly (a weak float stays weak until it meets the target's type)."""

    target: Stmt | None = None


@dataclass
class ParsedKernel:
    name: str
    params: list[str]
    source: Source
    loc: Loc
    loop_var: str  # the parallel loop's variable (the first one of an ndrange)
    loop_loc: Loc
    host_range: HostRange
    body: list[Stmt]  # prologue statements first, then the loop body
    assigned: set[str] = field(default_factory=set)
    # With device-class arguments: the IR's parameters are the kernel's other parameters plus one
    # per object attribute used; `paths[k]` = (argument position, attribute path) of param k.
    paths: list | None = None
    nargs: int = 0
    loop_vars: tuple = ()  # every variable of the parallel loop (several for an ndrange)
    # A kernel ending in `return expr` (with a return annotation): a one-iteration kernel that
    # stores the value into a hidden one-element array `.ret` after the main launch.
    epilogue: ParsedKernel | None = None
    ret_dtype: object = None
    # Local assignments after the loop of a kernel without a return value: nothing observes
    # them, so they only go through the type checker (a one-iteration kernel, never compiled).
    after: ParsedKernel | None = None
    shown: str = ""  # the name errors give, when not `name` (an epilogue: its user's kernel)

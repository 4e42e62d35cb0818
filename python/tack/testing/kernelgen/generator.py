"""`KernelGen`: a whole kernel, from its parameters and parallel loop to its source text."""
from __future__ import annotations

import hashlib

from ..oracle import F32, F64, I32, I64, U64
from .castrows import CastRows
from .exprs import Expressions
from .grammar import AVOID, CONSTANT_LINES, FLOAT_TYPES, INT_TYPES
from .operands import Operands
from .scopes import Scopes, _Scope
from .spec import KernelSpec, Param
from .stmts import Statements

# the parallel loop's range(...) arguments, by form; the first three cover every row
LOOP_BOUNDS = {"shape": "a0.shape[0]", "len": "len(a0)", "n": "n", "start": "1, a0.shape[0]",
               "step": "0, a0.shape[0], 2", "half": "a0.shape[0] // 2, -(-a0.shape[0])"}


class KernelGen(Statements, CastRows, Expressions, Operands, Scopes):
    """Generates one random kernel per `generate()` call.

    The parts are mixins over one state (`self.ch`, `self.params`, `self.scopes`): statements
    call expressions, expressions call the operand helpers, all of them read the scopes.
    Every random draw goes through `self.ch`, in a fixed order, so a seed names a kernel.
    """

    def __init__(self, choices, avoid=AVOID, max_depth: int = 3, max_stmts: int = 4,
                 max_nesting: int = 2, cast_rows: float = 0.3):
        self.ch = choices
        self.cast_rows = cast_rows  # the fraction of kernels with a cast row (castrows.py)
        self.avoid = frozenset(avoid)
        self.in_divmod = 0
        self.max_depth, self.max_stmts, self.max_nesting = max_depth, max_stmts, max_nesting

    # -- kernel -----------------------------------------------------------------------------------
    def generate(self) -> KernelSpec:
        self.params: list[Param] = []
        self.n_locals = 0
        self.draw_params()
        self.draw_alias()
        self.draw_cast_row()
        form = self.ch.choose(["shape", "len", "n", "start", "step", "half"])
        if form == "n":
            self.params.insert(0, Param("n", "scalar", I32, role="n"))
        self.full_range = form in ("shape", "len", "n")
        self.scopes = [_Scope()]
        for p in self.params:
            if p.kind == "scalar":
                self.declare(p.name, p.t, mutable=p.role != "n")
        prologue = []
        if self.ch.flip(0.3):
            prologue.append(self.assign_new(self.max_depth - 1, scalars_only=True))
        self.scopes.append(_Scope())
        self.declare("i", I32 if form == "n" else I64, mutable=False)
        row_first = self.cast_row_on and self.ch.flip(0.5)  # the cast row: before or after
        body = self.cast_row() if row_first else []
        body += self.block(1, in_loop=False, top=True)
        if self.cast_row_on and not row_first:
            body += self.cast_row()
        for p in self.outputs():  # every output gets a final store, so results are observable
            if self.ch.flip(0.7):
                body.append(self.store(self.max_depth, p))
        code = (["    " + s for s in prologue] + [f"    for i in range({LOOP_BOUNDS[form]}):"]
                + _indent(body, 2))
        return self.assemble(code)

    def draw_params(self) -> None:
        """Inputs (1-D arrays, maybe a 2-D and a 3-D one), scalars, then outputs."""
        ch = self.ch
        dts = INT_TYPES + FLOAT_TYPES
        for k in range(ch.integer(1, 3)):
            self.params.append(Param(f"a{k}", "array", ch.choose([I32, F32] + dts)))
        if ch.flip(0.3):
            self.params.append(Param("m", "array", ch.choose(dts), cols=ch.choose([3, 1])))
        if ch.flip(0.1):
            self.params.append(Param("c", "array", ch.choose(dts), cols=2, depth=3))
        for k in range(ch.integer(0, 2)):
            self.params.append(Param(f"s{k}", "scalar", ch.choose([I32, I64, U64])))
        any_f64 = any(p.t is F64 for p in self.params)
        if ch.flip(0.4):
            self.params.append(Param("x", "scalar", F64 if any_f64 else F32))
        for k in range(ch.integer(1, 3)):
            self.params.append(Param(f"o{k}", "array", ch.choose([I32, F64] + dts), role="out"))
        if ch.flip(0.2):
            self.params.append(Param("q", "array", ch.choose(dts), role="out",
                                     cols=ch.choose([2, 3])))

    def draw_alias(self) -> None:
        """Maybe make one 1-D input also an output; then fix the float scalars' precision."""
        ch = self.ch
        self.aliased = set()
        ins = [p for p in self.params if p.role == "in" and p.kind == "array" and not p.cols]
        outs = [p for p in self.params if p.role == "out" and not p.cols]
        if ch.flip(0.15):  # one input is also an output: loads must see the iteration's stores
            src, dst = ch.choose(ins), ch.choose(outs)
            dst.t = src.t
            self.aliased = {src.name, dst.name}
        any_f64 = any(p.t is F64 for p in self.params if p.kind == "array")
        for p in self.params:  # a float scalar is f64 only beside an f64 array
            if p.kind == "scalar" and p.t.is_float:
                p.t = F64 if any_f64 else F32

    def assemble(self, code: list) -> KernelSpec:
        """The module text around the kernel body `code`, and the aliased argument positions."""
        # named by content: the same kernel gets the same name (and disk-cache entry) every run
        name = "gen_" + hashlib.sha1("\n".join(code).encode()).hexdigest()[:12]
        lines = ["import math", "", "import tack", "", *CONSTANT_LINES, "", "", "@tack.kernel",
                 f"def {name}({', '.join(p.name for p in self.params)}):"] + code
        alias = ()
        if self.aliased:
            pos = {p.name: k for k, p in enumerate(self.params)}
            src = next(n for n in self.aliased if n.startswith("a"))
            dst = next(n for n in self.aliased if n.startswith("o"))
            alias = (pos[src], pos[dst])
        return KernelSpec(name, "\n".join(lines) + "\n", self.params, alias)


def _indent(block: list, level: int) -> list:
    """Source lines from a nested list (a sub-list is a block one level deeper)."""
    out = []
    for item in block:
        if isinstance(item, list):
            out += _indent(item, level + 1)
        else:
            out.append("    " * level + item)
    return out

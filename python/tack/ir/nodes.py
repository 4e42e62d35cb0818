"""IR nodes. Expressions are one generic node; statements are a few structured dataclasses.

Every node carries a `Loc`; building one without raises at once. The untyped IR (from the parser)
has `dtype=None` on expressions; the typed IR has a dtype on every expression.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..dtypes import DType
from .ops import Op


@dataclass(frozen=True)
class Loc:
    """A span in a source file: 1-based line and column, end exclusive."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    source: tuple[str, ...] = field(default=(), compare=False, repr=False)
    first_line: int = field(default=1, compare=False, repr=False)
    # The @tack.func the span is in ("" in the kernel itself): debug reports name it.
    scope: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def source_line(self) -> str | None:
        k = self.line - self.first_line
        return self.source[k] if 0 <= k < len(self.source) else None

    def text(self) -> str:
        """The source text the span covers (one line, or the first line of several)."""
        line = self.source_line()
        if line is None:
            return ""
        end = self.end_col - 1 if self.end_line == self.line else len(line)
        return line[self.col - 1:end]


class Expr:
    """One expression node: op, dtype, operands, a static payload and a location."""

    __slots__ = ("op", "dtype", "args", "arg", "loc")  # noqa: RUF023 - the constructor's order

    def __init__(self, op: Op, dtype: DType | None, args: tuple = (), arg: Any = None,
                 loc: Loc | None = None):
        if loc is None:
            raise TypeError(f"an IR node needs a Loc ({op})")
        self.op, self.dtype, self.args, self.arg, self.loc = op, dtype, tuple(args), arg, loc

    def replace(self, **kw) -> Expr:
        return Expr(kw.get("op", self.op), kw.get("dtype", self.dtype), kw.get("args", self.args),
                    kw.get("arg", self.arg), kw.get("loc", self.loc))

    def __repr__(self) -> str:
        from .printer import expr_str

        return expr_str(self)


def _need_loc(node) -> None:
    if node.loc is None:
        raise TypeError(f"an IR node needs a Loc ({type(node).__name__})")


@dataclass
class Stmt:
    """A statement. `BLOCKS` names the fields holding nested statement lists, in program order:
    `ir.walk` recurses through them, so a new statement kind with a block only declares it."""

    BLOCKS: ClassVar[tuple[str, ...]] = ()
    loc: Loc

    def __post_init__(self):
        _need_loc(self)


@dataclass
class Assign(Stmt):
    """`name = value` for a local variable."""

    name: str = ""
    value: Expr | None = None


@dataclass
class Store(Stmt):
    """`array[indices] = value`. After `passes.linearize`, `indices` is one flat i64 index.

    `text` is the source text of the access, kept for messages."""

    array: str = ""
    indices: tuple[Expr, ...] = ()
    value: Expr | None = None
    text: str = ""


@dataclass
class If(Stmt):
    BLOCKS: ClassVar[tuple[str, ...]] = ("then", "orelse")
    cond: Expr | None = None
    then: list[Stmt] = field(default_factory=list)
    orelse: list[Stmt] = field(default_factory=list)


@dataclass
class While(Stmt):
    BLOCKS: ClassVar[tuple[str, ...]] = ("body",)
    cond: Expr | None = None
    body: list[Stmt] = field(default_factory=list)


@dataclass
class For(Stmt):
    """A sequential loop. In the final IR: `var` takes start, start+1, ..., stop-1 (unit step, `stop`
    evaluated once at entry, `start` and `stop` of `var`'s dtype). The frontend form keeps Python's
    `step` (any non-zero value); `passes.loops` normalizes it.

    `unroll` is a pure performance hint (`tack.unroll`): None leaves unrolling to the compiler, an
    int N >= 1 asks for N copies of the body per trip (1: do not unroll), "full" for every
    iteration when the trip count is a compile-time constant. Every pass that rebuilds a For
    carries it."""

    BLOCKS: ClassVar[tuple[str, ...]] = ("body",)
    var: str = ""
    start: Expr | None = None
    stop: Expr | None = None
    step: Expr | None = None
    body: list[Stmt] = field(default_factory=list)
    unroll: int | str | None = None


@dataclass
class Break(Stmt):
    pass


@dataclass
class Continue(Stmt):
    pass


@dataclass
class ExprStmt(Stmt):
    """An expression evaluated for its effects (atomics, print)."""

    value: Expr | None = None


@dataclass
class Barrier(Stmt):
    """Synchronize the lanes of one workgroup (GPU engines only)."""


@dataclass
class Scratch:
    """A scratch array: `local` (private to one launch index, like a stack array) or `shared`
    (one per workgroup of `ops.WORKGROUP` lanes). `size` is a compile-time element count.
    Uninitialized."""

    name: str
    dtype: DType
    size: int
    space: str  # 'local' | 'shared'
    loc: Loc | None = field(default=None, compare=False)  # the declaration (checker messages)
    # `tack.mbarriers(n)`: n transaction barriers (u64 each, as PTX's mbarrier object), named only
    # by the MBARRIER_* ops and ASYNC_BULK_COPY, never loaded or stored (ir/ops.py)
    barriers: bool = False


@dataclass
class Table:
    """A constant table (`tack.constant` with more than 4 entries or rows): read-only data of
    `size` elements, `values` flat and row-major (Python ints or floats, already representable
    in `dtype`), `shape` its one or two extents. Read by `Op.LOAD` like an array; never stored
    to. Emitted once per kernel as constant data by every renderer."""

    name: str
    dtype: DType
    shape: tuple
    values: tuple
    loc: Loc | None = field(default=None, compare=False)

    @property
    def size(self) -> int:
        return len(self.values)


@dataclass
class Param:
    """A kernel parameter. `kind` is 'array' or 'scalar'. Arrays record rank and the extents the
    specialization bakes in (`shape`, None for a dimension not baked)."""

    name: str
    kind: str
    dtype: DType
    ndim: int = 0
    shape: tuple = ()
    written: bool = False


@dataclass
class KernelIR:
    """One specialization of a kernel: what every renderer receives.

    The launch runs `body` once per launch index t in [0, n) (`Op.LAUNCH`); n is supplied at launch
    and is not part of the IR. Scalar parameters named `hidden` are computed on the host per launch
    (the parallel range's start and step). `locals` declares every local with its one dtype.
    """

    name: str
    params: list[Param]
    body: list[Stmt]
    locals: dict[str, DType]
    loc: Loc
    source_file: str = ""
    hidden: tuple[str, ...] = ()
    notes: dict = field(default_factory=dict)
    scratch: dict[str, Scratch] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

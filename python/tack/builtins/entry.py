"""The shape of one builtin entry: what every stage reads about a builtin, in one record.

A stage asks the entry, never a list of its own: the parser its form and arity, the typechecker
its typing rule and the dtypes it takes (`Domain`), constant folding its `fold`, the simulator its
`numpy` function, each renderer its `Lowering` and the dtypes that engine supports, the docs its
call form and line.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import dtypes as dt
from ..dtypes import DType

FLOATS: tuple[DType, ...] = (dt.f32, dt.f64)


@dataclass(frozen=True)
class Domain:
    """The dtypes a builtin's operands may have once its typing rule has converted them:
    `kinds` are dtype kinds (`dtypes.DType.kind`), and `dtypes`, when given, the only ones."""

    name: str  # as the docs show it
    kinds: str
    dtypes: tuple[DType, ...] | None = None

    def admits(self, t: DType) -> bool:
        return t.kind in self.kinds and (self.dtypes is None or t in self.dtypes)


# Float-only: the typing rule converts integer and bool arguments to f32 (or to the other float
# argument's type), so the operation sees floats only.
FLOAT = Domain("float", "f")
F32 = Domain("f32", "f", (dt.f32,))  # exactly f32: other dtypes are a TypeError
NUMBER = Domain("number", "iuf")  # integers and floats, each with its own meaning
ANY = Domain("any", "iufb")


@dataclass(frozen=True)
class Lowering:
    """How one engine spells a builtin's op, and for which operand dtypes (another dtype is a
    `RenderError` naming the op and dtype).

    kind  "intrinsic": an LLVM intrinsic overloaded on the type (`llvm.sqrt.f32`);
          "library": a C math function, `name` for f64 and `name + "f"` for f32 (libm on the CPU,
          libdevice's `__nv_<name>[f]` on PTX);
          "template": Julia text with `{0}`, `{1}` for the operands;
          "printer": the printer's own method `name` (a lowering of several instructions).
    """

    kind: str
    name: str
    dtypes: tuple[DType, ...] = FLOATS

    def admits(self, t: DType) -> bool:
        return t in self.dtypes


def intrinsic(name: str, dtypes: tuple[DType, ...] = FLOATS) -> Lowering:
    return Lowering("intrinsic", name, dtypes)


def library(name: str, dtypes: tuple[DType, ...] = FLOATS) -> Lowering:
    return Lowering("library", name, dtypes)


def template(text: str, dtypes: tuple[DType, ...] = FLOATS) -> Lowering:
    return Lowering("template", text, dtypes)


def printer(method: str, dtypes: tuple[DType, ...] = FLOATS) -> Lowering:
    return Lowering("printer", method, dtypes)


@dataclass(frozen=True, eq=False)
class Builtin:
    """One builtin. Compared by identity: an entry is its own key."""

    name: str  # as a kernel calls it (after `namespace`)
    call: str  # the documented call form: "atan2(y, x)", "min(a, b, ...)"
    doc: str  # one line: what it computes
    group: str  # the docs section (`docs.GROUPS`)
    # The parser's form (frontend/parser/calls.py, `call_<form>`): "op" builds `op` over the
    # arguments; the others are named by what they parse ("minmax", "cast", "atomic", ...).
    form: str
    # (least, most) positional arguments, most -1 for any number; None: the form checks them.
    arity: tuple[int, int] | None
    op: object = None  # the ir.ops.Op it becomes (functions.py entries get theirs in registry.py)
    # The typechecker's rule for `op` when the entry gives it (frontend/typing/rules.py, `BUILTIN_RULES`):
    # "float" (math: float operands), "power" (`**`); None: the op's rule is the operator's.
    typing: str | None = None
    domain: Domain = ANY  # operand dtypes after the typing rule (checked by the typechecker)
    dtype: DType | None = None  # the fixed result dtype of a cast (`int` → i32)
    # Constant folding of `op` on Python scalars (ir/semantics.py `evaluate`): the value before it
    # is rounded to the result dtype. None: not folded, and the engine computes it at run time.
    fold: Callable | None = None
    numpy: Callable | None = None  # the simulator's function (ir/semantics.py `NUMPY`)
    cpu: Lowering | None = None  # render/llvm/printer.py
    ptx: Lowering | None = None  # render/llvm/ptx.py
    julia: Lowering | None = None  # render/julia/ka.py
    aliases: tuple = ()  # host callables that stand for it in a kernel (`math.sqrt`, `np.sqrt`)
    host: bool = False  # importable as `tack.<name>`, computing with `numpy` from Python
    namespace: str = ""  # "tack." for the names a kernel reaches through the package
    needs: str = ""  # what an engine must have to run it ("workgroups": GPU engines only)
    space: str | None = None  # the memory space of a scratch array declaration
    # A statement of its own (`tack.barrier()`, `tack.wgmma_wait(0)`): called as a value it is
    # refused (frontend/parser/calls.py).
    statement: bool = False
    # The positions of the arguments that name an array (a parameter or a shared array) and of
    # those that are string literals, for the forms that read them ("fragment", "wgmma").
    arrays: tuple[int, ...] = ()
    strings: tuple[int, ...] = ()
    role: str | None = None  # the MMA fragment a fragment load makes: "a", "b" or "acc"

    @property
    def qualified(self) -> str:
        return self.namespace + self.name

    @property
    def intrinsic(self) -> bool:
        """Whether a host object of its own stands for it in a kernel (python/tack/intrinsics.py
        makes one per such entry): every name reached through `tack.` but the dtypes and vector
        types, which are host objects already."""
        return bool(self.namespace) and self.form not in ("cast", "vector")

    def arity_text(self) -> str:
        if self.arity is None:
            return "see call"
        lo, hi = self.arity
        if lo == hi:
            return str(lo)
        return f"{lo} or more" if hi < 0 else f"{lo}–{hi}"

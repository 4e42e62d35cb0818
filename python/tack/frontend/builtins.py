"""The kernel language's builtins, declared once: name → typing rule, op and doc line.

`docs/builtins.md` is generated from this table (`python -m tack.frontend.builtins`).
"""
from __future__ import annotations

import builtins as _py
import math
from dataclasses import dataclass

from ..ir.ops import Op


@dataclass(frozen=True)
class Builtin:
    name: str
    op: Op
    rule: str  # 'float_math' | 'abs' | 'minmax' | 'pow' | 'cast_int' | 'cast_float' | 'len'
    arity: tuple[int, int]  # (min, max) argument count; max -1 = unbounded
    doc: str


_MATH1 = {
    "sqrt": (Op.SQRT, "square root"), "exp": (Op.EXP, "e**x"), "exp2": (Op.EXP2, "2**x"),
    "log": (Op.LOG, "natural logarithm"), "log2": (Op.LOG2, "base-2 logarithm"),
    "log10": (Op.LOG10, "base-10 logarithm"), "sin": (Op.SIN, "sine"), "cos": (Op.COS, "cosine"),
    "tan": (Op.TAN, "tangent"), "asin": (Op.ASIN, "arc sine"), "acos": (Op.ACOS, "arc cosine"),
    "atan": (Op.ATAN, "arc tangent"), "sinh": (Op.SINH, "hyperbolic sine"),
    "cosh": (Op.COSH, "hyperbolic cosine"), "tanh": (Op.TANH, "hyperbolic tangent"),
    "floor": (Op.FLOOR, "round toward -inf (a float)"), "ceil": (Op.CEIL, "round toward +inf (a float)"),
    "trunc": (Op.TRUNC, "round toward zero (a float)"),
    "rsqrt": (Op.RSQRT, "1/sqrt(x); approximate on GPUs in @tack.kernel(fastmath=True)"),
}

BUILTINS: dict[str, Builtin] = {
    name: Builtin(name, op, "float_math", (1, 1), doc) for name, (op, doc) in _MATH1.items()
}
BUILTINS.update({
    "atan2": Builtin("atan2", Op.ATAN2, "float_math", (2, 2), "arc tangent of y/x by quadrant"),
    "copysign": Builtin("copysign", Op.COPYSIGN, "float_math", (2, 2), "x with the sign of y"),
    "abs": Builtin("abs", Op.ABS, "abs", (1, 1), "absolute value; integers keep their type (wrapping)"),
    "min": Builtin("min", Op.MIN, "minmax", (2, -1), "smallest argument; a NaN loses to a number"),
    "max": Builtin("max", Op.MAX, "minmax", (2, -1), "largest argument; a NaN loses to a number"),
    "pow": Builtin("pow", Op.POW, "pow", (2, 2), "x**y (integer power when both are integers)"),
    "int": Builtin("int", Op.CAST, "cast_int", (1, 1), "convert to i32, truncating toward zero"),
    "float": Builtin("float", Op.CAST, "cast_float", (1, 1), "convert to f32"),
    "len": Builtin("len", Op.SHAPE, "len", (1, 1), "extent of an array's first dimension (i64)"),
})

# Host callables that name a builtin when a kernel's globals bind them (`from math import sqrt`,
# `np.sqrt`, Python's `abs`): resolved by identity, not by name.
_HOST_ALIASES: dict[int, str] = {}


def _alias(obj, name: str) -> None:
    _HOST_ALIASES[id(obj)] = name


for _n in ("sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "atan2", "copysign", "pow"):
    _alias(getattr(math, _n), _n)
_alias(math.fabs, "abs")
for _n in ("abs", "min", "max", "pow", "int", "float", "len"):
    _alias(getattr(_py, _n), _n)
try:
    import numpy as _np

    for _n, _t in (("sqrt", "sqrt"), ("exp", "exp"), ("exp2", "exp2"), ("log", "log"),
                   ("log2", "log2"), ("log10", "log10"), ("sin", "sin"), ("cos", "cos"),
                   ("tan", "tan"), ("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"),
                   ("sinh", "sinh"), ("cosh", "cosh"), ("tanh", "tanh"), ("floor", "floor"),
                   ("ceil", "ceil"), ("trunc", "trunc"), ("arctan2", "atan2"), ("abs", "abs"),
                   ("fabs", "abs"), ("copysign", "copysign"), ("minimum", "min"),
                   ("maximum", "max"), ("power", "pow")):
        _alias(getattr(_np, _n), _t)
except ImportError:  # pragma: no cover - numpy is a dependency
    pass

# The float builtins as host functions, so kernels may name them by import (`from tack import
# sqrt`, `tack.math.exp`) and linters see defined names; called from Python they compute with
# NumPy, element by element. Inside a kernel they are the builtin, resolved by identity.
_NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2"}


def _host(name: str):
    b = BUILTINS[name]
    if name == "rsqrt":
        def compute(x):
            return 1.0 / _np.sqrt(x)
    else:
        compute = getattr(_np, _NUMPY_NAMES.get(name, name))

    def fn(*args):
        lo, hi = b.arity
        if not lo <= len(args) <= hi:
            raise TypeError(f"{name}() takes {lo} argument{'s' if lo > 1 else ''}, "
                            f"got {len(args)}")
        return compute(*args)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "tack"
    fn.__doc__ = (f"{name}({', '.join('xy'[:b.arity[0]])}): {b.doc}. A kernel builtin (see "
                  "docs/builtins.md); called from Python it computes with NumPy.")
    _alias(fn, name)
    return fn


sqrt, exp, exp2, log, log2, log10 = (_host(n) for n in ("sqrt", "exp", "exp2", "log", "log2",
                                                        "log10"))
sin, cos, tan, asin, acos, atan, atan2 = (_host(n) for n in ("sin", "cos", "tan", "asin", "acos",
                                                             "atan", "atan2"))
sinh, cosh, tanh = (_host(n) for n in ("sinh", "cosh", "tanh"))
floor, ceil, trunc, rsqrt, copysign = (_host(n) for n in ("floor", "ceil", "trunc", "rsqrt",
                                                          "copysign"))
HOST_FUNCTIONS = {n: globals()[n] for n, b in BUILTINS.items() if b.rule == "float_math"}

MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}


def builtin_for(obj) -> Builtin | None:
    """The builtin a host object stands for, if any."""
    name = _HOST_ALIASES.get(id(obj))
    return BUILTINS.get(name) if name else None


def table_markdown() -> str:
    rows = ["| name | arguments | meaning |", "| --- | --- | --- |"]
    for b in BUILTINS.values():
        lo, hi = b.arity
        n = str(lo) if lo == hi else (f"{lo} or more" if hi < 0 else f"{lo}–{hi}")
        rows.append(f"| `{b.name}` | {n} | {b.doc} |")
    return "\n".join(rows) + "\n"


def device_functions_markdown() -> str:
    """The kernel language's device-only names (tack.atomic_add, tack.local_array, ...), one row
    each with its call form and meaning, from their docstrings (intrinsics.py)."""
    from .. import intrinsics

    rows = ["| name | call | meaning |", "| --- | --- | --- |"]
    for fn in intrinsics.ALL:
        name = fn.__tack_intrinsic__
        call, _, meaning = (fn.__doc__ or "").strip().partition(": ")
        meaning = " ".join(meaning.split()).split(". ")[0].rstrip(".")
        call = " ".join(call.split())
        rows.append(f"| `{name}` | `{call}` | {meaning} |")
    return "\n".join(rows) + "\n"


def page_markdown() -> str:
    """docs/builtins.md: every name a kernel calls, so the site's search finds each by name."""
    return ("# Builtins\n\nEvery name a kernel body can call, generated from the registries "
            "(`python -m tack.frontend.builtins > docs/builtins.md`). The rules they follow are in "
            "[the kernel language](language.md#builtins).\n\n## Math and conversions\n\n"
            "Called by name (no import), through `math`/`numpy`, or imported from `tack` "
            "(`from tack import sqrt`).\n\n" + table_markdown() +
            "\n## Device functions\n\nCalled as `tack.<name>` inside a kernel; from Python they "
            "raise, naming themselves (except `unroll`, which returns its range).\n\n"
            + device_functions_markdown())


if __name__ == "__main__":  # pragma: no cover
    print(page_markdown(), end="")

"""The math functions of the kernel language, one `add_function` call each.

An entry here is the whole of a math function: `ir/ops.py` makes its `Op` member (the name
upper-cased, in this order), `builtins/registry.py` gives the entry that `Op`, and the parser,
typechecker, simulator, renderers, host functions (`tack.sqrt`) and `docs/builtins.md` read the
rest from it. Adding a math function is one call below plus its tests (CONTRIBUTING.md, "Adding a
builtin"; tests/builtins/test_registry.py adds two to a copy of the package to prove it).

Their typing: float operands (an integer or bool argument converts to f32, or to the other
argument's float type), the result of the operands' type (frontend/typing/arith.py, `math_unary`,
`math_binary`). None of them is folded: a constant argument is left to the engine's library, so
`sin(1.0)` is what each engine's `sin` gives, not the host's.

Lowerings: on the CPU an LLVM intrinsic where LLVM has one (it lowers to an instruction or to
libm), else libm (`tanf` for f32); on CUDA libdevice (`__nv_tanf`), except the operations NVPTX
lowers to exact instructions (`llvm.sqrt` → `sqrt.rn`, floor/ceil/trunc → `cvt.rmi/rpi/rzi`,
copysign); in Julia Base, or TackRuntime's `tk_*` helpers where Base throws a DomainError
(`sqrt(-1.0)`) instead of returning NaN (docs/design/003-julia-rendering.md).
"""
from __future__ import annotations

import math

import numpy as np

from .entry import FLOAT, Builtin, Domain, intrinsic, library, printer, template

FUNCTIONS: list[Builtin] = []


def add_function(name: str, call: str, doc: str, *, numpy, cpu, ptx, julia, aliases=(),
                 domain: Domain = FLOAT, fold=None, host: bool = True) -> Builtin:
    """Declare a math function: its call form (`atan2(y, x)`, which gives the arity), doc line,
    NumPy function (the simulator, and `tack.<name>` from Python), its lowering on each engine
    (`entry.intrinsic`, `library`, `template`, `printer`) and the host callables that name it
    in a kernel (`math.atan2`, `np.arctan2`)."""
    n = call.count(",") + 1
    b = Builtin(name, call, doc, "math", "op", (n, n), typing="float", domain=domain, fold=fold,
                numpy=numpy, cpu=cpu, ptx=ptx, julia=julia, aliases=tuple(aliases), host=host)
    FUNCTIONS.append(b)
    return b


def _unary(name: str, doc: str, cpu, ptx, julia, numpy=None, aliases=None) -> Builtin:
    """A one-argument function whose `math` and NumPy functions share its name (unless given)."""
    fn = numpy if numpy is not None else getattr(np, name)
    if aliases is None:
        aliases = (getattr(math, name), fn)
    return add_function(name, f"{name}(x)", doc, numpy=fn, cpu=cpu, ptx=ptx, julia=julia,
                        aliases=aliases)


def _rsqrt(x):
    """1/sqrt(x) in x's dtype (a Python float: f64)."""
    return np.divide(x.dtype.type(1) if hasattr(x, "dtype") else 1.0, np.sqrt(x))


_unary("sqrt", "square root", intrinsic("llvm.sqrt"), intrinsic("llvm.sqrt"),
       template("tk_sqrt({0})"))
_unary("exp", "e**x", intrinsic("llvm.exp"), library("exp"), template("exp({0})"))
_unary("exp2", "2**x", intrinsic("llvm.exp2"), library("exp2"), template("exp2({0})"),
       aliases=(np.exp2,))
_unary("log", "natural logarithm", intrinsic("llvm.log"), library("log"),
       template("tk_log({0})"))
_unary("log2", "base-2 logarithm", intrinsic("llvm.log2"), library("log2"),
       template("tk_log2({0})"))
_unary("log10", "base-10 logarithm", intrinsic("llvm.log10"), library("log10"),
       template("tk_log10({0})"))
_unary("sin", "sine", intrinsic("llvm.sin"), library("sin"), template("tk_sin({0})"))
_unary("cos", "cosine", intrinsic("llvm.cos"), library("cos"), template("tk_cos({0})"))
_unary("tan", "tangent", library("tan"), library("tan"), template("tk_tan({0})"))
_unary("asin", "arc sine", library("asin"), library("asin"), template("tk_asin({0})"),
       np.arcsin, (math.asin, np.arcsin))
_unary("acos", "arc cosine", library("acos"), library("acos"), template("tk_acos({0})"),
       np.arccos, (math.acos, np.arccos))
_unary("atan", "arc tangent", library("atan"), library("atan"), template("atan({0})"),
       np.arctan, (math.atan, np.arctan))
_unary("sinh", "hyperbolic sine", library("sinh"), library("sinh"), template("sinh({0})"))
_unary("cosh", "hyperbolic cosine", library("cosh"), library("cosh"), template("cosh({0})"))
_unary("tanh", "hyperbolic tangent", library("tanh"), library("tanh"), template("tanh({0})"))
_unary("floor", "round toward -inf (a float)", intrinsic("llvm.floor"), intrinsic("llvm.floor"),
       template("floor({0})"))
_unary("ceil", "round toward +inf (a float)", intrinsic("llvm.ceil"), intrinsic("llvm.ceil"),
       template("ceil({0})"))
_unary("trunc", "round toward zero (a float)", intrinsic("llvm.trunc"), intrinsic("llvm.trunc"),
       template("trunc({0})"))
add_function("atan2", "atan2(y, x)", "arc tangent of y/x by quadrant", numpy=np.arctan2,
             cpu=library("atan2"), ptx=library("atan2"), julia=template("atan({0}, {1})"),
             aliases=(math.atan2, np.arctan2))
add_function("copysign", "copysign(x, y)", "x with the sign of y", numpy=np.copysign,
             cpu=intrinsic("llvm.copysign"), ptx=intrinsic("llvm.copysign"),
             julia=template("copysign({0}, {1})"), aliases=(math.copysign, np.copysign))
# Outside `@tack.kernel(fastmath=True)` passes/lower_ops.py makes it FDIV(1, SQRT(x)), so only a
# fastmath kernel reaches a renderer with it: the LLVM printers emit sqrt and fdiv with `fast`
# flags, which NVPTX turns into `rsqrt.approx`.
add_function("rsqrt", "rsqrt(x)",
             "1/sqrt(x); approximate on GPUs in @tack.kernel(fastmath=True)", numpy=_rsqrt,
             cpu=printer("rsqrt"), ptx=printer("rsqrt"), julia=template("inv(tk_sqrt({0}))"))

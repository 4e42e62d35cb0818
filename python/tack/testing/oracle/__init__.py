"""An independent reference for Tack kernels: the kernel's own Python source, run serially.

`run_reference(kernel, *args)` parses the ORIGINAL source of a `@tack.kernel` (`kernel.fn`),
rewrites its AST so that every literal, operator, cast, builtin, load and store goes through a
helper implementing the Tack contract (the language rules of docs/language.md: "Kernels and
calls", "Parallel loop", "Integer and float rules", "Builtins", "Array access"), and executes
it as plain Python over NumPy copies of the array arguments, one parallel-loop iteration after
another. It uses nothing of Tack's parser, typechecker, IR or passes: only the language contract.
(It imports `tack` solely to recognise `tack.f32`-style cast objects and `tack.constant` values.)

Model, as implemented here (the contract's rule in brackets where it is a choice):

* Values are NumPy integer scalars of the ten dtypes (comparisons/`and`/`or`/`not` give i32 0/1),
  floats `F(value, err)`, and weak floats `Weak` (a float literal or an expression of literals,
  evaluated lazily at the precision it meets: [NEP 50 weak literals]). Integer arithmetic is done
  on Python big integers and wrapped to the width, so it is exact by construction.
* Integer literals are i32/i64/u64 by value; an integer literal (or `True`/`False`, or an untyped
  integer `tack.constant`) beside a weak float keeps the expression weak (NEP 50: two Python
  scalars stay weak); a weak float beside a non-literal integer is f32.
* Promotion follows the contract's table; a signed type with u64 raises `Rejected` (Tack must
  reject the kernel). `/` of two integers is f32; `**` of two integers wraps in the base's type
  (negative exponent: outside the domain); `x ** 2` with a literal 2 and a float x is `x * x`.
* Math builtins: integer arguments only (literals included, as for `/`) give f32; otherwise the
  arguments promote like an operator's operands, an integer converting straight to the result
  precision ["Integer and float rules": integer arguments → f32 unless another is f64].
* Locals: one type per local, joined over all its assignments by a type-only pass that walks every
  statement (both branches, loop bodies once) to a fixpoint, as the contract's "derived from all
  their assignments" says. A local assigned exactly once, from a weak value, stays weak
  (`weak_locals="spec"`, the rule since Tack 0.4.0); `weak_locals="f32"` makes it f32 instead.
* Sequential `range()` variables are i32 widened by the bounds' types; the parallel loop variable is
  i32 widened by the types of the parameters its bounds read (arrays count as i64) — the contract
  is silent on this, so this choice mirrors the documented host-range behaviour. A loop over
  `tack.unroll(range(...), k)` is the plain `range` loop: the hint changes no result.
* A conditional expression has the promoted type of both arms (computed by the type pass); only the
  selected arm is evaluated.

Floating point (no fast-math, FMA contraction permitted, vendor libm): every float value carries a
running bound `err` on how far any conforming implementation may be from it. Correctly rounded
operations (+ - * / sqrt floor ceil trunc abs min max copysign fmod, conversions) add nothing when
their inputs are exact, except that a product adds its own exact rounding error (an FMA may skip
that rounding); a transcendental function adds `LIBM_ULPS` ulps (none where every libm is exact,
e.g. exp(0) or log2 of a power of two); inexact inputs propagate with first-order bounds plus
rounding slack. A stored float is compared within its bound, which is 0 (bit-exact) wherever no
inexact product or libm call is involved. A branch, comparison or float→int conversion whose
outcome the bound cannot decide marks the iteration *tainted*: the elements it stored are reported
unverifiable instead of guessed. Signed zeros are not compared; denormal results may differ by the
smallest normal (outside the portable domain).

Where the model approximates: tainted iterations are not checked at all; the bounds are first-order
and assume libm is monotone where the function is; NaN payloads are not compared. Locals follow
Tack's rule exactly (an assignment in a branch never taken still takes part in the join). Anything
outside the portable domain (division by zero, shift counts outside [0, width), float→int of
non-finite or unrepresentable values, `MIN // -1`, negative integer exponents, out-of-bounds
indices, a zero sequential step) raises `OutsideDomain` naming the line.
"""
from __future__ import annotations

# The parts, in the order a run uses them: scalar types and values (scalars, values), float
# arithmetic with error bounds (floats), the runtime the rewritten kernel calls (runtime), the
# rewriting of the kernel's AST (rewrite_expr, rewrite_stmt), and the driver (driver).
# Names beyond __all__ are re-exported for their callers: check_kernel, and the type model and
# runtime that kernelgen and the tests use.
from .driver import Reference, check_kernel, reference, run_reference  # noqa: F401
from .errors import OracleError, OutsideDomain, Rejected
from .floats import LIBM_ULPS, MATH1, MATH2  # noqa: F401
from .runtime import Runtime  # noqa: F401
from .scalars import (  # noqa: F401
    BY_NAME,
    BY_NP,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    INF,
    ST,
    TYPES,
    U8,
    U16,
    U32,
    U64,
    WEAK,
    int_to_float,
    literal_type,
    promote,
    ulp,
    wrap,
)
from .values import F, Weak, typeof, weak_const  # noqa: F401

__all__ = [
    "LIBM_ULPS",
    "OracleError",
    "OutsideDomain",
    "Reference",
    "Rejected",
    "reference",
    "run_reference",
]

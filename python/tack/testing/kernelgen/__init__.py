"""Random well-typed Tack kernels for differential testing against `testing.oracle`.

`KernelGen(choices).generate()` builds the source text of one kernel: input arrays of every dtype
(1-D, and a 2-D one read by row), scalar parameters (i32/i64/u64 by value, f32/f64), one parallel
loop (`range(a.shape[0])`, `range(len(a))`, `range(n)`, with a start or a step), and a body of
assignments to typed locals, stores and augmented stores to output rows owned by the iteration,
`if/elif/else`, `while` loops with bounded counters, nested `for ... in range(...)` with literal or
small dynamic bounds and negative steps, `break`/`continue` (also `continue` of the parallel loop),
over expressions using `+ - * / // % ** & | ^ << >> ~`, unary minus, comparisons (chained too),
`and/or/not`, conditional expressions, casts (`tack.<dtype>()`, `int()`, `float()`), `min`/`max`/
`abs`, and the math builtins. A share of kernels (`cast_rows`, 0.3) also get a cast row
(castrows.py): one or two 64-bit values narrowed and widened along several cast chains, stored to
every column of a wide 64-bit output row and to 1-D outputs of other widths — the straight-line
shape the SLP vectorizer packs into mixed sign/zero-extension vectors.

Every kernel stays in the portable domain by construction: integer divisors are `(d & 7) + 1` or
`-((d & 7) + 2)` in d's own type, float divisors `abs(d) + 0.5`, shift counts and integer
exponents are masked, float→int conversions are clamped with `min(max(x, lo), hi)` (NaN → lo),
and signed/u64 pairs are cast. Each iteration i writes only row i of the outputs, so iterations are
independent and a tainted iteration (see the oracle) can be skipped row-wise.

`choices` is the source of randomness: `HypothesisChoices(data)` inside a `@given` test (so failing
kernels shrink), or `RandomChoices(seed)` for stand-alone fuzzing (`python -m
tack.testing.kernelgen --seed 1 --count 100`).

`AVOID` names the Tack bugs the generator steers around (each has a targeted, strict-xfail test in
tests/exec/), so that a known bug does not mask new ones; pass `avoid=()` to generate them too.
"""
from __future__ import annotations

# The parts, in the order a kernel is built: the vocabulary (grammar), the source of randomness
# (choices), names in scope (scopes), typed operands (operands), expressions (exprs), statements
# (stmts), the whole kernel (generator) and what it produces (spec); fuzz drives it stand-alone.
from .choices import HypothesisChoices, RandomChoices
from .fuzz import main
from .generator import KernelGen
from .grammar import (  # noqa: F401
    AVOID,
    CLAMP,
    CONSTANT_LINES,
    CONSTANTS,
    FLOAT_LITERALS,
    FLOAT_TYPES,
    INT_LITERALS,
    INT_TYPES,
    MATH1,
    MATH2,
)
from .operands import E
from .spec import KernelSpec, Param

__all__ = [
    "AVOID",
    "E",
    "HypothesisChoices",
    "KernelGen",
    "KernelSpec",
    "Param",
    "RandomChoices",
    "main",
]

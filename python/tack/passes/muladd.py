"""Where a float multiply-add may fuse, decided once for every engine: `a * b ± c` → `MULADD`.

Engines must round alike (docs/language.md "Integer and float rules", Multiply-add): the decision is
made here, on the final IR, and each renderer spells `MULADD` as its "fused where the hardware
has FMA" operation (`llvm.fmuladd` in the LLVM and NVPTX renderers, `muladd` in the Julia one),
while every other float op carries no contraction flag. So a CPU, a GPU and KernelAbstractions
fuse exactly the same operations, and nothing else.

The rule, bottom-up over each expression tree: an ADD or SUB of floats with a MUL operand (the
left one when both are) becomes `MULADD(x, y, z)` = `x * y + z`, with `c - a * b` as
`MULADD(-a, b, c)` and `a * b - c` as `MULADD(a, b, -c)` (negation is exact). A product bound to
a local first (`p = a * b; p + c`) is not fused: the program named the rounded product.
Half values (f16, bf16) never fuse: `passes.half`, which runs first, rounds every half operation
to the half type, so each is correctly rounded on its own, as in NumPy.
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.nodes import Expr
from ..ir.ops import Op
from ..ir.walk import map_body


def _neg(e: Expr) -> Expr:
    return Expr(Op.NEG, e.dtype, (e,), None, e.loc)


def _fuse(e: Expr) -> Expr:
    if e.op not in (Op.ADD, Op.SUB) or not e.dtype.is_float or e.dtype.is_half:
        return e
    a, b = e.args
    if a.op is Op.MUL and a.dtype is e.dtype:
        x, y = a.args
        z = b if e.op is Op.ADD else _neg(b)
    elif b.op is Op.MUL and b.dtype is e.dtype:
        x, y = b.args
        x, z = (x, a) if e.op is Op.ADD else (_neg(x), a)
    else:
        return e
    return Expr(Op.MULADD, e.dtype, (x, y, z), None, e.loc)


def fuse_multiply_add(body: list[N.Stmt]) -> list[N.Stmt]:
    """`body` with every float `a * b ± c` as one `MULADD` (the module docstring's rule)."""
    return map_body(body, _fuse)

"""The `precision` of matmul, batched_matmul and attention (docs/ops.md, "Precision"): "ieee"
multiplies float32 operands as they are, "tf32" rounds each to TF32 first (`tack.tf32`, the
rounding of PTX's `cvt.rna.tf32.f32`).

The operands that are arrays (matmul's a and b; attention's q * scale, k and v) are rounded
once, into copies, before the op's kernels run; those kernels are then the "ieee" ones, reading
the copies, so a "tf32" matmul is an "ieee" matmul of rounded operands by construction and costs
one pass over its inputs more. An operand that exists only inside a kernel (attention's softmax
weights) is rounded there, by the compile-time function OPERAND[precision] the kernel takes as
an argument (the identity for "ieee", so its code is what it was without it).

A tensor-core kernel can take the same copies: an MMA with TF32 inputs reads only the top 19
bits of each 32-bit operand (the low 13 of a rounded copy are zero), so its products are these
products exactly, and only its float32 accumulation order is its own; weights made inside such
a kernel go through `tack.tf32` before the MMA, as here before the multiply."""
from __future__ import annotations

from ..arrays import Array
from ..kernel import kernel
from ..lib.tf32 import tf32
from . import _args
from ._wide import keep

OPERAND = {"ieee": keep, "tf32": tf32}


@kernel
def _round(x, y, count, scale, operand):
    for t in range(count):
        y[t] = operand(x[t] * scale)


def operands(precision: str, what: str, *arrays: Array, scale: float = 1.0) -> list[Array]:
    """`arrays` as the op's kernels should read them: as they are for "ieee"; for "tf32" each
    (the first times `scale`, in its dtype, as the kernels multiply it) rounded to TF32 in an
    array kept for `what` and its position (overwritten by the next call of the op)."""
    if precision == "ieee":
        return list(arrays)
    out = []
    for i, a in enumerate(arrays):
        r = _args.kept(a.device, a.dtype, (what, i), a.size)
        _round(_args.view(a, (a.size,)), r, *_args.sizes(a.size, a.size),
               scale if i == 0 else 1.0, OPERAND[precision])
        out.append(_args.view(r, a.shape))
    return out

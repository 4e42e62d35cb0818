"""`Op.MMA` on the simulator: each warp's A, B and C tiles gathered from what its 32 lanes hold
(the layouts of ir/mma.py), D = A @ B + C computed in the one order ir/ops.py documents, and
each lane given its element of D.

The order: D starts as C; for k = 0, 1, ..., K-1 every element becomes fl32(A[m, k] * B[k, n] +
D[m, n]), one rounding per step. The product of two f16, bf16 or TF32 values has at most 22
significant bits and is exact in f64; D has 24. The f64 sum of two values of at most 24 bits,
rounded to f32, is the correctly rounded f32 sum: 53 >= 2 * 24 + 2, the condition under which
double rounding of a sum is innocuous (S. A. Figueroa, "When is double rounding innocuous?",
SIGNUM Newsletter 30(3), 1995, https://doi.org/10.1145/221332.221334); where the f64 sum is
inexact the smaller operand lies more than 28 binades below the larger and cannot move the f32
result, products outside f32's range included. So a plain f64 addition per step gives the
f32 fused multiply-add's bits (runtime/sim/fma.py) at a fraction of its cost. The
four MMA expressions of one `tack.mma` (one per element of the lane's D fragment) read the same
operands: the last warp-wide D is kept and given again while the operands are the same.
"""
from __future__ import annotations

import numpy as np

from ...ir.mma import ACC, VARIANTS
from ...ir.ops import WARP
from .lanes import Lanes, npdtype
from .warps import rows

_LANES = np.arange(WARP)


def _tile(values: list, layout, shape: tuple, warps: int) -> np.ndarray:
    """The (warps, rows, cols) f32 tiles whose elements the lanes hold as `values` (one
    (warps, WARP) array per fragment element)."""
    out = np.zeros((warps,) + shape, np.float32)
    for i, v in enumerate(values):
        r, c = layout.coords(_LANES, i)
        out[:, r, c] = v
    return out


class MmaUnit:
    """Evaluates MMA expressions for one executor, keeping the last warp-wide result."""

    def __init__(self):
        self._last = None  # (variant, active positions, operand values, D tiles)

    def value(self, e, args: list, act: Lanes, lanes: int) -> tuple[np.ndarray, np.ndarray]:
        """Element e.arg[1] of each active lane's D fragment, and the chunk positions of the
        warps' lanes that did not execute it with them (as warps.collective)."""
        name, j = e.arg
        last = self._last
        if last is not None and last[0] == name and np.array_equal(last[1], act.pos) and all(
                np.array_equal(a, b) for a, b in zip(last[2], args)):
            d, present = last[3], last[4]
        else:
            d, present = self._compute(name, e, args, act, lanes)
            self._last = (name, act.pos.copy(), [np.array(a, copy=True) for a in args], d,
                          present)
        r, c = ACC.coords(_LANES, j)
        out = d[:, r, c].reshape(-1)[act.pos]
        touched = present.any(1)
        missing = np.flatnonzero((touched[:, None] & ~present).reshape(-1)[:lanes])
        return out, missing

    def _compute(self, name: str, e, args: list, act: Lanes, lanes: int):
        v = VARIANTS[name]
        na, nb = v.a.size, v.b.size
        vals = []
        present = None
        for x, a in zip(e.args, args):
            row, here = rows(a, act, lanes, npdtype(x.dtype))
            vals.append(row.astype(np.float32))  # f16, bf16: exact
            present = here
        warps = vals[0].shape[0]
        a = _tile(vals[:na], v.a, (v.m, v.k), warps)
        b = _tile(vals[na:na + nb], v.b, (v.k, v.n), warps)
        d = _tile(vals[na + nb:], ACC, (v.m, v.n), warps)
        d = multiply_accumulate(a.astype(np.float64), b.astype(np.float64), d, v.k)
        return d, present


def multiply_accumulate(a64: np.ndarray, b64: np.ndarray, d: np.ndarray, k: int) -> np.ndarray:
    """D = A @ B + D over a stack of tiles (A (t, m, k), B (t, k, n) as f64, D (t, m, n) f32):
    the products exact, added in k order with one f32 rounding each (the module's docstring
    says why an f64 addition rounded to f32 gives the fused multiply-add's bits). The warpgroup
    MMA (runtime/sim/wgmma.py) shares it."""
    for kk in range(k):
        d = (d + a64[:, :, kk, None] * b64[:, None, kk, :]).astype(np.float32)
    return d

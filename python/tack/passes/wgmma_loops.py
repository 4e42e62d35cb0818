"""The warpgroup MMA as portable loops, synchronous, for an engine without the instruction (the
Julia engine; passes/warps_shared.py calls it for each WGMMA statement).

A and B are already in shared memory, so no lane needs another's registers: each lane computes
its own N/2 elements of D, for k = 0..K-1 in order, `d = A[m, k] * B[n, k] + d` fused (MULADD)
(the products of f16, bf16 and TF32 inputs are exact, so this is the simulator's fl32(a·b + d)),
reading A and B where the hardware reads them: `ir.wgmma.address` of the descriptor start,
written as i32 shifts, masks and the swizzle's XOR. TF32 inputs drop their low 13 bits as the
hardware does. The statement completes when it ends, so the commits and waits are dropped.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..ir import nodes as N
from ..ir.nodes import Expr
from ..ir.ops import Op
from ..ir.wgmma import LAYOUTS, ROW_BYTES, TF32_KEEP, VARIANTS, WARPGROUP, acc_offsets


def lower_wgmma(e: Expr, loc, local, fresh) -> list[N.Stmt]:
    """The statements of one WGMMA/WGMMA_COMMIT/WGMMA_WAIT statement's value `e`. `local(t,
    loc, value, out)` binds a value to a new local (appending the Assign to `out`) and returns
    its VAR; `fresh(t)` names a new local."""
    if e.op is not Op.WGMMA:
        return []
    i32 = dt.i32
    variant, _, layout, a_arr, b_arr = e.arg
    v = VARIANTS[variant]
    size = v.dtype.itemsize
    shift = size.bit_length() - 1
    lay = LAYOUTS[layout]

    def c(x, t=i32):
        return Expr(Op.CONST, t, (), x, loc)

    def op(o, a, b, t=i32):
        return Expr(o, t, (a, b if isinstance(b, Expr) else c(b, t)), None, loc)

    out: list[N.Stmt] = []
    tid = Expr(Op.THREAD_ID, i32, (), None, loc)
    lane = op(Op.AND_, tid, WARPGROUP - 1)
    w = op(Op.SHR, lane, 5)
    rbase = local(i32, loc, op(Op.ADD, op(Op.MUL, w, 16), op(Op.SHR, op(Op.AND_, lane, 31), 2)),
                  out)
    cbase = local(i32, loc, op(Op.MUL, op(Op.AND_, lane, 3), 2), out)
    starts = [local(i32, loc, op(Op.SHL, s, shift), out) for s in e.args[:2]]  # in bytes
    k = fresh(i32)
    kv = Expr(Op.VAR, i32, (), k, loc)
    kb = op(Op.SHL, kv, shift)

    def element(array: str, start: Expr, row: Expr) -> Expr:
        """The f32 value the hardware reads for (row, k) of the tile at `start` bytes."""
        groups = op(Op.MUL, op(Op.SHR, row, 3), lay.sbo)
        if lay.mode == 0:
            byte = op(Op.ADD, op(Op.ADD, op(Op.ADD, start, groups),
                                 op(Op.MUL, op(Op.SHR, kb, 4), lay.lbo)),
                      op(Op.ADD, op(Op.MUL, op(Op.AND_, row, 7), 16), op(Op.AND_, kb, 15)))
        else:
            raw = op(Op.ADD, op(Op.ADD, start, groups),
                     op(Op.ADD, op(Op.MUL, op(Op.AND_, row, 7), ROW_BYTES), kb))
            byte = op(Op.XOR, raw, op(Op.SHL, op(Op.AND_, op(Op.SHR, raw, 7), 7), 4))
        idx = Expr(Op.CAST, dt.i64, (op(Op.SHR, byte, shift),), None, loc)
        x = Expr(Op.LOAD, v.dtype, (idx,), array, loc)
        if v.ptx == "tf32":
            bits = Expr(Op.BITCAST, dt.u32, (x,), None, loc)
            return Expr(Op.BITCAST, dt.f32, (op(Op.AND_, bits, TF32_KEEP, dt.u32),), None, loc)
        return Expr(Op.CAST, dt.f32, (x,), None, loc)

    body = []
    for j, d in enumerate(e.args[2:]):
        dr, dc = acc_offsets(j)
        m, col = op(Op.ADD, rbase, dr), op(Op.ADD, cbase, dc)
        ab = (element(a_arr, starts[0], m), element(b_arr, starts[1], col))
        body.append(N.Assign(loc, d.arg, Expr(Op.MULADD, dt.f32, (*ab, d), None, loc)))
    out.append(N.For(loc, k, c(0), c(v.k), None, body))
    return out

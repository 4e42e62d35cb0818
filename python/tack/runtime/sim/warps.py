"""Warp collectives on the simulator: the lanes of a chunk as rows of `WARP` lanes in lockstep.

A chunk is whole workgroups, so chunk position p is lane p % WARP of warp p // WARP. A
collective (ir/ops.py, "Warps") scatters the active lanes' operands into arrays over the whole
chunk, computes each warp's row at once and gathers the active lanes' results. A warp that
executes it with some of its lanes and not the others has diverged (on a GPU the result is
undefined): `missing` tells the executor, which reports it as a barrier finding does; the
absent lanes read as 0 in a shuffle and do not take part in a vote or a reduction.

The reductions are the xor butterfly of ir/ops.py, step by step in the operands' dtype, so the
floats round exactly as the CUDA renderer's shuffle tree (render/llvm/ptx_warps.py).
"""
from __future__ import annotations

import numpy as np

from ...ir.ops import SHUFFLES, WARP, Op
from ...ir.semantics import np_evaluate
from .lanes import Lanes, npdtype, spread

_COMBINE = {Op.WARP_SUM: Op.ADD, Op.WARP_MIN: Op.MIN, Op.WARP_MAX: Op.MAX}


def rows(values, act: Lanes, lanes: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    """The active lanes' values and a presence mask, as (warps, WARP) arrays over the chunk."""
    warps = -(-lanes // WARP)
    full = np.zeros(warps * WARP, dtype)
    present = np.zeros(warps * WARP, bool)
    full[act.pos] = spread(values, act.count, dtype)
    present[act.pos] = True
    return full.reshape(warps, WARP), present.reshape(warps, WARP)


def _identity(op: Op, dtype: np.dtype):
    """What an absent lane contributes to a reduction (it changes no present lane's result)."""
    if op is Op.WARP_SUM:
        return dtype.type(0)
    big = np.inf if dtype.kind == "f" else np.iinfo(dtype).max
    small = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
    return dtype.type(big if op is Op.WARP_MIN else small)


def collective(e, args: list, act: Lanes, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """The value of warp collective `e` (args evaluated on `act`) for each active lane, and
    the chunk positions of the warps' lanes that did not execute it with them."""
    op, dtype = e.op, npdtype(e.dtype)
    src_dtype = npdtype(e.args[0].dtype)
    x, present = rows(args[0], act, lanes, src_dtype)
    lane = np.arange(WARP)
    if op in SHUFFLES:
        s, _ = rows(args[1], act, lanes, np.int32)
        s = s & (WARP - 1)
        src = {Op.SHFL: s, Op.SHFL_XOR: lane ^ s, Op.SHFL_UP: lane - s,
               Op.SHFL_DOWN: lane + s}[op]
        src = np.where((src < 0) | (src >= WARP), lane, src)  # out of the warp: its own value
        got = np.take_along_axis(x, src, 1)
        out = np.where(np.take_along_axis(present, src, 1), got, src_dtype.type(0))
    elif op is Op.FRAGMENT:  # a loaded element: the lanes keep their own
        out = x
    elif op in (Op.WARP_ANY, Op.WARP_ALL, Op.BALLOT):
        p = x & present if op is not Op.WARP_ALL else x | ~present
        if op is Op.BALLOT:
            bits = (p.astype(np.uint64) << lane.astype(np.uint64)).sum(1)
            out = np.repeat(bits.astype(np.uint32)[:, None], WARP, 1)
        else:
            red = p.any(1) if op is Op.WARP_ANY else p.all(1)
            out = np.repeat(red[:, None], WARP, 1)
    else:
        out = np.where(present, x, _identity(op, src_dtype))
        step = WARP // 2
        while step:
            out = np_evaluate(_COMBINE[op], e.dtype, [out, out[:, lane ^ step]])
            step //= 2
    out = np.asarray(out, dtype).reshape(-1)[act.pos]
    touched = present.any(1)
    missing = np.flatnonzero((touched[:, None] & ~present).reshape(-1)[:lanes])
    return out, missing

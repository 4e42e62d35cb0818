"""Warp operations in NVPTX (ir/ops.py, "Warps"): `llvm.nvvm.shfl.sync.*`, `llvm.nvvm.vote.*.sync`
and the reductions as the xor-butterfly shuffle tree that ir/ops.py fixes, so the bits are the
simulator's. Every collective names all 32 lanes (mask 0xffffffff): the workgroup contract
(capabilities.check_uniform_participation) has proved that every lane of the block executes it.

A value of up to 32 bits is shuffled in one 32-bit register (a half or small integer as its bits,
zero-extended, then truncated back); a 64-bit one as two halves. (`redux.sync` would give the
integer sums and extremes in one instruction on sm_80+; the renderer is not told the
architecture, and the tree gives the same integers.)
"""
from __future__ import annotations

from llvmlite import ir

from ...ir.nodes import Expr
from ...ir.ops import WARP, Op
from .support import MINMAX

I1, I32, I64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
FULL = ir.Constant(I32, -1)  # every lane of the warp
_MODE = {Op.SHFL: "idx", Op.SHFL_XOR: "bfly", Op.SHFL_UP: "up", Op.SHFL_DOWN: "down"}


class WarpRendering:
    """PTXRenderer's warp methods (`EMIT` names them)."""

    def lane_id(self, e: Expr) -> ir.Value:
        return self.b.and_(self.sreg(self.b, "tid.x"), ir.Constant(I32, WARP - 1))

    def warp_id(self, e: Expr) -> ir.Value:
        return self.b.lshr(self.sreg(self.b, "tid.x"), ir.Constant(I32, WARP.bit_length() - 1))

    def shuffle(self, e: Expr) -> ir.Value:
        x, s = self.operands(e)
        return self.shuffled(x, _MODE[e.op], self.b.and_(s, ir.Constant(I32, WARP - 1)))

    def shuffled(self, x: ir.Value, mode: str, s: ir.Value) -> ir.Value:
        """`shfl.sync.<mode>` of any scalar: through i32 registers, as its bits."""
        b, ty = self.b, x.type
        bits = ty.width if isinstance(ty, ir.IntType) else {
            "half": 16, "float": 32, "double": 64}[str(ty)]
        raw = x if isinstance(ty, ir.IntType) else b.bitcast(x, ir.IntType(bits))
        if bits == 64:
            lo = self.shfl32(b.trunc(raw, I32), mode, s)
            hi = self.shfl32(b.trunc(b.lshr(raw, ir.Constant(I64, 32)), I32), mode, s)
            out = b.or_(b.shl(b.zext(hi, I64), ir.Constant(I64, 32)), b.zext(lo, I64))
        elif bits == 32:
            out = self.shfl32(raw, mode, s)
        else:
            out = b.trunc(self.shfl32(b.zext(raw, I32), mode, s), ir.IntType(bits))
        return out if isinstance(ty, ir.IntType) else b.bitcast(out, ty)

    def shfl32(self, v: ir.Value, mode: str, s: ir.Value) -> ir.Value:
        # c: the clamp (0x1f: lanes past 31 read their own value; up clamps at lane 0)
        fn = self.module.declare_intrinsic(f"llvm.nvvm.shfl.sync.{mode}.i32", (),
                                           ir.FunctionType(I32, [I32, I32, I32, I32]))
        return self.b.call(fn, [FULL, v, s, ir.Constant(I32, 0 if mode == "up" else WARP - 1)])

    def vote(self, e: Expr) -> ir.Value:
        (p,) = self.operands(e)
        kind = {Op.WARP_ANY: "any", Op.WARP_ALL: "all", Op.BALLOT: "ballot"}[e.op]
        ret = I32 if e.op is Op.BALLOT else I1
        fn = self.module.declare_intrinsic(f"llvm.nvvm.vote.{kind}.sync", (),
                                           ir.FunctionType(ret, [I32, I1]))
        return self.b.call(fn, [FULL, p])

    def warp_reduce(self, e: Expr) -> ir.Value:
        """The xor butterfly: x = op(x, shfl_xor(x, s)) for s = 16, 8, 4, 2, 1."""
        (x,) = self.operands(self.need(e, e.dtype.kind in "iuf" and not e.dtype.is_half))
        step = WARP // 2
        while step:
            x = self.combine(e, x, self.shuffled(x, "bfly", ir.Constant(I32, step)))
            step //= 2
        return x

    def combine(self, e: Expr, a: ir.Value, other: ir.Value) -> ir.Value:
        b, t = self.b, e.dtype
        if e.op is Op.WARP_SUM:
            return b.fadd(a, other, flags=self.fflags) if t.is_float else b.add(a, other)
        op = Op.MIN if e.op is Op.WARP_MIN else Op.MAX
        if t.is_float:  # MIN/MAX's rule: a NaN loses (render/llvm/printer.py, `minmax`)
            better = b.fcmp_ordered("<" if op is Op.MIN else ">", a, other)
            nan = b.fcmp_unordered("uno", other, other)
            return b.select(b.or_(better, nan), a, other)
        return b.call(self.intrinsic(MINMAX[op, t.is_signed], a.type, 2), [a, other])

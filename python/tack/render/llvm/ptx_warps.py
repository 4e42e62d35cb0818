"""Warp operations in NVPTX (ir/ops.py, "Warps"): `llvm.nvvm.shfl.sync.*`, `llvm.nvvm.vote.*.sync`
and the reductions as the xor-butterfly shuffle tree that ir/ops.py fixes, so the bits are the
simulator's. Every collective names all 32 lanes (mask 0xffffffff): the workgroup contract
(capabilities.check_uniform_participation) has proved that every lane of the block executes it.

A value of up to 32 bits is shuffled in one 32-bit register (a half or small integer as its bits,
zero-extended, then truncated back); a 64-bit one as two halves. From sm_80 on
(`capabilities.SM_LOWERINGS`; the pipeline sets `sm`) a reduction of i32 or u32 is one
`redux.sync` (`llvm.nvvm.redux.sync.*`), which gives the tree's integers: a wrapping sum, a
minimum and a maximum do not depend on the order. Other dtypes keep the tree (`redux.sync` has
no 64-bit, float or narrower form to take them bit for bit).

An MMA is `mma.sync.aligned.<shape>.row.col.f32.<type>.<type>.f32` as inline assembly (sm_80 and
newer): the lane's A and B elements packed into 32-bit registers, two f16/bf16 or one TF32 value
each, the lower-numbered element in the low half (PTX ISA, "Matrix Fragments for mma.m16n8k16
with floating point type"), the four f32 accumulators as they are. The four MMA expressions of
one `tack.mma` are one asm call each, with the same operands; the call reads no memory and is
`convergent`, so LLVM merges them into one instruction and never moves it under a branch.
"""
from __future__ import annotations

from llvmlite import ir

from ...capabilities import SM_LOWERINGS
from ...ir.mma import VARIANTS
from ...ir.nodes import Expr
from ...ir.ops import WARP, Op
from .support import MINMAX

I1, I16, I32, I64 = ir.IntType(1), ir.IntType(16), ir.IntType(32), ir.IntType(64)
F32 = ir.FloatType()
FULL = ir.Constant(I32, -1)  # every lane of the warp
_MODE = {Op.SHFL: "idx", Op.SHFL_XOR: "bfly", Op.SHFL_UP: "up", Op.SHFL_DOWN: "down"}


class WarpRendering:
    """PTXRenderer's warp methods (`EMIT` names them)."""

    sm = 0  # the target's compute capability (80 for sm_80); 0: unknown, the portable forms

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
        """The xor butterfly: x = op(x, shfl_xor(x, s)) for s = 16, 8, 4, 2, 1; or one
        `redux.sync` for a 32-bit integer where the target has it."""
        (x,) = self.operands(self.need(e, e.dtype.kind in "iuf" and not e.dtype.is_half))
        if e.dtype.kind in "iu" and e.dtype.bits == 32 and \
                self.sm >= SM_LOWERINGS["redux.sync"][0]:
            return self.redux(e, x)
        step = WARP // 2
        while step:
            x = self.combine(e, x, self.shuffled(x, "bfly", ir.Constant(I32, step)))
            step //= 2
        return x

    def redux(self, e: Expr, x: ir.Value) -> ir.Value:
        """`redux.sync.{add,min,max}.{s32,u32}` over the full warp (the sum's bits are the same
        signed or unsigned: LLVM's `add` is `.s32`)."""
        kind = {Op.WARP_SUM: "add", Op.WARP_MIN: "min", Op.WARP_MAX: "max"}[e.op]
        if e.op is not Op.WARP_SUM and not e.dtype.is_signed:
            kind = "u" + kind
        fn = self.module.declare_intrinsic(f"llvm.nvvm.redux.sync.{kind}", (),
                                           ir.FunctionType(I32, [I32, I32]))
        return self.b.call(fn, [x, FULL])

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

    def mma(self, e: Expr) -> ir.Value:
        name, j = e.arg
        v = VARIANTS[name]
        vals = self.operands(e)
        na, nb = v.a.size, v.b.size
        regs = self.packed(vals[:na], v.ptx) + self.packed(vals[na:na + nb], v.ptx)
        acc = vals[na + nb:]
        n_a = len(self.packed(vals[:na], v.ptx))
        n_b = len(regs) - n_a

        def group(start: int, count: int) -> str:
            return "{" + ", ".join(f"${start + k}" for k in range(count)) + "}"

        text = (f"mma.sync.aligned.m{v.m}n{v.n}k{v.k}.row.col.f32.{v.ptx}.{v.ptx}.f32 "
                f"{group(0, 4)}, {group(4, n_a)}, {group(4 + n_a, n_b)}, "
                f"{group(4 + n_a + n_b, 4)};")
        ret = ir.LiteralStructType([F32] * 4)
        fty = ir.FunctionType(ret, [I32] * len(regs) + [F32] * 4)
        constraint = ",".join(["=f"] * 4 + ["r"] * len(regs) + ["f"] * 4)
        asm = ir.InlineAsm(fty, text, constraint, side_effect=False)
        d = self.b.call(asm, regs + acc, attrs=("convergent", "nounwind", "readnone"))
        return self.b.extract_value(d, j)

    def packed(self, vals: list, ptx: str) -> list:
        """The 32-bit registers of fragment elements: TF32 one per register (its f32 bits),
        f16/bf16 two (element 2k low, 2k + 1 high)."""
        b = self.b
        if ptx == "tf32":
            return [b.bitcast(x, I32) for x in vals]
        bits = [b.zext(x if x.type == I16 else b.bitcast(x, I16), I32) for x in vals]
        return [b.or_(lo, b.shl(hi, ir.Constant(I32, 16))) for lo, hi in zip(bits[::2],
                                                                             bits[1::2])]

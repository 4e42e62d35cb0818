"""What the LLVM printer (render/llvm/printer.py) looks up or emits whole: the LLVM spelling of each op,
the conversions of CAST, constants and constant tables, the `llvm.loop` metadata of a loop with an
unroll hint, and the integer power function."""
from __future__ import annotations

import struct

from llvmlite import ir

from ...dtypes import DType
from ...ir.ops import Op

I1 = ir.IntType(1)

# ---- the LLVM spelling of each op (IRBuilder method, predicate, intrinsic) ----------------------
# (A builtin's math function is spelled by its registry entry: builtins/functions.py.)
INT_BIN = {Op.ADD: "add", Op.SUB: "sub", Op.MUL: "mul", Op.AND_: "and_", Op.OR_: "or_",
           Op.XOR: "xor", Op.SHL: "shl"}
SIGNED_BIN = {Op.IDIV: ("sdiv", "udiv"), Op.IREM: ("srem", "urem"), Op.SHR: ("ashr", "lshr")}
FLOAT_BIN = {Op.ADD: "fadd", Op.SUB: "fsub", Op.MUL: "fmul", Op.FDIV: "fdiv", Op.FREM: "frem"}
CMP = {Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">=", Op.EQ: "==", Op.NE: "!="}
MINMAX = {(Op.MIN, True): "llvm.smin", (Op.MIN, False): "llvm.umin",
          (Op.MAX, True): "llvm.smax", (Op.MAX, False): "llvm.umax"}
# atomicrmw by (op, dtype kind); float min/max are minnum/maxnum, as the IR's float MIN/MAX
ATOMIC_RMW = {
    (Op.ATOMIC_ADD, "i"): "add", (Op.ATOMIC_ADD, "u"): "add", (Op.ATOMIC_ADD, "f"): "fadd",
    (Op.ATOMIC_MIN, "i"): "min", (Op.ATOMIC_MIN, "u"): "umin", (Op.ATOMIC_MIN, "f"): "fmin",
    (Op.ATOMIC_MAX, "i"): "max", (Op.ATOMIC_MAX, "u"): "umax", (Op.ATOMIC_MAX, "f"): "fmax"}

# ---- CAST ------------------------------------------------------------------------------------
def convert(b: ir.IRBuilder, v: ir.Value, src: DType, dst: DType, ty: ir.Type) -> ir.Value | None:
    """`v` (of dtype `src`) as `dst` (LLVM type `ty`) by CAST's rules; None where none applies."""
    if dst.kind == "b":  # `!= 0`; NaN is true, as in Python
        if src.is_float:
            return b.fcmp_unordered("!=", v, ir.Constant(v.type, 0.0))
        return v if src.kind == "b" else b.icmp_unsigned("!=", v, ir.Constant(v.type, 0))
    if dst.is_int and not src.is_float:  # int/bool → int: the SOURCE's signedness extends
        if src.bits >= dst.bits:
            return v if src.bits == dst.bits else b.trunc(v, ty)
        return b.sext(v, ty) if src.is_signed else b.zext(v, ty)
    if dst.is_float and not src.is_float:
        return b.sitofp(v, ty) if src.is_signed else b.uitofp(v, ty)
    if dst.is_int and src.is_float:
        if not (b.module.triple or "").startswith("nvptx"):
            return saturate_by_selects(b, v, dst, ty)
        # NVPTX: `cvt.rzi` saturates in hardware, so the intrinsic is one instruction there.
        name = "llvm.fptosi.sat" if dst.is_signed else "llvm.fptoui.sat"
        fn = b.module.declare_intrinsic(name, [ty, v.type], ir.FunctionType(ty, [v.type]))
        return b.call(fn, [v])
    if dst.is_float and src.is_float:
        if src.bits == dst.bits:
            return v
        return (b.fpext if dst.bits > src.bits else b.fptrunc)(v, ty)
    return None


def saturate_by_selects(b: ir.IRBuilder, v: ir.Value, dst: DType, ty: ir.Type) -> ir.Value:
    """Float → integer truncating and saturating (NaN → 0) as `llvm.fpto[su]i.sat` defines it,
    spelled as a plain conversion and three selects: the x86 backend (LLVM 22) turns a vector
    `fptosi.sat` into one scalar conversion per lane, which made every vectorized loop with an
    `int(x)` run lane by lane, while this form is `vcvttps2dq` and three blends. The plain
    conversion is poison only outside the range, and a select never yields its unchosen arm."""
    lo = -(2.0 ** (dst.bits - 1)) if dst.is_signed else 0.0  # both exact in f32 and f64
    hi = 2.0 ** (dst.bits - 1 if dst.is_signed else dst.bits)
    raw = (b.fptosi if dst.is_signed else b.fptoui)(v, ty)
    imin = -(1 << (dst.bits - 1)) if dst.is_signed else 0
    imax = (1 << (dst.bits - 1)) - 1 if dst.is_signed else -1  # all ones: the unsigned max
    out = b.select(b.fcmp_ordered(">=", v, ir.Constant(v.type, hi)), ir.Constant(ty, imax), raw)
    out = b.select(b.fcmp_ordered("<", v, ir.Constant(v.type, lo)), ir.Constant(ty, imin), out)
    return b.select(b.fcmp_unordered("uno", v, v), ir.Constant(ty, 0), out)


# ---- constants and constant tables ------------------------------------------------------------
def scalar_constant(ty: ir.Type, dtype: DType, v) -> ir.Constant:
    """`v` (representable in `dtype`) as an LLVM constant: a float exactly representable in the
    width, an integer as its two's complement bit pattern."""
    if dtype.is_float:
        v = float(v)
        return ir.Constant(ty, struct.unpack("f", struct.pack("f", v))[0]
                           if isinstance(ty, ir.FloatType) else v)
    v = int(v) & ((1 << dtype.bits) - 1)
    return ir.Constant(ty, v - (1 << dtype.bits) if v >> (dtype.bits - 1) else v)


def constant_table(module: ir.Module, ty: ir.Type, table, name: str,
                   addrspace: int) -> ir.Value:
    """A constant table (`KernelIR.tables`) as a private read-only global array, and a pointer
    to its element 0: loads from it are plain GEP + load, which LLVM knows read constant memory
    (so it may fold a load at a constant index, and NVPTX emits `ld.global.nc` for it)."""
    aty = ir.ArrayType(ty, table.size)
    g = ir.GlobalVariable(module, aty, name, addrspace=addrspace)
    g.linkage = "private"
    g.global_constant = True
    g.unnamed_addr = True  # only the contents matter: LLVM may merge equal tables
    g.initializer = ir.Constant(aty, [scalar_constant(ty, table.dtype, v) for v in table.values])
    g.align = max(table.dtype.itemsize, 4)
    zero = ir.Constant(ir.IntType(32), 0)
    return g.gep([zero, zero])


# ---- loop metadata -------------------------------------------------------------------------------


class _LoopID(ir.values.MDValue):
    """A loop ID: a metadata node whose first operand is itself. `Module.add_metadata` cannot make
    one: a node cannot name itself before it exists, and it merges equal operand lists, while every
    loop needs its own ID. So the node is created empty, then pointed at itself; it compares and
    hashes by identity (by operands, the self-reference would recurse) and is printed `distinct`,
    as clang prints loop IDs."""

    def __init__(self, module: ir.Module, properties: list):
        super().__init__(module, (), name=str(len(module.metadata)))
        self.operands = (self, *properties)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    __hash__ = object.__hash__

    def descr(self, buf):
        buf.append("distinct ")
        super().descr(buf)


def loop_id(module: ir.Module, unroll: int | str) -> ir.values.MDValue:
    """The `llvm.loop` node of one loop with a `tack.unroll` hint (LangRef, "llvm.loop"):
    `distinct !{!self, !{!"llvm.loop.unroll.count", i32 k}}`; k = 1 is
    `llvm.loop.unroll.disable`, a full unroll `llvm.loop.unroll.full`. LLVM reads a loop's hints
    from its latch's terminator, so the caller attaches it to the back edge."""
    if unroll == "full":
        hint = ["llvm.loop.unroll.full"]
    elif unroll == 1:
        hint = ["llvm.loop.unroll.disable"]
    else:
        hint = ["llvm.loop.unroll.count", ir.Constant(ir.IntType(32), unroll)]
    return _LoopID(module, [module.add_metadata(hint)])


# ---- integer power -----------------------------------------------------------------------------
def ipow_function(module: ir.Module, bty: ir.IntType, ety: ir.IntType) -> ir.Function:
    """`tack.ipow.iB.iE(b, e)`: wrapping power by squaring, defined once per module and type
    pair; the IR guarantees e >= 0."""
    name = f"tack.ipow.i{bty.width}.i{ety.width}"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(bty, [bty, ety]), name=name)
    fn.linkage = "internal"
    b0, e0 = fn.args
    entry, loop, body, done = (fn.append_basic_block(n) for n in
                               ("entry", "loop", "body", "done"))
    b = ir.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    r, base, x = b.phi(bty, "r"), b.phi(bty, "base"), b.phi(ety, "e")
    b.cbranch(b.icmp_unsigned("==", x, ir.Constant(ety, 0)), done, body)
    b.position_at_end(body)
    odd = b.trunc(x, I1)
    r2 = b.select(odd, b.mul(r, base), r)
    base2, x2 = b.mul(base, base), b.lshr(x, ir.Constant(ety, 1))
    b.branch(loop)
    for phi, init, nxt in ((r, ir.Constant(bty, 1), r2), (base, b0, base2), (x, e0, x2)):
        phi.add_incoming(init, entry)
        phi.add_incoming(nxt, body)
    b.position_at_end(done)
    b.ret(r)
    return fn

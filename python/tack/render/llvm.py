"""Final `KernelIR` → LLVM IR text (llvmlite.ir); `optimize` (llvm_host.py) runs O3 on it.

CPU entry ABI (what `runtime.cpu` calls; see docs/design/002-cpu-engine.md):

    void @tack_<name>(i64 %t_begin, i64 %t_end, i8* %args)

runs the kernel body once for each launch index t in [t_begin, t_end) (`Op.LAUNCH` is t). `args`
points at one 8-byte slot per `KernelIR.params` entry, in order: an array's slot holds its data
pointer; a scalar's slot holds its value as the dtype's C type, stored at the slot's first byte.

The body is an internal `alwaysinline` function `@tack_<name>.body(i64 t, params...)`: a subclass
(NVPTX) keeps it and overrides `emit_entry` (calling convention, where t comes from), `triple`,
`array_addrspace`, `scratch_array` (shared memory), `thread_id`, `barrier`, `math_function` (math
library), `ll_type`, or entries of the `EMIT` / `STMT` tables of method names.

Semantics follow the ops.py contract: integers wrap (no nsw/nuw), signedness picks sdiv/udiv,
ashr/lshr, icmp s/u and the extension of CAST; floats carry only `contract` (FMA contraction,
no reassociation); arrays may alias (no `noalias`).
"""
from __future__ import annotations

import struct
from typing import ClassVar

import llvmlite.binding as llvm
from llvmlite import ir

from ..dtypes import DType, i64
from ..errors import RenderError, format_at
from ..ir.nodes import (
    Assign,
    Barrier,
    Break,
    Continue,
    Expr,
    ExprStmt,
    For,
    If,
    KernelIR,
    Store,
    While,
)
from ..ir.ops import Op
from .llvm_host import host_target_machine, optimize, optimize_module  # noqa: F401 (re-exported)

I1, I64, F32 = ir.IntType(1), ir.IntType(64), ir.FloatType()
FFLAGS = ("contract",)

_INT_BIN = {Op.ADD: "add", Op.SUB: "sub", Op.MUL: "mul", Op.AND_: "and_", Op.OR_: "or_",
            Op.XOR: "xor", Op.SHL: "shl"}
_SIGNED_BIN = {Op.IDIV: ("sdiv", "udiv"), Op.IREM: ("srem", "urem"), Op.SHR: ("ashr", "lshr")}
_FLOAT_BIN = {Op.ADD: "fadd", Op.SUB: "fsub", Op.MUL: "fmul", Op.FDIV: "fdiv", Op.FREM: "frem"}
_CMP = {Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">=", Op.EQ: "==", Op.NE: "!="}
_MINMAX = {(Op.MIN, True): "llvm.smin", (Op.MIN, False): "llvm.umin",
           (Op.MAX, True): "llvm.smax", (Op.MAX, False): "llvm.umax"}
# atomicrmw by (op, dtype kind); float min/max are minnum/maxnum, as the IR's float MIN/MAX
_ATOMIC = {(Op.ATOMIC_ADD, "i"): "add", (Op.ATOMIC_ADD, "u"): "add", (Op.ATOMIC_ADD, "f"): "fadd",
           (Op.ATOMIC_MIN, "i"): "min", (Op.ATOMIC_MIN, "u"): "umin", (Op.ATOMIC_MIN, "f"): "fmin",
           (Op.ATOMIC_MAX, "i"): "max", (Op.ATOMIC_MAX, "u"): "umax", (Op.ATOMIC_MAX, "f"): "fmax"}

_INTRINSICS = {Op.SQRT: "llvm.sqrt", Op.FLOOR: "llvm.floor", Op.CEIL: "llvm.ceil",
               Op.TRUNC: "llvm.trunc", Op.EXP: "llvm.exp", Op.EXP2: "llvm.exp2", Op.LOG: "llvm.log",
               Op.LOG2: "llvm.log2", Op.LOG10: "llvm.log10", Op.SIN: "llvm.sin",
               Op.COS: "llvm.cos", Op.POW: "llvm.pow", Op.COPYSIGN: "llvm.copysign"}
_LIBM = {Op.TAN: "tan", Op.ASIN: "asin", Op.ACOS: "acos", Op.ATAN: "atan", Op.SINH: "sinh",
         Op.COSH: "cosh", Op.TANH: "tanh", Op.ATAN2: "atan2"}  # + "f" for f32


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


def entry_name(kir: KernelIR) -> str:
    return f"tack_{kir.name}"


class LLVMRenderer:
    """A printer: one method per op family (looked up through `EMIT`), one per statement class."""

    triple: str | None = None  # None: the host process triple
    array_addrspace = 0
    INTRINSICS: ClassVar[dict] = _INTRINSICS
    LIBM: ClassVar[dict] = _LIBM
    EMIT: ClassVar[dict] = {
        Op.CONST: "const", Op.VAR: "var", Op.PARAM: "param", Op.LAUNCH: "launch",
        Op.LOAD: "load", Op.CAST: "cast_expr", Op.NEG: "neg", Op.ABS: "abs_", Op.INVERT: "invert",
        Op.NOT: "invert", Op.ISNAN: "isnan", Op.IPOW: "ipow", Op.MIN: "minmax", Op.MAX: "minmax",
        Op.SELECT: "select", Op.IFEXP: "ifexp", Op.LAND: "logical", Op.LOR: "logical",
        Op.ATOMIC_ADD: "atomic", Op.ATOMIC_MIN: "atomic", Op.ATOMIC_MAX: "atomic",
        Op.THREAD_ID: "thread_id", Op.PRINT: "print_",
        **{op: "binary" for op in (*_INT_BIN, *_SIGNED_BIN, *_FLOAT_BIN)},
        **{op: "compare" for op in _CMP},
        **{op: "math" for op in (*_INTRINSICS, *_LIBM, Op.RSQRT)}}
    STMT: ClassVar[dict] = {Assign: "assign", Store: "store", If: "if_", While: "while_",
                            For: "for_", Break: "break_", Continue: "continue_",
                            ExprStmt: "expr_stmt", Barrier: "barrier"}

    # ---- types -------------------------------------------------------------------------------
    def ll_type(self, dt: DType) -> ir.Type:
        if dt.kind in "iub" and dt.bits:
            return ir.IntType(dt.bits)
        if dt.kind == "f" and dt.bits in (32, 64):
            return ir.FloatType() if dt.bits == 32 else ir.DoubleType()
        raise RenderError(f"no LLVM type for dtype {dt.name}")

    def param_type(self, p) -> ir.Type:
        if p.kind == "array":
            return ir.PointerType(self.ll_type(p.dtype), self.array_addrspace)
        return self.ll_type(p.dtype)

    # ---- module structure ------------------------------------------------------------------
    def render(self, kir: KernelIR) -> str:
        self.kir = kir
        # No fast-math unless the kernel opts in (`@tack.kernel(fastmath=True)`); contraction is
        # always allowed.
        self.fflags = ("fast",) if kir.notes.get("fastmath") else FFLAGS
        self.module = ir.Module(name=kir.name)
        self.module.triple = self.triple or llvm.get_process_triple()
        body = self.emit_body_function(kir)
        self.emit_entry(kir, body)
        return str(self.module)

    def emit_body_function(self, kir: KernelIR) -> ir.Function:
        fnty = ir.FunctionType(ir.VoidType(), [I64] + [self.param_type(p) for p in kir.params])
        fn = ir.Function(self.module, fnty, name=f"{entry_name(kir)}.body")
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")  # after inlining, the entry's t loop vectorizes
        fn.attributes.add("nounwind")
        self.t, *values = fn.args
        self.t.name = "t"
        self.params, self.arrays = {}, {}  # name → (Param, value); name → (dtype, element ptr)
        for p, v in zip(kir.params, values):
            v.name = p.name
            self.params[p.name] = (p, v)
            if p.kind == "array":
                self.arrays[p.name] = (p.dtype, v)
        self.allocas = ir.IRBuilder(fn.append_basic_block("entry"))
        self.b = ir.IRBuilder(fn.append_basic_block("body"))
        self.slots = {n: self.alloca(self.ll_type(dt), n) for n, dt in kir.locals.items()}
        for sc in kir.scratch.values():
            self.arrays[sc.name] = (sc.dtype, self.scratch_array(sc))
        self.loops: list[tuple[ir.Block, ir.Block]] = []  # (continue target, break target)
        self.stmts(kir.body)
        if not self.b.block.is_terminated:
            self.b.ret_void()
        self.allocas.branch(fn.blocks[1])  # allocas first: mem2reg promotes entry-block allocas
        return fn

    def emit_entry(self, kir: KernelIR, body: ir.Function) -> ir.Function:
        """CPU ABI: unpack the 8-byte argument slots once, then loop t over [t_begin, t_end)."""
        i8p = ir.PointerType(ir.IntType(8))
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64, I64, i8p]),
                         name=entry_name(kir))
        fn.attributes.add("nounwind")
        begin, end, args = fn.args
        begin.name, end.name, args.name = "t_begin", "t_end", "args"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        vals = []
        for j, p in enumerate(kir.params):
            ty = self.param_type(p)
            slot = b.bitcast(b.gep(args, [ir.Constant(I64, 8 * j)]), ir.PointerType(ty))
            vals.append(b.load(slot, name=p.name, align=8))
        loop, done = fn.append_basic_block("loop"), fn.append_basic_block("done")
        b.cbranch(b.icmp_signed("<", begin, end), loop, done)
        b.position_at_end(loop)
        t = b.phi(I64, name="t")
        b.call(body, [t] + vals)
        nxt = b.add(t, ir.Constant(I64, 1), name="t.next")
        t.add_incoming(begin, fn.blocks[0])
        t.add_incoming(nxt, loop)
        b.cbranch(b.icmp_signed("<", nxt, end), loop, done)
        b.position_at_end(done)
        b.ret_void()
        return fn

    def scratch_array(self, sc) -> ir.Value:
        """A pointer to element 0 of a scratch array: `local` ones live on the stack (one per
        launch index); `shared` ones need workgroups, which the CPU does not have."""
        if sc.space != "local":
            raise RenderError(format_at(self.kir.loc, f"the LLVM CPU renderer has no workgroups "
                                                      f"for {sc.space} array {sc.name!r}"))
        arr = self.alloca(ir.ArrayType(self.ll_type(sc.dtype), sc.size), sc.name)
        zero = ir.Constant(ir.IntType(32), 0)
        return self.allocas.gep(arr, [zero, zero], inbounds=True, name=f"{sc.name}.0")

    # ---- helpers -------------------------------------------------------------------------------
    def alloca(self, ty: ir.Type, name: str) -> ir.Value:
        return self.allocas.alloca(ty, name=name)

    def block(self, name: str) -> ir.Block:
        return self.b.append_basic_block(name)

    def need(self, e: Expr, ok: bool) -> Expr:
        if not ok:
            raise self.missing(e)
        return e

    def missing(self, e: Expr, why: str = "") -> RenderError:
        dt = e.dtype.name if e.dtype is not None else "untyped"
        msg = f"the LLVM renderer cannot render {e.op.name} on {dt}{why}"
        return RenderError(format_at(e.loc, msg))

    def intrinsic(self, name: str, ty: ir.Type, nargs: int, *extra: ir.Type) -> ir.Function:
        return self.module.declare_intrinsic(
            name, [ty], ir.FunctionType(ty, [ty] * nargs + list(extra)))

    def declare(self, name: str, ret: ir.Type, args: list) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name=name)
            fn.attributes.add("nounwind")
        return fn

    # ---- expressions ---------------------------------------------------------------------------
    def expr(self, e: Expr) -> ir.Value:
        name = self.EMIT.get(e.op)
        if name is None:
            raise self.missing(e)
        return getattr(self, name)(e)

    def operands(self, e: Expr) -> list[ir.Value]:
        return [self.expr(a) for a in e.args]

    def const(self, e: Expr) -> ir.Value:
        ty = self.ll_type(e.dtype)
        if e.dtype.is_float:  # LLVM wants a value exactly representable in the width
            v = float(e.arg)
            return ir.Constant(ty, struct.unpack("f", struct.pack("f", v))[0] if ty == F32 else v)
        v = int(e.arg) & ((1 << e.dtype.bits) - 1)  # wrap to the two's complement pattern
        return ir.Constant(ty, v - (1 << e.dtype.bits) if v >> (e.dtype.bits - 1) else v)

    def var(self, e: Expr) -> ir.Value:
        return self.b.load(self.slots[e.arg], name=e.arg)

    def param(self, e: Expr) -> ir.Value:
        p, v = self.params[e.arg]
        if p.kind != "scalar":
            raise self.missing(e, f" (array {e.arg!r} used as a scalar)")
        return v

    def launch(self, e: Expr) -> ir.Value:
        return self.t

    def element_ptr(self, loc, array: str, indices) -> tuple[ir.Value, int]:
        """GEP to one element of an array parameter or scratch array, and its alignment."""
        dt, ptr = self.arrays.get(array, (None, None))
        if dt is None or len(indices) != 1:
            raise RenderError(format_at(loc, f"the LLVM renderer needs an array and one flat i64 "
                                             f"index, got {array!r}[{len(indices)} indices]"))
        idx = self.cast(self.expr(indices[0]), indices[0].dtype, i64)
        return self.b.gep(ptr, [idx], inbounds=True), dt.itemsize

    def load(self, e: Expr) -> ir.Value:
        ptr, align = self.element_ptr(e.loc, e.arg, e.args)
        return self.b.load(ptr, align=align)

    def atomic(self, e: Expr) -> ir.Value:
        """Relaxed read-modify-write of a global or shared array element; the result is the old
        value."""
        p = self.params.get(e.arg, (None,))[0]
        sc = self.kir.scratch.get(e.arg)
        op = _ATOMIC.get((e.op, e.dtype.kind))
        target = (p is not None and p.kind == "array" and p.dtype is e.dtype) or (
            sc is not None and sc.space == "shared" and sc.dtype is e.dtype)
        self.need(e, target and op is not None)
        ptr, _ = self.element_ptr(e.loc, e.arg, e.args[:1])  # Python order: index, then value
        return self.b.atomic_rmw(op, ptr, self.expr(e.args[1]), "monotonic")

    def thread_id(self, e: Expr) -> ir.Value:
        raise self.missing(e, " (workgroup lane ids need a GPU engine)")

    def binary(self, e: Expr) -> ir.Value:
        a, b = self.operands(e)
        dt = e.dtype
        if dt.is_float and e.op in _FLOAT_BIN:
            return getattr(self.b, _FLOAT_BIN[e.op])(a, b, flags=self.fflags)
        if dt.is_int and e.op in _SIGNED_BIN:
            return getattr(self.b, _SIGNED_BIN[e.op][0 if dt.is_signed else 1])(a, b)
        if (dt.is_int or (dt.kind == "b" and e.op in (Op.AND_, Op.OR_, Op.XOR))) \
                and e.op in _INT_BIN:
            return getattr(self.b, _INT_BIN[e.op])(a, b)
        raise self.missing(e)

    def compare(self, e: Expr) -> ir.Value:
        a, b = self.operands(e)
        dt = e.args[0].dtype
        op = _CMP[e.op]
        if dt.is_float:  # ordered, except != which is true on NaN
            fcmp = self.b.fcmp_unordered if e.op is Op.NE else self.b.fcmp_ordered
            return fcmp(op, a, b)
        return (self.b.icmp_signed if dt.is_signed else self.b.icmp_unsigned)(op, a, b)

    def neg(self, e: Expr) -> ir.Value:
        (a,) = self.operands(self.need(e, e.dtype.kind != "b"))
        if e.dtype.is_float:
            return self.b.fneg(a, flags=self.fflags)
        return self.b.sub(ir.Constant(a.type, 0), a)

    def invert(self, e: Expr) -> ir.Value:  # INVERT on ints, NOT on bools: xor with all ones
        (a,) = self.operands(self.need(e, not e.dtype.is_float))
        return self.b.not_(a)

    def abs_(self, e: Expr) -> ir.Value:
        (a,) = self.operands(self.need(e, e.dtype.kind != "b"))
        if e.dtype.is_float:
            return self.b.call(self.intrinsic("llvm.fabs", a.type, 1), [a])
        if not e.dtype.is_signed:
            return a
        # is_int_min_poison=false: abs(MIN) wraps to MIN instead of being poison.
        fn = self.intrinsic("llvm.abs", a.type, 1, I1)
        return self.b.call(fn, [a, ir.Constant(I1, 0)])

    def isnan(self, e: Expr) -> ir.Value:
        (a,) = self.operands(self.need(e, e.args[0].dtype.is_float))
        return self.b.fcmp_unordered("uno", a, a)

    def minmax(self, e: Expr) -> ir.Value:
        a, b = self.operands(e)
        if e.dtype.is_float:
            # A NaN loses: select((a < b) | isnan(b), a, b). Not llvm.minnum/maxnum: llvmlite
            # 0.50's LLVM asserts (aborting Python) vectorizing some of their reductions; nor
            # minimumnum/maximumnum, whose x86 lowering gave wrong results in a differential test.
            better = self.b.fcmp_ordered("<" if e.op is Op.MIN else ">", a, b)
            nan_b = self.b.fcmp_unordered("uno", b, b)
            return self.b.select(self.b.or_(better, nan_b), a, b)
        return self.b.call(self.intrinsic(_MINMAX[e.op, e.dtype.is_signed], a.type, 2), [a, b])

    def math(self, e: Expr) -> ir.Value:
        args = self.operands(self.need(e, e.dtype.is_float))
        if e.op is Op.RSQRT and Op.RSQRT not in self.LIBM:  # fastmath only: fast 1/sqrt
            sqrt = self.intrinsic("llvm.sqrt", args[0].type, 1)
            root = self.b.call(sqrt, args, fastmath=self.fflags)
            return self.b.fdiv(ir.Constant(args[0].type, 1.0), root, flags=self.fflags)
        fn = self.math_function(e.op, e.dtype)
        if self.fflags != FFLAGS and fn.name.startswith("llvm."):
            return self.b.call(fn, args, fastmath=self.fflags)
        return self.b.call(fn, args)

    def math_function(self, op: Op, dt: DType) -> ir.Function:
        """The callee of a float math op: an LLVM intrinsic or libm (`sinhf` for f32)."""
        ty = self.ll_type(dt)
        nargs = 2 if op in (Op.POW, Op.COPYSIGN, Op.ATAN2) else 1
        if op in self.INTRINSICS:
            return self.intrinsic(self.INTRINSICS[op], ty, nargs)
        name = self.LIBM[op] + ("f" if dt.bits == 32 else "")
        return self.declare(name, ty, [ty] * nargs)

    def ipow(self, e: Expr) -> ir.Value:
        base, exp = self.operands(self.need(e, e.dtype.is_int and e.args[1].dtype.is_int))
        return self.b.call(self.ipow_function(base.type, exp.type), [base, exp])

    def ipow_function(self, bty: ir.IntType, ety: ir.IntType) -> ir.Function:
        """`tack.ipow.iB.iE(b, e)`: wrapping power by squaring; the IR guarantees e >= 0."""
        name = f"tack.ipow.i{bty.width}.i{ety.width}"
        if name in self.module.globals:
            return self.module.globals[name]
        fn = ir.Function(self.module, ir.FunctionType(bty, [bty, ety]), name=name)
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

    def select(self, e: Expr) -> ir.Value:
        c, a, b = self.operands(e)
        return self.b.select(c, a, b)

    def branches(self, cond: ir.Value, arms) -> ir.Value:
        """Evaluate `arms[0]()` when cond else `arms[1]()` (each a thunk), joined by a phi."""
        then, other, merge = self.block("then"), self.block("else"), self.block("merge")
        self.b.cbranch(cond, then, other)
        incoming = []
        for bb, arm in zip((then, other), arms):
            self.b.position_at_end(bb)
            v = arm()
            incoming.append((v, self.b.block))  # arm may have opened blocks of its own
            self.b.branch(merge)
        self.b.position_at_end(merge)
        phi = self.b.phi(incoming[0][0].type)
        for v, bb in incoming:
            phi.add_incoming(v, bb)
        return phi

    def ifexp(self, e: Expr) -> ir.Value:
        c = self.expr(e.args[0])
        return self.branches(c, (lambda: self.expr(e.args[1]), lambda: self.expr(e.args[2])))

    def logical(self, e: Expr) -> ir.Value:
        a = self.expr(e.args[0])
        rhs = lambda: self.expr(e.args[1])
        short = lambda: ir.Constant(I1, e.op is Op.LOR)
        return self.branches(a, (short, rhs) if e.op is Op.LOR else (rhs, short))

    def cast_expr(self, e: Expr) -> ir.Value:
        return self.cast(self.expr(e.args[0]), e.args[0].dtype, e.dtype, e)

    def cast(self, v: ir.Value, src: DType, dst: DType, e: Expr | None = None) -> ir.Value:
        b, ty = self.b, self.ll_type(dst)
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
            # Saturating forms: an unrepresentable value gives some value (the contract leaves it
            # unspecified) instead of poison, which could turn into UB downstream.
            name = "llvm.fptosi.sat" if dst.is_signed else "llvm.fptoui.sat"
            fn = self.module.declare_intrinsic(name, [ty, v.type], ir.FunctionType(ty, [v.type]))
            return b.call(fn, [v])
        if dst.is_float and src.is_float:
            if src.bits == dst.bits:
                return v
            return (b.fpext if dst.bits > src.bits else b.fptrunc)(v, ty)
        raise self.missing(e) if e is not None else RenderError(f"cast {src.name}→{dst.name}")

    # ---- statements ----------------------------------------------------------------------------
    def stmts(self, body) -> None:
        for s in body:
            if self.b.block.is_terminated:  # code after break/continue: unreachable but valid
                self.b.position_at_end(self.block("dead"))
            name = self.STMT.get(type(s))
            if name is None:
                raise RenderError(format_at(s.loc, f"the LLVM renderer cannot render a "
                                                   f"{type(s).__name__} statement"))
            getattr(self, name)(s)

    def branch_to(self, target: ir.Block) -> None:
        if not self.b.block.is_terminated:
            self.b.branch(target)

    def assign(self, s: Assign) -> None:
        self.b.store(self.expr(s.value), self.slots[s.name])

    def store(self, s: Store) -> None:
        value = self.expr(s.value)  # Python order: the value, then the index
        ptr, align = self.element_ptr(s.loc, s.array, s.indices)
        self.b.store(value, ptr, align=align)

    def expr_stmt(self, s: ExprStmt) -> None:
        self.expr(s.value)

    def print_(self, e: Expr) -> ir.Value:
        """printf of one line, then fflush, so output interleaves sanely with Python's."""
        parts, values = [], iter(e.args)
        args = []
        for piece in e.arg:
            if piece is not None:
                parts.append(piece.replace("%", "%%"))
                continue
            v = next(values)
            x = self.expr(v)
            if v.dtype.is_float:
                parts.append("%.7g" if v.dtype.bits == 32 else "%.16g")
                args.append(self.b.fpext(x, ir.DoubleType()) if v.dtype.bits == 32 else x)
            else:
                parts.append("%lld" if v.dtype.is_signed else "%llu")
                wide = self.b.sext if v.dtype.is_signed else self.b.zext
                args.append(wide(x, I64) if v.dtype.bits < 64 else x)
        text = (" ".join(parts) + "\n").encode() + b"\0"
        name = f".fmt{len([g for g in self.module.global_values if g.name.startswith('.fmt')])}"
        const = ir.Constant(ir.ArrayType(ir.IntType(8), len(text)), bytearray(text))
        gv = ir.GlobalVariable(self.module, const.type, name=name)
        gv.global_constant, gv.linkage, gv.initializer = True, "internal", const
        i8p = ir.IntType(8).as_pointer()
        printf = self.module.globals.get("printf") or ir.Function(
            self.module, ir.FunctionType(ir.IntType(32), [i8p], var_arg=True), name="printf")
        self.b.call(printf, [self.b.bitcast(gv, i8p)] + args)
        fflush = self.declare("fflush", ir.IntType(32), [i8p])
        self.b.call(fflush, [ir.Constant(i8p, None)])
        return ir.Constant(ir.IntType(32), 0)

    def if_(self, s: If) -> None:
        cond = self.expr(s.cond)
        then, merge = self.block("if.then"), self.block("if.end")
        other = self.block("if.else") if s.orelse else merge
        self.b.cbranch(cond, then, other)
        for bb, body in ((then, s.then), (other, s.orelse)):
            if bb is not merge:
                self.b.position_at_end(bb)
                self.stmts(body)
                self.branch_to(merge)
        self.b.position_at_end(merge)

    def loop_body(self, body, cont: ir.Block, brk: ir.Block) -> None:
        self.loops.append((cont, brk))
        self.stmts(body)
        self.loops.pop()
        self.branch_to(cont)

    def while_(self, s: While) -> None:
        head, body, end = (self.block(f"while.{n}") for n in ("cond", "body", "end"))
        self.b.branch(head)
        self.b.position_at_end(head)
        self.b.cbranch(self.expr(s.cond), body, end)
        self.b.position_at_end(body)
        self.loop_body(s.body, head, end)
        self.b.position_at_end(end)

    def for_(self, s: For) -> None:
        """A hidden counter drives the loop, so a body that assigns `var` cannot change the trip
        (Python semantics); `var` is set from the counter at the top of each iteration."""
        dt = self.kir.locals[s.var]
        counter = self.alloca(self.ll_type(dt), f"{s.var}.i")
        self.b.store(self.expr(s.start), counter)
        stop = self.expr(s.stop)  # evaluated once, at entry
        head, body, latch, end = (self.block(f"for.{n}") for n in ("cond", "body", "inc", "end"))
        self.b.branch(head)
        self.b.position_at_end(head)
        i = self.b.load(counter)
        cmp = self.b.icmp_signed if dt.is_signed else self.b.icmp_unsigned
        self.b.cbranch(cmp("<", i, stop), body, end)
        self.b.position_at_end(body)
        self.b.store(i, self.slots[s.var])
        self.loop_body(s.body, latch, end)
        self.b.position_at_end(latch)
        i = self.b.load(counter)
        self.b.store(self.b.add(i, ir.Constant(i.type, 1)), counter)
        backedge = self.b.branch(head)
        if s.unroll is not None:  # LLVM reads a loop's hints from its latch's terminator
            backedge.set_metadata("llvm.loop", self.loop_id(s.unroll))
        self.b.position_at_end(end)

    def loop_id(self, unroll: int | str) -> ir.values.MDValue:
        """The `llvm.loop` node of one loop with a `tack.unroll` hint (LangRef, "llvm.loop"):
        `distinct !{!self, !{!"llvm.loop.unroll.count", i32 k}}`; k = 1 is
        `llvm.loop.unroll.disable`, a full unroll `llvm.loop.unroll.full`."""
        if unroll == "full":
            hint = ["llvm.loop.unroll.full"]
        elif unroll == 1:
            hint = ["llvm.loop.unroll.disable"]
        else:
            hint = ["llvm.loop.unroll.count", ir.Constant(ir.IntType(32), unroll)]
        return _LoopID(self.module, [self.module.add_metadata(hint)])

    def barrier(self, s: Barrier) -> None:
        raise RenderError(format_at(s.loc, "the LLVM CPU renderer has no workgroup barrier"))

    def break_(self, s: Break) -> None:
        self.b.branch(self._loop(s)[1])

    def continue_(self, s: Continue) -> None:
        if not self.loops:  # in the parallel loop: this launch index is done
            self.b.ret_void()
            return
        self.b.branch(self._loop(s)[0])

    def _loop(self, s) -> tuple[ir.Block, ir.Block]:
        if not self.loops:
            raise RenderError(format_at(s.loc, f"{type(s).__name__.lower()} outside a loop"))
        return self.loops[-1]


def render(kir: KernelIR) -> str:
    """The CPU engine's LLVM IR text for one final KernelIR."""
    return LLVMRenderer().render(kir)


render_llvm = render  # the name `tack.inspect` imports

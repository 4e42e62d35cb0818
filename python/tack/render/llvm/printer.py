"""Final `KernelIR` → LLVM IR text (llvmlite.ir); toolchain/llvm_host.py optimizes and compiles it.

The CPU entry (`void @tack_<name>(i64 %t_begin, i64 %t_end, i8* %args, i64 %sig0)`, what `runtime.cpu.engine`
calls) is render/llvm/entry.py's. The body is an internal `alwaysinline` function `@tack_<name>.body(i64 t, params...)`: a subclass
(NVPTX) keeps it and overrides `emit_entry` (calling convention, where t comes from), `triple`,
`array_addrspace`, `scratch_array` (shared memory), `thread_id`, `barrier`, `math_function` (math
library), `ll_type`, or entries of the `EMIT` / `STMT` tables of method names. A builtin's math
function is lowered as its registry entry says for `engine` (builtins/entry.py, `Lowering`).

Semantics follow the ops.py contract: integers wrap (no nsw/nuw), signedness picks sdiv/udiv,
ashr/lshr, icmp s/u and the extension of CAST; float ops carry no fast-math flag, not even
`contract`: a multiply-add fuses only where `passes.muladd` made an `Op.MULADD`, emitted as
`llvm.fmuladd` (docs/language.md "Integer and float rules", Multiply-add); arrays may alias
(no `noalias`).
"""
from __future__ import annotations

import math
from typing import ClassVar

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from ...builtins.entry import Lowering
from ...builtins.registry import by_op, lowered
from ...dtypes import DType, bf16, f16, f32, i64
from ...errors import RenderError
from ...ir.nodes import (
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
from ...ir.ops import Op
from ...passes.minmax import keyed_minmax_reductions
from .bits import BitRendering
from .entry import CPUEntry, entry_name
from .half import bf16_to_f32, f16_converters, f32_to_bf16
from .printf import emit_printf
from .support import (
    ATOMIC_RMW,
    CMP,
    FLOAT_BIN,
    INT_BIN,
    MINMAX,
    SIGNED_BIN,
    constant_table,
    convert,
    ipow_function,
    loop_id,
    scalar_constant,
)

I1, I64, F32 = ir.IntType(1), ir.IntType(64), ir.FloatType()
FFLAGS = ()  # no contraction outside Op.MULADD (passes/muladd.py)

class LLVMRenderer(BitRendering, CPUEntry):
    """A printer: one method per op family (looked up through `EMIT`), one per statement class."""

    triple: str | None = None  # None: the host process triple
    # Whether the target converts f32 ↔ f16 in hardware (render/llvm/half.py); None: this
    # process's CPU, as llvmlite reports its features (the CPU engine passes its chosen target's)
    f16_native: bool | None = None
    array_addrspace = 0
    table_addrspace = 0  # constant tables (`KernelIR.tables`)
    engine = "cpu"  # which lowering of a builtin's entry this printer reads
    # Float min/max of +0.0 and -0.0 give +0.0 (max) and -0.0 (min) in either order (`zero_tie`),
    # on every engine (docs/language.md); so min/max reductions may take their elements in any
    # order, and the CPU's are carried in integer keys that vectorize (passes/minmax.py).
    keyed_reductions = True
    EMIT: ClassVar[dict] = {
        Op.CONST: "const", Op.VAR: "var", Op.PARAM: "param", Op.LAUNCH: "launch",
        Op.LOAD: "load", Op.CAST: "cast_expr", Op.NEG: "neg", Op.ABS: "abs_", Op.INVERT: "invert",
        Op.NOT: "invert", Op.ISNAN: "isnan", Op.IPOW: "ipow", Op.MIN: "minmax", Op.MAX: "minmax",
        Op.SELECT: "select", Op.IFEXP: "ifexp", Op.LAND: "logical", Op.LOR: "logical",
        Op.ATOMIC_ADD: "atomic", Op.ATOMIC_MIN: "atomic", Op.ATOMIC_MAX: "atomic",
        Op.THREAD_ID: "thread_id", Op.PRINT: "print_", Op.MULADD: "muladd", Op.BITCAST: "bitcast_",
        **{op: "binary" for op in (*INT_BIN, *SIGNED_BIN, *FLOAT_BIN)},
        **{op: "compare" for op in CMP},
        **{op: "math" for op in lowered("cpu")}}
    STMT: ClassVar[dict] = {Assign: "assign", Store: "store", If: "if_", While: "while_",
                            For: "for_", Break: "break_", Continue: "continue_",
                            ExprStmt: "expr_stmt", Barrier: "barrier"}

    # ---- types -------------------------------------------------------------------------------
    def ll_type(self, dt: DType) -> ir.Type:
        if dt is f16:
            return ir.HalfType()
        if dt.kind in "iub" and dt.bits or dt is bf16:  # bf16: its bits (render/llvm/half.py)
            return ir.IntType(dt.bits)
        if dt.kind == "f" and dt.bits in (32, 64):
            return ir.FloatType() if dt.bits == 32 else ir.DoubleType()
        raise RenderError(f"no LLVM type for dtype {dt.name}")

    def param_type(self, p) -> ir.Type:
        if p.kind == "array":
            return ir.PointerType(self.ll_type(p.dtype), self.array_addrspace)
        return self.ll_type(p.dtype)

    # ---- module structure ------------------------------------------------------------------
    def rewrite(self, kir: KernelIR) -> KernelIR:
        """The IR rewrites this printer declares: float min/max reductions carried in integer
        keys, which vectorize (passes/minmax.py); `kir` if none applies."""
        return keyed_minmax_reductions(kir) if self.keyed_reductions else kir

    def render(self, kir: KernelIR) -> str:
        kir = self.rewrite(kir)
        self.kir = kir
        # No fast-math unless the kernel opts in (`@tack.kernel(fastmath=True)`).
        self.fflags = ("fast",) if kir.notes.get("fastmath") else FFLAGS
        self.module = ir.Module(name=kir.name)
        self.module.triple = self.triple or llvm.get_process_triple()
        self.plan_frame(kir)
        body = self.emit_body_function(kir)
        self.emit_entry(kir, body)
        return str(self.module)

    def emit_body_function(self, kir: KernelIR) -> ir.Function:
        fnty = ir.FunctionType(ir.VoidType(), self.body_param_types(kir))
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
        self.extra_args = values[self.bind_frame(values, len(kir.params)):]  # a subclass's own
        self.allocas = ir.IRBuilder(fn.append_basic_block("entry"))
        self.b = ir.IRBuilder(fn.append_basic_block("body"))
        self.slots = {n: self.alloca(self.ll_type(dt), n) for n, dt in kir.locals.items()}
        for sc in kir.scratch.values():
            self.arrays[sc.name] = (sc.dtype, self.scratch_array(sc))
        for tb in kir.tables.values():  # read-only data, one global per table
            self.arrays[tb.name] = (tb.dtype, constant_table(
                self.module, self.ll_type(tb.dtype), tb, f"{entry_name(kir)}.table.{tb.name}",
                self.table_addrspace))
        self.loops: list[tuple[ir.Block, ir.Block]] = []  # (continue target, break target)
        self.stmts(kir.body)
        if not self.b.block.is_terminated:
            self.b.ret_void()
        self.allocas.branch(fn.blocks[1])  # allocas first: mem2reg promotes entry-block allocas
        return fn

    def body_param_types(self, kir: KernelIR) -> list[ir.Type]:
        """The body's parameters: t, the kernel's, the heap frame if it has one (a subclass may
        append its own)."""
        return [I64] + [self.param_type(p) for p in kir.params] + self.frame_param()

    def scratch_array(self, sc) -> ir.Value:
        """A pointer to element 0 of a scratch array: `local` ones live on the stack (one per
        launch index), or in the entry's heap frame when large (render/llvm/entry.py); `shared` ones
        need workgroups, which the CPU does not have."""
        if sc.space != "local":
            raise RenderError.at(self.kir.loc, f"the LLVM CPU renderer has no workgroups for "
                                               f"{sc.space} array {sc.name!r}")
        if sc.name in self.heap:  # a large one: in the entry's heap frame (render/llvm/entry.py)
            return self.heap_array(sc)
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
        return RenderError.at(e.loc, msg)

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
        if e.dtype is bf16:  # its bit pattern
            bits = np.array(e.arg, bf16.np).view(np.int16).item()
            return ir.Constant(self.ll_type(bf16), bits)
        return scalar_constant(self.ll_type(e.dtype), e.dtype, e.arg)

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
            raise RenderError.at(loc, f"the LLVM renderer needs an array and one flat i64 index, "
                                      f"got {array!r}[{len(indices)} indices]")
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
        op = ATOMIC_RMW.get((e.op, e.dtype.kind))
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
        if dt.is_float and e.op in FLOAT_BIN:
            return getattr(self.b, FLOAT_BIN[e.op])(a, b, flags=self.fflags)
        if dt.is_int and e.op in SIGNED_BIN:
            return getattr(self.b, SIGNED_BIN[e.op][0 if dt.is_signed else 1])(a, b)
        if (dt.is_int or (dt.kind == "b" and e.op in (Op.AND_, Op.OR_, Op.XOR))) \
                and e.op in INT_BIN:
            return getattr(self.b, INT_BIN[e.op])(a, b)
        raise self.missing(e)

    def muladd(self, e: Expr) -> ir.Value:  # one rounding where the target has FMA
        args = self.operands(self.need(e, e.dtype.is_float))
        fn = self.intrinsic("llvm.fmuladd", args[0].type, 3)
        return self.b.call(fn, args, fastmath=self.fflags)

    def compare(self, e: Expr) -> ir.Value:
        a, b = self.operands(e)
        dt = e.args[0].dtype
        op = CMP[e.op]
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
            picked = self.b.select(self.b.or_(better, nan_b), a, b)
            if _tie_decided(e.op, *e.args):
                return picked
            return self.zero_tie(e.op, a, b, picked)
        return self.b.call(self.intrinsic(MINMAX[e.op, e.dtype.is_signed], a.type, 2), [a, b])

    def zero_tie(self, op: Op, a: ir.Value, b: ir.Value, picked: ir.Value) -> ir.Value:
        """`picked`, except where a == b: then the AND of their bits for MAX, the OR for MIN,
        which is either operand unless they are +0.0 and -0.0; max gives +0.0 and min -0.0 in
        either order, so that min and max are commutative and associative and a reduction may
        take its elements in any order (passes/minmax.py; docs/design/002-cpu-engine.md)."""
        bits = ir.IntType({ir.HalfType: 16, ir.FloatType: 32, ir.DoubleType: 64}[type(a.type)])
        x, y = self.b.bitcast(a, bits), self.b.bitcast(b, bits)
        both = self.b.and_(x, y) if op is Op.MAX else self.b.or_(x, y)
        tie = self.b.fcmp_ordered("==", a, b)
        return self.b.select(tie, self.b.bitcast(both, a.type), picked)

    def math(self, e: Expr) -> ir.Value:
        """A builtin's math function (the math functions, `pow`), as its entry's lowering."""
        args = self.operands(self.need(e, e.dtype.is_float))
        low = self.lowering(e)
        if low.kind == "printer":
            return getattr(self, low.name)(e, args)
        fn = self.math_function(e.op, e.dtype)
        if self.fflags != FFLAGS and fn.name.startswith("llvm."):
            return self.b.call(fn, args, fastmath=self.fflags)
        return self.b.call(fn, args)

    def lowering(self, e: Expr) -> Lowering:
        """The entry's lowering of `e`'s op on this printer's engine, for `e`'s dtype."""
        b = by_op(e.op)
        low = getattr(b, self.engine) if b is not None else None
        if low is None or not low.admits(e.dtype):
            raise self.missing(e, f" (no {self.engine} lowering of {b.name if b else e.op.name}"
                                  f" for {e.dtype.name})" if e.dtype is not None else "")
        return low

    def math_function(self, op: Op, dt: DType) -> ir.Function:
        """The callee of a math function: an LLVM intrinsic or the C library's (`sinhf` for
        f32; `library_name` spells it)."""
        b = by_op(op)
        low = getattr(b, self.engine)
        ty = self.ll_type(dt)
        nargs = b.arity[0]
        if low.kind == "intrinsic":
            return self.intrinsic(low.name, ty, nargs)
        return self.declare(self.library_name(low.name, dt), ty, [ty] * nargs)

    def library_name(self, name: str, dt: DType) -> str:
        """libm's name of a math function for `dt` (`tanf` for f32)."""
        return name + ("f" if dt.bits == 32 else "")

    def rsqrt(self, e: Expr, args: list) -> ir.Value:
        """RSQRT, in fastmath kernels only (passes/lower_ops.py): sqrt and fdiv, both `fast`,
        which a target may turn into its approximate reciprocal square root."""
        sqrt = self.intrinsic("llvm.sqrt", args[0].type, 1)
        root = self.b.call(sqrt, args, fastmath=self.fflags)
        return self.b.fdiv(ir.Constant(args[0].type, 1.0), root, flags=self.fflags)

    def ipow(self, e: Expr) -> ir.Value:
        base, exp = self.operands(self.need(e, e.dtype.is_int and e.args[1].dtype.is_int))
        return self.b.call(ipow_function(self.module, base.type, exp.type), [base, exp])

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
        if (src.is_half or dst.is_half) and f32 not in (src, dst):  # passes/half.py leaves none
            raise self.missing(e) if e is not None else RenderError(f"cast {src.name}→{dst.name}")
        if dst is bf16:
            return f32_to_bf16(self.b, v)
        if src is bf16:
            return bf16_to_f32(self.b, v)
        if f16 in (src, dst) and not self.native_f16():
            to_f16, to_f32 = f16_converters(self.module)
            return self.b.call(to_f16 if dst is f16 else to_f32, [v])
        out = convert(self.b, v, src, dst, self.ll_type(dst))
        if out is None:
            raise self.missing(e) if e is not None else RenderError(f"cast {src.name}→{dst.name}")
        return out

    def native_f16(self) -> bool:
        """`f16_native`, or for None the host's: x86-64 needs F16C, other targets have it."""
        if self.f16_native is None:
            features = llvm.get_host_cpu_features().flatten().split(",")
            self.f16_native = not self.module.triple.startswith(("x86_64", "i686")) \
                or "+f16c" in features
        return self.f16_native

    # ---- statements ----------------------------------------------------------------------------
    def stmts(self, body) -> None:
        for s in body:
            if self.b.block.is_terminated:  # code after break/continue: unreachable but valid
                self.b.position_at_end(self.block("dead"))
            name = self.STMT.get(type(s))
            if name is None:
                raise RenderError.at(s.loc, f"the LLVM renderer cannot render a "
                                            f"{type(s).__name__} statement")
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

    print_ = emit_printf  # printf of one line, then fflush (render/llvm/printf.py)

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
        counter, stop, lt = self.for_counter(s)
        self.b.position_at_end(self.for_trips(s, counter, lambda: stop, lt))

    def for_counter(self, s: For) -> tuple[ir.Value, ir.Value, object]:
        """The hidden counter of `s`, set to its start; its stop, evaluated once, here; and
        the builder's comparison for the counter's type."""
        dt = self.kir.locals[s.var]
        counter = self.alloca(self.ll_type(dt), f"{s.var}.i")
        self.b.store(self.expr(s.start), counter)
        stop = self.expr(s.stop)  # evaluated once, at entry
        return counter, stop, (self.b.icmp_signed if dt.is_signed else self.b.icmp_unsigned)

    def for_trips(self, s: For, counter, bound, lt, done: ir.Block | None = None,
                  end: ir.Block | None = None) -> ir.Block:
        """The loop of `s` while `counter` < bound(), `var` set from the counter at the top of
        each trip, the counter stepped in the latch (which carries the unroll hint); then to
        `done`, `break` to `end` (both a new block after the loop's, unless given). The
        polled loops of the CPU engine run their strips through it (render/llvm/polls.py)."""
        head, body, latch = (self.block(f"for.{n}") for n in ("cond", "body", "inc"))
        if end is None:
            end = done = self.block("for.end")
        self.b.branch(head)
        self.b.position_at_end(head)
        i = self.b.load(counter)
        self.b.cbranch(lt("<", i, bound()), body, done)
        self.b.position_at_end(body)
        self.b.store(i, self.slots[s.var])
        self.loop_body(s.body, latch, end)
        self.b.position_at_end(latch)
        i = self.b.load(counter)
        self.b.store(self.b.add(i, ir.Constant(i.type, 1)), counter)
        backedge = self.b.branch(head)
        if s.unroll is not None:  # LLVM reads a loop's hints from its latch's terminator
            backedge.set_metadata("llvm.loop", loop_id(self.module, s.unroll))
        return end

    def barrier(self, s: Barrier) -> None:
        raise RenderError.at(s.loc, "the LLVM CPU renderer has no workgroup barrier")

    def break_(self, s: Break) -> None:
        self.b.branch(self._loop(s)[1])

    def continue_(self, s: Continue) -> None:
        if not self.loops:  # in the parallel loop: this launch index is done
            self.b.ret_void()
            return
        self.b.branch(self._loop(s)[0])

    def _loop(self, s) -> tuple[ir.Block, ir.Block]:
        if not self.loops:
            raise RenderError.at(s.loc, f"{type(s).__name__.lower()} outside a loop")
        return self.loops[-1]


def _tie_decided(op: Op, a: Expr, b: Expr) -> bool:
    """Whether the select alone gives `zero_tie`'s result: an operand is a constant other than
    ±0.0 (then the operands tie only with the same bits), or the second, which the select
    takes on a tie, is the zero the tie gives (`max(x, 0.0)`, `min(x, -0.0)`)."""
    if any(x.op is Op.CONST and x.arg == x.arg and x.arg != 0 for x in (a, b)):
        return True
    return b.op is Op.CONST and b.arg == 0 and (math.copysign(1.0, b.arg) > 0) == (op is Op.MAX)


def render(kir: KernelIR) -> str:
    """The CPU engine's LLVM IR text for one final KernelIR."""
    return LLVMRenderer().render(kir)

render_llvm = render  # the name `tack.inspect` imports

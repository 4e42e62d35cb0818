"""Final `KernelIR` → LLVM IR for NVPTX, sharing the CPU renderer (`render.llvm`).

`PTXRenderer` overrides only what differs from the CPU (docs/design/004-cuda-engine.md):

- module triple `nvptx64-nvidia-cuda`, the NVPTX data layout (set by the toolchain's O3);
- the entry: a `ptx_kernel` function `void @tack_<name>(params..., i64 %n)` (PTX `.visible
  .entry`) that computes its launch index in 64 bits, `t = zext(ctaid.x) * zext(ntid.x) +
  zext(tid.x)` (widened BEFORE the multiply: no wrap at 2^32 threads), guards `t < n` and calls
  the CPU renderer's `alwaysinline` body. A block is one workgroup (`ir.ops.WORKGROUP` = 256
  threads). Cheap elementwise kernels run `per_thread` consecutive indices per thread
  (passes/coarsen.py); a kernel whose unrolled loops access provably aligned groups of
  neighbouring elements (passes/divisibility.py, `aligned_access_bytes`) gets the aligned entry
  (`emit_aligned`: the body twice, with 16-byte aligned arrays or not, tested once).
  Scalar bool parameters travel as one byte (`i8`, truncated to `i1`);
- math through libdevice (`__nv_expf`, `__nv_sin`, ...; float `%` is `__nv_fmodf`), as each
  builtin's registry entry says (builtins/functions.py), except ops that NVPTX lowers to exact
  instructions (`llvm.sqrt` → `sqrt.rn`, floor/ceil/trunc → `cvt.rmi/rpi/rzi`,
  copysign, fabs). By default no fast-math: `fdiv` stays IEEE (`div.rn`), the module flag
  `nvvm-reflect-ftz` is 0 (libdevice keeps subnormals), and no `afn`/`ninf` flags are emitted;
  a multiply-add fuses only where the IR has an `Op.MULADD` (`llvm.fmuladd` → `fma.rn`), as on
  the CPU: plain float ops carry no `contract`, so NVPTX emits `mul.rn`/`add.rn`, which ptxas
  does not fuse. A `fastmath=True` kernel instead gets LLVM's `fast` flags and flushes f32
  subnormals (the entry and body marked `denormal-fp-math-f32=preserve-sign`, the flag 1), as
  CUDA's `--use_fast_math` does: NVPTX then emits the `.ftz` forms, `rsqrt.approx.ftz.f32`
  without the subnormal range check that the plain `rsqrt.approx.f32` costs in SASS;
- workgroups: `shared` scratch arrays are module globals in addrspace(3), `Barrier` is
  `llvm.nvvm.barrier0` (bar.sync 0), `THREAD_ID` is `tid.x`; warp operations are
  `shfl.sync`/`vote.sync` (render/llvm/ptx_warps.py), fragment loads `ldmatrix` where their
  rows are provably aligned (render/llvm/ptx_ldmatrix.py), asynchronous copies `cp.async`
  (sm_80+, render/llvm/ptx_async.py), transaction barriers and bulk copies
  (render/llvm/ptx_mbarriers.py), tensor copies (render/llvm/ptx_tensor.py: the entry takes
  one 128-byte tensor map by value per `ir.tma.maps` entry, after the kernel's parameters).
  Atomics are the CPU renderer's relaxed `atomicrmw` (returning the old value); NVPTX expands
  float min/max (and 8/16-bit operations) into compare-and-swap loops.

toolchain/nvptx.py turns the text into PTX (libdevice linking, O3 for NVPTX, code generation).
"""
from __future__ import annotations

from typing import ClassVar

import llvmlite.binding as llvm
from llvmlite import ir

from ...builtins.registry import lowered
from ...capabilities import SM_LOWERINGS
from ...dtypes import DType, bf16, f32
from ...ir.nodes import KernelIR
from ...ir.ops import SHUFFLES, VOTES, WARP_REDUCTIONS, Op
from ...passes.coarsen import coarsening
from ...passes.divisibility import aligned_access_bytes
from . import ptx_shared
from .printer import I64, LLVMRenderer, entry_name
from .printf import format_line, string_constant
from .ptx_async import AsyncRendering
from .ptx_ldmatrix import LdmatrixRendering
from .ptx_mbarriers import MbarrierRendering
from .ptx_tensor import MAP, TensorRendering
from .ptx_warps import WarpRendering
from .ptx_wgmma import WgmmaRendering

TRIPLE = "nvptx64-nvidia-cuda"
I8, I32 = ir.IntType(8), ir.IntType(32)
SHARED = 3  # NVPTX address space of workgroup memory (arrays are in 1, global)
# What the coarsening (passes/coarsen.py) keeps to one index per thread: the library math, whose
# code K copies would bloat (the builtins whose CUDA lowering is libdevice, and FREM, `__nv_fmod`);
# RSQRT, which only fastmath kernels hold, is counted with them.
_LIBRARY_OPS = frozenset({op for op, b in lowered("ptx").items() if b.ptx.kind == "library"}
                         | {Op.FREM, Op.RSQRT})


# The aligned entry (`emit_aligned`) for kernels with an access group this wide, in bytes: an
# 8-byte vector access already halves the instructions of 4-byte elements.
ALIGNED_ENTRY_BYTES = 8


# The function attribute by which NVPTX selects the `.ftz` forms of f32 instructions
# (`rsqrt.approx.ftz.f32`, `add.ftz.f32`, ...): subnormal results and operands become zero.
FTZ_ATTRIBUTE = '"denormal-fp-math-f32"="preserve-sign,preserve-sign"'


def flush_f32_subnormals(fn: ir.Function) -> None:
    """Mark `fn` as flushing f32 subnormals to zero (fast-math kernels only). llvmlite checks
    attribute names against its list of keywords, which has no string attributes; the set
    underneath prints any entry as is."""
    set.add(fn.attributes, FTZ_ATTRIBUTE)


class PTXRenderer(WarpRendering, LdmatrixRendering, AsyncRendering, WgmmaRendering,
                  MbarrierRendering, TensorRendering, LLVMRenderer):
    """The CPU printer with an NVPTX entry, libdevice math, GPU workgroup primitives, warp
    operations (render/llvm/ptx_warps.py), fragment loads (render/llvm/ptx_ldmatrix.py),
    asynchronous copies (render/llvm/ptx_async.py), the warpgroup MMA
    (render/llvm/ptx_wgmma.py) and transaction barriers with bulk copies
    (render/llvm/ptx_mbarriers.py)."""

    triple = TRIPLE
    f16_native = True  # cvt.rn.f16.f32 / cvt.f32.f16 on every sm
    array_addrspace = 1  # arrays are global memory: ld.global / st.global / atom.global
    # Constant tables are read-only global memory too, not `.const` (4): a lookup table is
    # indexed by per-thread data, and the constant cache serves one address per warp at a time
    # (distinct indices serialize), while `ld.global.nc` reads through the read-only data cache
    # at any index pattern; `.const` is also limited to 64 KiB per module.
    table_addrspace = 1
    heap_frames = False  # local arrays are the thread's local memory (limited before compiling)
    engine = "ptx"  # builtins lowered as their entries' `ptx` says: libdevice or an intrinsic
    # A GPU's min/max loops are a lane's strided slice, not vectorized: no integer keys there.
    keyed_reductions = False
    EMIT: ClassVar[dict] = {**LLVMRenderer.EMIT, Op.LANE_ID: "lane_id", Op.WARP_ID: "warp_id",
                            **dict.fromkeys(SHUFFLES, "shuffle"), **dict.fromkeys(VOTES, "vote"),
                            **dict.fromkeys(WARP_REDUCTIONS, "warp_reduce"),
                            Op.ASYNC_COPY: "async_copy", Op.ASYNC_COMMIT: "async_commit",
                            Op.ASYNC_WAIT: "async_wait", Op.FRAGMENT: "fragment", Op.MMA: "mma",
                            Op.WGMMA: "wgmma", Op.WGMMA_COMMIT: "wgmma_commit",
                            Op.WGMMA_WAIT: "wgmma_wait",
                            Op.MBARRIER_INIT: "mbarrier_init",
                            Op.MBARRIER_ARRIVE: "mbarrier_arrive",
                            Op.MBARRIER_ARRIVE_TX: "mbarrier_arrive",
                            Op.MBARRIER_WAIT: "mbarrier_wait",
                            Op.ASYNC_BULK_COPY: "async_bulk_copy",
                            Op.ASYNC_TENSOR_COPY: "async_tensor_copy"}

    def cast(self, v: ir.Value, src: DType, dst: DType, e=None) -> ir.Value:
        """f32 → bf16 is one `cvt.rn.bf16.f32` where the target has it (`SM_LOWERINGS`), as
        inline PTX since LLVM IR as llvmlite writes it has no bfloat type; else the CPU's
        integer rounding (render/llvm/half.py)."""
        if dst is bf16 and src is f32 and self.sm >= SM_LOWERINGS["cvt.rn.bf16.f32"][0]:
            cvt = ir.InlineAsm(ir.FunctionType(ir.IntType(16), [ir.FloatType()]),
                               "cvt.rn.bf16.f32 $0, $1;", "=h,f", side_effect=False)
            # no memory access and it returns (llvmlite knows no `willreturn`: added past its
            # keyword check, as flush_f32_subnormals does): the load/store vectorizer then
            # merges the accesses around it into 16-byte ones
            call = self.b.call(cvt, [v], attrs=("nounwind", "readnone"))
            set.add(call.attributes, "willreturn")
            return call
        return super().cast(v, src, dst, e)

    # ---- the entry ---------------------------------------------------------------------------
    def entry_param_type(self, p) -> ir.Type:
        if p.kind == "scalar" and p.dtype.kind == "b":
            return I8
        return self.param_type(p)

    def sreg(self, b: ir.IRBuilder, name: str) -> ir.Value:
        fn = self.module.declare_intrinsic(f"llvm.nvvm.read.ptx.sreg.{name}", (),
                                           ir.FunctionType(I32, []))
        return b.call(fn, [])

    def emit_entry(self, kir: KernelIR, body: ir.Function) -> ir.Function:
        maps = [MAP.as_pointer()] * len(self.tensor_maps())  # by value (ptx_tensor.py)
        tys = [self.entry_param_type(p) for p in kir.params] + maps + [I64]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), tys), name=entry_name(kir))
        self.map_params(fn, len(kir.params))
        if llvm.llvm_version_info[0] >= 20:
            fn.calling_convention = "ptx_kernel"
        else:  # older LLVM: the kernel is named in !nvvm.annotations
            self.module.add_named_metadata(
                "nvvm.annotations", self.module.add_metadata([fn, "kernel", I32(1)]))
        fn.attributes.add("nounwind")
        ftz = bool(kir.notes.get("fastmath"))
        if ftz:
            for f in (fn, body):
                flush_f32_subnormals(f)
        # libdevice's __nvvm_reflect("__CUDA_FTZ") reads this flag: 0 keeps subnormals (no FTZ).
        flag = self.module.add_metadata([I32(4), "nvvm-reflect-ftz", I32(int(ftz))])
        self.module.add_named_metadata("llvm.module.flags", flag)
        *vals, n = fn.args
        n.name = "n"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        args = []
        for p, v in zip(kir.params, vals):
            v.name = p.name
            args.append(b.trunc(v, ir.IntType(1)) if v.type == I8 and p.dtype.kind == "b" else v)
        block, size = (b.zext(self.sreg(b, r), I64) for r in ("ctaid.x", "ntid.x"))
        g = b.add(b.mul(block, size), b.zext(self.sreg(b, "tid.x"), I64), name="g")
        self.per_thread = coarsening(kir, _LIBRARY_OPS)
        done = fn.append_basic_block("done")
        if self.per_thread == 1:
            run = fn.append_basic_block("run")
            b.cbranch(b.icmp_signed("<", g, n), run, done)
            b.position_at_end(run)
            if aligned_access_bytes(kir) >= ALIGNED_ENTRY_BYTES:
                self.emit_aligned(fn, b, body, kir, g, args, done)
            else:
                b.call(body, [g] + args)
            b.branch(done)
        else:
            self.emit_coarse(fn, b, body, kir, g, args, n, done)
        b.position_at_end(done)
        b.ret_void()
        return fn

    def emit_coarse(self, fn, b, body, kir, g, args, n, done) -> None:
        """K = `per_thread` consecutive launch indices per thread (elementwise kernels, see
        passes/coarsen.py). Fast path, when all K are in range and every array is 16-byte aligned:
        K inlined bodies whose memory accesses carry scoped-noalias metadata saying that different
        iterations do not alias (parallel iterations that did would race, so the claim holds for
        every race-free kernel); the load/store vectorizer then merges them into 16-byte
        accesses. Otherwise each index is guarded on its own."""
        k = self.per_thread
        t0 = b.mul(g, ir.Constant(I64, k), name="t0")
        aligned = self.arrays_aligned(b, kir, args)
        full = b.icmp_signed("<=", b.add(t0, ir.Constant(I64, k)), n)
        fast, slow = fn.append_basic_block("fast"), fn.append_basic_block("slow")
        b.cbranch(b.and_(aligned, full), fast, slow)
        b.position_at_end(fast)
        masked = self.masked(b, kir, args)
        domain = self.module.add_metadata(["tack.iterations"])
        scopes = [self.module.add_metadata([f"tack.iteration.{j}", domain]) for j in range(k)]
        for j in range(k):
            call = b.call(body, [b.add(t0, ir.Constant(I64, j))] + masked)
            call.set_metadata("alias.scope", self.module.add_metadata([scopes[j]]))
            call.set_metadata("noalias", self.module.add_metadata(
                [s for i, s in enumerate(scopes) if i != j]))
        b.branch(done)
        b.position_at_end(slow)
        for j in range(k):
            t = b.add(t0, ir.Constant(I64, j))
            run, nxt = fn.append_basic_block(f"slow.{j}"), fn.append_basic_block(f"slow.{j}.end")
            b.cbranch(b.icmp_signed("<", t, n), run, done)
            b.position_at_end(run)
            b.call(body, [t] + args)
            b.branch(nxt)
            b.position_at_end(nxt)
        b.branch(done)

    def emit_aligned(self, fn, b, body, kir, g, args, done) -> None:
        """The aligned entry: where every array starts 16 bytes aligned (one test of their
        addresses, uniform across the launch), the body with each array as `ptrmask` gives it,
        which tells LLVM so; it then knows the alignment of every access whose offset
        passes/divisibility.py's facts make a multiple of 16 bytes, and its load/store
        vectorizer merges neighbouring accesses into 16-byte ones (`ld.global.v4.b32`).
        Otherwise the body as it is, with the plain accesses. Both compute the same."""
        fast, slow = fn.append_basic_block("aligned"), fn.append_basic_block("unaligned")
        b.cbranch(self.arrays_aligned(b, kir, args), fast, slow)
        b.position_at_end(fast)
        b.call(body, [g] + self.masked(b, kir, args))
        b.branch(done)
        b.position_at_end(slow)
        b.call(body, [g] + args)

    def arrays_aligned(self, b, kir, args) -> ir.Value:
        """Whether every array argument starts 16 bytes aligned (one test of their addresses
        OR-ed together; the kernel has at least one array)."""
        addr = None
        for p, v in zip(kir.params, args):
            if p.kind == "array":
                a = b.ptrtoint(v, I64)
                addr = a if addr is None else b.or_(addr, a)
        return b.icmp_unsigned("==", b.and_(addr, ir.Constant(I64, 15)), ir.Constant(I64, 0))

    def masked(self, b, kir, args) -> list:
        """The arguments with each array as `ptrmask` gives it (under `arrays_aligned`)."""
        return [self.ptrmask(b, v) if p.kind == "array" else v for p, v in zip(kir.params, args)]

    def ptrmask(self, b, v) -> ir.Value:
        """`v` with its low 4 bits cleared (a no-op where v is 16-byte aligned), which tells LLVM
        the alignment. (`llvm.ptrmask` would say the same; LLVM 22.1's vectorizer asserts on it.)"""
        return b.inttoptr(b.and_(b.ptrtoint(v, I64), ir.Constant(I64, -16)), v.type)

    # ---- math ----------------------------------------------------------------------------------
    def library_name(self, name: str, dt: DType) -> str:
        """libdevice's name of a math function for `dt` (`__nv_tanf` for f32)."""
        return f"__nv_{name}{'f' if dt.bits == 32 else ''}"

    def binary(self, e):
        if e.op is Op.FREM and e.dtype.is_float:  # NVPTX's frem is x - y*trunc(x/y): inexact
            a, b = self.operands(e)
            ty = self.ll_type(e.dtype)
            fmod = self.declare(self.library_name("fmod", e.dtype), ty, [ty, ty])
            return self.b.call(fmod, [a, b])
        return super().binary(e)

    # ---- print ----------------------------------------------------------------------------------
    def print_(self, e) -> ir.Value:
        """The CPU renderer's line format through CUDA's `vprintf(format, argument buffer)`: each
        value widened to 8 bytes (i64 / double) in a stack buffer. The driver prints the device's
        buffered output at the next wait."""
        text, args = format_line(self, e)
        gv = string_constant(self.module, f"tack.fmt{len(self.module.globals)}", text)
        i8p = I8.as_pointer()
        buf = ir.Constant(i8p, None)
        if args:
            slots = self.alloca(ir.ArrayType(I64, len(args)), "print.args")
            for k, a in enumerate(args):
                slot = self.b.gep(slots, [I32(0), I32(k)])
                self.b.store(a, self.b.bitcast(slot, a.type.as_pointer()), align=8)
            buf = self.b.bitcast(slots, i8p)
        vprintf = self.declare("vprintf", I32, [i8p, i8p])
        self.b.call(vprintf, [self.b.bitcast(gv, i8p), buf])
        return I32(0)

    # ---- workgroups -----------------------------------------------------------------------------
    def thread_id(self, e) -> ir.Value:
        """The lane in the block (one workgroup of `ir.ops.WORKGROUP` threads; i32), `tid.x`."""
        return self.sreg(self.b, "tid.x")

    def barrier(self, s) -> None:
        """`bar.sync 0`: the block's threads wait; orders shared and global memory. In a kernel
        with a wgmma, first the proxy fence that lets its tile reads see the stores before."""
        if self.wgmma_tiles()[0]:
            self.proxy_fence()
        fn = self.module.declare_intrinsic("llvm.nvvm.barrier0", (),
                                           ir.FunctionType(ir.VoidType(), []))
        self.b.call(fn, [])

    def scratch_array(self, sc) -> ir.Value:
        """`shared` arrays: one internal addrspace(3) global per kernel and name (`ld.shared` /
        `st.shared`), or, past 48 KiB together, an offset into the dynamic shared memory
        (render/llvm/ptx_shared.py); `local` arrays stay the CPU renderer's stack arrays."""
        if sc.space != "shared":
            return super().scratch_array(sc)
        dynamic = ptx_shared.layout(self.kir)
        if dynamic is not None:
            base = self.module.globals.get(ptx_shared.NAME)
            if base is None:
                base = ir.GlobalVariable(self.module, ir.ArrayType(I8, 0), ptx_shared.NAME,
                                         addrspace=SHARED)
                base.linkage = "external"
                base.align = ptx_shared.ALIGN
            at = base.gep([ir.Constant(I32, 0), ir.Constant(I32, dynamic[0][sc.name])])
            return at.bitcast(self.ll_type(sc.dtype).as_pointer(SHARED))
        aty = ir.ArrayType(self.ll_type(sc.dtype), max(1, sc.size))
        g = ir.GlobalVariable(self.module, aty, f"{entry_name(self.kir)}.shared.{sc.name}",
                              addrspace=SHARED)
        g.linkage = "internal"
        g.initializer = ir.Constant(aty, ir.Undefined)
        g.align = max(1024 if sc.name in self.wgmma_tiles()[0] else 16,  # the swizzle's atom
                      self.tensor_copy_alignment(sc.name))
        zero = ir.Constant(I32, 0)
        return g.gep([zero, zero])

"""Transaction barriers and bulk copies in NVPTX (ir/ops.py, "Transaction barriers"): PTX's
`mbarrier` family and `cp.async.bulk` as inline assembly. capabilities.check_arch refuses an
older target before this renders (mbarriers sm_80, expect_tx and bulk copies sm_90), and
capabilities.MIN_PTX raises the PTX ISA to 8.0 for the latter
(https://docs.nvidia.com/cuda/parallel-thread-execution/
#parallel-synchronization-and-communication-instructions-mbarrier,
#data-movement-and-conversion-instructions-cp-async-bulk):

- `MBARRIER_INIT` is `mbarrier.init.shared.b64`; in a kernel with bulk or tensor copies it is
  followed by `fence.proxy.async.shared::cta`, so the copies (the async proxy) see the
  initialized object;
- `MBARRIER_ARRIVE` is `mbarrier.arrive.shared.b64` (release, CTA scope), `MBARRIER_ARRIVE_TX`
  `mbarrier.arrive.expect_tx.shared::cta.b64`;
- `MBARRIER_WAIT` loops on `mbarrier.try_wait.parity` (sm_90: the thread may sleep in the try)
  or `mbarrier.test_wait.parity` (sm_80) until the phase of the operand's parity has completed
  (acquire, CTA scope);
- `ASYNC_BULK_COPY` is `fence.proxy.async.shared::cta` (this lane's earlier accesses to shared
  memory, and those ordered before them by barriers, come before the copy's writes) then
  `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`. Both addresses must be
  16-byte aligned or the copy faults (a sticky error that ends the context); the simulator
  refuses such a copy, and here one whose addresses turn out misaligned (a view starting
  mid-array) is made element by element with plain loads and stores, published with
  `fence.acq_rel.cta` and counted with `mbarrier.complete_tx`, so the waiting lanes see it.

Every asm statement has side effects and clobbers memory, so LLVM neither drops nor moves
loads and stores of shared memory across it.
"""
from __future__ import annotations

from llvmlite import ir

from ... import dtypes as dt
from ...ir.nodes import Expr
from ...ir.ops import BARRIER_COPIES, Op
from ...ir.walk import iter_stmts, stmt_exprs

I32, I64 = ir.IntType(32), ir.IntType(64)
BULK_ALIGN = 16


class MbarrierRendering:
    """PTXRenderer's transaction-barrier methods (`EMIT` names them); `asm` is AsyncRendering's."""

    sm: int | None = None  # the target's sm number, set by toolchain/nvptx.compile_ptx

    def barrier_address(self, e: Expr, bar: str, index: Expr) -> ir.Value:
        ptr, _ = self.element_ptr(e.loc, bar, (index,))
        return self.b.ptrtoint(ptr, I64)

    def mbarrier_init(self, e: Expr) -> ir.Value:
        at = self.barrier_address(e, e.arg, e.args[0])
        count = self.cast(self.expr(e.args[1]), e.args[1].dtype, dt.i32)
        self.asm("mbarrier.init.shared.b64 [$0], $1;", [at, count], "l,r")
        if any(x.op in BARRIER_COPIES for st in iter_stmts(self.kir.body)
               for x in stmt_exprs(st)):
            self.asm("fence.proxy.async.shared::cta;", [], "")
        return ir.Constant(I32, 0)

    def mbarrier_arrive(self, e: Expr) -> ir.Value:
        at = self.barrier_address(e, e.arg, e.args[0])
        if e.op is Op.MBARRIER_ARRIVE:
            self.asm("{ .reg .b64 tk_st; mbarrier.arrive.shared.b64 tk_st, [$0]; }", [at], "l")
            return ir.Constant(I32, 0)
        nbytes = self.cast(self.expr(e.args[1]), e.args[1].dtype, dt.i32)
        self.asm("{ .reg .b64 tk_st; mbarrier.arrive.expect_tx.shared::cta.b64 tk_st, [$0], $1; }",
                 [at, nbytes], "l,r")
        return ir.Constant(I32, 0)

    def mbarrier_wait(self, e: Expr) -> ir.Value:
        at = self.barrier_address(e, e.arg, e.args[0])
        phase = self.cast(self.expr(e.args[1]), e.args[1].dtype, dt.i32)
        parity = self.b.and_(phase, ir.Constant(I32, 1))
        test = ("mbarrier.try_wait.parity.shared::cta.b64" if (self.sm or 0) >= 90
                else "mbarrier.test_wait.parity.shared.b64")
        self.asm("{ .reg .pred tk_p; tk_wait_${:uid}: " f"{test} tk_p, [$0], $1; "
                 "@!tk_p bra tk_wait_${:uid}; }", [at, parity], "l,r")
        return ir.Constant(I32, 0)

    def async_bulk_copy(self, e: Expr) -> ir.Value:
        dst, src, count, bar = e.arg
        j, i, k = e.args
        size = count * self.kir.scratch[dst].dtype.itemsize
        shared, align = self.element_ptr(e.loc, dst, (j,))
        source, _ = self.element_ptr(e.loc, src, (i,))
        b = self.b
        to, frm = b.ptrtoint(shared, I64), b.ptrtoint(source, I64)
        at = self.barrier_address(e, bar, k)
        nbytes = ir.Constant(I32, size)
        aligned = b.icmp_unsigned("==", b.and_(b.or_(to, frm), ir.Constant(I64, BULK_ALIGN - 1)),
                                  ir.Constant(I64, 0))
        with b.if_else(aligned) as (whole, elements):
            with whole:
                self.asm("fence.proxy.async.shared::cta;", [], "")
                self.asm("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                         "[$0], [$1], $2, [$3];", [to, frm, nbytes, at], "l,l,r,l")
            with elements:
                for n in range(count):
                    off = ir.Constant(I64, n)
                    value = b.load(b.gep(source, [off]), align=align)
                    b.store(value, b.gep(shared, [off]), align=align)
                self.asm("fence.acq_rel.cta;", [], "")
                self.asm("mbarrier.complete_tx.shared::cta.b64 [$0], $1;", [at, nbytes], "l,r")
        return ir.Constant(I32, 0)


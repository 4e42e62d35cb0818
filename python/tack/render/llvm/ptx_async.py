"""Asynchronous copies in NVPTX (ir/ops.py, "Asynchronous copies"): PTX's `cp.async` family as
inline assembly, sm_80 and later (capabilities.check_arch refuses older targets before this
renders; PTX ISA, https://docs.nvidia.com/cuda/parallel-thread-execution/
#data-movement-and-conversion-instructions-cp-async):

- `ASYNC_COPY` is `cp.async.ca.shared.global [shared], [global], size` (4 or 8 bytes, cached in
  L1), or `cp.async.cg...` for 16 bytes (L2 only, the form CUTLASS uses for 16-byte tiles);
- `ASYNC_COMMIT` is `cp.async.commit_group`, `ASYNC_WAIT` `cp.async.wait_group n`.

A copy of several elements whose addresses turn out not to be aligned to its size (a view that
starts mid-array) is made element by element with plain loads and stores instead of faulting.

Every asm statement has side effects and clobbers memory, so LLVM neither drops nor moves
loads and stores of shared memory across it: the wait is where the data appears.
"""
from __future__ import annotations

from llvmlite import ir

from ...ir.nodes import Expr

I32, I64 = ir.IntType(32), ir.IntType(64)
VOID = ir.VoidType()


class AsyncRendering:
    """PTXRenderer's asynchronous-copy methods (`EMIT` names them)."""

    def asm(self, text: str, args: list, constraints: str) -> None:
        fty = ir.FunctionType(VOID, [a.type for a in args])
        clobber = ",~{memory}" if constraints else "~{memory}"
        self.b.call(ir.InlineAsm(fty, text, constraints + clobber, side_effect=True), args)

    def async_copy(self, e: Expr) -> ir.Value:
        dst, src, count = e.arg
        j, i = e.args
        size = count * self.kir.scratch[dst].dtype.itemsize
        shared, _ = self.element_ptr(e.loc, dst, (j,))
        source, align = self.element_ptr(e.loc, src, (i,))
        b = self.b
        to, frm = b.ptrtoint(shared, I64), b.ptrtoint(source, I64)
        cache = "cg" if size == 16 else "ca"
        if count == 1:  # one element: aligned as every element is
            self.asm(f"cp.async.{cache}.shared.global [$0], [$1], {size};", [to, frm], "l,l")
            return ir.Constant(I32, 0)
        # Several elements need both addresses `size`-aligned, or the copy faults (a sticky
        # error that ends the context). The simulator refuses such a copy; here it is made
        # element by element instead, synchronously, which a wait allows.
        aligned = b.icmp_unsigned("==", b.and_(b.or_(to, frm), ir.Constant(I64, size - 1)),
                                  ir.Constant(I64, 0))
        with b.if_else(aligned) as (whole, elements):
            with whole:
                self.asm(f"cp.async.{cache}.shared.global [$0], [$1], {size};", [to, frm],
                         "l,l")
            with elements:
                for k in range(count):
                    at = ir.Constant(I64, k)
                    value = b.load(b.gep(source, [at]), align=align)
                    b.store(value, b.gep(shared, [at]), align=align)
        return ir.Constant(I32, 0)

    def async_commit(self, e: Expr) -> ir.Value:
        self.asm("cp.async.commit_group;", [], "")
        return ir.Constant(I32, 0)

    def async_wait(self, e: Expr) -> ir.Value:
        self.asm(f"cp.async.wait_group {int(e.arg)};", [], "")
        return ir.Constant(I32, 0)

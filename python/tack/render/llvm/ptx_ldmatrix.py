"""Fragment loads in NVPTX (docs/language.md, "Matrix multiply-accumulate"): an f16 or bf16 A or
B fragment of a `tack.shared` tile is one `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (A) or
`.x2.trans` (B, stored K×N) when every row address it reads is provably 16-byte aligned, else
each lane's plain loads in the fragment layout (TF32 fragments, accumulators and fragments of
global arrays always).

The typechecker gives each element of such a fragment the flat index of the tile row whose
address its lane supplies (`Op.FRAGMENT`'s second operand, the rows of ir/mma.py's `LDMATRIX`)
and its position in the fragment (the third). The rule, decided here at compile time: the
row index is a multiple of 8 elements (16 bytes) by passes/divisibility.py's proof, which holds
when the row stride `ld` and the tile's column are multiples of 8 built from constants (the
shared array itself starts 16-byte aligned: ptx.py's `scratch_array`). Nothing is tested at
run time, so the choice costs no instruction; a tile that the proof cannot place (a stride
passed as an argument) gets the plain loads, which read the same elements. The results are
the same bits on either path, and on every engine: the simulator reads the elements themselves.

The asm call reads memory and nothing else (`readonly`, no side effects): the elements of one
fragment load are one instruction after LLVM's common-subexpression elimination, which never
moves it across a store, a barrier or an asynchronous copy's wait (those write memory).
"""
from __future__ import annotations

from llvmlite import ir

from ...builtins.registry import REGISTRY
from ...ir.mma import LDMATRIX, LDMATRIX_ALIGN
from ...ir.nodes import Expr
from ...passes.divisibility import divisor, local_divisors

I16, I32, I64 = ir.IntType(16), ir.IntType(32), ir.IntType(64)
# The fragment loads `ldmatrix` may serve, by their entries' roles (elements of another carry no
# row: the typechecker gives one only to these)
_ROLE = {b.name: b.role for b in REGISTRY.values() if b.role in LDMATRIX}


class LdmatrixRendering:
    """PTXRenderer's fragment loads (`EMIT` maps Op.FRAGMENT to `fragment`)."""

    def fragment(self, e: Expr) -> ir.Value:
        """One element of a fragment: from the warp's `ldmatrix` where the rule above allows
        it, else the value its lane loaded."""
        if not self.ldmatrix_aligned(e):
            return self.expr(e.args[0])
        load, row, pos = e.args
        how = LDMATRIX[_ROLE[e.arg]]
        ptr, _ = self.element_ptr(e.loc, load.arg, (row,))
        regs = self.ldmatrix(how, self.b.ptrtoint(ptr, I64))
        k, half = how.register(int(pos.arg))
        reg = self.b.extract_value(regs, k) if how.count > 1 else regs
        bits = self.b.trunc(self.b.lshr(reg, ir.Constant(I32, 16 * half)), I16)
        ty = self.ll_type(load.dtype)
        return bits if ty == I16 else self.b.bitcast(bits, ty)

    def ldmatrix_aligned(self, e: Expr) -> bool:
        """Whether element `e` of a fragment load goes through `ldmatrix` (the module's rule)."""
        if len(e.args) != 3 or e.arg not in _ROLE:
            return False
        facts = getattr(self, "_divisors", None)
        if facts is None or facts[0] is not self.kir:
            facts = self._divisors = (self.kir, local_divisors(self.kir))
        return divisor(e.args[1], facts[1]) % LDMATRIX_ALIGN == 0

    def ldmatrix(self, how, address: ir.Value) -> ir.Value:
        """The `how.count` 32-bit registers `ldmatrix` gives this lane for the row at `address`
        (a shared-memory address; a struct of them for more than one)."""
        n = how.count
        outs = "{" + ", ".join(f"${k}" for k in range(n)) + "}"
        text = (f"ldmatrix.sync.aligned.m8n8.x{n}{'.trans' if how.trans else ''}.shared.b16 "
                f"{outs}, [${n}];")
        ret = ir.LiteralStructType([I32] * n) if n > 1 else I32
        fty = ir.FunctionType(ret, [I64])
        asm = ir.InlineAsm(fty, text, ",".join(["=r"] * n + ["l"]), side_effect=False)
        return self.b.call(asm, [address], attrs=("convergent", "nounwind", "readonly"))

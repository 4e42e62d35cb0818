"""The warpgroup MMA in NVPTX (ir/ops.py, "Warpgroup matrix multiply-accumulate"): PTX's
`wgmma` family as inline assembly, for sm_90a only (capabilities.check_arch refuses every other
target before this renders, and toolchain/nvptx.py targets sm_90a where a kernel needs it).
PTX ISA, https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions:

- `WGMMA` is `wgmma.fence.sync.aligned` (required before the first wgmma and after any
  register access to its accumulator; between wgmmas of one shape on one accumulator it
  orders nothing more, as Triton emits one per dot) and
  `wgmma.mma_async.sync.aligned.m64n<N>k<K>.f32.<t>.<t> {d...}, descA, descB, p, 1, 1[, 0, 0]`:
  the accumulator registers in and out (tied operands), the two 64-bit matrix descriptors
  built from the tiles' shared addresses with the layout's byte offsets and swizzle mode
  (`ir.wgmma.descriptor`), scale-d p true (D = A @ B + D), A and B not negated, K-major (no
  transpose; TF32 has no transpose operands);
- `WGMMA_COMMIT` is `wgmma.commit_group.sync.aligned`; `WGMMA_WAIT` is
  `wgmma.wait_group.sync.aligned n`, with every accumulator of the kernel passed through it as
  tied registers, so that no read of an accumulator moves above the wait (CUTLASS's
  `warpgroup_fence_operand` does the same);
- a wgmma reads its tiles through the async proxy, so generic stores that staged them must be
  fenced with `fence.proxy.async.shared::cta` before the barrier that publishes them
  (#proxies): in a kernel with a wgmma every `tack.barrier()` is that fence and `bar.sync`.

The shared arrays a wgmma reads are aligned to 1024 bytes, the 128-byte swizzle's atom, so that
tile offsets that are multiples of 1024 bytes keep the pattern `ir.wgmma.index` describes.
Every asm statement is `convergent` (all lanes of the warpgroup issue it together) and clobbers
memory.
"""
from __future__ import annotations

from llvmlite import ir

from ...ir.nodes import Expr
from ...ir.ops import Op
from ...ir.walk import iter_stmts, stmt_exprs
from ...ir.wgmma import LAYOUTS, VARIANTS, instruction

I32, I64, F32 = ir.IntType(32), ir.IntType(64), ir.FloatType()
VOID = ir.VoidType()
_ATTRS = ("convergent", "nounwind")


def wgmma_uses(kir) -> tuple[set[str], list[str]]:
    """The shared arrays the kernel's wgmmas read and their accumulator locals (in order)."""
    tiles: set[str] = set()
    accs: dict[str, None] = {}
    for st in iter_stmts(kir.body):
        for x in stmt_exprs(st):
            if x.op is Op.WGMMA:
                tiles.update(x.arg[3:5])
                accs.update(dict.fromkeys(a.arg for a in x.args[2:]))
    return tiles, list(accs)


class WgmmaRendering:
    """PTXRenderer's warpgroup MMA methods (`EMIT` names them)."""

    def wgmma_tiles(self) -> tuple[set[str], list[str]]:
        """`wgmma_uses` of the kernel being rendered, found once."""
        got = getattr(self, "_wgmma_uses", None)
        if got is None or got[0] is not self.kir:
            got = self._wgmma_uses = (self.kir, wgmma_uses(self.kir))
        return got[1]

    def _wgmma_asm(self, text: str, ins: list, constraints: str, outs: int = 0):
        ret = ir.LiteralStructType([F32] * outs) if outs else VOID
        fty = ir.FunctionType(ret, [a.type for a in ins])
        clobber = ",~{memory}" if constraints else "~{memory}"
        return self.b.call(ir.InlineAsm(fty, text, constraints + clobber, side_effect=True), ins,
                           attrs=_ATTRS)

    def _through(self, text: str, names: list[str], extra: list, extra_constraints: list[str]):
        """Run `text` with the accumulator locals `names` as tied in/out registers ($0.. the
        outputs, then `extra` operands, then the tied inputs)."""
        m = len(names)
        slots = [self.slots[nm] for nm in names]
        vals = [self.b.load(s) for s in slots]
        constraints = ",".join(["=f"] * m + extra_constraints + [str(j) for j in range(m)])
        d = self._wgmma_asm(text, extra + vals, constraints, m)
        for j, s in enumerate(slots):
            self.b.store(self.b.extract_value(d, j), s)

    def descriptor(self, e: Expr, array: str, start: Expr, layout: str) -> ir.Value:
        """The 64-bit matrix descriptor of the tile of `array` starting at element `start`."""
        b = self.b
        ptr, _ = self.element_ptr(e.loc, array, (start,))
        addr = b.ptrtoint(ptr, I64)
        lay = LAYOUTS[layout]
        fixed = ((lay.lbo >> 4) << 16) | ((lay.sbo >> 4) << 32) | (lay.mode << 62)
        fixed -= 1 << 64 if fixed >= 1 << 63 else 0  # as a signed i64 constant
        low = b.lshr(b.and_(addr, ir.Constant(I64, 0x3FFFF)), ir.Constant(I64, 4))
        return b.or_(low, ir.Constant(I64, fixed))

    def wgmma(self, e: Expr) -> ir.Value:
        variant, n, layout, a_arr, b_arr = e.arg
        da = self.descriptor(e, a_arr, e.args[0], layout)
        db = self.descriptor(e, b_arr, e.args[1], layout)
        m = n // 2
        regs = ", ".join(f"${j}" for j in range(m))
        tail = "" if VARIANTS[variant].ptx == "tf32" else ", 0, 0"
        text = ("{\n.reg .pred p;\n"
                f"setp.ne.b32 p, ${m + 2}, 0;\n"
                "wgmma.fence.sync.aligned;\n"
                f"{instruction(variant, n)} {{{regs}}}, ${m}, ${m + 1}, p, 1, 1{tail};\n}}")
        self._through(text, [x.arg for x in e.args[2:]], [da, db, ir.Constant(I32, 1)],
                      ["l", "l", "r"])
        return ir.Constant(I32, 0)

    def wgmma_commit(self, e: Expr) -> ir.Value:
        self._wgmma_asm("wgmma.commit_group.sync.aligned;", [], "")
        return ir.Constant(I32, 0)

    def wgmma_wait(self, e: Expr) -> ir.Value:
        text = f"wgmma.wait_group.sync.aligned {int(e.arg)};"
        accs = self.wgmma_tiles()[1]
        if accs:
            self._through(text, accs, [], [])
        else:
            self._wgmma_asm(text, [], "")
        return ir.Constant(I32, 0)

    def proxy_fence(self) -> None:
        """`fence.proxy.async.shared::cta`: generic-proxy shared stores before it are seen by
        the async proxy (a wgmma's tile reads) after the barrier that follows."""
        self._wgmma_asm("fence.proxy.async.shared::cta;", [], "")

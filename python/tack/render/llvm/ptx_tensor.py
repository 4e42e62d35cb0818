"""Tensor copies in NVPTX (`Op.ASYNC_TENSOR_COPY`, ir/tma.py): the Tensor Memory Accelerator's
`cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes` as inline
assembly, reading a tensor map that the kernel receives as a hidden parameter.

Where the map lives. The instruction reads the 128-byte map (`CUtensorMap`) from the `.param`,
`.const` or `.global` space through a generic address
(https://docs.nvidia.com/cuda/parallel-thread-execution/
#data-movement-and-conversion-instructions-cp-async-bulk-tensor); the CUDA C++ Programming
Guide lists the same three homes ("Using TMA to transfer multi-dimensional arrays"). Tack passes
each map (one per distinct array, box and layout of the kernel's copies: `tma.maps`) by value:
an entry parameter `ptr byval([16 x i64]) align 64` after the kernel's own, which NVPTX prints
as `.param .align 64 .b8 <entry>_param_<k>[128]`, and runtime/cuda/kernel.py fills it at each
launch from the maps the engine encodes (runtime/cuda/tensormaps.py). The IR never takes the
parameter's address: NVPTX (NVPTXLowerArgs) copies a byval kernel parameter whose address
escapes to local memory, which the TMA cannot read, unless the parameter is marked
`nvvm.grid_constant`, which LLVM 15 (llvmlite 0.44) does not know. Instead the inline assembly
names the parameter's PTX symbol, `mov.b64 %m, <entry>_param_<k>; cvta.param.u64 %m, %m;` (PTX
ISA 7.7, sm_70: the generic address of a kernel parameter, what nvcc and LLVM 19+ emit for a
`__grid_constant__` map), the same text on every LLVM version. The other home, a map in global
memory passed by pointer, needs `fence.proxy.tensormap::generic.acquire` after every host
update (PTX ISA 8.3, above the 8.0 the other copies need) and device memory per map.

Like `cp.async.bulk` (render/llvm/ptx_mbarriers.py), the copy is preceded by
`fence.proxy.async.shared::cta`: this lane's earlier shared accesses, and those ordered before
them by barriers, come before the copy's writes. The coordinates are the TMA's signed 32-bit
ones, innermost (the column) first; the destination's alignment (`tma.ALIGN`) is the shared
array's (`tensor_copy_alignment`, render/llvm/ptx.py `scratch_array`).
"""
from __future__ import annotations

from llvmlite import ir

from ...ir import tma
from ...ir.nodes import Expr
from ...ir.ops import Op
from ...ir.walk import iter_stmts, stmt_exprs
from .entry import entry_name

I32, I64 = ir.IntType(32), ir.IntType(64)
MAP = ir.ArrayType(I64, 16)  # a CUtensorMap: 128 opaque bytes, 64-byte aligned
MAP_ALIGN = 64


class TensorRendering:
    """PTXRenderer's tensor-copy methods (`EMIT` names `async_tensor_copy`)."""

    def tensor_maps(self) -> list[tma.TensorMap]:
        found = getattr(self, "_maps", None)
        if found is None or found[0] is not self.kir:
            self._maps = (self.kir, tma.maps(self.kir))
        return self._maps[1]

    def map_params(self, fn: ir.Function, first: int) -> None:
        """Make entry parameters first.. of `fn` the kernel's tensor maps, by value."""
        for k, _ in enumerate(self.tensor_maps()):
            arg = fn.args[first + k]
            arg.name = f"tensor_map{k}"
            arg.add_attribute("byval")
            arg.attributes.align = MAP_ALIGN

    def tensor_copy_alignment(self, name: str) -> int:
        """The bytes shared array `name`'s start is a multiple of for the tensor copies into
        it (1 where there are none)."""
        return max((tma.ALIGN[x.arg[2][2]] for st in iter_stmts(self.kir.body)
                    for x in stmt_exprs(st)
                    if x.op is Op.ASYNC_TENSOR_COPY and x.arg[0] == name), default=1)

    def async_tensor_copy(self, e: Expr) -> ir.Value:
        dst, _, _, bar = e.arg
        j, row, col, k = e.args
        which = self.tensor_maps().index(tma.key(e))
        param = f"{entry_name(self.kir)}_param_{len(self.kir.params) + which}"
        shared, _ = self.element_ptr(e.loc, dst, (j,))
        b = self.b
        to = b.ptrtoint(shared, I64)
        at = self.barrier_address(e, bar, k)
        c0, c1 = (b.trunc(self.expr(x), I32) for x in (col, row))  # i64 from the typechecker
        self.asm("fence.proxy.async.shared::cta;", [], "")
        self.asm("{ .reg .b64 tk_map; "
                 f"mov.b64 tk_map, {param}; cvta.param.u64 tk_map, tk_map; "
                 "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[$0], [tk_map, {$1, $2}], [$3]; }", [to, c0, c1, at], "l,r,r,l")
        return ir.Constant(I32, 0)
